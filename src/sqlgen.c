/*
 * sqlgen.c — whole statements as SQL: one statement per Argo query, so it
 * reads one snapshot and is atomic, and no temporary tables are needed
 * (the paper's intermediate table becomes a CTE).
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "argo.h"

/* WITH m AS MATERIALIZED (<ids of matching objects>) */
static void
emit_match_cte(SqlBuf *buf, ArgoCollection *c, ArgoPred *where)
{
	appendStringInfoString(&buf->sql, "WITH m AS MATERIALIZED (");
	pred_emit_objids(buf, c, where);
	appendStringInfoString(&buf->sql, ") ");
}

/* Row filter for one table: the matching objects, the projected paths. */
static void
emit_row_filter(SqlBuf *buf, ArgoStmt *s)
{
	ListCell   *lc;
	bool		first = true;

	appendStringInfoString(&buf->sql, " WHERE true");
	if (s->where)
		appendStringInfoString(&buf->sql, " AND objid IN (SELECT objid FROM m)");
	if (s->star)
		return;
	appendStringInfoString(&buf->sql, " AND (");
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (!first)
			appendStringInfoString(&buf->sql, " OR ");
		sql_subtree_match(buf, "keystr", t->path->keystr);
		first = false;
	}
	appendStringInfoChar(&buf->sql, ')');
}

/*
 * The rows of the selected objects (or of their projected paths) as
 * (objid, keystr, valstr, valnum, valbool), ordered by objid; Argo/3
 * merges its three tables in the same statement.
 */
SqlBuf *
sqlgen_select_rows(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();

	if (s->where)
		emit_match_cte(buf, c, s->where);
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		appendStringInfo(&buf->sql,
						 "SELECT objid, keystr, valstr, valnum, valbool FROM %s",
						 c->data_table);
		emit_row_filter(buf, s);
	}
	else
	{
		appendStringInfo(&buf->sql,
						 "SELECT objid, keystr, valstr, NULL::float8 AS valnum, NULL::boolean AS valbool FROM %s",
						 c->str_table);
		emit_row_filter(buf, s);
		appendStringInfo(&buf->sql,
						 " UNION ALL SELECT objid, keystr, NULL, valnum, NULL FROM %s",
						 c->num_table);
		emit_row_filter(buf, s);
		appendStringInfo(&buf->sql,
						 " UNION ALL SELECT objid, keystr, NULL, NULL, valbool FROM %s",
						 c->bool_table);
		emit_row_filter(buf, s);
	}
	appendStringInfoString(&buf->sql, " ORDER BY objid");
	return buf;
}

static void
emit_delete_from(SqlBuf *buf, const char *name, const char *table, bool where)
{
	appendStringInfo(&buf->sql, "%s AS (DELETE FROM %s%s RETURNING objid)",
					 name, table,
					 where ? " WHERE objid IN (SELECT objid FROM m)" : "");
}

/* DELETE from every table of the collection; yields the objects' count. */
SqlBuf *
sqlgen_delete(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();

	if (s->where)
	{
		emit_match_cte(buf, c, s->where);
		appendStringInfoString(&buf->sql, ", ");
	}
	else
		appendStringInfoString(&buf->sql, "WITH ");
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		emit_delete_from(buf, "d1", c->data_table, s->where != NULL);
		appendStringInfoString(&buf->sql,
							   " SELECT count(DISTINCT objid) FROM d1");
		return buf;
	}
	emit_delete_from(buf, "d1", c->str_table, s->where != NULL);
	appendStringInfoString(&buf->sql, ", ");
	emit_delete_from(buf, "d2", c->num_table, s->where != NULL);
	appendStringInfoString(&buf->sql, ", ");
	emit_delete_from(buf, "d3", c->bool_table, s->where != NULL);
	appendStringInfoString(&buf->sql,
						   " SELECT count(*) FROM (SELECT objid FROM d1 UNION SELECT objid FROM d2 UNION SELECT objid FROM d3) d");
	return buf;
}
