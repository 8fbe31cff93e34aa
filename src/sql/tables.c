/*
 * tables.c — a collection's keys and rows as pieces of SQL: key ids as
 * parameters (noted for argo_explain), the keys a path reaches, and the
 * rows of every value table as one relation.  Below the files that write
 * whole predicates and statements (predicate.c, wholevalue.c,
 * fragments.c), which all use them.
 */
#include "postgres.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "common/common.h"
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
