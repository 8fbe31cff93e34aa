/*
 * distinct.c — SELECT DISTINCT: each result object once (jsonb equality:
 * keys in any order, numbers by value), in the order the statement gives
 * them, the first of equal ones kept; LIMIT and OFFSET then count
 * distinct objects, so the statement's own SQL runs without them and
 * they are applied here.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "exec/exec.h"

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
	MemoryContext cxt;
	HTAB	   *seen;
};

/* Nothing seen yet. */
static void
start_over(Distinct *d)
{
	HASHCTL		ctl;

	MemoryContextReset(d->cxt);
	ctl.keysize = sizeof(uint32);
	ctl.entrysize = sizeof(Seen);
	ctl.hcxt = d->cxt;
	d->seen = hash_create("argo distinct results", 1024, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	d->offset = d->first_offset;
	d->limit = d->first_limit;
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

/* A result of the statement: given on if it is new and within LIMIT/OFFSET. */
void
distinct_emit(void *arg, Jsonb *doc)
{
	Distinct   *d = arg;

	CHECK_FOR_INTERRUPTS();
	if (doc == NULL)
	{
		/* the statement withdrew its results to give them again: so do we */
		start_over(d);
		d->emit(d->arg, NULL);
		return;
	}
	if (d->limit == 0 || seen_before(d, doc))
		return;
	if (d->offset > 0)
	{
		d->offset--;
		return;
	}
	if (d->limit > 0)
		d->limit--;
	d->emit(d->arg, doc);
}
