/*
 * lookupjoin.c — the pairs of a two-collection join found from C, as an
 * index nested loop would: the left objects by the WHERE's one predicate
 * (lookup.c), each one's value at the ON path taken from the object
 * itself, and the right objects holding that value found from the right
 * collection's (keyid, value) index.  For a projection the left objects
 * are read whole to pair them (the ON path may not be projected), and
 * the tuples' parts then as the projection reads them.
 *
 * NoBench's Q11 (SELECT * FROM nb AS l JOIN nb AS r ON l.nested_obj.str =
 * r.str1 WHERE l.num BETWEEN …) paid SQL for it: planning a custom plan
 * every time, and for each left object an objid-index probe reading all
 * of its string rows to find one key's.  Only a plain inner join of two
 * parts, SELECT * or a projection, one equality of plain paths, WHERE one predicate of
 * the left part that lookup.c can answer, no ORDER BY, LIMIT, OFFSET or
 * DISTINCT: the pairs come in the order SQL gives them (left id, then
 * right id).  Anything a lookup declines, or more pairs than work_mem
 * holds, and the join's SQL runs instead; nothing was emitted by then.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/numbers.h"
#include "doc/doc.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "exec/lookup.h"

/* The ON equality's path in the left part and in the right, if it applies. */
static bool
join_paths(ArgoStmt *s, ArgoPath **lp, ArgoPath **rp)
{
	ArgoSource *src;
	ArgoPred   *w = s->where;

	if (list_length(s->from) != 2 || s->id_name || s->order_by || s->limit ||
		s->offset || s->distinct || s->unwind || argo_is_aggregate(s))
		return false;
	src = lsecond(s->from);
	*lp = src->on_left;
	*rp = src->on_right;
	if (src->left_join || *lp == NULL || *rp == NULL || (*lp)->source != 0 ||
		(*rp)->source != 1 || (*lp)->wild || (*rp)->wild || (*lp)->id || (*rp)->id)
		return false;
	return w != NULL && lookup_read_pred(w) == w && w->path != NULL &&
		w->path->source == 0 && !w->path->id;
}

/* Whether the join may find its pairs from C (argo_explain says so). */
bool
lookup_join_applies(ArgoQuery *q)
{
	ArgoPath   *lp;
	ArgoPath   *rp;

	return join_paths(q->stmt, &lp, &rp);
}

/* The scalar at path's steps (after its alias) in doc, or false. */
static bool
pair_value_at(Jsonb *doc, ArgoPath *path, JsonbValue *out)
{
	JsonbContainer *c = &doc->root;
	int			skip = list_length(path->steps) - path->nsegs;
	JsonbValue *v = NULL;

	for (int i = skip; i < list_length(path->steps); i++)
	{
		ArgoStep   *st = list_nth(path->steps, i);

		if (st->is_index)
			v = JsonContainerIsArray(c) && st->index >= 0 && st->index <= PG_UINT32_MAX ?
				getIthJsonbValueFromContainer(c, (uint32) st->index) : NULL;
		else if (JsonContainerIsObject(c))
		{
			JsonbValue	k;

			k.type = jbvString;
			k.val.string.val = st->key;
			k.val.string.len = strlen(st->key);
			v = findJsonbValueFromContainer(c, JB_FOBJECT, &k);
		}
		else
			v = NULL;
		if (v == NULL)
			return false;
		if (v->type == jbvBinary)
			c = v->val.binary.data;
		else if (i + 1 < list_length(path->steps))
			return false;		/* a scalar where the path goes on */
	}
	if (v == NULL || (v->type != jbvString && v->type != jbvNumeric && v->type != jbvBool))
		return false;
	*out = *v;
	return true;
}

/* "rp = v" as a predicate lookup.c answers. */
static ArgoPred *
equals_value(ArgoPath *rp, const JsonbValue *v)
{
	ArgoPred   *p = palloc0(sizeof(ArgoPred));
	ArgoLiteral *lit = palloc0(sizeof(ArgoLiteral));

	if (v->type == jbvString)
	{
		lit->type = ALIT_STRING;
		lit->str = pnstrdup(v->val.string.val, v->val.string.len);
	}
	else if (v->type == jbvNumeric)
	{
		lit->type = ALIT_NUMBER;
		lit->num = argo_number_from_numeric(v->val.numeric, NULL);
	}
	else
	{
		lit->type = ALIT_BOOL;
		lit->b = v->val.boolean;
	}
	p->kind = APRED_CMP;
	p->path = rp;
	p->op = ACMP_EQ;
	p->lit = lit;
	return p;
}

/* The left object being paired, copied where the pairing frees it. */
typedef struct LeftObject
{
	Jsonb	   *obj;
	MemoryContext cxt;
} LeftObject;

static void
keep_left(void *arg, int64 objid, Jsonb *obj)
{
	LeftObject *lo = arg;

	lo->obj = MemoryContextAlloc(lo->cxt, VARSIZE(obj));
	memcpy(lo->obj, obj, VARSIZE(obj));
}

static void
add_pair(JoinPairs *jp, int64 l, const DocHint *lh, int64 r, const DocHint *rh)
{
	if (jp->n == jp->max)
	{
		jp->max = jp->max ? jp->max * 2 : 64;
		for (int k = 0; k < 2; k++)
		{
			jp->ids[k] = jp->ids[k] ? repalloc_huge(jp->ids[k], sizeof(int64) * jp->max) :
				MemoryContextAllocHuge(jp->cxt, sizeof(int64) * jp->max);
			jp->hints[k] = jp->hints[k] ?
				repalloc_huge(jp->hints[k], sizeof(DocHint) * jp->max) :
				MemoryContextAllocHuge(jp->cxt, sizeof(DocHint) * jp->max);
		}
	}
	jp->ids[0][jp->n] = l;
	jp->hints[0][jp->n] = *lh;
	jp->ids[1][jp->n] = r;
	jp->hints[1][jp->n] = *rh;
	jp->n++;
}

/*
 * The right objects paired with one left object, added to jp; false when
 * the right part's lookup declines or jp would pass its cap.
 */
static bool
pair_left(ArgoQuery *q, ArgoPath *lp, ArgoPath *rp, Jsonb *left, int64 lid,
		  const DocHint *lh, Snapshot snap, int64 cap, JoinPairs *jp)
{
	JsonbValue	v;
	int			n;
	DocHint    *hints;
	int64	   *ids;

	if (!pair_value_at(left, lp, &v))
		return true;
	ids = lookup_ids_docs(lsecond(q->colls), equals_value(rp, &v), snap,
						  (int) Min(cap - jp->n + 1, PG_INT32_MAX), &n, &hints);
	if (ids == NULL || jp->n + n > cap)
		return false;
	for (int i = 0; i < n; i++)
		add_pair(jp, lid, lh, ids[i], &hints[i]);
	return true;
}

/*
 * The join's pairs in output order, found from C, in *jp; false when SQL
 * must find them.  left fetches the left part's whole objects.
 */
bool
lookup_join_pairs(ArgoQuery *q, ObjFetch *left, JoinPairs *jp)
{
	ArgoPath   *lp;
	ArgoPath   *rp;
	Snapshot	snap = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;
	int64		cap = Min((Size) work_mem * 1024 / (2 * (sizeof(int64) + sizeof(DocHint))),
						  MaxAllocHugeSize / sizeof(DocHint) / 2);
	int			nleft;
	DocHint    *lhints;
	int64	   *lids;
	MemoryContext old;
	LeftObject	lo;
	Rebuilder  *rb;
	bool		ok = true;
	int			asked = 0;

	memset(jp, 0, sizeof(JoinPairs));
	jp->cxt = CurrentMemoryContext;
	if (snap == NULL || !join_paths(q->stmt, &lp, &rp))
		return false;
	lids = lookup_ids_docs(linitial(q->colls), q->stmt->where, snap,
						   (int) Min(cap, PG_INT32_MAX), &nleft, &lhints);
	if (lids == NULL)
		return false;
	/* each left object's fetch, value and lookup freed after it */
	lo.cxt = AllocSetContextCreate(CurrentMemoryContext, "argo lookup join", ALLOCSET_DEFAULT_SIZES);
	rb = rebuilder_create(keydict_of(linitial(q->colls)), keep_left, &lo);
	for (int i = 0; i < nleft && ok; i++)
	{
		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(lo.cxt);
		lo.obj = NULL;
		objfetch_prefetch_docs(left, rb, lhints, nleft, i, &asked);
		objfetch_hint_doc(left, &lhints[i]);
		objfetch_object(left, lids[i], rb);
		rebuilder_finish(rb);
		if (lo.obj != NULL)
			ok = pair_left(q, lp, rp, lo.obj, lids[i], &lhints[i], snap, cap, jp);
		MemoryContextSwitchTo(old);
		MemoryContextReset(lo.cxt);
	}
	MemoryContextDelete(lo.cxt);
	return ok;
}
