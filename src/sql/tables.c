/*
 * tables.c — a collection's keys, rows and values as pieces of SQL: key
 * ids as parameters (noted for argo_explain), the keys a path reaches
 * and the rows under it, the rows of every value table as one relation,
 * and a literal compared with a row's value columns.  Below the files that write
 * whole predicates and statements (predicate.c, wholevalue.c,
 * fragments.c), which all use them.
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

#include "common/common.h"
#include "common/keypath.h"
#include "common/sqlbuf.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/keydict.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

/*
 * The id of keystr in c's dictionary as an int4 parameter: 0, which no
 * key has, for a key the collection never had.
 */
int
sql_key_param(SqlBuf *buf, ArgoCollection *c, const char *keystr)
{
	int			p = sqlbuf_param(buf, INT4OID,
								 Int32GetDatum(keydict_find(keydict_of(c), keystr)));

	sqlbuf_note(buf, p, psprintf("the key id of %s", quote_literal_cstr(keystr)));
	return p;
}

/* "the key ids of 'a', 'b', …" */
static const char *
keys_note(List *keys)
{
	StringInfoData s;
	ListCell   *lc;

	initStringInfo(&s);
	appendStringInfoString(&s, "the key ids of");
	foreach(lc, keys)
	{
		if (foreach_current_index(lc) == 4)
		{
			appendStringInfo(&s, " and %d more", list_length(keys) - 4);
			break;
		}
		appendStringInfo(&s, "%s %s", foreach_current_index(lc) ? "," : "",
						 quote_literal_cstr(((ArgoKey *) lfirst(lc))->str));
	}
	return s.data;
}

/* Dictionary keys as an int4[] parameter. */
int
sql_keys_param(SqlBuf *buf, List *keys)
{
	int			p = sqlbuf_param(buf, INT4ARRAYOID, keydict_id_array(keys));

	sqlbuf_note(buf, p, keys_note(keys));
	return p;
}

/*
 * The dictionary keys a path reaches: its key, or for a path with [*]
 * its pattern's; with subtree also the keys under each value reached.
 */
List *
sql_path_keys(ArgoCollection *c, ArgoPath *path, bool subtree)
{
	KeyDict    *d = keydict_of(c);
	int32		id;

	if (path->wild)
		return keydict_match(d, path->prefix, path->pattern, path->nsegs, subtree);
	if (subtree)
		return keydict_subtree(d, path->keystr);
	id = keydict_find(d, path->keystr);
	return id == 0 ? NIL : list_make1((void *) keydict_get(d, id));
}

/*
 * Rows of every type, as (objid, keyid, valstr, valnum, valbool); with
 * exact, for rebuilding objects, a number that keeps its exact text
 * (numbers.c) has it as valstr beside its valnum.
 */
static void
rows_of_table(SqlBuf *buf, ArgoCollection *c, bool exact)
{
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		if (exact)
			appendStringInfo(&buf->sql,
							 "(SELECT objid, keyid, " ARGO1_OBJECT_VALSTR " AS valstr, valnum, valbool FROM %s)",
							 c->data_table);
		else
			appendStringInfoString(&buf->sql, c->data_table);
		return;
	}
	appendStringInfo(&buf->sql,
					 "(SELECT objid, keyid, valstr, NULL::pg_catalog.float8 AS valnum, NULL::boolean AS valbool FROM %s"
					 " UNION ALL SELECT objid, keyid, %s, valnum, NULL FROM %s"
					 " UNION ALL SELECT objid, keyid, NULL, NULL, valbool FROM %s)",
					 c->str_table, exact ? "valexact" : "NULL", c->num_table, c->bool_table);
}

/* Rows of every type with the numbers' exact text beside: (objid, keyid, valstr, valnum, valbool, valexact). */
void
sql_number_rows_of_table(SqlBuf *buf, ArgoCollection *c)
{
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		appendStringInfo(&buf->sql, "(SELECT objid, keyid, valstr, valnum, valbool, valexact FROM %s)",
						 c->data_table);
		return;
	}
	appendStringInfo(&buf->sql,
					 "(SELECT objid, keyid, valstr, NULL::pg_catalog.float8 AS valnum, NULL::boolean AS valbool, NULL::pg_catalog.text AS valexact FROM %s"
					 " UNION ALL SELECT objid, keyid, NULL, valnum, NULL, valexact FROM %s"
					 " UNION ALL SELECT objid, keyid, NULL, NULL, valbool, NULL FROM %s)",
					 c->str_table, c->num_table, c->bool_table);
}

void
sql_rows_of_table(SqlBuf *buf, ArgoCollection *c)
{
	rows_of_table(buf, c, false);
}

void
sql_object_rows_of_table(SqlBuf *buf, ArgoCollection *c)
{
	rows_of_table(buf, c, true);
}

/* Every object of the collection: its directory. */
void
sql_all_objids(SqlBuf *buf, ArgoCollection *c)
{
	appendStringInfo(&buf->sql, "SELECT objid FROM %s", c->obj_table);
}

/* Argo/SQL's comparisons as PostgreSQL's operators, by ArgoCmpOp */
static const char *const cmp_sql[] = {
	"OPERATOR(pg_catalog.=)", "OPERATOR(pg_catalog.<>)", "OPERATOR(pg_catalog.<)",
	"OPERATOR(pg_catalog.<=)", "OPERATOR(pg_catalog.>)", "OPERATOR(pg_catalog.>=)"
};

/* A comparison's SQL operator, schema-qualified. */
const char *
sql_cmp_operator(ArgoCmpOp op)
{
	return cmp_sql[op];
}

/* The table holding values of a literal's type, and its value column. */
const char *
sql_typed_table(ArgoCollection *c, ArgoLitType t)
{
	if (c->format == ARGO_FORMAT_ARGO1)
		return c->data_table;
	return t == ALIT_STRING ? c->str_table :
		t == ALIT_NUMBER ? c->num_table : c->bool_table;
}

const char *
sql_value_column(ArgoLitType t)
{
	return t == ALIT_STRING ? "valstr" : t == ALIT_NUMBER ? "valnum" : "valbool";
}

/* A literal as a parameter, cast to its SQL type. */
void
sql_add_literal(SqlBuf *buf, ArgoLiteral *lit)
{
	switch (lit->type)
	{
		case ALIT_STRING:
			sqlbuf_add_text(buf, lit->str);
			appendStringInfoString(&buf->sql, "::pg_catalog.text");
			break;
		case ALIT_NUMBER:
			sqlbuf_add_param(buf, FLOAT8OID, Float8GetDatum(lit->num));
			break;
		case ALIT_BOOL:
			sqlbuf_add_param(buf, BOOLOID, BoolGetDatum(lit->b));
			break;
		default:
			elog(ERROR, "null literal in a comparison");
	}
	if (lit->user_param > 0)
		sqlbuf_note(buf, buf->nparams, psprintf("your $%d", lit->user_param));
}

/*
 * "col op lit".  Strings also get the comparison of their indexed prefix,
 * which the longer value's order implies (byte order, COLLATE "C"), so the
 * (keyid, left(valstr, N)) index can find the rows.
 */
void
sql_value_comparison(SqlBuf *buf, ArgoLiteral *lit, ArgoCmpOp op)
{
	const char *col = sql_value_column(lit->type);

	if (op != ACMP_EQ)
		buf->custom_plan = true;

	if (lit->type == ALIT_STRING && op != ACMP_NE)
	{
		static const char *const prefix_op[] = {
		"OPERATOR(pg_catalog.=)", NULL, "OPERATOR(pg_catalog.<=)",
		"OPERATOR(pg_catalog.<=)", "OPERATOR(pg_catalog.>=)", "OPERATOR(pg_catalog.>=)"
	};

		appendStringInfo(&buf->sql, "pg_catalog.left(valstr, %d) %s pg_catalog.left(",
						 ARGO_STR_PREFIX_CHARS, prefix_op[op]);
		sql_add_literal(buf, lit);
		appendStringInfo(&buf->sql, ", %d)", ARGO_STR_PREFIX_CHARS);

		/*
		 * A string shorter than the prefix equals the value exactly when it
		 * equals the value's prefix (a longer value's prefix is longer than
		 * the string): the one condition is enough.  Said twice, the
		 * planner makes its constant "C"-collated, which postgres_fdw will
		 * not send to a shard, so a distributed collection read every row
		 * of the key to compare them itself.
		 */
		if (op == ACMP_EQ &&
			pg_mbstrlen_with_len(lit->str, strlen(lit->str)) < ARGO_STR_PREFIX_CHARS)
			return;
		appendStringInfoString(&buf->sql, " AND ");
	}
	appendStringInfo(&buf->sql, "%s %s ", col, sql_cmp_operator(op));
	sql_add_literal(buf, lit);
}

/*
 * "col = $k", the path's key id (0, which no key has, for a key the
 * collection never had), or for a path with [*] "col = ANY($keys)" of
 * every key its pattern reaches.
 */
void
sql_path_key_match(SqlBuf *buf, ArgoCollection *c, const char *col, ArgoPath *path)
{
	if (path->wild)
		appendStringInfo(&buf->sql, "%s OPERATOR(pg_catalog.=) ANY($%d)", col,
						 sql_keys_param(buf, sql_path_keys(c, path, false)));
	else
		appendStringInfo(&buf->sql, "%s OPERATOR(pg_catalog.=) $%d", col,
						 sql_key_param(buf, c, path->keystr));
}

/* SELECT objid FROM <typed table> WHERE keyid = path AND … */
void
sql_begin_leaf(SqlBuf *buf, ArgoCollection *c, ArgoLitType t, ArgoPath *path)
{
	bool		doctid = false;

	/* asked of one leaf (sql/predicate.c, emit_driven_and); a table made before 0.7 has none */
	if (buf->want_doctid)
	{
		const char *suffix = c->format == ARGO_FORMAT_ARGO1 ? "data" :
			t == ALIT_STRING ? "str" : t == ALIT_NUMBER ? "num" : "bool";

		doctid = get_attnum(argo_table_relid(c, suffix), "doctid") != InvalidAttrNumber;
		buf->want_doctid = false;
		buf->gave_doctid = doctid;
	}
	appendStringInfo(&buf->sql, "SELECT objid%s FROM %s WHERE ", doctid ? ", doctid" : "",
					 sql_typed_table(c, t));
	sql_path_key_match(buf, c, "keyid", path);
	appendStringInfoString(&buf->sql, " AND ");
}

/*
 * A row lies in the subtree at keystr: the value itself, a descendant
 * ("k.x", "k[i]") or the marker of an empty container ("k{}", "k[]");
 * the dictionary knows which keys those are.
 */
void
sql_subtree_match(SqlBuf *buf, ArgoCollection *c, const char *col,
				  const char *keystr)
{
	appendStringInfo(&buf->sql, "%s OPERATOR(pg_catalog.=) ANY($%d)", col,
					 sql_keys_param(buf, keydict_subtree(keydict_of(c), keystr)));
}

/* The same for a path, whose values with [*] are many. */
void
sql_path_subtree_match(SqlBuf *buf, ArgoCollection *c, const char *col,
					   ArgoPath *path)
{
	appendStringInfo(&buf->sql, "%s OPERATOR(pg_catalog.=) ANY($%d)", col,
					 sql_keys_param(buf, sql_path_keys(c, path, true)));
}

/*
 * Every row of the keys (an int4[]) in table, as (objid, keyid, valstr,
 * valnum, valbool) for rebuilding: type 0-2 a typed Argo/3 table's
 * (strings, numbers with their exact texts, booleans), 3 Argo/1's.
 */
SqlBuf *
sql_key_rows(const char *table, int type, Datum keys)
{
	static const char *const cols[] = {
		"valstr, NULL::pg_catalog.float8, NULL::boolean",
		"valexact, valnum, NULL::boolean",
		"NULL::pg_catalog.text, NULL::pg_catalog.float8, valbool",
		ARGO1_OBJECT_VALSTR ", valnum, valbool"
	};
	SqlBuf	   *buf = sqlbuf_create();

	appendStringInfo(&buf->sql, "SELECT objid, keyid, %s FROM %s WHERE keyid OPERATOR(pg_catalog.=) ANY($%d)",
					 cols[type], table, sqlbuf_param(buf, INT4ARRAYOID, keys));
	return buf;
}

/* The newest key id of c's dictionary. */
SqlBuf *
sql_newest_key(ArgoCollection *c)
{
	SqlBuf	   *buf = sqlbuf_create();

	appendStringInfo(&buf->sql, "SELECT pg_catalog.max(keyid) FROM %s", c->keys_table);
	return buf;
}
