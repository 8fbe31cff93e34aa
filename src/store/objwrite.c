/*
 * objwrite.c — an UPDATE's or DELETE's changes to a plain local
 * collection made from C, as the executor would make them, without SQL:
 * the directory row locked FOR UPDATE, value rows deleted by tid, the
 * directory row rewritten with the object's new map (or deleted).
 *
 * It does what SQL would do and no more: the same privileges (42501),
 * and only where PostgreSQL itself would just write the heap — plain
 * heap tables without row-level security and without triggers other than
 * Argo's own (whose job, forgetting maps of rows written through SQL,
 * these writes do themselves); objwriter_open declines otherwise and the
 * caller writes through SQL.  Locks follow PostgreSQL's own rules: a
 * READ COMMITTED writer waits for another's lock and then works on the
 * newest version (saying that the object changed); under a transaction
 * snapshot a concurrent change is a serialization failure (40001).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/objwrite.h"
#include "store/rowmap.h"

typedef struct LockedRow
{
	int64		objid;			/* hash key */
	ItemPointerData tid;		/* the version locked (and later written) */
	DocHint		doc_hint;		/* where its kept document may lie */
} LockedRow;

struct ObjWriter
{
	ArgoCollection *c;
	int			ntables;
	Relation	tables[ROWMAP_MAX_TABLES];
	Relation	dir;
	Relation	pk;
	AttrNumber	objatt;
	AttrNumber	mapatt;
	DocWriter  *docs;			/* kept documents (docs.c), or NULL */
	uint32		epoch;
	EState	   *estate;			/* for the directory's index entries */
	ResultRelInfo *rri;
	TupleTableSlot *lockslot;
	TupleTableSlot *newslot;
	HTAB	   *locked;
};

/* A plain heap table no one but Argo has triggers on, without row-level security. */
static bool
writable(Relation rel)
{
	return argo_readable_directly(rel) && argo_only_own_triggers(rel);
}

static void
objwriter_free(ObjWriter *w, int ntables)
{
	for (int i = 0; i < ntables; i++)
		table_close(w->tables[i], NoLock);
	table_close(w->dir, NoLock);
	pfree(w);
}

/*
 * SQL's checks, one privilege at a time (a mask passes if any of it is
 * granted): the directory row is updated (mode ACL_UPDATE) or deleted
 * (ACL_DELETE), value rows deleted.
 */
static void
check_privileges(Relation dir, Relation *tables, int ntables, AclMode mode)
{
	argo_check_privilege(dir, ACL_SELECT);
	argo_check_privilege(dir, mode);
	for (int i = 0; i < ntables; i++)
	{
		argo_check_privilege(tables[i], ACL_SELECT);
		argo_check_privilege(tables[i], ACL_DELETE);
	}
}

/*
 * The privileges a write of c's objects from C checks, for argo_explain
 * of a write (whose EXPLAIN runs no SQL that would check them): the
 * same 42501 for a role that may not write.  An update also inserts
 * rows.
 */
void
objwriter_check_privileges(ArgoCollection *c, AclMode mode)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	int			ntables = c->format == ARGO_FORMAT_ARGO1 ? 1 : 3;
	Relation	dir = argo_open_table(c, "obj");
	Relation	tables[ROWMAP_MAX_TABLES];

	for (int i = 0; i < ntables; i++)
		tables[i] = argo_open_table(c, ntables == 1 ? "data" : argo3[i]);
	check_privileges(dir, tables, ntables, mode);
	for (int i = 0; i < ntables; i++)
	{
		if (mode == ACL_UPDATE)
			argo_check_privilege(tables[i], ACL_INSERT);
		table_close(tables[i], NoLock);
	}
	table_close(dir, NoLock);
	docwriter_close(docwriter_open(c, mode));
}

/*
 * Whether c's objects can be written from C (what objwriter_open checks
 * before the privileges): for argo_explain.
 */
bool
objwriter_possible(ArgoCollection *c)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	int			ntables = c->format == ARGO_FORMAT_ARGO1 ? 1 : 3;
	Relation	dir = argo_open_table(c, "obj");
	bool		ok = writable(dir) && rowmap_column(dir) > 0 &&
		OidIsValid(RelationGetPrimaryKeyIndex(dir));

	table_close(dir, NoLock);
	for (int i = 0; ok && i < ntables; i++)
	{
		Relation	rel = argo_open_table(c, ntables == 1 ? "data" : argo3[i]);

		ok = writable(rel);
		table_close(rel, NoLock);
	}
	return ok;
}

/*
 * Ready to write c's objects from C; NULL when some table must be
 * written through SQL.  mode: ACL_UPDATE for an UPDATE (the directory
 * row is rewritten), ACL_DELETE for a DELETE (it is deleted); both
 * delete value rows.
 */
ObjWriter *
objwriter_open(ArgoCollection *c, AclMode mode)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	ObjWriter  *w = palloc0(sizeof(ObjWriter));
	bool		ok;
	HASHCTL		ctl;

	argo_check_writable(mode);
	w->c = c;
	w->ntables = c->format == ARGO_FORMAT_ARGO1 ? 1 : 3;
	w->dir = argo_open_table(c, "obj");
	w->mapatt = rowmap_column(w->dir);
	w->objatt = attnameAttNum(w->dir, "objid", false);
	ok = writable(w->dir) && w->mapatt > 0 && w->objatt > 0 &&
		OidIsValid(RelationGetPrimaryKeyIndex(w->dir));
	for (int i = 0; i < w->ntables; i++)
	{
		w->tables[i] = argo_open_table(c, w->ntables == 1 ? "data" : argo3[i]);
		ok = ok && writable(w->tables[i]);
	}
	if (!ok)
	{
		objwriter_free(w, w->ntables);
		return NULL;
	}
	check_privileges(w->dir, w->tables, w->ntables, mode);
	if (mode == ACL_UPDATE)
	{
		collection_check_writes(c);
	}
	w->docs = docwriter_open(c, mode);
	w->epoch = rowmap_epoch(w->tables, w->ntables);
	w->pk = index_open(RelationGetPrimaryKeyIndex(w->dir), AccessShareLock);
	w->estate = CreateExecutorState();
	w->rri = makeNode(ResultRelInfo);
	InitResultRelInfo(w->rri, w->dir, 0, NULL, 0);
	ExecOpenIndices(w->rri, false);
	w->lockslot = table_slot_create(w->dir, NULL);
	w->newslot = MakeSingleTupleTableSlot(RelationGetDescr(w->dir), &TTSOpsVirtual);
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(LockedRow);
	ctl.hcxt = CurrentMemoryContext;
	w->locked = hash_create("argo locked objects", 256, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	return w;
}

void
objwriter_close(ObjWriter *w)
{
	ExecDropSingleTupleTableSlot(w->lockslot);
	ExecDropSingleTupleTableSlot(w->newslot);
	ExecCloseIndices(w->rri);
	FreeExecutorState(w->estate);
	index_close(w->pk, NoLock);
	hash_destroy(w->locked);
	docwriter_close(w->docs);
	objwriter_free(w, w->ntables);
}

uint32
objwriter_epoch(ObjWriter *w)
{
	return w->epoch;
}

/* The tid of objid's directory row visible to snap; false if none. */
static bool
directory_tid(ObjWriter *w, int64 objid, Snapshot snap, ItemPointer tid)
{
	IndexScanDesc scan = index_beginscan(w->dir, w->pk, snap, 1, 0);
	ScanKeyData key;
	bool		found;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(objid));
	index_rescan(scan, &key, 1, NULL, 0);
	found = index_getnext_slot(scan, ForwardScanDirection, w->lockslot);
	if (found)
		*tid = w->lockslot->tts_tid;
	index_endscan(scan);
	return found;
}

static void
serialization_failure(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("could not serialize access due to concurrent %s", what)));
}

/*
 * Lock objid's directory row FOR UPDATE, as found under snap, waiting
 * for another writer of it; false when the object is gone (deleted
 * meanwhile, in READ COMMITTED).  *changed: the version locked is newer
 * than snap's (another writer's commit came between).
 */
bool
objwriter_lock(ObjWriter *w, int64 objid, Snapshot snap, bool *changed)
{
	ItemPointerData tid;
	TM_FailureData tmfd;
	TM_Result	res;
	LockedRow  *lr;
	bool		found;

	*changed = false;
	if (!directory_tid(w, objid, snap, &tid))
		return false;
	res = table_tuple_lock(w->dir, &tid, snap, w->lockslot, GetCurrentCommandId(true),
						   LockTupleExclusive, LockWaitBlock,
						   IsolationUsesXactSnapshot() ? 0 : TUPLE_LOCK_FLAG_FIND_LAST_VERSION,
						   &tmfd);
	switch (res)
	{
		case TM_Ok:
			break;
		case TM_Updated:
			serialization_failure("update");
			break;
		case TM_Deleted:
			if (IsolationUsesXactSnapshot())
				serialization_failure("delete");
			return false;
		case TM_SelfModified:
			/* this command wrote it already: nothing more to do with it */
			return false;
		default:
			elog(ERROR, "unexpected result %d locking an object", (int) res);
	}
	*changed = tmfd.traversed;
	lr = hash_search(w->locked, &objid, HASH_ENTER, &found);
	lr->tid = w->lockslot->tts_tid;
	lr->doc_hint = dochint_none();
	return true;
}

static LockedRow *
locked_row(ObjWriter *w, int64 objid)
{
	LockedRow  *lr = hash_search(w->locked, &objid, HASH_FIND, NULL);

	if (lr == NULL)
		elog(ERROR, "object " INT64_FORMAT " is written without its lock", objid);
	return lr;
}

/* Delete rows of table t (its index in the format's value tables) by tid. */
void
objwriter_delete_rows(ObjWriter *w, int t, const ItemPointerData *tids, int n)
{
	Snapshot	snap = GetActiveSnapshot();

	for (int i = 0; i < n; i++)
	{
		ItemPointerData tid = tids[i];
		TM_FailureData tmfd;
		TM_Result	res;

		CHECK_FOR_INTERRUPTS();
		res = table_tuple_delete(w->tables[t], &tid, GetCurrentCommandId(true), snap,
								 InvalidSnapshot, true, &tmfd, false);
		/* a row written behind the object's lock, by SQL */
		if (res == TM_Updated || res == TM_Deleted)
			serialization_failure(res == TM_Updated ? "update" : "delete");
		if (res != TM_Ok && res != TM_SelfModified)
			elog(ERROR, "unexpected result %d deleting a row", (int) res);
	}
}

/*
 * Where the locked object's kept document may lie: the doctid of the
 * value row that found it, so that writing the document need not look
 * it up by id (checked there); the row names the new place after.
 */
void
objwriter_hint_doc(ObjWriter *w, int64 objid, const DocHint *hint)
{
	locked_row(w, objid)->doc_hint = *hint;
}

/*
 * Where the collection keeps documents, the locked object's is doc from
 * now on (NULL: none): written before its new rows, which keep where it
 * lies (returned; invalid where none is kept).
 */
ItemPointerData
objwriter_put_doc(ObjWriter *w, int64 objid, Jsonb *doc)
{
	LockedRow  *lr = locked_row(w, objid);
	ItemPointerData root;

	ItemPointerSetInvalid(&root);
	if (w->docs == NULL)
		return root;
	root = docwriter_put(w->docs, objid, doc, &lr->doc_hint.doc);
	/* the row that found the object keeps leading to its document */
	dochint_refresh(&lr->doc_hint, objid, &root);
	return root;
}

/*
 * Rewrite the locked directory row of objid with a new map; the new
 * version is what later writers and REPEATABLE READ see.
 */
void
objwriter_set_map(ObjWriter *w, int64 objid, bytea *map)
{
	LockedRow  *lr = locked_row(w, objid);
	TupleTableSlot *slot = w->newslot;
	bool		update_indexes;

	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
	slot->tts_values[w->objatt - 1] = Int64GetDatum(objid);
	slot->tts_isnull[w->objatt - 1] = false;
	slot->tts_values[w->mapatt - 1] = PointerGetDatum(map);
	slot->tts_isnull[w->mapatt - 1] = map == NULL;
	ExecStoreVirtualTuple(slot);
	simple_table_tuple_update(w->dir, &lr->tid, slot, GetActiveSnapshot(), &update_indexes);
	lr->tid = slot->tts_tid;
	if (update_indexes)
	{
		ResetPerTupleExprContext(w->estate);
		ExecInsertIndexTuples(w->rri, slot, w->estate, true, false, NULL, NIL);
	}
}

/* Whether the collection keeps its objects' documents too. */
bool
objwriter_keeps_docs(ObjWriter *w)
{
	return w->docs != NULL;
}

/* Delete the locked directory row of objid. */
void
objwriter_delete_object(ObjWriter *w, int64 objid)
{
	LockedRow  *lr = locked_row(w, objid);
	ItemPointerData hint = lr->doc_hint.doc;

	simple_table_tuple_delete(w->dir, &lr->tid, GetActiveSnapshot());
	hash_search(w->locked, &objid, HASH_REMOVE, NULL);
	if (w->docs != NULL)
		(void) docwriter_put(w->docs, objid, NULL, &hint);
}
