/*
 * update.c — UPDATE c SET p = json, … UNSET p, … [WHERE pred].
 *
 * Each matching object is rebuilt, changed with PostgreSQL's own jsonb_set
 * and jsonb_delete_path (after creating missing intermediate objects and
 * arrays), and its rows replaced under the same object id: a batched
 * DELETE of the old rows, then the decomposer's set-based INSERT.  UPDATEs
 * of one collection take turns (a lock held to commit), and each reads the
 * objects after taking it, so no update is lost to a concurrent one.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

#include "argo.h"

#define UPDATE_BATCH 1000

typedef struct Updater
{
	ArgoQuery  *q;
	ArgoCollection *coll;
	RowBatch   *rows;
	MemoryContext cxt;			/* pending objects */
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

/* Replace the pending objects' rows: delete the old, insert the new. */
static void
flush_pending(Updater *u)
{
	ArgoCollection *c = u->coll;
	Datum	   *ids = palloc(sizeof(Datum) * Max(u->n, 1));
	Oid			type = INT8ARRAYOID;
	Datum		arr;
	char	   *sql;

	if (u->n == 0)
		return;
	for (int i = 0; i < u->n; i++)
		ids[i] = Int64GetDatum(u->ids[i]);
	arr = PointerGetDatum(construct_array(ids, u->n, INT8OID, 8, true, TYPALIGN_DOUBLE));
	/* the objects keep their directory rows */
	if (c->format == ARGO_FORMAT_ARGO1)
		sql = psprintf("DELETE FROM %s WHERE objid = ANY($1)", c->data_table);
	else
		sql = psprintf("WITH s AS (DELETE FROM %s WHERE objid = ANY($1)), n AS (DELETE FROM %s WHERE objid = ANY($1)) DELETE FROM %s WHERE objid = ANY($1)",
					   c->str_table, c->num_table, c->bool_table);
	if (SPI_execute_with_args(sql, 1, &type, &arr, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "argo: could not replace updated objects");
	for (int i = 0; i < u->n; i++)
		rowbatch_add_object(u->rows, u->ids[i], u->docs[i]);
	rowbatch_flush(u->rows);
	u->total += u->n;
	u->n = 0;
	MemoryContextReset(u->cxt);
}

static void
take_object(void *arg, int64 objid, Jsonb *obj)
{
	Updater    *u = arg;
	MemoryContext old = MemoryContextSwitchTo(u->cxt);

	u->ids[u->n] = objid;
	u->docs[u->n] = apply_changes(obj, u->q->stmt->sets);
	u->n++;
	MemoryContextSwitchTo(old);
	if (u->n == UPDATE_BATCH)
		flush_pending(u);
}

/* Rows of the objects WHERE selects, read after the lock was taken. */
SqlBuf *
sqlgen_update_rows(ArgoQuery *q)
{
	ArgoQuery	sel = *q;
	ArgoStmt	s = *q->stmt;

	s.kind = ASTMT_SELECT;
	s.star = true;
	s.targets = NIL;
	sel.stmt = &s;
	return sqlgen_select_rows(&sel);
}

int64
run_update(ArgoQuery *q)
{
	Updater		u = {q, linitial(q->colls)};
	SqlBuf	   *buf = sqlgen_update_rows(q);
	Portal		portal;

	collection_lock_for_update(u.coll);
	u.rows = rowbatch_create(u.coll, false);
	u.cxt = AllocSetContextCreate(CurrentMemoryContext, "argo update",
								  ALLOCSET_DEFAULT_SIZES);
	/* not read-only: a fresh snapshot, taken after the lock */
	portal = argo_open_cursor(buf, false);
	argo_rebuild_from_cursor(portal, rebuilder_create(keydict_of(u.coll),
													  take_object, &u));
	SPI_cursor_close(portal);
	flush_pending(&u);
	return u.total;
}
