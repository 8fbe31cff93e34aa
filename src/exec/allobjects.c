/*
 * allobjects.c — SELECT * of every object of a collection, in id order
 * or sorted, set-wise and in parallel where PostgreSQL finds it worth it;
 * and a projection of every object taken from the kept documents.
 *
 * Fetching each object by index probes in output order costs three
 * B-tree descents an object.  Instead SQL scans the directory and calls
 * argo_object() per id (fn/object.c), which reads the objid indexes forward
 * beside it; with ORDER BY the sort keys are joined in and PostgreSQL
 * sorts the rebuilt objects (spilling past work_mem).  The function is
 * parallel safe, so on a large directory PostgreSQL shares its pages
 * out among parallel workers, each rebuilding (and sorting) its share,
 * and merges their results in order (Gather Merge).
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "common/errors.h"
#include "common/keypath.h"
#include "common/plancache.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/objfetch.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/allobjects.h"
#include "exec/lookup.h"
#include "exec/plan.h"
#include "exec/results.h"
#include "exec/stream.h"

/* A row of sqlgen_all_objects (object, objid): its object to the EmitTarget arg. */
void
allobjects_take(void *arg, Datum *values, bool *nulls)
{
	EmitTarget *e = arg;
	Jsonb	   *obj;

	/* an object is NULL only if its directory row was not visible: never */
	if (nulls[0])
		return;
	obj = DatumGetJsonbP(values[0]);
	/* a projection: an object with none of its paths gives nothing */
	if (e->paths != NULL && (obj = doc_project(obj, e->paths, e->npaths)) == NULL)
		return;
	e->emit(e->arg, DatumGetInt64(values[1]), obj);
}

/* A SELECT * of every object, with or without ORDER BY. */
bool
allobjects_applies(ArgoStmt *s)
{
	return s->star && !s->where && !s->limit && !s->offset && !s->id_name &&
		list_length(s->from) == 1;
}

/* A projection of every object of one collection, unsorted, as parsed. */
bool
allobjects_projects_every_object(ArgoStmt *s)
{
	return !s->star && s->targets != NIL && !s->id_name && !s->where && !s->order_by &&
		!s->limit && !s->offset && !s->select_ids && list_length(s->from) == 1 &&
		!argo_is_aggregate(s);
}

/*
 * Whether the projected keys are common enough for the documents to be
 * read whole: two keys or more, whose index entries reach a quarter of
 * the objects the directory counts (VACUUM's or ANALYZE's figure;
 * unknown: no).  NoBench's Q1 (two keys every object has) read each
 * key's rows and merged them by object; Q3's keys are in 1% of the
 * objects, where reading every document would cost 100 ms instead of 3;
 * one key's rows, read in heap order, cost less than the documents (AQL's
 * extract-key 72 against 84 ms at 100k).
 */
static bool
keys_common(ArgoQuery *q)
{
	ArgoCollection *c = linitial(q->colls);
	List	   *keys = projection_keys(c, q->stmt->targets, 0);
	Relation	dir = argo_open_table(c, "obj");
	int64		limit = (int64) (dir->rd_rel->reltuples / 4);
	int64		total = 0;
	ListCell   *lc;

	table_close(dir, NoLock);
	if (limit < 1 || list_length(keys) < 2)
		return false;
	foreach(lc, keys)
	{
		int64		n = lookup_key_entries(c, ((ArgoKey *) lfirst(lc))->id, limit - total,
										   GetActiveSnapshot());

		if (n < 0)
			return false;
		total += n;
		if (total >= limit)
			return true;
	}
	return false;
}

/*
 * The paths of a projection of every object that the kept documents can
 * give (docproject.c), taking each document and cutting it down, or
 * NULL: only where the collection's documents may be read, the paths are
 * object keys (shape.c) and the keys are common.
 */
DocPath *
allobjects_doc_paths(ArgoQuery *q, int *n)
{
	ArgoStmt   *s = q->stmt;
	DocPath    *paths;

	if (!allobjects_projects_every_object(s) || !ActiveSnapshotSet() ||
		!sqlgen_reads_docs(linitial(q->colls)))
		return NULL;
	paths = select_doc_paths(s, n);
	if (paths == NULL || !allobjects_readable(q) || (!q->shared && !keys_common(q)))
		return NULL;
	return paths;
}

/* A projection asked about while it is planned (allobjects_projection_shared). */
typedef struct SharedAsk
{
	ArgoStmt   *stmt;
	const char *query;
	bool		shared;
} SharedAsk;

static void
ask_shared(void *arg)
{
	SharedAsk  *a = arg;
	MemoryContext cxt = CurrentMemoryContext;
	OverrideSearchPath path = {NIL, true, false};
	int			n;

	PushOverrideSearchPath(&path);
	argo_spi_connect();
	MemoryContextSwitchTo(cxt);
	a->shared = allobjects_doc_paths(argo_analyze(a->stmt, a->query, NULL, 0), &n) != NULL;
	SPI_finish();
	PopOverrideSearchPath();
}

/*
 * Whether the projection s (of the statement text, parsed) is read from
 * the kept documents, asked while a query calling it is planned: only
 * then are the processes of a parallel plan given something to share.
 * It is analysed and its keys counted as when it runs — on the path
 * argo_query pins, pg_catalog alone, not the caller's — in a
 * subtransaction that takes back what analysis took (locks, SPI, the
 * path); an error only says no — the statement raises it when it runs —
 * but a cancel is raised now.
 */
bool
allobjects_projection_shared(ArgoStmt *s, const char *query)
{
	SharedAsk	a = {s, query, false};
	ErrorData  *e;

	/* a parallel worker cannot start a subtransaction, nor would it share */
	if (IsInParallelMode())
		return false;
	e = argo_in_subtransaction(ask_shared, &a);
	if (e == NULL)
		return a.shared;
	if (e->sqlerrcode == ERRCODE_QUERY_CANCELED)
		ReThrowError(e);
	FreeErrorData(e);
	return false;
}

/*
 * Whether argo_object() may read the tables directly; where it may not
 * (row-level security), the caller's general plan reads through SQL.
 */
bool
allobjects_readable(ArgoQuery *q)
{
	ObjFetch   *f = objfetch_open(linitial(q->colls), NIL, false, true);

	if (f == NULL)
		return false;
	objfetch_close(f);
	return true;
}

/*
 * Run it; false (having done nothing) where the general plan must.
 *
 * The leader only gathers: with parallel_leader_participation it would
 * also rebuild objects, and while it did, Gather Merge, which needs the
 * next object of every participant, could not hand the workers' objects
 * on (every object of 1M: 2.40 s with, 2.10 s without).  Set for this
 * statement alone, as a function's SET clause would.
 */
bool
allobjects_run(ArgoPlan *p, result_emit emit, void *arg)
{
	ArgoQuery  *q = p->q;
	EmitTarget	e = {emit, arg, p->doc_paths, p->ndoc_paths};
	int			nest;

	if (!allobjects_readable(q))
		return false;
	nest = NewGUCNestLevel();
	(void) set_config_option("parallel_leader_participation", "off",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
	argo_stream_rows(sqlgen_all_objects(q), allobjects_take, &e);
	AtEOXact_GUC(true, nest);
	return true;
}
