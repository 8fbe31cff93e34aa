/*
 * fragments.c — pieces of SQL that several statements' SQL share: the
 * objects a WHERE selects, one path's typed values joined in, ORDER BY
 * keys, LIMIT/OFFSET, the projected keys.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"

#include "common/keypath.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

typedef struct RootEntry
{
	const char *root;			/* hash key */
	int			n;
} RootEntry;

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
	return sql_value_join_types(buf, c, objid_expr, keystr, alias, 0, false);
}

/* One value table's LEFT JOIN for sql_value_join_types, or its column's NULL. */
static char *
typed_join(SqlBuf *buf, const char *table, const char *col, const char *type, bool may,
		   const char *objid_expr, int k, const char *alias, bool setwise)
{
	const char *notnull = strcmp(col, "valbool") == 0 ? " AND valbool IS NOT NULL" : "";

	if (!may)
		return psprintf("NULL::%s", type);
	if (setwise)
		appendStringInfo(&buf->sql,
						 " LEFT JOIN (SELECT objid, %s FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d%s OFFSET 0) %s"
						 " ON %s.objid OPERATOR(pg_catalog.=) %s",
						 col, table, k, notnull, alias, alias, objid_expr);
	else
		appendStringInfo(&buf->sql,
						 " LEFT JOIN %s %s ON %s.objid OPERATOR(pg_catalog.=) %s AND %s.keyid OPERATOR(pg_catalog.=) $%d%s",
						 table, alias, alias, objid_expr, alias, k,
						 *notnull ? psprintf(" AND %s.valbool IS NOT NULL", alias) : "");
	return psprintf("%s.%s", alias, col);
}

/*
 * The same, joining only the tables of the types the key may hold
 * (types: VALUE_TYPES_KNOWN | bit t for type t, 0 strings, 1 numbers,
 * 2 booleans; 0 when not known): an aggregate's category, a string, was
 * looked for among the numbers too, 88,000 buffers for 29,000 tuples.
 * With setwise, for many objects, each table's rows of the key are read
 * whole (a subquery the planner cannot push the object into) and hashed
 * instead of probed object by object: 30,000 orders of a status, their
 * cities: 122,000 buffers probed.
 */
ValueCols
sql_value_join_types(SqlBuf *buf, ArgoCollection *c, const char *objid_expr,
					 const char *keystr, const char *alias, int types, bool setwise)
{
	ValueCols	v;
	int			k = sql_key_param(buf, c, keystr);

	if (!(types & VALUE_TYPES_KNOWN))
		types = 7;
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		if (setwise)
			appendStringInfo(&buf->sql,
							 " LEFT JOIN (SELECT objid, valstr, valnum, valbool FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d OFFSET 0) %s"
							 " ON %s.objid OPERATOR(pg_catalog.=) %s",
							 c->data_table, k, alias, alias, objid_expr);
		else
			appendStringInfo(&buf->sql,
							 " LEFT JOIN %s %s ON %s.objid OPERATOR(pg_catalog.=) %s AND %s.keyid OPERATOR(pg_catalog.=) $%d",
							 c->data_table, alias, alias, objid_expr, alias, k);
		v.num = psprintf("%s.valnum", alias);
		v.str = psprintf("%s.valstr", alias);
		v.boolean = psprintf("%s.valbool", alias);
		return v;
	}
	v.num = typed_join(buf, c->num_table, "valnum", "pg_catalog.float8", types & 2, objid_expr, k,
					   psprintf("%sn", alias), setwise);
	v.str = typed_join(buf, c->str_table, "valstr", "pg_catalog.text", types & 1, objid_expr, k,
					   psprintf("%ss", alias), setwise);
	v.boolean = typed_join(buf, c->bool_table, "valbool", "boolean", types & 4, objid_expr, k,
						   psprintf("%sb", alias), setwise);
	return v;
}

/*
 * A value row's number exactly as written, from its valnum and valexact
 * (qualified by alias, which may be ""): what SUM and AVG add (§9.3).
 */
char *
sql_exact_number(const char *alias)
{
	const char *dot = *alias ? "." : "";

	return psprintf("%s(%s%svalnum, %s%svalexact)", argo_function("argo_exact"), alias, dot, alias, dot);
}

/*
 * A LEFT JOIN that brings the number at keystr of objid_expr's object,
 * exactly (sql_exact_number); setwise as sql_value_join_types.
 */
char *
sql_exact_join(SqlBuf *buf, ArgoCollection *c, const char *objid_expr, const char *keystr,
			   const char *alias, bool setwise)
{
	int			k = sql_key_param(buf, c, keystr);
	const char *table = c->format == ARGO_FORMAT_ARGO1 ? c->data_table : c->num_table;

	if (setwise)
		appendStringInfo(&buf->sql,
						 " LEFT JOIN (SELECT objid, valnum, valexact FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d AND valnum IS NOT NULL OFFSET 0) %s"
						 " ON %s.objid OPERATOR(pg_catalog.=) %s",
						 table, k, alias, alias, objid_expr);
	else
		appendStringInfo(&buf->sql,
						 " LEFT JOIN %s %s ON %s.objid OPERATOR(pg_catalog.=) %s AND %s.keyid OPERATOR(pg_catalog.=) $%d AND %s.valnum IS NOT NULL",
						 table, alias, alias, objid_expr, alias, k, alias);
	return sql_exact_number(alias);
}

/*
 * Sort keys in the cross-type order: numbers, strings, booleans, then
 * objects lacking a scalar there, last or first as nulls_first says
 * (by default last ascending, first descending).
 */
void
sql_order_keys(StringInfo out, ValueCols *v, bool desc, bool nulls_first)
{
	const char *dir = desc ? " DESC" : "";
	int			lacking = nulls_first == desc ? 3 : -1;

	appendStringInfo(out,
					 "CASE WHEN %s IS NOT NULL THEN 0 WHEN %s IS NOT NULL THEN 1 WHEN %s IS NOT NULL THEN 2 ELSE %d END%s, %s%s, %s%s, %s%s",
					 v->num, v->str, v->boolean, lacking, dir, v->num, dir, v->str, dir,
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

Datum
sql_int4_array(Datum *elems, int n)
{
	return PointerGetDatum(construct_array(elems, n, INT4OID, 4, true, TYPALIGN_INT));
}

/*
 * A path's keys — exact, or with subtree every key under the values it
 * reaches — with, for each, the number of the value it lies under (the
 * key of that value itself, numbered from 1: its root), for counting
 * values whatever they hold; and with elem_seg >= 0 its position in the
 * array at that segment (the array a GROUP BY unwinds), else -1.
 */
KeyRows
sql_path_key_rows(ArgoCollection *c, ArgoPath *path, bool subtree, int elem_seg)
{
	KeyRows		r;
	HTAB	   *seen = keystr_hash_create("argo roots", sizeof(RootEntry), CurrentMemoryContext);
	int			nsegs = path->wild ? path->nsegs : 0;
	ListCell   *lc;

	r.keys = sql_path_keys(c, path, subtree);
	r.roots = palloc(sizeof(Datum) * Max(list_length(r.keys), 1));
	r.elems = palloc(sizeof(Datum) * Max(list_length(r.keys), 1));
	foreach(lc, r.keys)
	{
		ArgoKey    *k = lfirst(lc);
		char	   *root = nsegs ? keypath_from_segs(k->segs, nsegs) : path->keystr;
		bool		found;
		RootEntry  *e = hash_search(seen, &root, HASH_ENTER, &found);

		if (!found)
			e->n = hash_get_num_entries(seen);
		r.roots[foreach_current_index(lc)] = Int32GetDatum(e->n);
		r.elems[foreach_current_index(lc)] = Int32GetDatum(elem_seg >= 0 && elem_seg < k->nsegs &&
														   k->segs[elem_seg].kind == KSEG_INDEX ?
														   (int32) k->segs[elem_seg].index : -1);
	}
	hash_destroy(seen);
	return r;
}

/* sql_path_key_rows as parallel int4[] parameters. */
KeyArrays
sql_path_key_arrays(SqlBuf *buf, ArgoCollection *c, ArgoPath *path, bool subtree,
					int elem_seg)
{
	KeyRows		r = sql_path_key_rows(c, path, subtree, elem_seg);
	int			n = list_length(r.keys);
	KeyArrays	a;

	a.keys = sql_keys_param(buf, r.keys);
	a.roots = sqlbuf_param(buf, INT4ARRAYOID, sql_int4_array(r.roots, n));
	a.elems = sqlbuf_param(buf, INT4ARRAYOID, sql_int4_array(r.elems, n));
	return a;
}

/*
 * "(SELECT objid[, e], pg_catalog.count(DISTINCT m.root) AS n …)": per object (with
 * by_elem, per element of the array at segment elem_seg), how many
 * values a path with [*] reaches, null, objects and arrays included.
 */
void
sql_values_reached(SqlBuf *buf, ArgoCollection *c, ArgoPath *path, int elem_seg)
{
	KeyArrays	a = sql_path_key_arrays(buf, c, path, true, elem_seg);
	bool		by_elem = elem_seg >= 0;

	appendStringInfo(&buf->sql, "(SELECT r.objid%s, pg_catalog.count(DISTINCT m.root) AS n FROM ",
					 by_elem ? ", m.e" : "");
	sql_rows_of_table(buf, c);
	appendStringInfo(&buf->sql,
					 " r JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS m(k, root, e) ON r.keyid OPERATOR(pg_catalog.=) m.k GROUP BY r.objid%s)",
					 a.keys, a.roots, a.elems, by_elem ? ", m.e" : "");
}

/*
 * The keys under the elements of the array a GROUP BY path with [*]
 * unwinds (the array at its first [*]); each one's element position is
 * its segment there.
 */
List *
sql_array_element_keys(ArgoCollection *c, ArgoPath *path)
{
	List	   *keys = NIL;
	ListCell   *lc;

	foreach(lc, keydict_in_array(keydict_of(c), path->prefix))
	{
		ArgoKey    *k = lfirst(lc);

		/* the marker of an empty array has no element */
		if (k->nsegs > path->first_wild && k->segs[path->first_wild].kind == KSEG_INDEX)
			keys = lappend(keys, k);
	}
	return keys;
}

/*
 * "(SELECT DISTINCT objid, e …)": each object's elements of that array,
 * by their positions: every key under the array gives its element's.
 */
void
sql_array_elements(SqlBuf *buf, ArgoCollection *c, ArgoPath *path)
{
	List	   *keys = sql_array_element_keys(c, path);
	Datum	   *elems = palloc(sizeof(Datum) * Max(list_length(keys), 1));
	ListCell   *lc;

	foreach(lc, keys)
		elems[foreach_current_index(lc)] =
			Int32GetDatum((int32) ((ArgoKey *) lfirst(lc))->segs[path->first_wild].index);
	appendStringInfoString(&buf->sql, "(SELECT DISTINCT r.objid, m.e FROM ");
	sql_rows_of_table(buf, c);
	appendStringInfo(&buf->sql,
					 " r JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS m(k, e) ON r.keyid OPERATOR(pg_catalog.=) m.k)",
					 sql_keys_param(buf, keys),
					 sqlbuf_param(buf, INT4ARRAYOID, sql_int4_array(elems, list_length(keys))));
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

		if (t->path->source == source && !t->path->id)
			keys = list_concat(keys, sql_path_keys(c, t->path, true));
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

