/*
 * lookuporder.c — the few objects a lookup found (WHERE path = $1, at
 * most LOOKUP_SORT_MAX of them), put in ORDER BY's order and cut to
 * OFFSET and LIMIT in C.
 *
 * The SQL that sorted them (sqlgen_order_ids) is planned again for every
 * statement, its values being its arguments, several times what the
 * sort costs (BG's "top five resources of a wall": docs/performance.md,
 * dated).  Here each object is fetched once to read its
 * sort keys from the whole object — argo_doc_sort_key, which orders as
 * the SQL's columns do (numbers, strings, booleans, then nothing; ties by
 * id) — and fetched again, in order, to be emitted.  Only SELECT * (the
 * fetched object holds every ORDER BY path) and not DISTINCT.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "doc/doc.h"
#include "store/collection.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/lookup.h"
#include "exec/plan.h"

typedef struct Keyed
{
	int64		objid;
	StringInfoData *keys;		/* per ORDER BY item; data NULL for none */
} Keyed;

typedef struct Collect
{
	ArgoStmt   *stmt;
	Jsonb	  **paths;			/* per ORDER BY item; NULL for ID() */
	Keyed	   *objs;
	int			n;
	int			max;			/* one object an id asked for */
	MemoryContext cxt;			/* the keys' (the fetch resets its own per object) */
} Collect;

/* Whether lookup_order_ids can order q's objects. */
bool
lookup_orders_in_c(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ListCell   *lc;

	if (!s->star || s->distinct)
		return false;
	foreach(lc, s->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);

		if (ob->agg != NULL || (!ob->path->id && ob->path->wild))
			return false;
	}
	return true;
}

/* An object fetched: its sort keys kept, the object itself not. */
static void
collect(void *arg, int64 objid, Jsonb *obj)
{
	Collect    *c = arg;
	Keyed	   *k;
	int			nkeys = list_length(c->stmt->order_by);
	MemoryContext old;

	if (c->n >= c->max)
		elog(ERROR, "more objects fetched than asked for");
	k = &c->objs[c->n++];
	old = MemoryContextSwitchTo(c->cxt);

	k->objid = objid;
	k->keys = palloc0(sizeof(StringInfoData) * Max(nkeys, 1));
	for (int i = 0; i < nkeys; i++)
	{
		if (c->paths[i] == NULL)
			continue;
		initStringInfo(&k->keys[i]);
		if (!argo_doc_sort_key(obj, c->paths[i], &k->keys[i]))
			k->keys[i].data = NULL;
	}
	MemoryContextSwitchTo(old);
}

static int
cmp_keyed(const void *a, const void *b, void *arg)
{
	const Keyed *ka = a;
	const Keyed *kb = b;
	Collect    *sorting = arg;
	ListCell   *lc;

	foreach(lc, sorting->stmt->order_by)
	{
		int			i = foreach_current_index(lc);
		ArgoOrder  *ob = lfirst(lc);
		int			c = sorting->paths[i] == NULL ?
			(ob->desc ? -1 : 1) * ((ka->objid > kb->objid) - (ka->objid < kb->objid)) :
			argo_sort_key_order(&ka->keys[i], &kb->keys[i], ob->desc, ob->nulls_first);

		if (c != 0)
			return c;
	}
	return (ka->objid > kb->objid) - (ka->objid < kb->objid);
}

/* The objects of ids (in id order) sorted by ORDER BY, in place; gone ones dropped. */
static void
sort_ids(ArgoPlan *p, int64 *ids, int *n)
{
	ArgoQuery  *q = p->q;
	ArgoCollection *coll = linitial(q->colls);
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "argo lookup order",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Collect		c = {q->stmt, .cxt = cxt};
	Rebuilder  *rb = rebuilder_create(keydict_of(coll), collect, &c);
	ListCell   *lc;

	c.paths = palloc0(sizeof(Jsonb *) * Max(list_length(q->stmt->order_by), 1));
	foreach(lc, q->stmt->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);

		if (!ob->path->id)
			c.paths[foreach_current_index(lc)] = ob->expr ? sql_expr_spec(ob->expr) :
				DatumGetJsonbP(sql_path_steps(ob->path));
	}
	c.objs = palloc(sizeof(Keyed) * Max(*n, 1));
	c.max = *n;
	for (int i = 0; i < *n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		objfetch_object(p->fetch, ids[i], rb);
	}
	rebuilder_finish(rb);
	qsort_arg(c.objs, c.n, sizeof(Keyed), cmp_keyed, &c);
	for (int i = 0; i < c.n; i++)
		ids[i] = c.objs[i].objid;
	*n = c.n;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * The lookup's ids in output order, OFFSET and LIMIT applied: a copy of
 * p->ids (kept in id order for argo_explain).
 */
void
lookup_order_ids(ArgoPlan *p, int64 **ids, int *n)
{
	ArgoStmt   *s = p->q->stmt;
	int64	   *out = palloc(sizeof(int64) * Max(p->nids, 1));
	int			count = p->nids;
	int64		offset = s->offset ? (int64) s->offset->num : 0;
	int64		limit = s->limit ? (int64) s->limit->num : -1;

	memcpy(out, p->ids, sizeof(int64) * p->nids);
	if (s->order_by)
		sort_ids(p, out, &count);
	offset = Min(offset, count);
	count -= offset;
	if (limit >= 0 && limit < count)
		count = limit;
	*ids = out + offset;
	*n = count;
}
