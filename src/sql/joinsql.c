/*
 * joinsql.c — the SQL of a SELECT over INNER and LEFT JOINs of
 * collections (paper 3.2.4), which exec/join.c runs.
 *
 * PostgreSQL's own join machinery does the work: each ON (a.p = b.q) is
 * the union of same-typed equijoins of the vertical tables (the types the
 * plan found both keys to hold), giving pairs of object ids; the pairs of
 * all conditions are joined into tuples.  WHERE conjuncts that name one
 * alias become id filters applied before joining; the rest is evaluated
 * per tuple under three-valued logic.
 *
 * LEFT JOIN keeps every object of the left side: the tuples start from
 * the first collection's objects and a left join's pairs are LEFT JOINed,
 * so a left object without a match has the part NULL (objid 0 in the
 * executor's buffers), which comes out as JSON null.  Such a part has no
 * values: WHERE's conjuncts on it are judged per tuple (not before
 * joining, which would keep the left object with a null part instead of
 * dropping it), as on an object with no values, and EXISTS alias says
 * whether it matched.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "common/common.h"
#include "common/ids.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "sql/joinsql.h"

typedef struct JoinCtx
{
	ArgoQuery  *q;
	SqlBuf	   *buf;
	int			nsources;
	List	   *filters;		/* per source: ArgoPred * of its conjuncts */
	List	   *residual;		/* conjuncts naming several sources */
	int		   *pair_of;		/* which pair subquery carries o<k> */
	bool		unordered;		/* for aggregates: no order, no LIMIT */
	bool		outer;			/* some LEFT JOIN: tuples start from source 0 */
} JoinCtx;

/* Whether source k is a LEFT JOIN's right side: its part may be null. */
static bool
nullable(JoinCtx *jc, int k)
{
	return k > 0 && ((ArgoSource *) list_nth(jc->q->stmt->from, k))->left_join;
}

/* Whether a predicate asks EXISTS alias, which only a tuple can answer. */
bool
joinsql_asks_part(ArgoPred *p)
{
	ListCell   *lc;

	if (p == NULL)
		return false;
	if (p->kind == APRED_PART_EXISTS)
		return true;
	foreach(lc, p->args)
		if (joinsql_asks_part(lfirst(lc)))
			return true;
	return joinsql_asks_part(p->left);
}

static ArgoCollection *
coll_of(JoinCtx *jc, int source)
{
	return list_nth(jc->q->colls, source);
}

/* The sources a predicate names, as a bitmask (at most 32 joins). */
uint32
joinsql_pred_sources(ArgoPred *p)
{
	uint32		srcs;
	ListCell   *lc;

	if (p == NULL)
		return 0;
	srcs = joinsql_pred_sources(p->left) | (p->path ? (uint32) 1 << p->path->source : 0);
	foreach(lc, p->args)
		srcs |= joinsql_pred_sources(lfirst(lc));
	return srcs;
}

/* Split WHERE's top-level AND into per-source filters and the rest. */
static void
split_where(JoinCtx *jc, ArgoPred *p)
{
	uint32		srcs;

	if (p == NULL)
		return;
	if (p->kind == APRED_AND)
	{
		ListCell   *lc;

		foreach(lc, p->args)
			split_where(jc, lfirst(lc));
		return;
	}
	srcs = joinsql_pred_sources(p);
	if ((srcs & (srcs - 1)) == 0 && !joinsql_asks_part(p) &&
		!nullable(jc, srcs ? pg_rightmost_one_pos32(srcs) : 0))
	{
		int			k = srcs ? pg_rightmost_one_pos32(srcs) : 0;
		ListCell   *cell = list_nth_cell(jc->filters, k);

		lfirst(cell) = pred_combine(APRED_AND, lfirst(cell), p);
	}
	else
		jc->residual = lappend(jc->residual, p);
}

/* " AND <col> IN (SELECT objid FROM f<k>)" when source k is filtered */
static void
emit_filter_ref(JoinCtx *jc, const char *col, int k)
{
	if (list_nth(jc->filters, k) != NULL)
		appendStringInfo(&jc->buf->sql, " AND %s OPERATOR(pg_catalog.=) ANY (SELECT objid FROM f%d)", col, k);
}

/*
 * Whether values of type t may pair at src's two paths: what the plan
 * found of their keys (exec/join.c, join_prune_types), else every type.
 */
static bool
may_pair(ArgoSource *src, int t)
{
	return src->pair_types == 0 || (src->pair_types & (1 << t)) != 0;
}

/* " AND x.keyid = $k", or "= ANY($keys)" for the keys a [*] path stands for */
static void
emit_key_match(JoinCtx *jc, const char *col, ArgoCollection *c, ArgoPath *path)
{
	if (path->wild)
		appendStringInfo(&jc->buf->sql, " AND %s OPERATOR(pg_catalog.=) ANY($%d)", col,
						 sql_keys_param(jc->buf, sql_path_keys(c, path, false)));
	else
		appendStringInfo(&jc->buf->sql, " AND %s OPERATOR(pg_catalog.=) $%d", col,
						 sql_key_param(jc->buf, c, path->keystr));
}

/*
 * Pairs (o<a>, o<b>) whose values at the two paths are equal and alike:
 * a branch for each type both paths hold; how many.
 */
/*
 * ON (p = ID(alias)): pairs of a number at p and the object of that id,
 * the number cast only where it is an integer an id can be.
 */
static int
emit_id_pairs(JoinCtx *jc, ArgoSource *src, int b)
{
	ArgoPath   *lp = src->on_left;
	ArgoPath   *rp = src->on_right;
	int			a = lp->source;
	ArgoPath   *path = lp->id ? rp : lp;
	ArgoCollection *cp = coll_of(jc, path->source);
	ArgoCollection *ci = coll_of(jc, lp->id ? a : b);
	const char *nums = cp->format == ARGO_FORMAT_ARGO1 ? cp->data_table : cp->num_table;
	const char *v = lp->id ? "y" : "x";

	if (!may_pair(src, 1))
	{
		appendStringInfo(&jc->buf->sql,
						 "SELECT NULL::pg_catalog.int8 AS o%d, NULL::pg_catalog.int8 AS o%d WHERE false", a, b);
		return 0;
	}
	appendStringInfo(&jc->buf->sql, "SELECT x.objid AS o%d, y.objid AS o%d FROM %s x JOIN %s y ON %s.objid OPERATOR(pg_catalog.=)"
					 " CASE WHEN %s.valnum OPERATOR(pg_catalog.=) pg_catalog.trunc(%s.valnum) AND pg_catalog.abs(%s.valnum) OPERATOR(pg_catalog.<) 9e18"
					 " THEN %s.valnum::pg_catalog.int8 END WHERE true",
					 a, b, lp->id ? ci->obj_table : nums, lp->id ? nums : ci->obj_table, lp->id ? "x" : "y",
					 v, v, v, v);
	emit_key_match(jc, psprintf("%s.keyid", v), cp, path);
	emit_filter_ref(jc, "x.objid", a);
	emit_filter_ref(jc, "y.objid", b);
	return 1;
}

static int
emit_pairs(JoinCtx *jc, ArgoSource *src, int b)
{
	ArgoPath   *lp = src->on_left;
	ArgoPath   *rp = src->on_right;
	int			a = lp->source;
	ArgoCollection *ca = coll_of(jc, a);
	ArgoCollection *cb = coll_of(jc, b);
	static const char *const cols[] = {"valstr", "valnum", "valbool"};
	int			branches = 0;

	if (lp->id || rp->id)
		return emit_id_pairs(jc, src, b);

	for (int t = 0; t < 3; t++)
	{
		const char *ta = ca->format == ARGO_FORMAT_ARGO1 ? ca->data_table :
			t == 0 ? ca->str_table : t == 1 ? ca->num_table : ca->bool_table;
		const char *tb = cb->format == ARGO_FORMAT_ARGO1 ? cb->data_table :
			t == 0 ? cb->str_table : t == 1 ? cb->num_table : cb->bool_table;

		if (!may_pair(src, t))
			continue;
		/* with [*], two elements may make one pair: UNION keeps it once */
		if (branches++ > 0)
			appendStringInfoString(&jc->buf->sql, lp->wild || rp->wild ? " UNION " : " UNION ALL ");
		appendStringInfo(&jc->buf->sql, "SELECT %sx.objid AS o%d, y.objid AS o%d FROM %s x JOIN ",
						 lp->wild || rp->wild ? "DISTINCT " : "", a, b, ta);
		if (jc->q->setwise_sources & ((uint32) 1 << b))
		{
			/*
			 * More values come from a's side than b's collection holds
			 * (exec/plan.c): b's rows of the key read whole and hashed,
			 * not looked up once per value (a month's 29,000 items'
			 * skus, each looked up among 5,000 products).
			 */
			appendStringInfo(&jc->buf->sql, "(SELECT objid, keyid, %s FROM %s WHERE true", cols[t], tb);
			emit_key_match(jc, "keyid", cb, rp);
			appendStringInfoString(&jc->buf->sql, " OFFSET 0) y");
		}
		else
			appendStringInfo(&jc->buf->sql, "%s y", tb);
		appendStringInfo(&jc->buf->sql, " ON x.%s OPERATOR(pg_catalog.=) y.%s", cols[t], cols[t]);
		/* equal strings have equal indexed prefixes: lets the index join */
		if (t == 0)
			appendStringInfo(&jc->buf->sql,
							 " AND pg_catalog.left(x.valstr, %d) OPERATOR(pg_catalog.=) pg_catalog.left(y.valstr, %d)",
							 ARGO_STR_PREFIX_CHARS, ARGO_STR_PREFIX_CHARS);
		appendStringInfoString(&jc->buf->sql, " WHERE true");
		emit_key_match(jc, "x.keyid", ca, lp);
		emit_key_match(jc, "y.keyid", cb, rp);
		emit_filter_ref(jc, "x.objid", a);
		emit_filter_ref(jc, "y.objid", b);
	}
	if (branches == 0)
		appendStringInfo(&jc->buf->sql,
						 "SELECT NULL::pg_catalog.int8 AS o%d, NULL::pg_catalog.int8 AS o%d WHERE false", a, b);
	return branches;
}

/* TRUE, FALSE or NULL for one tuple, by SQL's own three-valued logic. */
static void
emit_tuple_truth(JoinCtx *jc, ArgoPred *p)
{
	StringInfo	sql = &jc->buf->sql;

	check_stack_depth();
	switch (p->kind)
	{
		case APRED_AND:
		case APRED_OR:
			{
				ListCell   *lc;

				/* SQL's AND and OR are n-ary: a flat list, not a nesting */
				appendStringInfoChar(sql, '(');
				foreach(lc, p->args)
				{
					if (foreach_current_index(lc) > 0)
						appendStringInfoString(sql, p->kind == APRED_AND ? " AND " : " OR ");
					emit_tuple_truth(jc, lfirst(lc));
				}
				appendStringInfoChar(sql, ')');
			}
			break;
		case APRED_NOT:
			appendStringInfoString(sql, "(NOT ");
			emit_tuple_truth(jc, p->left);
			appendStringInfoChar(sql, ')');
			break;
		case APRED_PART_EXISTS:
			appendStringInfo(sql, "(p%d.o%d IS NOT NULL)", jc->pair_of[p->part], p->part);
			break;
		default:
			{
				int			k = p->path->source;
				ArgoPred	neg = {APRED_NOT, p};
				char	   *o = psprintf("p%d.o%d", jc->pair_of[k], k);

				/* a null part has no values: EXISTS and IS [NOT] NULL are false, the rest unknown */
				if (nullable(jc, k))
					appendStringInfo(sql, "(CASE WHEN %s IS NULL THEN %s WHEN %s OPERATOR(pg_catalog.=) ANY (", o,
									 p->kind == APRED_EXISTS || p->kind == APRED_ISNULL ||
									 p->kind == APRED_ISNOTNULL ? "false" : "NULL::boolean", o);
				else
					appendStringInfo(sql, "(CASE WHEN %s OPERATOR(pg_catalog.=) ANY (", o);
				pred_emit_objids(jc->buf, coll_of(jc, k), p);
				appendStringInfo(sql, ") THEN true WHEN %s OPERATOR(pg_catalog.=) ANY (", o);
				pred_emit_objids(jc->buf, coll_of(jc, k), &neg);
				appendStringInfoString(sql, ") THEN false END)");
			}
	}
}

/* The statement's ORDER BY paths, then the tuple's ids: j's order. */
static char *
order_keys(JoinCtx *jc)
{
	StringInfoData keys;
	ListCell   *lc;

	initStringInfo(&keys);
	foreach(lc, jc->q->stmt->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);
		int			k = ob->path->source;
		ValueCols	v = sql_value_join(jc->buf, coll_of(jc, k),
									   psprintf("p%d.o%d", jc->pair_of[k], k),
									   ob->path->keystr,
									   psprintf("k%d", foreach_current_index(lc)));

		sql_order_keys(&keys, &v, ob->desc, ob->nulls_first);
		appendStringInfoString(&keys, ", ");
	}
	for (int k = 0; k < jc->nsources; k++)
		appendStringInfo(&keys, "%sp%d.o%d", k ? ", " : "", jc->pair_of[k], k);
	return keys.data;
}

/*
 * j: the tuples (o0, o1, …), numbered in output order — or, for an
 * aggregate, just the tuples: its groups are ordered and limited instead.
 */
static void
emit_tuples(JoinCtx *jc)
{
	ArgoStmt   *s = jc->q->stmt;
	StringInfo	sql = &jc->buf->sql;
	char	   *keys = NULL;
	ListCell   *lc;

	appendStringInfoString(sql, "j AS MATERIALIZED (SELECT ");
	for (int k = 0; k < jc->nsources; k++)
		appendStringInfo(sql, "%sp%d.o%d AS o%d", k ? ", " : "", jc->pair_of[k], k, k);
	if (!jc->unordered)
		appendStringInfoString(sql, ", pg_catalog.row_number() OVER (ORDER BY @KEYS@) AS ord");
	appendStringInfoString(sql, " FROM ");
	/* with a LEFT JOIN, from every object of the first collection (filtered) */
	if (jc->outer)
	{
		appendStringInfo(sql, "(SELECT objid AS o0 FROM %s WHERE true", coll_of(jc, 0)->obj_table);
		emit_filter_ref(jc, "objid", 0);
		appendStringInfoString(sql, ") p0");
	}
	for (int i = 1; i < jc->nsources; i++)
	{
		ArgoSource *src = list_nth(s->from, i);
		int			a = src->on_left->source;

		appendStringInfo(sql, i == 1 && !jc->outer ? "(" :
						 src->left_join ? " LEFT JOIN (" : " JOIN (");
		/*
		 * The leading pairs of one type only would be pulled up into the
		 * ordered query, and the planner, trusting its estimate of the
		 * string join (millions of rows for a thousand), read every row of
		 * the key in object order to skip the sort: Q11 at 1M 42 ms -> 1 s
		 * with work_mem = 64MB.  Planned on their own, as a UNION ALL of
		 * branches is, they are found first and sorted.
		 */
		if (emit_pairs(jc, src, i) == 1 && i == 1 && !jc->outer)
			appendStringInfoString(sql, " OFFSET 0");
		appendStringInfo(sql, ") p%d", i);
		if (i > 1 || jc->outer)
			appendStringInfo(sql, " ON p%d.o%d OPERATOR(pg_catalog.=) p%d.o%d", i, a, jc->pair_of[a], a);
	}
	if (!jc->unordered)
		keys = order_keys(jc);
	if (jc->residual)
	{
		appendStringInfoString(sql, " WHERE true");
		foreach(lc, jc->residual)
		{
			appendStringInfoString(sql, " AND ");
			emit_tuple_truth(jc, lfirst(lc));
		}
	}
	if (!jc->unordered)
	{
		appendStringInfo(sql, " ORDER BY %s", keys);
		sql_limit_offset(jc->buf, s);
	}
	appendStringInfoString(sql, ")");
	if (!jc->unordered)
		sqlbuf_replace(jc->buf, "@KEYS@", keys);
}

/* Projection filter of one part: its listed paths, or none if unlisted. */
static void
emit_part_filter(JoinCtx *jc, int k)
{
	ArgoStmt   *s = jc->q->stmt;

	if (s->star)
		return;
	appendStringInfoString(&jc->buf->sql, " AND ");
	sql_projection_filter(jc->buf, coll_of(jc, k), "r.keyid", s->targets, k);
}

/*
 * "WITH f<k> AS (…), …, j AS (…)": the tuples, numbered in output order
 * unless unordered.
 */
static JoinCtx
join_tuples(ArgoQuery *q, bool unordered)
{
	ArgoStmt   *s = q->stmt;
	JoinCtx		jc = {q, sqlbuf_create(), list_length(s->from)};
	StringInfo	sql = &jc.buf->sql;

	jc.buf->custom_plan = true;
	jc.unordered = unordered;
	if (jc.nsources > 32)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("at most 32 collections can be joined")));
	for (int k = 0; k < jc.nsources; k++)
		jc.filters = lappend(jc.filters, NULL);
	split_where(&jc, s->where);
	jc.pair_of = palloc(sizeof(int) * jc.nsources);
	for (int k = 1; k < jc.nsources; k++)
		jc.outer |= nullable(&jc, k);
	/* source 0's id: in the first pairs, or in the objects they start from */
	jc.pair_of[0] = jc.outer ? 0 : 1;
	for (int k = 1; k < jc.nsources; k++)
		jc.pair_of[k] = k;

	appendStringInfoString(sql, "WITH ");
	for (int k = 0; k < jc.nsources; k++)
	{
		if (list_nth(jc.filters, k) == NULL)
			continue;
		appendStringInfo(sql, "f%d AS MATERIALIZED (", k);
		pred_emit_objids(jc.buf, coll_of(&jc, k), list_nth(jc.filters, k));
		appendStringInfoString(sql, "), ");
	}
	emit_tuples(&jc);
	return jc;
}

/*
 * "WITH …, j AS (…) ": the join's tuples (o0, o1, …), in no order, for
 * an aggregate to read as FROM j.
 */
SqlBuf *
joinsql_tuples(ArgoQuery *q)
{
	JoinCtx		jc = join_tuples(q, true);

	appendStringInfoChar(&jc.buf->sql, ' ');
	return jc.buf;
}

/* The tuples' object ids, (o0, o1, …) in output order, for fetching. */
SqlBuf *
joinsql_ids(ArgoQuery *q)
{
	JoinCtx		jc = join_tuples(q, false);

	appendStringInfoString(&jc.buf->sql, " SELECT ");
	for (int k = 0; k < jc.nsources; k++)
		appendStringInfo(&jc.buf->sql, "%sj.o%d", k ? ", " : "", k);
	appendStringInfoString(&jc.buf->sql, " FROM j ORDER BY j.ord");
	return jc.buf;
}

/*
 * The tuples' parts as rows, for when some part cannot be read from C
 * (row-level security, …): keys travel as text, since the parts come
 * from several collections.
 */
SqlBuf *
joinsql_build(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	JoinCtx		jc = join_tuples(q, false);
	StringInfo	sql = &jc.buf->sql;

	/*
	 * Each part by index probes on its object id (LATERAL, kept a
	 * subquery by OFFSET 0): the estimate of j can be far too high, and a
	 * hash join over a whole collection was measured at 10 s where probes
	 * take 60 ms (Argo/1, 1M objects).
	 */
	for (int k = 0; k < jc.nsources; k++)
	{
		appendStringInfo(sql,
						 "%s SELECT j.ord OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d AS id, r.keystr, r.valstr, r.valnum, r.valbool FROM j CROSS JOIN LATERAL (SELECT r.*, kd.keystr FROM ",
						 k ? " UNION ALL" : "", jc.nsources + 1, k);
		sql_object_rows_of_table(jc.buf, coll_of(&jc, k));
		appendStringInfo(sql, " r JOIN %s kd ON kd.keyid OPERATOR(pg_catalog.=) r.keyid WHERE r.objid OPERATOR(pg_catalog.=) j.o%d",
						 coll_of(&jc, k)->keys_table, k);
		emit_part_filter(&jc, k);
		appendStringInfoString(sql, " OFFSET 0) r");
	}
	/*
	 * A marker per tuple, so tuples whose parts all project to {} appear;
	 * with a LEFT JOIN it says which parts are null: {"m": bits}.
	 */
	if (jc.outer)
	{
		appendStringInfo(sql,
						 " UNION ALL SELECT j.ord OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d, 'm', NULL, (0",
						 jc.nsources + 1, jc.nsources);
		for (int k = 1; k < jc.nsources; k++)
			appendStringInfo(sql, " OPERATOR(pg_catalog.+) CASE WHEN j.o%d IS NULL THEN %d ELSE 0 END", k, 1 << k);
		appendStringInfoString(sql, ")::pg_catalog.float8, NULL FROM j");
	}
	else if (!s->star)
		appendStringInfo(sql,
						 " UNION ALL SELECT j.ord OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d, NULL, NULL, NULL, NULL FROM j",
						 jc.nsources + 1, jc.nsources);
	appendStringInfoString(sql, " ORDER BY 1");
	return jc.buf;
}

/*
 * Part k's rows for the tuples in ids[k], numbered ord * (nparts + 1) + k
 * with ord counted from first; for *, a row with a NULL key first marks
 * each part as an object ({} has no other row).
 */
static void
emit_part_rows(SqlBuf *buf, ArgoQuery *q, int k, int ids, int64 first)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = list_nth(q->colls, k);
	int			n = list_length(s->from) + 1;

	if (k > 0)
		appendStringInfoString(&buf->sql, " UNION ALL ");
	if (s->star)
		appendStringInfo(&buf->sql,
						 "SELECT (t.ord OPERATOR(pg_catalog.+) " INT64_FORMAT ") OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d AS id, NULL::integer AS keyid, NULL::pg_catalog.text AS valstr, NULL::pg_catalog.float8 AS valnum, NULL::boolean AS valbool "
						 "FROM pg_catalog.unnest($%d) WITH ORDINALITY AS t(objid, ord) WHERE t.objid OPERATOR(pg_catalog.<>) 0 UNION ALL ",
						 first - 1, n, k, ids);
	appendStringInfo(&buf->sql,
					 "SELECT (t.ord OPERATOR(pg_catalog.+) " INT64_FORMAT ") OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d, r.keyid, r.valstr, r.valnum, r.valbool "
					 "FROM pg_catalog.unnest($%d) WITH ORDINALITY AS t(objid, ord) JOIN ",
					 first - 1, n, k, ids);
	sql_object_rows_of_table(buf, c);
	appendStringInfoString(&buf->sql, " r ON r.objid OPERATOR(pg_catalog.=) t.objid WHERE true");
	/* a shard is sent the ids, not asked for every row */
	if (collection_is_distributed(c))
		appendStringInfo(&buf->sql, " AND r.objid OPERATOR(pg_catalog.=) ANY($%d)", ids);
	if (!s->star)
	{
		appendStringInfoString(&buf->sql, " AND ");
		sql_projection_filter(buf, c, "r.keyid", s->targets, k);
	}
}

/*
 * The parts of n tuples read set-wise (exec/joinset.c), numbered from
 * first: ids[k][i] is part k of tuple first + i.  Each part's rows come
 * numbered ord * (nparts + 1) + part, in tuple order, and each tuple ends
 * with a marker row numbered ord * (nparts + 1) + nparts, so that a tuple
 * whose parts all project to nothing still appears.
 */
SqlBuf *
joinsql_parts(ArgoQuery *q, int64 **ids, int64 n, int64 first)
{
	int			nparts = list_length(q->stmt->from);
	SqlBuf	   *buf = sqlbuf_create();

	for (int k = 0; k < nparts; k++)
		emit_part_rows(buf, q, k, sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids[k], (int) n)), first);
	appendStringInfo(&buf->sql,
					 " UNION ALL SELECT (g OPERATOR(pg_catalog.+) " INT64_FORMAT ") OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d, NULL, NULL, NULL, NULL FROM pg_catalog.generate_series(1, $%d) AS g ORDER BY 1",
					 first - 1, nparts + 1, nparts,
					 sqlbuf_param(buf, INT8OID, Int64GetDatum(n)));
	/* the arrays' lengths differ from call to call: plan with them */
	buf->custom_plan = true;
	return buf;
}
