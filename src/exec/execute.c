/*
 * execute.c — runs one Argo/SQL statement through SPI.
 *
 * Reads use the caller's snapshot (read_only SPI), so a SELECT sees one
 * consistent state of all three tables; writes are single SQL statements.
 * Results stream out through a callback, one jsonb at a time.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/snapmgr.h"

#include "exec/exec.h"

typedef struct EmitTarget
{
	result_emit emit;
	void	   *arg;
} EmitTarget;

static void
emit_object(void *arg, int64 objid, Jsonb *obj)
{
	EmitTarget *t = arg;

	t->emit(t->arg, obj);
}

/*
 * The fetcher for a SELECT's objects, or NULL to read them through SQL.
 * A projection of the whole collection is left to SQL: it reads just the
 * projected keys' rows through the (keyid, value) indexes, where fetching
 * object by object would read every row (a key in 1% of the objects: 150
 * ms instead of 3 ms at 100k objects).
 */
/* A projection of every object, in id order: for SQL (or projscan.c). */
static bool
projects_everything(ArgoStmt *s)
{
	return !s->star && !s->where && !s->order_by && !s->limit && !s->offset;
}

static ObjFetch *
select_fetcher(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);

	if (projects_everything(s))
		return NULL;
	/*
	 * Without ORDER BY the objects come in id order: read the tables
	 * forward beside them, descending only where the ids jump (dense
	 * ranges of ids then cost no descent at all)
	 */
	return objfetch_open(c, s->star ? NIL : projection_keys(c, s->targets, 0),
						 !s->star, s->order_by == NIL);
}

/* Found by an equality, at most this many objects are sorted as a set. */
#define LOOKUP_SORT_MAX 1000

/*
 * WHERE path = lit or ID() = n: the objects found from C (lookup.c), no
 * SQL at all; with ORDER BY or LIMIT, when they are few, SQL only sorts
 * them.  False if SQL must find them.
 */
static bool
select_by_lookup(ArgoQuery *q, ObjFetch *f, EmitTarget *target)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	ArgoPred   *p = lookup_pred(s->where);
	Rebuilder  *rb;
	int64	   *ids;
	int			n;

	if (p == NULL)
		return false;
	ids = lookup_ids(c, p, GetActiveSnapshot(), &n);
	if (ids == NULL)
		return false;
	rb = rebuilder_create(keydict_of(c), emit_object, target);
	if (s->order_by || s->limit || s->offset)
	{
		if (n > LOOKUP_SORT_MAX)
			return false;
		argo_fetch_objects(sqlgen_order_ids(q, ids, n), f, rb);
		return true;
	}
	for (int i = 0; i < n; i++)
		objfetch_object(f, ids[i], rb);
	rebuilder_finish(rb);
	return true;
}

/*
 * SQL picks the objects; their rows come straight from the heap where
 * the tables allow it, else from SQL too.
 */
static void
select_objects(ArgoQuery *q, EmitTarget *target)
{
	KeyDict    *d = keydict_of(linitial(q->colls));
	ObjFetch   *f = select_fetcher(q);

	if (f == NULL)
	{
		/* presorted in heap order, or else (all withdrawn) sorted by SQL */
		if (projects_everything(q->stmt) &&
			projscan_run(q, rebuilder_create(d, emit_object, target),
						 target->emit, target->arg))
			return;
		argo_rebuild_from_query(sqlgen_select_rows(q),
								rebuilder_create(d, emit_object, target));
		return;
	}
	if (!select_by_lookup(q, f, target))
		argo_fetch_objects(sqlgen_select_ids(q), f, rebuilder_create(d, emit_object, target));
	objfetch_close(f);
}

typedef struct IdsTarget
{
	result_emit emit;
	void	   *arg;
} IdsTarget;

static void
emit_id(void *arg, Datum *values, bool *nulls)
{
	IdsTarget  *t = arg;

	t->emit(t->arg, argo_count_result("id", DatumGetInt64(values[0])));
}

/* SELECT ID(): {"id": n} per selected object, in output order. */
static void
select_ids(ArgoQuery *q, result_emit emit, void *arg)
{
	IdsTarget	t = {emit, arg};
	ArgoQuery	whole = *q;
	ArgoStmt	s = *q->stmt;

	/* the objects SELECT * would return */
	s.star = true;
	whole.stmt = &s;
	argo_stream_rows(sqlgen_select_ids(&whole), emit_id, &t);
}

static void
run_select(ArgoQuery *q, result_emit emit, void *arg)
{
	EmitTarget	target = {emit, arg};

	if (argo_is_aggregate(q->stmt))
	{
		run_aggregate(q, emit_object, &target);
		return;
	}
	if (list_length(q->stmt->from) > 1)
	{
		run_join(q, emit, arg);
		return;
	}
	if (q->stmt->select_ids)
	{
		select_ids(q, emit, arg);
		return;
	}
	if (allobjects_applies(q->stmt) && allobjects_run(q, emit, arg))
		return;
	select_objects(q, &target);
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

	/* reject a bad object before anything is created or drawn */
	foreach(lc, s->objects)
		argo_check_object(((ArgoJson *) lfirst(lc))->value);
	if (coll == NULL)
		coll = collection_open_for_insert(((ArgoSource *) linitial(s->from))->coll);
	ids = argo_next_objids(coll, n);
	batch = rowbatch_create(coll, true);
	foreach(lc, s->objects)
		rowbatch_add_object(batch, ids[foreach_current_index(lc)],
							((ArgoJson *) lfirst(lc))->value);
	rowbatch_flush(batch);
	emit(arg, s->returning_ids ? argo_inserted_ids_result(ids, n) :
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

/* The objects are locked in id order first, as an UPDATE's are (objlock.c). */
static void
run_delete(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoCollection *c = linitial(q->colls);
	LockedObjects *lo = objlock_take(c, q->stmt->where, false);
	int64		total = 0;

	objlock_recheck(c, q->stmt->where, lo);
	for (int i = 0; i < lo->n; i += DELETE_BATCH)
		total += run_count_query(sqlgen_delete_ids(c, lo->ids + i,
												   Min(DELETE_BATCH, lo->n - i)));
	emit(arg, argo_count_result("deleted", total));
}

void
argo_execute(const char *query, Jsonb **params, int nparams,
			 result_emit emit, void *arg)
{
	ArgoStmt   *stmt = argo_parse(query);
	ArgoQuery  *q;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	q = argo_analyze(stmt, query, params, nparams);
	switch (stmt->kind)
	{
		case ASTMT_SELECT:
			run_select(q, emit, arg);
			break;
		case ASTMT_INSERT:
			run_insert(q, emit, arg);
			break;
		case ASTMT_DELETE:
			run_delete(q, emit, arg);
			break;
		case ASTMT_UPDATE:
			emit(arg, run_update(q));
			break;
	}
	SPI_finish();
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

/* A join's SQL: its tuples' ids, or, read through SQL, its parts' rows. */
static SqlBuf *
explain_join(ArgoQuery *q, List **out, MemoryContext cxt)
{
	ObjFetch  **f = join_fetchers(q);

	if (f == NULL)
		return sqlgen_join(q);
	for (int k = 0; k < list_length(q->stmt->from); k++)
		objfetch_close(f[k]);
	*out = add_line(*out, cxt, "-- tuples' object ids in output order; each part's rows are then read by objid index probes");
	if (!q->stmt->star)
		*out = add_line(*out, cxt,
						psprintf("-- or, if the join gives " INT64_FORMAT " tuples or more (a tenth of its largest collection), set-wise: the tuples' ids as arrays joined with the projected keys' rows",
								 joinset_threshold(q)));
	return sqlgen_join_ids(q);
}

/* The SQL a statement runs, its parameters, and PostgreSQL's plan for it. */
List *
argo_explain_query(const char *query, Jsonb **params, int nparams)
{
	ArgoStmt   *stmt = argo_parse(query);
	ArgoQuery  *q;
	SqlBuf	   *buf;
	List	   *out = NIL;
	MemoryContext cxt = CurrentMemoryContext;
	ObjFetch   *fetch;
	ListCell   *lc;
	int			rc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	q = argo_analyze(stmt, query, params, nparams);
	for (int i = 0; i < nparams; i++)
		out = add_line(out, cxt, psprintf("-- your $%d = %s", i + 1,
										  JsonbToCString(NULL, &params[i]->root, VARSIZE(params[i]))));
	if (stmt->kind == ASTMT_SELECT && argo_is_aggregate(stmt))
		buf = sqlgen_aggregate(q);
	else if (stmt->kind == ASTMT_SELECT && list_length(stmt->from) > 1)
		buf = explain_join(q, &out, cxt);
	else if (stmt->kind == ASTMT_SELECT && allobjects_applies(stmt) && allobjects_readable(q))
	{
		out = add_line(out, cxt,
					   "-- every object: argo_object() rebuilds each directory row's object, reading the objid indexes forward beside the directory; PostgreSQL may share the directory out among parallel workers");
		buf = sqlgen_all_objects(q);
	}
	else if (stmt->kind == ASTMT_SELECT && (fetch = select_fetcher(q)) != NULL)
	{
		out = add_line(out, cxt, objfetch_streams(fetch) ?
					   "-- object ids in id order; the objid indexes are then read forward beside them, descending again only where the ids jump (objid index stream)" :
					   "-- object ids in output order; each object's rows are then read by objid index probes");
		objfetch_close(fetch);
		buf = sqlgen_select_ids(q);
	}
	else if (stmt->kind == ASTMT_SELECT)
		buf = sqlgen_select_rows(q);
	else if (stmt->kind == ASTMT_DELETE)
	{
		out = add_line(out, cxt,
					   "-- the objects to delete, locked in id order (their directory rows); then their rows are deleted by object id");
		buf = objlock_sql(linitial(q->colls), stmt->where, false);
	}
	else if (stmt->kind == ASTMT_UPDATE)
	{
		out = add_line(out, cxt,
					   "-- the objects to change, locked in id order (their directory rows); each is then read again, changed, and only its changed rows deleted and inserted");
		buf = objlock_sql(linitial(q->colls), stmt->where, true);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("argo_explain explains SELECT, UPDATE and DELETE statements"),
				 errhint("An INSERT runs no query: it writes the objects' rows.")));
	foreach(lc, sql_pretty_lines(buf->sql.data))
		out = add_line(out, cxt, lfirst(lc));
	out = describe_params(out, cxt, buf);
	rc = SPI_execute_with_args(psprintf("EXPLAIN %s", buf->sql.data),
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
