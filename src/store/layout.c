/*
 * layout.c — where a collection table's columns are and which index
 * finds its rows by object, remembered per backend until the table
 * changes; and whether a page an address names is there.
 *
 * Every statement that reads rows from C opens up to five tables and
 * asked each for six column numbers by name and for its objid index by
 * visiting its indexes' catalog rows: 4% of a point read's backend time.
 * A table's columns and indexes change only by DDL, which sends a
 * relcache invalidation for it (ALTER TABLE, CREATE or DROP INDEX, a
 * rollback of either): its entry is then forgotten and worked out again
 * from the catalogs on next use.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/sysattr.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "nodes/primnodes.h"
#include "parser/parse_relation.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "common/common.h"
#include "store/access.h"

typedef struct LayoutEntry
{
	Oid			relid;			/* hash key */
	TableLayout layout;
} LayoutEntry;

static HTAB *layouts = NULL;
static uint64 invalidations = 0;

static void
forget_layout(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	LayoutEntry *e;

	invalidations++;
	if (OidIsValid(relid))
	{
		hash_search(layouts, &relid, HASH_REMOVE, NULL);
		return;
	}
	hash_seq_init(&seq, layouts);
	while ((e = hash_seq_search(&seq)) != NULL)
		hash_search(layouts, &e->relid, HASH_REMOVE, NULL);
}

static void
layouts_init(void)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(LayoutEntry);
	ctl.hcxt = CacheMemoryContext;
	layouts = hash_create("argo table layouts", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(forget_layout, (Datum) 0);
}

/*
 * Whether an index expression is left(<valstr>, ARGO_STR_PREFIX_CHARS),
 * valatt being valstr's column: the expression of Argo's string index.
 */
bool
argo_is_prefix_expr(Node *e, AttrNumber valatt)
{
	FuncExpr   *f = (FuncExpr *) e;
	Var		   *v;
	Const	   *len;

	if (e == NULL || !IsA(e, FuncExpr) || f->funcid != F_LEFT || list_length(f->args) != 2)
		return false;
	v = linitial(f->args);
	len = lsecond(f->args);
	return IsA(v, Var) && v->varattno == valatt && IsA(len, Const) &&
		!len->constisnull && len->consttype == INT4OID &&
		DatumGetInt32(len->constvalue) == ARGO_STR_PREFIX_CHARS;
}

/*
 * Whether irel's first INCLUDE column is objid (0.7's indexes had doctid
 * after it; the entry's objid is all a lookup takes from either).
 */
static bool
covers(Relation irel, const TableLayout *l)
{
	Form_pg_index ix = irel->rd_index;

	return ix->indnatts > ix->indnkeyatts &&
		ix->indkey.values[ix->indnkeyatts] == l->objatt;
}

/*
 * A valid B-tree on (keyid, value) of each type — (keyid, left(valstr,
 * N)) for strings — as lookup.c descends them; one that also covers
 * objid is preferred, since it answers ids without the heap.
 */
static void
value_indexes(Relation rel, TableLayout *l)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	irel = index_open(lfirst_oid(lc), AccessShareLock);
		int2vector *cols = &irel->rd_index->indkey;
		bool		btree = irel->rd_rel->relam == BTREE_AM_OID &&
			irel->rd_index->indisvalid &&
			irel->rd_index->indnkeyatts >= 2 &&
			RelationGetIndexPredicate(irel) == NIL &&
			cols->values[0] == l->keyatt;
		bool		cover = btree && covers(irel, l);

		for (int t = 0; btree && t < 3; t++)
			if ((!OidIsValid(l->valindex[t]) || (cover && !l->valcover[t])) &&
				l->valatt[t] > 0 &&
				(t == 0 ? cols->values[1] == 0 &&
				 argo_is_prefix_expr(linitial(RelationGetIndexExpressions(irel)), l->valatt[t]) :
				 cols->values[1] == l->valatt[t]))
			{
				l->valindex[t] = lfirst_oid(lc);
				l->valcover[t] = cover;
			}
		index_close(irel, AccessShareLock);
	}
}

static void
work_out(Relation rel, TableLayout *l)
{
	TupleDesc	desc = RelationGetDescr(rel);

	l->objatt = attnameAttNum(rel, "objid", false);
	l->keyatt = attnameAttNum(rel, "keyid", false);
	l->valatt[0] = attnameAttNum(rel, "valstr", false);
	l->valatt[1] = attnameAttNum(rel, "valnum", false);
	l->valatt[2] = attnameAttNum(rel, "valbool", false);
	l->valatt[3] = attnameAttNum(rel, "valexact", false);
	l->ids_first = l->objatt == 1 && l->keyatt == 2 &&
		TupleDescAttr(desc, 0)->atttypid == INT8OID &&
		TupleDescAttr(desc, 1)->atttypid == INT4OID;
	l->docatt = attnameAttNum(rel, "doctid", false);
	if (l->docatt > 0 && TupleDescAttr(desc, l->docatt - 1)->atttypid != TIDOID)
		l->docatt = InvalidAttrNumber;
	l->doc_indexed = l->docatt > 0 &&
		bms_is_member(l->docatt - FirstLowInvalidHeapAttributeNumber,
					  RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_ALL));
	l->objid_index = l->keyatt > 0 ? argo_objid_index(rel) : InvalidOid;
	for (int t = 0; t < 3; t++)
	{
		l->valindex[t] = InvalidOid;
		l->valcover[t] = false;
	}
	if (l->keyatt > 0)
		value_indexes(rel, l);
}

/* rel's layout, as its catalog rows say now (rel open, so locked). */
TableLayout
argo_table_layout(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	LayoutEntry *e;
	uint64		before = invalidations;
	TableLayout l;

	if (layouts == NULL)
		layouts_init();
	e = hash_search(layouts, &relid, HASH_FIND, NULL);
	if (e != NULL)
		return e->layout;
	/*
	 * Reading the catalogs may take in invalidations (an index another
	 * session just made): what was read across one is used, not kept.
	 */
	work_out(rel, &l);
	if (invalidations == before)
	{
		e = hash_search(layouts, &relid, HASH_ENTER, NULL);
		e->layout = l;
	}
	return l;
}

/*
 * Whether rel has a page numbered block, for addresses read from the
 * collection's own rows (a document's doctid, a row map), which may name
 * a page a VACUUM has since cut off.  Asking the kernel for the file's
 * size was 1.2% of a point read; the size this backend last learned is a
 * floor of it: the file only grows, and the truncation that would shrink
 * it sends a shared invalidation that closes the smgr relation (its
 * cached size with it) before anyone who holds a lock on rel reads again.
 * Only above that floor is the kernel asked.
 */
bool
argo_block_exists(Relation rel, BlockNumber block)
{
	BlockNumber known = RelationGetSmgr(rel)->smgr_cached_nblocks[MAIN_FORKNUM];

	if (known != InvalidBlockNumber && block < known)
		return true;
	return block < RelationGetNumberOfBlocks(rel);
}
