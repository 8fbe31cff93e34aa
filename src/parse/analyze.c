/*
 * analyze.c — from parse tree to a checked query.
 *
 * Binds $n parameters (always as values, never as syntax), looks up the
 * collections, flattens paths to keys and rejects what has no meaning:
 * comparisons with null, mixed-type BETWEEN, LIKE on non-strings.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "common/errors.h"
#include "doc/docexpr.h"
#include "common/keypath.h"
#include "common/numbers.h"
#include "store/collection.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/compute.h"
#include "parse/expr.h"
#include "parse/parse.h"

typedef struct AnalyzeState
{
	const char *text;
	Jsonb	  **params;
	int			nparams;
	ArgoStmt   *stmt;
	List	   *aliases;		/* of char *, one per FROM item */
	bool		qualified;		/* paths start with an alias (joins) */
	int			filter_depth;	/* inside this many filters [? …]: paths start at an element */
	int			shardless_location;	/* a construct shards cannot run yet, or -1 */
	const char *shardless;		/* … its name */
	bool		in_aggregate;	/* an aggregate's expression: [*] paths are per element */
	ArgoPath   *each;			/* … the first such path met */
	bool		over;			/* an expression over aggregates: aggregates, no paths */
} AnalyzeState;

/*
 * An error about the statement, pointing into its text: sqlstate, hint
 * (or NULL), then errmsg's format and arguments, kept at the call where
 * translation finds them.
 */
#define semantic_error(as, location, sqlstate, hint, ...) \
	ereport(ERROR, \
			(errcode(sqlstate), \
			 errmsg(__VA_ARGS__), \
			 (hint) != NULL ? errhint("%s", (const char *) (hint)) : 0, \
			 argo_errquery((as)->text, (location))))

static Jsonb *
param_value(AnalyzeState *as, int paramno, int location)
{
	if (paramno < 1 || paramno > as->nparams)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_PARAMETER),
				 errmsg("there is no parameter $%d", paramno < 0 ? 0 : paramno),
				 errdetail("The statement was given %d parameter(s).", as->nparams),
				 argo_errquery(as->text, location)));
	return as->params[paramno - 1];
}

/* A JSON scalar as a literal; false for an object or array. */
static bool
literal_from_scalar(ArgoLiteral *lit, JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			lit->type = ALIT_STRING;
			lit->str = pnstrdup(v->val.string.val, v->val.string.len);
			break;
		case jbvNumeric:
			lit->type = ALIT_NUMBER;
			lit->num = argo_number_from_numeric(v->val.numeric, NULL);
			lit->str = NULL;
			lit->numtext = DatumGetCString(DirectFunctionCall1(numeric_out,
															   NumericGetDatum(v->val.numeric)));
			break;
		case jbvBool:
			lit->type = ALIT_BOOL;
			lit->b = v->val.boolean;
			break;
		case jbvNull:
			lit->type = ALIT_NULL;
			break;
		default:
			return false;
	}
	return true;
}

/*
 * A parameter in a literal's place takes the literal's form; an object
 * or array (a parameter's, or one written inline) is a whole value,
 * which only = and != compare (check_scalar refuses it elsewhere).
 */
static void
bind_literal(AnalyzeState *as, ArgoLiteral *lit)
{
	Jsonb	   *j;
	JsonbValue	v;

	if (lit == NULL)
		return;
	if (lit->type == ALIT_JSON && lit->json == NULL && lit->json_text != NULL)
		lit->json = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(lit->json_text)));
	if (lit->paramno == 0)
		return;
	j = param_value(as, lit->paramno, lit->location);
	lit->user_param = lit->paramno;
	lit->paramno = 0;
	if (!JB_ROOT_IS_SCALAR(j))
	{
		lit->type = ALIT_JSON;
		lit->json = j;
		return;
	}
	JsonbExtractScalar(&j->root, &v);
	literal_from_scalar(lit, &v);
}

/* Where a literal must be a scalar: an object or array is 42804. */
static void
check_scalar(AnalyzeState *as, ArgoLiteral *lit, const char *hint)
{
	if (lit != NULL && lit->type == ALIT_JSON)
		semantic_error(as, lit->location, ERRCODE_DATATYPE_MISMATCH, hint,
					   lit->user_param > 0 ?
					   "a parameter used as a literal here must be a JSON string, number, boolean or null" :
					   "an object or array cannot be compared so");
}

Jsonb *
literal_to_jsonb(ArgoLiteral *lit)
{
	JsonbValue	v;

	if (lit->type == ALIT_JSON)
		return lit->json;
	switch (lit->type)
	{
		case ALIT_STRING:
			v.type = jbvString;
			v.val.string.val = lit->str;
			v.val.string.len = strlen(lit->str);
			break;
		case ALIT_NUMBER:
			/* a stored value keeps its digits (storage keeps the text if need be) */
			v.type = jbvNumeric;
			v.val.numeric = lit->str ?
				DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(lit->str),
													ObjectIdGetDatum(InvalidOid),
													Int32GetDatum(-1))) :
				argo_number_to_numeric(lit->num);
			break;
		case ALIT_BOOL:
			v.type = jbvBool;
			v.val.boolean = lit->b;
			break;
		default:
			v.type = jbvNull;
	}
	return JsonbValueToJsonb(&v);
}

/* The value of an inline JSON text, scalar literal or parameter. */
static void
bind_json(AnalyzeState *as, ArgoJson *j)
{
	if (j->text != NULL)
		j->value = DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
													  CStringGetDatum(j->text)));
	else if (j->lit->paramno != 0)
		j->value = param_value(as, j->lit->paramno, j->lit->location);
	else
		j->value = literal_to_jsonb(j->lit);
}

static int
alias_index(AnalyzeState *as, const char *name)
{
	ListCell   *lc;

	foreach(lc, as->aliases)
	{
		if (strcmp(lfirst(lc), name) == 0)
			return foreach_current_index(lc);
	}
	return -1;
}

/*
 * A path with [*]: its steps as key segments (the dictionary's keys that
 * match them are the path's), and the key of the steps before the first
 * [*], under which all of them lie.
 */
static void
bind_pattern(ArgoPath *path, List *steps)
{
	ListCell   *lc;

	path->nsegs = list_length(steps);
	path->pattern = palloc0(sizeof(KeySeg) * path->nsegs);
	path->first_wild = -1;
	foreach(lc, steps)
	{
		ArgoStep   *s = lfirst(lc);
		KeySeg	   *seg = &path->pattern[foreach_current_index(lc)];

		if (s->is_wild)
		{
			seg->kind = KSEG_WILD;
			if (path->first_wild < 0)
			{
				path->first_wild = foreach_current_index(lc);
				path->prefix = keypath_from_steps(list_copy_head(steps, path->first_wild));
			}
		}
		else if (s->is_index)
		{
			seg->kind = KSEG_INDEX;
			seg->index = s->index;
		}
		else
		{
			seg->kind = KSEG_KEY;
			seg->key = s->key;
			seg->keylen = strlen(s->key);
		}
	}
}

/*
 * Flatten a path to its key.  In a join every path starts with an alias,
 * which picks the FROM item; with one aliased collection a leading alias
 * may be written or not.
 */
static void analyze_filters(AnalyzeState *as, ArgoPath *path);
static void bind_relative_path(AnalyzeState *as, ArgoPath *path);

static void
bind_path(AnalyzeState *as, ArgoPath *path)
{
	ArgoStep   *first;
	int			src;

	/* ID(), and the stand-ins of what is computed (bound where it is analyzed) */
	if (path == NULL || path->id || path->expr != NULL || path->steps == NIL)
		return;
	first = linitial(path->steps);
	if (as->filter_depth > 0)
	{
		bind_relative_path(as, path);
		return;
	}
	if (first->is_self)
		semantic_error(as, path->location, ERRCODE_SYNTAX_ERROR, NULL,
					   "@ stands for an array element only inside a filter [? …]");
	if (path->filtered)
		analyze_filters(as, path);
	src = alias_index(as, first->key);
	if (as->qualified)
	{
		if (src < 0 || list_length(path->steps) < 2)
			semantic_error(as, path->location, ERRCODE_UNDEFINED_TABLE,
						   "In a join, write alias.path.",
						   "path must start with one of the aliases in FROM, not \"%s\"", first->key);
	}
	else if (src < 0 || list_length(path->steps) < 2 ||
			 ((ArgoSource *) linitial(as->stmt->from))->alias == NULL)
		src = -1;
	path->source = Max(src, 0);
	path->nsegs = list_length(path->steps) - (src >= 0 ? 1 : 0);
	path->keystr = keypath_from_steps(src >= 0 ? list_delete_first(list_copy(path->steps)) :
									  path->steps);
	if (path->wild)
		bind_pattern(path, src >= 0 ? list_delete_first(list_copy(path->steps)) : path->steps);
}

/* Aliases default to collection names; a self-join needs real ones. */
static void
bind_aliases(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->from)
	{
		ArgoSource *src = lfirst(lc);
		const char *name = src->alias ? src->alias : src->coll;

		if (alias_index(as, name) >= 0)
			semantic_error(as, src->location, ERRCODE_DUPLICATE_ALIAS,
						   "Give each side of a self-join its own alias: FROM c AS a INNER JOIN c AS b.",
						   "\"%s\" appears twice in FROM", name);
		as->aliases = lappend(as->aliases, (char *) name);
	}
	as->qualified = list_length(s->from) > 1;
}

static void refuse_filter(AnalyzeState *as, ArgoPath *path, const char *where);

/*
 * Where a path must have one value per object (an ORDER BY key, a join
 * condition, what an UPDATE changes), [*], which reaches many, is
 * refused: 0A000, saying so.
 */
static void
refuse_wild(AnalyzeState *as, ArgoPath *path, const char *where)
{
	if (path != NULL && path->filtered)
		refuse_filter(as, path, where);
	if (path != NULL && path->wild)
		semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "A path with [*] reaches every element of an array: it has no single value per object.",
					   "a path with [*] is not supported %s", where);
}

/* What the statement has that a distributed collection cannot run yet: the first. */
static void
not_on_shards(AnalyzeState *as, int location, const char *what)
{
	if (as->shardless != NULL)
		return;
	as->shardless = what;
	as->shardless_location = location;
}

/* ---------- filters [? pred] ---------- */

static void analyze_pred(AnalyzeState *as, ArgoPred *p);

/*
 * A path inside a filter starts at the element: @ is the element itself
 * (@.x is x); no alias.
 */
static void
bind_relative_path(AnalyzeState *as, ArgoPath *path)
{
	if (((ArgoStep *) linitial(path->steps))->is_self)
		path->steps = list_delete_first(list_copy(path->steps));
	if (path->filtered)
		analyze_filters(as, path);
	path->source = 0;
	path->nsegs = list_length(path->steps);
	path->keystr = keypath_from_steps(path->steps);
	if (path->wild)
		bind_pattern(path, path->steps);
}

/* Each filter of a path: its predicate, about one element. */
static void
analyze_filters(AnalyzeState *as, ArgoPath *path)
{
	ListCell   *lc;

	if (as->qualified)
		semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "a filter [? …] or a negative index in a join is not supported");
	not_on_shards(as, path->location, "a filter [? …] or a negative index");
	foreach(lc, path->steps)
	{
		ArgoStep   *step = lfirst(lc);

		if (step->filter == NULL)
			continue;
		as->filter_depth++;
		analyze_pred(as, step->filter);
		as->filter_depth--;
	}
}

/* The first n steps of a path, each filter and negative index a plain [*]. */
static List *
plain_steps(List *steps, int n)
{
	List	   *out = NIL;

	for (int i = 0; i < n; i++)
	{
		ArgoStep   *step = list_nth(steps, i);

		if (step->filter != NULL || (step->is_index && !step->is_wild && step->index < 0))
		{
			ArgoStep   *wild = palloc0(sizeof(ArgoStep));

			wild->is_index = wild->is_wild = true;
			step = wild;
		}
		out = lappend(out, step);
	}
	return out;
}

/* A path of plain steps, bound as a statement's path is. */
static ArgoPath *
plain_path(AnalyzeState *as, ArgoPath *like, List *steps)
{
	ArgoPath   *path = palloc0(sizeof(ArgoPath));
	ListCell   *lc;

	path->steps = steps;
	path->location = like->location;
	foreach(lc, steps)
		path->wild |= ((ArgoStep *) lfirst(lc))->is_wild;
	bind_path(as, path);
	return path;
}

/* A leaf the filtered leaf p implies, on the path q. */
static ArgoPred *
leaf_on(ArgoPred *p, ArgoPath *q)
{
	ArgoPred   *out = palloc(sizeof(ArgoPred));

	*out = *p;
	out->path = q;
	out->filter_cands = NULL;
	out->filter_array = NULL;
	return out;
}

/* A leaf that compares scalars, or tests presence, on a path without a filter. */
static bool
plain_scalar_leaf(ArgoPred *p)
{
	ListCell   *lc;

	if (p->path == NULL || p->path->filtered)
		return false;
	if (p->kind == APRED_CMP || p->kind == APRED_LIKE || p->kind == APRED_BETWEEN)
		return p->lit->type != ALIT_JSON;
	if (p->kind == APRED_IN)
	{
		foreach(lc, p->lits)
			if (((ArgoLiteral *) lfirst(lc))->type == ALIT_JSON)
				return false;
		return true;
	}
	return p->kind == APRED_EXISTS || p->kind == APRED_ISNULL || p->kind == APRED_ISNOTNULL;
}

/*
 * The candidate terms worth an index scan: the equalities where there
 * are some.  The document check applies every condition anyway, and a
 * range over a common key (qty >= 5 of every order line) would read far
 * more rows than it removes: NoBench-style orders at 100k, elem-match
 * 16 ms with both, against jsonb's 0.7 (2026-11-28).
 */
static List *
selective_terms(List *terms)
{
	List	   *eq = NIL;
	ListCell   *lc;

	foreach(lc, terms)
	{
		ArgoPred   *t = lfirst(lc);

		if ((t->kind == APRED_CMP && t->op == ACMP_EQ) || t->kind == APRED_IN)
			eq = lappend(eq, t);
	}
	return eq != NIL ? eq : terms;
}

/*
 * What must hold of an object where the filtered leaf p is TRUE, as
 * [*] leaves the value indexes answer: p itself with its filters plain
 * [*] (it reaches every value the filters keep, and more), and each
 * plain leaf the first filter's predicate ANDs, under the path to that
 * filter (an element the filter keeps passes it).  The rest is checked
 * on the object itself (sql/filter.c).
 */
static void
plan_filtered_leaf(AnalyzeState *as, ArgoPred *p)
{
	List	   *steps = p->path->steps;
	List	   *args;
	int			first_filter = -1;
	int			first_wild = -1;
	ArgoPred   *f;
	ListCell   *lc;

	foreach(lc, steps)
	{
		ArgoStep   *step = lfirst(lc);

		if ((step->is_wild || (step->is_index && step->index < 0)) && first_wild < 0)
			first_wild = foreach_current_index(lc);
		if (step->filter != NULL && first_filter < 0)
			first_filter = foreach_current_index(lc);
	}
	/* a negative index alone has no conditions of its own */
	f = first_filter >= 0 ? ((ArgoStep *) list_nth(steps, first_filter))->filter : NULL;
	args = NIL;
	foreach(lc, f == NULL ? NIL : f->kind == APRED_AND ? f->args : list_make1(f))
	{
		ArgoPred   *term = lfirst(lc);

		if (plain_scalar_leaf(term))
			args = lappend(args, leaf_on(term, plain_path(as, p->path,
														  list_concat(plain_steps(steps, first_filter + 1),
																	  term->path->steps))));
	}
	/*
	 * EXISTS a[? …] is implied by any of those (each needs a value under
	 * a[*]), and as a[*] it would read every row of the array's keys
	 */
	if (!(p->kind == APRED_EXISTS && first_filter >= 0 && first_filter == list_length(steps) - 1 &&
		  args != NIL))
	{
		ArgoPred   *wide = leaf_on(p, plain_path(as, p->path, plain_steps(steps, list_length(steps))));

		/*
		 * lit op ANY a[-1]: where a[*] exists (analysis made every other
		 * ANY a comparison); p @@ q through a filter: where a[*] has the
		 * path — the text of the strings the filter keeps is not that of
		 * all (a phrase, an excluded word), so it is no candidate test
		 */
		if (wide->kind == APRED_ANY || wide->kind == APRED_TEXT)
		{
			wide->kind = APRED_EXISTS;
			wide->lit = NULL;
		}
		args = lcons(wide, args);
	}
	args = selective_terms(args);
	if (list_length(args) == 1)
		p->filter_cands = linitial(args);
	else
	{
		p->filter_cands = palloc0(sizeof(ArgoPred));
		p->filter_cands->kind = APRED_AND;
		p->filter_cands->args = args;
	}
	p->filter_array = plain_path(as, p->path, list_copy_head(steps, first_wild));
}

/* The filtered leaves of p (a leaf, or the OR an IN of whole values became). */
static void
plan_filtered_leaves(AnalyzeState *as, ArgoPred *p)
{
	ListCell   *lc;

	if (as->filter_depth > 0)
		return;
	if (p->kind == APRED_OR || p->kind == APRED_AND)
	{
		foreach(lc, p->args)
		{
			ArgoPred   *a = lfirst(lc);

			/* a computed test's candidates are every object (sql/predicate.c) */
			if (a->path != NULL && a->path->filtered && a->filter_cands == NULL &&
				a->kind != APRED_EXPR)
				plan_filtered_leaf(as, a);
		}
	}
	else if (p->path != NULL && p->path->filtered && p->kind != APRED_EXPR)
		plan_filtered_leaf(as, p);
}

/* Whether a path has a filter step (else "filtered" means a negative index). */
static bool
has_filter_step(ArgoPath *path)
{
	ListCell   *lc;

	foreach(lc, path->steps)
		if (((ArgoStep *) lfirst(lc))->filter != NULL)
			return true;
	return false;
}

/* Whether some step counts from the end (a[-1]), outside any filter's predicate. */
static bool
has_negative_step(ArgoPath *path)
{
	ListCell   *lc;

	foreach(lc, path->steps)
	{
		ArgoStep   *step = lfirst(lc);

		if (step->is_index && !step->is_wild && step->index < 0)
			return true;
	}
	return false;
}

/* Filters and negative indices are judged on documents, where that is built; 0A000 elsewhere. */
static void
refuse_filter(AnalyzeState *as, ArgoPath *path, const char *where)
{
	if (path == NULL || !path->filtered)
		return;
	if (has_filter_step(path))
		semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "Filters are read in WHERE, SET, UNSET, the targets, EXCEPT, aggregates, HAVING and GROUP BY.",
					   "a path with a filter [? …] is not supported %s", where);
	semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
				   "Negative indices are read in WHERE, SET, UNSET, the targets, aggregates, HAVING, EXCEPT, ORDER BY and GROUP BY.",
				   "a path with a negative index is not supported %s", where);
}

/* ID(alias) in ON: its FROM item by the alias (42P01 where no item has it). */
static void
bind_join_id(AnalyzeState *as, ArgoPath *id)
{
	const char *alias = ((ArgoStep *) linitial(id->steps))->key;

	id->source = alias_index(as, alias);
	if (id->source < 0)
		semantic_error(as, id->location, ERRCODE_UNDEFINED_TABLE, NULL,
					   "ID(%s): no collection of the FROM list is named %s", alias, alias);
}

/* ON (a.p = b.q): one side is the item being joined, the other earlier. */
static void
bind_join(AnalyzeState *as, ArgoSource *src, int index)
{
	ArgoPath   *l = src->on_left;
	ArgoPath   *r = src->on_right;

	/* one side may go through [*] (reference.md §4): a pair where some element matches */
	if (l->wild && r->wild && !l->filtered && !r->filtered)
		semantic_error(as, l->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "One side may reach many values: ON (o.items[*].sku = p.sku).",
					   "a join condition with [*] on both sides is not supported");
	if (l->filtered || r->filtered)
		refuse_wild(as, l->filtered ? l : r, "in a join condition");
	if (l->wild || r->wild)
		not_on_shards(as, (l->wild ? l : r)->location, "a join condition with [*]");
	if (l->id || r->id)
	{
		/* ID(alias): that item's object ids, numbers (MongoDB's $lookup on _id) */
		if (l->id && r->id)
			semantic_error(as, l->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "a join of two ID() is not supported");
		if (l->wild || r->wild)
			semantic_error(as, l->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "a join of ID() with a path with [*] is not supported");
		not_on_shards(as, (l->id ? l : r)->location, "ID(alias) in a join condition");
		bind_join_id(as, l->id ? l : r);
	}
	bind_path(as, l);
	bind_path(as, r);
	if (l->source == index && r->source < index)
	{
		src->on_left = r;
		src->on_right = l;
	}
	else if (!(r->source == index && l->source < index))
		semantic_error(as, l->location, ERRCODE_INVALID_COLUMN_REFERENCE, NULL,
					   "a join condition must compare the joined collection with an earlier one");
}

static void
check_comparable(AnalyzeState *as, ArgoLiteral *lit)
{
	if (lit->type == ALIT_NULL)
		semantic_error(as, lit->location, ERRCODE_DATATYPE_MISMATCH, "Use IS NULL or IS NOT NULL.",
					   "comparison with null is never true");
}

/* ID() compares with object ids: integers, and only in one collection. */
static void
check_ids(AnalyzeState *as, ArgoPred *p)
{
	List	   *lits = p->lits ? p->lits : list_make1(p->lit);
	ListCell   *lc;

	if (list_length(as->stmt->from) > 1)
		semantic_error(as, ((ArgoLiteral *) linitial(lits))->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   NULL,
					   "ID() is not supported in a join");
	foreach(lc, lits)
	{
		ArgoLiteral *lit = lfirst(lc);

		if (lit->type != ALIT_NUMBER || lit->num != floor(lit->num) ||
			fabs(lit->num) > 9007199254740992.0)
			semantic_error(as, lit->location, ERRCODE_DATATYPE_MISMATCH, NULL,
						   "an object id is an integer");
	}
}

/* IN $n: the JSON array's elements become the list's literals. */
static void
expand_list_param(AnalyzeState *as, ArgoPred *p)
{
	ArgoLiteral *param = p->list_param;
	Jsonb	   *j = param_value(as, param->paramno, param->location);
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_ARRAY(j) || JB_ROOT_IS_SCALAR(j))
		semantic_error(as, param->location, ERRCODE_DATATYPE_MISMATCH, NULL,
					   "IN $n needs a JSON array of values");
	p->lits = NIL;
	it = JsonbIteratorInit(&j->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		ArgoLiteral *lit;

		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		lit = palloc0(sizeof(ArgoLiteral));
		lit->location = param->location;
		lit->user_param = param->paramno;
		if (!literal_from_scalar(lit, &v))
		{
			/* an object or array in the list: a whole value */
			lit->type = ALIT_JSON;
			lit->json = JsonbValueToJsonb(&v);
		}
		p->lits = lappend(p->lits, lit);
	}
	p->list_param = NULL;
}

/*
 * p IN (…) with objects or arrays among its values: the scalars stay an
 * IN list (one index scan per type), each whole value its own p = v,
 * under one OR.  The node becomes that OR, in place.
 */
static ArgoPred *pred_leaf(ArgoPredKind kind, ArgoPath *path, ArgoCmpOp op,
						   ArgoLiteral *lit);

static void
split_whole_values(ArgoPred *p)
{
	List	   *scalars = NIL;
	List	   *args = NIL;
	ListCell   *lc;

	foreach(lc, p->lits)
	{
		ArgoLiteral *lit = lfirst(lc);

		if (lit->type != ALIT_JSON)
		{
			scalars = lappend(scalars, lit);
			continue;
		}
		args = lappend(args, pred_leaf(APRED_CMP, p->path, ACMP_EQ, lit));
	}
	if (args == NIL)
		return;
	if (scalars != NIL)
	{
		ArgoPred   *in = pred_leaf(APRED_IN, p->path, ACMP_EQ, NULL);

		in->lits = scalars;
		args = lcons(in, args);
	}
	if (list_length(args) == 1)
	{
		*p = *(ArgoPred *) linitial(args);
		return;
	}
	p->kind = APRED_OR;
	p->path = NULL;
	p->lits = NIL;
	p->args = args;
}

static ArgoPred *
pred_leaf(ArgoPredKind kind, ArgoPath *path, ArgoCmpOp op, ArgoLiteral *lit)
{
	ArgoPred   *p = palloc0(sizeof(ArgoPred));

	p->kind = kind;
	p->path = path;
	p->op = op;
	p->lit = lit;
	return p;
}

/*
 * INSERT … OBJECTS [...]: the array's elements are the objects (each
 * checked when inserted, by its position).
 */
static void
expand_objects(AnalyzeState *as, ArgoStmt *s)
{
	ArgoJson   *arr = linitial(s->objects);
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	List	   *objects = NIL;

	if (!JB_ROOT_IS_ARRAY(arr->value) || JB_ROOT_IS_SCALAR(arr->value))
		semantic_error(as, arr->location, ERRCODE_INVALID_PARAMETER_VALUE,
					   "Insert one object with INSERT INTO c OBJECT {…}.",
					   "OBJECTS needs a JSON array of objects");
	it = JsonbIteratorInit(&arr->value->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		ArgoJson   *j;

		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		j = palloc0(sizeof(ArgoJson));
		j->location = arr->location;
		j->value = JsonbValueToJsonb(&v);
		objects = lappend(objects, j);
	}
	s->objects = objects;
}

/* lit op x is x op' lit */
static ArgoCmpOp
commute_op(ArgoCmpOp op)
{
	static const ArgoCmpOp commuted[] = {ACMP_EQ, ACMP_NE, ACMP_GT, ACMP_GE,
	ACMP_LT, ACMP_LE};

	return commuted[op];
}

/* ---------- expressions (reference.md §9) ---------- */

static void analyze_expr(AnalyzeState *as, ArgoExpr *e);
static void check_group_value(AnalyzeState *as, ArgoPath *path);
static void analyze_agg_expr(AnalyzeState *as, ArgoTarget *t);

/*
 * The path something computed stands behind: no steps, no key, judged on
 * documents as a path through a filter is (a test's, an order's, a
 * group's with its expression).
 */
static ArgoPath *
standin_path(int location, ArgoExpr *expr)
{
	ArgoPath   *p = palloc0(sizeof(ArgoPath));

	p->keystr = "";
	p->prefix = "";
	p->filtered = true;
	p->location = location;
	p->expr = expr;
	return p;
}

/* Where the statement cannot compute yet: in a join, inside a filter, on shards. */
static void
check_expr_place(AnalyzeState *as, int location)
{
	if (as->qualified)
		semantic_error(as, location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "an expression in a join is not supported yet");
	if (as->filter_depth > 0)
		semantic_error(as, location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "an expression inside a filter [? …] is not supported yet");
	not_on_shards(as, location, "an expression");
}

/* CASE's predicates are judged on the document: none that needs an index or a join. */
static void
check_case_pred(AnalyzeState *as, ArgoPred *p, int location)
{
	ListCell   *lc;

	check_stack_depth();
	if (p == NULL)
		return;
	if (p->kind == APRED_ID || p->kind == APRED_TEXT || p->kind == APRED_PART_EXISTS ||
		p->list_param != NULL || p->agg != NULL)
		semantic_error(as, location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "ID(), @@, IN $n and aggregates inside CASE's conditions are not supported yet");
	check_case_pred(as, p->left, location);
	foreach(lc, p->args)
		check_case_pred(as, lfirst(lc), location);
}

/*
 * A path with [*] in an aggregate's expression means each element of its
 * array (the per-element rule): one [*], no filter, and every such path
 * of the expression through the same array.
 */
static void
check_element_path(AnalyzeState *as, ArgoPath *path)
{
	int			wilds = 0;
	ListCell   *lc;

	foreach(lc, path->steps)
		wilds += ((ArgoStep *) lfirst(lc))->is_wild;
	if (path->filtered || wilds > 1)
		semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "a path with a filter, a negative index or two [*] in an aggregate's expression is not supported yet");
	if (as->each == NULL)
		as->each = path;
	else if (as->each->first_wild != path->first_wild || strcmp(as->each->prefix, path->prefix) != 0)
		semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   psprintf("\"%s\" and \"%s\" pass through different arrays.", as->each->keystr, path->keystr),
					   "an expression through two arrays is not supported");
}

static void
analyze_exprs(AnalyzeState *as, List *exprs)
{
	ListCell   *lc;

	foreach(lc, exprs)
		analyze_expr(as, lfirst(lc));
}

static void
analyze_expr(AnalyzeState *as, ArgoExpr *e)
{
	ListCell   *lc;

	check_stack_depth();
	if (e == NULL)
		return;
	switch (e->kind)
	{
		case AX_LIT:
			bind_literal(as, e->lit);
			break;
		case AX_AGG:
			if (!as->over)
				semantic_error(as, e->location, ERRCODE_GROUPING_ERROR, NULL,
							   "an aggregate is not allowed here");
			break;
		case AX_PATH:
			if (as->over)
			{
				check_group_value(as, e->path);
				break;
			}
			if (e->path->id)
				semantic_error(as, e->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
							   "ID() in an expression is not supported yet");
			bind_path(as, e->path);
			if (e->path->wild && as->in_aggregate)
				check_element_path(as, e->path);
			else if (e->path->wild)
				semantic_error(as, e->location, ERRCODE_FEATURE_NOT_SUPPORTED,
							   "A path with [*] or a filter reaches many values; an expression takes one.",
							   "a path with [*] or a filter [? …] in an expression is not supported");
			break;
		case AX_FUNC:
			if (!doc_function_known(e->func))
				semantic_error(as, e->location, ERRCODE_UNDEFINED_FUNCTION,
							   "reference.md §9.1 lists the functions of Argo/SQL.",
							   "function %s() does not exist", e->func);
			if (!doc_function_arity(e->func, list_length(e->args)))
				semantic_error(as, e->location, ERRCODE_UNDEFINED_FUNCTION, NULL,
							   "function %s() does not take %d argument(s)", e->func,
							   list_length(e->args));
			analyze_exprs(as, e->args);
			break;
		case AX_CASE:
			foreach(lc, e->whens)
			{
				analyze_pred(as, lfirst(lc));
				check_case_pred(as, lfirst(lc), e->location);
			}
			analyze_exprs(as, e->thens);
			analyze_expr(as, e->els);
			break;
		default:
			analyze_exprs(as, e->args);
	}
}

/*
 * A test with a computed side: its expressions bound, and a stand-in
 * path that marks it judged on documents (as a leaf through a filter is:
 * no index finds its objects, sql/predicate.c).
 */
static void
analyze_expr_leaf(AnalyzeState *as, ArgoPred *p)
{
	ListCell   *lc;

	check_expr_place(as, p->x->location);
	/* paths with [*]: each element of their one array, the test existential (§9.4) */
	as->in_aggregate = true;
	as->each = NULL;
	analyze_expr(as, p->x);
	analyze_expr(as, p->y);
	analyze_expr(as, p->z);
	analyze_exprs(as, p->ys);
	as->in_aggregate = false;
	p->path = standin_path(p->x->location, NULL);
	if (as->each == NULL)
		return;
	foreach(lc, as->each->steps)
		if (((ArgoStep *) lfirst(lc))->is_wild)
		{
			p->path->steps = list_copy_head(as->each->steps, foreach_current_index(lc));
			break;
		}
}

static void
analyze_pred(AnalyzeState *as, ArgoPred *p)
{
	ListCell   *lc;

	check_stack_depth();
	if (p == NULL)
		return;
	if (p->kind == APRED_EXPR)
	{
		analyze_expr_leaf(as, p);
		return;
	}
	if (as->filter_depth > 0 && p->kind == APRED_ID)
		semantic_error(as, p->lit ? p->lit->location : 0, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "A filter's paths start at the array element it tests.",
					   "ID() inside a filter [? …] is not supported");
	if (p->list_param)
		expand_list_param(as, p);
	bind_literal(as, p->lit);
	/* lit op ANY p[*]… (or a whole value = ANY p): p[*]…[*] op' lit */
	if (p->kind == APRED_ANY && (p->path->wild || (p->lit && p->lit->type == ALIT_JSON)))
	{
		ArgoStep   *wild = palloc0(sizeof(ArgoStep));

		wild->is_index = wild->is_wild = true;
		p->path->steps = lappend(p->path->steps, wild);
		p->path->wild = true;
		p->kind = APRED_CMP;
		p->op = commute_op(p->op);
	}
	/* EXISTS alias, in a join: whether that part has an object (LEFT JOIN) */
	if (p->kind == APRED_EXISTS && as->qualified && list_length(p->path->steps) == 1 &&
		!((ArgoStep *) linitial(p->path->steps))->is_index &&
		alias_index(as, ((ArgoStep *) linitial(p->path->steps))->key) >= 0)
	{
		p->kind = APRED_PART_EXISTS;
		p->part = alias_index(as, ((ArgoStep *) linitial(p->path->steps))->key);
		p->path = NULL;
		return;
	}
	analyze_pred(as, p->left);
	foreach(lc, p->args)
		analyze_pred(as, lfirst(lc));
	foreach(lc, p->lits)
	{
		CHECK_FOR_INTERRUPTS();
		bind_literal(as, lfirst(lc));
		check_comparable(as, lfirst(lc));
	}
	bind_path(as, p->path);
	bind_literal(as, p->lit2);
	switch (p->kind)
	{
		case APRED_CMP:
		case APRED_ANY:
			check_comparable(as, p->lit);
			if (p->lit->type == ALIT_JSON && p->op != ACMP_EQ && p->op != ACMP_NE)
				semantic_error(as, p->lit->location, ERRCODE_DATATYPE_MISMATCH,
							   "Whole values are equal or not; they have no order.",
							   "objects and arrays are compared with = and != only");
			break;
		case APRED_IN:
			split_whole_values(p);
			break;
		case APRED_TEXT:
			check_scalar(as, p->lit, NULL);
			if (p->lit->type != ALIT_STRING)
				semantic_error(as, p->lit->location, ERRCODE_DATATYPE_MISMATCH,
							   "Words, \"a phrase\", -excluded, or: p @@ 'pen ink'.",
							   "@@ needs a string query");
			if (as->filter_depth > 0 || as->qualified)
				semantic_error(as, p->path->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
							   "@@ %s is not supported", as->qualified ? "in a join" : "inside a filter [? …]");
			not_on_shards(as, p->path->location, "text search (@@)");
			break;
		case APRED_LIKE:
			check_scalar(as, p->lit, NULL);
			if (p->lit->type != ALIT_STRING)
				semantic_error(as, p->lit->location, ERRCODE_DATATYPE_MISMATCH, NULL,
							   p->like == ALIKE_LIKE || p->like == ALIKE_ILIKE ?
							   "LIKE needs a string pattern" : "~ needs a string pattern");
			/* a bad regular expression is 2201B now, whatever the rows */
			if (p->like == ALIKE_REGEX || p->like == ALIKE_IREGEX)
				(void) DirectFunctionCall2Coll(p->like == ALIKE_REGEX ? textregexeq : texticregexeq,
											   C_COLLATION_OID, CStringGetTextDatum(""),
											   CStringGetTextDatum(p->lit->str));
			break;
		case APRED_BETWEEN:
			check_scalar(as, p->lit, "BETWEEN needs two scalars of one type.");
			check_scalar(as, p->lit2, "BETWEEN needs two scalars of one type.");
			check_comparable(as, p->lit);
			check_comparable(as, p->lit2);
			if (p->lit->type != p->lit2->type)
				semantic_error(as, p->lit2->location, ERRCODE_DATATYPE_MISMATCH,
							   "Both bounds are numbers, both strings or both booleans.",
							   "BETWEEN bounds must be of the same type");
			break;
		case APRED_ID:
			check_ids(as, p);
			break;
		default:
			break;
	}
	plan_filtered_leaves(as, p);
}

static int64
row_count(AnalyzeState *as, ArgoLiteral *lit, int sqlstate, const char *what)
{
	bind_literal(as, lit);
	if (lit->type != ALIT_NUMBER || lit->num < 0 || lit->num != floor(lit->num) ||
		lit->num > (double) PG_INT64_MAX / 2)
		semantic_error(as, lit->location, sqlstate, NULL,
					   "%s must be a non-negative integer", what);
	return (int64) lit->num;
}

static bool
same_path(ArgoPath *a, ArgoPath *b)
{
	return a->source == b->source && strcmp(a->keystr, b->keystr) == 0;
}

static const char *
agg_name(ArgoAggKind agg)
{
	static const char *const names[] = {NULL, "count", "count", "sum", "avg",
	"min", "max", "count", "count", "array_agg", "first", "last"};

	return names[agg];
}

/* The group path equal to path, or NULL. */
static ArgoPath *
group_path(ArgoStmt *s, ArgoPath *path)
{
	ListCell   *lc;

	foreach(lc, s->group_by)
		if (same_path(lfirst(lc), path))
			return lfirst(lc);
	return NULL;
}

/* The aggregate target whose output name a one-key path is, or NULL. */
static ArgoTarget *
named_aggregate(ArgoStmt *s, ArgoPath *path)
{
	ArgoStep   *first = path->steps != NIL ? linitial(path->steps) : NULL;
	ListCell   *lc;

	if (first == NULL || list_length(path->steps) != 1 || first->is_index)
		return NULL;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg != AAGG_NONE && !t->hidden && strcmp(t->alias, first->key) == 0)
			return t;
	}
	return NULL;
}

/*
 * A GROUP BY or ORDER BY path that is a path target's output name (AS)
 * stands for that target's path (SELECT city AS c … GROUP BY c ORDER
 * BY c): a copy of it, bound as any path, at the name's place.
 */
static ArgoPath *
output_name_path(ArgoStmt *s, ArgoPath *path)
{
	ArgoStep   *first = path->steps != NIL ? linitial(path->steps) : NULL;
	ListCell   *lc;

	if (first == NULL || path->expr != NULL || path->id || list_length(path->steps) != 1 || first->is_index)
		return path;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		ArgoPath   *copy;

		if (t->agg != AAGG_NONE || t->path == NULL || t->alias == NULL ||
			strcmp(t->alias, first->key) != 0)
			continue;
		copy = palloc(sizeof(ArgoPath));
		*copy = *t->path;
		copy->steps = list_copy(t->path->steps);
		copy->location = path->location;
		return copy;
	}
	return path;
}

/* A renamed group path comes back under its target's output name. */
static void
name_group_paths(ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		ArgoPath   *g;

		if (t->agg == AAGG_NONE && t->alias != NULL && (g = group_path(s, t->path)) != NULL)
			g->out_name = t->alias;
	}
}

/*
 * One result object cannot hold two values under one name: COUNT(*),
 * COUNT(kids) would both be "count", and one would silently be lost.
 * Group values come out under their output names, or their paths' first
 * keys (several may share one: GROUP BY address.city, address.zip).
 */
static void
check_output_names(AnalyzeState *as, ArgoStmt *s)
{
	List	   *groups = NIL;
	List	   *names = NIL;
	ListCell   *lc;

	foreach(lc, s->group_by)
	{
		ArgoPath   *g = lfirst(lc);
		ArgoStep   *first = g->steps != NIL ? linitial(g->steps) : NULL;

		if (g->out_name != NULL)
			groups = lappend(groups, g->out_name);
		else if (first != NULL && !first->is_index)
			groups = lappend(groups, first->key);
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		ListCell   *n;

		if (t->agg == AAGG_NONE || t->hidden)
			continue;
		foreach(n, list_concat_copy(groups, names))
			if (strcmp(lfirst(n), t->alias) == 0)
				semantic_error(as, t->location, ERRCODE_DUPLICATE_ALIAS,
							   "Give each aggregate its own name with AS.",
							   "output name \"%s\" is used twice", t->alias);
		names = lappend(names, t->alias);
	}
	foreach(lc, s->over)
	{
		ArgoTarget *t = lfirst(lc);
		ListCell   *n;

		foreach(n, list_concat_copy(groups, names))
			if (strcmp(lfirst(n), t->alias) == 0)
				semantic_error(as, t->location, ERRCODE_DUPLICATE_ALIAS,
							   "Give each target its own name with AS.",
							   "output name \"%s\" is used twice", t->alias);
		names = lappend(names, t->alias);
	}
}

/*
 * GROUP BY p[*]…: the paths with [*] unwind one array (the one at the
 * first [*] of each, which must be the same), each holding one [*], and
 * not in a join.
 */
static void
check_unwinding(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->group_by)
	{
		ArgoPath   *g = lfirst(lc);
		int			nwild = 0;

		if (!g->wild)
			continue;
		for (int i = 0; i < g->nsegs; i++)
			nwild += g->pattern[i].kind == KSEG_WILD;
		if (nwild > 1)
			semantic_error(as, g->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "GROUP BY unwinds one array: each of its elements is one row.",
						   "a GROUP BY path holds at most one [*]");
		if (list_length(s->from) > 1)
			semantic_error(as, g->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "GROUP BY a path with [*] is not supported in a join");
		if (s->unwind == NULL)
			s->unwind = g;
		else if (strcmp(s->unwind->prefix, g->prefix) != 0 ||
				 s->unwind->first_wild != g->first_wild)
			semantic_error(as, g->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   psprintf("\"%s\" and \"%s\" are paths into different arrays.", s->unwind->keystr, g->keystr),
						   "GROUP BY unwinds one array, not two");
		if (g->filtered)
		{
			/* the units are the elements its filter keeps; other paths into the array read them */
			if (s->unwind->filtered && s->unwind != g)
				semantic_error(as, g->location, ERRCODE_FEATURE_NOT_SUPPORTED,
							   "The other GROUP BY paths into the array read the elements it keeps: write them with [*].",
							   "GROUP BY unwinds through one filter [? …]");
			s->unwind = g;
		}
	}
}

/*
 * Whether a GROUP BY path unwinds the elements a filter keeps
 * (items[? qty > 1].sku: each kept element is a unit): its first [*] is
 * the filter, and no step counts from the end.
 */
static bool
unwinds_through_filter(ArgoPath *path)
{
	ListCell   *lc;

	foreach(lc, path->steps)
	{
		ArgoStep   *step = lfirst(lc);

		if (step->is_wild)
			return step->filter != NULL && !has_negative_step(path);
	}
	return false;
}

/* An aggregate HAVING writes: a target already there, else a hidden one. */
static ArgoTarget *
having_target(AnalyzeState *as, ArgoStmt *s, ArgoTarget *agg)
{
	ListCell   *lc;

	bind_path(as, agg->path);
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg == agg->agg &&
			(t->path == NULL ? agg->path == NULL : agg->path != NULL && same_path(t->path, agg->path)))
			return t;
	}
	agg->hidden = true;
	agg->alias = psprintf("having %d", list_length(s->targets));
	s->targets = lappend(s->targets, agg);
	return agg;
}

/*
 * HAVING: comparisons of aggregates (written again, or by their output
 * names) with literals, under AND, OR and NOT.
 */
static void
analyze_having(AnalyzeState *as, ArgoStmt *s, ArgoPred *p)
{
	ListCell   *lc;

	check_stack_depth();
	if (p->kind == APRED_AND || p->kind == APRED_OR || p->kind == APRED_NOT)
	{
		if (p->left)
			analyze_having(as, s, p->left);
		foreach(lc, p->args)
			analyze_having(as, s, lfirst(lc));
		return;
	}
	if (p->kind != APRED_CMP)
		semantic_error(as, p->path ? p->path->location : (p->lit ? p->lit->location : 0),
					   ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "HAVING compares aggregates with literals (=, !=, <, <=, >, >=)");
	if (p->agg == NULL)
	{
		p->agg = named_aggregate(s, p->path);
		if (p->agg == NULL)
			semantic_error(as, p->path->location, ERRCODE_GROUPING_ERROR,
						   "HAVING compares aggregates: write one (COUNT(*) > 5) or name one by its output name.",
						   "\"%s\" is not an aggregate of the statement", keypath_from_steps(p->path->steps));
		p->path = NULL;
	}
	else
		p->agg = having_target(as, s, p->agg);
	if (argo_value_aggregate(p->agg->agg))
		semantic_error(as, p->agg->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "HAVING compares COUNT, SUM, AVG, MIN and MAX with literals.",
					   "HAVING on ARRAY_AGG, FIRST or LAST is not supported");
	bind_literal(as, p->lit);
	check_scalar(as, p->lit, "HAVING compares aggregates with scalars.");
	check_comparable(as, p->lit);
}

/* Whether some leaf of a HAVING computes (an expression over aggregates). */
static bool
having_computes(ArgoPred *p)
{
	ListCell   *lc;

	check_stack_depth();
	if (p == NULL)
		return false;
	if (p->kind == APRED_EXPR)
		return true;
	if (having_computes(p->left))
		return true;
	foreach(lc, p->args)
		if (having_computes(lfirst(lc)))
			return true;
	return false;
}

/* An aggregate HAVING reads that no target gives: a target under a reserved name. */
static void
having_aggregate(AnalyzeState *as, ArgoStmt *s, ArgoTarget *a)
{
	if (argo_value_aggregate(a->agg))
		semantic_error(as, a->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "HAVING compares COUNT, SUM, AVG, MIN and MAX.",
					   "HAVING on ARRAY_AGG, FIRST or LAST is not supported");
	if (a->expr != NULL)
		analyze_agg_expr(as, a);
	else
		bind_path(as, a->path);
	a->alias = psprintf("\x01having %d", list_length(s->targets) + 1);
	s->targets = lappend(s->targets, a);
}

/* A path HAVING reads on a group's result: an output name, or a GROUP BY path. */
static void
having_name(AnalyzeState *as, ArgoStmt *s, ArgoPath *path)
{
	ListCell   *lc;

	if (list_length(path->steps) == 1 && !((ArgoStep *) linitial(path->steps))->is_index)
		foreach(lc, list_concat_copy(s->targets, s->over))
		{
			ArgoTarget *t = lfirst(lc);

			if ((t->agg != AAGG_NONE || t->expr != NULL) && t->alias != NULL &&
				strcmp(t->alias, ((ArgoStep *) linitial(path->steps))->key) == 0)
				return;
		}
	check_group_value(as, path);
}

static void
having_expr(AnalyzeState *as, ArgoStmt *s, ArgoExpr *e)
{
	ListCell   *lc;

	check_stack_depth();
	if (e == NULL)
		return;
	if (e->kind == AX_AGG)
		having_aggregate(as, s, e->agg);
	else if (e->kind == AX_PATH)
		having_name(as, s, e->path);
	else if (e->kind == AX_LIT)
		bind_literal(as, e->lit);
	else if (e->kind == AX_FUNC && !doc_function_arity(e->func, list_length(e->args)))
		analyze_expr(as, e);	/* its 42883 */
	else if (e->kind == AX_CASE)
		semantic_error(as, e->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "CASE in HAVING is not supported yet");
	foreach(lc, e->args)
		having_expr(as, s, lfirst(lc));
}

static ArgoExpr *
leaf_operand(ArgoExprKind kind, int location)
{
	ArgoExpr   *e = palloc0(sizeof(ArgoExpr));

	e->kind = kind;
	e->location = location;
	return e;
}

/*
 * A HAVING that computes (HAVING SUM(price * qty) / COUNT(*) > 10) is
 * judged on each group's result in C (exec/aggregate.c), every leaf a
 * computed test: an aggregate written again is a target under a reserved
 * name, an output name or a GROUP BY path read from the result.  The SQL
 * has no HAVING then, and LIMIT and OFFSET are counted in C.
 */
static void
having_on_groups(AnalyzeState *as, ArgoStmt *s, ArgoPred *p)
{
	ListCell   *lc;

	check_stack_depth();
	if (p->kind == APRED_AND || p->kind == APRED_OR || p->kind == APRED_NOT)
	{
		if (p->left)
			having_on_groups(as, s, p->left);
		foreach(lc, p->args)
			having_on_groups(as, s, lfirst(lc));
		return;
	}
	if (p->kind == APRED_CMP)
	{
		ArgoExpr   *x = leaf_operand(p->agg ? AX_AGG : AX_PATH, p->lit ? p->lit->location : 0);
		ArgoExpr   *y = leaf_operand(AX_LIT, p->lit ? p->lit->location : 0);

		x->agg = p->agg;
		x->path = p->path;
		y->lit = p->lit;
		p->expr_test = APRED_CMP;
		p->x = x;
		p->y = y;
		p->kind = APRED_EXPR;
		p->agg = NULL;
		p->path = NULL;
	}
	if (p->kind != APRED_EXPR)
		semantic_error(as, p->path ? p->path->location : 0, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "HAVING compares aggregates (=, !=, <, <=, >, >=, BETWEEN, IN, IS NULL)");
	check_expr_place(as, p->x->location);
	having_expr(as, s, p->x);
	having_expr(as, s, p->y);
	having_expr(as, s, p->z);
	foreach(lc, p->ys)
		having_expr(as, s, lfirst(lc));
}

/* WHERE has no aggregate to compare. */
static void
refuse_aggregates(AnalyzeState *as, ArgoPred *p)
{
	ListCell   *lc;

	if (p == NULL)
		return;
	check_stack_depth();
	if (p->agg != NULL)
		semantic_error(as, p->agg->location, ERRCODE_GROUPING_ERROR,
					   "Compare aggregates in HAVING.",
					   "aggregates are not allowed in WHERE");
	refuse_aggregates(as, p->left);
	foreach(lc, p->args)
		refuse_aggregates(as, lfirst(lc));
}

/*
 * With aggregates or GROUP BY, every other target is a group path, and
 * ORDER BY names group paths or aggregates' output names (each group has
 * one value there).
 */
static void
check_grouping(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	if (!argo_is_aggregate(s) && s->having == NULL)
		return;
	check_unwinding(as, s);
	name_group_paths(s);
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg == AAGG_NONE && group_path(s, t->path) == NULL)
			semantic_error(as, t->location, ERRCODE_GROUPING_ERROR, NULL,
						   "a path beside aggregates must be a GROUP BY path");
		if (t->agg != AAGG_NONE && t->alias == NULL)
			t->alias = (char *) agg_name(t->agg);
	}
	check_output_names(as, s);
	if (s->having && having_computes(s->having))
	{
		having_on_groups(as, s, s->having);
		s->having_groups = s->having;
		s->having = NULL;
	}
	else if (s->having)
		analyze_having(as, s, s->having);
	foreach(lc, s->order_by)
	{
		ArgoOrder  *o = lfirst(lc);

		if (group_path(s, o->path) != NULL)
			continue;
		o->agg = named_aggregate(s, o->path);
		if (o->agg == NULL)
			semantic_error(as, o->path->location, ERRCODE_DATATYPE_MISMATCH, NULL,
						   "ORDER BY of an aggregate query names GROUP BY paths or aggregates' output names");
		if (argo_value_aggregate(o->agg->agg))
			semantic_error(as, o->path->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "ORDER BY of ARRAY_AGG, FIRST or LAST is not supported");
	}
	s->star = false;
}

/* ID() has no meaning in a join (whose objects are several). */
static void
refuse_id_in_join(AnalyzeState *as, ArgoStmt *s, ArgoPath *path)
{
	if (path != NULL && path->id && list_length(s->from) > 1)
		semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "ID() is not supported in a join");
}

/*
 * A result's keys: a renamed target's name (ID()'s is "_id"), or an
 * unnamed path's first key, where paths nest (address.city and
 * address.zip share "address").  A name given to one target may not be
 * another's: 42712.  With *, only ID() may be added.
 */
static void
check_projection(AnalyzeState *as, ArgoStmt *s)
{
	List	   *named = NIL;	/* names of renamed targets and ID() */
	List	   *nested = NIL;	/* first keys of unnamed paths */
	ListCell   *lc;

	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		char	   *name;
		ListCell   *n;

		if (t->agg != AAGG_NONE)
			continue;
		if (s->star && !t->path->id)
			semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "* is the whole object already; only ID() may be added to it.",
						   "SELECT * with other paths is not supported");
		if (t->path->id)
		{
			if (s->id_name != NULL)
				semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
							   "ID() is a target once");
			s->id_name = t->alias ? t->alias : "_id";
		}
		if (t->alias == NULL && !t->path->id)
		{
			ArgoStep   *first = linitial(t->path->steps);

			foreach(n, named)
				if (strcmp(lfirst(n), first->key) == 0)
					semantic_error(as, t->location, ERRCODE_DUPLICATE_ALIAS,
								   "Give each target its own name with AS.",
								   "output name \"%s\" is used twice", first->key);
			nested = lappend(nested, first->key);
			continue;
		}
		name = t->path->id ? s->id_name : t->alias;
		s->renames |= !t->path->id;
		if (!t->path->id && list_length(s->from) > 1)
			semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "A join's result holds each part under its alias: SELECT a.name, b.name.",
						   "AS on a path of a join is not supported");
		foreach(n, list_concat_copy(named, nested))
			if (strcmp(lfirst(n), name) == 0)
				semantic_error(as, t->location, ERRCODE_DUPLICATE_ALIAS,
							   "Give each target its own name with AS.",
							   "output name \"%s\" is used twice", name);
		named = lappend(named, name);
	}
	/* only the ids: no object need be rebuilt */
	s->select_ids = !s->star && list_length(s->targets) == 1 &&
		((ArgoTarget *) linitial(s->targets))->agg == AAGG_NONE &&
		((ArgoTarget *) linitial(s->targets))->path->id;
}

/* SELECT * EXCEPT (p, …): paths of one collection's whole objects. */
static void
check_except(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	if (s->except == NIL)
		return;
	if (!s->star || argo_is_aggregate(s))
		semantic_error(as, s->except_location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "SELECT * EXCEPT (p, …) gives each object but those paths; a projection names the paths it wants.",
					   "EXCEPT without SELECT * is not supported");
	if (list_length(s->from) > 1)
		semantic_error(as, s->except_location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "EXCEPT in a join is not supported");
	foreach(lc, s->except)
	{
		ArgoPath   *path = lfirst(lc);

		if (path->id)
			semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "Leave ID() out of the targets instead.",
						   "EXCEPT (ID()) is not supported");
		bind_path(as, path);
	}
}

/* ARRAY_AGG, FIRST, LAST: the whole value at a plain path of one collection. */
bool
argo_value_aggregate(ArgoAggKind agg)
{
	return agg == AAGG_ARRAY || agg == AAGG_FIRST || agg == AAGG_LAST;
}

/* Whether a GROUP BY path has [*]: the statement unwinds an array. */
static bool
groups_by_elements(ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->group_by)
		if (((ArgoPath *) lfirst(lc))->wild)
			return true;
	return false;
}

static void
check_value_aggregates(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		const char *name = t->agg == AAGG_ARRAY ? "ARRAY_AGG" : t->agg == AAGG_FIRST ? "FIRST" : "LAST";

		if (!argo_value_aggregate(t->agg))
			continue;
		not_on_shards(as, t->location, name);
		if (list_length(s->from) > 1)
			semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "%s in a join is not supported", name);
		/* ARRAY_AGG of a [*] path adds each value it reaches (not where GROUP BY unwinds) */
		if ((t->path->wild || (t->expr != NULL && t->path->steps != NIL)) &&
			(t->agg != AAGG_ARRAY || groups_by_elements(s)))
			semantic_error(as, t->path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   t->agg == AAGG_ARRAY ? "Not in a statement that unwinds an array (GROUP BY p[*])." :
						   "It takes the value at one path of each object.",
						   "%s of a path with [*] is not supported", name);
		if (t->order == NULL)
			continue;
		bind_path(as, t->order->path);
		if (t->order->path->wild || t->order->path->filtered)
			semantic_error(as, t->order->path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "Without ORDER BY, a group's objects come in id order.",
						   "%s … ORDER BY a path with [*] is not supported", name);
	}
}

/*
 * Targets through filters or negative indices: the statement reads
 * whole objects (as SELECT *, with ID() if a target), and elempick.c
 * cuts each down to the paths.  Renames are not there yet.
 */
static void
read_whole_for_pick(AnalyzeState *as, ArgoStmt *s)
{
	List	   *pick = NIL;
	List	   *keep = NIL;
	ListCell   *lc;
	bool		any = false;

	foreach(lc, s->targets)
		any |= ((ArgoTarget *) lfirst(lc))->path->filtered;
	if (!any)
		return;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->path->id)
		{
			keep = lappend(keep, t);
			continue;
		}
		if (t->alias != NULL)
			semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "AS beside a path with a filter [? …] or a negative index is not supported");
		pick = lappend(pick, t->path);
	}
	s->pick = pick;
	s->targets = keep;
	s->star = true;
	s->renames = false;
	s->select_ids = false;
}

/* ID() in an aggregate query: in MIN, MAX, ARRAY_AGG, FIRST and LAST. */
static void
check_id_aggregates(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->group_by)
		if (((ArgoPath *) lfirst(lc))->id)
			semantic_error(as, ((ArgoPath *) lfirst(lc))->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "Every object is a group of its own: SELECT ID() instead.",
						   "GROUP BY ID() is not supported");
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->path && t->path->id && t->agg != AAGG_MIN && t->agg != AAGG_MAX &&
			t->agg != AAGG_NONE && !argo_value_aggregate(t->agg))
			semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "an aggregate of ID() is MIN, MAX, ARRAY_AGG, FIRST or LAST (or COUNT(*))");
	}
}

/* Whether a one-key path names a computed target (ORDER BY total). */
static ArgoTarget *
computed_name(ArgoStmt *s, ArgoPath *path)
{
	ArgoStep   *first = path->steps != NIL ? linitial(path->steps) : NULL;
	ListCell   *lc;

	if (first == NULL || path->id || list_length(path->steps) != 1 || first->is_index)
		return NULL;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->expr != NULL && t->agg == AAGG_NONE && strcmp(t->alias, first->key) == 0)
			return t;
	}
	return NULL;
}

/*
 * An aggregate of an expression: computed on each unit's document
 * (sql/aggsql.c); its stand-in path holds the steps to the array its
 * [*] paths pass through, whose elements each give a value.
 */
static void
analyze_agg_expr(AnalyzeState *as, ArgoTarget *t)
{
	ArgoPath   *each;
	ListCell   *lc;

	check_expr_place(as, t->expr->location);
	as->in_aggregate = true;
	as->each = NULL;
	analyze_expr(as, t->expr);
	as->in_aggregate = false;
	each = as->each;
	if (each == NULL)
		return;
	foreach(lc, each->steps)
		if (((ArgoStep *) lfirst(lc))->is_wild)
		{
			t->path->steps = list_copy_head(each->steps, foreach_current_index(lc));
			break;
		}
	t->path->prefix = each->prefix;
	t->path->first_wild = each->first_wild;
}

/*
 * ORDER BY an expression: each object's sort key computed from its
 * document (doc/sortkey.c), as a[-1]'s is.
 */
static void
analyze_order_expr(AnalyzeState *as, ArgoStmt *s, ArgoOrder *o)
{
	check_expr_place(as, o->expr->location);
	if (argo_is_aggregate(s))
		semantic_error(as, o->expr->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "ORDER BY an expression in an aggregate query is not supported yet");
	analyze_expr(as, o->expr);
}

/* A name once among a result's keys (42712), as check_projection has it. */
static List *
add_output_name(AnalyzeState *as, List *names, const char *name, int location)
{
	ListCell   *lc;

	foreach(lc, names)
		if (strcmp(lfirst(lc), name) == 0)
			semantic_error(as, location, ERRCODE_DUPLICATE_ALIAS,
						   "Give each target its own name with AS.",
						   "output name \"%s\" is used twice", name);
	return lappend(names, (char *) name);
}

/*
 * Targets with an expression: the statement reads whole objects (as
 * SELECT *, with ID() if a target), and exec/compute.c makes each
 * result from its object, every target in order.
 */
static void
read_whole_for_compute(AnalyzeState *as, ArgoStmt *s)
{
	List	   *ids = NIL;
	List	   *named = NIL;
	List	   *nested = NIL;
	ListCell   *lc;
	bool		any = false;

	foreach(lc, s->targets)
		any |= ((ArgoTarget *) lfirst(lc))->expr != NULL && ((ArgoTarget *) lfirst(lc))->agg == AAGG_NONE;
	if (!any)
		return;
	/* ORDER BY a target's name: its expression or path, before the targets are set aside */
	foreach(lc, s->order_by)
	{
		ArgoOrder  *o = lfirst(lc);
		ArgoTarget *t = o->expr == NULL ? computed_name(s, o->path) : NULL;

		if (t != NULL)
		{
			o->expr = t->expr;
			o->path = standin_path(o->path->location, NULL);
		}
		else if (o->expr == NULL)
			o->path = output_name_path(s, o->path);
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->expr == NULL)
			continue;
		check_expr_place(as, t->location);
		if (argo_is_aggregate(s))
			semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "GROUP BY the target's name to group by what it computes.",
						   "a computed target beside aggregates that GROUP BY does not compute is not supported yet");
		if (s->except != NIL)
			semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "a computed target beside EXCEPT is not supported yet");
		analyze_expr(as, t->expr);
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->expr != NULL)
			named = add_output_name(as, list_concat_copy(named, nested), t->alias, t->location);
		else if (t->path->id)
		{
			ids = lappend(ids, t);
			named = add_output_name(as, list_concat_copy(named, nested), t->alias ? t->alias : "_id",
									t->location);
		}
		else
		{
			bind_path(as, t->path);
			if (t->path->wild || t->path->filtered)
				semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
							   "a path with [*], a filter or a negative index beside a computed target is not supported yet");
			if (s->star)
				semantic_error(as, t->location, ERRCODE_FEATURE_NOT_SUPPORTED,
							   "* is the whole object already; only ID() and computed targets may be added to it.",
							   "SELECT * with other paths is not supported");
			if (t->alias != NULL)
				named = add_output_name(as, list_concat_copy(named, nested), t->alias, t->location);
			else
			{
				const char *key = ((ArgoStep *) linitial(t->path->steps))->key;

				(void) add_output_name(as, named, key, t->location);
				nested = lappend(nested, (char *) key);
			}
		}
	}
	s->computed = s->targets;
	s->computed_star = s->star;
	s->targets = ids;
	s->star = true;
}

/* The aggregates of an expression, in order (AX_AGG nodes). */
static List *
expr_aggregates(ArgoExpr *e, List *found)
{
	ListCell   *lc;

	check_stack_depth();
	if (e == NULL)
		return found;
	if (e->kind == AX_AGG)
		return lappend(found, e);
	foreach(lc, e->args)
		found = expr_aggregates(lfirst(lc), found);
	foreach(lc, e->thens)
		found = expr_aggregates(lfirst(lc), found);
	return expr_aggregates(e->els, found);
}

/*
 * A path in an expression over aggregates and groups: a GROUP BY path
 * shown under its own path (each group's result holds its value there).
 */
static void
check_group_value(AnalyzeState *as, ArgoPath *path)
{
	ArgoStmt   *s = as->stmt;
	char	   *key = path->id ? "" : keypath_from_steps(path->steps);
	ListCell   *lc;
	bool		group = false,
				renamed = false;

	/* (compared as written: the group paths and targets are bound later) */
	foreach(lc, s->group_by)
	{
		ArgoPath   *g = lfirst(lc);

		group |= g->expr == NULL && !g->id && !g->wild && !path->id &&
			strcmp(keypath_from_steps(g->steps), key) == 0;
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		renamed |= t->agg == AAGG_NONE && t->path != NULL && !t->path->id && t->path->steps != NIL &&
			t->alias != NULL && strcmp(keypath_from_steps(t->path->steps), key) == 0;
	}
	bind_path(as, path);
	if (!group)
		semantic_error(as, path->location, ERRCODE_GROUPING_ERROR,
					   "An expression beside aggregates computes with aggregates, literals and GROUP BY paths.",
					   "a path in an expression beside aggregates must be a GROUP BY path");
	if (renamed)
		semantic_error(as, path->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
					   "a GROUP BY path renamed by a target in an expression beside aggregates is not supported yet");
}

/* Whether some target aggregates (the statement is an aggregate query). */
static bool
aggregates_any(ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg != AAGG_NONE || (t->expr != NULL && expr_aggregates(t->expr, NIL) != NIL))
			return true;
	}
	return s->group_by != NIL;
}

/*
 * Targets computed over aggregates (SUM(qty) / COUNT(*) AS mean): each
 * aggregate inside becomes a target of its own under a reserved name,
 * which the SQL computes as any aggregate; the expression moves to
 * s->over, computed on each group's result and the reserved keys taken
 * out (exec/aggregate.c).  Not yet named by ORDER BY or HAVING.
 */
static void
split_over_targets(AnalyzeState *as, ArgoStmt *s)
{
	List	   *targets = NIL;
	ListCell   *lc,
			   *ac;

	bool		aggregate = aggregates_any(s);

	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		List	   *aggs = t->agg == AAGG_NONE && t->expr != NULL ? expr_aggregates(t->expr, NIL) : NIL;

		/* beside aggregates, an expression of group values alone is computed so too */
		if (aggs == NIL && !(aggregate && t->agg == AAGG_NONE && t->expr != NULL))
		{
			targets = lappend(targets, t);
			continue;
		}
		check_expr_place(as, t->location);
		as->over = true;
		analyze_expr(as, t->expr);
		as->over = false;
		foreach(ac, aggs)
		{
			ArgoTarget *a = ((ArgoExpr *) lfirst(ac))->agg;

			a->alias = psprintf("\x01over %d", list_length(targets) + 1);
			targets = lappend(targets, a);
		}
		s->over = lappend(s->over, t);
	}
	s->targets = targets;
	foreach(lc, s->order_by)
		foreach(ac, s->over)
		{
			ArgoPath   *p = ((ArgoOrder *) lfirst(lc))->path;

			if (list_length(p->steps) == 1 && !((ArgoStep *) linitial(p->steps))->is_index &&
				strcmp(((ArgoStep *) linitial(p->steps))->key, ((ArgoTarget *) lfirst(ac))->alias) == 0)
				semantic_error(as, p->location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
							   "ORDER BY an expression over aggregates is not supported yet");
		}
}

/* Whether two expressions are written alike (GROUP BY one that a target computes). */
static bool
same_expr(ArgoExpr *a, ArgoExpr *b)
{
	ListCell   *la,
			   *lb;

	if (a == NULL || b == NULL)
		return a == b;
	if (a->kind != b->kind || a->op != b->op || list_length(a->args) != list_length(b->args) ||
		list_length(a->whens) != list_length(b->whens))
		return false;
	switch (a->kind)
	{
		case AX_LIT:
			return a->lit->type == b->lit->type && a->lit->paramno == b->lit->paramno &&
				a->lit->num == b->lit->num && a->lit->b == b->lit->b &&
				strcmp(a->lit->str ? a->lit->str : "", b->lit->str ? b->lit->str : "") == 0 &&
				strcmp(a->lit->json_text ? a->lit->json_text : "", b->lit->json_text ? b->lit->json_text : "") == 0;
		case AX_PATH:
			return a->path->id == b->path->id && strcmp(keypath_from_steps(a->path->steps),
														keypath_from_steps(b->path->steps)) == 0;
		case AX_CASE:
			/* CASE's predicates are not compared: only the same CASE object is the same */
			return a == b;
		default:
			if (a->kind == AX_FUNC && strcmp(a->func, b->func) != 0)
				return false;
			forboth(la, a->args, lb, b->args)
				if (!same_expr(lfirst(la), lfirst(lb)))
				return false;
			return true;
	}
}

/*
 * GROUP BY an expression (reference.md §9.2), written again or by a
 * computed target's output name: a stand-in path computed on each unit's
 * document (sql/aggsql.c), shown under the target's name — the target
 * then names that group, as a target naming a group path does — or, with
 * no target computing it, not shown.  Each stand-in gets its own key
 * text, so that ORDER BY and the targets find their group.
 */
static void
bind_group_exprs(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->group_by)
	{
		ArgoPath   *g = lfirst(lc);
		ArgoTarget *t = g->expr == NULL ? computed_name(s, g) : NULL;
		ListCell   *tc;

		if (g->expr == NULL && t == NULL)
			continue;
		if (t != NULL)
			g = standin_path(g->location, t->expr);
		else
			foreach(tc, s->targets)
				if (((ArgoTarget *) lfirst(tc))->agg == AAGG_NONE &&
					same_expr(((ArgoTarget *) lfirst(tc))->expr, g->expr))
					t = lfirst(tc);
		check_expr_place(as, g->expr->location);
		analyze_expr(as, g->expr);
		g->keystr = psprintf("(group %d)", foreach_current_index(lc) + 1);
		if (t != NULL)
		{
			g->out_name = t->alias;
			t->path = g;
			t->expr = NULL;
		}
		lfirst(lc) = g;
	}
}

static void
analyze_select(AnalyzeState *as, ArgoStmt *s)
{
	ListCell   *lc;

	bind_group_exprs(as, s);
	split_over_targets(as, s);
	read_whole_for_compute(as, s);

	foreach(lc, s->group_by)
		lfirst(lc) = output_name_path(s, lfirst(lc));
	foreach(lc, s->order_by)
	{
		ArgoOrder  *o = lfirst(lc);

		if (o->expr == NULL)
			o->path = output_name_path(s, o->path);
	}

	foreach(lc, s->from)
	{
		ArgoSource *src = lfirst(lc);

		if (foreach_current_index(lc) > 0)
			bind_join(as, src, foreach_current_index(lc));
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->expr != NULL)
		{
			analyze_agg_expr(as, t);
			continue;
		}
		refuse_id_in_join(as, s, t->path);
		/*
		 * A projection through filters is cut from whole objects, and an
		 * aggregate's values are read from them (from the unit's element
		 * where GROUP BY unwinds the array); a group path shown beside
		 * aggregates has one value per unit: a negative index, or the
		 * filter GROUP BY unwinds through.
		 */
		if (t->agg == AAGG_NONE && s->group_by != NIL && t->path->wild &&
			!unwinds_through_filter(t->path))
			refuse_filter(as, t->path, "in an aggregate query");
		bind_path(as, t->path);
	}
	foreach(lc, s->group_by)
	{
		ArgoPath   *g = lfirst(lc);

		if (g->wild && g->filtered && !unwinds_through_filter(g))
		{
			if (has_filter_step(g) && !has_negative_step(g))
				semantic_error(as, g->location, ERRCODE_FEATURE_NOT_SUPPORTED,
							   "GROUP BY unwinds one array: each element (each one a filter keeps) is one row.",
							   "a GROUP BY path holds at most one [*] or filter [? …]");
			semantic_error(as, g->location, ERRCODE_FEATURE_NOT_SUPPORTED,
						   "A path with [*] or a filter has one value per element it reaches, not one from the end.",
						   "a GROUP BY path that unwinds an array cannot have a negative index");
		}
		bind_path(as, lfirst(lc));
	}
	foreach(lc, s->order_by)
	{
		ArgoPath   *path = ((ArgoOrder *) lfirst(lc))->path;

		if (((ArgoOrder *) lfirst(lc))->expr != NULL)
		{
			analyze_order_expr(as, s, lfirst(lc));
			continue;
		}
		refuse_id_in_join(as, s, path);
		bind_path(as, path);
		/* a[-1] has one value per object; [*] and filters reach many */
		if (!argo_is_aggregate(s) && path->wild)
			refuse_wild(as, path, "in ORDER BY");
	}
	check_except(as, s);
	if (argo_is_aggregate(s))
	{
		check_id_aggregates(as, s);
		check_value_aggregates(as, s);
	}
	else
	{
		check_projection(as, s);
		read_whole_for_pick(as, s);
	}
	if (s->limit)
		row_count(as, s->limit, ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE, "LIMIT");
	if (s->offset)
		row_count(as, s->offset, ERRCODE_INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE, "OFFSET");
	check_grouping(as, s);
}

static void
check_amount(AnalyzeState *as, ArgoSetItem *item)
{
	JsonbValue	v;

	if (!JsonbExtractScalar(&item->value->value->root, &v) || v.type != jbvNumeric)
		semantic_error(as, item->value->location, ERRCODE_DATATYPE_MISMATCH, NULL,
					   "%s needs a number", item->negate ? "-=" : "+=");
}

/* APPEND, ADD and REMOVE EACH take an array; KEEP a count of elements. */
static void
check_append(AnalyzeState *as, ArgoSetItem *item)
{
	const char *op = item->kind == ASET_ADD ? "ADD" : item->kind == ASET_REMOVE ? "REMOVE" : "APPEND";

	if (item->each && (!JB_ROOT_IS_ARRAY(item->value->value) || JB_ROOT_IS_SCALAR(item->value->value)))
		semantic_error(as, item->value->location, ERRCODE_INVALID_PARAMETER_VALUE,
					   psprintf("%s takes one value (an array too, as one element); %s EACH each element of an array.", op, op),
					   "%s EACH needs a JSON array of values", op);
	if (item->keep != NULL)
	{
		bind_literal(as, item->keep);
		if (item->keep->type != ALIT_NUMBER || item->keep->num < 0 ||
			item->keep->num != floor(item->keep->num) || item->keep->num > PG_INT32_MAX)
			semantic_error(as, item->keep->location, ERRCODE_INVALID_PARAMETER_VALUE, NULL,
						   "KEEP needs a non-negative integer count of elements");
	}
}

/*
 * jsonb_set takes array positions as int4; a larger one must not wrap
 * round to a small position and change an element the user did not name.
 */
static void
check_set_indexes(AnalyzeState *as, ArgoPath *path)
{
	ListCell   *lc;

	foreach(lc, path->steps)
	{
		ArgoStep   *s = lfirst(lc);

		if (s->is_index && (s->index > PG_INT32_MAX || s->index < -PG_INT32_MAX))
			semantic_error(as, path->location, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
						   psprintf("An index lies between %d and %d; an array holds at most %d elements.",
									-PG_INT32_MAX, PG_INT32_MAX, (int) JB_CMASK),
						   "array index " INT64_FORMAT " in SET is out of range", s->index);
	}
}

/*
 * SET p = expr: computed on each object as it was (update_ops.c); not
 * through [*] or a filter, whose elements would each need the value.
 */
static void
analyze_set_expr(AnalyzeState *as, ArgoSetItem *item)
{
	check_expr_place(as, item->expr->location);
	if (item->path->wild || item->path->filtered)
		semantic_error(as, item->path->location, ERRCODE_FEATURE_NOT_SUPPORTED,
					   "SET a path with [*] or a filter to a JSON value or a parameter.",
					   "SET through [*] or a filter to an expression is not supported");
	analyze_expr(as, item->expr);
}

/* The privileges a statement needs on the tables of its collections. */
static AclMode
statement_access(ArgoStmt *stmt)
{
	switch (stmt->kind)
	{
		case ASTMT_INSERT:
			return ACL_INSERT;
		case ASTMT_DELETE:
			return ACL_SELECT | ACL_DELETE;
		case ASTMT_UPDATE:
			return ACL_SELECT | ACL_UPDATE | (stmt->upsert ? ACL_INSERT : 0);
		default:
			return ACL_SELECT;
	}
}

ArgoQuery *
argo_analyze(ArgoStmt *stmt, const char *text, Jsonb **params, int nparams)
{
	AnalyzeState as = {text, params, nparams, stmt, NIL, false, 0, -1, NULL, false, NULL, false};
	ArgoQuery  *q = palloc0(sizeof(ArgoQuery));
	ListCell   *lc;

	q->stmt = stmt;
	q->text = text;
	q->params = params;
	q->nparams = nparams;
	bind_aliases(&as, stmt);
	foreach(lc, stmt->objects)
		bind_json(&as, lfirst(lc));
	if (stmt->objects_array)
		expand_objects(&as, stmt);
	foreach(lc, list_concat_copy(stmt->sets, stmt->insert_sets))
	{
		ArgoSetItem *item = lfirst(lc);

		/* through [*] and filters: every element reached (update_ops.c) */
		bind_path(&as, item->path);
		check_set_indexes(&as, item->path);
		if (item->expr != NULL)
			analyze_set_expr(&as, item);
		if (item->value)
			bind_json(&as, item->value);
		if (item->kind == ASET_INC)
			check_amount(&as, item);
		check_append(&as, item);
	}
	refuse_aggregates(&as, stmt->where);
	analyze_pred(&as, stmt->where);
	stmt->where = pred_prepare(stmt->where);
	if (stmt->kind == ASTMT_SELECT)
		analyze_select(&as, stmt);

	/* INSERT creates its collection lazily; everything else needs it */
	foreach(lc, stmt->from)
	{
		ArgoSource *src = lfirst(lc);

		ArgoCollection *c = collection_lookup(src->coll,
											  stmt->kind == ASTMT_INSERT || stmt->upsert,
											  stmt->kind == ASTMT_SELECT ?
											  AccessShareLock : RowExclusiveLock);

		if (c != NULL)
			collection_check_shard_access(c, statement_access(stmt));
		/* the shards would run it, but not yet their candidates' checks through foreign tables */
		if (c != NULL && as.shardless != NULL && collection_is_distributed(c))
			semantic_error(&as, as.shardless_location, ERRCODE_FEATURE_NOT_SUPPORTED, NULL,
						   "%s on a distributed collection is not supported", as.shardless);
		q->colls = lappend(q->colls, c);
	}
	return q;
}

static bool
is_chain(ArgoPred *p, ArgoPredKind kind)
{
	return p->kind == kind && p->args != NIL;
}

/*
 * a AND b (or OR) as one n-ary node: the grammar's left-deep chains grow
 * one list, so nothing downstream recurses once per term.
 */
ArgoPred *
pred_combine(ArgoPredKind kind, ArgoPred *a, ArgoPred *b)
{
	ArgoPred   *p;

	Assert(kind == APRED_AND || kind == APRED_OR);
	if (a == NULL)
		return b;
	if (is_chain(a, kind))
	{
		if (is_chain(b, kind))
			a->args = list_concat(a->args, b->args);
		else
			a->args = lappend(a->args, b);
		return a;
	}
	if (is_chain(b, kind))
	{
		b->args = lcons(a, b->args);
		return b;
	}
	p = palloc0(sizeof(ArgoPred));
	p->kind = kind;
	p->args = list_make2(a, b);
	return p;
}

/* The flattened key of a path written in a query. */
char *
keypath_from_steps(List *steps)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, steps)
	{
		ArgoStep   *s = lfirst(lc);

		if (s->is_wild)
			appendStringInfoString(&buf, "[*]");
		else if (s->is_index)
			keypath_append_index(&buf, s->index);
		else
			keypath_append_key(&buf, s->key, strlen(s->key),
							   foreach_current_index(lc) == 0);
	}
	keypath_check_length(buf.len);
	return buf.data;
}

/* A path outside a statement (argo_unique's): its flattened key. */
void
argo_bind_lone_path(ArgoPath *path)
{
	if (path->id || path->wild)
		return;
	path->nsegs = list_length(path->steps);
	path->keystr = keypath_from_steps(path->steps);
}

/* An aggregate query: aggregates or GROUP BY. */
bool
argo_is_aggregate(ArgoStmt *s)
{
	ListCell   *lc;

	if (s->group_by != NIL || s->having != NULL)
		return true;
	foreach(lc, s->targets)
	{
		if (((ArgoTarget *) lfirst(lc))->agg != AAGG_NONE)
			return true;
	}
	return false;
}
