/*
 * topn.c — ORDER BY one path with LIMIT: the first objects in that order,
 * read from the (keyid, value) indexes instead of sorting every object.
 *
 * Each type's rows at the path come in index order, each limited to
 * LIMIT + OFFSET; the sort across types (numbers < strings < booleans <
 * objects lacking a scalar there) then merges a few rows.  Objects
 * lacking a scalar are looked for only when needed: with ASC, only if the
 * typed rows are too few (a one-time filter); with DESC they come first.
 *
 * When WHERE only bounds the ORDER BY path itself (p >= x ORDER BY p
 * LIMIT n: a short range scan), the bounds go into that one type's index
 * scan: the first n rows from x on, instead of every object from x on
 * found first and then filtered.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "common/common.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

/* Conditions on a candidate row alias.objid: WHERE (b) and projection. */
static void
emit_candidate_filter(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s,
					  const char *alias)
{
	if (s->where)
		appendStringInfo(&buf->sql, " AND %s.objid OPERATOR(pg_catalog.=) ANY (SELECT objid FROM b)", alias);
	/* an object with none of the projected paths is not returned */
	if (!s->star && !s->id_name)
	{
		appendStringInfoString(&buf->sql, " AND EXISTS (SELECT 1 FROM ");
		sql_rows_of_table(buf, c);
		appendStringInfo(&buf->sql, " r WHERE r.objid OPERATOR(pg_catalog.=) %s.objid AND ", alias);
		sql_projection_filter(buf, c, "r.keyid", s->targets, 0);
		appendStringInfoChar(&buf->sql, ')');
	}
}

/*
 * WHERE's terms when every one is a comparison (not !=) or BETWEEN on
 * the ORDER BY path with literals of one type: only values of that type
 * can satisfy it.  NIL otherwise.
 */
static List *
order_path_bounds(ArgoStmt *s)
{
	ArgoPath   *op = ((ArgoOrder *) linitial(s->order_by))->path;
	List	   *terms;
	ListCell   *lc;
	ArgoLitType type = ALIT_NULL;

	if (s->where == NULL)
		return NIL;
	terms = s->where->kind == APRED_AND ? s->where->args : list_make1(s->where);
	foreach(lc, terms)
	{
		ArgoPred   *p = lfirst(lc);

		if (!((p->kind == APRED_CMP && p->op != ACMP_NE && p->lit->type != ALIT_JSON) ||
			  (p->kind == APRED_BETWEEN && p->lit->type == p->lit2->type)) ||
			strcmp(p->path->keystr, op->keystr) != 0 ||
			(type != ALIT_NULL && p->lit->type != type))
			return NIL;
		type = p->lit->type;
	}
	return terms;
}

/* The typed branch a bounded path's literals pick: 0 number, 1 string, 2 boolean. */
static int
bounds_branch(List *bounds)
{
	ArgoLitType t = ((ArgoPred *) linitial(bounds))->lit->type;

	return t == ALIT_NUMBER ? 0 : t == ALIT_STRING ? 1 : 2;
}

static void
emit_bounds(SqlBuf *buf, List *bounds)
{
	ListCell   *lc;

	foreach(lc, bounds)
	{
		ArgoPred   *p = lfirst(lc);

		appendStringInfoString(&buf->sql, " AND ");
		if (p->kind == APRED_BETWEEN)
		{
			sql_value_comparison(buf, p->lit, ACMP_GE);
			appendStringInfoString(&buf->sql, " AND ");
			sql_value_comparison(buf, p->lit2, ACMP_LE);
		}
		else
			sql_value_comparison(buf, p->lit, p->op);
	}
}

/* One type's rows at the path, in index order, the first lim of them. */
static void
emit_typed_branch(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s, int t,
				  int k, int lim, List *bounds)
{
	static const char *const cols[] = {
		"valnum, NULL::pg_catalog.text, NULL::boolean",
		"NULL::pg_catalog.float8, valstr, NULL::boolean",
		"NULL::pg_catalog.float8, NULL::pg_catalog.text, valbool"
	};
	ArgoOrder  *ob = linitial(s->order_by);
	const char *dir = ob->desc ? " DESC" : "";
	const char *table;
	const char *present;

	if (c->format == ARGO_FORMAT_ARGO1)
		table = c->data_table;
	else
		table = t == 0 ? c->num_table : t == 1 ? c->str_table : c->bool_table;
	present = t == 0 ? "valnum IS NOT NULL" : t == 1 ? "valstr IS NOT NULL" :
		"valbool IS NOT NULL";
	appendStringInfo(&buf->sql,
					 "(SELECT x.objid, %d AS t, %s FROM %s x WHERE x.keyid OPERATOR(pg_catalog.=) $%d AND %s",
					 t, cols[t], table, k, present);
	if (bounds != NIL)
	{
		ArgoStmt	unfiltered = *s;

		emit_bounds(buf, bounds);
		unfiltered.where = NULL;
		emit_candidate_filter(buf, c, &unfiltered, "x");
	}
	else
		emit_candidate_filter(buf, c, s, "x");
	/*
	 * Numbers and strings: exactly the (keyid, value) index's order, and
	 * the rows tying with the last, for the final sort by value and id to
	 * cut; a sort here would let PostgreSQL prefer reading the whole
	 * range.  (The string index holds the prefix: it orders alike.)
	 * Booleans tie by the million: sorted by id here.
	 */
	if (t == 1)
		appendStringInfo(&buf->sql, " ORDER BY pg_catalog.left(valstr, %d)%s FETCH FIRST $%d ROWS WITH TIES)",
						 ARGO_STR_PREFIX_CHARS, dir, lim);
	else if (t == 0)
		appendStringInfo(&buf->sql, " ORDER BY valnum%s FETCH FIRST $%d ROWS WITH TIES)",
						 dir, lim);
	else
		appendStringInfo(&buf->sql, " ORDER BY valbool%s, x.objid LIMIT $%d)", dir, lim);
}

/*
 * " AND (some object lacks a scalar at key k)", as a one-time filter:
 * the directory counts more objects than the key has scalars (a path
 * holds one value in an object).  With DESC the objects lacking one come
 * first, and finding them was an anti-join of every object against the
 * key's rows (145 ms at 200k orders, ORDER BY created DESC LIMIT 20
 * OFFSET 10000) where there were none; two index counts cost a tenth
 * (and the key's complete flag, when set, spares them: below).
 */
static void
emit_some_lack(SqlBuf *buf, ArgoCollection *c, int k)
{
	appendStringInfo(&buf->sql, " AND (SELECT pg_catalog.count(*) FROM %s) OPERATOR(pg_catalog.>) (",
					 c->obj_table);
	if (c->format == ARGO_FORMAT_ARGO1)
		appendStringInfo(&buf->sql,
						 "SELECT pg_catalog.count(*) FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d"
						 " AND pg_catalog.num_nonnulls(valstr, valnum, valbool) OPERATOR(pg_catalog.>) 0)",
						 c->data_table, k);
	else
		appendStringInfo(&buf->sql,
						 "(SELECT pg_catalog.count(*) FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d)"
						 " OPERATOR(pg_catalog.+) (SELECT pg_catalog.count(*) FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d)"
						 " OPERATOR(pg_catalog.+) (SELECT pg_catalog.count(*) FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d AND valbool IS NOT NULL))",
						 c->num_table, k, c->str_table, k, c->bool_table, k);
}

/*
 * Objects (passing the filters) with no scalar at the path.  With DESC,
 * none where the key's complete flag says so (store/keyflags.c): tested
 * above the branch, a one-time filter over a subquery with a LIMIT.
 * Inside, a parallel plan's Gather evaluated every InitPlan its quals
 * name before it started, the counts of emit_some_lack included (75 of
 * 78 ms at 200k orders where the flag was set).
 */
static void
emit_lacking_branch(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s, int k, int lim)
{
	ArgoOrder  *ob = linitial(s->order_by);
	char	   *complete = ob->desc ? keyflags_sql(c, k) : NULL;

	if (complete)
		appendStringInfoString(&buf->sql, "(SELECT * FROM ");
	appendStringInfoString(&buf->sql, "(SELECT o.objid, 3, NULL::pg_catalog.float8, NULL::pg_catalog.text, NULL::boolean FROM (");
	if (s->where)
		appendStringInfoString(&buf->sql, "SELECT objid FROM b");
	else
		sql_all_objids(buf, c);
	appendStringInfoString(&buf->sql, ") o WHERE true");
	if (!ob->desc)
		appendStringInfo(&buf->sql, " AND (SELECT pg_catalog.count(*) FROM t) OPERATOR(pg_catalog.<) $%d", lim);
	else if (s->where == NULL)
		emit_some_lack(buf, c, k);
	if (c->format == ARGO_FORMAT_ARGO1)
		appendStringInfo(&buf->sql,
						 " AND NOT EXISTS (SELECT 1 FROM %s x WHERE x.objid OPERATOR(pg_catalog.=) o.objid AND x.keyid OPERATOR(pg_catalog.=) $%d AND pg_catalog.num_nonnulls(x.valstr, x.valnum, x.valbool) OPERATOR(pg_catalog.>) 0)",
						 c->data_table, k);
	else
		appendStringInfo(&buf->sql,
						 " AND NOT EXISTS (SELECT 1 FROM %s x WHERE x.objid OPERATOR(pg_catalog.=) o.objid AND x.keyid OPERATOR(pg_catalog.=) $%d)"
						 " AND NOT EXISTS (SELECT 1 FROM %s x WHERE x.objid OPERATOR(pg_catalog.=) o.objid AND x.keyid OPERATOR(pg_catalog.=) $%d)"
						 " AND NOT EXISTS (SELECT 1 FROM %s x WHERE x.objid OPERATOR(pg_catalog.=) o.objid AND x.keyid OPERATOR(pg_catalog.=) $%d AND x.valbool IS NOT NULL)",
						 c->num_table, k, c->str_table, k, c->bool_table, k);
	emit_candidate_filter(buf, c, s, "o");
	appendStringInfo(&buf->sql, " ORDER BY o.objid LIMIT $%d)", lim);
	if (complete)
		appendStringInfo(&buf->sql, " l WHERE NOT %s)", complete);
}

/* Worth it when the statement orders by one path and has a LIMIT. */
bool
topn_applies(ArgoStmt *s)
{
	ArgoOrder  *ob = list_length(s->order_by) == 1 ? linitial(s->order_by) : NULL;

	/* its branches put objects lacking the path where the default order does */
	return ob != NULL && s->limit != NULL && !ob->path->id && !ob->path->filtered &&
		ob->nulls_first == ob->desc;
}

/* m's body for topn_applies statements: (objid, ord), LIMIT/OFFSET applied. */
void
topn_emit_ids(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s)
{
	ArgoOrder  *ob = linitial(s->order_by);
	const char *dir = ob->desc ? " DESC" : "";
	int64		want = (int64) s->limit->num + (s->offset ? (int64) s->offset->num : 0);
	List	   *bounds = order_path_bounds(s);
	int			k;
	int			lim;
	char	   *keys;

	buf->custom_plan = true;
	k = sql_key_param(buf, c, ob->path->keystr);
	lim = sqlbuf_param(buf, INT8OID, Int64GetDatum(want));
	keys = psprintf("u.t%s, u.n%s, u.s%s, u.v%s, u.objid", dir, dir, dir, dir);
	if (bounds != NIL)
	{
		/*
		 * Only the bounded type's rows can satisfy WHERE.  Planned once,
		 * without the values: the planner, misled by a key's values and
		 * another's sharing one histogram, would otherwise read every row
		 * from the bound on to sort them (a bitmap scan) rather than the
		 * first few in index order.
		 */
		appendStringInfoString(&buf->sql, "SELECT u.objid, pg_catalog.row_number() OVER (ORDER BY ");
		appendStringInfo(&buf->sql, "%s) AS ord FROM ", keys);
		emit_typed_branch(buf, c, s, bounds_branch(bounds), k, lim, bounds);
		appendStringInfo(&buf->sql, " u(objid, t, n, s, v) ORDER BY %s", keys);
		sql_limit_offset(buf, s);
		buf->custom_plan = false;
		buf->generic_plan = true;
		return;
	}
	appendStringInfoString(&buf->sql, "WITH ");
	if (s->where)
	{
		appendStringInfoString(&buf->sql, "b AS MATERIALIZED (");
		sql_base_objids(buf, c, s->where);
		appendStringInfoString(&buf->sql, "), ");
	}
	appendStringInfoString(&buf->sql, "t AS MATERIALIZED (");
	for (int t = 0; t < 3; t++)
	{
		if (t > 0)
			appendStringInfoString(&buf->sql, " UNION ALL ");
		emit_typed_branch(buf, c, s, t, k, lim, NIL);
	}
	appendStringInfo(&buf->sql,
					 ") SELECT u.objid, pg_catalog.row_number() OVER (ORDER BY %s) AS ord FROM (SELECT * FROM t UNION ALL ",
					 keys);
	emit_lacking_branch(buf, c, s, k, lim);
	appendStringInfo(&buf->sql, ") u(objid, t, n, s, v) ORDER BY %s", keys);
	sql_limit_offset(buf, s);
}
