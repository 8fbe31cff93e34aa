/*
 * join.c — SELECT over INNER JOINs of collections (paper 3.2.4).
 *
 * The tuples of object ids come from SQL that sql/joinsql.c writes (the
 * plan first finds which value types each ON condition's keys hold:
 * join_prune_types); the tuples' objects are then fetched part by part,
 * in tuple order, straight from the heap (objfetch.c; through SQL where
 * that cannot be done), and assembled as {"alias": {…}, …}.
 *
 * LEFT JOIN keeps every object of the left side: the tuples start from
 * the first collection's objects and a left join's pairs are LEFT JOINed,
 * so a left object without a match has the part NULL (objid 0 in the
 * buffers below), which comes out as JSON null.  Such a part has no
 * values: WHERE's conjuncts on it are judged per tuple (not before
 * joining, which would keep the left object with a null part instead of
 * dropping it), as on an object with no values, and EXISTS alias says
 * whether it matched.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/common.h"
#include "common/plancache.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "exec/join.h"
#include "exec/lookup.h"
#include "exec/results.h"
#include "exec/stream.h"

/*
 * Which value types each ON condition's two keys both hold now, for the
 * SQL to pair only those (a [*] path stands for many keys: not pruned).
 * NoBench's Q11 planned three branches where one can match (a third of
 * its time was planning).  Asked once per statement, by the plan.
 */
void
join_prune_types(ArgoQuery *q)
{
	Snapshot	snap = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;
	ListCell   *lc;

	if (snap == NULL)
		return;
	foreach(lc, q->stmt->from)
	{
		ArgoSource *src = lfirst(lc);
		int			b = foreach_current_index(lc);

		if (b == 0 || src->on_left == NULL || src->pair_types != 0)
			continue;
		/* ID(alias): numbers pair, where the path holds some */
		if (src->on_left->id || src->on_right->id)
		{
			ArgoPath   *p = src->on_left->id ? src->on_right : src->on_left;

			src->pair_types = lookup_key_may_have(list_nth(q->colls, p->source), p->keystr, 1, snap) ?
				1 << 1 : 1 << 3;
			continue;
		}
		for (int t = 0; t < 3; t++)
		{
			ArgoCollection *ca = list_nth(q->colls, src->on_left->source);
			ArgoCollection *cb = list_nth(q->colls, b);

			if ((src->on_left->wild || lookup_key_may_have(ca, src->on_left->keystr, t, snap)) &&
				(src->on_right->wild || lookup_key_may_have(cb, src->on_right->keystr, t, snap)))
				src->pair_types |= 1 << t;
		}
		/* none: the pairs are empty, which a mask of 0 cannot say */
		if (src->pair_types == 0)
			src->pair_types = 1 << 3;
	}
}

/* Collects the parts of the current tuple and emits whole tuples. */
typedef struct TupleAssembler
{
	result_emit emit;
	void	   *arg;
	ArgoStmt   *stmt;
	int			nparts;
	int64		ord;
	Jsonb	  **parts;
	bool	   *nullpart;		/* a LEFT JOIN's part without a match: null */
	int64	  **chunk_ids;		/* set-wise: the chunk's ids (0: no match) */
	int64		chunk_first;	/* and the first tuple's number */
	MemoryContext cxt;
} TupleAssembler;

/*
 * A tuple as {"alias": part, …}: a part NULL for a projected part with
 * none of its paths ({}), nullpart[k] for a LEFT JOIN's part without a
 * match (null).
 */
Jsonb *
join_tuple_object(ArgoStmt *s, Jsonb **parts, bool *nullpart)
{
	JsonbParseState *st = NULL;
	ListCell   *lc;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	foreach(lc, s->from)
	{
		ArgoSource *src = lfirst(lc);
		int			k = foreach_current_index(lc);
		const char *name = src->alias ? src->alias : src->coll;
		JsonbValue	key = {.type = jbvString};
		JsonbValue	val;

		key.val.string.val = (char *) name;
		key.val.string.len = strlen(name);
		pushJsonbValue(&st, WJB_KEY, &key);
		if (nullpart[k])
		{
			val.type = jbvNull;
			pushJsonbValue(&st, WJB_VALUE, &val);
			continue;
		}
		if (parts[k] == NULL)
		{
			pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
			pushJsonbValue(&st, WJB_END_OBJECT, NULL);
			continue;
		}
		val.type = jbvBinary;
		val.val.binary.data = &parts[k]->root;
		val.val.binary.len = VARSIZE(parts[k]) - VARHDRSZ;
		pushJsonbValue(&st, WJB_VALUE, &val);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

static void
flush_tuple(TupleAssembler *ta)
{
	MemoryContext old;

	if (ta->ord < 0)
		return;
	old = MemoryContextSwitchTo(ta->cxt);
	ta->emit(ta->arg, 0, join_tuple_object(ta->stmt, ta->parts, ta->nullpart));
	MemoryContextSwitchTo(old);
	MemoryContextReset(ta->cxt);
	memset(ta->parts, 0, sizeof(Jsonb *) * ta->nparts);
	memset(ta->nullpart, 0, sizeof(bool) * ta->nparts);
}

/*
 * A tuple's marker: which of its parts are null, from the SQL's marker
 * object {"m": bits} or, set-wise, from the chunk's ids.
 */
static void
take_marker(TupleAssembler *ta, int64 ord, Jsonb *marker)
{
	JsonbValue *m;

	if (ta->chunk_ids != NULL)
	{
		for (int k = 0; k < ta->nparts; k++)
			ta->nullpart[k] = ta->chunk_ids[k][ord - ta->chunk_first] == 0;
		return;
	}
	m = marker ? getKeyJsonValueFromContainer(&marker->root, "m", 1, NULL) : NULL;
	if (m != NULL && m->type == jbvNumeric)
	{
		int64		bits = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(m->val.numeric)));

		for (int k = 0; k < ta->nparts; k++)
			ta->nullpart[k] = (bits & ((int64) 1 << k)) != 0;
	}
}

/*
 * The rebuilder's objects are parts, numbered ord * (nparts + 1) + part;
 * part nparts is the tuple's marker and carries nothing.
 */
static void
take_part(void *arg, int64 id, Jsonb *obj)
{
	TupleAssembler *ta = arg;
	int64		ord = id / (ta->nparts + 1);
	int			part = id % (ta->nparts + 1);

	if (ord != ta->ord)
	{
		flush_tuple(ta);
		ta->ord = ord;
	}
	if (part == ta->nparts)
	{
		take_marker(ta, ord, obj);
		return;
	}
	ta->parts[part] = (Jsonb *) MemoryContextAlloc(ta->cxt, VARSIZE(obj));
	memcpy(ta->parts[part], obj, VARSIZE(obj));
}

/* Fetchers for every part, or NULL if some part must be read through SQL. */
ObjFetch **
join_fetchers(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	int			n = list_length(s->from);
	ObjFetch  **f = palloc0(sizeof(ObjFetch *) * n);

	for (int k = 0; k < n; k++)
	{
		ArgoCollection *c = list_nth(q->colls, k);

		f[k] = objfetch_open(c, s->star ? NIL : projection_keys(c, s->targets, k),
							 !s->star, false);
		if (f[k] == NULL)
		{
			for (int i = 0; i < k; i++)
				objfetch_close(f[i]);
			return NULL;
		}
	}
	return f;
}

/* Where a part's rebuilt object goes. */
typedef struct PartSlot
{
	TupleAssembler *ta;
	int			part;
} PartSlot;

typedef struct DirectJoin
{
	TupleAssembler *ta;
	ObjFetch  **fetch;
	Rebuilder **rb;
} DirectJoin;

static void
store_part(void *arg, int64 objid, Jsonb *obj)
{
	PartSlot   *ps = arg;
	TupleAssembler *ta = ps->ta;

	ta->parts[ps->part] = (Jsonb *) MemoryContextAlloc(ta->cxt, VARSIZE(obj));
	memcpy(ta->parts[ps->part], obj, VARSIZE(obj));
}

/*
 * One tuple (o0, o1, …): fetch and rebuild each part, then emit it.
 * hints, if given: where each part's kept document may lie.
 */
static void
probe_tuple(DirectJoin *dj, int64 *objids, DocHint *hints)
{
	for (int k = 0; k < dj->ta->nparts; k++)
	{
		/* 0: a LEFT JOIN's part without a match */
		dj->ta->nullpart[k] = objids[k] == 0;
		if (objids[k] == 0)
			continue;
		if (hints != NULL)
			objfetch_hint_doc(dj->fetch[k], &hints[k]);
		objfetch_object(dj->fetch[k], objids[k], dj->rb[k]);
		rebuilder_finish(dj->rb[k]);
	}
	dj->ta->ord = 0;
	flush_tuple(dj->ta);
}

/* Tuples read from the id query and not yet fetched. */
typedef struct TupleBuffer
{
	int			nparts;
	int64	  **ids;			/* ids[k][i]: part k of tuple i */
	int64		n;
	int64		max;
} TupleBuffer;

static void
buffer_add(TupleBuffer *b, HeapTuple tup, TupleDesc desc)
{
	if (b->n == b->max)
	{
		b->max *= 2;
		for (int k = 0; k < b->nparts; k++)
			b->ids[k] = repalloc_huge(b->ids[k], sizeof(int64) * b->max);
	}
	for (int k = 0; k < b->nparts; k++)
	{
		bool		isnull;

		b->ids[k][b->n] = DatumGetInt64(SPI_getbinval(tup, desc, k + 1, &isnull));
		/* a LEFT JOIN's part without a match: 0, no object's id */
		if (isnull)
			b->ids[k][b->n] = 0;
	}
	b->n++;
}

static void
probe_buffer(DirectJoin *dj, TupleBuffer *b)
{
	int64	   *objids = palloc(sizeof(int64) * b->nparts);

	for (int64 i = 0; i < b->n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < b->nparts; k++)
			objids[k] = b->ids[k][i];
		probe_tuple(dj, objids, NULL);
	}
	pfree(objids);
	b->n = 0;
}

/* The pairs lookupjoin.c found, each fetched and emitted. */
static void
probe_pairs(DirectJoin *dj, JoinPairs *jp)
{
	int			asked = 0;

	for (int64 i = 0; i < jp->n; i++)
	{
		int64		objids[2] = {jp->ids[0][i], jp->ids[1][i]};
		DocHint		hints[2] = {jp->hints[0][i], jp->hints[1][i]};

		CHECK_FOR_INTERRUPTS();
		/* the right parts' documents asked for ahead (the left ones were read to pair them) */
		if (i < PG_INT32_MAX)
			objfetch_prefetch_docs(dj->fetch[1], dj->rb[1], jp->hints[1],
								   (int) Min(jp->n, PG_INT32_MAX), (int) i, &asked);
		probe_tuple(dj, objids, hints);
	}
}

/* Tuples fetched set-wise at a time: bounds the buffer's memory. */
#define JOINSET_CHUNK 1000000
#define JOIN_BATCH 10000

/*
 * Read the tuples in batches; probe their parts while they are few, or,
 * once they reach joinset_threshold, read the parts set-wise a chunk of
 * tuples at a time.  A join still undecided after a chunk's worth is
 * probed from then on.
 */
static void
fetch_tuples(ArgoQuery *q, DirectJoin *dj, bool setwise)
{
	Portal		portal = argo_open_cursor(joinsql_ids(q), true);
	int64		threshold = setwise ? 0 : joinset_threshold(q);
	TupleBuffer b = {dj->ta->nparts, palloc(sizeof(int64 *) * dj->ta->nparts), 0, JOIN_BATCH};
	int64		total = 0;
	int64		first = 1;
	enum
	{
		UNDECIDED, PROBE, SETWISE
	}			mode = UNDECIDED;

	for (int k = 0; k < b.nparts; k++)
		b.ids[k] = palloc(sizeof(int64) * b.max);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, JOIN_BATCH);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
			buffer_add(&b, SPI_tuptable->vals[i], SPI_tuptable->tupdesc);
		total += SPI_processed;
		SPI_freetuptable(SPI_tuptable);
		if (mode == UNDECIDED)
			mode = total >= threshold ? SETWISE : b.n >= JOINSET_CHUNK ? PROBE : UNDECIDED;
		if (mode == PROBE)
			probe_buffer(dj, &b);
		else if (mode == SETWISE && b.n >= (setwise ? JOIN_BATCH : JOINSET_CHUNK))
		{
			dj->ta->chunk_ids = b.ids;
			dj->ta->chunk_first = first;
			joinset_fetch(q, b.ids, b.n, first, take_part, dj->ta);
			/* the chunk's last tuple is whole: out before the ids change */
			flush_tuple(dj->ta);
			dj->ta->ord = -1;
			first += b.n;
			b.n = 0;
		}
	}
	SPI_cursor_close(portal);
	if (mode != SETWISE)
	{
		probe_buffer(dj, &b);
		return;
	}
	if (b.n > 0)
	{
		dj->ta->chunk_ids = b.ids;
		dj->ta->chunk_first = first;
		joinset_fetch(q, b.ids, b.n, first, take_part, dj->ta);
	}
	/* the last tuple has no successor to complete it */
	flush_tuple(dj->ta);
}

/* Whether some collection of the join is distributed over servers. */
bool
joins_distributed(ArgoQuery *q)
{
	ListCell   *lc;

	foreach(lc, q->colls)
		if (collection_is_distributed(lfirst(lc)))
			return true;
	return false;
}

/* The join; its parts' rows from the heap through fetch (argo_plan), or through SQL when NULL. */
void
run_join(ArgoQuery *q, ObjFetch **fetch, result_emit emit, void *arg)
{
	TupleAssembler ta = {emit, arg, q->stmt, list_length(q->stmt->from), -1};
	DirectJoin	dj = {&ta, fetch};
	JoinPairs	pairs;

	ta.parts = palloc0(sizeof(Jsonb *) * ta.nparts);
	ta.nullpart = palloc0(sizeof(bool) * ta.nparts);
	ta.cxt = AllocSetContextCreate(CurrentMemoryContext, "argo join tuple",
								   ALLOCSET_DEFAULT_SIZES);
	if (fetch == NULL && joins_distributed(q))
	{
		/* parts a batch of tuples at a time: a round trip per shard, not per tuple */
		fetch_tuples(q, &dj, true);
		return;
	}
	if (fetch == NULL)
	{
		argo_rebuild_from_query(joinsql_build(q), rebuilder_create(NULL, take_part, &ta));
		flush_tuple(&ta);
		return;
	}
	dj.rb = palloc(sizeof(Rebuilder *) * ta.nparts);
	for (int k = 0; k < ta.nparts; k++)
	{
		PartSlot   *ps = palloc(sizeof(PartSlot));

		ps->ta = &ta;
		ps->part = k;
		dj.rb[k] = rebuilder_create(keydict_of(list_nth(q->colls, k)), store_part, ps);
	}
	if (lookup_join_applies(q))
	{
		/* a projection's left objects read whole to pair them: the ON path may not be projected */
		ObjFetch   *left = q->stmt->star ? fetch[0] :
			objfetch_open(linitial(q->colls), NIL, false, false);
		bool		paired = left != NULL && lookup_join_pairs(q, left, &pairs);

		if (left != NULL && left != fetch[0])
			objfetch_close(left);
		if (paired)
		{
			probe_pairs(&dj, &pairs);
			return;
		}
	}
	fetch_tuples(q, &dj, false);
}
