/*
 * predicate.c — WHERE predicates to SQL over the vertical tables.
 *
 * Every predicate node yields the ids of objects for which it is TRUE, or
 * of those for which it is FALSE; under SQL's three-valued logic the rest
 * are UNKNOWN.  NOT swaps the two, AND and OR become INTERSECT and UNION
 * (paper 3.2.2), and a leaf is a scan of the table that holds its
 * literal's type.  So NOT never needs the set of all objects except where
 * a test is two-valued (EXISTS, IS NULL).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "common/common.h"
#include "common/fold.h"
#include "common/ids.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/keydict.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

static void emit_set(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth);

static ArgoCmpOp
negate_op(ArgoCmpOp op)
{
	static const ArgoCmpOp neg[] = {ACMP_NE, ACMP_EQ, ACMP_GE, ACMP_GT,
	ACMP_LE, ACMP_LT};

	return neg[op];
}

/* EXISTS p: a row in p's subtree (for p[*]: under some value reached). */
static void
emit_exists(SqlBuf *buf, ArgoCollection *c, ArgoPath *path)
{
	appendStringInfoString(&buf->sql, "SELECT objid FROM ");
	sql_rows_of_table(buf, c);
	appendStringInfoString(&buf->sql, " r WHERE ");
	sql_path_subtree_match(buf, c, "keyid", path);
}

/* p IS NULL: a null at p (for p[*]: some value reached is null). */
static void
emit_isnull(SqlBuf *buf, ArgoCollection *c, ArgoPath *path)
{
	sql_begin_leaf(buf, c, ALIT_BOOL, path);
	if (c->format == ARGO_FORMAT_ARGO1)
		appendStringInfoString(&buf->sql, "pg_catalog.num_nonnulls(valstr, valnum, valbool) OPERATOR(pg_catalog.=) 0");
	else
		appendStringInfoString(&buf->sql, "valbool IS NULL");
}

/* (universe) EXCEPT (set): the complement of a two-valued test. */
static void
emit_complement_of(SqlBuf *buf, ArgoCollection *c,
				   void (*emit) (SqlBuf *, ArgoCollection *, ArgoPath *),
				   ArgoPath *path)
{
	appendStringInfoChar(&buf->sql, '(');
	sql_all_objids(buf, c);
	appendStringInfoString(&buf->sql, ") EXCEPT (");
	emit(buf, c, path);
	appendStringInfoChar(&buf->sql, ')');
}

/*
 * p IS NOT NULL: p exists and is not null; for p[*], some value reached
 * is not null: a row under it that is not a null at the value itself.
 */
static void
emit_present_not_null(SqlBuf *buf, ArgoCollection *c, ArgoPath *path)
{
	if (path->wild)
	{
		appendStringInfoString(&buf->sql, "SELECT objid FROM ");
		sql_rows_of_table(buf, c);
		appendStringInfoString(&buf->sql, " r WHERE ");
		sql_path_subtree_match(buf, c, "keyid", path);
		appendStringInfoString(&buf->sql, " AND NOT (");
		sql_path_key_match(buf, c, "keyid", path);
		appendStringInfoString(&buf->sql, " AND pg_catalog.num_nonnulls(valstr, valnum, valbool) OPERATOR(pg_catalog.=) 0)");
		return;
	}
	appendStringInfoChar(&buf->sql, '(');
	emit_exists(buf, c, path);
	appendStringInfoString(&buf->sql, ") EXCEPT (");
	emit_isnull(buf, c, path);
	appendStringInfoChar(&buf->sql, ')');
}

/*
 * valstr as a LIKE of kind matches it: case-insensitive kinds fold in
 * the folding collation (common/fold.c), not valstr's "C".
 */
static void
like_subject(SqlBuf *buf, ArgoLikeKind kind)
{
	if (kind == ALIKE_ILIKE || kind == ALIKE_IREGEX)
		appendStringInfo(&buf->sql, "(valstr%s)", argo_fold_collate_sql());
	else
		appendStringInfoString(&buf->sql, "valstr");
}

/* LIKE, ILIKE, ~ or ~* (matches), or their negation (does not match). */
static const char *
like_operator(ArgoLikeKind kind, bool match)
{
	static const char *const ops[][2] = {
		{"OPERATOR(pg_catalog.!~~)", "OPERATOR(pg_catalog.~~)"},
		{"OPERATOR(pg_catalog.!~~*)", "OPERATOR(pg_catalog.~~*)"},
		{"OPERATOR(pg_catalog.!~)", "OPERATOR(pg_catalog.~)"},
		{"OPERATOR(pg_catalog.!~*)", "OPERATOR(pg_catalog.~*)"}
	};

	return ops[kind][match ? 1 : 0];
}

/*
 * What a comparison, LIKE or BETWEEN leaf asks of a value, as a
 * condition on a row's value columns (valstr, valnum, valbool): the
 * positive test, whatever truth is wanted of the leaf.
 */
static void
emit_value_test(SqlBuf *buf, ArgoPred *p)
{
	switch (p->kind)
	{
		case APRED_CMP:
			sql_value_comparison(buf, p->lit, p->op);
			break;
		case APRED_LIKE:
			like_subject(buf, p->like);
			appendStringInfo(&buf->sql, " %s ", like_operator(p->like, true));
			sql_add_literal(buf, p->lit);
			break;
		case APRED_BETWEEN:
			sql_value_comparison(buf, p->lit, ACMP_GE);
			appendStringInfoString(&buf->sql, " AND ");
			sql_value_comparison(buf, p->lit2, ACMP_LE);
			break;
		default:
			elog(ERROR, "no value test for predicate kind %d", p->kind);
	}
}

/* The value type a leaf tests. */
static ArgoLitType
leaf_type(ArgoPred *p)
{
	return p->kind == APRED_LIKE ? ALIT_STRING : p->lit->type;
}

static void
leaf_test(SqlBuf *buf, void *arg)
{
	emit_value_test(buf, (ArgoPred *) arg);
}

/*
 * args[from..to) joined by INTERSECT or UNION, nested as a balanced tree:
 * PostgreSQL analyses and plans set operations recursively, so a chain of
 * 10,000 terms must not be 10,000 levels deep.
 */
static void
emit_chain(SqlBuf *buf, ArgoCollection *c, List *args, int from, int to,
		   const char *op, bool truth)
{
	int			mid = from + (to - from) / 2;

	check_stack_depth();
	if (to - from == 1)
	{
		emit_set(buf, c, list_nth(args, from), truth);
		return;
	}
	appendStringInfoChar(&buf->sql, '(');
	emit_chain(buf, c, args, from, mid, op, truth);
	appendStringInfo(&buf->sql, ") %s (", op);
	emit_chain(buf, c, args, mid, to, op, truth);
	appendStringInfoChar(&buf->sql, ')');
}

/*
 * Many comparisons of one kind (value type and operator) as data: the
 * terms' keys, literals and positions in three arrays, joined with the
 * typed table; one index probe per term, yielding (objid, term).
 */
static void
emit_comparison_batch(SqlBuf *buf, ArgoCollection *c, List *terms,
					  List *positions, ArgoLitType t, ArgoCmpOp op)
{
	static const char *const prefix_op[] = {
		"OPERATOR(pg_catalog.=)", NULL, "OPERATOR(pg_catalog.<=)",
		"OPERATOR(pg_catalog.<=)", "OPERATOR(pg_catalog.>=)", "OPERATOR(pg_catalog.>=)"
	};
	static const Oid elem_types[] = {TEXTOID, FLOAT8OID, BOOLOID};
	int			n = list_length(terms);
	int			ti = t == ALIT_STRING ? 0 : t == ALIT_NUMBER ? 1 : 2;
	Datum	   *keys = palloc(sizeof(Datum) * n);
	Datum	   *vals = palloc(sizeof(Datum) * n);
	Datum	   *pos = palloc(sizeof(Datum) * n);
	KeyDict    *d = keydict_of(c);
	int16		typlen;
	bool		byval;
	char		align;
	ListCell   *lc;
	int			kp,
				vp,
				pp;

	foreach(lc, terms)
	{
		ArgoPred   *p = lfirst(lc);
		int			i = foreach_current_index(lc);

		keys[i] = Int32GetDatum(keydict_find(d, p->path->keystr));
		vals[i] = t == ALIT_STRING ? CStringGetTextDatum(p->lit->str) :
			t == ALIT_NUMBER ? Float8GetDatum(p->lit->num) : BoolGetDatum(p->lit->b);
		pos[i] = Int32GetDatum(list_nth_int(positions, i));
	}
	get_typlenbyvalalign(elem_types[ti], &typlen, &byval, &align);
	kp = sqlbuf_param(buf, INT4ARRAYOID,
					  PointerGetDatum(construct_array(keys, n, INT4OID, 4, true, TYPALIGN_INT)));
	vp = sqlbuf_param(buf, get_array_type(elem_types[ti]),
					  PointerGetDatum(construct_array(vals, n, elem_types[ti], typlen, byval, align)));
	pp = sqlbuf_param(buf, INT4ARRAYOID,
					  PointerGetDatum(construct_array(pos, n, INT4OID, 4, true, TYPALIGN_INT)));
	appendStringInfo(&buf->sql,
					 "SELECT x.objid, t.term FROM ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS t(k, v, term) JOIN %s x ON x.keyid OPERATOR(pg_catalog.=) t.k AND ",
					 kp, vp, pp, sql_typed_table(c, t));
	if (t == ALIT_STRING && op != ACMP_NE)
		appendStringInfo(&buf->sql, "pg_catalog.left(x.valstr, %d) %s pg_catalog.left(t.v, %d) AND ",
						 ARGO_STR_PREFIX_CHARS, prefix_op[op], ARGO_STR_PREFIX_CHARS);
	appendStringInfo(&buf->sql, "x.%s %s t.v", sql_value_column(t), sql_cmp_operator(op));
}

/*
 * Start the next branch of a UNION ALL: runs of BRANCH_RUN branches are
 * parenthesized, as PostgreSQL's parser recurses once per branch of a
 * flat run (and plans nested runs ten times slower, so only past this).
 */
#define BRANCH_RUN 1000

static void
next_branch(SqlBuf *buf, int *nbranches)
{
	if (*nbranches == 0)
		appendStringInfoChar(&buf->sql, '(');
	else if (*nbranches % BRANCH_RUN == 0)
		appendStringInfoString(&buf->sql, ") UNION ALL (");
	else
		appendStringInfoString(&buf->sql, " UNION ALL ");
	(*nbranches)++;
}

/*
 * A long chain as one query, its comparisons batched by kind and every
 * other term a branch of one flat UNION ALL, each row tagged with its
 * term: OR keeps every object found, AND those found by all terms.  A
 * chain of 10,000 INTERSECTs takes PostgreSQL 8 s to plan; 10,000
 * comparisons this way take 0.05 s.
 */
static void
emit_long_chain(SqlBuf *buf, ArgoCollection *c, List *args, bool intersect,
				bool truth)
{
	List	   *batch[3][6] = {{0}};
	List	   *positions[3][6] = {{0}};
	int			nbranches = 0;
	ListCell   *lc;

	appendStringInfoString(&buf->sql, "SELECT objid FROM (");
	foreach(lc, args)
	{
		ArgoPred   *a = lfirst(lc);
		int			i = foreach_current_index(lc);

		CHECK_FOR_INTERRUPTS();
		/* a batch compares one scalar per key: not [*]'s many, nor a whole value */
		if (a->kind == APRED_CMP && !a->path->wild && a->lit->type != ALIT_JSON)
		{
			int			t = a->lit->type == ALIT_STRING ? 0 : a->lit->type == ALIT_NUMBER ? 1 : 2;
			ArgoCmpOp	op = truth ? a->op : negate_op(a->op);

			batch[t][op] = lappend(batch[t][op], a);
			positions[t][op] = lappend_int(positions[t][op], i);
			continue;
		}
		next_branch(buf, &nbranches);
		appendStringInfo(&buf->sql, "SELECT objid, %d AS term FROM (", i);
		emit_set(buf, c, a, truth);
		appendStringInfo(&buf->sql, ") t%d", i);
	}
	for (int t = 0; t < 3; t++)
		for (int op = 0; op < 6; op++)
		{
			static const ArgoLitType types[] = {ALIT_STRING, ALIT_NUMBER, ALIT_BOOL};

			if (batch[t][op] == NIL)
				continue;
			next_branch(buf, &nbranches);
			emit_comparison_batch(buf, c, batch[t][op], positions[t][op],
								  types[t], (ArgoCmpOp) op);
		}
	appendStringInfoString(&buf->sql, ")) terms GROUP BY objid");
	if (intersect)
		appendStringInfo(&buf->sql, " HAVING pg_catalog.count(DISTINCT term) OPERATOR(pg_catalog.=) %d",
						 list_length(args));
}

/* Chains longer than this are planned as one query (emit_long_chain). */
#define ARGO_LONG_CHAIN 16

/* A leaf through a filter, TRUE: its candidates by index, then a look at each object. */
static bool
checked_leaf(ArgoPred *p)
{
	return p->path != NULL && p->path->filtered && p->kind != APRED_TEXT;
}

/*
 * An AND's objects where some of its terms are leaves through filters:
 * the intersection of every term's candidates first, each object left
 * then judged once for all those leaves.  Judged before intersecting,
 * each leaf's candidates were all judged (3,000 products holding a
 * variant of size M, read and tested, where the category next to it
 * kept 170).
 */
static bool
emit_checked_and(SqlBuf *buf, ArgoCollection *c, List *args)
{
	List	   *sets = NIL;
	List	   *checked = NIL;
	ListCell   *lc;

	foreach(lc, args)
	{
		ArgoPred   *a = lfirst(lc);

		if (checked_leaf(a))
		{
			checked = lappend(checked, a);
			if (a->kind != APRED_EXPR)
				sets = lappend(sets, a->filter_cands);
		}
		else
			sets = lappend(sets, a);
	}
	if (checked == NIL)
		return false;
	buf->custom_plan = true;
	appendStringInfoString(&buf->sql, "SELECT f.objid FROM (");
	if (sets == NIL)
		sql_all_objids(buf, c);
	else
		emit_chain(buf, c, sets, 0, list_length(sets), "INTERSECT", true);
	appendStringInfoString(&buf->sql, ") f");
	sql_filter_checks(buf, c, checked, false);
	return true;
}

/* The term of an AND the plan found few objects for (exec/plan.c), or NULL. */
static ArgoPred *
driving_term(ArgoPred *p)
{
	ListCell   *lc;

	foreach(lc, p->args)
		if (((ArgoPred *) lfirst(lc))->drives)
			return lfirst(lc);
	return NULL;
}

/*
 * That term's objects, each judged on itself for the other terms, rather
 * than every term's objects found and intersected (orders of a status,
 * 50,000, in a week, 2,000: the status's 50,000 rows read for nothing).
 */
static void
emit_driven_and(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, ArgoPred *driver)
{
	List	   *rest = NIL;
	ListCell   *lc;

	foreach(lc, p->args)
		if (lfirst(lc) != driver)
			rest = lappend(rest, lfirst(lc));
	buf->custom_plan = true;
	appendStringInfoString(&buf->sql, "SELECT f.objid FROM (");
	/* a plain leaf's rows say where their object's document lies */
	buf->want_doctid = docs_readable(c) && !driver->path->wild && !driver->path->filtered &&
		(driver->kind == APRED_CMP || driver->kind == APRED_BETWEEN || driver->kind == APRED_LIKE) &&
		driver->lit->type != ALIT_JSON;
	buf->gave_doctid = false;
	emit_set(buf, c, driver, true);
	buf->want_doctid = false;
	appendStringInfoString(&buf->sql, ") f");
	sql_filter_checks(buf, c, rest, buf->gave_doctid);
	buf->gave_doctid = false;
}

static void
emit_binary(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	/* AND is TRUE where all are, FALSE where any is; OR the reverse */
	bool		intersect = (p->kind == APRED_AND) == truth;
	List	   *args = p->args;

	if (p->kind == APRED_AND && truth && driving_term(p) != NULL)
	{
		emit_driven_and(buf, c, p, driving_term(p));
		return;
	}

	if (p->kind == APRED_AND && truth && list_length(args) <= ARGO_LONG_CHAIN &&
		emit_checked_and(buf, c, args))
		return;
	if (list_length(args) > ARGO_LONG_CHAIN)
		emit_long_chain(buf, c, args, intersect, truth);
	else
		emit_chain(buf, c, args, 0, list_length(args),
				   intersect ? "INTERSECT" : "UNION", truth);
}

/* A literal list's values of one type, as an SQL array. */
static Datum
in_array(List *lits, ArgoLitType t, int *n)
{
	Datum	   *elems = palloc(sizeof(Datum) * list_length(lits));
	Oid			elemtype = t == ALIT_STRING ? TEXTOID : t == ALIT_NUMBER ? FLOAT8OID : BOOLOID;
	int16		typlen;
	bool		byval;
	char		align;
	ListCell   *lc;

	*n = 0;
	foreach(lc, lits)
	{
		ArgoLiteral *lit = lfirst(lc);

		if (lit->type != t)
			continue;
		if (t == ALIT_STRING)
			elems[*n] = CStringGetTextDatum(lit->str);
		else
			elems[*n] = t == ALIT_NUMBER ? Float8GetDatum(lit->num) : BoolGetDatum(lit->b);
		(*n)++;
	}
	get_typlenbyvalalign(elemtype, &typlen, &byval, &align);
	return PointerGetDatum(construct_array(elems, *n, elemtype, typlen, byval, align));
}

/*
 * p IN (…): per value type present, the rows of p's key whose value is
 * one of the list's (TRUE) or none of them (FALSE: p holds a value of
 * that type, and it is not listed).  A key has one row per object, so the
 * FALSE sets of different types intersect, as OR's FALSE does.
 *
 * The list is an array parameter joined with the typed table, not "= ANY
 * ($n)": a cached generic plan evaluates "= ANY" of a parameter by a
 * linear search per row (10,000 strings against 10,000 rows: 0.55 s), a
 * join is one index probe per value, or a hash.  Which one is not left
 * to the planner, whose estimates over a typed table mix every key's
 * values (10,000 numbers of a unique key at 1M objects were estimated at
 * 119k rows, and the whole number table was read and sorted: 0.25 s
 * where probes take a tenth): a list of at most a tenth as many values
 * as the collection has objects is probed, one value at a time.
 */
#define IN_PROBE_FRACTION 10

/* One value type's part of an IN list on a path with [*]. */
typedef struct InTest
{
	int			arr;			/* the list's values of the type: $arr */
	ArgoLitType type;
} InTest;

static void
in_test(SqlBuf *buf, void *arg)
{
	InTest	   *it = arg;

	appendStringInfo(&buf->sql, "%s OPERATOR(pg_catalog.=) ANY($%d)", sql_value_column(it->type), it->arr);
}

static void
emit_in(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	static const ArgoLitType types[] = {ALIT_STRING, ALIT_NUMBER, ALIT_BOOL};
	static const Oid array_types[] = {TEXTARRAYOID, FLOAT8ARRAYOID, BOOLARRAYOID};
	bool		first = true;

	/* IN of an empty array ($n = []): FALSE for every object */
	if (p->lits == NIL)
	{
		if (truth)
			appendStringInfo(&buf->sql, "SELECT objid FROM %s WHERE false", c->obj_table);
		else
			sql_all_objids(buf, c);
		return;
	}

	for (int i = 0; i < lengthof(types); i++)
	{
		int			n;
		Datum		values = in_array(p->lits, types[i], &n);
		const char *col = sql_value_column(types[i]);
		int			arr,
					key;

		if (n == 0)
			continue;
		if (!first)
			appendStringInfoString(&buf->sql, truth ? " UNION " : " INTERSECT ");
		first = false;
		arr = sqlbuf_param(buf, array_types[i], values);
		if (p->path->wild)
		{
			InTest		it = {arr, types[i]};

			appendStringInfoChar(&buf->sql, '(');
			sql_wild_leaf(buf, c, p->path, types[i], in_test, &it, truth);
			appendStringInfoChar(&buf->sql, ')');
			continue;
		}
		key = sql_key_param(buf, c, p->path->keystr);
		if (truth)
		{
			/* few values: one index probe each, whatever the estimates say */
			bool		probe = n <= directory_objects(c) / IN_PROBE_FRACTION;

			appendStringInfo(&buf->sql,
							 probe ? "(SELECT t.objid FROM pg_catalog.unnest($%d) AS v(x) CROSS JOIN LATERAL (SELECT t.objid FROM %s t WHERE t.keyid OPERATOR(pg_catalog.=) $%d AND t.%s OPERATOR(pg_catalog.=) v.x" :
							 "(SELECT t.objid FROM pg_catalog.unnest($%d) AS v(x) JOIN %s t ON t.keyid OPERATOR(pg_catalog.=) $%d AND t.%s OPERATOR(pg_catalog.=) v.x",
							 arr, sql_typed_table(c, types[i]), key, col);
			if (types[i] == ALIT_STRING)
				appendStringInfo(&buf->sql, " AND pg_catalog.left(t.valstr, %d) OPERATOR(pg_catalog.=) pg_catalog.left(v.x, %d)",
								 ARGO_STR_PREFIX_CHARS, ARGO_STR_PREFIX_CHARS);
			appendStringInfoString(&buf->sql, probe ? " OFFSET 0) t)" : ")");
		}
		else
			appendStringInfo(&buf->sql,
							 "(SELECT t.objid FROM %s t WHERE t.keyid OPERATOR(pg_catalog.=) $%d AND t.%s IS NOT NULL AND NOT EXISTS (SELECT FROM pg_catalog.unnest($%d) AS v(x) WHERE v.x OPERATOR(pg_catalog.=) t.%s))",
							 sql_typed_table(c, types[i]), key, col, arr, col);
	}
	Assert(!first);
}

static void
emit_between(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	buf->custom_plan = true;
	sql_begin_leaf(buf, c, p->lit->type, p->path);
	if (truth)
	{
		sql_value_comparison(buf, p->lit, ACMP_GE);
		appendStringInfoString(&buf->sql, " AND ");
		sql_value_comparison(buf, p->lit2, ACMP_LE);
		return;
	}
	appendStringInfo(&buf->sql, "(%s OPERATOR(pg_catalog.<) ", sql_value_column(p->lit->type));
	sql_add_literal(buf, p->lit);
	appendStringInfo(&buf->sql, " OR %s OPERATOR(pg_catalog.>) ", sql_value_column(p->lit->type));
	sql_add_literal(buf, p->lit2);
	appendStringInfoChar(&buf->sql, ')');
}

/*
 * ID() op n, ID() [NOT] IN (…): the directory's primary key.  Every
 * object has an id, so FALSE is the opposite comparison.
 */
static void
emit_id_test(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	appendStringInfo(&buf->sql, "SELECT objid FROM %s WHERE objid ", c->obj_table);
	if (p->lits == NIL)
	{
		appendStringInfo(&buf->sql, "%s $%d", sql_cmp_operator(truth ? p->op : negate_op(p->op)),
						 sqlbuf_param(buf, INT8OID, Int64GetDatum((int64) p->lit->num)));
		return;
	}
	{
		int			n = list_length(p->lits);
		int64	   *ids = palloc(sizeof(int64) * n);
		ListCell   *lc;

		foreach(lc, p->lits)
			ids[foreach_current_index(lc)] = (int64) ((ArgoLiteral *) lfirst(lc))->num;
		appendStringInfo(&buf->sql, "%s($%d)", truth ? "OPERATOR(pg_catalog.=) ANY" : "OPERATOR(pg_catalog.<>) ALL",
						 sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n)));
	}
}

/*
 * The text search configuration of p @@ …: the one argo_text indexed the
 * path with (a filter's path as its [*] path), else simple; *indexed
 * says whether there is such an index to read.
 */
static Oid
text_config(ArgoCollection *c, ArgoPath *path, bool *indexed)
{
	Oid			config = InvalidOid;

	*indexed = docs_readable(c) && docs_text_index(c, DatumGetJsonbP(sql_path_steps(path)), &config);
	if (!*indexed)
		config = get_ts_config_oid(list_make2(makeString("pg_catalog"), makeString("simple")), false);
	return config;
}

/*
 * A leaf through a filter [? pred]: its candidates found by the value
 * indexes, each judged on the object itself (filter.c).  TRUE needs the
 * leaf with its filters as [*] and the filter's own plain conditions
 * (analysis made them); FALSE needs a value at the path's first array —
 * or, for EXISTS and IS [NOT] NULL, which are never UNKNOWN, is every
 * object where it is not TRUE.
 */
static void
emit_filtered(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	bool		two_valued = p->kind == APRED_EXISTS || p->kind == APRED_ISNULL ||
		p->kind == APRED_ISNOTNULL;

	/* a computed test: every object is a candidate, for TRUE and FALSE alike */
	if (p->kind == APRED_EXPR)
	{
		buf->custom_plan = true;
		appendStringInfoString(&buf->sql, "SELECT f.objid FROM (");
		sql_all_objids(buf, c);
		appendStringInfoString(&buf->sql, ") f");
		sql_filter_check(buf, c, p, truth);
		return;
	}

	if (!truth && two_valued)
	{
		appendStringInfoChar(&buf->sql, '(');
		sql_all_objids(buf, c);
		appendStringInfoString(&buf->sql, ") EXCEPT (");
		emit_filtered(buf, c, p, true);
		appendStringInfoChar(&buf->sql, ')');
		return;
	}
	buf->custom_plan = true;
	appendStringInfoString(&buf->sql, "SELECT f.objid FROM (");
	if (truth)
		emit_set(buf, c, p->filter_cands, true);
	else
		emit_exists(buf, c, p->filter_array);
	appendStringInfoString(&buf->sql, ") f");
	if (p->kind == APRED_TEXT)
	{
		bool		indexed;

		sql_text_check(buf, c, p, text_config(c, p->path, &indexed), truth, false);
	}
	else
		sql_filter_check(buf, c, p, truth);
}

/*
 * p @@ 'query' (reference.md §7), judged on each object having p: its strings'
 * text against the query, under the configuration argo_text gave the
 * path (else simple).  TRUE where argo_text made an index: the index on
 * the kept documents, and the objects without one judged whole.
 */
static void
emit_text(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	Datum		path = sql_path_steps(p->path);
	bool		indexed;
	Oid			config = text_config(c, p->path, &indexed);

	buf->custom_plan = true;
	if (truth && indexed)
	{
		int			cfg = sqlbuf_param(buf, REGCONFIGOID, ObjectIdGetDatum(config));

		/* constants once planned (a custom plan): the index's expression */
		appendStringInfo(&buf->sql,
						 "SELECT objid FROM %s WHERE %s(doc, $%d::pg_catalog.jsonb, $%d::pg_catalog.regconfig)"
						 " OPERATOR(pg_catalog.@@) pg_catalog.websearch_to_tsquery($%d::pg_catalog.regconfig, ",
						 c->doc_table, argo_function("argo_text_vector"),
						 sqlbuf_param(buf, JSONBOID, path), cfg, cfg);
		sql_add_literal(buf, p->lit);
		appendStringInfoString(&buf->sql, ") UNION ");
	}
	appendStringInfoString(&buf->sql, "SELECT f.objid FROM (");
	emit_exists(buf, c, p->path);
	appendStringInfoString(&buf->sql, ") f");
	sql_text_check(buf, c, p, config, truth, truth && indexed);
}

/* Ids of the objects where p has the given truth value. */
static void
emit_set(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (p->path != NULL && p->path->filtered)
	{
		emit_filtered(buf, c, p, truth);
		return;
	}
	switch (p->kind)
	{
		case APRED_AND:
		case APRED_OR:
			emit_binary(buf, c, p, truth);
			break;
		case APRED_NOT:
			emit_set(buf, c, p->left, !truth);
			break;
		case APRED_CMP:
		case APRED_LIKE:
		case APRED_BETWEEN:
			if (p->kind == APRED_CMP && p->lit->type == ALIT_JSON)
				sql_whole_value(buf, c, p, truth);
			else if (p->path->wild)
				sql_wild_leaf(buf, c, p->path, leaf_type(p), leaf_test, p, truth);
			else if (p->kind == APRED_BETWEEN)
				emit_between(buf, c, p, truth);
			else if (p->kind == APRED_LIKE)
			{
				buf->custom_plan = true;
				sql_begin_leaf(buf, c, ALIT_STRING, p->path);
				like_subject(buf, p->like);
				appendStringInfo(&buf->sql, " %s ", like_operator(p->like, truth));
				sql_add_literal(buf, p->lit);
			}
			else
			{
				sql_begin_leaf(buf, c, p->lit->type, p->path);
				sql_value_comparison(buf, p->lit, truth ? p->op : negate_op(p->op));
			}
			break;
		case APRED_ANY:
			sql_any(buf, c, p, truth);
			break;
		case APRED_IN:
			emit_in(buf, c, p, truth);
			break;
		case APRED_EXISTS:
			if (truth)
				emit_exists(buf, c, p->path);
			else
				emit_complement_of(buf, c, emit_exists, p->path);
			break;
		case APRED_ISNULL:
			if (truth)
				emit_isnull(buf, c, p->path);
			else
				emit_complement_of(buf, c, emit_isnull, p->path);
			break;
		case APRED_ISNOTNULL:
			if (truth)
				emit_present_not_null(buf, c, p->path);
			else
				emit_complement_of(buf, c, emit_present_not_null, p->path);
			break;
		case APRED_ID:
			emit_id_test(buf, c, p, truth);
			break;
		case APRED_TEXT:
			emit_text(buf, c, p, truth);
			break;
		case APRED_EXPR:
			/* its stand-in path is judged on documents (emit_filtered) */
			elog(ERROR, "computed test without its stand-in path");
			break;
		case APRED_PART_EXISTS:
			/* a join judges it per tuple (join.c) */
			elog(ERROR, "EXISTS of a join's part outside a join");
			break;
	}
}

/* A query yielding the ids of the objects that satisfy pred. */
void
pred_emit_objids(SqlBuf *buf, ArgoCollection *coll, ArgoPred *pred)
{
	emit_set(buf, coll, pred, true);
}
