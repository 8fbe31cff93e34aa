/*
 * indexes.c — Argo's own indexes on a collection's value tables: made
 * with the collection, recognised by their shape, and dropped and built
 * again around a bulk load into an empty collection.
 *
 * Indexes serve the query shapes: (keyid, value) finds objects by a
 * predicate, and, with keyid = ANY(the ids of p[0], p[1], …), a string
 * anywhere in an array (lit = ANY p); (objid) fetches an object's rows or
 * one value of it: on objid alone B-tree deduplication keeps it a fifth
 * of the size of (objid, keyid), and the object's few rows of one type
 * share a heap page anyway.  Argo/1 keeps (objid, keyid): with all ~22
 * rows of an object in one table, finding one value by filtering them
 * doubled GROUP BY's time.  Strings are indexed by a prefix only, so that
 * 100 kB values still fit in a B-tree row.
 *
 * An index a user added (UNIQUE, partial, another opclass, other
 * columns) is never Argo's, whatever its name: a load leaves it alone.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "common/common.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"

/* The column standing for left(valstr, ARGO_STR_PREFIX_CHARS). */
#define PREFIX_COL "left(valstr)"

/*
 * A (keyid, value) index takes its entries wherever the values fall, so
 * after a load or a rebuild packs its leaves 90% full (B-tree's default)
 * the next inserts split nearly every leaf they land on: 10,000 YCSB
 * objects into 100,000 grew the string index from 139 to 213 MB and wrote
 * 17.6 kB of WAL an object.  Random inserts leave leaves about 70% full
 * anyway, so the index is built that full (docs/design.md).  The objid
 * indexes grow at their right end, and a boolean's entries at the end of
 * its value's run (in heap order): they keep the default.
 */
#define ARGO_VALUE_INDEX_FILLFACTOR 70

typedef struct IndexShape
{
	ArgoFormat	format;
	const char *table;			/* suffix of the value table */
	int			ncols;
	const char *cols[2];
	bool		by_value;		/* numbers and strings: fall anywhere */
	bool		covering;		/* INCLUDE (objid) */
} IndexShape;

/*
 * Argo/3's numeric index carries each row's object id, so ranges, grouped
 * counts and joins on numbers find objects index-only (lookup.c, and
 * PostgreSQL's index-only scans for Argo's SQL): Q10 at 100k read
 * 100,000 heap rows for its group keys.  An index with INCLUDE columns
 * is never deduplicated, which numbers (mostly distinct) barely lose.
 * Strings (NoBench's sparse keys share 11 values) would more than double,
 * and Argo/1's index holds every row of every type.  Not doctid: it is a
 * hint set again in place (dochint.c), and a column an index holds must
 * never change in place — the index would no longer hold what its heap
 * says (amcheck's heapallindexed calls that corruption), and a restored
 * collection's entries named the original's pages for good.
 */
static const char *const cover_cols[] = {"objid"};

static const IndexShape shapes[] = {
	{ARGO_FORMAT_ARGO3, "str", 2, {"keyid", PREFIX_COL}, true},
	{ARGO_FORMAT_ARGO3, "num", 2, {"keyid", "valnum"}, true, true},
	{ARGO_FORMAT_ARGO3, "bool", 2, {"keyid", "valbool"}, false},
	{ARGO_FORMAT_ARGO3, "str", 1, {"objid"}, false},
	{ARGO_FORMAT_ARGO3, "num", 1, {"objid"}, false},
	{ARGO_FORMAT_ARGO3, "bool", 1, {"objid"}, false},
	{ARGO_FORMAT_ARGO1, "data", 2, {"keyid", PREFIX_COL}, true},
	{ARGO_FORMAT_ARGO1, "data", 2, {"keyid", "valnum"}, true},
	{ARGO_FORMAT_ARGO1, "data", 2, {"objid", "keyid"}, false},
};

static char *
shape_table(ArgoCollection *c, const IndexShape *s)
{
	return quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_%s", c->name, s->table));
}

static void
create_index(ArgoCollection *c, const IndexShape *s)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX ON %s (", shape_table(c, s));
	for (int i = 0; i < s->ncols; i++)
	{
		if (i > 0)
			appendStringInfoString(&sql, ", ");
		if (strcmp(s->cols[i], PREFIX_COL) == 0)
			appendStringInfo(&sql, "pg_catalog.left(valstr, %d)", ARGO_STR_PREFIX_CHARS);
		else
			appendStringInfoString(&sql, s->cols[i]);
	}
	appendStringInfoChar(&sql, ')');
	if (s->covering)
		appendStringInfo(&sql, " INCLUDE (%s)", cover_cols[0]);
	if (s->by_value)
		appendStringInfo(&sql, " WITH (fillfactor = %d)", ARGO_VALUE_INDEX_FILLFACTOR);
	run_ddl(sql.data);
}

void
collection_create_indexes(ArgoCollection *c)
{
	for (int i = 0; i < lengthof(shapes); i++)
		if (shapes[i].format == c->format)
			create_index(c, &shapes[i]);
}

/* Index column i is the shape's column i, with its type's default operator family. */
static bool
column_fits(Relation index, Relation heap, int i, const char *col,
			List *exprs, ListCell **expr)
{
	AttrNumber	att = index->rd_index->indkey.values[i];
	Oid			type = TupleDescAttr(RelationGetDescr(index), i)->atttypid;

	if (index->rd_opfamily[i] != get_opclass_family(GetDefaultOpClass(type, BTREE_AM_OID)))
		return false;
	if (strcmp(col, PREFIX_COL) != 0)
		return att != 0 && att == attnameAttNum(heap, col, false);
	if (att != 0 || *expr == NULL)
		return false;
	if (!argo_is_prefix_expr(lfirst(*expr), attnameAttNum(heap, "valstr", false)))
		return false;
	*expr = lnext(exprs, *expr);
	return true;
}

/* Whether index's INCLUDE columns are what shape s includes. */
static bool
includes_fit(Relation index, Relation heap, const IndexShape *s)
{
	Form_pg_index ix = index->rd_index;

	if (ix->indnatts - ix->indnkeyatts != (s->covering ? lengthof(cover_cols) : 0))
		return false;
	for (int i = ix->indnkeyatts; i < ix->indnatts; i++)
		if (ix->indkey.values[i] == 0 ||
			ix->indkey.values[i] != attnameAttNum(heap, cover_cols[i - ix->indnkeyatts], false))
			return false;
	return true;
}

/* The shape an index of heap has, or NULL: not one of Argo's. */
static const IndexShape *
shape_of(ArgoCollection *c, Relation heap, const char *suffix, Relation index)
{
	Form_pg_index ix = index->rd_index;

	if (index->rd_rel->relam != BTREE_AM_OID || ix->indisunique ||
		ix->indisexclusion || RelationGetIndexPredicate(index) != NIL)
		return NULL;
	for (int s = 0; s < lengthof(shapes); s++)
	{
		List	   *exprs = RelationGetIndexExpressions(index);
		ListCell   *expr = list_head(exprs);
		bool		fits;

		if (shapes[s].format != c->format || strcmp(shapes[s].table, suffix) != 0 ||
			shapes[s].ncols != ix->indnkeyatts || !includes_fit(index, heap, &shapes[s]))
			continue;
		fits = true;
		for (int i = 0; i < ix->indnkeyatts && fits; i++)
			fits = column_fits(index, heap, i, shapes[s].cols[i], exprs, &expr);
		if (fits && expr == NULL)
			return &shapes[s];
	}
	return NULL;
}

/*
 * Drop Argo's own indexes on the collection's value tables, for a bulk
 * load to build them once at the end; returns what it dropped (for
 * collection_rebuild_indexes).  Only for the tables' owner, who alone
 * may drop indexes: anyone else loads with the indexes in place.
 */
List *
collection_drop_indexes(ArgoCollection *c)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	static const char *const argo1[] = {"data"};
	bool		is1 = c->format == ARGO_FORMAT_ARGO1;
	const char *const *suffixes = is1 ? argo1 : argo3;
	int			n = is1 ? lengthof(argo1) : lengthof(argo3);
	List	   *drop = NIL;
	List	   *dropped = NIL;
	ListCell   *lc;

	for (int t = 0; t < n; t++)
	{
		Relation	heap = argo_open_table(c, suffixes[t]);

		if (!pg_class_ownercheck(RelationGetRelid(heap), GetUserId()))
		{
			table_close(heap, NoLock);
			return NIL;
		}
		foreach(lc, RelationGetIndexList(heap))
		{
			Relation	index = index_open(lfirst_oid(lc), AccessShareLock);
			const IndexShape *shape = shape_of(c, heap, suffixes[t], index);

			if (shape != NULL)
			{
				drop = lappend(drop, quote_qualified_identifier(ARGO_SCHEMA, RelationGetRelationName(index)));
				dropped = lappend(dropped, (void *) shape);
			}
			index_close(index, AccessShareLock);
		}
		table_close(heap, NoLock);
	}
	foreach(lc, drop)
		run_ddl(psprintf("DROP INDEX %s", (char *) lfirst(lc)));
	return dropped;
}

/* Whether the collection's table of shape s has an index of that shape. */
static bool
has_index(ArgoCollection *c, const IndexShape *s)
{
	Relation	heap = argo_open_table(c, s->table);
	ListCell   *lc;
	bool		found = false;

	foreach(lc, RelationGetIndexList(heap))
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		found = found || shape_of(c, heap, s->table, index) == s;
		index_close(index, AccessShareLock);
	}
	table_close(heap, NoLock);
	return found;
}

/*
 * Build again the indexes collection_drop_indexes dropped, but none the
 * table has again: a shard's load spans statements, and a savepoint
 * rolled back between them brings back what was dropped.
 */
void
collection_rebuild_indexes(ArgoCollection *c, List *dropped)
{
	ListCell   *lc;

	foreach(lc, dropped)
		if (!has_index(c, lfirst(lc)))
			create_index(c, lfirst(lc));
}

/* An index shape as a reader would write it: "(keyid, left(valstr, 256))". */
static char *
shape_text(const IndexShape *s)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < s->ncols; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "(",
						 strcmp(s->cols[i], PREFIX_COL) == 0 ?
						 psprintf("left(valstr, %d)", ARGO_STR_PREFIX_CHARS) : s->cols[i]);
	appendStringInfoChar(&buf, ')');
	if (s->covering)
		appendStringInfo(&buf, " INCLUDE (%s)", cover_cols[0]);
	return buf.data;
}

/*
 * Argo's indexes c's value tables lack (argo_check): a load that dropped
 * them and never ended, or a role's DROP INDEX, leaves reads slow and
 * unique keys unchecked, though every row is right.
 */
List *
collection_missing_indexes(ArgoCollection *c)
{
	List	   *missing = NIL;

	for (int i = 0; i < lengthof(shapes); i++)
		if (shapes[i].format == c->format && !has_index(c, &shapes[i]))
			missing = lappend(missing, psprintf("table %s_%s lacks its %s index", c->name,
												shapes[i].table, shape_text(&shapes[i])));
	return missing;
}
