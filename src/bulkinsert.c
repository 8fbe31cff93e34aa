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

#include "argo.h"

/* Rows handed to heap_multi_insert at a time (as COPY does). */
#define MULTI_ROWS 1000

static bool
direct_path_allowed(Relation rel)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;
	int			natts = RelationGetDescr(rel)->natts;

	/* Argo/3 tables have 3 columns, Argo/1's 5; none is ever dropped */
	return rel->rd_rel->relkind == RELKIND_RELATION &&
		(natts == 3 || natts == 5) &&
		rel->trigdesc == NULL &&
		(constr == NULL || !constr->has_generated_stored) &&
		check_enable_rls(RelationGetRelid(rel), InvalidOid, true) != RLS_ENABLED &&
		pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_INSERT) == ACLCHECK_OK;
}

/* Write rows[from, from+n) and their index entries. */
static void
write_chunk(ResultRelInfo *rri, EState *estate, TupleTableSlot **slots,
			BulkInsertState bis, const ArgoRows *rows, int valatt,
			int from, int n)
{
	Relation	rel = rri->ri_RelationDesc;
	bool		check = RelationGetDescr(rel)->constr != NULL;

	for (int i = 0; i < n; i++)
	{
		TupleTableSlot *slot = slots[i];

		ExecClearTuple(slot);
		memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
		slot->tts_values[0] = rows->objids[from + i];
		slot->tts_isnull[0] = false;
		slot->tts_values[1] = rows->keys[from + i];
		slot->tts_isnull[1] = rows->key_nulls[from + i];
		slot->tts_values[valatt - 1] = rows->vals[from + i];
		slot->tts_isnull[valatt - 1] = rows->val_nulls[from + i];
		ExecStoreVirtualTuple(slot);
		if (check)
			ExecConstraints(rri, slot, estate);
	}
	table_multi_insert(rel, slots, n, GetCurrentCommandId(true), 0, bis);
	for (int i = 0; i < n && rri->ri_NumIndices > 0; i++)
	{
		ResetPerTupleExprContext(estate);
		ExecInsertIndexTuples(rri, slots[i], estate, false, false, NULL, NIL);
	}
}

/*
 * Insert the rows into table (a quoted qualified name), their values into
 * column valcol; false, having written nothing, if the table needs SQL's
 * INSERT instead.
 */
bool
argo_bulk_insert(const char *table, const char *valcol, const ArgoRows *rows)
{
	RangeVar   *rv = makeRangeVarFromNameList(stringToQualifiedNameList(table));
	Relation	rel = table_openrv(rv, RowExclusiveLock);
	EState	   *estate;
	ResultRelInfo *rri;
	TupleTableSlot **slots;
	BulkInsertState bis;
	int			nslots = Min(rows->n, MULTI_ROWS);
	int			valatt = attnameAttNum(rel, valcol, false);

	if (!direct_path_allowed(rel) || valatt == InvalidAttrNumber)
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
		write_chunk(rri, estate, slots, bis, rows, valatt, from,
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
