/*
 * prepqual.c — predicate rewrites made once, after analysis, for every
 * reader of the tree: equalities (inequalities) of one path in an OR (AND)
 * chain become one IN (NOT IN) list.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/hsearch.h"

#include "common/keypath.h"
#include "parse/analyze.h"
#include "parse/expr.h"

/* An equality (OR) or inequality (AND) that an IN list can absorb. */
static bool
groupable(ArgoPred *p, bool is_or)
{
	ArgoPred   *leaf = p->kind == APRED_NOT ? p->left : p;

	/* a filter's leaf is judged whole, on the object */
	if (leaf->path != NULL && leaf->path->filtered)
		return false;
	/* a whole value is not one of an IN list's scalars */
	if (p->kind == APRED_CMP && p->lit->type == ALIT_JSON)
		return false;
	if (is_or)
		return (p->kind == APRED_CMP && p->op == ACMP_EQ) || p->kind == APRED_IN;
	/*
	 * p[*] != a AND p[*] != b is "some value is not a, some not b", not
	 * "no value is either": only one value per object can merge so
	 */
	if (p->kind == APRED_NOT && p->left->kind == APRED_IN)
		return !p->left->path->wild;
	return p->kind == APRED_CMP && p->op == ACMP_NE && !p->path->wild;
}

typedef struct InGroup
{
	const char *key;			/* hash key: the path's source and key */
	ArgoPred   *in;				/* the merged IN, or NULL while single */
	ArgoPred   *first;			/* the first member */
	int			slot;			/* its place in the result */
} InGroup;

/*
 * A chain's terms, with the (in)equalities of each path merged into one
 * IN (OR of p = x) or NOT IN (AND of p != x): one index scan with an
 * array instead of a set operation per term.  The same truth under
 * three-valued logic, as a key has one row per object.
 */
static List *
group_in(ArgoPred *p)
{
	bool		is_or = p->kind == APRED_OR;
	List	   *out = NIL;
	HTAB	   *groups = keystr_hash_create("argo IN groups", sizeof(InGroup),
											CurrentMemoryContext);
	ListCell   *lc;

	foreach(lc, p->args)
	{
		ArgoPred   *a = lfirst(lc);
		ArgoPred   *leaf = a->kind == APRED_NOT ? a->left : a;
		InGroup    *g;
		bool		found;
		char	   *key;

		CHECK_FOR_INTERRUPTS();
		if (!groupable(a, is_or))
		{
			out = lappend(out, a);
			continue;
		}
		/* one path: its key in one FROM item (a.n and b.n of a join are two) */
		key = psprintf("%d:%s", leaf->path->source, leaf->path->keystr);
		g = hash_search(groups, &key, HASH_ENTER, &found);
		if (!found)
		{
			g->in = NULL;
			g->first = a;
			out = lappend(out, a);
			g->slot = list_length(out) - 1;
			continue;
		}
		if (g->in == NULL)
		{
			ArgoPred   *f = g->first->kind == APRED_NOT ? g->first->left : g->first;

			g->in = palloc0(sizeof(ArgoPred));
			g->in->kind = APRED_IN;
			g->in->path = f->path;
			g->in->lits = f->kind == APRED_IN ? list_copy(f->lits) : list_make1(f->lit);
			if (is_or)
				lfirst(list_nth_cell(out, g->slot)) = g->in;
			else
			{
				ArgoPred   *not = palloc0(sizeof(ArgoPred));

				not->kind = APRED_NOT;
				not->left = g->in;
				lfirst(list_nth_cell(out, g->slot)) = not;
			}
		}
		if (leaf->kind == APRED_IN)
			g->in->lits = list_concat(g->in->lits, leaf->lits);
		else
			g->in->lits = lappend(g->in->lits, leaf->lit);
	}
	hash_destroy(groups);
	return out;
}

/*
 * WHERE made ready for every reader of it (SQL, lookups from C, shards):
 * in each AND and OR chain, the (in)equalities of one path merged into
 * one IN or NOT IN, a chain of one term replaced by it.  Bottom up, as
 * PostgreSQL's prepqual.c flattens its own.
 */
ArgoPred *
pred_prepare(ArgoPred *p)
{
	ListCell   *lc;

	check_stack_depth();
	if (p == NULL || (p->kind != APRED_AND && p->kind != APRED_OR))
	{
		if (p != NULL && p->kind == APRED_NOT)
			p->left = pred_prepare(p->left);
		return p;
	}
	foreach(lc, p->args)
		lfirst(lc) = pred_prepare(lfirst(lc));
	p->args = group_in(p);
	return list_length(p->args) == 1 ? linitial(p->args) : p;
}
