/*
 * maprepair.c — the objects' maps as the objid indexes say they should
 * be: for argo_repair (which writes them again after a table was
 * rewritten, or for a collection made before maps existed) and for
 * argo_check (which reports the ones that differ).
 *
 * The directory is read in id order and the objects taken a batch at a
 * time: each value table's objid index gives the batch's rows (their
 * tids), from which the map each object should have is encoded, with
 * the current epoch, and compared with the one its directory row holds.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "store/access.h"
#include "store/collection.h"
#include "store/rowmap.h"

#define MAP_BATCH 1000

/* A batch of objects and, per table, their rows' tids. */
typedef struct MapBatch
{
	int			n;
	int64		ids[MAP_BATCH];
	bytea	   *stored[MAP_BATCH];
	/* per table: tids in id order, and where each object's start */
	ItemPointerData *tids[ROWMAP_MAX_TABLES];
	int			ntids[ROWMAP_MAX_TABLES];
	int			maxtids[ROWMAP_MAX_TABLES];
	int		   *first[ROWMAP_MAX_TABLES];
} MapBatch;

static void
add_tid(MapBatch *b, int t, ItemPointer tid)
{
	if (b->ntids[t] == b->maxtids[t])
	{
		b->maxtids[t] = b->maxtids[t] ? b->maxtids[t] * 2 : 4096;
		b->tids[t] = b->tids[t] ?
			repalloc_huge(b->tids[t], sizeof(ItemPointerData) * b->maxtids[t]) :
			palloc(sizeof(ItemPointerData) * b->maxtids[t]);
	}
	b->tids[t][b->ntids[t]++] = *tid;
}

/*
 * Ids closer than this are read as one range of the objid index: every
 * object when walking them all, runs of neighbours (objects that share
 * a directory page) when walking a sample.
 */
#define RUN_GAP 16

/* The rows of the batch's objects in one value table, by its objid index. */
static void
batch_rows(MapBatch *b, int t, Relation rel, Snapshot snap)
{
	Relation	index = index_open(argo_objid_index(rel), AccessShareLock);
	AttrNumber	objatt = attnameAttNum(rel, "objid", false);
	IndexScanDesc scan = index_beginscan(rel, index, snap, 2, 0);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	ScanKeyData keys[2];
	int			k = 0;

	/* object k's rows are first[k] .. first[k + 1] - 1 */
	b->ntids[t] = 0;
	b->first[t] = palloc(sizeof(int) * (b->n + 1));
	b->first[t][0] = 0;
	for (int lo = 0, hi = 0; lo < b->n; lo = ++hi)
	{
		while (hi + 1 < b->n && b->ids[hi + 1] - b->ids[hi] <= RUN_GAP)
			hi++;
		ScanKeyInit(&keys[0], 1, BTGreaterEqualStrategyNumber, F_INT8GE, Int64GetDatum(b->ids[lo]));
		ScanKeyInit(&keys[1], 1, BTLessEqualStrategyNumber, F_INT8LE, Int64GetDatum(b->ids[hi]));
		index_rescan(scan, keys, 2, NULL, 0);
		while (index_getnext_slot(scan, ForwardScanDirection, slot))
		{
			bool		isnull;
			int64		objid = DatumGetInt64(slot_getattr(slot, objatt, &isnull));

			CHECK_FOR_INTERRUPTS();
			while (k < b->n && b->ids[k] < objid)
				b->first[t][++k] = b->ntids[t];
			if (k < b->n && b->ids[k] == objid)
				add_tid(b, t, &slot->tts_tid);
		}
	}
	while (k < b->n)
		b->first[t][++k] = b->ntids[t];
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(index, NoLock);
}

/* Each object of the batch with the map it has and the one it should have. */
static void
batch_visit(MapBatch *b, Relation *rels, int ntables, Snapshot snap,
			map_visit fn, void *arg)
{
	uint32		epoch = rowmap_epoch(rels, ntables);

	for (int t = 0; t < ntables; t++)
		batch_rows(b, t, rels[t], snap);
	for (int k = 0; k < b->n; k++)
	{
		ItemPointerData *tids[ROWMAP_MAX_TABLES];
		int			n[ROWMAP_MAX_TABLES];

		for (int t = 0; t < ntables; t++)
		{
			tids[t] = b->tids[t] + b->first[t][k];
			n[t] = b->first[t][k + 1] - b->first[t][k];
		}
		fn(arg, b->ids[k], b->stored[k], rowmap_encode(epoch, ntables, tids, n));
	}
}

/* A copy of a map in cxt. */
static bytea *
detoast_copy_in(MemoryContext cxt, Datum d)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	bytea	   *copy = (bytea *) PG_DETOAST_DATUM_COPY(d);

	MemoryContextSwitchTo(old);
	return copy;
}

/*
 * The next directory row: the next in key order, or, given ids (sorted),
 * that of the next id that has one.
 */
static bool
next_directory_row(IndexScanDesc scan, TupleTableSlot *slot,
				   const int64 *ids, int nids, int *pos)
{
	if (ids == NULL)
		return index_getnext_slot(scan, ForwardScanDirection, slot);
	while (*pos < nids)
	{
		ScanKeyData key;

		CHECK_FOR_INTERRUPTS();
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(ids[(*pos)++]));
		index_rescan(scan, &key, 1, NULL, 0);
		if (index_getnext_slot(scan, ForwardScanDirection, slot))
			return true;
	}
	return false;
}

/*
 * Visit every object of c (or those of ids, sorted, when nids >= 0), in
 * id order, with its stored map (NULL: none) and the map its rows call
 * for now.  The tables must be readable directly (the caller checks)
 * and c's directory must have maps.
 */
void
rowmap_walk(ArgoCollection *c, const int64 *ids, int nids, map_visit fn, void *arg)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	int			ntables = c->format == ARGO_FORMAT_ARGO1 ? 1 : 3;
	Relation	rels[ROWMAP_MAX_TABLES];
	Relation	dir = argo_open_table(c, "obj");
	AttrNumber	mapatt = rowmap_column(dir);
	Relation	pk = index_open(RelationGetPrimaryKeyIndex(dir), AccessShareLock);
	Snapshot	snap = RegisterSnapshot(GetActiveSnapshot());
	IndexScanDesc scan = index_beginscan(dir, pk, snap, ids ? 1 : 0, 0);
	TupleTableSlot *slot = table_slot_create(dir, NULL);
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "argo map batch",
											  ALLOCSET_DEFAULT_SIZES);
	MapBatch   *b = MemoryContextAllocZero(cxt, sizeof(MapBatch));
	int			pos = 0;

	/*
	 * The scans run in the caller's context: B-tree allocates its list of
	 * dead entries lazily, and the batches' context is reset under them.
	 */
	for (int t = 0; t < ntables; t++)
		rels[t] = argo_open_table(c, ntables == 1 ? "data" : argo3[t]);
	if (ids == NULL)
		index_rescan(scan, NULL, 0, NULL, 0);
	for (;;)
	{
		bool		more = next_directory_row(scan, slot, ids, nids, &pos);

		CHECK_FOR_INTERRUPTS();
		if (more)
		{
			bool		isnull;
			Datum		m;

			b->ids[b->n] = DatumGetInt64(slot_getattr(slot, 1, &isnull));
			m = slot_getattr(slot, mapatt, &isnull);
			b->stored[b->n++] = isnull ? NULL :
				(bytea *) detoast_copy_in(cxt, m);
		}
		if (b->n == MAP_BATCH || (!more && b->n > 0))
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			batch_visit(b, rels, ntables, snap, fn, arg);
			MemoryContextSwitchTo(old);
			MemoryContextReset(cxt);
			b = MemoryContextAllocZero(cxt, sizeof(MapBatch));
		}
		if (!more)
			break;
	}
	MemoryContextDelete(cxt);
	for (int t = 0; t < ntables; t++)
		table_close(rels[t], NoLock);
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(pk, NoLock);
	table_close(dir, NoLock);
	UnregisterSnapshot(snap);
}

/* Whether two maps (either NULL) are the same bytes. */
bool
rowmap_equal(bytea *a, bytea *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
}

/*
 * Whether c's maps were made for other tables than c's own: the first
 * map in the directory has another epoch (a restored dump, a rewritten
 * table).  One map tells: a restore or a rewrite changes every table's
 * addresses at once.
 */
bool
rowmap_out_of_date(ArgoCollection *c)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	int			ntables = c->format == ARGO_FORMAT_ARGO1 ? 1 : 3;
	Relation	rels[ROWMAP_MAX_TABLES];
	Relation	dir = argo_open_table(c, "obj");
	AttrNumber	mapatt = rowmap_column(dir);
	TableScanDesc scan;
	TupleTableSlot *slot;
	bool		stale = false;

	if (mapatt <= 0)
	{
		table_close(dir, NoLock);
		return false;
	}
	for (int t = 0; t < ntables; t++)
		rels[t] = argo_open_table(c, ntables == 1 ? "data" : argo3[t]);
	scan = table_beginscan(dir, GetActiveSnapshot(), 0, NULL);
	slot = table_slot_create(dir, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		m = slot_getattr(slot, mapatt, &isnull);
		uint32		epoch;

		CHECK_FOR_INTERRUPTS();
		if (isnull)
			continue;
		stale = !rowmap_epoch_of((bytea *) PG_DETOAST_DATUM(m), &epoch) ||
			epoch != rowmap_epoch(rels, ntables);
		break;
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	for (int t = 0; t < ntables; t++)
		table_close(rels[t], NoLock);
	table_close(dir, NoLock);
	return stale;
}
