/*
 * allobjects.c — SELECT * of every object of a collection, in id order
 * or sorted, set-wise and in parallel where PostgreSQL finds it worth it.
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

#include "utils/guc.h"
#include "utils/jsonb.h"

#include "exec/exec.h"

/* A row of sqlgen_all_objects (object, objid): its object to the EmitTarget arg. */
void
allobjects_take(void *arg, Datum *values, bool *nulls)
{
	EmitTarget *e = arg;

	/* an object is NULL only if its directory row was not visible: never */
	if (!nulls[0])
	{
		argo_emitted_objid = DatumGetInt64(values[1]);
		e->emit(e->arg, DatumGetJsonbP(values[0]));
	}
}

/* A SELECT * of every object, with or without ORDER BY. */
bool
allobjects_applies(ArgoStmt *s)
{
	return s->star && !s->where && !s->limit && !s->offset && !s->id_name &&
		list_length(s->from) == 1;
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
allobjects_run(ArgoQuery *q, result_emit emit, void *arg)
{
	EmitTarget	e = {emit, arg};
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
