/*
 * shape.c — what a SELECT's result objects hold beyond the rows of their
 * paths as stored: paths renamed with AS, and the object's id (ID()).
 *
 * A renamed path's rows are rebuilt at their new place: SELECT
 * address.city AS city puts the rows of address.city and under it at
 * city, keeping what lies below; a path with [*] named so becomes an
 * array of the values it reaches (nested once per [*]).  A row that two
 * targets project (SELECT address, address.city AS c) goes to both.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"

#include "common/keypath.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/results.h"

/* The same place twice (two unnamed targets covering one key). */
static bool
same_place(KeySeg *a, int na, KeySeg *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (keyseg_cmp(&a[i], &b[i]) != 0)
			return false;
	return true;
}

static void
add_place(HTAB *places, const ArgoKey *k, KeySeg *segs, int nsegs)
{
	bool		found;
	KeyPlaces  *kp = hash_search(places, &k->id, HASH_ENTER, &found);

	if (!found)
		kp->n = 0;
	for (int i = 0; i < kp->n; i++)
		if (same_place(kp->segs[i], kp->nsegs[i], segs, nsegs))
			return;
	kp->segs = kp->n ? repalloc(kp->segs, sizeof(KeySeg *) * (kp->n + 1)) : palloc(sizeof(KeySeg *));
	kp->nsegs = kp->n ? repalloc(kp->nsegs, sizeof(int) * (kp->n + 1)) : palloc(sizeof(int));
	kp->segs[kp->n] = segs;
	kp->nsegs[kp->n] = nsegs;
	kp->n++;
}

/*
 * Where key k goes for a target named alias: the alias, then (for a
 * path with [*]) the positions k has where the path has [*], then what
 * lies below the path's value.
 */
static int
renamed(ArgoPath *path, const char *alias, const ArgoKey *k, KeySeg **out)
{
	KeySeg	   *segs = palloc0(sizeof(KeySeg) * (k->nsegs + 1));
	int			n = 0;

	segs[n].kind = KSEG_KEY;
	segs[n].key = alias;
	segs[n++].keylen = strlen(alias);
	for (int i = 0; path->wild && i < path->nsegs; i++)
		if (path->pattern[i].kind == KSEG_WILD)
			segs[n++] = k->segs[i];
	for (int i = path->nsegs; i < k->nsegs; i++)
		segs[n++] = k->segs[i];
	*out = segs;
	return n;
}

/* Every projected key's places, for the targets of one FROM item. */
static HTAB *
projection_places(ArgoCollection *c, List *targets, int source)
{
	HASHCTL		ctl;
	HTAB	   *places;
	ListCell   *lc;

	ctl.keysize = sizeof(int32);
	ctl.entrysize = sizeof(KeyPlaces);
	ctl.hcxt = CurrentMemoryContext;
	places = hash_create("argo projection places", 64, &ctl,
						 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	foreach(lc, targets)
	{
		ArgoTarget *t = lfirst(lc);
		ListCell   *kc;

		if (t->agg != AAGG_NONE || t->path->id || t->path->source != source)
			continue;
		foreach(kc, sql_path_keys(c, t->path, true))
		{
			ArgoKey    *k = lfirst(kc);
			KeySeg	   *segs = k->segs;
			int			nsegs = k->nsegs;

			if (t->alias != NULL)
				nsegs = renamed(t->path, t->alias, k, &segs);
			add_place(places, k, segs, nsegs);
		}
	}
	return places;
}

/*
 * One object a write returns (RETURNING *), as written or deleted: with
 * its id under RETURNING *, ID()'s key, and its id beside it for a
 * shard's part of the statement.
 */
void
argo_emit_written(ArgoStmt *s, result_emit emit, void *arg, int64 objid, Jsonb *obj)
{
	emit(arg, objid, s->returning_id ? doc_with_id(obj, s->returning_id, objid) : obj);
}

/*
 * A rebuilder for a SELECT's objects of one FROM item: its renames in
 * place and, outside a join, each object's id when ID() is a target.
 */
Rebuilder *
select_rebuilder(ArgoQuery *q, int source, rebuild_emit emit, void *arg)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = list_nth(q->colls, source);
	Rebuilder  *rb = rebuilder_create(keydict_of(c), emit, arg);

	if (s->id_name != NULL && list_length(s->from) == 1)
		rebuilder_set_id(rb, s->id_name);
	if (s->renames)
		rebuilder_set_places(rb, projection_places(c, s->targets, source));
	return rb;
}

/* Whether a's keys begin b's (or are b's). */
static bool
path_within(DocPath *a, DocPath *b)
{
	if (a->nsteps > b->nsteps)
		return false;
	for (int i = 0; i < a->nsteps; i++)
		if (strcmp(a->keys[i], b->keys[i]) != 0)
			return false;
	return true;
}

/* Paths in the order of their keys, a path before those it begins. */
static int
shape_path_cmp(const void *a, const void *b)
{
	const DocPath *pa = *(const DocPath *const *) a;
	const DocPath *pb = *(const DocPath *const *) b;

	for (int i = 0; i < pa->nsteps && i < pb->nsteps; i++)
	{
		int			c = strcmp(pa->keys[i], pb->keys[i]);

		if (c != 0)
			return c;
	}
	return pa->nsteps - pb->nsteps;
}

/*
 * Whether no path is inside another (or the same): sorted, a path that
 * begins another is followed by one it begins, so neighbours tell (a
 * projection may name 20,000 paths: not every pair).
 */
static bool
paths_apart(DocPath *paths, int n)
{
	DocPath   **sorted = palloc(sizeof(DocPath *) * Max(n, 1));
	bool		apart = true;

	for (int i = 0; i < n; i++)
		sorted[i] = &paths[i];
	qsort(sorted, n, sizeof(DocPath *), shape_path_cmp);
	for (int i = 1; i < n && apart; i++)
	{
		CHECK_FOR_INTERRUPTS();
		apart = !path_within(sorted[i - 1], sorted[i]);
	}
	pfree(sorted);
	return apart;
}

/*
 * A projection of one collection's paths as its kept documents can give
 * it (docproject.c): every target a path of object keys (the alias
 * gone), none inside another, nothing renamed, no ID(); NULL otherwise.
 */
DocPath *
select_doc_paths(ArgoStmt *s, int *n)
{
	DocPath    *paths;
	ListCell   *lc;

	if (s->star || s->id_name || s->renames || list_length(s->from) != 1 ||
		argo_is_aggregate(s) || s->targets == NIL)
		return NULL;
	paths = palloc0(sizeof(DocPath) * list_length(s->targets));
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		DocPath    *d = &paths[foreach_current_index(lc)];
		int			skip;

		if (t->path == NULL || t->path->id || t->path->wild || t->path->nsegs <= 0)
			return NULL;
		/* the steps after the alias, if the path starts with it */
		skip = list_length(t->path->steps) - t->path->nsegs;
		d->keys = palloc(sizeof(char *) * t->path->nsegs);
		for (int i = skip; i < list_length(t->path->steps); i++)
		{
			ArgoStep   *st = list_nth(t->path->steps, i);

			if (st->is_index || st->is_wild || st->key == NULL)
				return NULL;
			d->keys[d->nsteps++] = st->key;
		}
	}
	*n = list_length(s->targets);
	return paths_apart(paths, *n) ? paths : NULL;
}
