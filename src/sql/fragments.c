/*
 * fragments.c — pieces of SQL that several statements' SQL share: the
 * objects a WHERE selects, one path's typed values joined in, ORDER BY
 * keys, LIMIT/OFFSET, the projected keys.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "sql/sql.h"

/* Ids of the objects a WHERE selects, or of all objects; each once. */
void
sql_base_objids(SqlBuf *buf, ArgoCollection *c, ArgoPred *where)
{
	if (where == NULL)
	{
		sql_all_objids(buf, c);	/* already distinct */
		return;
	}
	/* a leaf like lit = ANY p yields an object once per matching element */
	appendStringInfoString(&buf->sql, "SELECT DISTINCT objid FROM (");
	pred_emit_objids(buf, c, where);
	appendStringInfoString(&buf->sql, ") b");
}

/*
 * LEFT JOINs that bring the scalar at keystr of the object whose id is
 * objid_expr; each of the returned columns is non-null only for a value
 * of its type (null, {} and [] give none).
 */
ValueCols
sql_value_join(SqlBuf *buf, ArgoCollection *c, const char *objid_expr,
			   const char *keystr, const char *alias)
{
	ValueCols	v;
	int			k = sql_key_param(buf, c, keystr);

	if (c->format == ARGO_FORMAT_ARGO1)
	{
		appendStringInfo(&buf->sql,
						 " LEFT JOIN %s %s ON %s.objid OPERATOR(pg_catalog.=) %s AND %s.keyid OPERATOR(pg_catalog.=) $%d",
						 c->data_table, alias, alias, objid_expr, alias, k);
		v.num = psprintf("%s.valnum", alias);
		v.str = psprintf("%s.valstr", alias);
		v.boolean = psprintf("%s.valbool", alias);
		return v;
	}
	appendStringInfo(&buf->sql,
					 " LEFT JOIN %s %sn ON %sn.objid OPERATOR(pg_catalog.=) %s AND %sn.keyid OPERATOR(pg_catalog.=) $%d"
					 " LEFT JOIN %s %ss ON %ss.objid OPERATOR(pg_catalog.=) %s AND %ss.keyid OPERATOR(pg_catalog.=) $%d"
					 " LEFT JOIN %s %sb ON %sb.objid OPERATOR(pg_catalog.=) %s AND %sb.keyid OPERATOR(pg_catalog.=) $%d AND %sb.valbool IS NOT NULL",
					 c->num_table, alias, alias, objid_expr, alias, k,
					 c->str_table, alias, alias, objid_expr, alias, k,
					 c->bool_table, alias, alias, objid_expr, alias, k, alias);
	v.num = psprintf("%sn.valnum", alias);
	v.str = psprintf("%ss.valstr", alias);
	v.boolean = psprintf("%sb.valbool", alias);
	return v;
}

/*
 * Sort keys in the cross-type order: numbers, strings, booleans, then
 * objects lacking a scalar there (last ascending, first descending).
 */
void
sql_order_keys(StringInfo out, ValueCols *v, bool desc)
{
	const char *dir = desc ? " DESC" : "";

	appendStringInfo(out,
					 "CASE WHEN %s IS NOT NULL THEN 0 WHEN %s IS NOT NULL THEN 1 WHEN %s IS NOT NULL THEN 2 ELSE 3 END%s, %s%s, %s%s, %s%s",
					 v->num, v->str, v->boolean, dir, v->num, dir, v->str, dir,
					 v->boolean, dir);
}

void
sql_limit_offset(SqlBuf *buf, ArgoStmt *s)
{
	if (s->limit)
	{
		appendStringInfoString(&buf->sql, " LIMIT ");
		sqlbuf_add_param(buf, INT8OID, Int64GetDatum((int64) s->limit->num));
		if (s->limit->user_param > 0)
			sqlbuf_note(buf, buf->nparams, psprintf("your $%d", s->limit->user_param));
	}
	if (s->offset)
	{
		appendStringInfoString(&buf->sql, " OFFSET ");
		sqlbuf_add_param(buf, INT8OID, Int64GetDatum((int64) s->offset->num));
		if (s->offset->user_param > 0)
			sqlbuf_note(buf, buf->nparams, psprintf("your $%d", s->offset->user_param));
	}
}

/* The dictionary keys of the projected paths of one FROM item. */
List *
projection_keys(ArgoCollection *c, List *targets, int source)
{
	List	   *keys = NIL;
	ListCell   *lc;

	foreach(lc, targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->path->source == source)
			keys = list_concat(keys, keydict_subtree(keydict_of(c), t->path->keystr));
	}
	return keys;
}

/* col = ANY(the keys of the projected paths of one FROM item) */
void
sql_projection_filter(SqlBuf *buf, ArgoCollection *c, const char *col,
					  List *targets, int source)
{
	appendStringInfo(&buf->sql, "%s OPERATOR(pg_catalog.=) ANY($%d)", col,
					 sql_keys_param(buf, projection_keys(c, targets, source)));
}
