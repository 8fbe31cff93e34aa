/*
 * execute.c — runs one Argo/SQL statement by the strategy argo_plan chose
 * (plan.c), and explains that same strategy for argo_explain.
 *
 * Reads use the caller's snapshot (read_only SPI, and the same snapshot
 * for rows read from C), so a SELECT sees one consistent state of all of
 * a collection's tables; writes lock their objects first (objlock.c) and
 * are made from C where the tables allow, else by SQL statements.
 * Results stream out through a callback, one jsonb at a time.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/snapmgr.h"

#include "exec/exec.h"
#include "exec/lookup.h"

static void
emit_object(void *arg, int64 objid, Jsonb *obj)
{
	EmitTarget *t = arg;

	argo_emitted_objid = objid;
	t->emit(t->arg, obj);
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
emit_id(void *arg, Datum *values, bool *nulls)
{
	IdsTarget  *t = arg;

	argo_emitted_objid = DatumGetInt64(values[0]);
	t->emit(t->arg, argo_count_result(t->name, DatumGetInt64(values[0])));
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
	d->take = emit_id;
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
		case ARGO_PLAN_SHARDS:
			if (argo_is_aggregate(q->stmt) ? shardagg_run(q, emit, arg) :
				list_length(q->stmt->from) > 1 ? shardjoin_run(q, emit, arg) :
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
		elog(ERROR, "argo: a SELECT planned as %s", argo_plan_name(p));
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
	/* one object needs no place named */
	if (n > 1)
		error_context_stack = &cb;
	foreach(lc, s->objects)
	{
		place.position = foreach_current_index(lc) + 1;
		rowbatch_add_object(batch, ids[foreach_current_index(lc)],
							((ArgoJson *) lfirst(lc))->value);
	}
	if (n > 1)
		error_context_stack = cb.previous;
	rowbatch_flush(batch);
	if (s->returning == ARET_OBJECTS)
		foreach(lc, s->objects)
			argo_emit_written(s, emit, arg, ids[foreach_current_index(lc)],
							  ((ArgoJson *) lfirst(lc))->value);
	else
		emit(arg, s->returning == ARET_IDS ? argo_inserted_ids_result(ids, n) :
			 argo_count_result("inserted", n));
}

static int64
run_count_query(SqlBuf *buf)
{
	int			rc;
	bool		isnull;

	rc = argo_run(buf, false);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "argo: statement failed: %s", SPI_result_code_string(rc));
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull));
}

/* Objects deleted per statement: their ids are one array parameter. */
#define DELETE_BATCH 10000

/*
 * What a DELETE rebuilds before an object's rows go: for RETURNING *,
 * each object to the caller; for a feed whose events carry the object
 * before, each kept until its event is logged.
 */
typedef struct Deleting
{
	ArgoStmt   *stmt;
	EmitTarget *returning;		/* RETURNING *'s caller, or NULL */
	bool		keep;			/* the feed wants them */
	int			n;				/* kept since the last reset, in id order */
	int			max;
	int			next;			/* the next one deleting_doc looks at */
	int64	   *ids;
	Jsonb	  **docs;
} Deleting;

static void
deleting_take(void *arg, int64 objid, Jsonb *obj)
{
	Deleting   *d = arg;

	if (d->returning != NULL)
		argo_emit_written(d->stmt, d->returning->emit, d->returning->arg, objid, obj);
	if (!d->keep)
		return;
	if (d->n == d->max)
	{
		d->max = d->max ? d->max * 2 : 64;
		d->ids = d->ids ? repalloc(d->ids, sizeof(int64) * d->max) : palloc(sizeof(int64) * d->max);
		d->docs = d->docs ? repalloc(d->docs, sizeof(Jsonb *) * d->max) : palloc(sizeof(Jsonb *) * d->max);
	}
	d->ids[d->n] = objid;
	d->docs[d->n++] = obj;
}

static void
deleting_reset(Deleting *d)
{
	d->n = d->next = 0;
}

/*
 * Object id's document as rebuilt, asked for in id order; an object
 * none was rebuilt for has no rows: it is {}.
 */
static Jsonb *
deleting_doc(Deleting *d, int64 id)
{
	while (d->next < d->n && d->ids[d->next] < id)
		d->next++;
	if (d->next < d->n && d->ids[d->next] == id)
		return d->docs[d->next++];
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
}

/*
 * Delete locked objects from C: their rows found (by map or objid index)
 * and deleted by tid, then their directory rows.
 */
static int64
delete_direct(ArgoCollection *c, ObjWriter *w, const int64 *ids, int n, FeedMode feed,
			  Rebuilder *rb, Deleting *d)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "argo delete",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	RowLog		log = {0};
	ObjFetch   *f;

	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	f = objfetch_open(c, NIL, false, false);
	if (f == NULL)
		elog(ERROR, "argo: a collection written from C cannot be read from C");
	objfetch_log_rows(f, &log);
	for (int i = 0; i < n; i++)
	{
		int			from = log.n;

		/* the object as it is deleted (rb), else only its rows' tids */
		deleting_reset(d);
		objfetch_object(f, ids[i], rb);
		if (rb != NULL)
			rebuilder_finish(rb);
		for (int r = from; r < log.n; r++)
			objwriter_delete_rows(w, log.rows[r].table, &log.rows[r].tid, 1);
		objwriter_delete_object(w, ids[i]);
		if (feed != FEED_OFF)
			feed_log_delete(c, ids[i], d->keep ? deleting_doc(d, ids[i]) : NULL);
		if (i % 1000 == 999)
			log.n = 0;
	}
	objfetch_close(f);
	PopActiveSnapshot();
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	/* what d kept lived in cxt */
	d->ids = NULL;
	d->docs = NULL;
	d->n = d->max = d->next = 0;
	return n;
}

/* The objects are locked in id order first, as an UPDATE's are (objlock.c). */
static void
run_delete(ArgoPlan *p, result_emit emit, void *arg)
{
	ArgoQuery  *q = p->q;
	ArgoCollection *c = linitial(q->colls);
	ObjWriter  *w = objwriter_open(c, ACL_DELETE);
	FeedMode	feed = feed_mode(c);
	LockedObjects *lo = w ? objlock_take_direct(c, q->stmt->where, p->point, w) :
		collection_is_distributed(c) ? objlock_take_distributed(c, q->stmt->where) :
		objlock_take(c, q->stmt->where, p->point, false);
	int64		total = 0;
	EmitTarget	target = {emit, arg};
	Deleting	d = {q->stmt, q->stmt->returning == ARET_OBJECTS ? &target : NULL,
	feed != FEED_OFF && feed_before_change(c)};
	/* each object as deleted, rebuilt before its rows go */
	Rebuilder  *rb = d.returning != NULL || d.keep ?
		rebuilder_create(keydict_of(c), deleting_take, &d) : NULL;

	objlock_recheck(c, q->stmt->where, w ? p->point : NULL, lo);
	if (w)
	{
		total = delete_direct(c, w, lo->ids, lo->n, feed, rb, &d);
		objwriter_close(w);
	}
	else
		for (int i = 0; i < lo->n; i += DELETE_BATCH)
		{
			int			n = Min(DELETE_BATCH, lo->n - i);

			deleting_reset(&d);
			if (rb != NULL)
			{
				CommandCounterIncrement();
				PushActiveSnapshot(GetTransactionSnapshot());
				argo_rebuild_from_query(sqlgen_rows_of_ids(c, lo->ids + i, n), rb);
				PopActiveSnapshot();
			}
			total += run_count_query(sqlgen_delete_ids(c, lo->ids + i, n));
			for (int k = 0; feed != FEED_OFF && k < n; k++)
				feed_log_delete(c, lo->ids[i + k], d.keep ? deleting_doc(&d, lo->ids[i + k]) : NULL);
		}
	if (q->stmt->returning == ARET_IDS)
		emit(arg, argo_write_ids_result("deleted", lo->ids, lo->n));
	else if (q->stmt->returning == ARET_COUNT)
		emit(arg, argo_count_result("deleted", total));
}

/* Run a planned statement, its results to emit. */
void
argo_run_plan(ArgoPlan *p, result_emit emit, void *arg)
{
	/* the shards' objects come back from statements that name no id */
	if (p->q->stmt->returning_id && p->q->stmt->kind != ASTMT_INSERT &&
		collection_is_distributed(linitial(p->q->colls)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("RETURNING *, ID() is not supported on a distributed collection"),
				 errhint("RETURNING * gives the objects; RETURNING ID() their ids.")));
	if (p->strategy == ARGO_PLAN_SHARDS && p->q->stmt->kind != ASTMT_SELECT)
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

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
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
	p = argo_plan(q);
	argo_run_plan(p, emit, arg);
	argo_plan_close(p);
	if (d != NULL)
		distinct_finish(d, true);
}

/* Append a copy of line, made in the caller's (non-SPI) context. */
static List *
add_line(List *out, MemoryContext cxt, const char *line)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);

	out = lappend(out, pstrdup(line));
	MemoryContextSwitchTo(old);
	return out;
}

static List *
describe_params(List *out, MemoryContext cxt, SqlBuf *buf)
{
	for (int i = 0; i < buf->nparams; i++)
	{
		Oid			typout;
		bool		varlena;

		getTypeOutputInfo(buf->types[i], &typout, &varlena);
		out = add_line(out, cxt,
					   psprintf("-- $%d = %s%s%s%s", i + 1,
								buf->nulls[i] == 'n' ? "NULL" :
								OidOutputFunctionCall(typout, buf->values[i]),
								buf->notes[i] ? " (" : "",
								buf->notes[i] ? buf->notes[i] : "",
								buf->notes[i] ? ")" : ""));
	}
	return out;
}

/* What an UPSERT does when it finds nothing, and what a RETURNING gives. */
static void
explain_write_end(ArgoPlan *p, List **out, MemoryContext cxt)
{
	ArgoReturning r = p->q->stmt->returning;

	if (p->strategy == ARGO_PLAN_UPSERT)
		*out = add_line(*out, cxt, "-- none found: the object the equalities describe is inserted, under an advisory lock on them");
	if (r == ARET_OBJECTS)
		*out = add_line(*out, cxt, psprintf("%s%s%s%s",
											p->strategy == ARGO_PLAN_DELETE ?
											"-- RETURNING *: each object rebuilt from its rows before they are deleted, in id order" :
											"-- RETURNING *: each object rebuilt as written, in id order",
											p->q->stmt->returning_id ? ", its id added under \"" : "",
											p->q->stmt->returning_id ? p->q->stmt->returning_id : "",
											p->q->stmt->returning_id ? "\"" : ""));
	else if (r == ARET_IDS)
		*out = add_line(*out, cxt, "-- RETURNING ID: the ids of the objects written, in id order");
}

/*
 * A write of a plain local collection: locked and written from C; the
 * only SQL is what finds the objects, unless a point write finds them
 * from C.
 */
static SqlBuf *
explain_write_from_c(ArgoPlan *p, List **out, MemoryContext cxt, const char *point)
{
	ArgoStmt   *s = p->q->stmt;
	SqlBuf	   *buf = NULL;
	int			n;

	/* what the write would check first: EXPLAIN of a DELETE is 42501 too */
	objwriter_check_privileges(linitial(p->q->colls),
							   p->strategy == ARGO_PLAN_DELETE ? ACL_DELETE : ACL_UPDATE);
	if (point && p->point->kind == APRED_ID)
		*out = add_line(*out, cxt, "-- the object found from C through the object directory, by id, as it is locked");
	else if (point && lookup_ids(linitial(p->q->colls), p->point, GetActiveSnapshot(), &n) != NULL)
		*out = add_line(*out, cxt, psprintf("-- the objects (%d now) found from C through %s", n, point));
	else
	{
		*out = add_line(*out, cxt, "-- the objects found by the SQL below");
		buf = sqlbuf_create();
		sql_base_objids(buf, linitial(p->q->colls), s->where);
		appendStringInfoString(&buf->sql, " ORDER BY 1");
	}
	*out = add_line(*out, cxt, p->strategy == ARGO_PLAN_DELETE ?
					"-- each locked from C in id order (its directory row, FOR UPDATE); its rows, found by its map (else its objid index probes), deleted by tid, then its directory row" :
					"-- each locked from C in id order (its directory row, FOR UPDATE), read again by its map, changed; only its changed rows deleted (by tid) and inserted, and its directory row rewritten with its new map");
	explain_write_end(p, out, cxt);
	return buf;
}

/* What the strategy does, in a line or two, and the SQL it runs (or NULL). */
static SqlBuf *
explain_strategy(ArgoPlan *p, List **out, MemoryContext cxt)
{
	ArgoQuery  *q = p->q;
	ArgoStmt   *s = q->stmt;
	ArgoQuery	whole = *q;
	ArgoStmt	star = *s;
	int			n;
	const char *point = p->point == NULL ? NULL :
		p->point->kind == APRED_ID ? "the object directory, by id" :
		psprintf("the (keyid, value) index, for %s", quote_literal_cstr(p->point->path->keystr));

	*out = add_line(*out, cxt, psprintf("-- strategy: %s", argo_plan_name(p)));
	*out = add_line(*out, cxt, select_streams(p) ?
					"-- in FROM argo_query(...): results stream, made as the caller takes them (any SQL run a few rows at a time, never parallel)" :
					"-- in FROM argo_query(...): results made whole before the first is taken");
	switch (p->strategy)
	{
		case ARGO_PLAN_AGGREGATE:
			*out = add_line(*out, cxt, sqlgen_aggregate_direct(q) ?
							"-- the aggregates read off the value rows alone; no object is rebuilt" :
							"-- the aggregates computed by SQL over the selected objects; no object is rebuilt");
			return sqlgen_aggregate(q);
		case ARGO_PLAN_JOIN_FETCH:
			if (lookup_join_applies(q))
				*out = add_line(*out, cxt, "-- the pairs found from C: the left objects through the WHERE's index, each one's value at the ON path looked up in the right collection's (keyid, value) index; where a lookup declines or the pairs pass work_mem, the SQL below");
			*out = add_line(*out, cxt, "-- tuples' object ids in output order; each part's rows are then read where its directory row's map says (else by objid index probes)");
			if (!s->star)
				*out = add_line(*out, cxt,
								psprintf("-- or, if the join gives " INT64_FORMAT " tuples or more (a tenth of its largest collection), set-wise: the tuples' ids as arrays joined with the projected keys' rows",
										 joinset_threshold(q)));
			return sqlgen_join_ids(q);
		case ARGO_PLAN_JOIN_SQL:
			*out = add_line(*out, cxt, "-- every part's rows read through SQL (row-level security, or a table that is not a plain heap table)");
			return sqlgen_join(q);
		case ARGO_PLAN_SELECT_IDS:
			star.star = true;
			whole.stmt = &star;
			*out = add_line(*out, cxt, "-- the selected objects' ids, in output order; nothing is rebuilt");
			return sqlgen_select_ids(&whole);
		case ARGO_PLAN_ALL_OBJECTS:
			*out = add_line(*out, cxt, "-- argo_object() rebuilds each directory row's object where its map says its rows are (else reading the objid indexes forward beside the directory); PostgreSQL may share the directory out among parallel workers");
			return sqlgen_all_objects(q);
		case ARGO_PLAN_PROJECTION_DOCS:
			*out = add_line(*out, cxt, "-- two projected keys or more, in a quarter of the objects or more (their index entries counted up to that): each object's kept document, cut down to the projection's paths in C (argo_object() rebuilds an object that has none)");
			return sqlgen_all_objects(q);
		case ARGO_PLAN_PROJECTION:
			*out = add_line(*out, cxt, "-- each table's rows of the projected keys read in heap order and merged by object id; where a table is found out of object order, the SQL below sorts them instead");
			return sqlgen_select_rows(q);
		case ARGO_PLAN_ROWS_SQL:
			*out = add_line(*out, cxt, "-- the objects' rows read through SQL (row-level security, or a table that is not a plain heap table)");
			return sqlgen_select_rows(q);
		case ARGO_PLAN_BATCHES:
			*out = add_line(*out, cxt, "-- object ids in output order (below); their rows then read 2,000 objects at a time, one statement (WHERE objid = ANY) per batch, which postgres_fdw sends whole to each shard");
			return sqlgen_select_ids(q);
		case ARGO_PLAN_LOOKUP:
			*out = add_line(*out, cxt, p->unchecked ?
							psprintf("-- the object found from C through %s (if there), its rows read where its directory row's map says (else by objid index probes); no SQL runs",
									 point) :
							psprintf("-- %d object(s) found from C through %s, their rows read where their directory rows' maps say (else by objid index probes)%s",
									 p->nids, point,
									 s->order_by && !lookup_orders_in_c(q) ? "; SQL only orders them:" :
									 s->order_by ? "; each read once for its ORDER BY values and put in order in C, then read again in that order; no SQL runs" :
									 s->limit || s->offset ? "; OFFSET and LIMIT applied to them in id order; no SQL runs" : "; no SQL runs"));
			return s->order_by && !lookup_orders_in_c(q) ? sqlgen_order_ids(q, p->ids, p->nids) : NULL;
		case ARGO_PLAN_FETCH:
			*out = add_line(*out, cxt, objfetch_streams(p->fetch) ?
							"-- object ids in id order; each object's rows are then read where its directory row's map says, the directory (and, for objects without a map, the objid indexes) read forward beside them, descending again only where the ids jump (objid index stream)" :
							"-- object ids in output order; each object's rows are then read where its directory row's map says (else by objid index probes)");
			return sqlgen_select_ids(q);
		case ARGO_PLAN_DELETE:
		case ARGO_PLAN_UPDATE:
		case ARGO_PLAN_UPSERT:
			if (objwriter_possible(linitial(q->colls)))
				return explain_write_from_c(p, out, cxt, point);
			if (point && lookup_ids(linitial(q->colls), p->point, GetActiveSnapshot(), &n) != NULL)
				*out = add_line(*out, cxt, psprintf("-- the objects (%d now) found from C through %s; the SQL below locks them by id", n, point));
			*out = add_line(*out, cxt, p->strategy == ARGO_PLAN_DELETE ?
							"-- the objects to delete, locked in id order (their directory rows); then their rows are deleted by object id" :
							"-- the objects to change, locked in id order (their directory rows); each is then read again, changed, and only its changed rows deleted and inserted");
			explain_write_end(p, out, cxt);
			return objlock_sql(linitial(q->colls), s->where, p->point,
							   p->strategy != ARGO_PLAN_DELETE);
		case ARGO_PLAN_SHARDS:
			{
				List	   *lines = s->kind != ASTMT_SELECT ? shardwrite_explain(q) :
					list_length(s->from) > 1 ? shardjoin_explain(q) : shardread_explain(q);
				ListCell   *lc;

				if (lines == NIL)
				{
					*out = add_line(*out, cxt, "-- a shard cannot run it (another version of Argo, or its copy of the dictionary is behind: argo_repair copies it): the shards' tables are read through their foreign tables");
					if (s->kind == ASTMT_SELECT)
						argo_plan_local_select(p);
					else
						argo_plan_local_write(p);
					return explain_strategy(p, out, cxt);
				}
				foreach(lc, lines)
					*out = add_line(*out, cxt, lfirst(lc));
				return NULL;
			}
		case ARGO_PLAN_INSERT:
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("argo_explain explains SELECT, UPDATE and DELETE statements"),
			 errhint("An INSERT runs no query: it writes the objects' rows.")));
	return NULL;
}

/* The SQL a statement runs, its parameters, and PostgreSQL's plan for it. */
List *
argo_explain_query(const char *query, Jsonb **params, int nparams)
{
	ArgoStmt   *stmt = argo_parse(query);
	ArgoPlan   *p;
	SqlBuf	   *buf;
	List	   *out = NIL;
	MemoryContext cxt = CurrentMemoryContext;
	ListCell   *lc;
	int			rc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	p = argo_plan(argo_analyze(stmt, query, params, nparams));
	for (int i = 0; i < nparams; i++)
		out = add_line(out, cxt, psprintf("-- your $%d = %s", i + 1,
										  JsonbToCString(NULL, &params[i]->root, VARSIZE(params[i]))));
	buf = explain_strategy(p, &out, cxt);
	argo_plan_close(p);
	if (buf == NULL)
	{
		SPI_finish();
		return out;
	}
	foreach(lc, sql_pretty_lines(buf->sql.data))
		out = add_line(out, cxt, lfirst(lc));
	out = describe_params(out, cxt, buf);
	/* VERBOSE for shards: each foreign scan then shows the SQL its server runs */
	rc = SPI_execute_with_args(psprintf("EXPLAIN %s%s",
										joins_distributed(p->q) ? "(VERBOSE) " : "",
										buf->sql.data),
							   buf->nparams, buf->types, buf->values,
							   buf->nulls, false, 0);
	if (rc != SPI_OK_UTILITY && rc != SPI_OK_SELECT)
		elog(ERROR, "argo: EXPLAIN failed: %s", SPI_result_code_string(rc));
	for (uint64 i = 0; i < SPI_processed; i++)
		out = add_line(out, cxt, SPI_getvalue(SPI_tuptable->vals[i],
											  SPI_tuptable->tupdesc, 1));
	SPI_finish();
	return out;
}

/*
 * What an error of a statement or load can say that its raiser did not
 * know: which shard does not answer, which unique key a value breaks.
 */
void
argo_explain_failure(ErrorData *e)
{
	shards_explain_failure(e);
	unique_explain_violation(e);
}
