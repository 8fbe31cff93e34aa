/*
 * firstgroup.c — ORDER BY two paths with LIMIT over every object: the
 * first objects are those of the first path's first value, in the
 * second path's order, when that group alone fills the LIMIT.  And
 * WHERE p = literal ORDER BY q LIMIT n alike: the group is WHERE's.
 *
 * ORDER BY status, total DESC LIMIT 20 sorted the sort keys of every
 * object (212 ms at 200,000 orders; jsonb with an index on both, 1 ms).
 * Here the first status comes from its index, the second path's index
 * is walked in its order (a bounded stretch of it), and each object met
 * is kept if it holds that status (an index probe), until LIMIT + OFFSET
 * are found.  The sort guarantees this: every object of the first group
 * sorts before every other, given that
 *   - each path holds one type only (other types sort elsewhere), and
 *   - no object lacks a path whose lacking objects sort first (the
 *     keys' complete flags, store/keyflags.c);
 * both checked in the same statement, under its snapshot, as a one-time
 * filter.  When a check fails or the group is too small, the general
 * sort runs instead (its SQL follows, behind the opposite filter).
 *
 * WHERE status = 'new' ORDER BY created DESC LIMIT 20 probed the created
 * row of each of 26,322 new orders (170 ms); the walk meets about 150.
 * And ORDER BY one path of one type, every object: the index's first
 * rows are the answer, without the top-N's merge of three types and
 * objects lacking the path, sorted and numbered (LIMIT 20 OFFSET 10000).
 */
#include "postgres.h"

#include "catalog/pg_type.h"

#include "store/collection.h"
#include "store/keydict.h"
#include "store/shard/shard.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

#define TYPE_STR 0
#define TYPE_NUM 1

/*
 * How far the second path's index is walked: LIMIT + OFFSET times this,
 * at least WALK_MIN rows.  A first group too rare to fill the LIMIT
 * within it (under about 2% of the objects) is sorted the general way.
 */
#define WALK_PER_OBJECT 50
#define WALK_MIN 1000

/* The one type (strings or numbers) the path's key holds, else -1. */
static int
single_type(ArgoOrder *o)
{
	ArgoPath   *p = o->path;

	if (p->id || p->wild || p->filtered)
		return -1;
	if (p->value_types == (VALUE_TYPES_KNOWN | (1 << TYPE_STR)))
		return TYPE_STR;
	if (p->value_types == (VALUE_TYPES_KNOWN | (1 << TYPE_NUM)))
		return TYPE_NUM;
	return -1;
}

/* WHERE p = a string or a number, alone. */
static bool
where_equality(ArgoPred *p)
{
	return p != NULL && p->kind == APRED_CMP && p->op == ACMP_EQ &&
		!p->path->wild && !p->path->filtered && !p->path->id &&
		(p->lit->type == ALIT_STRING || p->lit->type == ALIT_NUMBER);
}

/*
 * Every object ordered by two paths (then, if written, ID()), or those
 * WHERE p = literal ordered by another path, with a LIMIT; each path
 * ordered by holding one type when planned (exec/plan.c).
 */
bool
firstgroup_applies(ArgoCollection *c, ArgoStmt *s)
{
	int			n = list_length(s->order_by);
	ArgoOrder  *last = n > 0 ? llast(s->order_by) : NULL;

	if (s->limit == NULL || !(s->star || s->id_name) ||
		c->format != ARGO_FORMAT_ARGO3 || !keyflags_usable(c))
		return false;
	/* a trailing ID() is the order ties take anyway */
	if (last && last->path->id && !last->desc)
		n--;
	if (s->where)
		return n == 1 && where_equality(s->where) && single_type(linitial(s->order_by)) >= 0 &&
			strcmp(s->where->path->keystr, ((ArgoOrder *) linitial(s->order_by))->path->keystr) != 0;
	if (n == 1)
		return single_type(linitial(s->order_by)) >= 0;
	return n == 2 && single_type(linitial(s->order_by)) >= 0 && single_type(lsecond(s->order_by)) >= 0;
}

static const char *
column_of(int t)
{
	return t == TYPE_STR ? "valstr" : "valnum";
}

static const char *
table_of(ArgoCollection *c, int t)
{
	return t == TYPE_STR ? c->str_table : c->num_table;
}

/* ORDER BY's terms for a value column of alias x, as the indexes give them. */
static char *
order_terms(const char *x, int t, bool desc)
{
	const char *dir = desc ? " DESC" : "";

	if (t == TYPE_STR)
		return psprintf("pg_catalog.left(%s.valstr, 256)%s, %s.valstr%s", x, dir, x, dir);
	return psprintf("%s.valnum%s", x, dir);
}

/*
 * The first value of key $k in its order, a scalar subquery.  A string's
 * index holds its first 256 characters: a shorter first prefix is the
 * whole first string, found in one index row (sorting the rows sharing
 * the prefix to be sure read all 26,000 orders of the first status).
 */
static void
emit_first_value(SqlBuf *buf, ArgoCollection *c, int t, int k, bool desc)
{
	const char *dir = desc ? " DESC" : "";

	if (t == TYPE_NUM)
	{
		appendStringInfo(&buf->sql,
						 "(SELECT z.valnum FROM %s z WHERE z.keyid OPERATOR(pg_catalog.=) $%d"
						 " ORDER BY z.valnum%s LIMIT 1)", c->num_table, k, dir);
		return;
	}
	appendStringInfo(&buf->sql,
					 "(SELECT CASE WHEN pg_catalog.length(p.v) OPERATOR(pg_catalog.<) 256 THEN p.v"
					 " ELSE (SELECT pg_catalog.%s(z.valstr) FROM %s z WHERE z.keyid OPERATOR(pg_catalog.=) $%d"
					 " AND pg_catalog.left(z.valstr, 256) OPERATOR(pg_catalog.=) p.v) END"
					 " FROM (SELECT pg_catalog.left(z.valstr, 256) AS v FROM %s z"
					 " WHERE z.keyid OPERATOR(pg_catalog.=) $%d ORDER BY 1%s LIMIT 1) p)",
					 desc ? "max" : "min", c->str_table, k, c->str_table, k, dir);
}

/*
 * " AND …": key $k's values are all of type t (none in the other two
 * tables), and, where objects lacking it sort first, none does.
 */
static void
emit_checks(SqlBuf *buf, ArgoCollection *c, ArgoOrder *o, int t, int k)
{
	appendStringInfo(&buf->sql,
					 " AND NOT EXISTS (SELECT FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d)"
					 " AND NOT EXISTS (SELECT FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d AND valbool IS NOT NULL)",
					 table_of(c, 1 - t), k, c->bool_table, k);
	if (o->nulls_first)
		appendStringInfo(&buf->sql, " AND %s", keyflags_sql(c, k));
}

/*
 * "WITH f AS (…)": the objects of the group, walked in the order path's
 * index order.  The group is the first path's first value (o1), or the
 * objects WHERE eq holds.
 */
static void
emit_walk(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s, ArgoOrder *o1, ArgoPred *eq,
		  ArgoOrder *o2, int want)
{
	int			t2 = single_type(o2);
	int			k2 = sql_key_param(buf, c, o2->path->keystr);
	int64		n = (int64) s->limit->num + (s->offset ? (int64) s->offset->num : 0);
	int			t1 = o1 ? single_type(o1) : -1;
	int			k1 = o1 || eq ? sql_key_param(buf, c, o1 ? o1->path->keystr : eq->path->keystr) : 0;

	/* the order path's first rows, as its index gives them */
	appendStringInfo(&buf->sql,
					 "WITH f AS MATERIALIZED (SELECT y.objid FROM (SELECT y.objid, y.%s FROM %s y"
					 " WHERE y.keyid OPERATOR(pg_catalog.=) $%d",
					 column_of(t2), table_of(c, t2), k2);
	if (o1)
		emit_checks(buf, c, o1, t1, k1);
	emit_checks(buf, c, o2, t2, k2);
	if (o1 == NULL && eq == NULL)
	{
		/*
		 * No group: the index's first rows, ties taken whole, sorted once
		 * (an incremental sort of each run of equal prefixes measured the
		 * same on a deep page: 9-10 ms for 10,020 rows either way).
		 */
		appendStringInfo(&buf->sql, " ORDER BY %s%s FETCH FIRST $%d ROWS WITH TIES) y"
						 " ORDER BY %s, y.objid LIMIT $%d)",
						 t2 == TYPE_STR ? "pg_catalog.left(y.valstr, 256)" : "y.valnum",
						 o2->desc ? " DESC" : "", want, order_terms("y", t2, o2->desc), want);
		return;
	}
	appendStringInfo(&buf->sql, " ORDER BY %s, y.objid LIMIT $%d) y", order_terms("y", t2, o2->desc),
					 sqlbuf_param(buf, INT8OID, Int64GetDatum(Max(n * WALK_PER_OBJECT, WALK_MIN))));
	/* those of the group */
	appendStringInfo(&buf->sql,
					 " WHERE EXISTS (SELECT FROM %s x WHERE x.objid OPERATOR(pg_catalog.=) y.objid"
					 " AND x.keyid OPERATOR(pg_catalog.=) $%d AND ",
					 o1 ? table_of(c, t1) : sql_typed_table(c, eq->lit->type), k1);
	if (o1)
	{
		appendStringInfo(&buf->sql, "x.%s OPERATOR(pg_catalog.=) ", column_of(t1));
		emit_first_value(buf, c, t1, k1, o1->desc);
	}
	else
		sql_value_comparison(buf, eq->lit, ACMP_EQ);
	/*
	 * OFFSET 0: probed per row as the walk goes, never a semi-join; a hash
	 * of the whole group was planned on a misestimate (26,322 new orders
	 * read to find 129: 25 ms).
	 */
	appendStringInfo(&buf->sql, " OFFSET 0) ORDER BY %s, y.objid LIMIT $%d)",
					 order_terms("y", t2, o2->desc), want);
}

/*
 * "WITH f AS (…) <f's objects, numbered> UNION ALL SELECT * FROM (": the
 * caller writes the general sort's (objid, ord), then firstgroup_emit_tail.
 * Returns the parameter of LIMIT + OFFSET.
 */
int
firstgroup_emit_head(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s)
{
	int64		off = s->offset ? (int64) s->offset->num : 0;
	int			want = sqlbuf_param(buf, INT8OID, Int64GetDatum((int64) s->limit->num + off));

	if (s->where)
		emit_walk(buf, c, s, NULL, s->where, linitial(s->order_by), want);
	else if (list_length(s->order_by) == 1 || ((ArgoOrder *) lsecond(s->order_by))->path->id)
		emit_walk(buf, c, s, NULL, NULL, linitial(s->order_by), want);
	else
		emit_walk(buf, c, s, linitial(s->order_by), NULL, lsecond(s->order_by), want);
	appendStringInfoString(&buf->sql,
						   " SELECT h.objid, pg_catalog.row_number() OVER () AS ord FROM (SELECT objid FROM f");
	if (off > 0)
		appendStringInfo(&buf->sql, " OFFSET $%d",
						 sqlbuf_param(buf, INT8OID, Int64GetDatum(off)));
	appendStringInfo(&buf->sql,
					 ") h WHERE (SELECT pg_catalog.count(*) FROM f) OPERATOR(pg_catalog.>=) $%d"
					 " UNION ALL SELECT * FROM (", want);
	return want;
}

void
firstgroup_emit_tail(SqlBuf *buf, int want)
{
	appendStringInfo(&buf->sql,
					 ") g WHERE (SELECT pg_catalog.count(*) FROM f) OPERATOR(pg_catalog.<) $%d", want);
}
