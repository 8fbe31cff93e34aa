/*
 * aggscan.c — aggregates of a whole collection straight off its value rows.
 *
 * Without WHERE, an aggregate needs no object at all: a key has at most
 * one row per object, so MIN(p) is the first entry of p's (keyid, value)
 * index (an index probe, where joining every object to its value took 50
 * ms at 100k objects), SUM(p) sums p's number rows, COUNT(*) counts the
 * directory, and GROUP BY p with COUNT(*) counts p's rows per value, the
 * objects lacking a scalar at p being the rest.  The result has the
 * columns aggregate.c's general plan has, so it rebuilds the same way.
 */
#include "postgres.h"

#include "common/common.h"
#include "store/collection.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

/* A typed table of c and its value column: 0 numbers, 1 strings, 2 booleans. */
static void
typed(ArgoCollection *c, int t, const char **table, const char **col)
{
	static const char *const cols[] = {"valnum", "valstr", "valbool"};

	*col = cols[t];
	if (c->format == ARGO_FORMAT_ARGO1)
		*table = c->data_table;
	else
		*table = t == 0 ? c->num_table : t == 1 ? c->str_table : c->bool_table;
}

/*
 * The least (or greatest) value of one type at the key(s) (keys: "=
 * $k", or "= ANY($keys)" for a path with [*]), by the index: for numbers
 * min()/max(), which the planner reads off (keyid, valnum); for strings
 * the extreme indexed prefix first, then the extreme string among the
 * rows sharing it; for booleans the first row in order.
 */
static void
emit_extreme(StringInfo sql, ArgoCollection *c, int t, const char *keys, bool max)
{
	const char *fn = max ? "pg_catalog.max" : "pg_catalog.min";
	const char *table;
	const char *col;

	typed(c, t, &table, &col);
	if (t == 0)
		appendStringInfo(sql, ", (SELECT %s(valnum) FROM %s WHERE keyid %s)", fn, table, keys);
	else if (t == 1)
		appendStringInfo(sql,
						 ", (SELECT %s(valstr) FROM %s WHERE keyid %s AND pg_catalog.left(valstr, %d) OPERATOR(pg_catalog.=) "
						 "(SELECT %s(pg_catalog.left(valstr, %d)) FROM %s WHERE keyid %s))",
						 fn, table, keys, ARGO_STR_PREFIX_CHARS, fn, ARGO_STR_PREFIX_CHARS, table, keys);
	else
		appendStringInfo(sql,
						 ", (SELECT valbool FROM %s WHERE keyid %s AND valbool IS NOT NULL ORDER BY valbool%s LIMIT 1)",
						 table, keys, max ? " DESC" : "");
}

/* "OPERATOR(=) $k" for a path's key, "OPERATOR(=) ANY($keys)" for [*]'s. */
static char *
keys_operand(SqlBuf *buf, ArgoCollection *c, ArgoPath *path)
{
	if (path->wild)
		return psprintf("OPERATOR(pg_catalog.=) ANY($%d)",
						sql_keys_param(buf, sql_path_keys(c, path, false)));
	return psprintf("OPERATOR(pg_catalog.=) $%d", sql_key_param(buf, c, path->keystr));
}

/* One target's columns, as aggregate.c lays them out. */
static void
emit_target(SqlBuf *buf, ArgoCollection *c, ArgoTarget *t)
{
	StringInfo	sql = &buf->sql;
	const char *table;
	const char *col;
	char	   *keys;

	switch (t->agg)
	{
		case AAGG_COUNT_STAR:
			appendStringInfo(sql, ", (SELECT pg_catalog.count(*) FROM %s)", c->obj_table);
			return;
		case AAGG_COUNT:
			if (t->path->wild)
			{
				/* the values reached, null, objects and arrays included */
				appendStringInfoString(sql, ", (SELECT coalesce(pg_catalog.sum(v.n), 0)::bigint FROM ");
				sql_values_reached(buf, c, t->path, -1);
				appendStringInfoString(sql, " v)");
				return;
			}
			appendStringInfoString(sql, ", (SELECT pg_catalog.count(DISTINCT objid) FROM ");
			sql_rows_of_table(buf, c);
			appendStringInfoString(sql, " r WHERE ");
			sql_subtree_match(buf, c, "keyid", t->path->keystr);
			appendStringInfoChar(sql, ')');
			return;
		case AAGG_SUM:
		case AAGG_AVG:
		case AAGG_COUNT_NUMBERS:
			/* SUM and AVG exact, in numeric over the numbers as written (reference.md §9.3) */
			typed(c, 0, &table, &col);
			appendStringInfo(sql, ", (SELECT %s(%s) FROM %s WHERE keyid %s)",
							 t->agg == AAGG_SUM ? "pg_catalog.sum" :
							 t->agg == AAGG_AVG ? "pg_catalog.avg" : "pg_catalog.count",
							 t->agg == AAGG_COUNT_NUMBERS ? "valnum" : sql_exact_number(""), table,
							 keys_operand(buf, c, t->path));
			return;
		case AAGG_MIN:
		case AAGG_MAX:
			if (t->path->id)
			{
				appendStringInfo(sql, ", (SELECT pg_catalog.%s(objid)::pg_catalog.float8 FROM %s), NULL::pg_catalog.text, NULL::boolean",
								 t->agg == AAGG_MIN ? "min" : "max", c->obj_table);
				return;
			}
			keys = keys_operand(buf, c, t->path);
			for (int ty = 0; ty < 3; ty++)
				emit_extreme(sql, c, ty, keys, t->agg == AAGG_MAX);
			return;
		case AAGG_NONE:
		case AAGG_COUNT_DISTINCT:	/* not read off the rows directly */
		case AAGG_ARRAY:
		case AAGG_FIRST:
		case AAGG_LAST:
			return;
	}
}

/*
 * GROUP BY p with COUNT(*)s: each scalar at p with its rows, then one
 * group for the objects with no scalar there (all objects but those
 * counted), if any.
 */
static void
emit_grouped_counts(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s)
{
	StringInfo	sql = &buf->sql;
	int			k = sql_key_param(buf, c, ((ArgoPath *) linitial(s->group_by))->keystr);
	ListCell   *lc;

	appendStringInfoString(sql, "WITH grp AS MATERIALIZED (");
	/* Argo/1: one pass over the key's rows, whatever their types */
	if (c->format == ARGO_FORMAT_ARGO1)
		appendStringInfo(sql, "SELECT valnum AS gn, valstr AS gs, valbool AS gb, pg_catalog.count(*) AS cnt FROM %s "
						 "WHERE keyid OPERATOR(pg_catalog.=) $%d AND pg_catalog.num_nonnulls(valnum, valstr, valbool) OPERATOR(pg_catalog.=) 1 GROUP BY 1, 2, 3",
						 c->data_table, k);
	for (int t = 0; t < 3 && c->format == ARGO_FORMAT_ARGO3; t++)
	{
		const char *table;
		const char *col;

		typed(c, t, &table, &col);
		appendStringInfo(sql, "%sSELECT %s AS gn, %s AS gs, %s AS gb, pg_catalog.count(*) AS cnt FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d AND %s IS NOT NULL GROUP BY %s",
						 t ? " UNION ALL " : "",
						 t == 0 ? col : "NULL::pg_catalog.float8", t == 1 ? col : "NULL::pg_catalog.text",
						 t == 2 ? col : "NULL::boolean", table, k, col, col);
	}
	appendStringInfoString(sql, ") SELECT gn, gs, gb");
	foreach(lc, s->targets)
	{
		if (((ArgoTarget *) lfirst(lc))->agg == AAGG_COUNT_STAR)
			appendStringInfoString(sql, ", cnt");
	}
	appendStringInfo(sql,
					 " FROM (SELECT * FROM grp UNION ALL SELECT NULL, NULL, NULL, n FROM "
					 "(SELECT ((SELECT pg_catalog.count(*) FROM %s) OPERATOR(pg_catalog.-) (SELECT coalesce(pg_catalog.sum(cnt), 0) FROM grp))::bigint AS n OFFSET 0) x WHERE n OPERATOR(pg_catalog.>) 0) g",
					 c->obj_table);
	if (s->order_by)
	{
		ValueCols	g = {"gn", "gs", "gb"};
		ArgoOrder  *ob = linitial(s->order_by);

		appendStringInfoString(sql, " ORDER BY ");
		sql_order_keys(sql, &g, ob->desc, ob->nulls_first);
	}
}

/* GROUP BY p whose other targets are all COUNT(*) (or none). */
static bool
counts_only(ArgoStmt *s)
{
	ListCell   *lc;

	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg != AAGG_NONE && t->agg != AAGG_COUNT_STAR)
			return false;
	}
	return true;
}

/*
 * The aggregate straight off the value rows, or NULL where it needs the
 * objects (a WHERE, a join, GROUP BY with other aggregates).
 */
SqlBuf *
sqlgen_aggregate_direct(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf;
	ListCell   *lc;

	if (s->where || list_length(s->from) > 1 || s->having ||
		list_length(s->group_by) > 1 || s->unwind || list_length(s->order_by) > 1 ||
		(s->order_by && ((ArgoOrder *) linitial(s->order_by))->agg != NULL) ||
		(s->group_by && !counts_only(s)) ||
		(s->group_by && ((ArgoPath *) linitial(s->group_by))->filtered))
		return NULL;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		/* a filter or a negative index is read from each document (aggregate.c) */
		if (t->agg == AAGG_COUNT_DISTINCT || argo_value_aggregate(t->agg) ||
			(t->path != NULL && t->path->filtered))
			return NULL;
	}
	buf = sqlbuf_create();
	if (s->group_by)
		emit_grouped_counts(buf, c, s);
	else
	{
		int			start;

		appendStringInfoString(&buf->sql, "SELECT ");
		start = buf->sql.len;
		foreach(lc, s->targets)
			emit_target(buf, c, lfirst(lc));
		/* each target's columns begin ", ": not the first */
		memmove(buf->sql.data + start, buf->sql.data + start + 2, buf->sql.len - start - 1);
		buf->sql.len -= 2;
	}
	sql_limit_offset(buf, s);
	return buf;
}
