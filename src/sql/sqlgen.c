/*
 * sqlgen.c — whole statements as SQL: one statement per Argo query, so it
 * reads one snapshot and is atomic, and no temporary tables are needed
 * (the paper's intermediate table becomes a CTE, "m").
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "common/ids.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"

/* Row filter for one table: the object (cond), the projected paths (keys). */
static void
emit_row_filter(SqlBuf *buf, const char *cond, int keys)
{
	appendStringInfo(&buf->sql, " WHERE %s", cond ? cond : "true");
	if (keys > 0)
		appendStringInfo(&buf->sql, " AND keyid OPERATOR(pg_catalog.=) ANY($%d)", keys);
}

/*
 * The rows of the collection passing cond, as (objid, keyid, valstr,
 * valnum, valbool); for SELECT *, first a row with a NULL key for each
 * object (so that {} is returned).
 */
static void
emit_table_rows(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s, const char *cond)
{
	int			keys = s->star ? 0 :
		sql_keys_param(buf, projection_keys(c, s->targets, 0));

	/* SELECT * and SELECT ID(), …: every object, whatever rows it has */
	if (s->star || s->id_name)
	{
		appendStringInfo(&buf->sql,
						 "SELECT objid, NULL::integer AS keyid, NULL::pg_catalog.text AS valstr, NULL::pg_catalog.float8 AS valnum, NULL::boolean AS valbool FROM %s",
						 c->obj_table);
		emit_row_filter(buf, cond, 0);
		appendStringInfoString(&buf->sql, " UNION ALL ");
	}
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		appendStringInfo(&buf->sql,
						 "SELECT objid, keyid, " ARGO1_OBJECT_VALSTR " AS valstr, valnum, valbool FROM %s",
						 c->data_table);
		emit_row_filter(buf, cond, keys);
		return;
	}
	appendStringInfo(&buf->sql,
					 "SELECT objid, keyid, valstr, NULL::pg_catalog.float8 AS valnum, NULL::boolean AS valbool FROM %s",
					 c->str_table);
	emit_row_filter(buf, cond, keys);
	appendStringInfo(&buf->sql,
					 " UNION ALL SELECT objid, keyid, valexact, valnum, NULL FROM %s",
					 c->num_table);
	emit_row_filter(buf, cond, keys);
	appendStringInfo(&buf->sql,
					 " UNION ALL SELECT objid, keyid, NULL, NULL, valbool FROM %s",
					 c->bool_table);
	emit_row_filter(buf, cond, keys);
}

/* One ORDER BY item's sort key, taken from the object itself (doc/sortkey.c). */
static void
append_document_key(SqlBuf *buf, ArgoOrder *ob, const char *object, StringInfo keys)
{
	const char *dir = ob->desc ? " DESC" : "";
	/* an expression's spec where a path's steps would be */
	int			path = sqlbuf_param(buf, JSONBOID, ob->expr ? JsonbPGetDatum(sql_expr_spec(ob->expr)) :
									sql_path_steps(ob->path));

	appendStringInfo(keys, "%s(%s, $%d) COLLATE pg_catalog.\"C\"%s%s, ",
					 argo_function("argo_sort_key"), object, path, dir,
					 ob->nulls_first == ob->desc ? "" :
					 ob->nulls_first ? " NULLS FIRST" : " NULLS LAST");
}

/*
 * o.objid's object, as an expression: its kept document (joined in as
 * alias) where the read may take it, else rebuilt by argo_object().
 */
static const char *
document_of(SqlBuf *buf, ArgoCollection *c, const char *alias)
{
	bool		docs = docs_readable(c);
	int			name = sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name));

	if (docs)
		appendStringInfo(&buf->sql, " LEFT JOIN %s %s ON %s.objid OPERATOR(pg_catalog.=) o.objid",
						 c->doc_table, alias, alias);
	return psprintf("%s%s($%d, o.objid)%s", docs ? psprintf("COALESCE(%s.doc, ", alias) : "",
					argo_function("argo_object"), name, docs ? ")" : "");
}

/*
 * The joins that bring o.objid's ORDER BY values, and into keys the sort
 * keys over them, ending with o.objid (ties in id order).
 */
static void
emit_order_joins(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s, StringInfo keys)
{
	ListCell   *lc;

	foreach(lc, s->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);
		char	   *alias = psprintf("k%d", foreach_current_index(lc));
		ValueCols	v;

		/* ORDER BY ID(): the id itself */
		if (ob->path->id)
		{
			appendStringInfo(keys, "o.objid%s, ", ob->desc ? " DESC" : "");
			continue;
		}
		/* a[-1]: no key id names the last element; the object's own value */
		if (ob->path->filtered)
		{
			append_document_key(buf, ob, document_of(buf, c, alias), keys);
			continue;
		}
		v = sql_value_join(buf, c, "o.objid", ob->path->keystr, alias);
		sql_order_keys(keys, &v, ob->desc, ob->nulls_first);
		appendStringInfoString(keys, ", ");
	}
	appendStringInfoString(keys, "o.objid");
}

/*
 * The sort keys of every object of a collection that keeps its
 * documents, taken from the object itself (doc/sortkey.c) rather than
 * from rows joined to each directory row; the same order as
 * emit_order_joins gives.
 */
static void
emit_document_keys(SqlBuf *buf, ArgoStmt *s, const char *object, StringInfo keys)
{
	ListCell   *lc;

	foreach(lc, s->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);

		if (ob->path->id)
			appendStringInfo(keys, "o.objid%s, ", ob->desc ? " DESC" : "");
		else
			append_document_key(buf, ob, object, keys);
	}
	appendStringInfoString(keys, "o.objid");
}

/*
 * m: the selected objects in output order, limited before anything is
 * fetched, so LIMIT rebuilds only the objects it returns.  With ORDER BY,
 * m also numbers them (ord), after the LIMIT: numbered before it, every
 * object was sorted in full where PostgreSQL keeps just the top n.
 *
 * Every object sorted takes its sort keys from its kept document, as the
 * read of every object does: joining three value tables per key to each
 * directory row was 0.9 s of a 1.0 s `ORDER BY status, total DESC LIMIT
 * 20` over 200k orders.
 */
static void
emit_ordered_ids(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s, Datum ids)
{
	StringInfoData keys;

	buf->custom_plan = true;
	initStringInfo(&keys);
	if (s->order_by)
		appendStringInfoString(&buf->sql, "SELECT z.objid, pg_catalog.row_number() OVER () AS ord FROM (");
	appendStringInfoString(&buf->sql, "SELECT o.objid FROM (");
	if (ids != (Datum) 0)
		appendStringInfo(&buf->sql, "SELECT pg_catalog.unnest($%d::pg_catalog.int8[]) AS objid",
						 sqlbuf_param(buf, INT8ARRAYOID, ids));
	else
		sql_base_objids(buf, c, s->where);
	appendStringInfoString(&buf->sql, ") o");
	if (ids == (Datum) 0 && s->where == NULL && s->order_by && docs_readable(c))
		emit_document_keys(buf, s, document_of(buf, c, "d"), &keys);
	else
		emit_order_joins(buf, c, s, &keys);
	/* an object with none of the projected paths is not returned */
	if (!s->star && !s->id_name)
	{
		appendStringInfoString(&buf->sql, " WHERE o.objid OPERATOR(pg_catalog.=) ANY (SELECT objid FROM ");
		sql_rows_of_table(buf, c);
		appendStringInfoString(&buf->sql, " r WHERE ");
		sql_projection_filter(buf, c, "r.keyid", s->targets, 0);
		appendStringInfoString(&buf->sql, ")");
	}
	appendStringInfo(&buf->sql, " ORDER BY %s", keys.data);
	sql_limit_offset(buf, s);
	if (s->order_by)
		appendStringInfoString(&buf->sql, ") z");
}

/*
 * Whether a read of every object of c takes its kept documents: c keeps
 * them and the role may take them (store/docs.c).  Objects without one
 * are rebuilt by argo_object().
 */
bool
sqlgen_reads_docs(ArgoCollection *c)
{
	return docs_readable(c);
}

/*
 * Every object, rebuilt by argo_object() per directory row (fn/object.c)
 * where the collection keeps no document of it, in
 * id order or sorted as ORDER BY says.  PostgreSQL may share the
 * directory out among parallel workers, each rebuilding and sorting its
 * objects, and merge their results.
 */
SqlBuf *
sqlgen_all_objects(ArgoQuery *q)
{
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();
	StringInfoData keys;
	bool		docs = sqlgen_reads_docs(c);
	char	   *object;

	initStringInfo(&keys);
	/* a kept document is the object; only objects without one are rebuilt */
	object = psprintf("%s%s($%d, o.objid)%s", docs ? "COALESCE(d.doc, " : "",
					  argo_function("argo_object"),
					  sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name)),
					  docs ? ")" : "");
	appendStringInfo(&buf->sql, "SELECT %s, o.objid FROM %s o", object, c->obj_table);
	if (docs)
	{
		appendStringInfo(&buf->sql, " LEFT JOIN %s d ON d.objid OPERATOR(pg_catalog.=) o.objid",
						 c->doc_table);
		emit_document_keys(buf, q->stmt, object, &keys);
	}
	else
		emit_order_joins(buf, c, q->stmt, &keys);
	appendStringInfo(&buf->sql, " ORDER BY %s", keys.data);
	/*
	 * In id order, streamed: planned for all rows, the directory and the
	 * documents were hash-joined and sorted again by id (a quarter of an
	 * unsorted read of every object); planned for the first rows, the two
	 * primary keys are merged in the order they already have.
	 */
	buf->fast_start = q->stmt->order_by == NIL;
	return buf;
}

/*
 * The objects whose rows lie on pages [first, end), in no particular
 * order: one chunk of every object read by several processes
 * (exec/cursor.c), a TID range scan each — of the kept documents where
 * the read takes them (the objects without one then come from
 * sqlgen_all_objects_undocumented), else of the directory.
 */
SqlBuf *
sqlgen_all_objects_range(ArgoQuery *q, BlockNumber first, BlockNumber end)
{
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();
	ItemPointer from = palloc(sizeof(ItemPointerData));
	ItemPointer to = palloc(sizeof(ItemPointerData));
	int			fromp,
				top;

	ItemPointerSet(from, first, FirstOffsetNumber);
	ItemPointerSet(to, end, FirstOffsetNumber);
	buf->generic_plan = true;
	fromp = sqlbuf_param(buf, TIDOID, PointerGetDatum(from));
	top = sqlbuf_param(buf, TIDOID, PointerGetDatum(to));
	if (sqlgen_reads_docs(c))
		appendStringInfo(&buf->sql, "SELECT d.doc, d.objid FROM %s d"
						 " WHERE d.ctid OPERATOR(pg_catalog.>=) $%d AND d.ctid OPERATOR(pg_catalog.<) $%d",
						 c->doc_table, fromp, top);
	else
		appendStringInfo(&buf->sql, "SELECT %s($%d, o.objid), o.objid FROM %s o"
						 " WHERE o.ctid OPERATOR(pg_catalog.>=) $%d AND o.ctid OPERATOR(pg_catalog.<) $%d",
						 argo_function("argo_object"),
						 sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name)),
						 c->obj_table, fromp, top);
	return buf;
}

/* The objects of c that have no kept document, each rebuilt. */
SqlBuf *
sqlgen_all_objects_undocumented(ArgoQuery *q)
{
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();

	appendStringInfo(&buf->sql, "SELECT %s($%d, o.objid), o.objid FROM %s o WHERE NOT EXISTS"
					 " (SELECT FROM %s d WHERE d.objid OPERATOR(pg_catalog.=) o.objid)",
					 argo_function("argo_object"),
					 sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name)),
					 c->obj_table, c->doc_table);
	/* planned for its first rows: the two primary keys merged, not a hash of every document's id */
	buf->fast_start = true;
	return buf;
}

/* The statement orders or limits its objects. */
static bool
select_is_ordered(ArgoStmt *s)
{
	return s->order_by || s->limit || s->offset;
}

/* m's objects, each once, in output order. */
static const char *
selected_in_order(ArgoStmt *s)
{
	return s->order_by ? "SELECT objid, ord FROM m ORDER BY ord" :
		select_is_ordered(s) ? "SELECT objid FROM m ORDER BY objid" :
		"SELECT DISTINCT objid FROM m ORDER BY objid";
}

/* "WITH m AS (…) ": the selected objects, limited and numbered if ordered. */
static void
emit_selected(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s)
{
	appendStringInfoString(&buf->sql, "WITH m AS MATERIALIZED (");
	if (firstgroup_applies(c, s))
	{
		int			want = firstgroup_emit_head(buf, c, s);

		if (topn_applies(s))
			topn_emit_ids(buf, c, s);
		else
			emit_ordered_ids(buf, c, s, (Datum) 0);
		firstgroup_emit_tail(buf, want);
	}
	else if (topn_applies(s))
		topn_emit_ids(buf, c, s);
	else if (select_is_ordered(s))
		emit_ordered_ids(buf, c, s, (Datum) 0);
	else
		pred_emit_objids(buf, c, s->where);
	appendStringInfoString(&buf->sql, ") ");
}

/*
 * The rows of the selected objects (or of their projected paths) as
 * (objid, keyid, valstr, valnum, valbool), each object's rows together,
 * objects in output order; Argo/3 merges its three tables in the same
 * statement.
 *
 * Selected objects are fetched one by one, in order, by index probes on
 * objid (a LATERAL subquery; OFFSET 0 keeps the planner from flattening
 * it into a join that would sort every row again).  Without WHERE or
 * ORDER, every object is read: one scan per table, sorted by objid.
 */
SqlBuf *
sqlgen_select_rows(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();

	if (!select_is_ordered(s) && !s->where)
	{
		appendStringInfoString(&buf->sql,
							   "SELECT r.objid, r.keyid, r.valstr, r.valnum, r.valbool FROM (");
		emit_table_rows(buf, c, s, NULL);
		appendStringInfoString(&buf->sql, ") r ORDER BY r.objid");
		return buf;
	}
	emit_selected(buf, c, s);
	appendStringInfo(&buf->sql,
					 "SELECT r.objid, r.keyid, r.valstr, r.valnum, r.valbool FROM (%s) k CROSS JOIN LATERAL (",
					 selected_in_order(s));
	emit_table_rows(buf, c, s, "objid OPERATOR(pg_catalog.=) k.objid");
	appendStringInfo(&buf->sql, " OFFSET 0) r ORDER BY %s",
					 s->order_by ? "k.ord" : "k.objid");
	return buf;
}

/*
 * The ids of the objects a SELECT returns, each once, in output order
 * (for fetching their rows directly, objfetch.c).  Objects lacking every
 * projected path are for the fetcher to leave out, except where LIMIT
 * counts objects: there m leaves them out already.
 */
SqlBuf *
sqlgen_select_ids(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();

	if (!select_is_ordered(s) && !s->where)
	{
		sql_all_objids(buf, c);
		appendStringInfoString(&buf->sql, " ORDER BY objid");
		return buf;
	}
	emit_selected(buf, c, s);
	/* the fetcher reads the first column; a second (ord) is ignored */
	appendStringInfoString(&buf->sql, selected_in_order(s));
	return buf;
}

static void
emit_delete_from(SqlBuf *buf, const char *name, const char *table)
{
	appendStringInfo(&buf->sql, ", %s AS (DELETE FROM %s WHERE objid OPERATOR(pg_catalog.=) ANY($1))",
					 name, table);
}

/*
 * DELETE the objects $1 (locked: objlock.c) from the directory and every
 * value table; yields the count of directory rows deleted.
 */
SqlBuf *
sqlgen_delete_ids(ArgoCollection *c, const int64 *ids, int n)
{
	SqlBuf	   *buf = sqlbuf_create();

	buf->generic_plan = true;
	sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n));
	appendStringInfo(&buf->sql, "WITH d0 AS (DELETE FROM %s WHERE objid OPERATOR(pg_catalog.=) ANY($1) RETURNING objid)",
					 c->obj_table);
	if (c->format == ARGO_FORMAT_ARGO1)
		emit_delete_from(buf, "d1", c->data_table);
	else
	{
		emit_delete_from(buf, "d1", c->str_table);
		emit_delete_from(buf, "d2", c->num_table);
		emit_delete_from(buf, "d3", c->bool_table);
	}
	appendStringInfoString(&buf->sql, " SELECT pg_catalog.count(*) FROM d0");
	return buf;
}

/*
 * The rows (of the projected paths) of the given objects, in id order,
 * for a SELECT that reads its objects a batch of ids at a time (a
 * distributed collection: one statement per shard and batch, where the
 * LATERAL probes of sqlgen_select_rows would be a round trip each).
 */
SqlBuf *
sqlgen_rows_of_batch(ArgoQuery *q, const int64 *ids, int n)
{
	SqlBuf	   *buf = sqlbuf_create();
	int			p = sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n));

	appendStringInfoString(&buf->sql,
						   "SELECT r.objid, r.keyid, r.valstr, r.valnum, r.valbool FROM (");
	emit_table_rows(buf, linitial(q->colls), q->stmt,
					psprintf("objid OPERATOR(pg_catalog.=) ANY($%d)", p));
	appendStringInfoString(&buf->sql, ") r ORDER BY r.objid");
	return buf;
}

/* The rows of the given objects, each led by a row saying it exists. */
SqlBuf *
sqlgen_rows_of_ids(ArgoCollection *c, const int64 *ids, int n)
{
	SqlBuf	   *buf = sqlbuf_create();
	int			p = sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n));

	appendStringInfo(&buf->sql,
					 "SELECT objid, NULL::pg_catalog.int4 AS keyid, NULL::pg_catalog.text AS valstr, NULL::pg_catalog.float8 AS valnum, NULL::boolean AS valbool FROM %s WHERE objid OPERATOR(pg_catalog.=) ANY($%d)"
					 " UNION ALL SELECT objid, keyid, valstr, valnum, valbool FROM ",
					 c->obj_table, p);
	sql_object_rows_of_table(buf, c);
	appendStringInfo(&buf->sql, " r WHERE objid OPERATOR(pg_catalog.=) ANY($%d) ORDER BY 1, 2 NULLS FIRST", p);
	return buf;
}

/*
 * The ids of a SELECT whose WHERE found these few objects already
 * (lookup.c), ordered and limited as the statement says: a sort of n
 * objects, where the plan for ORDER BY … LIMIT reads the value indexes
 * in order for the first matches.
 */
SqlBuf *
sqlgen_order_ids(ArgoQuery *q, const int64 *ids, int n)
{
	ArgoStmt   *s = q->stmt;
	SqlBuf	   *buf = sqlbuf_create();

	appendStringInfoString(&buf->sql, "WITH m AS MATERIALIZED (");
	emit_ordered_ids(buf, linitial(q->colls), s, objid_array(ids, n));
	appendStringInfo(&buf->sql, ") %s", selected_in_order(s));
	return buf;
}
