/*
 * unwind.c — GROUP BY p[*] in one pass over the value rows.
 *
 * The general plan (exec/aggregate.c) enumerates the units — each element of
 * the unwound array, or the object when it has none — and joins to them,
 * on (object, element), one pass over the value tables per group path and
 * per aggregated path.  In the usual shape of MongoDB's $unwind then
 * $group every such path goes into the unwound array itself
 * (`SELECT items[*].sku, SUM(items[*].qty) … GROUP BY items[*].sku`):
 * then one pass reads the rows of all their keys at once, each row tagged
 * with the role its key plays, and groups them by (object, element) into
 * the unit's group values and partial aggregates (FILTER by role).  An
 * object with no element is one unit without values (a LEFT JOIN).  The outer query over the units is the
 * general plan's: the same columns, the same grouping, HAVING and ORDER.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "common/keypath.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "sql/unwind.h"

/* The role of a key whose rows only say that an element exists. */
#define ROLE_ELEMENT (-1)
/* Aggregated paths' roles follow the group paths'. */
#define ROLE_TARGET(j) (1000 + (j))

/* Key rows being gathered: parallel int4 arrays. */
typedef struct Tagged
{
	int			n;
	int			max;
	Datum	   *keys;
	Datum	   *elems;
	Datum	   *roles;
	Datum	   *roots;
} Tagged;

static Datum *
grow(Datum *a, int n)
{
	return a ? repalloc(a, sizeof(Datum) * n) : palloc(sizeof(Datum) * n);
}

static void
tag(Tagged *t, int32 keyid, Datum elem, int role, Datum root)
{
	if (t->n == t->max)
	{
		t->max = Max(16, t->max * 2);
		t->keys = grow(t->keys, t->max);
		t->elems = grow(t->elems, t->max);
		t->roles = grow(t->roles, t->max);
		t->roots = grow(t->roots, t->max);
	}
	t->keys[t->n] = Int32GetDatum(keyid);
	t->elems[t->n] = elem;
	t->roles[t->n] = Int32GetDatum(role);
	t->roots[t->n] = root;
	t->n++;
}

/* Whether a path with [*] goes into the array GROUP BY unwinds. */
static bool
into_unwound(ArgoStmt *s, ArgoPath *path)
{
	return path->wild && path->first_wild == s->unwind->first_wild &&
		strcmp(path->prefix, s->unwind->prefix) == 0;
}

/*
 * Whether one pass serves: one collection, GROUP BY unwinding an array,
 * every group path and every aggregated path into that array (none
 * through a filter or a negative index: those are judged on documents),
 * and no aggregate but COUNT(*), COUNT, SUM, AVG, MIN and MAX.
 */
/* Whether an aggregate of an expression reads the unit's element, or the object alone (no [*]). */
static bool
expr_by_unit(ArgoStmt *s, ArgoTarget *t)
{
	return t->path->steps == NIL ||
		(t->path->first_wild == s->unwind->first_wild && strcmp(t->path->prefix, s->unwind->prefix) == 0);
}

static bool one_pass_applies(ArgoQuery *q, bool exprs);

bool
unwind_one_pass_applies(ArgoQuery *q)
{
	return one_pass_applies(q, false);
}

/* … with exprs, aggregates of expressions too, which only documents give (unwind_docs) */
static bool
one_pass_applies(ArgoQuery *q, bool exprs)
{
	ArgoStmt   *s = q->stmt;
	ListCell   *lc;

	/* a filter's kept elements are judged on documents, not rows */
	if (s->unwind == NULL || s->unwind->filtered || list_length(s->from) != 1)
		return false;
	foreach(lc, s->group_by)
		if (!into_unwound(s, lfirst(lc)))
			return false;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg == AAGG_COUNT_STAR || (t->agg == AAGG_NONE && into_unwound(s, t->path)))
			continue;
		if (t->expr != NULL)
		{
			if (!exprs || t->agg == AAGG_COUNT_DISTINCT || argo_value_aggregate(t->agg) || !expr_by_unit(s, t))
				return false;
			continue;
		}
		if (t->agg == AAGG_COUNT_DISTINCT || t->agg == AAGG_NONE || !into_unwound(s, t->path) ||
			t->path->filtered)
			return false;
	}
	return true;
}

static void
tag_path(Tagged *t, ArgoCollection *c, ArgoPath *path, bool subtree, int role)
{
	KeyRows		r = sql_path_key_rows(c, path, subtree, path->first_wild);
	ListCell   *lc;

	foreach(lc, r.keys)
		tag(t, ((ArgoKey *) lfirst(lc))->id, r.elems[foreach_current_index(lc)], role,
			r.roots[foreach_current_index(lc)]);
}

/*
 * The keys that say an element exists, so that an element holding none
 * of the paths is a unit too: those of the array's keys the paths have
 * not tagged already (one row per element is enough).
 */
static int
int32_cmp(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return (x > y) - (x < y);
}

static void
tag_elements(Tagged *t, ArgoCollection *c, ArgoPath *unwind)
{
	int			ntagged = t->n;
	int32	   *tagged = palloc(sizeof(int32) * Max(ntagged, 1));
	ListCell   *lc;

	for (int i = 0; i < ntagged; i++)
		tagged[i] = DatumGetInt32(t->keys[i]);
	qsort(tagged, ntagged, sizeof(int32), int32_cmp);
	foreach(lc, sql_array_element_keys(c, unwind))
	{
		ArgoKey    *k = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		if (!bsearch(&k->id, tagged, ntagged, sizeof(int32), int32_cmp))
			tag(t, k->id, Int32GetDatum((int32) k->segs[unwind->first_wild].index),
				ROLE_ELEMENT, Int32GetDatum(0));
	}
}

/*
 * A unit's values at one path taken from its element in the document
 * (unwind_docs): SQL expressions for the scalar's three typed columns,
 * and for whether the element reaches any value there; NULL where the
 * unit's rows give them (tagged by role).
 */
typedef struct UnitVals
{
	const char *num;
	const char *exact;			/* the number as numeric, for SUM and AVG */
	const char *str;
	const char *boolean;
	const char *present;
} UnitVals;

/*
 * ", agg(col) FILTER (WHERE m.role = role) AS name" over the unit's
 * rows; from a document, the element's one value there is the aggregate
 * already (a count of it, 1 or 0).
 */
static void
unit_column(StringInfo sql, const UnitVals *u, const char *agg, const char *col, int role,
			const char *name)
{
	const char *v;

	if (u == NULL)
	{
		/* "r.exact": the row's number as written (reference.md §9.3) */
		appendStringInfo(sql, ", pg_catalog.%s(%s) FILTER (WHERE m.role OPERATOR(pg_catalog.=) %d) AS %s",
						 agg, strcmp(col, "r.exact") == 0 ? sql_exact_number("r") : col, role, name);
		return;
	}
	if (strcmp(col, "DISTINCT m.root") == 0)
		v = psprintf("CASE WHEN %s THEN 1 ELSE 0 END", u->present);
	else
	{
		v = strcmp(col, "r.valnum") == 0 ? u->num : strcmp(col, "r.exact") == 0 ? u->exact :
			strcmp(col, "r.valstr") == 0 ? u->str : u->boolean;
		if (strcmp(agg, "count") == 0)
			v = psprintf("CASE WHEN %s IS NOT NULL THEN 1 ELSE 0 END", v);
	}
	appendStringInfo(sql, ", %s AS %s", v, name);
}

/* A unit's columns for group path i: its element's scalar there. */
static ValueCols
group_columns(StringInfo sql, int i, const UnitVals *u)
{
	ValueCols	v;

	unit_column(sql, u, "max", "r.valnum", i, psprintf("g%dn", i));
	unit_column(sql, u, "max", "r.valstr", i, psprintf("g%ds", i));
	unit_column(sql, u, "bool_or", "r.valbool", i, psprintf("g%db", i));
	v.num = psprintf("o.g%dn", i);
	v.str = psprintf("o.g%ds", i);
	v.boolean = psprintf("o.g%db", i);
	return v;
}

/* A unit's partial aggregate for target j, and the target's columns over the units. */
static TargetCols
target_columns(StringInfo sql, ArgoTarget *t, int j, const UnitVals *u)
{
	static const char *const parts[][3] = {
		{"sum", "r.exact", "s"}, {"count", "r.valnum", "n"},
		{"min", "r.valnum", "mn"}, {"min", "r.valstr", "ms"}, {"bool_and", "r.valbool", "mb"},
		{"max", "r.valnum", "xn"}, {"max", "r.valstr", "xs"}, {"bool_or", "r.valbool", "xb"},
	};
	TargetCols	tc = {3};
	char	   *a = psprintf("o.a%d", j);

	if (t->agg == AAGG_COUNT)
	{
		/* the values the element reaches, null, objects and arrays included */
		unit_column(sql, u, "count", "DISTINCT m.root", ROLE_TARGET(j), psprintf("a%dc", j));
		tc.n = 1;
		tc.col[0] = psprintf("coalesce(pg_catalog.sum(%sc), 0)::bigint", a);
		return tc;
	}
	/* SUM needs s; AVG s and n; MIN the three mins; MAX the three maxes */
	for (int i = 0; i < lengthof(parts); i++)
	{
		if ((t->agg == AAGG_SUM && i != 0) || (t->agg == AAGG_AVG && i > 1) ||
			(t->agg == AAGG_COUNT_NUMBERS && i != 1) ||
			(t->agg == AAGG_MIN && (i < 2 || i > 4)) || (t->agg == AAGG_MAX && i < 5))
			continue;
		unit_column(sql, u, parts[i][0], parts[i][1], ROLE_TARGET(j), psprintf("a%d%s", j, parts[i][2]));
	}
	tc.n = 1;
	if (t->agg == AAGG_SUM)
		tc.col[0] = psprintf("pg_catalog.sum(%ss)", a);
	else if (t->agg == AAGG_AVG)
		tc.col[0] = psprintf("pg_catalog.sum(%ss) OPERATOR(pg_catalog./) pg_catalog.sum(%sn)::pg_catalog.numeric", a, a);
	else if (t->agg == AAGG_COUNT_NUMBERS)
		tc.col[0] = psprintf("coalesce(pg_catalog.sum(%sn), 0)::bigint", a);
	else
	{
		bool		min = t->agg == AAGG_MIN;

		tc.n = 3;
		tc.col[0] = psprintf("pg_catalog.%s(%s%s)", min ? "min" : "max", a, min ? "mn" : "xn");
		tc.col[1] = psprintf("pg_catalog.%s(%s%s)", min ? "min" : "max", a, min ? "ms" : "xs");
		tc.col[2] = psprintf("pg_catalog.%s(%s%s)", min ? "bool_and" : "bool_or", a, min ? "mb" : "xb");
	}
	return tc;
}

/*
 * A target that needs no column of the units: COUNT(*) (counted over
 * them) or a group path (the group's columns); false for an aggregate.
 */
static bool
unit_free_target(ArgoTarget *tg, TargetCols *tc)
{
	tc->n = 0;
	if (tg->agg == AAGG_COUNT_STAR)
	{
		tc->n = 1;
		tc->col[0] = "pg_catalog.count(*)";
	}
	return tg->agg == AAGG_COUNT_STAR || tg->agg == AAGG_NONE;
}

/*
 * The statement's start, "SELECT @COLS@ FROM (the units) o",
 * for the caller to go on with GROUP BY; the group paths' and targets'
 * columns over "o" into groups and targets.
 */
SqlBuf *
unwind_one_pass(ArgoQuery *q, ValueCols *groups, TargetCols *targets)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();
	Tagged		t = {0};
	StringInfoData cols;
	ListCell   *lc;

	initStringInfo(&cols);
	foreach(lc, s->group_by)
	{
		tag_path(&t, c, lfirst(lc), false, foreach_current_index(lc));
		groups[foreach_current_index(lc)] = group_columns(&cols, foreach_current_index(lc), NULL);
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *tg = lfirst(lc);
		int			j = foreach_current_index(lc);

		if (!unit_free_target(tg, &targets[j]))
		{
			tag_path(&t, c, tg->path, tg->agg == AAGG_COUNT, ROLE_TARGET(j));
			targets[j] = target_columns(&cols, tg, j, NULL);
		}
	}
	tag_elements(&t, c, s->unwind);

	/*
	 * The selected objects left-joined to their tagged rows: an object with
	 * no element is the one row of NULLs the join gives it.  (An anti-join
	 * of the objects against the units, planned on a range's estimate of a
	 * few objects where there were thousands, was a nested loop over every
	 * unit for each object: 3 s for a month of 200k orders.)
	 */
	appendStringInfo(&buf->sql, "SELECT @COLS@ FROM (SELECT b.objid, m.e%s FROM (", cols.data);
	sql_base_objids(buf, c, s->where);
	appendStringInfoString(&buf->sql, ") b LEFT JOIN (");
	sql_number_rows_of_table(buf, c);
	appendStringInfo(&buf->sql,
					 " r JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS m(k, e, role, root)"
					 " ON r.keyid OPERATOR(pg_catalog.=) m.k) ON r.objid OPERATOR(pg_catalog.=) b.objid"
					 " GROUP BY b.objid, m.e) o",
					 sqlbuf_param(buf, INT4ARRAYOID, sql_int4_array(t.keys, t.n)),
					 sqlbuf_param(buf, INT4ARRAYOID, sql_int4_array(t.elems, t.n)),
					 sqlbuf_param(buf, INT4ARRAYOID, sql_int4_array(t.roles, t.n)),
					 sqlbuf_param(buf, INT4ARRAYOID, sql_int4_array(t.roots, t.n)));
	return buf;
}

/*
 * The same pass over the selected objects' kept documents: each element
 * of the array is a unit, its values at the paths taken from it (jsonb's
 * #> on key steps), an object whose array is missing, empty or not an
 * array one unit without values — where every path's steps around its
 * first [*] are object keys.  Each object's rows were probed through
 * two objid indexes (18 rows an order, for a month's 8,282 orders);
 * a document is one probe, its items read in place.
 */

/* The index in path->steps of its first [*], after the alias step if any. */
static int
first_wild_step(ArgoPath *path)
{
	ListCell   *lc;

	foreach(lc, path->steps)
		if (((ArgoStep *) lfirst(lc))->is_wild)
			return foreach_current_index(lc);
	return -1;
}

/* The steps of a path into the unwound array after its [*], or 0. */
static Datum
element_steps(ArgoPath *path)
{
	int			w = first_wild_step(path);

	if (w < 0 || sql_key_steps(path, sql_alias_steps(path), w) == (Datum) 0)
		return (Datum) 0;
	return sql_key_steps(path, w + 1, list_length(path->steps));
}

/* Whether the one pass can read documents: the collection's may be read, and every path is keys around its [*]. */
bool
unwind_docs_applies(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ListCell   *lc;

	if (!one_pass_applies(q, true) || !docs_readable(linitial(q->colls)) ||
		element_steps(s->unwind) == (Datum) 0)
		return false;
	foreach(lc, s->group_by)
		if (element_steps(lfirst(lc)) == (Datum) 0)
			return false;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg != AAGG_COUNT_STAR && t->agg != AAGG_NONE && t->expr == NULL &&
			element_steps(t->path) == (Datum) 0)
			return false;
	}
	return true;
}

/* A unit's jsonb value v (a column of the units) as the typed columns rows have. */
static UnitVals *
typed_unit_values(const char *v)
{
	UnitVals   *u = palloc(sizeof(UnitVals));

	u->num = psprintf("CASE pg_catalog.jsonb_typeof(%s) WHEN 'number' THEN %s::pg_catalog.float8 END", v, v);
	u->exact = psprintf("CASE pg_catalog.jsonb_typeof(%s) WHEN 'number' THEN %s::pg_catalog.numeric END", v, v);
	u->str = psprintf("CASE pg_catalog.jsonb_typeof(%s) WHEN 'string' THEN (%s OPERATOR(pg_catalog.#>>) '{}'::pg_catalog.text[]) COLLATE pg_catalog.\"C\" END",
					  v, v);
	u->boolean = psprintf("CASE pg_catalog.jsonb_typeof(%s) WHEN 'boolean' THEN %s::pg_catalog.bool END", v, v);
	u->present = psprintf("%s IS NOT NULL", v);
	return u;
}

/*
 * The unit's element's values at path (element_steps): its value there
 * taken once per unit as column v<i> of the units (into vals), and the
 * typed columns as expressions over it.
 */
static UnitVals *
element_values(SqlBuf *buf, ArgoPath *path, StringInfo vals, int *nvals)
{
	char	   *v = psprintf("w.v%d", *nvals);

	appendStringInfo(vals, ", (CASE WHEN s.real = 1 THEN s.el END) OPERATOR(pg_catalog.#>) $%d::pg_catalog.text[] AS v%d",
					 sqlbuf_param(buf, TEXTARRAYOID, element_steps(path)), (*nvals)++);
	return typed_unit_values(v);
}

/*
 * An aggregate of an expression in a unit: computed by argo_compute once
 * for each object (into objcols, as x.c<i>: per element, aligned, where
 * its [*] paths pass through the unwound array, else the object's one),
 * the unit's taken by its element's position (s.ei); as column v<i>.
 * One call an object, not one an element: each call reads the document
 * again (100,000 orders' revenue per sku, 0.93 s with a call each).
 */
static UnitVals *
computed_values(SqlBuf *buf, ArgoTarget *t, StringInfo vals, int *nvals, StringInfo objcols)
{
	char	   *v = psprintf("w.v%d", *nvals);
	bool		each = t->path->steps != NIL;

	appendStringInfo(objcols, ", %s(z.doc, $%d::pg_catalog.jsonb, NULL::pg_catalog.int4) AS c%d",
					 argo_function("argo_compute"), sql_compute_spec(buf, t->expr, t->path, each), *nvals);
	if (each)
		appendStringInfo(vals, ", (CASE WHEN s.real = 1 THEN s.c%d END) OPERATOR(pg_catalog.->) s.ei OPERATOR(pg_catalog.->) 0 AS v%d",
						 *nvals, *nvals);
	else
		appendStringInfo(vals, ", s.c%d OPERATOR(pg_catalog.->) 0 AS v%d", *nvals, *nvals);
	(*nvals)++;
	return typed_unit_values(v);
}

/*
 * unwind_one_pass over documents, where unwind_docs_applies.  Each
 * object's array is set out by jsonb_array_elements in the select list
 * (a function scan joined laterally, memoized for nothing, cost twice as
 * much); an object without elements gives one element standing for
 * none, NULL (a jsonb null in its place stands for a null element).
 * Each path's value is taken from the element once (OFFSET 0 keeps the
 * planner from repeating it in every typed column).
 */
SqlBuf *
unwind_docs(ArgoQuery *q, ValueCols *groups, TargetCols *targets)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();
	StringInfoData cols,
				vals,
				objcols,
				passed;
	int			nvals = 0;
	int			array;
	bool		computes = false;
	int			name = sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name));
	ListCell   *lc;

	initStringInfo(&cols);
	initStringInfo(&vals);
	initStringInfo(&objcols);
	initStringInfo(&passed);
	foreach(lc, s->group_by)
		groups[foreach_current_index(lc)] =
			group_columns(&cols, foreach_current_index(lc), element_values(buf, lfirst(lc), &vals, &nvals));
	foreach(lc, s->targets)
	{
		ArgoTarget *tg = lfirst(lc);
		int			j = foreach_current_index(lc);

		if (unit_free_target(tg, &targets[j]))
			continue;
		if (tg->expr != NULL)
		{
			computes = true;
			appendStringInfo(&passed, ", x.c%d", nvals);
		}
		targets[j] = target_columns(&cols, tg, j, tg->expr != NULL ?
									computed_values(buf, tg, &vals, &nvals, &objcols) :
									element_values(buf, tg->path, &vals, &nvals));
	}
	array = sqlbuf_param(buf, TEXTARRAYOID,
						 sql_key_steps(s->unwind, sql_alias_steps(s->unwind), first_wild_step(s->unwind)));
	appendStringInfo(&buf->sql,
					 "SELECT @COLS@ FROM (SELECT w.objid%s FROM (SELECT s.objid%s FROM ("
					 "SELECT b.objid, CASE WHEN x.n OPERATOR(pg_catalog.>) 0 THEN 1 END AS real,"
					 " pg_catalog.jsonb_array_elements(CASE WHEN x.n OPERATOR(pg_catalog.>) 0 THEN x.a ELSE '[null]'::pg_catalog.jsonb END) AS el%s FROM (",
					 cols.data, vals.data,
					 /* the objects' computed values and the element's position, for aggregates of expressions */
					 computes ? psprintf("%s, pg_catalog.generate_series(0, GREATEST(x.n, 1) OPERATOR(pg_catalog.-) 1) AS ei",
										 passed.data) : "");
	sql_base_objids(buf, c, s->where);
	appendStringInfo(&buf->sql,
					 ") b LEFT JOIN %s d ON d.objid OPERATOR(pg_catalog.=) b.objid"
					 " CROSS JOIN LATERAL (SELECT y.*, CASE pg_catalog.jsonb_typeof(y.a) WHEN 'array' THEN pg_catalog.jsonb_array_length(y.a) ELSE 0 END AS n"
					 " FROM (SELECT z.doc OPERATOR(pg_catalog.#>) $%d::pg_catalog.text[] AS a%s FROM (SELECT COALESCE(d.doc, %s($%d, b.objid)) AS doc) z) y OFFSET 0) x"
					 ") s OFFSET 0) w) o",
					 c->doc_table, array, objcols.data, argo_function("argo_object"), name);
	return buf;
}
