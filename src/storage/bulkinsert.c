/*
 * bulkinsert.c — rows written into a vertical table the way COPY writes
 * them: heap_multi_insert by pages, then each index entry, with no
 * executor per row.  Loads spent a third of their time running
 * INSERT … unnest row by row.
 *
 * The direct path is taken only where it changes nothing but speed: a
 * plain table with just Argo's columns, INSERT privilege on the whole
 * table, no triggers, no row-level security, no generated columns;
 * NOT NULL and CHECK constraints are checked as the executor would.
 * Anything else is left to SQL, which the caller then uses.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "storage/storage.h"

/* Rows handed to heap_multi_insert at a time (as COPY does). */
#define MULTI_ROWS 1000

/* Write rows[from, from+n) and their index entries. */
static void
write_chunk(ResultRelInfo *rri, EState *estate, TupleTableSlot **slots,
			BulkInsertState bis, const ArgoRows *rows, const int *atts,
			int from, int n)
{
	Relation	rel = rri->ri_RelationDesc;
	bool		check = RelationGetDescr(rel)->constr != NULL;

	for (int i = 0; i < n; i++)
	{
		TupleTableSlot *slot = slots[i];

		ExecClearTuple(slot);
		memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
		for (int c = 0; c < rows->ncols; c++)
		{
			slot->tts_values[atts[c] - 1] = rows->cols[c][from + i];
			slot->tts_isnull[atts[c] - 1] = rows->nulls[c] ? rows->nulls[c][from + i] : false;
		}
		ExecStoreVirtualTuple(slot);
		if (check)
			ExecConstraints(rri, slot, estate);
	}
	/*
	 * New objects are appended, never put into free space found through
	 * the FSM: their rows then lie in the order they were written, object
	 * id order, and a projection of every object reads them presorted
	 * (projscan.c).  With the FSM, a short row slipped into an earlier
	 * page's leftover space (4 places in 17M string rows of a 1M load).
	 * An UPDATE's rewrites do use the FSM: they are out of order anyway,
	 * and the space their old rows leave must be reused.
	 */
	table_multi_insert(rel, slots, n, GetCurrentCommandId(true),
					   rows->append ? TABLE_INSERT_SKIP_FSM : 0, bis);
	for (int i = 0; i < n && rows->tids != NULL; i++)
		rows->tids[from + i] = slots[i]->tts_tid;
	for (int i = 0; i < n && rri->ri_NumIndices > 0; i++)
	{
		ResetPerTupleExprContext(estate);
		ExecInsertIndexTuples(rri, slots[i], estate, false, false, NULL, NIL);
	}
}

/*
 * Insert the rows into table relid (of natts columns); false, having
 * written nothing, if the table needs SQL's INSERT instead.
 */
bool
argo_bulk_insert(Oid relid, int natts, const ArgoRows *rows)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	EState	   *estate;
	ResultRelInfo *rri;
	TupleTableSlot **slots;
	BulkInsertState bis;
	int			nslots = Min(rows->n, MULTI_ROWS);
	int			atts[ARGO_MAX_BULK_COLS];
	bool		allowed = argo_insertable_directly(rel, natts);

	for (int c = 0; c < rows->ncols; c++)
	{
		atts[c] = attnameAttNum(rel, rows->names[c], false);
		allowed = allowed && atts[c] != InvalidAttrNumber;
	}
	if (!allowed)
	{
		table_close(rel, NoLock);
		return false;
	}
	estate = CreateExecutorState();
	rri = makeNode(ResultRelInfo);
	InitResultRelInfo(rri, rel, 0, NULL, 0);
	ExecOpenIndices(rri, false);
	slots = palloc(sizeof(TupleTableSlot *) * nslots);
	for (int i = 0; i < nslots; i++)
		slots[i] = table_slot_create(rel, NULL);
	bis = GetBulkInsertState();
	for (int from = 0; from < rows->n; from += MULTI_ROWS)
	{
		CHECK_FOR_INTERRUPTS();
		write_chunk(rri, estate, slots, bis, rows, atts, from,
					Min(MULTI_ROWS, rows->n - from));
	}
	FreeBulkInsertState(bis);
	for (int i = 0; i < nslots; i++)
		ExecDropSingleTupleTableSlot(slots[i]);
	ExecCloseIndices(rri);
	FreeExecutorState(estate);
	table_close(rel, NoLock);
	/* later statements of this transaction see the rows */
	CommandCounterIncrement();
	return true;
}
