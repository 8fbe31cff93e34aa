/*
 * writesql.c — the SQL an UPDATE, UPSERT or DELETE runs around its writes
 * from C (exec/objlock.c): the objects it selects, in id order; their
 * directory rows locked (and, for a write through SQL, touched); the maps
 * a distributed write forgets; and the objects that still satisfy WHERE
 * after waiting for a lock.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "utils/rel.h"

#include "common/ids.h"
#include "common/sqlbuf.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/rowmap.h"
#include "parse/expr.h"
#include "sql/sql.h"
#include "sql/writesql.h"

/*
 * What a write through SQL forgets of the directory row: the map (0.6 and
 * later), where there is the column.  (Its rows written through SQL then
 * have their kept documents deleted: fn/rowmaps.c.)
 */
static const char *
forget_columns(ArgoCollection *c)
{
	Relation	dir = argo_open_table(c, "obj");
	bool		maps = rowmap_column(dir) > 0;

	table_close(dir, NoLock);
	return maps ? ", rowmap = NULL" : "";
}

/*
 * Lock (and for an UPDATE, touch) in id order the objects WHERE selects,
 * or, when ids is not NULL, those of the n ids already found.
 */
SqlBuf *
writesql_lock(ArgoCollection *c, ArgoPred *where, bool touch, const int64 *ids, int n)
{
	SqlBuf	   *buf = sqlbuf_create();

	if (touch)
		appendStringInfo(&buf->sql,
						 "UPDATE %s o SET objid = o.objid%s FROM (", c->obj_table,
						 forget_columns(c));
	appendStringInfo(&buf->sql, "SELECT i.objid, i.xmin AS v FROM %s i", c->obj_table);
	if (ids != NULL)
	{
		buf->generic_plan = true;
		appendStringInfo(&buf->sql, " WHERE i.objid OPERATOR(pg_catalog.=) ANY($%d)",
						 sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n)));
	}
	else if (where)
	{
		appendStringInfoString(&buf->sql, " WHERE i.objid OPERATOR(pg_catalog.=) ANY (");
		pred_emit_objids(buf, c, where);
		appendStringInfoChar(&buf->sql, ')');
	}
	appendStringInfoString(&buf->sql, " ORDER BY i.objid FOR UPDATE OF i");
	if (touch)
		appendStringInfoString(&buf->sql,
							   ") l WHERE o.objid OPERATOR(pg_catalog.=) l.objid RETURNING o.objid, l.v");
	return buf;
}

/* The ids, in order, of the objects WHERE selects. */
SqlBuf *
writesql_ordered_ids(ArgoCollection *c, ArgoPred *where)
{
	SqlBuf	   *buf = sqlbuf_create();

	sql_base_objids(buf, c, where);
	appendStringInfoString(&buf->sql, " ORDER BY 1");
	return buf;
}

/* A distributed write's objects' maps forgotten, their ids returned. */
SqlBuf *
writesql_forget_maps(ArgoCollection *c, const int64 *ids, int n)
{
	SqlBuf	   *buf = sqlbuf_create();

	appendStringInfo(&buf->sql,
					 "UPDATE %s SET rowmap = NULL WHERE objid OPERATOR(pg_catalog.=) ANY($%d) RETURNING objid",
					 c->obj_table, sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n)));
	return buf;
}

/* Which of the n locked objects WHERE still selects, in id order. */
SqlBuf *
writesql_recheck(ArgoCollection *c, ArgoPred *where, const int64 *ids, int n)
{
	SqlBuf	   *buf = sqlbuf_create();
	int			p;

	appendStringInfoString(&buf->sql, "SELECT DISTINCT objid FROM (");
	pred_emit_objids(buf, c, where);
	p = sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n));
	appendStringInfo(&buf->sql, ") m WHERE objid OPERATOR(pg_catalog.=) ANY($%d) ORDER BY objid", p);
	return buf;
}
