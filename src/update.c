/*
 * update.c — UPDATE c SET p = json, … UNSET p, … [WHERE pred].
 *
 * The matching objects are locked in id order (objlock.c), read back after
 * their locks are granted, changed with PostgreSQL's own jsonb_set and
 * jsonb_delete_path (after creating missing intermediate objects and
 * arrays), and only the rows that differ are deleted and inserted:
 * writers of different objects run in parallel, writers of one object
 * take turns and each starts from the other's result.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "argo.h"

#define UPDATE_BATCH 1000

typedef struct Updater
{
	ArgoQuery  *q;
	ArgoCollection *coll;
	MemoryContext cxt;			/* one batch's objects and rows */
	int64		ids[UPDATE_BATCH];
	Jsonb	   *docs[UPDATE_BATCH];
	int			n;
	int64		total;
} Updater;

/* The path's steps as jsonb_set wants them: keys, and indexes as text. */
static Datum
path_array(List *steps, int nsteps)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(nsteps, 1));

	for (int i = 0; i < nsteps; i++)
	{
		ArgoStep   *s = list_nth(steps, i);

		elems[i] = s->is_index ?
			CStringGetTextDatum(psprintf(INT64_FORMAT, s->index)) :
			CStringGetTextDatum(s->key);
	}
	return PointerGetDatum(construct_array(elems, nsteps, TEXTOID, -1, false,
										   TYPALIGN_INT));
}

/* The value at the first nsteps steps, or NULL when missing. */
static JsonbValue *
value_at(Jsonb *doc, List *steps, int nsteps)
{
	JsonbContainer *cont = &doc->root;
	JsonbValue *v = NULL;

	for (int i = 0; i < nsteps; i++)
	{
		ArgoStep   *s = list_nth(steps, i);

		if (v != NULL && v->type != jbvBinary)
			return NULL;
		if (s->is_index)
			v = JsonContainerIsArray(cont) ?
				getIthJsonbValueFromContainer(cont, (uint32) s->index) : NULL;
		else
			v = JsonContainerIsObject(cont) ?
				getKeyJsonValueFromContainer(cont, s->key, strlen(s->key), NULL) : NULL;
		if (v == NULL)
			return NULL;
		if (v->type == jbvBinary)
			cont = v->val.binary.data;
	}
	return v;
}

static Jsonb *
empty_container(bool array)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
											  CStringGetDatum(array ? "[]" : "{}")));
}

static Jsonb *
set_at(Jsonb *doc, List *steps, int nsteps, Jsonb *value)
{
	return DatumGetJsonbP(DirectFunctionCall4(jsonb_set, JsonbPGetDatum(doc),
											  path_array(steps, nsteps),
											  JsonbPGetDatum(value),
											  BoolGetDatum(true)));
}

/*
 * SET p = v: create what is missing on the way, as MongoDB's $set does;
 * a scalar in the way is an error, not silently replaced.
 */
static Jsonb *
apply_set(Jsonb *doc, ArgoPath *path, Jsonb *value)
{
	int			n = list_length(path->steps);

	for (int i = 1; i < n; i++)
	{
		bool		want_array = ((ArgoStep *) list_nth(path->steps, i))->is_index;
		JsonbValue *v = value_at(doc, path->steps, i);

		if (v == NULL)
			doc = set_at(doc, path->steps, i, empty_container(want_array));
		else if (v->type != jbvBinary ||
				 (want_array ? !JsonContainerIsArray(v->val.binary.data) :
				  !JsonContainerIsObject(v->val.binary.data)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot set \"%s\": a value on the way is not %s",
							path->keystr, want_array ? "an array" : "an object")));
	}
	return set_at(doc, path->steps, n, value);
}

static Jsonb *
apply_changes(Jsonb *doc, List *sets)
{
	ListCell   *lc;

	foreach(lc, sets)
	{
		ArgoSetItem *item = lfirst(lc);

		if (item->value)
			doc = apply_set(doc, item->path, item->value->value);
		else
			doc = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete_path,
													 JsonbPGetDatum(doc),
													 path_array(item->path->steps,
																list_length(item->path->steps))));
	}
	return doc;
}

/* An object read back under its lock, copied: the rebuilder reuses its memory. */
static void
take_object(void *arg, int64 objid, Jsonb *obj)
{
	Updater    *u = arg;

	u->ids[u->n] = objid;
	u->docs[u->n] = MemoryContextAlloc(u->cxt, VARSIZE(obj));
	memcpy(u->docs[u->n], obj, VARSIZE(obj));
	u->n++;
}

/* The locked objects' current rows, rebuilt into u->ids/u->docs. */
static void
read_locked(Updater *u, const int64 *ids, int n)
{
	ArgoCollection *c = u->coll;
	Rebuilder  *rb = rebuilder_create(keydict_of(c), take_object, u);
	ObjFetch   *f;

	/* after the locks: a snapshot that sees every earlier writer's commit */
	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	f = objfetch_open(c, NIL, false, false);
	if (f != NULL)
	{
		for (int i = 0; i < n; i++)
			objfetch_object(f, ids[i], rb);
		rebuilder_finish(rb);
		objfetch_close(f);
	}
	else
		argo_rebuild_from_query(sqlgen_rows_of_ids(c, ids, n), rb);
	PopActiveSnapshot();
}

/*
 * Change the locked objects: rebuild, apply the changes, and write only
 * the rows that differ.
 */
static void
update_batch(Updater *u, const int64 *ids, int n)
{
	MemoryContext old = MemoryContextSwitchTo(u->cxt);
	RowBatch   *before = rowbatch_create(u->coll, false);
	RowBatch   *after = rowbatch_create(u->coll, false);

	rowbatch_hold(before);
	rowbatch_hold(after);
	u->n = 0;
	read_locked(u, ids, n);
	for (int i = 0; i < u->n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		rowbatch_add_object(before, u->ids[i], u->docs[i]);
		rowbatch_add_object(after, u->ids[i], apply_changes(u->docs[i], u->q->stmt->sets));
	}
	rowbatch_drop_common(before, after);
	rowbatch_delete(before, ids, n);
	rowbatch_flush(after);
	u->total += u->n;
	MemoryContextSwitchTo(old);
	MemoryContextReset(u->cxt);
}

int64
run_update(ArgoQuery *q)
{
	Updater		u = {q, linitial(q->colls)};
	ArgoPred   *where = q->stmt->where;
	Portal		lock;
	int64		ids[UPDATE_BATCH];
	int			n;

	u.cxt = AllocSetContextCreate(CurrentMemoryContext, "argo update",
								  ALLOCSET_DEFAULT_SIZES);
	lock = objlock_open(u.coll, where);
	while ((n = objlock_next(lock, ids, UPDATE_BATCH)) > 0)
	{
		n = objlock_recheck(u.coll, where, ids, n);
		if (n > 0)
			update_batch(&u, ids, n);
	}
	SPI_cursor_close(lock);
	return u.total;
}
