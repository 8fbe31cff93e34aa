/*
 * aggregate.c — COUNT, COUNT(DISTINCT), SUM, AVG, MIN, MAX, and the
 * whole-value ARRAY_AGG, FIRST, LAST, with GROUP BY paths and HAVING.
 *
 * PostgreSQL computes them, by the SQL sql/aggsql.c writes.  Result
 * rows become objects through the rebuilder, which nests the group values
 * as in the original documents (under their alias in a join, as a join's
 * projections are); a whole-value aggregate's jsonb is added to its
 * group's result as it is given on.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "common/numbers.h"
#include "doc/doc.h"
#include "doc/docexpr.h"
#include "store/collection.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/aggregate.h"
#include "exec/results.h"
#include "exec/stream.h"

/* Steps with each negative position as [0]: a[-1]'s value shown as a projection of one. */
static List *
steps_from_front(List *steps)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, steps)
	{
		ArgoStep   *step = lfirst(lc);

		if (step->is_index && !step->is_wild && step->index < 0)
		{
			step = memcpy(palloc(sizeof(ArgoStep)), step, sizeof(ArgoStep));
			step->index = 0;
		}
		out = lappend(out, step);
	}
	return out;
}

/*
 * Where a group value goes in a result: its output name where a target
 * renames it, else its path (a [*] or a negative position as the element
 * [0]: the group's element, written as a projection of one), under the alias of its
 * collection in a join.
 */
static char *
group_key(ArgoQuery *q, ArgoPath *g)
{
	ArgoSource *src;
	const char *alias;
	StringInfoData key;
	char	   *path = g->keystr;

	/* an expression no target names: not shown */
	if (g->expr != NULL && g->out_name == NULL)
		return NULL;
	/* renamed (AS): its output name, one key (AS is refused in a join) */
	if (g->out_name != NULL)
	{
		initStringInfo(&key);
		keypath_append_key(&key, g->out_name, strlen(g->out_name), true);
		return key.data;
	}
	if (g->wild)
	{
		KeySeg	   *segs = palloc(sizeof(KeySeg) * g->nsegs);

		memcpy(segs, g->pattern, sizeof(KeySeg) * g->nsegs);
		for (int i = 0; i < g->nsegs; i++)
			if (segs[i].kind == KSEG_WILD)
			{
				segs[i].kind = KSEG_INDEX;
				segs[i].index = 0;
			}
		path = keypath_from_segs(segs, g->nsegs);
	}
	else if (g->filtered)
		path = keypath_from_steps(steps_from_front(g->steps));
	if (list_length(q->stmt->from) == 1)
		return path;
	src = list_nth(q->stmt->from, g->source);
	alias = src->alias ? src->alias : src->coll;
	initStringInfo(&key);
	keypath_append_key(&key, alias, strlen(alias), true);
	appendStringInfo(&key, ".%s", path);
	return key.data;
}

/* Feed one value (column col of the result row) to the rebuilder. */
static void
agg_add_value(Rebuilder *rb, int64 id, const char *keystr, Datum *values, bool *nulls,
		  TupleDesc desc, int col)
{
	Datum		d = values[col - 1];
	Oid			type = TupleDescAttr(desc, col - 1)->atttypid;

	if (nulls[col - 1])
		rebuilder_add_keystr_row(rb, id, keystr, NULL, true, 0, true, false);
	else if (type == TEXTOID)
		rebuilder_add_keystr_row(rb, id, keystr, DatumGetTextPP(d), true, 0, true, false);
	else if (type == BOOLOID)
		rebuilder_add_keystr_row(rb, id, keystr, NULL, true, 0, false, DatumGetBool(d));
	else if (type == INT8OID)
		rebuilder_add_keystr_row(rb, id, keystr, NULL, false, (double) DatumGetInt64(d),
								 true, false);
	else if (type == FLOAT8OID)
		rebuilder_add_keystr_row(rb, id, keystr, NULL, false, DatumGetFloat8(d), true, false);
	else if (type == NUMERICOID)
	{
		/* an exact SUM or AVG (reference.md §9.3): its digits, beside their double */
		Numeric		n = DatumGetNumeric(d);
		char	   *exact;
		double		num = argo_number_from_numeric(n, &exact);

		rebuilder_add_keystr_row(rb, id, keystr, exact ? cstring_to_text(exact) : NULL, false, num,
								 true, false);
	}
	else
		elog(ERROR, "aggregate column of unexpected type %u", type);
}

/* First non-null of three columns, in the given order of preference. */
static int
first_present(bool *nulls, int a, int b, int c)
{
	int			order[3] = {a, b, c};

	for (int i = 0; i < 3; i++)
		if (!nulls[order[i] - 1])
			return order[i];
	return a;
}

/* An aggregate's whole value (ARRAY_AGG, FIRST, LAST), added to its group's result. */
typedef struct WholeValue
{
	int64		id;
	char	   *name;
	Jsonb	   *value;
} WholeValue;

/* What each group's row needs to become its result. */
typedef struct GroupTake
{
	Rebuilder  *rb;
	ArgoQuery  *q;
	char	  **group_keys;
	TupleDesc	desc;			/* the rows', set before the first */
	int64		n;				/* rows so far: each its own result */
	List	   *whole;			/* of WholeValue: the results not yet given on */
	MemoryContext cxt;			/* theirs: rows come in memory reset after each */
	rebuild_emit emit;			/* where results go */
	void	   *arg;
	struct DocExpr **over;		/* the targets computed over aggregates, compiled */
	Jsonb	   *having;			/* a HAVING judged on each group's result, or NULL */
	RowWindow	window;			/* … and then LIMIT and OFFSET, counted here */
} GroupTake;

/* A whole-value aggregate's column: kept for the result (NULL FIRST/LAST: missing). */
static void
keep_whole_value(GroupTake *g, ArgoTarget *t, int64 id, const char *key, Datum *values,
				 bool *nulls, int col)
{
	WholeValue *w;
	MemoryContext old;

	if (nulls[col - 1])
	{
		/* ARRAY_AGG of nothing is null, as every aggregate with nothing to use */
		if (t->agg == AAGG_ARRAY)
			agg_add_value(g->rb, id, key, values, nulls, g->desc, col);
		return;
	}
	old = MemoryContextSwitchTo(g->cxt);
	w = palloc(sizeof(WholeValue));
	w->id = id;
	w->name = t->alias;
	w->value = DatumGetJsonbPCopy(values[col - 1]);
	/* a [*] path's values, and an expression's (argo_compute's array), one array */
	if (t->path->wild || (t->expr != NULL && t->agg == AAGG_ARRAY))
		w->value = doc_flatten(w->value);
	if (t->distinct)
		w->value = doc_distinct_values(w->value);
	g->whole = lappend(g->whole, w);
	MemoryContextSwitchTo(old);
}

/* Whether a key is a reserved name an aggregate went under for an expression over it. */
static bool
reserved_key(JsonbValue *k)
{
	return k->type == jbvString && k->val.string.len > 0 && k->val.string.val[0] == '\x01';
}

/*
 * The targets computed over aggregates (SUM(qty) / COUNT(*)), from the
 * group's aggregates under their reserved names, which are taken out;
 * a target is left out where it has no value.
 */
static Jsonb *
with_over_targets(GroupTake *g, Jsonb *obj)
{
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &obj->root, .len = VARSIZE(obj)}};
	JsonbParseState *st = NULL;
	JsonbIterator *it = JsonbIteratorInit(&obj->root);
	JsonbIteratorToken tok;
	JsonbValue	v;
	ListCell   *lc;
	bool		skip = false;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			skip = reserved_key(&v);
		if ((tok == WJB_KEY || tok == WJB_VALUE) && !skip)
			pushJsonbValue(&st, tok, &v);
	}
	foreach(lc, g->q->stmt->over)
	{
		ArgoTarget *t = lfirst(lc);
		JsonbValue	k = {.type = jbvString};

		if (!doc_expr_eval(g->over[foreach_current_index(lc)], &root, &v))
			continue;
		/* a number given out must be one a document could hold (22003) */
		if (v.type == jbvNumeric)
			(void) argo_number_from_numeric(v.val.numeric, NULL);
		k.val.string.val = t->alias;
		k.val.string.len = strlen(t->alias);
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &v);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/* A group's result, with its whole values, given on. */
static void
give_group(void *arg, int64 id, Jsonb *obj)
{
	GroupTake  *g = arg;
	ListCell   *lc;

	foreach(lc, g->whole)
	{
		WholeValue *w = lfirst(lc);

		if (w->id == id)
			obj = doc_with_member(obj, w->name, w->value);
	}
	foreach(lc, g->whole)
	{
		WholeValue *w = lfirst(lc);

		if (w->id > id)
			continue;
		pfree(w->value);
		pfree(w);
		g->whole = foreach_delete_current(g->whole, lc);
	}
	if (g->having != NULL)
	{
		JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &obj->root, .len = VARSIZE(obj)}};

		if (!doc_filter_keeps(&root, g->having) || !argo_row_window_take(&g->window))
			return;
	}
	if (g->over != NULL || g->having != NULL)
		obj = with_over_targets(g, obj);
	g->emit(g->arg, id, obj);
}

/* One result row: the group values, then each aggregate under its name. */
static void
rebuild_group(void *arg, Datum *values, bool *nulls)
{
	GroupTake  *g = arg;
	ArgoStmt   *s = g->q->stmt;
	int64		id = g->n++;
	int			col = 1;
	ListCell   *lc;

	foreach(lc, s->group_by)
	{
		int			gc = first_present(nulls, col, col + 1, col + 2);

		if (!nulls[gc - 1] && g->group_keys[foreach_current_index(lc)] != NULL)
			agg_add_value(g->rb, id, g->group_keys[foreach_current_index(lc)], values, nulls, g->desc, gc);
		col += 3;
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		bool		three = t->agg == AAGG_MIN || t->agg == AAGG_MAX;
		StringInfoData key;

		if (t->agg == AAGG_NONE)
			continue;
		if (!t->hidden)
		{
			initStringInfo(&key);
			keypath_append_key(&key, t->alias, strlen(t->alias), true);
			if (argo_value_aggregate(t->agg))
				keep_whole_value(g, t, id, key.data, values, nulls, col);
			else if (t->agg == AAGG_MIN)
				agg_add_value(g->rb, id, key.data, values, nulls, g->desc, first_present(nulls, col, col + 1, col + 2));
			else if (t->agg == AAGG_MAX)
				agg_add_value(g->rb, id, key.data, values, nulls, g->desc, first_present(nulls, col + 2, col + 1, col));
			else
				agg_add_value(g->rb, id, key.data, values, nulls, g->desc, col);
		}
		col += three ? 3 : 1;
	}
	/* even an empty result object is one group's answer */
	rebuilder_add_object(g->rb, id);
}

/*
 * Two group paths shown under one key (a[-2].v and a[-1].v both as
 * a[0].v) would overwrite each other: 42712, as two targets with one
 * output name are.
 */
static void
check_group_key(ArgoQuery *q, GroupTake *g, int i)
{
	ArgoPath   *path = list_nth(q->stmt->group_by, i);

	for (int j = 0; j < i && g->group_keys[i] != NULL; j++)
	{
		ArgoPath   *other = list_nth(q->stmt->group_by, j);

		if (g->group_keys[j] == NULL)
			continue;
		if (strcmp(g->group_keys[i], g->group_keys[j]) == 0 && strcmp(path->keystr, other->keystr) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_ALIAS),
					 errmsg("GROUP BY %s and %s would both be shown as %s", other->keystr, path->keystr,
							g->group_keys[i]),
					 errhint("Name them in the targets with AS and group by those names.")));
	}
}

/*
 * The groups come as the statement makes them, each rebuilt and given on
 * before the next (a result of many groups is never held whole here).
 */
void
run_aggregate(ArgoQuery *q, rebuild_emit emit, void *arg)
{
	GroupTake	g = {NULL, q};
	ListCell   *lc;

	g.emit = emit;
	g.arg = arg;
	g.cxt = CurrentMemoryContext;
	g.rb = rebuilder_create(NULL, give_group, &g);

	if (q->stmt->having_groups != NULL)
	{
		g.having = sql_pred_spec(q->stmt->having_groups);
		g.window = argo_row_window(q->stmt);
	}
	if (q->stmt->over != NIL)
	{
		g.over = palloc(sizeof(DocExpr *) * list_length(q->stmt->over));
		foreach(lc, q->stmt->over)
			g.over[foreach_current_index(lc)] =
				doc_compute_compile(sql_expr_spec(((ArgoTarget *) lfirst(lc))->expr));
	}
	g.group_keys = palloc(sizeof(char *) * Max(list_length(q->stmt->group_by), 1));
	foreach(lc, q->stmt->group_by)
	{
		g.group_keys[foreach_current_index(lc)] = group_key(q, lfirst(lc));
		check_group_key(q, &g, foreach_current_index(lc));
	}
	argo_stream_described(aggsql_build(q), rebuild_group, &g, &g.desc);
	rebuilder_finish(g.rb);
}
