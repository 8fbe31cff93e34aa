/*
 * execute.c — runs one Argo/SQL statement by the strategy argo_plan chose
 * (plan.c); explain.c tells that same strategy for argo_explain, and
 * delete.c runs a DELETE.
 *
 * Reads use the caller's snapshot (read_only SPI, and the same snapshot
 * for rows read from C), so a SELECT sees one consistent state of all of
 * a collection's tables; writes lock their objects first (objlock.c) and
 * are made from C where the tables allow, else by SQL statements.
 * Results stream out through a callback, one jsonb at a time.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/snapmgr.h"

#include "common/plancache.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/objfetch.h"
#include "store/rowbatch.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/aggregate.h"
#include "exec/allobjects.h"
#include "exec/execute.h"
#include "exec/join.h"
#include "exec/lookup.h"
#include "exec/plan.h"
#include "exec/results.h"
#include "exec/shard/shardrun.h"
#include "exec/stream.h"
#include "exec/update.h"

static void
emit_object(void *arg, int64 objid, Jsonb *obj)
{
	EmitTarget *t = arg;

	t->emit(t->arg, objid, obj);
}

/* A rebuilder of q's objects, each to emit; the target lives as long. */
static Rebuilder *
rebuilder(ArgoQuery *q, result_emit emit, void *arg)
{
	EmitTarget *t = palloc(sizeof(EmitTarget));

	t->emit = emit;
	t->arg = arg;
	return select_rebuilder(q, 0, emit_object, t);
}

typedef struct IdsTarget
{
	result_emit emit;
	void	   *arg;
	const char *name;
} IdsTarget;

static void
emit_select_id(void *arg, Datum *values, bool *nulls)
{
	IdsTarget  *t = arg;

	t->emit(t->arg, DatumGetInt64(values[0]), argo_count_result(t->name, DatumGetInt64(values[0])));
}

/* SELECT ID(): {"_id": n} per selected object, in output order. */
static void
ids_driver(ArgoQuery *q, result_emit emit, void *arg, RowDriver *d)
{
	IdsTarget  *t = palloc(sizeof(IdsTarget));
	ArgoQuery	whole = *q;
	ArgoStmt	s = *q->stmt;

	t->emit = emit;
	t->arg = arg;
	t->name = q->stmt->id_name;
	/* the objects SELECT * would return */
	s.star = true;
	whole.stmt = &s;
	d->sql = sqlgen_select_ids(&whole);
	d->take = emit_select_id;
	d->arg = t;
}

/* Objects whose ids a statement (or a list) gives, fetched into rb. */
static void
fetch_driver(ObjFetch *f, Rebuilder *rb, RowDriver *d)
{
	d->rb = rb;
	d->take = argo_fetch_row;
	d->arg = argo_fetch_target(f, rb);
}

typedef struct IdList
{
	MemoryContext cxt;
	int64	   *ids;
	int			n;
	int			max;
} IdList;

static void
collect_id(void *arg, Datum *values, bool *nulls)
{
	IdList	   *l = arg;

	if (l->n == l->max)
	{
		l->max = Max(64, l->max * 2);
		l->ids = l->ids ? repalloc(l->ids, sizeof(int64) * l->max) :
			MemoryContextAlloc(l->cxt, sizeof(int64) * l->max);
	}
	l->ids[l->n++] = DatumGetInt64(values[0]);
}

/*
 * ORDER BY … LIMIT n over objects SQL selects: the ids taken whole before
 * the first object is fetched.  The sort gives nothing before it has seen
 * every candidate anyway, and a statement run whole, not as a cursor, may
 * share its scan among parallel workers, each keeping its own top n (a
 * two-key top 20 of 200k orders from their documents: about half the
 * time).  At most work_mem's worth of ids.
 */
static void
ids_first(ArgoStmt *s, RowDriver *d)
{
	IdList		l = {CurrentMemoryContext};
	double		n;

	if (s->order_by == NIL || s->limit == NULL)
		return;
	n = s->limit->num + (s->offset ? s->offset->num : 0);
	if (n > (double) work_mem * 1024 / sizeof(int64))
		return;
	argo_stream_rows(d->sql, collect_id, &l);
	/* an SPI call leaves SPI's memory current; the driver's is ours */
	MemoryContextSwitchTo(l.cxt);
	d->sql = NULL;
	d->ids = l.ids;
	d->nids = l.n;
}

/*
 * Whether select_driver drives the statement p (a SELECT of one
 * collection).  Every object sorted is not streamed: its first object
 * comes only after every object is rebuilt and sorted, which parallel
 * workers do faster than a streamed statement can (200k NoBench objects
 * ORDER BY num: 1.20 s whole, 1.57 s streamed).
 */
bool
select_streams(ArgoPlan *p)
{
	switch (p->strategy)
	{
		case ARGO_PLAN_ALL_OBJECTS:
			return p->q->stmt->order_by == NIL;
		case ARGO_PLAN_PROJECTION_DOCS:
		case ARGO_PLAN_SELECT_IDS:
		case ARGO_PLAN_PROJECTION:
		case ARGO_PLAN_ROWS_SQL:
		case ARGO_PLAN_LOOKUP:
		case ARGO_PLAN_FETCH:
			return p->q->stmt->kind == ASTMT_SELECT;
		default:
			return false;
	}
}

/*
 * The reads that one SQL statement, or a list of ids, drives row by row,
 * so that they can also run a few rows at a time (cursor.c); false for
 * the others.  Every object (with parallel workers) and a projection of
 * every object (projscan.c) have faster ways to run whole.
 */
bool
select_driver(ArgoPlan *p, result_emit emit, void *arg, RowDriver *d)
{
	ArgoQuery  *q = p->q;
	ArgoStmt   *s = q->stmt;
	EmitTarget *t = palloc0(sizeof(EmitTarget));

	memset(d, 0, sizeof(RowDriver));
	t->emit = emit;
	t->arg = arg;
	if (!select_streams(p))
		return false;
	switch (p->strategy)
	{
		case ARGO_PLAN_SELECT_IDS:
			ids_driver(q, emit, arg, d);
			return true;
		case ARGO_PLAN_PROJECTION_DOCS:
		case ARGO_PLAN_ALL_OBJECTS:
			if (allobjects_readable(q))
			{
				d->sql = sqlgen_all_objects(q);
				d->take = allobjects_take;
				t->paths = p->doc_paths;
				t->npaths = p->ndoc_paths;
				d->arg = t;
				return true;
			}
			/* under row-level security found since planning: through SQL */
			/* FALLTHROUGH */
		case ARGO_PLAN_PROJECTION:
		case ARGO_PLAN_ROWS_SQL:
			d->sql = sqlgen_select_rows(q);
			d->rb = rebuilder(q, emit, arg);
			d->take = argo_rebuild_row;
			d->arg = d->rb;
			return true;
		case ARGO_PLAN_LOOKUP:
			/* the objects found from C, put in order in C, or by SQL */
			fetch_driver(p->fetch, rebuilder(q, emit, arg), d);
			argo_fetch_target_docs(d->arg, p->ids, p->doc_hints, p->nids);
			if (s->order_by && !lookup_orders_in_c(q))
				d->sql = sqlgen_order_ids(q, p->ids, p->nids);
			else if (s->order_by || s->limit || s->offset)
				lookup_order_ids(p, (int64 **) &d->ids, &d->nids);
			else
			{
				d->ids = p->ids;
				d->nids = p->nids;
			}
			return true;
		case ARGO_PLAN_FETCH:
			fetch_driver(p->fetch, rebuilder(q, emit, arg), d);
			d->sql = sqlgen_select_ids(q);
			ids_first(s, d);
			return true;
		default:
			return false;
	}
}

/* Run a driven read to its end. */
static void
run_driver(RowDriver *d)
{
	if (d->sql)
		argo_stream_rows(d->sql, d->take, d->arg);
	for (int i = 0; i < d->nids; i++)
	{
		Datum		id = Int64GetDatum(d->ids[i]);
		bool		isnull = false;

		d->take(d->arg, &id, &isnull);
	}
	if (d->rb)
		rebuilder_finish(d->rb);
}

static void
run_select(ArgoPlan *p, result_emit emit, void *arg)
{
	ArgoQuery  *q = p->q;
	EmitTarget	target = {emit, arg};
	RowDriver	d;

	switch (p->strategy)
	{
		case ARGO_PLAN_AGGREGATE:
			run_aggregate(q, emit_object, &target);
			return;
		case ARGO_PLAN_JOIN_FETCH:
		case ARGO_PLAN_JOIN_SQL:
			run_join(q, p->join_fetch, emit, arg);
			return;
		case ARGO_PLAN_ALL_OBJECTS:
		case ARGO_PLAN_PROJECTION_DOCS:
			if (allobjects_run(p, emit, arg))
				return;
			break;
		case ARGO_PLAN_PROJECTION:
			/* presorted in heap order, or else (all withdrawn) sorted by SQL */
			if (projscan_run(q, rebuilder(q, emit, arg), emit, arg))
				return;
			break;
		case ARGO_PLAN_BATCHES:
			argo_fetch_in_batches(q, sqlgen_select_ids(q), emit_object, &target);
			return;
		case ARGO_PLAN_SHARD_READ:
		case ARGO_PLAN_SHARD_AGGREGATE:
		case ARGO_PLAN_SHARD_JOIN:
			if (p->strategy == ARGO_PLAN_SHARD_AGGREGATE ? shardagg_run(q, emit, arg) :
				p->strategy == ARGO_PLAN_SHARD_JOIN ? shardjoin_run(q, emit, arg) :
				shardread_run(q, emit, arg))
				return;
			/* a shard could not: read its tables instead */
			argo_plan_local_select(p);
			run_select(p, emit, arg);
			return;
		default:
			break;
	}
	if (!select_driver(p, emit, arg, &d))
		elog(ERROR, "a SELECT planned as %s", argo_plan_name(p));
	run_driver(&d);
}

/*
 * Each inserted value must be an object: 22023 naming its place (OBJECTS'
 * elements, an OBJECT list's values, counted from 1), an array given to
 * OBJECT pointing at OBJECTS.
 */
static void
check_inserted(ArgoStmt *s, Jsonb *v, int position)
{
	if (JB_ROOT_IS_OBJECT(v))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 s->objects_array ?
			 errmsg("element %d of OBJECTS is %s, not an object", position,
					JB_ROOT_IS_SCALAR(v) ? "a scalar" : "an array") :
			 errmsg("object %d of the INSERT is %s, not an object", position,
					JB_ROOT_IS_SCALAR(v) ? "a scalar" : "an array"),
			 !s->objects_array && !JB_ROOT_IS_SCALAR(v) ?
			 errhint("To insert the objects of an array, write INSERT INTO c OBJECTS [...].") : 0));
}

/* Which object of an INSERT an error raised while storing it is about. */
typedef struct InsertPlace
{
	ArgoStmt   *stmt;
	int			position;
} InsertPlace;

static void
insert_errcontext(void *arg)
{
	InsertPlace *p = arg;

	if (p->stmt->objects_array)
		errcontext("element %d of OBJECTS", p->position);
	else
		errcontext("object %d of the INSERT", p->position);
}

static void
run_insert(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *coll = linitial(q->colls);
	int			n = list_length(s->objects);
	int64	   *ids;
	RowBatch   *batch;
	ListCell   *lc;
	InsertPlace place = {s, 0};
	ErrorContextCallback cb = {error_context_stack, insert_errcontext, &place};

	/* reject a bad object before anything is created or drawn */
	foreach(lc, s->objects)
		check_inserted(s, ((ArgoJson *) lfirst(lc))->value, foreach_current_index(lc) + 1);
	if (coll == NULL)
		coll = collection_open_for_insert(((ArgoSource *) linitial(s->from))->coll);
	ids = argo_next_objids(coll, n);
	batch = rowbatch_create(coll, true);
	/* every object's place is named, one alone too (contract 8.5) */
	error_context_stack = &cb;
	foreach(lc, s->objects)
	{
		place.position = foreach_current_index(lc) + 1;
		rowbatch_add_object(batch, ids[foreach_current_index(lc)],
							((ArgoJson *) lfirst(lc))->value);
	}
	error_context_stack = cb.previous;
	rowbatch_flush(batch);
	if (s->returning == ARET_OBJECTS)
		foreach(lc, s->objects)
			argo_emit_written(s, emit, arg, ids[foreach_current_index(lc)],
							  ((ArgoJson *) lfirst(lc))->value);
	else
		emit(arg, 0, s->returning == ARET_IDS ? argo_inserted_ids_result(ids, n) :
			 argo_count_result("inserted", n));
}

/* What a statement of kind is called in a message. */
static const char *
statement_name(ArgoStmtKind kind)
{
	switch (kind)
	{
		case ASTMT_INSERT:
			return "INSERT";
		case ASTMT_UPDATE:
			return "UPDATE";
		case ASTMT_DELETE:
			return "DELETE";
		default:
			return "SELECT";
	}
}

/* Run a planned statement, its results to emit. */
void
argo_run_plan(ArgoPlan *p, result_emit emit, void *arg)
{
	/* the writes from C below pass none of the executor's checks */
	if (p->q->stmt->kind != ASTMT_SELECT)
		PreventCommandIfReadOnly(statement_name(p->q->stmt->kind));
	/* the shards' objects come back from statements that name no id */
	if (p->q->stmt->returning_id && p->q->stmt->kind != ASTMT_INSERT &&
		collection_is_distributed(linitial(p->q->colls)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("RETURNING *, ID() is not supported on a distributed collection"),
				 errhint("RETURNING * gives the objects; RETURNING ID() their ids.")));
	if (p->strategy == ARGO_PLAN_SHARD_WRITE)
	{
		if (shardwrite_run(p->q, emit, arg))
			return;
		/* a shard could not: write through the foreign tables */
		argo_plan_local_write(p);
	}
	switch (p->q->stmt->kind)
	{
		case ASTMT_SELECT:
			run_select(p, emit, arg);
			break;
		case ASTMT_INSERT:
			run_insert(p->q, emit, arg);
			break;
		case ASTMT_DELETE:
			run_delete(p, emit, arg);
			break;
		case ASTMT_UPDATE:
			run_update(p, emit, arg);
			break;
	}
}

void
argo_execute(const char *query, Jsonb **params, int nparams,
			 result_emit emit, void *arg)
{
	ArgoStmt   *stmt = argo_parse(query);

	argo_spi_connect();
	argo_run_analyzed(argo_analyze(stmt, query, params, nparams), emit, arg);
	SPI_finish();
}

/* Plan and run an analyzed statement (SPI connected). */
void
argo_run_analyzed(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoPlan   *p;
	Distinct   *d = NULL;

	/* DISTINCT filters the results; LIMIT and OFFSET count what it gives */
	if (q->stmt->distinct)
	{
		arg = d = distinct_begin(q->stmt, emit, arg);
		emit = distinct_emit;
	}
	/* EXCEPT before DISTINCT: it compares what is returned */
	if (q->stmt->except != NIL)
	{
		arg = except_begin(q->stmt, emit, arg);
		emit = except_emit;
	}
	/* and the cut of paths through filters, before DISTINCT as well */
	if (q->stmt->pick != NIL)
	{
		arg = pick_begin(q->stmt, emit, arg);
		emit = pick_emit;
	}
	/* computed targets, before DISTINCT as well */
	if (q->stmt->computed != NIL)
	{
		arg = compute_begin(q->stmt, emit, arg);
		emit = compute_emit;
	}
	p = argo_plan(q);
	argo_run_plan(p, emit, arg);
	argo_plan_close(p);
	if (d != NULL)
		distinct_finish(d, true);
}
