/*
 * docs.c — documents kept whole beside their rows.
 *
 * A collection may keep each object's jsonb, as given (its rows give it
 * back the same), in a table of its own, c_doc (objid, doc).  A read
 * of whole objects then takes the document instead of rebuilding it from
 * ~20 rows on several pages, and so does a projection of objects fetched
 * one by one whose paths are object keys (doc/docproject.c cuts the
 * document down); every other read (predicates, projections of every
 * object, aggregates) reads the rows, which stay the store.
 *
 * A copy is a cache of the rows, and trusted only as far as that holds
 * (docs/design.md, "Kept documents: who reads and writes the copy"):
 *
 *  - Only Argo writes it, from C, in the statement that writes the
 *    object's rows and directory row, with the privileges SQL would ask
 *    on c_doc (42501).  An INSERT or UPDATE of c_doc through SQL is
 *    refused by its trigger (argo_docs_guard), whoever runs it: no role
 *    can make a reader see a document its rows do not hold.
 *  - A write of the rows or the directory through SQL (a role writing
 *    the tables, or Argo itself where they need SQL) deletes the copies
 *    of the objects it touched (fn/rowmaps.c): no copy, and the object is
 *    rebuilt from its rows.
 *  - Reading a copy is SELECT on c_doc, which argo_grant gives readers;
 *    unlike the directory (all that counting objects needs), c_doc holds
 *    the objects.  A role that may read only some rows of an object must
 *    not read its copy: whenever a table of the collection has row-level
 *    security, c_doc has it too (docs_sync_rls), with no policy — no row
 *    for anyone the policies apply to — and Argo takes copies only where
 *    none applies to the reader on any of its tables.
 *
 * It is also input: a value that is not a jsonb object is not used.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "common/common.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/rowbatch.h"


/*
 * c_doc's row-level security made what the collection's other tables
 * have: on (and forced) when any of them has it on (forced).  Run by the
 * tables' owner: at the table's making, and after each ALTER TABLE of a
 * table of the collection (fn/restored.c's event trigger).
 */
void
docs_sync_rls(ArgoCollection *c)
{
	static const char *const others[] = {"str", "num", "bool", "data", "keys", "obj"};
	Oid			docs = docs_relid(c);
	bool		rls = false,
				force = false;
	Relation	rel;
	bool		has,
				has_force;

	if (!OidIsValid(docs))
		return;
	for (int i = 0; i < lengthof(others); i++)
	{
		Oid			relid = get_relname_relid(psprintf("%s_%s", c->name, others[i]),
											  get_namespace_oid(ARGO_SCHEMA, false));
		HeapTuple	tup;

		if (!OidIsValid(relid) || argo_relation_owner(relid) != argo_relation_owner(docs))
			continue;
		tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		if (!HeapTupleIsValid(tup))
			continue;
		rls |= ((Form_pg_class) GETSTRUCT(tup))->relrowsecurity;
		force |= ((Form_pg_class) GETSTRUCT(tup))->relforcerowsecurity;
		ReleaseSysCache(tup);
	}
	rel = table_open(docs, AccessShareLock);
	has = rel->rd_rel->relrowsecurity;
	has_force = rel->rd_rel->relforcerowsecurity;
	table_close(rel, AccessShareLock);
	if (has != rls)
		run_ddl(psprintf("ALTER TABLE %s %s ROW LEVEL SECURITY", c->doc_table, rls ? "ENABLE" : "DISABLE"));
	if (has_force != force)
		run_ddl(psprintf("ALTER TABLE %s %s ROW LEVEL SECURITY", c->doc_table, force ? "FORCE" : "NO FORCE"));
}

/*
 * Whether the current role may take c's kept documents: c keeps them,
 * the role may SELECT them, and no row-level security applies to it
 * there (c_doc has it whenever another table of c has: docs_sync_rls).
 * The caller has checked the rows' tables.
 */
bool
docs_readable(ArgoCollection *c)
{
	Oid			docs = docs_relid(c);
	Relation	rel;
	bool		ok;

	if (!OidIsValid(docs))
		return false;
	rel = table_open(docs, AccessShareLock);
	ok = argo_readable_directly(rel) &&
		pg_class_aclcheck(docs, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
	table_close(rel, NoLock);
	return ok;
}

/*
 * Whether c's kept documents have an argo_text index over the strings at
 * path (a jsonb array of steps, as sql_path_steps writes it): a GIN
 * index on argo_text_vector(doc, path, config) of Argo's schema; its
 * configuration into *config.
 */
bool
docs_text_index(ArgoCollection *c, Jsonb *path, Oid *config)
{
	Oid			docs = docs_relid(c);
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;
	bool		found = false;

	if (!OidIsValid(docs))
		return false;
	rel = table_open(docs, AccessShareLock);
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	irel = index_open(lfirst_oid(lc), AccessShareLock);
		List	   *exprs = RelationGetIndexExpressions(irel);
		FuncExpr   *f = list_length(exprs) == 1 ? linitial(exprs) : NULL;

		if (!found && f != NULL && IsA(f, FuncExpr) && list_length(f->args) == 3 &&
			irel->rd_rel->relam == GIN_AM_OID && irel->rd_index->indisvalid &&
			getExtensionOfObject(ProcedureRelationId, f->funcid) == get_extension_oid("argo", true) &&
			strcmp(get_func_name(f->funcid), "argo_text_vector") == 0 &&
			IsA(lsecond(f->args), Const) && IsA(lthird(f->args), Const) &&
			!((Const *) lsecond(f->args))->constisnull && !((Const *) lthird(f->args))->constisnull &&
			compareJsonbContainers(&DatumGetJsonbP(((Const *) lsecond(f->args))->constvalue)->root,
								   &path->root) == 0)
		{
			*config = DatumGetObjectId(((Const *) lthird(f->args))->constvalue);
			found = true;
		}
		index_close(irel, AccessShareLock);
	}
	table_close(rel, NoLock);
	return found;
}

/*
 * The kept document in d (detoasted into the current context), or NULL
 * where there is none to use.
 */
Jsonb *
docs_value(Datum d, bool isnull)
{
	Jsonb	   *doc;

	if (isnull)
		return NULL;
	doc = DatumGetJsonbPCopy(d);
	return JB_ROOT_IS_OBJECT(doc) && !JB_ROOT_IS_SCALAR(doc) ? doc : NULL;
}

/*
 * Whether an INSERT into c writes its new objects' documents: c keeps
 * them, no row-level security applies to the role there (it then applies
 * on the rows' tables too, which are written through SQL, and no copy is
 * kept), and C may write c_doc as SQL would let the role (INSERT
 * granted: 42501 otherwise, as SQL says).
 */
bool
docs_insertable(ArgoCollection *c)
{
	Oid			relid = docs_relid(c);
	Relation	rel;
	bool		ok;

	if (!OidIsValid(relid))
		return false;
	rel = table_open(relid, RowExclusiveLock);
	ok = !argo_rls_applies(rel);
	if (ok)
	{
		argo_check_privilege(rel, ACL_INSERT);
		ok = argo_insertable_directly(rel, 2);
	}
	table_close(rel, NoLock);
	return ok;
}

/*
 * A document as c_doc keeps it: compressed (lz4 where the server has it,
 * as it has on Debian) where that saves a quarter of it, inline.  Heap
 * tuples are compressed only past 2 kB, and NoBench's 630-byte documents
 * come to half their size: the table is a third smaller, and a document
 * read costs a decompression of a few hundred bytes, against a page
 * (docs/design.md).  Readers detoast it as any datum.
 */
Datum
docs_stored_form(Jsonb *doc)
{
#ifdef USE_LZ4
	char		method = TOAST_LZ4_COMPRESSION;
#else
	char		method = TOAST_PGLZ_COMPRESSION;
#endif
	Datum		c;

	if (VARATT_IS_EXTENDED(doc))
		return JsonbPGetDatum(doc);
	c = toast_compress_datum(JsonbPGetDatum(doc), method);
	if (c != (Datum) 0 && VARSIZE(DatumGetPointer(c)) <= VARSIZE(doc) / 4 * 3)
		return c;
	return JsonbPGetDatum(doc);
}

/*
 * New objects' documents, from C (docs_insertable said they may be);
 * where each went (the root of its chain: a new one's own place).
 */
ItemPointerData *
docs_insert_new(ArgoCollection *c, int n, Datum *objids, Datum *docs)
{
	Datum	   *stored = palloc(sizeof(Datum) * Max(n, 1));
	ArgoRows	rows = {n, 2, {"objid", "doc"}, {objids, stored}};

	rows.tids = palloc(sizeof(ItemPointerData) * Max(n, 1));
	if (n == 0)
		return rows.tids;
	for (int i = 0; i < n; i++)
		stored[i] = docs_stored_form(DatumGetJsonbP(docs[i]));
	rows.append = true;
	if (!argo_bulk_insert(docs_relid(c), 2, &rows))
		elog(ERROR, "the documents of collection \"%s\" could not be written", c->name);
	return rows.tids;
}

/* ---------- one object's document written again, from C ---------- */

struct DocWriter
{
	Relation	rel;
	Relation	pk;
	EState	   *estate;
	ResultRelInfo *rri;
	TupleTableSlot *slot;		/* a new version */
	TupleTableSlot *found;		/* the version there */
	AttrNumber	objatt;
	AttrNumber	docatt;
};

/*
 * Ready to write c's documents of objects whose writer holds their
 * locks (mode: ACL_UPDATE for an UPDATE, which may also insert a
 * missing one; ACL_DELETE for a DELETE), with SQL's privilege checks;
 * NULL where c keeps none.
 */
DocWriter *
docwriter_open(ArgoCollection *c, AclMode mode)
{
	Oid			relid = docs_relid(c);
	DocWriter  *w;

	argo_check_writable(mode);
	if (!OidIsValid(relid))
		return NULL;
	w = palloc0(sizeof(DocWriter));
	w->rel = table_open(relid, RowExclusiveLock);
	argo_check_privilege(w->rel, mode);
	if (mode == ACL_UPDATE)
		argo_check_privilege(w->rel, ACL_INSERT);
	w->pk = index_open(RelationGetPrimaryKeyIndex(w->rel), RowExclusiveLock);
	w->estate = CreateExecutorState();
	w->rri = makeNode(ResultRelInfo);
	InitResultRelInfo(w->rri, w->rel, 0, NULL, 0);
	ExecOpenIndices(w->rri, false);
	w->objatt = attnameAttNum(w->rel, "objid", false);
	w->docatt = attnameAttNum(w->rel, "doc", false);
	w->slot = MakeSingleTupleTableSlot(RelationGetDescr(w->rel), &TTSOpsVirtual);
	w->found = table_slot_create(w->rel, NULL);
	return w;
}

void
docwriter_close(DocWriter *w)
{
	if (w == NULL)
		return;
	ExecDropSingleTupleTableSlot(w->slot);
	ExecDropSingleTupleTableSlot(w->found);
	ExecCloseIndices(w->rri);
	FreeExecutorState(w->estate);
	index_close(w->pk, NoLock);
	table_close(w->rel, NoLock);
}

/*
 * The newest version of objid's document in the chain rooted at hint, if
 * the chain is there and holds objid's (the writer holds the object's
 * lock: nobody else writes it through Argo).
 */
static bool
doc_at(DocWriter *w, int64 objid, Snapshot snap, const ItemPointerData *hint, ItemPointer tid)
{
	Buffer		buf;
	HeapTupleData tup;
	bool		all_dead,
				found,
				isnull;
	Datum		d;

	if (hint == NULL || !ItemPointerIsValid(hint) ||
		!argo_block_exists(w->rel, ItemPointerGetBlockNumber(hint)))
		return false;
	*tid = *hint;
	buf = ReadBuffer(w->rel, ItemPointerGetBlockNumber(hint));
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	found = heap_hot_search_buffer(tid, w->rel, buf, snap, &tup, &all_dead, true);
	if (found)
	{
		d = heap_getattr(&tup, w->objatt, RelationGetDescr(w->rel), &isnull);
		found = !isnull && DatumGetInt64(d) == objid;
	}
	UnlockReleaseBuffer(buf);
	return found;
}

/*
 * The newest version of objid's document, and the root of its chain,
 * where its index entry points; false if there is none.  Where the
 * object's value row said (hint), else by its key.
 */
static bool
current_doc(DocWriter *w, int64 objid, const ItemPointerData *hint, ItemPointer tid,
			ItemPointer root)
{
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	IndexScanDesc scan;
	ScanKeyData key;
	bool		found = doc_at(w, objid, snap, hint, tid);

	if (found)
	{
		*root = *hint;
		UnregisterSnapshot(snap);
		return true;
	}
	scan = index_beginscan(w->rel, w->pk, snap, 1, 0);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(objid));
	index_rescan(scan, &key, 1, NULL, 0);
	found = index_getnext_slot(scan, ForwardScanDirection, w->found);
	if (found)
	{
		*tid = w->found->tts_tid;
		*root = scan->xs_heaptid;
	}
	index_endscan(scan);
	UnregisterSnapshot(snap);
	return found;
}

/*
 * objid's document is doc from now on (NULL: it has none).  Where it
 * lies: the root of its chain, what the object's rows keep in doctid (a
 * HOT update keeps it; another makes a new one); invalid for none.
 * hint: where it may lie now (NULL: not known).
 */
ItemPointerData
docwriter_put(DocWriter *w, int64 objid, Jsonb *doc, const ItemPointerData *hint)
{
	ItemPointerData tid,
				root;
	bool		exists = current_doc(w, objid, hint, &tid, &root);
	bool		update_indexes = true;

	if (doc == NULL)
	{
		if (exists)
			simple_table_tuple_delete(w->rel, &tid, GetActiveSnapshot());
		ItemPointerSetInvalid(&root);
		return root;
	}
	ExecClearTuple(w->slot);
	memset(w->slot->tts_isnull, true, sizeof(bool) * w->slot->tts_tupleDescriptor->natts);
	w->slot->tts_values[w->objatt - 1] = Int64GetDatum(objid);
	w->slot->tts_isnull[w->objatt - 1] = false;
	w->slot->tts_values[w->docatt - 1] = docs_stored_form(doc);
	w->slot->tts_isnull[w->docatt - 1] = false;
	ExecStoreVirtualTuple(w->slot);
	if (exists)
		simple_table_tuple_update(w->rel, &tid, w->slot, GetActiveSnapshot(), &update_indexes);
	else
		table_tuple_insert(w->rel, w->slot, GetCurrentCommandId(true), 0, NULL);
	if (update_indexes)
	{
		/* a new chain: its own place is its root */
		root = w->slot->tts_tid;
		ResetPerTupleExprContext(w->estate);
		ExecInsertIndexTuples(w->rri, w->slot, w->estate, false, false, NULL, NIL);
	}
	return root;
}

/* ---------- copies forgotten where rows were written through SQL ---------- */

/* Delete tid's document, which may be gone already (another's delete). */
static void
forget_tid(Relation rel, ItemPointer tid)
{
	TM_FailureData tmfd;
	TM_Result	res = table_tuple_delete(rel, tid, GetCurrentCommandId(true), GetActiveSnapshot(),
										 InvalidSnapshot, true, &tmfd, false);

	if (res != TM_Ok && res != TM_SelfModified && res != TM_Deleted)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update")));
}

/*
 * Delete the documents of the n objects in ids from the table of kept
 * documents relid.  Done from C for whoever wrote the rows through SQL,
 * without a privilege of theirs on the table: as index entries are kept
 * for a writer who may not touch the index, forgetting a copy reveals
 * nothing and writes nothing a reader takes (the object is rebuilt from
 * the rows the writer was allowed to write), and a copy left beside rows
 * that changed would be read as the object.
 */
void
docs_forget(Oid relid, const int64 *ids, int n)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	Relation	pk = index_open(RelationGetPrimaryKeyIndex(rel), RowExclusiveLock);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	IndexScanDesc scan = index_beginscan(rel, pk, snap, 1, 0);

	for (int i = 0; i < n; i++)
	{
		ScanKeyData key;

		CHECK_FOR_INTERRUPTS();
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(ids[i]));
		index_rescan(scan, &key, 1, NULL, 0);
		while (index_getnext_slot(scan, ForwardScanDirection, slot))
			forget_tid(rel, &slot->tts_tid);
	}
	index_endscan(scan);
	UnregisterSnapshot(snap);
	ExecDropSingleTupleTableSlot(slot);
	index_close(pk, NoLock);
	table_close(rel, NoLock);
}

/* Delete every document of the table relid (its rows' table was emptied). */
void
docs_forget_all(Oid relid)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	TableScanDesc scan = table_beginscan(rel, snap, 0, NULL);
	TupleTableSlot *slot = table_slot_create(rel, NULL);

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		forget_tid(rel, &slot->tts_tid);
	}
	table_endscan(scan);
	UnregisterSnapshot(snap);
	ExecDropSingleTupleTableSlot(slot);
	table_close(rel, NoLock);
}

/*
 * A writer of c writes the copy it keeps of each object it changes:
 * INSERT, UPDATE and DELETE on c_doc, checked at every write (as the
 * dictionary's are: access.c), naming what it lacks.  Not where policies
 * apply to the role: its rows go through SQL then, and no copy is made.
 */
static void
docs_check_writer(ArgoCollection *c)
{
	Oid			docs = docs_relid(c);

	if (OidIsValid(docs) && check_enable_rls(docs, InvalidOid, true) != RLS_ENABLED &&
		pg_class_aclmask(docs, GetUserId(), ACL_INSERT | ACL_UPDATE | ACL_DELETE, ACLMASK_ALL) !=
		(ACL_INSERT | ACL_UPDATE | ACL_DELETE))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s_doc", c->name),
				 errdetail("A writer of collection \"%s\" writes the copy it keeps of each object it changes.", c->name),
				 errhint("argo_grant('%s', role, 'write') grants what a writer needs.", c->name)));
}

/*
 * What a writer of c needs (the dictionary's privileges, access.c, and
 * the kept documents'), checked once per lookup of c: an UPDATE's writer
 * and its two row batches ask alike.
 */
void
collection_check_writes(ArgoCollection *c)
{
	if (c->writer_checked)
		return;
	collection_check_writer(c);
	docs_check_writer(c);
	c->writer_checked = true;
}
