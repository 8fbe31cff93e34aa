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

#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/tuplesort.h"

#include "common/common.h"
#include "store/access.h"
#include "store/rowbatch.h"

/* Rows handed to heap_multi_insert at a time (as COPY does). */
#define MULTI_ROWS 1000

/*
 * From this many rows on, each index's entries are sorted before they
 * are inserted (IndexSorts).  A collection indexes every value, so the
 * rows of many objects scatter over the whole (keyid, value) index:
 * inserted in heap order, each descends to a leaf no other entry near
 * it in time touched; in key order, neighbours land on the same leaf,
 * already in the CPU's cache and the buffer table's.
 */
#define SORTED_INDEX_ROWS 256

/* Each index's entries of one call, sorted by its key (B-trees only). */
typedef struct IndexSorts
{
	int			n;
	Tuplesortstate **sorts;
	/* per index: Argo's string index, (keyid, left(valstr, N)), its two columns; else 0 */
	AttrNumber *prefix_key;
	AttrNumber *prefix_val;
} IndexSorts;

static void sort_entries(ResultRelInfo *rri, EState *estate, IndexSorts *sorts,
						 TupleTableSlot *slot);
static bool prefix_index(IndexInfo *info, Relation heap);

/* Write rows[from, from+n) and their index entries (or, with sorts, sort them). */
static void
write_chunk(ResultRelInfo *rri, EState *estate, IndexSorts *sorts, TupleTableSlot **slots,
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
		if (sorts != NULL)
			sort_entries(rri, estate, sorts, slots[i]);
		else
			ExecInsertIndexTuples(rri, slots[i], estate, false, false, NULL, NIL);
	}
}

/*
 * Whether the index entries can go through IndexSorts: every index a
 * B-tree whose uniqueness, if any, is checked at once, no exclusion
 * constraint (ExecInsertIndexTuples does the rest).
 */
static bool
sortable_indexes(ResultRelInfo *rri)
{
	for (int i = 0; i < rri->ri_NumIndices; i++)
	{
		Relation	index = rri->ri_IndexRelationDescs[i];

		if (index->rd_rel->relam != BTREE_AM_OID ||
			rri->ri_IndexRelationInfo[i]->ii_ExclusionOps != NULL ||
			(index->rd_index->indisunique && !index->rd_index->indimmediate))
			return false;
	}
	return true;
}

static IndexSorts *
sorts_begin(ResultRelInfo *rri)
{
	IndexSorts *sorts = palloc(sizeof(IndexSorts));

	sorts->n = rri->ri_NumIndices;
	sorts->sorts = palloc(sizeof(Tuplesortstate *) * sorts->n);
	sorts->prefix_key = palloc0(sizeof(AttrNumber) * sorts->n);
	sorts->prefix_val = palloc0(sizeof(AttrNumber) * sorts->n);
	for (int i = 0; i < sorts->n; i++)
	{
		IndexInfo  *info = rri->ri_IndexRelationInfo[i];

		sorts->sorts[i] = tuplesort_begin_index_btree(rri->ri_RelationDesc,
													  rri->ri_IndexRelationDescs[i],
													  false, false, work_mem, NULL,
													  TUPLESORT_NONE);
		if (prefix_index(info, rri->ri_RelationDesc))
		{
			sorts->prefix_key[i] = info->ii_IndexAttrNumbers[0];
			sorts->prefix_val[i] = castNode(Var, linitial(castNode(FuncExpr, linitial(info->ii_Expressions))->args))->varattno;
		}
	}
	return sorts;
}

/*
 * Whether the index is Argo's string index: (keyid, left(valstr, N)),
 * no predicate.  Its entries are then formed in C (prefix_entry).
 */
static bool
prefix_index(IndexInfo *info, Relation heap)
{
	AttrNumber	valatt = attnameAttNum(heap, "valstr", true);
	AttrNumber	keyatt = attnameAttNum(heap, "keyid", true);

	return info->ii_NumIndexAttrs == 2 && info->ii_NumIndexKeyAttrs == 2 &&
		info->ii_Predicate == NIL && keyatt > 0 && valatt > 0 &&
		info->ii_IndexAttrNumbers[0] == keyatt && info->ii_IndexAttrNumbers[1] == 0 &&
		list_length(info->ii_Expressions) == 1 &&
		argo_is_prefix_expr(linitial(info->ii_Expressions), valatt);
}

/*
 * The string index's entry of slot's row, as FormIndexDatum would make
 * it without running left() through the executor: a string of at most N
 * bytes has at most N characters, and is its own prefix (left() walked
 * every character of every string: 5% of a bulk insert of YCSB records).
 */
static void
prefix_entry(TupleTableSlot *slot, AttrNumber keyatt, AttrNumber valatt,
			 Datum *values, bool *isnull)
{
	Datum		v;

	values[0] = slot_getattr(slot, keyatt, &isnull[0]);
	v = slot_getattr(slot, valatt, &isnull[1]);
	if (isnull[1] || VARSIZE_ANY_EXHDR(DatumGetPointer(v)) <= ARGO_STR_PREFIX_CHARS)
		values[1] = v;
	else
		values[1] = DirectFunctionCall2(text_left, v, Int32GetDatum(ARGO_STR_PREFIX_CHARS));
}

/* The entries of slot's row, each into its index's sort (as ExecInsertIndexTuples forms them). */
static void
sort_entries(ResultRelInfo *rri, EState *estate, IndexSorts *sorts, TupleTableSlot *slot)
{
	ExprContext *econtext = GetPerTupleExprContext(estate);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];

	econtext->ecxt_scantuple = slot;
	for (int i = 0; i < sorts->n; i++)
	{
		IndexInfo  *info = rri->ri_IndexRelationInfo[i];

		if (!info->ii_ReadyForInserts)
			continue;
		if (info->ii_Predicate != NIL)
		{
			if (info->ii_PredicateState == NULL)
				info->ii_PredicateState = ExecPrepareQual(info->ii_Predicate, estate);
			if (!ExecQual(info->ii_PredicateState, econtext))
				continue;
		}
		if (sorts->prefix_key[i] > 0)
			prefix_entry(slot, sorts->prefix_key[i], sorts->prefix_val[i], values, isnull);
		else
			FormIndexDatum(info, slot, estate, values, isnull);
		tuplesort_putindextuplevalues(sorts->sorts[i], rri->ri_IndexRelationDescs[i],
									  &slot->tts_tid, values, isnull);
	}
}

/* Insert each index's sorted entries (a unique index checks each as it comes). */
static void
sorts_insert(ResultRelInfo *rri, IndexSorts *sorts)
{
	Relation	heap = rri->ri_RelationDesc;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];

	for (int i = 0; i < sorts->n; i++)
	{
		Relation	index = rri->ri_IndexRelationDescs[i];
		IndexUniqueCheck check = index->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO;
		IndexTuple	itup;

		tuplesort_performsort(sorts->sorts[i]);
		while ((itup = tuplesort_getindextuple(sorts->sorts[i], true)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			index_deform_tuple(itup, RelationGetDescr(index), values, isnull);
			index_insert(index, values, isnull, &itup->t_tid, heap, check, false,
						 rri->ri_IndexRelationInfo[i]);
		}
		tuplesort_end(sorts->sorts[i]);
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
	IndexSorts *sorts = NULL;
	TupleDesc	desc;
	int			nslots = Min(rows->n, MULTI_ROWS);
	int			atts[ARGO_MAX_BULK_COLS];
	bool		allowed;

	argo_check_writable(ACL_INSERT);
	allowed = argo_insertable_directly(rel, natts);

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
	/*
	 * The slots share one unreferenced copy of the descriptor: a slot of the
	 * relation's own pins it in the resource owner, and unpinning a
	 * thousand searches that owner's array once each (a tenth of a
	 * 100-object insert).
	 */
	desc = CreateTupleDescCopy(RelationGetDescr(rel));
	slots = palloc(sizeof(TupleTableSlot *) * nslots);
	for (int i = 0; i < nslots; i++)
		slots[i] = MakeSingleTupleTableSlot(desc, table_slot_callbacks(rel));
	bis = GetBulkInsertState();
	if (rows->n >= SORTED_INDEX_ROWS && rri->ri_NumIndices > 0 && sortable_indexes(rri))
		sorts = sorts_begin(rri);
	for (int from = 0; from < rows->n; from += MULTI_ROWS)
	{
		CHECK_FOR_INTERRUPTS();
		write_chunk(rri, estate, sorts, slots, bis, rows, atts, from,
					Min(MULTI_ROWS, rows->n - from));
	}
	if (sorts != NULL)
		sorts_insert(rri, sorts);
	FreeBulkInsertState(bis);
	for (int i = 0; i < nslots; i++)
		ExecDropSingleTupleTableSlot(slots[i]);
	FreeTupleDesc(desc);
	ExecCloseIndices(rri);
	FreeExecutorState(estate);
	table_close(rel, NoLock);
	/* later statements of this transaction see the rows */
	CommandCounterIncrement();
	return true;
}
