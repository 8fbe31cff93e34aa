/*
 * fetch.c — an object's rows read straight from the heap through the
 * value tables' objid indexes, without SQL.
 *
 * Generated SQL picks the objects (which ids, in which order); their rows
 * are then fetched here, one index probe per value table and object,
 * instead of a LATERAL subquery per object through SPI and the executor.
 * When the objects come in increasing id order (every object, or a
 * parallel worker's share of them), each table's objid index is instead
 * read forward beside them, as a merge join would: no descent per
 * object, and the heap, written in id order, is read nearly in order.
 * Where the ids asked for jump ahead (the rows between would be read only
 * to be skipped) or go back, the object is probed instead.
 * It reads exactly what SQL would: the statement's snapshot, SELECT
 * privilege checked with SQL's own error (42501).  Where SQL would do
 * more than read — row-level security, a table that is not a plain heap
 * (partitioned, foreign), no usable objid index — objfetch_open declines
 * and the caller reads through SQL instead.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "storage/storage.h"

/* What a value table's rows hold, and where. */
typedef enum ValKind
{
	VAL_STR,
	VAL_NUM,
	VAL_BOOL,
	VAL_ANY						/* Argo/1: all three columns */
} ValKind;

typedef struct TableScan
{
	Relation	rel;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	ValKind		kind;
	AttrNumber	objatt;
	AttrNumber	keyatt;
	AttrNumber	valatt[4];		/* valstr, valnum, valbool, valexact */
	/* streaming: the row in the slot, not yet taken, and its object */
	bool		pending;
	bool		done;
	bool		positioned;		/* a forward scan is under way */
	int64		pending_objid;
	bool		asked_any;
	int64		asked;			/* the last object asked for */
} TableScan;

struct ObjFetch
{
	/*
	 * The scans' own memory: index AMs allocate lazily during the scan
	 * (B-tree's list of dead entries to mark), and the caller's context
	 * then is the id query's executor, gone before the scans end.
	 */
	MemoryContext cxt;
	KeyDict    *dict;
	Bitmapset  *keys;			/* only these key ids; NULL: every row */
	Snapshot	snap;
	bool		stream;			/* objects come in id order: merge */
	int			ntables;
	TableScan	tables[3];
};

/* A valid, non-partial B-tree whose first column is objid. */
static Oid
objid_index(Relation rel, AttrNumber objatt)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	irel = index_open(lfirst_oid(lc), AccessShareLock);
		bool		fits = irel->rd_rel->relam == BTREE_AM_OID &&
			irel->rd_index->indisvalid &&
			irel->rd_index->indkey.values[0] == objatt &&
			RelationGetIndexPredicate(irel) == NIL;

		index_close(irel, AccessShareLock);
		if (fits)
			return lfirst_oid(lc);
	}
	return InvalidOid;
}

/* Open one value table for probing; false (closed again) if SQL must read it. */
static bool
table_begin(ObjFetch *f, TableScan *t, Relation rel, ValKind kind)
{
	AttrNumber	objatt = attnameAttNum(rel, "objid", false);
	AttrNumber	keyatt = attnameAttNum(rel, "keyid", false);
	Oid			index;

	argo_check_privilege(rel, ACL_SELECT);
	index = argo_readable_directly(rel) && objatt > 0 && keyatt > 0 ?
		objid_index(rel, objatt) : InvalidOid;
	if (!OidIsValid(index))
	{
		table_close(rel, NoLock);
		return false;
	}
	t->rel = rel;
	t->kind = kind;
	t->objatt = objatt;
	t->keyatt = keyatt;
	t->valatt[0] = attnameAttNum(rel, "valstr", false);
	t->valatt[1] = attnameAttNum(rel, "valnum", false);
	t->valatt[2] = attnameAttNum(rel, "valbool", false);
	t->valatt[3] = attnameAttNum(rel, "valexact", false);
	t->index = index_open(index, AccessShareLock);
	t->scan = index_beginscan(rel, t->index, f->snap, 1, 0);
	t->slot = table_slot_create(rel, NULL);
	t->pending = t->done = t->positioned = t->asked_any = false;
	return true;
}

static void
table_end(TableScan *t)
{
	index_endscan(t->scan);
	ExecDropSingleTupleTableSlot(t->slot);
	/* locks are kept to the end of the transaction, as SQL keeps them */
	index_close(t->index, NoLock);
	table_close(t->rel, NoLock);
}

/*
 * Ready to fetch objects of c, whole (keys NIL) or only the rows of the
 * given dictionary keys; NULL when some table must be read through SQL.
 * stream: the objects will be asked for in increasing id order.
 */
ObjFetch *
objfetch_open(ArgoCollection *c, List *keys, bool projection, bool stream)
{
	ObjFetch   *f = palloc0(sizeof(ObjFetch));
	static const char *const argo3[] = {"str", "num", "bool"};
	ListCell   *lc;
	Relation	obj;

	f->cxt = CurrentMemoryContext;
	f->dict = keydict_of(c);
	f->stream = stream;
	foreach(lc, keys)
		f->keys = bms_add_member(f->keys, ((ArgoKey *) lfirst(lc))->id);
	if (projection && f->keys == NULL)
		f->keys = bms_make_singleton(0);	/* no key: no row */
	/* SQL's SELECT * reads the directory too */
	obj = argo_open_table(c, "obj");
	argo_check_privilege(obj, ACL_SELECT);
	table_close(obj, NoLock);
	f->snap = RegisterSnapshot(GetActiveSnapshot());
	for (int i = 0; i < (c->format == ARGO_FORMAT_ARGO1 ? 1 : 3); i++)
	{
		Relation	rel = argo_open_table(c, c->format == ARGO_FORMAT_ARGO1 ? "data" : argo3[i]);

		if (!table_begin(f, &f->tables[f->ntables], rel,
						 c->format == ARGO_FORMAT_ARGO1 ? VAL_ANY : (ValKind) i))
		{
			objfetch_close(f);
			return NULL;
		}
		f->ntables++;
	}
	return f;
}

void
objfetch_close(ObjFetch *f)
{
	for (int i = 0; i < f->ntables; i++)
		table_end(&f->tables[i]);
	f->ntables = 0;
	UnregisterSnapshot(f->snap);
}

static Datum
column(TableScan *t, int v, bool *isnull)
{
	if (t->valatt[v] <= 0)
	{
		*isnull = true;
		return (Datum) 0;
	}
	return slot_getattr(t->slot, t->valatt[v], isnull);
}

/* Hand the current row of t to the rebuilder. */
static void
take_row(ObjFetch *f, TableScan *t, int64 objid, int32 keyid, Rebuilder *rb)
{
	bool		snull = true,
				nnull = true,
				bnull = true;
	Datum		s = 0,
				n = 0,
				b = 0;

	if (t->kind == VAL_STR || t->kind == VAL_ANY)
		s = column(t, 0, &snull);
	if (t->kind == VAL_NUM || t->kind == VAL_ANY)
		n = column(t, 1, &nnull);
	if (t->kind == VAL_BOOL || t->kind == VAL_ANY)
		b = column(t, 2, &bnull);
	/* a number's exact text, where it keeps one, goes as its valstr */
	if (!nnull && snull)
		s = column(t, 3, &snull);
	rebuilder_add_row(rb, objid, keydict_get(f->dict, keyid),
					  snull ? NULL : (text *) DatumGetPointer(s),
					  nnull, nnull ? 0 : DatumGetFloat8(n),
					  bnull, bnull ? false : DatumGetBool(b));
}

/* Take t's rows of objid from its index probe. */
static void
probe_table(ObjFetch *f, TableScan *t, int64 objid, Rebuilder *rb)
{
	ScanKeyData key;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(objid));
	index_rescan(t->scan, &key, 1, NULL, 0);
	while (index_getnext_slot(t->scan, ForwardScanDirection, t->slot))
	{
		bool		isnull;
		int32		keyid;

		CHECK_FOR_INTERRUPTS();
		keyid = DatumGetInt32(slot_getattr(t->slot, t->keyatt, &isnull));
		if (f->keys == NULL || bms_is_member(keyid, f->keys))
			take_row(f, t, objid, keyid, rb);
	}
}

/* Start t's stream over at the first row of objid or later. */
static void
stream_seek(TableScan *t, int64 objid)
{
	ScanKeyData key;

	ScanKeyInit(&key, 1, BTGreaterEqualStrategyNumber, F_INT8GE, Int64GetDatum(objid));
	index_rescan(t->scan, &key, 1, NULL, 0);
	t->pending = t->done = false;
	t->positioned = true;
}

/*
 * Take t's rows of objid from its forward scan; the first row of a later
 * object stays in the slot.
 */
static void
stream_rows(ObjFetch *f, TableScan *t, int64 objid, Rebuilder *rb)
{
	bool		isnull;

	for (;;)
	{
		int32		keyid;

		CHECK_FOR_INTERRUPTS();
		if (!t->pending)
		{
			if (t->done || !index_getnext_slot(t->scan, ForwardScanDirection, t->slot))
			{
				t->done = true;
				return;
			}
			t->pending = true;
			t->pending_objid = DatumGetInt64(slot_getattr(t->slot, t->objatt, &isnull));
		}
		if (t->pending_objid > objid)
			return;
		t->pending = false;
		if (t->pending_objid < objid)
			continue;			/* an object not asked for */
		keyid = DatumGetInt32(slot_getattr(t->slot, t->keyatt, &isnull));
		if (f->keys == NULL || bms_is_member(keyid, f->keys))
			take_row(f, t, objid, keyid, rb);
	}
}

/*
 * Objects asked for in increasing id order: a forward scan beside them
 * while they come densely (the next id, or the one after), a probe where
 * they jump or go back.  A probe stops at the object's last row; a
 * stream must read the next object's first row to know it has passed,
 * which a lone object would pay for in every table.  So a run of objects
 * costs one probe and one descent for the stream, whatever its length.
 */
static void
stream_table(ObjFetch *f, TableScan *t, int64 objid, Rebuilder *rb)
{
	bool		next = t->asked_any && objid > t->asked && objid - t->asked <= 2;

	t->asked_any = true;
	t->asked = objid;
	if (!next)
	{
		t->positioned = false;
		probe_table(f, t, objid, rb);
		return;
	}
	if (!t->positioned)
		stream_seek(t, objid);
	stream_rows(f, t, objid, rb);
}

/*
 * Feed object objid's rows (those of the chosen keys) to the rebuilder;
 * for a whole object, first say that it exists, rows or not ({}).
 */
void
objfetch_object(ObjFetch *f, int64 objid, Rebuilder *rb)
{
	MemoryContext old;

	if (f->keys == NULL)
		rebuilder_add_object(rb, objid);
	old = MemoryContextSwitchTo(f->cxt);
	for (int i = 0; i < f->ntables; i++)
	{
		if (f->stream)
			stream_table(f, &f->tables[i], objid, rb);
		else
			probe_table(f, &f->tables[i], objid, rb);
	}
	MemoryContextSwitchTo(old);
}

bool
objfetch_streams(ObjFetch *f)
{
	return f->stream;
}

Snapshot
objfetch_snapshot(ObjFetch *f)
{
	return f->snap;
}
