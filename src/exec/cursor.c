/*
 * cursor.c — one statement's results taken one at a time, for a caller
 * that may stop taking them (the custom scan of backend/customscan.c under LIMIT, a
 * cursor's FETCH, EXISTS).
 *
 * A read that one SQL statement drives (select_driver: every object, ids
 * then rows from the heap, rows through SQL, object ids) runs that
 * statement a round of rows at a time (common/rowcursor.c); the objects
 * its rows make wait in a queue until taken, and the next round runs only
 * when the queue is empty.  The first rounds are small, so that the first
 * object costs little, and grow to ARGO_FETCH_ROWS.  Everything else
 * (aggregates, joins, reads of shards, and every write, which runs to
 * completion whatever the caller takes) runs whole at the first call,
 * into a tuplestore that spills past work_mem, as argo_query's own
 * results do.
 *
 * Every object, unsorted, can also be shared among the processes of a
 * parallel query (backend/customscan.c): each runs the kept documents (or, where
 * there are none, the directory's rows) a chunk of pages at a time (a
 * TID range scan), taking the next chunk no process has taken, and
 * rebuilds the objects of the directory's rows; the objects without a
 * kept document are then rebuilt by the first process done.  So is a
 * projection of every object read from the kept documents, each cut
 * down as it is taken.
 * Every process reads the same snapshot.  Any other statement runs, as
 * above, in the one process that claims it first.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "common/plancache.h"
#include "common/rowcursor.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/docs.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/allobjects.h"
#include "exec/cursor.h"
#include "exec/execute.h"
#include "exec/plan.h"
#include "exec/results.h"
#include "exec/stream.h"

/* Rows of the driving statement in the first round (at most ARGO_FETCH_ROWS). */
#define FIRST_ROUND 16
/* Directory pages a process takes at a time, when shared */
#define CHUNK_BLOCKS 64

struct ArgoCursor
{
	MemoryContext cxt;			/* the statement's */
	MemoryContext round;		/* a round's scratch */
	MemoryContext queued;		/* objects made, not yet taken */
	ArgoPlan   *plan;
	/* streamed */
	RowDriver	drv;
	RowCursor  *rows;			/* drv.sql running, or NULL */
	uint64		round_rows;
	int			next_id;		/* in drv.ids */
	bool		done;
	/* shared with other processes: the directory's pages a chunk at a time */
	ArgoShare  *share;
	bool		chunked;		/* sharing: rows runs the current chunk */
	bool		docs;			/* the chunks are of the kept documents */
	MemoryContext chunkcxt;		/* its memory */
	BlockNumber nblocks;
	EmitTarget	target;
	Jsonb	  **queue;
	int			head;
	int			n;
	int			cap;
	Size		queued_bytes;	/* of the objects in the queue */
	Distinct   *distinct;		/* DISTINCT: what it kept back past work_mem */
	/* made whole first */
	Tuplestorestate *store;
	TupleTableSlot *slot;
};

static void
enqueue(void *arg, int64 objid, Jsonb *value)
{
	ArgoCursor *c = arg;
	Jsonb	   *copy;

	/* a plan that withdraws its results (projscan.c) is never streamed */
	if (value == NULL)
		elog(ERROR, "a streamed statement withdrew its results");
	if (c->n == c->cap)
	{
		c->cap = c->cap ? c->cap * 2 : 64;
		c->queue = c->queue ? repalloc(c->queue, sizeof(Jsonb *) * c->cap) :
			MemoryContextAlloc(c->cxt, sizeof(Jsonb *) * c->cap);
	}
	copy = MemoryContextAlloc(c->queued, VARSIZE(value));
	memcpy(copy, value, VARSIZE(value));
	c->queue[c->n++] = copy;
	c->queued_bytes += VARSIZE(value);
}

static void
store(void *arg, int64 objid, Jsonb *value)
{
	ArgoCursor *c = arg;
	Datum		v = JsonbPGetDatum(value);
	bool		isnull = false;

	if (value == NULL)
	{
		tuplestore_clear(c->store);
		return;
	}
	tuplestore_putvalues(c->store, c->slot->tts_tupleDescriptor, &v, &isnull);
}

/* Run the whole statement now, its results into the tuplestore. */
static void
run_whole(ArgoCursor *c, result_emit emit, void *arg)
{
	TupleDesc	desc = CreateTemplateTupleDesc(1);

	TupleDescInitEntry(desc, 1, "result", JSONBOID, -1, 0);
	c->slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	/* a rescan reads it again (a write must not run twice) */
	c->store = tuplestore_begin_heap(false, false, work_mem);
	argo_run_plan(c->plan, emit, arg);
	argo_plan_close(c->plan);
	if (c->distinct)
		distinct_finish(c->distinct, true);
	c->done = true;
}

static void finish(ArgoCursor *c);

void
argo_share_init(ArgoShare *share)
{
	pg_atomic_init_u32(&share->next_chunk, 0);
	pg_atomic_init_u32(&share->whole_claimed, 0);
	pg_atomic_init_u32(&share->rest_claimed, 0);
}

/*
 * Whether a statement, as parsed, may be one that processes can share:
 * every object, unsorted, of one collection, or a projection of every
 * object (allobjects.c), nothing that needs all of the results in one
 * place (DISTINCT, LIMIT).  Whether a projection is shared is decided
 * when it is planned (argo_shareable_query).
 */
bool
argo_shareable_statement(ArgoStmt *s)
{
	return s->kind == ASTMT_SELECT &&
		(allobjects_applies(s) || allobjects_projects_every_object(s)) &&
		s->order_by == NIL && !s->distinct && s->group_by == NIL && !s->select_ids &&
		!s->renames;
}

/*
 * Whether the statement text is a read that processes share: every
 * object, or a projection of every object that its kept documents give
 * (only that reads the same pages as every object does; a projection read
 * from its keys' rows runs whole in one process, and a parallel plan
 * would start workers for nothing).  Not deep, a projection is taken at
 * its word, as parsed.
 */
bool
argo_shareable_query(const char *query, bool deep)
{
	ArgoStmt   *s;

	if (argo_starts_as_write(query))
		return false;
	s = argo_parse(query);
	if (!argo_shareable_statement(s))
		return false;
	return s->star || !deep || allobjects_projection_shared(s, query);
}

/*
 * The next chunk of pages (of the kept documents, or of the directory)
 * no process has taken, then, where documents are read, the objects that
 * have none, for the first process to ask; false when none is left.
 */
static bool
next_chunk(ArgoCursor *c)
{
	uint32		chunk = pg_atomic_fetch_add_u32(&c->share->next_chunk, 1);
	BlockNumber first = (BlockNumber) chunk * CHUNK_BLOCKS;
	MemoryContext old;
	SqlBuf	   *sql;

	if (c->rows)
		rowcursor_close(c->rows);
	c->rows = NULL;
	MemoryContextReset(c->chunkcxt);
	if (chunk < (MaxBlockNumber / CHUNK_BLOCKS) && first < c->nblocks)
		sql = sqlgen_all_objects_range(c->plan->q, first, first + CHUNK_BLOCKS);
	else if (c->docs && pg_atomic_exchange_u32(&c->share->rest_claimed, 1) == 0)
		sql = sqlgen_all_objects_undocumented(c->plan->q);
	else
		return false;
	old = MemoryContextSwitchTo(c->chunkcxt);
	/* the plan is cached after the first chunk, but may have to be made again */
	argo_spi_connect();
	MemoryContextSwitchTo(c->chunkcxt);
	c->rows = rowcursor_open(sql, argo_row_receiver(allobjects_take, &c->target));
	SPI_finish();
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * Share the statement with the other processes (true), or, where it
 * cannot be shared, run it here if this process claims it first (false).
 * The directory's size is asked after the snapshot was taken, so every
 * page with a row this snapshot sees is counted: processes that count
 * more pages only read more rows that none of them sees.
 */
static bool
share_statement(ArgoCursor *c, result_emit emit, void *arg)
{
	ArgoQuery  *q = c->plan->q;
	Relation	dir;

	if ((c->plan->strategy != ARGO_PLAN_ALL_OBJECTS &&
		 c->plan->strategy != ARGO_PLAN_PROJECTION_DOCS) ||
		!argo_shareable_statement(q->stmt) || !allobjects_readable(q))
		return false;
	/* every process decides alike: the role and the tables are the same */
	c->docs = sqlgen_reads_docs(linitial(q->colls));
	dir = c->docs ? table_open(docs_relid(linitial(q->colls)), NoLock) :
		argo_open_table(linitial(q->colls), "obj");
	c->nblocks = RelationGetNumberOfBlocks(dir);
	table_close(dir, NoLock);
	c->target.emit = emit;
	c->target.arg = arg;
	c->target.paths = c->plan->doc_paths;
	c->target.npaths = c->plan->ndoc_paths;
	c->round_rows = FIRST_ROUND;
	c->chunked = true;
	c->chunkcxt = AllocSetContextCreate(c->cxt, "argo cursor chunk", ALLOCSET_DEFAULT_SIZES);
	if (!next_chunk(c))
		finish(c);
	return true;
}

/*
 * Parse, analyze and plan the statement; a read that can stream starts,
 * anything else runs whole.  Its memory is the caller's current context.
 * share: the processes of a parallel query, or NULL.
 */
ArgoCursor *
argo_cursor_open(const char *query, Jsonb **params, int nparams, ArgoShare *share)
{
	ArgoCursor *c = palloc0(sizeof(ArgoCursor));
	ArgoStmt   *stmt;
	ArgoQuery  *q;
	result_emit emit;
	void	   *arg;
	MemoryContext old;

	c->cxt = AllocSetContextCreate(CurrentMemoryContext, "argo cursor", ALLOCSET_DEFAULT_SIZES);
	c->round = AllocSetContextCreate(c->cxt, "argo cursor round", ALLOCSET_DEFAULT_SIZES);
	c->queued = AllocSetContextCreate(c->cxt, "argo cursor queue", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(c->cxt);
	stmt = argo_parse(query);
	argo_spi_connect();
	/*
	 * SPI_connect made its own context current, and so does every SPI call
	 * when it returns; SPI_finish frees it.  The statement's memory is
	 * ours: nothing on a SELECT's way from analysis to its driver runs SPI
	 * but the driver's preparation, which rowcursor_open undoes.
	 */
	MemoryContextSwitchTo(c->cxt);
	q = argo_analyze(stmt, query, params, nparams);
	q->shared = share != NULL;
	c->plan = argo_plan(q);
	emit = select_streams(c->plan) ? enqueue : store;
	arg = c;
	/* DISTINCT filters the results; LIMIT and OFFSET count what it gives */
	if (stmt->distinct)
	{
		arg = c->distinct = distinct_begin(stmt, emit, arg);
		emit = distinct_emit;
	}
	/* EXCEPT before DISTINCT: it compares what is returned */
	if (stmt->except != NIL)
	{
		arg = except_begin(stmt, emit, arg);
		emit = except_emit;
	}
	/* and the cut of paths through filters, before DISTINCT as well */
	if (stmt->pick != NIL)
	{
		arg = pick_begin(stmt, emit, arg);
		emit = pick_emit;
	}
	/* computed targets, before DISTINCT as well */
	if (stmt->computed != NIL)
	{
		arg = compute_begin(stmt, emit, arg);
		emit = compute_emit;
	}
	c->share = share;
	if (share != NULL && share_statement(c, emit, arg))
		;
	else if (share != NULL && pg_atomic_exchange_u32(&share->whole_claimed, 1) != 0)
	{
		/* another process runs it */
		argo_plan_close(c->plan);
		c->done = true;
	}
	else if (!select_streams(c->plan))
		run_whole(c, emit, arg);
	else if (select_driver(c->plan, emit, arg, &c->drv) && c->drv.sql)
	{
		c->rows = rowcursor_open(c->drv.sql, argo_row_receiver(c->drv.take, c->drv.arg));
		c->round_rows = FIRST_ROUND;
	}
	SPI_finish();
	MemoryContextSwitchTo(old);
	return c;
}

/* The last round's rows have been taken: the objects still held go out. */
static void
finish(ArgoCursor *c)
{
	if (c->drv.rb)
		rebuilder_finish(c->drv.rb);
	if (c->rows)
		rowcursor_close(c->rows);
	c->rows = NULL;
	argo_plan_close(c->plan);
	/* what DISTINCT kept back is read from its sort as it is taken */
	if (c->distinct)
		distinct_finish(c->distinct, false);
	c->done = true;
}

/*
 * What a round may queue: work_mem, as a sort holds that much before it
 * spills.  A round of 2,000 objects of 100 kB would hold 200 MB.
 */
static Size
round_budget(void)
{
	return (Size) work_mem * 1024;
}

/*
 * Up to want rows of the driving statement, a few at a time, until the
 * objects they made fill the round's budget: as many rows at a step as
 * the rows so far say will fit (one, to begin with).  False once the
 * statement has ended.
 */
static bool
fetch_rows(ArgoCursor *c, uint64 want)
{
	uint64		got = 0;

	while (got < want && c->queued_bytes < round_budget())
	{
		uint64		step = 1;

		if (got > 0 && c->queued_bytes > 0)
			step = (round_budget() - c->queued_bytes) / Max(c->queued_bytes / got, 1);
		step = Max(step, 1);
		step = Min(step, want - got);
		if (!rowcursor_fetch(c->rows, step))
			return false;
		got += step;
	}
	return true;
}

/* One round of the driving statement's rows (or ids) into the queue. */
static void
run_round(ArgoCursor *c)
{
	MemoryContext old;

	MemoryContextReset(c->queued);
	c->head = c->n = 0;
	c->queued_bytes = 0;
	MemoryContextReset(c->round);
	old = MemoryContextSwitchTo(c->round);
	if (c->rows)
	{
		if (!fetch_rows(c, c->round_rows))
		{
			if (c->chunked)
			{
				if (!next_chunk(c))
					finish(c);
			}
			else
				finish(c);
		}
		c->round_rows = Min(c->round_rows * 4, ARGO_FETCH_ROWS);
	}
	else
	{
		int			end = Min(c->next_id + ARGO_FETCH_ROWS, c->drv.nids);

		for (; c->next_id < end && c->queued_bytes < round_budget(); c->next_id++)
		{
			Datum		id = Int64GetDatum(c->drv.ids[c->next_id]);
			bool		isnull = false;

			CHECK_FOR_INTERRUPTS();
			c->drv.take(c->drv.arg, &id, &isnull);
		}
		if (c->next_id == c->drv.nids)
			finish(c);
	}
	MemoryContextSwitchTo(old);
}

/*
 * The next result, or NULL after the last.  A result stays valid until
 * the next call.
 */
Jsonb *
argo_cursor_next(ArgoCursor *c)
{
	if (c->store)
	{
		bool		isnull;

		if (!tuplestore_gettupleslot(c->store, true, false, c->slot))
			return NULL;
		return DatumGetJsonbP(slot_getattr(c->slot, 1, &isnull));
	}
	while (c->head == c->n && !c->done)
		run_round(c);
	if (c->head == c->n)
		return c->distinct ? distinct_next(c->distinct) : NULL;
	return c->queue[c->head++];
}

/* Whether argo_cursor_next has its result at hand, running nothing. */
bool
argo_cursor_queued(ArgoCursor *c)
{
	return c->store != NULL || c->head < c->n || c->done;
}

/* Whether the statement writes (and so must run whether read or not). */
bool
argo_is_write(const char *query)
{
	return argo_parse(query)->kind != ASTMT_SELECT;
}

/* End the statement, whether or not every result was taken. */
void
argo_cursor_close(ArgoCursor *c)
{
	if (c->rows)
		rowcursor_close(c->rows);
	c->rows = NULL;
	if (!c->done)
		argo_plan_close(c->plan);
	if (c->distinct)
		distinct_end(c->distinct);
	if (c->store)
	{
		ExecDropSingleTupleTableSlot(c->slot);
		tuplestore_end(c->store);
	}
	MemoryContextDelete(c->cxt);
}

/* Read the results again from the first (only those made whole). */
bool
argo_cursor_rewind(ArgoCursor *c)
{
	if (c->store == NULL)
		return false;
	tuplestore_rescan(c->store);
	return true;
}

/* How the statement ran, for EXPLAIN ANALYZE. */
const char *
argo_cursor_describe(ArgoCursor *c)
{
	return psprintf("%s, %s", argo_plan_name(c->plan),
					c->store ? "results made whole first" : "results streamed");
}
