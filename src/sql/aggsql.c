/*
 * aggsql.c — the SQL of COUNT, COUNT(DISTINCT), SUM, AVG, MIN, MAX, and
 * the whole-value ARRAY_AGG, FIRST, LAST, with GROUP BY paths and HAVING,
 * which exec/aggregate.c runs.
 *
 * PostgreSQL computes them.  Each unit — a selected object, a join's
 * tuple of objects, or, when a GROUP BY path has [*], each element of the
 * array it unwinds (or the object, when it has none) — contributes the
 * typed value columns of each group path and of each aggregated path
 * (LEFT JOINs on the vertical tables of the path's collection), grouped
 * by the group paths' typed columns, so 5 and "5" are different groups
 * and units without a scalar at a path form one group there.  A path
 * with [*] is summed up per unit first, so that each unit stays one row
 * whatever else is joined.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "common/keypath.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/docs.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "sql/aggsql.h"
#include "sql/joinsql.h"
#include "sql/unwind.h"

/* The statement being written. */
typedef struct AggGen
{
	ArgoQuery  *q;
	SqlBuf	   *buf;
	ArgoPath   *unwind;			/* its array's elements are the units, or NULL */
	TargetCols *targets;		/* per target of the statement */
	ValueCols  *groups;			/* per group path */
} AggGen;

/* The object id a path reads in each row of "o": an object, or a tuple's part. */
static char *
objid_of(ArgoQuery *q, ArgoPath *path)
{
	if (list_length(q->stmt->from) == 1)
		return "o.objid";
	return psprintf("o.o%d", path->source);
}

/* The scalar at a path without [*] in each row of "o", joined in. */
static ValueCols
value_join(AggGen *g, ArgoCollection *c, ArgoPath *path, const char *alias)
{
	return sql_value_join_types(g->buf, c, objid_of(g->q, path), path->keystr, alias,
								path->value_types,
								(g->q->setwise_sources & ((uint32) 1 << path->source)) != 0);
}

static ArgoCollection *
coll_of_path(ArgoQuery *q, ArgoPath *path)
{
	return list_nth(q->colls, path->source);
}

/* Whether a path with [*] goes into the unwound array: then it means the unit's element. */
static bool
in_unwound(AggGen *g, ArgoPath *path)
{
	return g->unwind != NULL && path->wild && path->first_wild == g->unwind->first_wild &&
		strcmp(path->prefix, g->unwind->prefix) == 0;
}

/* " ON a.objid = <unit's object> [AND a.e = o.e]" */
static void
emit_unit_join(AggGen *g, const char *alias, ArgoPath *path, bool by_elem)
{
	appendStringInfo(&g->buf->sql, " %s ON %s.objid OPERATOR(pg_catalog.=) %s", alias, alias,
					 objid_of(g->q, path));
	if (by_elem)
		appendStringInfo(&g->buf->sql, " AND %s.e OPERATOR(pg_catalog.=) o.e", alias);
}

static TargetCols
one_col(char *col)
{
	TargetCols	t = {1, {col}};

	return t;
}

/* The aggregate over per-unit sums a (s, n, mn, ms, mb, xn, xs, xb). */
static TargetCols
unit_sums(ArgoTarget *t, const char *a)
{
	TargetCols	tc = {3};

	if (t->agg == AAGG_SUM)
		return one_col(psprintf("pg_catalog.sum(%s.s)", a));
	/* s is exact (numeric): AVG is its sum over the count, as avg(numeric) */
	if (t->agg == AAGG_AVG)
		return one_col(psprintf("pg_catalog.sum(%s.s) OPERATOR(pg_catalog./) pg_catalog.sum(%s.n)::pg_catalog.numeric", a, a));
	if (t->agg == AAGG_COUNT_NUMBERS)
		return one_col(psprintf("coalesce(pg_catalog.sum(%s.n), 0)::bigint", a));
	if (t->agg == AAGG_MIN)
	{
		tc.col[0] = psprintf("pg_catalog.min(%s.mn)", a);
		tc.col[1] = psprintf("pg_catalog.min(%s.ms)", a);
		tc.col[2] = psprintf("pg_catalog.bool_and(%s.mb)", a);
	}
	else
	{
		tc.col[0] = psprintf("pg_catalog.max(%s.xn)", a);
		tc.col[1] = psprintf("pg_catalog.max(%s.xs)", a);
		tc.col[2] = psprintf("pg_catalog.bool_or(%s.xb)", a);
	}
	return tc;
}

/*
 * An aggregate over a path with [*]: the values each unit reaches,
 * summed up per unit first (per element when the path goes into the
 * unwound array), then over the units.
 */
static TargetCols
wild_target(AggGen *g, ArgoTarget *t, const char *a)
{
	ArgoCollection *c = coll_of_path(g->q, t->path);
	bool		by_elem = in_unwound(g, t->path);
	KeyArrays	k;

	if (t->agg == AAGG_COUNT)
	{
		appendStringInfoString(&g->buf->sql, " LEFT JOIN ");
		sql_values_reached(g->buf, c, t->path, by_elem ? t->path->first_wild : -1);
		emit_unit_join(g, a, t->path, by_elem);
		return one_col(psprintf("coalesce(pg_catalog.sum(%s.n), 0)::bigint", a));
	}
	k = sql_path_key_arrays(g->buf, c, t->path, false, t->path->first_wild);
	appendStringInfo(&g->buf->sql,
					 " LEFT JOIN (SELECT r.objid%s, pg_catalog.sum(%s) AS s, pg_catalog.count(valnum) AS n,"
					 " pg_catalog.min(valnum) AS mn, pg_catalog.min(valstr) AS ms, pg_catalog.bool_and(valbool) AS mb,"
					 " pg_catalog.max(valnum) AS xn, pg_catalog.max(valstr) AS xs, pg_catalog.bool_or(valbool) AS xb FROM ",
					 by_elem ? ", m.e" : "", sql_exact_number(""));
	sql_number_rows_of_table(g->buf, c);
	appendStringInfo(&g->buf->sql,
					 " r JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS m(k, e) ON r.keyid OPERATOR(pg_catalog.=) m.k GROUP BY r.objid%s)",
					 k.keys, k.elems, by_elem ? ", m.e" : "");
	emit_unit_join(g, a, t->path, by_elem);
	return unit_sums(t, a);
}

static TargetCols document_distinct(AggGen *g, ArgoTarget *t, const char *a);

/*
 * COUNT(DISTINCT p): the distinct scalars at p among the group's units
 * (5 and "5" are two; null, objects and arrays left out).  For a path
 * with [*], over every value the units reach: a subquery given the
 * group's units (array_agg of them, an aggregate of the outer query).
 */
static TargetCols
count_distinct(AggGen *g, ArgoTarget *t, const char *a)
{
	ArgoCollection *c = coll_of_path(g->q, t->path);
	ValueCols	v;
	bool		by_elem;
	KeyArrays	k;
	SqlBuf	   *rows;

	if (t->path->filtered)
		return document_distinct(g, t, a);
	if (!t->path->wild)
	{
		v = value_join(g, c, t->path, a);
		return one_col(psprintf("pg_catalog.count(DISTINCT ROW(%s, %s, %s)) FILTER (WHERE pg_catalog.num_nonnulls(%s, %s, %s) OPERATOR(pg_catalog.>) 0)",
								v.num, v.str, v.boolean, v.num, v.str, v.boolean));
	}
	by_elem = in_unwound(g, t->path);
	k = sql_path_key_arrays(g->buf, c, t->path, false, t->path->first_wild);
	rows = sqlbuf_create();
	sql_rows_of_table(rows, c);
	return one_col(psprintf("(SELECT pg_catalog.count(DISTINCT ROW(r.valnum, r.valstr, r.valbool)) FROM %s r"
							" JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS m(k, e) ON r.keyid OPERATOR(pg_catalog.=) m.k"
							" WHERE pg_catalog.num_nonnulls(r.valnum, r.valstr, r.valbool) OPERATOR(pg_catalog.>) 0 AND %s)",
							rows->sql.data, k.keys, k.elems,
							by_elem ?
							psprintf("ROW(r.objid, m.e) OPERATOR(pg_catalog.=) ANY (pg_catalog.array_agg(ROW(%s, o.e)))",
									 objid_of(g->q, t->path)) :
							psprintf("r.objid OPERATOR(pg_catalog.=) ANY (pg_catalog.array_agg(%s))",
									 objid_of(g->q, t->path))));
}

/*
 * SQL for the values steps reach in the jsonb doc, as argo_values_at
 * walks Argo/SQL's steps (jsonb's #> would take a[0] of an object's key
 * "0"): a jsonb array, NULL for none; or, with one, its single value.
 */
static char *
values_at(SqlBuf *buf, const char *doc, List *steps, bool one)
{
	ArgoPath	path = {.steps = steps};

	return psprintf("%s%s(%s, $%d::pg_catalog.jsonb)%s", one ? "(" : "", argo_function("argo_values_at"),
					doc, sqlbuf_param(buf, JSONBOID, sql_path_spec(&path)),
					one ? " OPERATOR(pg_catalog.->) 0)" : "");
}

/*
 * The object a path reads in each unit, as an expression: its kept
 * document (joined in as alias) where the read may take it, else rebuilt.
 */
static char *
unit_document(AggGen *g, ArgoPath *path, const char *alias)
{
	ArgoCollection *c = coll_of_path(g->q, path);
	bool		docs = docs_readable(c);
	const char *objid = objid_of(g->q, path);

	if (docs)
		appendStringInfo(&g->buf->sql, " LEFT JOIN %s %s ON %s.objid OPERATOR(pg_catalog.=) %s",
						 c->doc_table, alias, alias, objid);
	return psprintf("%s%s($%d, %s)%s", docs ? psprintf("COALESCE(%s.doc, ", alias) : "",
					argo_function("argo_object"),
					sqlbuf_param(g->buf, TEXTOID, CStringGetTextDatum(c->name)), objid,
					docs ? ")" : "");
}

/*
 * ARRAY_AGG, FIRST, LAST (reference.md §2.5): the whole value at the path, taken from
 * each unit's object — its kept document, else rebuilt — in the group's
 * order (ORDER BY inside, by the cross-type sort key, then object id).
 * LAST is FIRST of the order reversed.  One jsonb column.
 */
static TargetCols
value_aggregate(AggGen *g, ArgoTarget *t, const char *a)
{
	const char *objid = objid_of(g->q, t->path);
	bool		reverse = t->agg == AAGG_LAST;
	char	   *doc;
	char	   *value;
	StringInfoData order;

	/* ID(): the id as a number, and no document read for it */
	doc = t->path->id && (t->order == NULL || t->order->path->id) ? NULL :
		unit_document(g, t->path, a);
	/* a [*] path: the values it reaches, an array an object (flattened in give_group); else its one value */
	if (t->expr != NULL)
		value = psprintf("(%s(%s, $%d::pg_catalog.jsonb, NULL::pg_catalog.int4)%s)", argo_function("argo_compute"),
						 doc, sql_compute_spec(g->buf, t->expr, t->path, false),
						 t->agg == AAGG_ARRAY ? "" : " OPERATOR(pg_catalog.->) 0");
	else
		value = t->path->id ? psprintf("pg_catalog.to_jsonb(%s)", objid) :
			values_at(g->buf, doc, t->path->steps, !t->path->wild);
	initStringInfo(&order);
	if (t->order != NULL && t->order->path->id)
		appendStringInfo(&order, "%s%s, ", objid, t->order->desc != reverse ? " DESC" : "");
	else if (t->order != NULL)
		appendStringInfo(&order, "%s(%s, $%d) COLLATE pg_catalog.\"C\"%s, ",
						 argo_function("argo_sort_key"), doc,
						 sqlbuf_param(g->buf, JSONBOID, sql_path_steps(t->order->path)),
						 t->order->desc != reverse ? " DESC" : "");
	appendStringInfo(&order, "%s%s", objid, reverse ? " DESC" : "");
	if (t->agg == AAGG_ARRAY)
		return one_col(psprintf("pg_catalog.jsonb_agg(%s ORDER BY %s) FILTER (WHERE %s IS NOT NULL)",
								value, order.data, value));
	return one_col(psprintf("(pg_catalog.array_agg(%s ORDER BY %s))[1]", value, order.data));
}

/* The value at a path's steps before its first [*] or filter, in the object doc. */
static char *
array_at(SqlBuf *buf, ArgoPath *path, const char *doc)
{
	return values_at(buf, doc, list_copy_head(path->steps, path->first_wild), true);
}

/*
 * The values a path through filters or negative indices reaches in a
 * unit, as a jsonb array (NULL for none): in the unit's object, or, for
 * a path into the array GROUP BY unwinds, in the unit's element — which
 * the path's own filter there must keep (SUM(items[? qty > 5].qty) by
 * items[*].sku: each element's qty where it is over 5).
 */
static char *
unit_values(AggGen *g, ArgoPath *path, const char *alias)
{
	char	   *doc = unit_document(g, path, alias);
	ArgoStep   *at;
	char	   *elem;
	char	   *values;

	if (!in_unwound(g, path))
		return values_at(g->buf, doc, path->steps, false);
	at = list_nth(path->steps, path->first_wild);
	elem = psprintf("(%s OPERATOR(pg_catalog.->) o.e)", array_at(g->buf, path, doc));
	values = values_at(g->buf, elem, list_copy_tail(path->steps, path->first_wild + 1), false);
	if (at->filter == NULL)
		return values;
	return psprintf("CASE WHEN %s(%s, $%d::pg_catalog.jsonb) IS TRUE THEN %s END",
					argo_function("argo_filter_test"), elem,
					sqlbuf_param(g->buf, JSONBOID, JsonbPGetDatum(sql_pred_spec(at->filter))), values);
}

/*
 * A jsonb value x.v as the value columns rows have: a number, a string
 * (in the value tables' "C" collation), a boolean; null for the rest.
 */
#define TYPED_VALUES \
	"CASE pg_catalog.jsonb_typeof(x.v) WHEN 'number' THEN x.v::pg_catalog.float8 END AS valnum," \
	" CASE pg_catalog.jsonb_typeof(x.v) WHEN 'string' THEN (x.v OPERATOR(pg_catalog.#>>) '{}'::pg_catalog.text[]) COLLATE pg_catalog.\"C\" END AS valstr," \
	" CASE pg_catalog.jsonb_typeof(x.v) WHEN 'boolean' THEN x.v::pg_catalog.bool END AS valbool"

/*
 * An aggregate over a path through a filter or a negative index: the
 * values each unit's object reaches there (argo_values_at), summed up
 * per unit as wild_target's rows are, then over the units.
 */
/*
 * A unit's values (a jsonb array, or NULL) summed up as a unit's rows
 * are, the numbers' sum exactly (reference.md §9.3): joined in as a.
 */
static TargetCols
value_sums(AggGen *g, ArgoTarget *t, const char *values, const char *a)
{
	appendStringInfo(&g->buf->sql,
					 " LEFT JOIN LATERAL (SELECT pg_catalog.count(*) AS c, pg_catalog.sum(valexact) AS s, pg_catalog.count(valnum) AS n,"
					 " pg_catalog.min(valnum) AS mn, pg_catalog.min(valstr) AS ms, pg_catalog.bool_and(valbool) AS mb,"
					 " pg_catalog.max(valnum) AS xn, pg_catalog.max(valstr) AS xs, pg_catalog.bool_or(valbool) AS xb"
					 " FROM (SELECT %s, CASE pg_catalog.jsonb_typeof(x.v) WHEN 'number' THEN x.v::pg_catalog.numeric END AS valexact"
					 " FROM pg_catalog.jsonb_array_elements(%s) AS x(v)) y) %s ON true",
					 TYPED_VALUES, values, a);
	if (t->agg == AAGG_COUNT)
		return one_col(psprintf("coalesce(pg_catalog.sum(%s.c), 0)::bigint", a));
	return unit_sums(t, a);
}

static TargetCols
document_target(AggGen *g, ArgoTarget *t, const char *a)
{
	return value_sums(g, t, unit_values(g, t->path, psprintf("%sd", a)), a);
}

/*
 * COUNT(DISTINCT p) through a filter or a negative index: each unit's
 * values there (argo_values_at, one small array per unit) gathered by the
 * group, then the distinct scalars among them counted as 5 and "5" are
 * counted apart.
 */
static TargetCols
document_distinct(AggGen *g, ArgoTarget *t, const char *a)
{
	char	   *values = unit_values(g, t->path, psprintf("%sd", a));

	return one_col(psprintf("(SELECT pg_catalog.count(DISTINCT ROW(y.valnum, y.valstr, y.valbool)) FROM"
							" (SELECT %s FROM pg_catalog.unnest(pg_catalog.array_agg(%s)) AS u(vs),"
							" pg_catalog.jsonb_array_elements(u.vs) AS x(v)) y"
							" WHERE pg_catalog.num_nonnulls(y.valnum, y.valstr, y.valbool) OPERATOR(pg_catalog.>) 0)",
							TYPED_VALUES, values));
}

/* GROUP BY an expression: its value on each unit's document, in the value columns rows have. */
static ValueCols
expr_group(AggGen *g, ArgoPath *path, const char *alias)
{
	char	   *doc = unit_document(g, path, psprintf("%sd", alias));
	ValueCols	v;

	appendStringInfo(&g->buf->sql,
					 " LEFT JOIN LATERAL (SELECT %s FROM (SELECT %s(%s, $%d::pg_catalog.jsonb, NULL::pg_catalog.int4) OPERATOR(pg_catalog.->) 0 AS v) x) %s ON true",
					 TYPED_VALUES, argo_function("argo_compute"), doc, sql_compute_spec(g->buf, path->expr, NULL, false), alias);
	v.num = psprintf("%s.valnum", alias);
	v.str = psprintf("%s.valstr", alias);
	v.boolean = psprintf("%s.valbool", alias);
	return v;
}

/*
 * An aggregate of an expression (reference.md §9.2): the values it
 * computes on each unit's document (argo_compute) — one, or one per
 * element of the array its [*] paths pass through (the unwound unit's
 * element alone where GROUP BY unwinds that array) — summed up per unit
 * as document_target's are, numbers exactly (numeric, §9.3).
 */
static TargetCols
expr_target(AggGen *g, ArgoTarget *t, const char *a)
{
	char	   *doc = unit_document(g, t->path, psprintf("%sd", a));
	bool		by_elem = g->unwind != NULL && t->path->steps != NIL &&
		t->path->first_wild == g->unwind->first_wild && strcmp(t->path->prefix, g->unwind->prefix) == 0;
	char	   *values;

	values = psprintf("%s(%s, $%d::pg_catalog.jsonb, %s)", argo_function("argo_compute"), doc,
					  sql_compute_spec(g->buf, t->expr, t->path, false),
					  by_elem ? "o.e::pg_catalog.int4" : "NULL::pg_catalog.int4");
	if (t->agg == AAGG_COUNT_DISTINCT)
		return one_col(psprintf("(SELECT pg_catalog.count(DISTINCT ROW(y.valnum, y.valstr, y.valbool)) FROM"
								" (SELECT %s FROM pg_catalog.unnest(pg_catalog.array_agg(%s)) AS u(vs),"
								" pg_catalog.jsonb_array_elements(u.vs) AS x(v)) y"
								" WHERE pg_catalog.num_nonnulls(y.valnum, y.valstr, y.valbool) OPERATOR(pg_catalog.>) 0)",
								TYPED_VALUES, values));
	return value_sums(g, t, values, a);
}

/* The joins a target needs go into the statement; its result columns are returned. */
static TargetCols
emit_target(AggGen *g, ArgoTarget *t, int i)
{
	char	   *alias = psprintf("a%d", i);
	ArgoCollection *c;
	ValueCols	v;
	TargetCols	tc = {3};

	switch (t->agg)
	{
		case AAGG_NONE:
			tc.n = 0;
			return tc;			/* a group path: already selected */
		case AAGG_COUNT_STAR:
			return one_col("pg_catalog.count(*)");
		case AAGG_COUNT_DISTINCT:
			if (t->expr != NULL)
				return expr_target(g, t, alias);
			return count_distinct(g, t, alias);
		case AAGG_ARRAY:
		case AAGG_FIRST:
		case AAGG_LAST:
			return value_aggregate(g, t, alias);
		default:
			break;
	}
	if (t->expr != NULL)
		return expr_target(g, t, alias);
	if (t->path->filtered)
		return document_target(g, t, alias);
	if (t->path->wild)
		return wild_target(g, t, alias);
	if (t->path->id)
	{
		/* MIN(ID()), MAX(ID()): a number */
		tc.col[0] = psprintf("pg_catalog.%s(o.objid)::pg_catalog.float8", t->agg == AAGG_MIN ? "min" : "max");
		tc.col[1] = "NULL::pg_catalog.text";
		tc.col[2] = "NULL::boolean";
		return tc;
	}
	c = coll_of_path(g->q, t->path);
	if (t->agg == AAGG_COUNT)
	{
		/* objects having the path at all: null, {} and [] count */
		appendStringInfoString(&g->buf->sql, " LEFT JOIN (SELECT DISTINCT objid FROM ");
		sql_rows_of_table(g->buf, c);
		appendStringInfoString(&g->buf->sql, " r WHERE ");
		sql_subtree_match(g->buf, c, "keyid", t->path->keystr);
		appendStringInfoChar(&g->buf->sql, ')');
		emit_unit_join(g, alias, t->path, false);
		return one_col(psprintf("pg_catalog.count(%s.objid)", alias));
	}
	/* SUM and AVG exactly, over the numbers as written (reference.md §9.3) */
	if (t->agg == AAGG_SUM || t->agg == AAGG_AVG)
		return one_col(psprintf("pg_catalog.%s(%s)", t->agg == AAGG_SUM ? "sum" : "avg",
								sql_exact_join(g->buf, c, objid_of(g->q, t->path), t->path->keystr, alias,
											   (g->q->setwise_sources & ((uint32) 1 << t->path->source)) != 0)));
	v = value_join(g, c, t->path, alias);
	if (t->agg == AAGG_COUNT_NUMBERS)
		return one_col(psprintf("pg_catalog.count(%s)", v.num));
	tc.col[0] = psprintf("pg_catalog.%s(%s)", t->agg == AAGG_MIN ? "min" : "max", v.num);
	tc.col[1] = psprintf("pg_catalog.%s(%s)", t->agg == AAGG_MIN ? "min" : "max", v.str);
	tc.col[2] = psprintf("pg_catalog.%s(%s)", t->agg == AAGG_MIN ? "bool_and" : "bool_or", v.boolean);
	return tc;
}

/*
 * A group path with a negative index (a[-1]): no key id names its value,
 * so each unit's scalar there is read from its object (argo_values_at,
 * which walks Argo/SQL's steps: jsonb's #> would take a key "-1" of an
 * object for the index), in the value columns rows have.
 */
static ValueCols
document_group(AggGen *g, ArgoPath *path, const char *alias)
{
	char	   *doc = unit_document(g, path, psprintf("%sd", alias));
	ValueCols	v;

	appendStringInfo(&g->buf->sql, " LEFT JOIN LATERAL (SELECT %s FROM (SELECT %s AS v) x) %s ON true",
					 TYPED_VALUES, values_at(g->buf, doc, path->steps, true), alias);
	v.num = psprintf("%s.valnum", alias);
	v.str = psprintf("%s.valstr", alias);
	v.boolean = psprintf("%s.valbool", alias);
	return v;
}

/*
 * A group path's value columns in each unit: the object's scalar there,
 * or for a path with [*] the scalar of the unit's element.
 */
static ValueCols
emit_group(AggGen *g, ArgoPath *path, int i)
{
	ArgoCollection *c = coll_of_path(g->q, path);
	char	   *alias = psprintf("g%d", i);
	KeyArrays	k;
	ValueCols	v;

	if (path->expr != NULL)
		return expr_group(g, path, alias);
	if (path->filtered && !path->wild)
		return document_group(g, path, alias);
	if (!path->wild)
		return value_join(g, c, path, alias);
	k = sql_path_key_arrays(g->buf, c, path, false, path->first_wild);
	appendStringInfoString(&g->buf->sql, " LEFT JOIN (SELECT r.objid, m.e, r.valnum, r.valstr, r.valbool FROM ");
	sql_rows_of_table(g->buf, c);
	appendStringInfo(&g->buf->sql,
					 " r JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS m(k, e) ON r.keyid OPERATOR(pg_catalog.=) m.k)",
					 k.keys, k.elems);
	emit_unit_join(g, alias, path, true);
	v.num = psprintf("%s.valnum", alias);
	v.str = psprintf("%s.valstr", alias);
	v.boolean = psprintf("%s.valbool", alias);
	return v;
}

/*
 * "LATERAL (SELECT e …)": the positions in b's object of the elements a
 * GROUP BY path's filter keeps (items[? qty > 1].sku), judged on the
 * object's document as every filter is; the group values are then read
 * from the rows at those positions, as for [*].
 */
static void
kept_elements(SqlBuf *buf, ArgoCollection *c, ArgoPath *path)
{
	ArgoStep   *filter = list_nth(path->steps, path->first_wild);
	bool		docs = docs_readable(c);
	char	   *doc;
	char	   *array;

	Assert(filter->filter != NULL);
	if (docs)
		appendStringInfo(&buf->sql, "%s bd ON bd.objid OPERATOR(pg_catalog.=) b.objid LEFT JOIN ",
						 c->doc_table);
	doc = psprintf("%s%s($%d, b.objid)%s", docs ? "COALESCE(bd.doc, " : "",
				   argo_function("argo_object"),
				   sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name)), docs ? ")" : "");
	array = array_at(buf, path, doc);
	appendStringInfo(&buf->sql,
					 "LATERAL (SELECT (x.n - 1)::integer AS e FROM (SELECT %s AS a) y,"
					 " pg_catalog.jsonb_array_elements(CASE WHEN pg_catalog.jsonb_typeof(y.a) OPERATOR(pg_catalog.=) 'array'"
					 " THEN y.a END) WITH ORDINALITY AS x(v, n)"
					 " WHERE %s(x.v, $%d::pg_catalog.jsonb) IS TRUE)",
					 array, argo_function("argo_filter_test"),
					 sqlbuf_param(buf, JSONBOID, JsonbPGetDatum(sql_pred_spec(filter->filter))));
}

/*
 * FROM the units: the selected objects (o.objid), each element of the
 * unwound array with its object (o.objid, o.e; e NULL for an object with
 * none), or the join's tuples (o.o0, o.o1, …): the tuples are counted,
 * not distinct objects, as SQL's aggregates over a join count rows.
 */
static SqlBuf *
aggregate_source(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf;

	if (list_length(s->from) > 1)
	{
		buf = joinsql_tuples(q);
		appendStringInfoString(&buf->sql, "SELECT @COLS@ FROM j o");
		return buf;
	}
	buf = sqlbuf_create();
	if (s->unwind == NULL)
	{
		appendStringInfoString(&buf->sql, "SELECT @COLS@ FROM (");
		sql_base_objids(buf, c, s->where);
		appendStringInfoString(&buf->sql, ") o");
		return buf;
	}
	appendStringInfoString(&buf->sql, "SELECT @COLS@ FROM (SELECT b.objid, x.e FROM (");
	sql_base_objids(buf, c, s->where);
	appendStringInfoString(&buf->sql, ") b LEFT JOIN ");
	if (s->unwind->filtered)
	{
		kept_elements(buf, c, s->unwind);
		appendStringInfoString(&buf->sql, " x ON true) o");
		return buf;
	}
	sql_array_elements(buf, c, s->unwind);
	appendStringInfoString(&buf->sql, " x ON x.objid OPERATOR(pg_catalog.=) b.objid) o");
	return buf;
}

/* Where t is among the statement's targets. */
static int
agg_target_index(List *targets, ArgoTarget *t)
{
	ListCell   *lc;

	foreach(lc, targets)
		if (lfirst(lc) == t)
			return foreach_current_index(lc);
	elog(ERROR, "an aggregate that is not a target");
	return -1;
}

/*
 * An aggregate's value as three typed columns of which at most one is
 * not null: MIN is the first present of number, string, boolean; MAX
 * the first of boolean, string, number (the cross-type order's last).
 */
static ValueCols
aggregate_value(TargetCols *tc, bool max)
{
	ValueCols	v;
	char	   *n = tc->col[0],
			   *s = tc->col[1],
			   *b = tc->col[2];

	if (tc->n == 1)
	{
		v.num = psprintf("(%s)::pg_catalog.float8", tc->col[0]);
		v.str = "NULL::pg_catalog.text";
		v.boolean = "NULL::boolean";
	}
	else if (!max)
	{
		v.num = n;
		v.str = psprintf("CASE WHEN %s IS NULL THEN %s END", n, s);
		v.boolean = psprintf("CASE WHEN %s IS NULL AND %s IS NULL THEN %s END", n, s, b);
	}
	else
	{
		v.num = psprintf("CASE WHEN %s IS NULL AND %s IS NULL THEN %s END", b, s, n);
		v.str = psprintf("CASE WHEN %s IS NULL THEN %s END", b, s);
		v.boolean = b;
	}
	return v;
}

/*
 * A HAVING comparison: the aggregate's value of the literal's type
 * compared with it; NULL (UNKNOWN) when the aggregate is not of that
 * type.  MIN and MAX are the first value in the cross-type order
 * (numbers, strings, booleans), so a string minimum exists only where
 * there is no number.
 */
static void
emit_having_leaf(AggGen *g, ArgoPred *p)
{
	static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
	TargetCols *tc = &g->targets[agg_target_index(g->q->stmt->targets, p->agg)];
	ArgoLiteral *lit = p->lit;
	int			t = lit->type == ALIT_NUMBER ? 0 : lit->type == ALIT_STRING ? 1 : 2;
	ValueCols	v = aggregate_value(tc, p->agg->agg == AAGG_MAX);
	const char *value = t == 0 ? v.num : t == 1 ? v.str : v.boolean;
	StringInfo	sql = &g->buf->sql;

	appendStringInfo(sql, "(%s OPERATOR(pg_catalog.%s) ", value, ops[p->op]);
	if (t == 0)
		sqlbuf_add_param(g->buf, FLOAT8OID, Float8GetDatum(lit->num));
	else if (t == 1)
	{
		sqlbuf_add_text(g->buf, lit->str);
		appendStringInfoString(sql, "::pg_catalog.text");
	}
	else
		sqlbuf_add_param(g->buf, BOOLOID, BoolGetDatum(lit->b));
	appendStringInfoChar(sql, ')');
}

/* HAVING, by SQL's own three-valued logic. */
static void
emit_having(AggGen *g, ArgoPred *p)
{
	ListCell   *lc;

	check_stack_depth();
	switch (p->kind)
	{
		case APRED_AND:
		case APRED_OR:
			appendStringInfoChar(&g->buf->sql, '(');
			foreach(lc, p->args)
			{
				if (foreach_current_index(lc) > 0)
					appendStringInfoString(&g->buf->sql, p->kind == APRED_AND ? " AND " : " OR ");
				emit_having(g, lfirst(lc));
			}
			appendStringInfoChar(&g->buf->sql, ')');
			break;
		case APRED_NOT:
			appendStringInfoString(&g->buf->sql, "(NOT ");
			emit_having(g, p->left);
			appendStringInfoChar(&g->buf->sql, ')');
			break;
		default:
			emit_having_leaf(g, p);
	}
}

/* ORDER BY group paths and aggregates, in the cross-type order. */
static void
emit_order(AggGen *g)
{
	ArgoStmt   *s = g->q->stmt;
	ListCell   *lc;

	appendStringInfoString(&g->buf->sql, " ORDER BY ");
	foreach(lc, s->order_by)
	{
		ArgoOrder  *o = lfirst(lc);
		ValueCols	v;

		if (foreach_current_index(lc) > 0)
			appendStringInfoString(&g->buf->sql, ", ");
		if (o->agg == NULL)
		{
			ListCell   *gc;

			foreach(gc, s->group_by)
				if (strcmp(((ArgoPath *) lfirst(gc))->keystr, o->path->keystr) == 0 &&
					((ArgoPath *) lfirst(gc))->source == o->path->source)
					v = g->groups[foreach_current_index(gc)];
		}
		else
			v = aggregate_value(&g->targets[agg_target_index(s->targets, o->agg)],
								o->agg->agg == AAGG_MAX);
		sql_order_keys(&g->buf->sql, &v, o->desc, o->nulls_first);
	}
	/* ties in the groups' own order, the same whatever the plan */
	for (int i = 0; i < list_length(s->group_by); i++)
	{
		appendStringInfoString(&g->buf->sql, ", ");
		sql_order_keys(&g->buf->sql, &g->groups[i], false, false);
	}
}

SqlBuf *
aggsql_build(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	SqlBuf	   *buf = sqlgen_aggregate_direct(q);
	AggGen		g = {q};
	StringInfoData cols;
	ListCell   *lc;

	if (buf != NULL)
		return buf;
	g.unwind = s->unwind;
	g.groups = palloc(sizeof(ValueCols) * Max(list_length(s->group_by), 1));
	g.targets = palloc(sizeof(TargetCols) * Max(list_length(s->targets), 1));
	if (unwind_docs_applies(q))
		g.buf = buf = unwind_docs(q, g.groups, g.targets);
	else if (unwind_one_pass_applies(q))
		g.buf = buf = unwind_one_pass(q, g.groups, g.targets);
	else
	{
		g.buf = buf = aggregate_source(q);
		foreach(lc, s->group_by)
			g.groups[foreach_current_index(lc)] = emit_group(&g, lfirst(lc), foreach_current_index(lc));
		foreach(lc, s->targets)
			g.targets[foreach_current_index(lc)] = emit_target(&g, lfirst(lc), foreach_current_index(lc));
	}
	buf->custom_plan = true;
	initStringInfo(&cols);
	for (int i = 0; i < list_length(s->group_by); i++)
		appendStringInfo(&cols, "%s%s, %s, %s", cols.len ? ", " : "",
						 g.groups[i].num, g.groups[i].str, g.groups[i].boolean);
	foreach(lc, s->targets)
	{
		TargetCols *tc = &g.targets[foreach_current_index(lc)];

		for (int i = 0; i < tc->n; i++)
			appendStringInfo(&cols, "%s%s", cols.len ? ", " : "", tc->col[i]);
	}
	if (cols.len == 0)
		appendStringInfoString(&cols, "NULL");
	if (s->group_by)
	{
		appendStringInfoString(&buf->sql, " GROUP BY ");
		foreach(lc, s->group_by)
		{
			ValueCols  *v = &g.groups[foreach_current_index(lc)];

			appendStringInfo(&buf->sql, "%s%s, %s, %s", foreach_current_index(lc) ? ", " : "",
							 v->num, v->str, v->boolean);
		}
	}
	if (s->having)
	{
		appendStringInfoString(&buf->sql, " HAVING ");
		emit_having(&g, s->having);
	}
	if (s->order_by)
		emit_order(&g);
	sql_limit_offset(buf, s);
	sqlbuf_replace(buf, "@COLS@", cols.data);
	return buf;
}

