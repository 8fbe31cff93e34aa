/*
 * wild.c — leaves on a path with [*], whose values are many
 * (reference.md §3.1): comparisons, LIKE, BETWEEN and IN existential over
 * them, and lit op ANY p over an array's elements.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"

#include "common/keypath.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/keydict.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

/*
 * A leaf on a path with [*] (reference.md §3.1), whose values V are many.
 * TRUE: some value of the literal's type passes the test (rows of the
 * keys reached, one index scan over their ids).  FALSE: V is not empty
 * and every value in it has that type and fails — grouped over every
 * row under the values reached, which all must be rows of the values
 * themselves, of that type — or the array at the first [*] is empty
 * (its marker).  Otherwise UNKNOWN: neither set has the object.
 * test(buf, arg) writes the positive test on a row's value columns.
 */
void
sql_wild_leaf(SqlBuf *buf, ArgoCollection *c, ArgoPath *path, ArgoLitType t,
			   void (*test) (SqlBuf *, void *), void *arg, bool truth)
{
	int			exact;

	buf->custom_plan = true;
	if (truth)
	{
		sql_begin_leaf(buf, c, t, path);
		test(buf, arg);
		return;
	}
	exact = sql_keys_param(buf, sql_path_keys(c, path, false));
	appendStringInfoString(&buf->sql, "(SELECT objid FROM ");
	sql_rows_of_table(buf, c);
	appendStringInfoString(&buf->sql, " r WHERE ");
	sql_path_subtree_match(buf, c, "keyid", path);
	appendStringInfo(&buf->sql,
					 " GROUP BY objid HAVING pg_catalog.bool_and(keyid OPERATOR(pg_catalog.=) ANY($%d) AND %s IS NOT NULL)"
					 " AND NOT pg_catalog.bool_or(coalesce(keyid OPERATOR(pg_catalog.=) ANY($%d) AND (",
					 exact, sql_value_column(t), exact);
	test(buf, arg);
	appendStringInfoString(&buf->sql, "), false))) UNION (SELECT objid FROM ");
	sql_rows_of_table(buf, c);
	appendStringInfo(&buf->sql, " r WHERE keyid OPERATOR(pg_catalog.=) $%d)",
					 sql_key_param(buf, c, psprintf("%s" ARGO_MARK_EMPTY_ARRAY, path->prefix)));
}

/*
 * lit op ANY p, as SQL's x op ANY (array): the literal on the left.  An
 * element e satisfies it when "e op' lit" does, op' being op commuted.
 * TRUE: an element of the literal's type satisfies op.  FALSE: p is an
 * array of only such elements (or empty) and none does.  Elements are
 * found by their key ids (p[0], p[1], …), which the (keyid, value) index
 * serves.
 */
void
sql_any(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	static const ArgoCmpOp commuted[] = {ACMP_EQ, ACMP_NE, ACMP_GT, ACMP_GE,
	ACMP_LT, ACMP_LE};
	const char *col = sql_value_column(p->lit->type);
	KeyDict    *d = keydict_of(c);
	int			elems = sql_keys_param(buf, keydict_elements(d, p->path->keystr));

	buf->custom_plan = true;

	if (truth)
	{
		appendStringInfo(&buf->sql, "SELECT objid FROM %s WHERE keyid OPERATOR(pg_catalog.=) ANY($%d) AND ",
						 sql_typed_table(c, p->lit->type), elems);
		sql_value_comparison(buf, p->lit, commuted[p->op]);
		return;
	}
	appendStringInfoString(&buf->sql, "SELECT objid FROM ");
	sql_rows_of_table(buf, c);
	appendStringInfo(&buf->sql, " r WHERE keyid OPERATOR(pg_catalog.=) ANY($%d) GROUP BY objid HAVING pg_catalog.bool_and(keyid OPERATOR(pg_catalog.=) $%d OR (keyid OPERATOR(pg_catalog.=) ANY($%d) AND %s IS NOT NULL)) AND NOT pg_catalog.bool_or(coalesce(keyid OPERATOR(pg_catalog.=) ANY($%d) AND ",
					 sql_keys_param(buf, keydict_in_array(d, p->path->keystr)),
					 sql_key_param(buf, c, psprintf("%s" ARGO_MARK_EMPTY_ARRAY, p->path->keystr)),
					 elems, col, elems);
	sql_value_comparison(buf, p->lit, commuted[p->op]);
	appendStringInfoString(&buf->sql, ", false))");
}
