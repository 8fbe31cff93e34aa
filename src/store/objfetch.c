/*
 * objfetch.c — an object's rows read straight from the heap, without SQL.
 *
 * Generated SQL picks the objects (which ids, in which order); their rows
 * are then fetched here.  The object's directory row, found by one
 * descent of the directory's primary key, says where its rows lie
 * (rowmap.c): the heap pages are read directly, each row checked to be
 * visible and the object's.  Where a map is missing, of another epoch or
 * wrong, the object is read through the value tables' objid indexes
 * instead, one probe per table.
 * When the objects come in increasing id order (every object, or a
 * parallel worker's share of them), the directory and objid indexes are
 * instead read forward beside them, as a merge join would: no descent per
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
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "common/keypath.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "store/rowmap.h"

/* What a value table's rows hold, and where. */
typedef enum ValKind
{
	VAL_STR,
	VAL_NUM,
	VAL_BOOL,
	VAL_ANY,					/* Argo/1: all three columns */
	VAL_DIR,					/* the directory: its row map */
	VAL_DOC						/* the kept documents (docs.c) */
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
	bool		ids_first;		/* objid int8, keyid int4: columns 1 and 2 */
	AttrNumber	valatt[4];		/* valstr, valnum, valbool, valexact */
	Oid			indexoid;		/* objid index (the directory: primary key) */
	/* streaming: the row in the slot, not yet taken, and its object */
	bool		pending;
	bool		done;
	bool		positioned;		/* a forward scan is under way */
	int64		pending_objid;
	bool		asked_any;
	int64		asked;			/* the last object asked for */
	/* rows read by a map: the page pinned last */
	TupleTableSlot *mslot;
	Buffer		buf;
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
	/* the directory, when the maps are read */
	bool		maps;
	TableScan	dir;
	AttrNumber	mapatt;
	uint32		epoch;			/* of maps written for these tables now */
	MemoryContext objcxt;		/* one object's map */
	bool		dir_found;		/* the directory row of the object asked */
	bytea	   *map;			/* its map, in objcxt; NULL: none */
	bool		has_docs;		/* the kept documents are read (docscan) */
	TableScan	docscan;
	BlockNumber prefetched_block;	/* of the document asked for last */
	AttrNumber	docatt;			/* c_doc's doc column */
	bool		docs;			/* whether to take them: whole objects, no log */
	Jsonb	   *doc;			/* the object's, in objcxt; NULL: none */
	DocHint    *doc_hint;		/* where the next object's may lie (a value row's doctid), or NULL */
	ItemPointerData doc_root;	/* where the one read by c_doc's key starts its chain */
	const DocPath *doc_paths;	/* a projection taken from the documents */
	int			ndoc_paths;
	RowLog	   *log;			/* if not NULL: every row handed out, logged */
	bool		every;			/* a projection that still says each object exists */
	MemoryContext logcxt;		/* where the log grows: the caller's */
};

/*
 * Open one value table for probing; false (closed again) if SQL must
 * read it.  Its slots are made when first used: a document found by its
 * address reads no other table.
 */
static bool
table_begin(ObjFetch *f, TableScan *t, Relation rel, ValKind kind)
{
	TableLayout l = argo_table_layout(rel);
	Oid			index = InvalidOid;

	argo_check_privilege(rel, ACL_SELECT);
	if (argo_readable_directly(rel) && l.objatt > 0)
	{
		if (kind == VAL_DIR || kind == VAL_DOC)
			index = RelationGetPrimaryKeyIndex(rel);
		else if (l.keyatt > 0)
			index = l.objid_index;
	}
	if (!OidIsValid(index))
	{
		table_close(rel, NoLock);
		return false;
	}
	t->rel = rel;
	t->kind = kind;
	t->objatt = l.objatt;
	t->keyatt = l.keyatt;
	t->ids_first = l.ids_first;
	memcpy(t->valatt, l.valatt, sizeof(t->valatt));
	/* the index is opened when first read: a map may make it unneeded */
	t->indexoid = index;
	t->index = NULL;
	t->scan = NULL;
	t->slot = t->mslot = NULL;
	t->buf = InvalidBuffer;
	t->pending = t->done = t->positioned = t->asked_any = false;
	return true;
}

/* t's slots, made on first use. */
static void
slots_ready(TableScan *t)
{
	if (t->slot != NULL)
		return;
	t->slot = table_slot_create(t->rel, NULL);
	t->mslot = table_slot_create(t->rel, NULL);
}

static void
table_end(TableScan *t)
{
	if (BufferIsValid(t->buf))
		ReleaseBuffer(t->buf);
	if (t->scan != NULL)
		index_endscan(t->scan);
	if (t->slot != NULL)
	{
		ExecDropSingleTupleTableSlot(t->slot);
		ExecDropSingleTupleTableSlot(t->mslot);
	}
	/* locks are kept to the end of the transaction, as SQL keeps them */
	if (t->index != NULL)
		index_close(t->index, NoLock);
	table_close(t->rel, NoLock);
}

/*
 * Read the maps too, where the directory can be read directly and has
 * them (a collection made before 0.6 and not yet updated has no column).
 */
static void
maps_begin(ObjFetch *f, ArgoCollection *c)
{
	Relation	rels[ROWMAP_MAX_TABLES];
	Relation	dir = argo_open_table(c, "obj");

	f->mapatt = rowmap_column(dir);
	if (f->mapatt <= 0)
	{
		table_close(dir, NoLock);
		return;
	}
	if (!table_begin(f, &f->dir, dir, VAL_DIR))
		return;
	for (int i = 0; i < f->ntables; i++)
		rels[i] = f->tables[i].rel;
	f->epoch = rowmap_epoch(rels, f->ntables);
	f->objcxt = AllocSetContextCreate(f->cxt, "argo object map", ALLOCSET_SMALL_SIZES);
	f->maps = true;
}

/*
 * Take the kept documents too, where the collection keeps them and the
 * role may take them (docs.c); else every object is rebuilt from rows.
 */
static void
docs_begin(ObjFetch *f, ArgoCollection *c)
{
	Relation	rel;

	if (!f->maps || !docs_readable(c))
		return;
	rel = table_open(docs_relid(c), NoLock);
	f->docatt = attnameAttNum(rel, "doc", false);
	f->has_docs = table_begin(f, &f->docscan, rel, VAL_DOC);
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
	f->docs = true;
	f->prefetched_block = InvalidBlockNumber;
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
	maps_begin(f, c);
	docs_begin(f, c);
	return f;
}

void
objfetch_close(ObjFetch *f)
{
	for (int i = 0; i < f->ntables; i++)
		table_end(&f->tables[i]);
	f->ntables = 0;
	if (f->maps)
		table_end(&f->dir);
	f->maps = false;
	if (f->has_docs)
		table_end(&f->docscan);
	f->has_docs = false;
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

/* The directory row in t's slot: the object is there, with this map. */
static void
take_directory_row(ObjFetch *f, TableScan *t)
{
	bool		isnull;
	Datum		d = slot_getattr(t->slot, f->mapatt, &isnull);
	MemoryContext old = MemoryContextSwitchTo(f->objcxt);

	f->dir_found = true;
	f->map = isnull ? NULL : (bytea *) PG_DETOAST_DATUM_COPY(d);
	MemoryContextSwitchTo(old);
}

/* The kept document in t's slot: the object's, whole. */
static void
take_doc_row(ObjFetch *f, TableScan *t)
{
	bool		isnull;
	Datum		d = slot_getattr(t->slot, f->docatt, &isnull);
	MemoryContext old = MemoryContextSwitchTo(f->objcxt);

	f->doc = docs_value(d, isnull);
	MemoryContextSwitchTo(old);
	/* the index entry names the chain's root, where doctid points */
	if (t->scan != NULL)
		f->doc_root = t->scan->xs_heaptid;
}

/* Hand the current row of t to the rebuilder. */
static void
fetch_take_row(ObjFetch *f, TableScan *t, int64 objid, int32 keyid, Rebuilder *rb)
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

static void
log_row(ObjFetch *f, TableScan *t, int64 objid, int32 keyid)
{
	RowLog	   *log = f->log;
	LoggedRow  *r;

	if (log->n == log->max)
	{
		log->max = log->max ? log->max * 2 : 64;
		log->rows = log->rows ? repalloc_huge(log->rows, sizeof(LoggedRow) * log->max) :
			MemoryContextAlloc(f->logcxt, sizeof(LoggedRow) * log->max);
	}
	r = &log->rows[log->n++];
	r->objid = objid;
	r->keyid = keyid;
	r->table = (int16) (t - f->tables);
	r->gone = false;
	r->tid = t->slot->tts_tid;
}

/* The row in t's slot, of object objid: the directory's, or a value. */
static void
take(ObjFetch *f, TableScan *t, int64 objid, Rebuilder *rb)
{
	bool		isnull;
	int32		keyid;

	if (t->kind == VAL_DIR)
	{
		take_directory_row(f, t);
		return;
	}
	if (t->kind == VAL_DOC)
	{
		take_doc_row(f, t);
		return;
	}
	keyid = DatumGetInt32(slot_getattr(t->slot, t->keyatt, &isnull));
	if (f->keys != NULL && !bms_is_member(keyid, f->keys))
		return;
	if (f->log != NULL)
		log_row(f, t, objid, keyid);
	if (rb != NULL)
		fetch_take_row(f, t, objid, keyid, rb);
}

/* t's index scan, begun on first use. */
static IndexScanDesc
index_scan(ObjFetch *f, TableScan *t)
{
	if (t->scan == NULL)
	{
		slots_ready(t);
		t->index = index_open(t->indexoid, AccessShareLock);
		t->scan = index_beginscan(t->rel, t->index, f->snap, 1, 0);
	}
	return t->scan;
}

/* Take t's rows of objid from its index probe. */
static void
probe_table(ObjFetch *f, TableScan *t, int64 objid, Rebuilder *rb)
{
	ScanKeyData key;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(objid));
	index_rescan(index_scan(f, t), &key, 1, NULL, 0);
	while (index_getnext_slot(t->scan, ForwardScanDirection, t->slot))
	{
		CHECK_FOR_INTERRUPTS();
		take(f, t, objid, rb);
	}
}

/* Start t's stream over at the first row of objid or later. */
static void
stream_seek(ObjFetch *f, TableScan *t, int64 objid)
{
	ScanKeyData key;

	ScanKeyInit(&key, 1, BTGreaterEqualStrategyNumber, F_INT8GE, Int64GetDatum(objid));
	index_rescan(index_scan(f, t), &key, 1, NULL, 0);
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
		take(f, t, objid, rb);
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
		stream_seek(f, t, objid);
	stream_rows(f, t, objid, rb);
}

/* t's rows of objid, by probe or stream as the objects come. */
static void
read_table(ObjFetch *f, TableScan *t, int64 objid, Rebuilder *rb)
{
	if (f->stream)
		stream_table(f, t, objid, rb);
	else
		probe_table(f, t, objid, rb);
}

/* Pin t's page block for reading by map; false if the table has no such page. */
static bool
map_page(TableScan *t, BlockNumber block)
{
	if (BufferIsValid(t->buf) && BufferGetBlockNumber(t->buf) == block)
		return true;
	if (!argo_block_exists(t->rel, block))
		return false;
	t->buf = ReleaseAndReadBuffer(t->buf, t->rel, block);
	heap_page_prune_opt(t->rel, t->buf);
	return true;
}

/*
 * The rows of one run, each the visible version of the chain its line
 * pointer starts (an UPDATE by SQL keeps a HOT chain's first pointer);
 * false when one is missing or not visible.  The page stays pinned, so
 * the tuples stay valid after its lock is released.
 */
static bool
run_tuples(ObjFetch *f, TableScan *t, const RowRun *run, HeapTupleData *tups)
{
	Page		page;
	OffsetNumber maxoff;
	bool		ok = true,
				all_visible;

	if (!map_page(t, run->block))
		return false;
	LockBuffer(t->buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(t->buf);
	maxoff = PageGetMaxOffsetNumber(page);
	/*
	 * On a page VACUUM found all-visible every normal tuple is live and
	 * visible to every snapshot, as a sequential scan trusts it; a
	 * serializable transaction still goes through heap_hot_search_buffer
	 * for its predicate locks.
	 */
	all_visible = PageIsAllVisible(page) && !f->snap->takenDuringRecovery &&
		!IsolationIsSerializable();
	for (int i = 0; ok && i < run->count; i++)
	{
		ItemPointerData tid;
		bool		all_dead;
		ItemId		lp;

		ItemPointerSet(&tid, run->block, run->first + i);
		if (run->first + i > maxoff)
			ok = false;
		else if (all_visible && ItemIdIsNormal(lp = PageGetItemId(page, run->first + i)) &&
				 !HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, lp)))
		{
			/* a chain's start, as heap_hot_search_buffer would require */
			tups[i].t_data = (HeapTupleHeader) PageGetItem(page, lp);
			tups[i].t_len = ItemIdGetLength(lp);
			tups[i].t_tableOid = RelationGetRelid(t->rel);
			tups[i].t_self = tid;
		}
		else
			ok = heap_hot_search_buffer(&tid, t->rel, t->buf, f->snap, &tups[i],
										&all_dead, true);
	}
	LockBuffer(t->buf, BUFFER_LOCK_UNLOCK);
	return ok;
}

/*
 * A value row's object and key, read off the tuple: where they are its
 * first two columns (as Argo makes them) and the row has both (a row
 * older than a column added later has fewer), at their fixed offsets 0
 * and 8; false when either is null.
 */
static inline bool
row_ids(TableScan *t, HeapTuple tup, int64 *objid, int32 *keyid)
{
	HeapTupleHeader h = tup->t_data;
	bool		onull,
				knull;

	if (t->ids_first && HeapTupleHeaderGetNatts(h) >= 2 &&
		!(HeapTupleHasNulls(tup) && (att_isnull(0, h->t_bits) || att_isnull(1, h->t_bits))))
	{
		char	   *data = (char *) h + h->t_hoff;

		*objid = *(int64 *) data;
		*keyid = *(int32 *) (data + sizeof(int64));
		return true;
	}
	*objid = DatumGetInt64(heap_getattr(tup, t->objatt, RelationGetDescr(t->rel), &onull));
	*keyid = DatumGetInt32(heap_getattr(tup, t->keyatt, RelationGetDescr(t->rel), &knull));
	return !onull && !knull;
}

/*
 * Take t's rows of objid where the map says they are; false when a row
 * there is not visible or not the object's (the map is not to be
 * trusted: the caller forgets what was given out and reads the object
 * again by its objid indexes).
 */
static bool
map_table(ObjFetch *f, TableScan *t, int64 objid, const RowRun *runs, int nruns,
		  Rebuilder *rb)
{
	HeapTupleData tups[MaxHeapTuplesPerPage];
	TupleTableSlot *save;
	bool		ok = true;

	slots_ready(t);
	save = t->slot;
	/* each row given out as soon as it proves the object's: a wrong one is forgotten by the caller */
	t->slot = t->mslot;
	for (int r = 0; ok && r < nruns; r++)
	{
		ok = run_tuples(f, t, &runs[r], tups);
		for (int i = 0; ok && i < runs[r].count; i++)
		{
			int64		rowobj;
			int32		keyid;

			CHECK_FOR_INTERRUPTS();
			/* a projection stores in the slot, and so deforms, only its keys' rows */
			ok = row_ids(t, &tups[i], &rowobj, &keyid) && rowobj == objid;
			if (!ok)
				break;
			if (f->keys != NULL && !bms_is_member(keyid, f->keys))
				continue;
			ExecStoreBufferHeapTuple(&tups[i], t->mslot, t->buf);
			take(f, t, objid, rb);
		}
	}
	t->slot = save;
	return ok;
}

/*
 * The object's directory row, by probe or stream; false when the
 * directory has none.
 */
static bool
read_directory(ObjFetch *f, int64 objid)
{
	f->dir_found = false;
	f->map = NULL;
	read_table(f, &f->dir, objid, NULL);
	return f->dir_found;
}

/*
 * The object's kept document where the value row that found it says it
 * lies (doc_hint: the root of its chain when that row was written), read
 * by its address as a bitmap heap scan reads a tuple; false when it is
 * not there (the document moved since, or the place holds another
 * object's): then it is looked up by id.
 */
static bool
doc_at_hint(ObjFetch *f, int64 objid)
{
	TableScan  *t = &f->docscan;
	ItemPointerData tid;
	HeapTupleData tup;
	bool		all_dead,
				found,
				isnull;
	Datum		d;
	MemoryContext old;

	if (f->doc_hint == NULL)
		return false;
	tid = f->doc_hint->doc;
	if (!ItemPointerIsValid(&tid) || !map_page(t, ItemPointerGetBlockNumber(&tid)))
		return false;
	slots_ready(t);
	LockBuffer(t->buf, BUFFER_LOCK_SHARE);
	found = heap_hot_search_buffer(&tid, t->rel, t->buf, f->snap, &tup, &all_dead, true);
	LockBuffer(t->buf, BUFFER_LOCK_UNLOCK);
	if (!found)
		return false;
	ExecStoreBufferHeapTuple(&tup, t->mslot, t->buf);
	d = slot_getattr(t->mslot, t->objatt, &isnull);
	if (isnull || DatumGetInt64(d) != objid)
		return false;
	d = slot_getattr(t->mslot, f->docatt, &isnull);
	old = MemoryContextSwitchTo(f->objcxt);
	f->doc = docs_value(d, isnull);
	MemoryContextSwitchTo(old);
	return f->doc != NULL;
}

/* Whether objects fetched into rb are taken from their kept documents. */
static bool
takes_doc(ObjFetch *f, Rebuilder *rb)
{
	return f->has_docs && f->docs && f->log == NULL && rb != NULL &&
		(f->keys == NULL || f->doc_paths != NULL) && rebuilder_takes_docs(rb);
}

/*
 * The object's kept document, where a whole object (or a projection cut
 * from one) is wanted and the collection keeps one for it: NULL else.
 * A document stands only beside its directory row (fn/rowmaps.c), so
 * one found says that the object is there.
 */
static Jsonb *
read_doc(ObjFetch *f, int64 objid, Rebuilder *rb)
{
	f->doc = NULL;
	if (takes_doc(f, rb) && !doc_at_hint(f, objid))
	{
		ItemPointerSetInvalid(&f->doc_root);
		read_table(f, &f->docscan, objid, NULL);
		/* the value row that found the object names its document again */
		if (f->doc != NULL && f->doc_hint != NULL)
			dochint_refresh(f->doc_hint, objid, &f->doc_root);
	}
	f->doc_hint = NULL;
	return f->doc;
}

/*
 * objid's rows by its map: false, nothing given out, when there is no
 * usable map; false after giving rows out when the map proves wrong (the
 * caller has the rebuilder forget them).
 */
static bool
read_by_map(ObjFetch *f, int64 objid, Rebuilder *rb)
{
	RowMap		m;
	MemoryContext old;
	bool		ok;

	if (f->map == NULL)
		return false;
	old = MemoryContextSwitchTo(f->objcxt);
	ok = rowmap_decode(f->map, f->ntables, &m) && m.epoch == f->epoch;
	MemoryContextSwitchTo(old);
	for (int i = 0; ok && i < f->ntables; i++)
		ok = map_table(f, &f->tables[i], objid, m.runs[i], m.nruns[i], rb);
	return ok;
}

/*
 * Feed object objid's rows (those of the chosen keys) to the rebuilder;
 * for a whole object, first say that it exists, rows or not ({}).  False
 * when the directory, read, has no such object (nothing is given out).
 * rb NULL: only log the rows (a DELETE needs their tids, not the object).
 */
bool
objfetch_object(ObjFetch *f, int64 objid, Rebuilder *rb)
{
	MemoryContext old;
	int			logged = f->log ? f->log->n : 0;

	old = MemoryContextSwitchTo(f->cxt);
	if (f->maps)
		MemoryContextReset(f->objcxt);
	if (read_doc(f, objid, rb) == NULL && f->maps && !read_directory(f, objid))
	{
		MemoryContextSwitchTo(old);
		return false;
	}
	if (f->doc != NULL)
	{
		Jsonb	   *doc = f->doc_paths == NULL ? f->doc :
			doc_project(f->doc, f->doc_paths, f->ndoc_paths);

		/* a projection with none of its paths in the object gives nothing */
		if (doc != NULL)
			rebuilder_add_doc(rb, objid, doc);
		MemoryContextSwitchTo(old);
		return true;
	}
	if ((f->keys == NULL || f->every) && rb != NULL)
		rebuilder_add_object(rb, objid);
	if (!f->maps || !read_by_map(f, objid, rb))
	{
		if (f->maps)
		{
			if (f->log)
				f->log->n = logged;
			if (rb != NULL)
			{
				rebuilder_forget(rb, objid);
				if (f->keys == NULL || f->every)
					rebuilder_add_object(rb, objid);
			}
		}
		for (int i = 0; i < f->ntables; i++)
			read_table(f, &f->tables[i], objid, rb);
	}
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * From now on, log every row handed out (with its tid) into log, whose
 * memory is the current context's; a row the fetch hands out and then
 * takes back (a wrong map) stays logged only once, as read again.
 */
void
objfetch_log_rows(ObjFetch *f, RowLog *log)
{
	f->log = log;
	f->logcxt = CurrentMemoryContext;
}

/*
 * A projection whose paths are object keys, none inside another, taken
 * from the kept documents where there are some (docproject.c) rather
 * than from its keys' rows; paths must live as long as f.
 */
void
objfetch_project_docs(ObjFetch *f, const DocPath *paths, int npaths)
{
	if (f->every)
		return;
	f->doc_paths = paths;
	f->ndoc_paths = npaths;
}

/* Rebuild every object from its rows, never taking a kept document (argo_check). */
void
objfetch_ignore_docs(ObjFetch *f)
{
	f->docs = false;
}

/*
 * A projection that returns every object it is asked for, with or
 * without rows of its keys (SELECT ID(), name: {"_id": 7} where there is
 * no name): each object is said to exist before its rows.
 */
void
objfetch_every_object(ObjFetch *f)
{
	f->every = true;
}

/*
 * Where the next object asked for may have its kept document (a value
 * row's doctid): tried first, checked, then looked up by id.
 */
void
objfetch_hint_doc(ObjFetch *f, DocHint *hint)
{
	f->doc_hint = hint;
}

/*
 * Ask the kernel for the page where the hint says a kept document lies,
 * that a later read finds it in memory: a read of many objects' documents
 * waits for one page at a time otherwise.  A page of a block the table
 * no longer has is not asked for (the hint is stale).
 */
static void
prefetch_doc(ObjFetch *f, Rebuilder *rb, const DocHint *hint)
{
	BlockNumber block;

	if (!ItemPointerIsValid(&hint->doc) || !takes_doc(f, rb))
		return;
	block = ItemPointerGetBlockNumber(&hint->doc);
	if (block == f->prefetched_block || !argo_block_exists(f->docscan.rel, block))
		return;
	f->prefetched_block = block;
	(void) PrefetchBuffer(f->docscan.rel, MAIN_FORKNUM, block);
}

/*
 * Before the object of hints[at] is read: the documents of the ones after
 * it asked for, up to argo.prefetch_pages ahead (*asked: how many of
 * hints have been dealt with).  Never the one about to be read, so a
 * point read asks for nothing.
 */
void
objfetch_prefetch_docs(ObjFetch *f, Rebuilder *rb, const DocHint *hints, int n, int at,
					   int *asked)
{
	for (; *asked < n && *asked <= at + argo_prefetch_pages; (*asked)++)
		if (*asked > at)
			prefetch_doc(f, rb, &hints[*asked]);
}

/* Whether each object's directory row is read (and a missing one said). */
bool
objfetch_reads_directory(ObjFetch *f)
{
	return f->maps;
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
