/*
 * distinct.c — SELECT DISTINCT: each result object once (jsonb equality:
 * keys in any order, numbers by value), in the order the statement gives
 * them, the first of equal ones kept; LIMIT and OFFSET then count
 * distinct objects, so the statement's own SQL runs without them and
 * they are applied here.
 *
 * Results are remembered in a hash table and given on as they come,
 * while what it holds stays within work_mem.  Past that it spills, as
 * PostgreSQL's hashed aggregates do: the results given so far go into a
 * sort by content, every later result into a sort by (content, order),
 * and the table is emptied.  When the statement ends, the later results
 * are merged with the earlier ones — each kept if no earlier result and
 * no earlier one of its own equals it — and the survivors come out by a
 * third sort, in the order they came.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"
#include "utils/typcache.h"

#include "parse/parse.h"
#include "exec/results.h"

typedef struct Seen
{
	uint32		hash;			/* hash key */
	List	   *docs;			/* the results of that hash so far */
} Seen;

struct Distinct
{
	result_emit emit;
	void	   *arg;
	int64		offset;			/* distinct results still to skip */
	int64		limit;			/* still to give; -1: no limit */
	int64		first_offset;	/* the statement's, to start over */
	int64		first_limit;
	MemoryContext cxt;			/* the table's */
	HTAB	   *seen;
	/* spilled: past work_mem */
	MemoryContext sortcxt;
	bool		spilled;
	int64		ord;			/* results met so far */
	Tuplesortstate *given;		/* what went on before spilling, by content */
	Tuplesortstate *later;		/* (doc, ord) after, by content then order */
	Tuplesortstate *out;		/* the new ones, by order: distinct_next */
	TupleDesc	desc;			/* (doc jsonb, ord bigint) */
	TupleTableSlot *vslot;		/* a result with its place, to sort */
	TupleTableSlot *slot;		/* from the sorts */
	TupleTableSlot *slot2;		/* the previous later result */
	MemoryContext nextcxt;		/* the result distinct_next gave last */
};

static Oid
jsonb_less(void)
{
	return lookup_type_cache(JSONBOID, TYPECACHE_LT_OPR)->lt_opr;
}

static Oid
int8_less(void)
{
	return lookup_type_cache(INT8OID, TYPECACHE_LT_OPR)->lt_opr;
}

/* Forget the sorts of a spill. */
static void
end_sorts(Distinct *d)
{
	if (d->given)
		tuplesort_end(d->given);
	if (d->later)
		tuplesort_end(d->later);
	if (d->out)
		tuplesort_end(d->out);
	d->given = d->later = d->out = NULL;
	d->spilled = false;
}

/* Nothing seen yet. */
static void
start_over(Distinct *d)
{
	HASHCTL		ctl;

	end_sorts(d);
	MemoryContextReset(d->cxt);
	ctl.keysize = sizeof(uint32);
	ctl.entrysize = sizeof(Seen);
	ctl.hcxt = d->cxt;
	d->seen = hash_create("argo distinct results", 1024, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	d->offset = d->first_offset;
	d->limit = d->first_limit;
	d->ord = 0;
}

/* A filter in front of emit; the statement's LIMIT and OFFSET move into it. */
Distinct *
distinct_begin(ArgoStmt *s, result_emit emit, void *arg)
{
	Distinct   *d = palloc0(sizeof(Distinct));

	d->emit = emit;
	d->arg = arg;
	d->offset = s->offset ? (int64) s->offset->num : 0;
	d->limit = s->limit ? (int64) s->limit->num : -1;
	d->first_offset = d->offset;
	d->first_limit = d->limit;
	/* a distributed collection's shards still each return LIMIT + OFFSET distinct results */
	s->distinct_limit = s->limit;
	s->distinct_offset = s->offset;
	s->limit = s->offset = NULL;
	d->cxt = AllocSetContextCreate(CurrentMemoryContext, "argo distinct",
								   ALLOCSET_DEFAULT_SIZES);
	d->sortcxt = CurrentMemoryContext;
	d->nextcxt = AllocSetContextCreate(CurrentMemoryContext, "argo distinct result",
									   ALLOCSET_DEFAULT_SIZES);
	d->desc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(d->desc, 1, "doc", JSONBOID, -1, 0);
	TupleDescInitEntry(d->desc, 2, "ord", INT8OID, -1, 0);
	d->vslot = MakeSingleTupleTableSlot(d->desc, &TTSOpsVirtual);
	d->slot = MakeSingleTupleTableSlot(d->desc, &TTSOpsMinimalTuple);
	d->slot2 = MakeSingleTupleTableSlot(d->desc, &TTSOpsMinimalTuple);
	start_over(d);
	return d;
}

/* Whether an equal result came before; if not, it is remembered. */
static bool
seen_before(Distinct *d, Jsonb *doc)
{
	uint32		h = DatumGetUInt32(DirectFunctionCall1(jsonb_hash, JsonbPGetDatum(doc)));
	bool		found;
	Seen	   *e = hash_search(d->seen, &h, HASH_ENTER, &found);
	ListCell   *lc;
	MemoryContext old;

	if (!found)
		e->docs = NIL;
	foreach(lc, e->docs)
		if (compareJsonbContainers(&((Jsonb *) lfirst(lc))->root, &doc->root) == 0)
			return true;
	old = MemoryContextSwitchTo(d->cxt);
	e->docs = lappend(e->docs, memcpy(palloc(VARSIZE(doc)), doc, VARSIZE(doc)));
	MemoryContextSwitchTo(old);
	return false;
}

/*
 * The table outgrew work_mem: what it holds goes into a sort, and it is
 * emptied; from now on results are sorted, not given on.
 */
static void
spill(Distinct *d)
{
	MemoryContext old = MemoryContextSwitchTo(d->sortcxt);
	AttrNumber	cols[2] = {1, 2};
	Oid			ops[2] = {jsonb_less(), int8_less()};
	Oid			colls[2] = {InvalidOid, InvalidOid};
	bool		nulls_first[2] = {false, false};
	HASH_SEQ_STATUS st;
	Seen	   *e;

	d->given = tuplesort_begin_datum(JSONBOID, jsonb_less(), InvalidOid, false,
									 work_mem, NULL, TUPLESORT_NONE);
	d->later = tuplesort_begin_heap(d->desc, 2, cols, ops, colls, nulls_first,
									work_mem, NULL, TUPLESORT_NONE);
	MemoryContextSwitchTo(old);
	hash_seq_init(&st, d->seen);
	while ((e = hash_seq_search(&st)) != NULL)
	{
		ListCell   *lc;

		foreach(lc, e->docs)
			tuplesort_putdatum(d->given, PointerGetDatum(lfirst(lc)), false);
	}
	MemoryContextReset(d->cxt);
	d->seen = NULL;
	d->spilled = true;
}

/* A result after spilling: into the sort, with its place. */
static void
sort_later(Distinct *d, Jsonb *doc)
{
	Datum		values[2] = {JsonbPGetDatum(doc), Int64GetDatum(d->ord)};
	bool		nulls[2] = {false, false};

	ExecClearTuple(d->vslot);
	memcpy(d->vslot->tts_values, values, sizeof(values));
	memcpy(d->vslot->tts_isnull, nulls, sizeof(nulls));
	ExecStoreVirtualTuple(d->vslot);
	tuplesort_puttupleslot(d->later, d->vslot);
}

/* A result of the statement: given on if it is new and within LIMIT/OFFSET. */
void
distinct_emit(void *arg, int64 objid, Jsonb *doc)
{
	Distinct   *d = arg;

	CHECK_FOR_INTERRUPTS();
	if (doc == NULL)
	{
		/* the statement withdrew its results to give them again: so do we */
		start_over(d);
		d->emit(d->arg, 0, NULL);
		return;
	}
	if (d->limit == 0)
		return;
	d->ord++;
	if (d->spilled)
	{
		sort_later(d, doc);
		return;
	}
	if (seen_before(d, doc))
		return;
	if (MemoryContextMemAllocated(d->cxt, true) > (Size) work_mem * 1024)
		spill(d);
	if (d->offset > 0)
	{
		d->offset--;
		return;
	}
	if (d->limit > 0)
		d->limit--;
	/* the first object that gave this result */
	d->emit(d->arg, objid, doc);
}

static int
jsonb_order(Jsonb *a, Jsonb *b)
{
	return compareJsonbContainers(&a->root, &b->root);
}

/*
 * After a spill, the later results none equal to a result given before
 * or to a later one met earlier, into d->out by their order.
 */
static void
merge_later(Distinct *d)
{
	AttrNumber	col = 2;
	Oid			op = int8_less();
	Oid			coll = InvalidOid;
	bool		nulls_first = false;
	MemoryContext old = MemoryContextSwitchTo(d->sortcxt);
	Datum		given = (Datum) 0;
	bool		have_given,
				isnull,
				have_prev = false;

	d->out = tuplesort_begin_heap(d->desc, 1, &col, &op, &coll, &nulls_first,
								  work_mem, NULL, TUPLESORT_NONE);
	MemoryContextSwitchTo(old);
	tuplesort_performsort(d->given);
	tuplesort_performsort(d->later);
	have_given = tuplesort_getdatum(d->given, true, &given, &isnull, NULL);
	while (tuplesort_gettupleslot(d->later, true, true, d->slot, NULL))
	{
		Jsonb	   *doc = DatumGetJsonbP(slot_getattr(d->slot, 1, &isnull));

		CHECK_FOR_INTERRUPTS();
		/* equal ones come together, the first met first */
		if (have_prev && jsonb_order(DatumGetJsonbP(slot_getattr(d->slot2, 1, &isnull)), doc) == 0)
			continue;
		ExecCopySlot(d->slot2, d->slot);
		have_prev = true;
		while (have_given && jsonb_order(DatumGetJsonbP(given), doc) < 0)
		{
			pfree(DatumGetPointer(given));
			have_given = tuplesort_getdatum(d->given, true, &given, &isnull, NULL);
		}
		if (have_given && jsonb_order(DatumGetJsonbP(given), doc) == 0)
			continue;
		tuplesort_puttupleslot(d->out, d->slot);
	}
	tuplesort_end(d->given);
	tuplesort_end(d->later);
	d->given = d->later = NULL;
	tuplesort_performsort(d->out);
}

/*
 * The statement has given its last result.  Without a spill, nothing is
 * left.  After one, the new later results are ready for distinct_next;
 * with give_on, they are given on now instead (to a tuplestore, which
 * spills itself).
 */
void
distinct_finish(Distinct *d, bool give_on)
{
	Jsonb	   *doc;

	if (!d->spilled || d->out != NULL)
		return;
	merge_later(d);
	if (!give_on)
		return;
	while ((doc = distinct_next(d)) != NULL)
		d->emit(d->arg, 0, doc);
}

/*
 * The next distinct result after a spill, by LIMIT and OFFSET, or NULL;
 * valid until the next call.
 */
Jsonb *
distinct_next(Distinct *d)
{
	bool		isnull;

	MemoryContextReset(d->nextcxt);
	if (d->out == NULL)
		return NULL;
	while (d->limit != 0)
	{
		MemoryContext old;
		Jsonb	   *doc;

		CHECK_FOR_INTERRUPTS();
		if (!tuplesort_gettupleslot(d->out, true, false, d->slot, NULL))
			break;
		if (d->offset > 0)
		{
			d->offset--;
			continue;
		}
		if (d->limit > 0)
			d->limit--;
		old = MemoryContextSwitchTo(d->nextcxt);
		doc = DatumGetJsonbPCopy(slot_getattr(d->slot, 1, &isnull));
		MemoryContextSwitchTo(old);
		return doc;
	}
	tuplesort_end(d->out);
	d->out = NULL;
	return NULL;
}

/* Done, whether or not every result was taken: the sorts' files closed. */
void
distinct_end(Distinct *d)
{
	end_sorts(d);
}
