/*
 * keydict.c — the per-collection key dictionary.
 *
 * Vertical tables hold a small integer key id where they once held the
 * flattened key text; <c>_keys (keyid int4 PRIMARY KEY, keystr text
 * UNIQUE) maps one to the other.  An id, once committed, never changes
 * and is never reused while the collection exists, so each backend keeps
 * what it has read, with each key already parsed for the rebuilder.
 *
 * What a backend must not keep is an id it made or read in a transaction
 * that then aborts: such entries are "tentative" until commit and are
 * forgotten at any abort.  A dropped dictionary's cache is reset at the
 * next statement after the relcache tells us.
 *
 * Reads go straight through the dictionary's indexes (no SPI), so the
 * rebuilder may resolve ids while an SPI statement is streaming rows into
 * it.  They use the latest snapshot: keys are only ever added, so it
 * sees every key the statement's snapshot sees, and a few more which
 * then match no row.  New keys are added through SQL.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "common/common.h"
#include "common/keypath.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "store/shard/shard.h"

struct KeyDict
{
	Oid			relid;			/* the dictionary table; hash key */
	char		coll[NAMEDATALEN];	/* its collection's name */
	Oid			id_index;		/* on keyid */
	Oid			str_index;		/* on keystr */
	bool		stale;			/* relcache said it changed: reset */
	MemoryContext cxt;
	HTAB	   *by_str;			/* char * -> ArgoKey * */
	ArgoKey   **by_id;			/* dense ids, below nby_id */
	int32		nby_id;
	HTAB	   *sparse;			/* int32 -> ArgoKey *: ids far above the
								 * number of keys (see dict_store) */
	List	   *tentative;		/* ArgoKey * added in this transaction */
};

typedef struct StrEntry
{
	const char *str;			/* points into the entry's ArgoKey */
	ArgoKey    *key;
} StrEntry;

static HTAB *dicts = NULL;
static bool callbacks_registered = false;

/*
 * Caches replaced during a transaction: a statement may still hold keys
 * of theirs (a self-join sees one dictionary twice), so they are freed
 * only when the transaction ends.
 */
static List *retired = NIL;

static void
dict_reset(KeyDict *d)
{
	if (d->cxt)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		retired = lappend(retired, d->cxt);
		MemoryContextSwitchTo(old);
	}
	d->cxt = AllocSetContextCreate(CacheMemoryContext, "argo key dictionary",
								   ALLOCSET_DEFAULT_SIZES);
	d->by_str = keystr_hash_create("argo keys", sizeof(StrEntry), d->cxt);
	d->nby_id = 256;
	d->by_id = MemoryContextAllocZero(d->cxt, sizeof(ArgoKey *) * d->nby_id);
	d->sparse = NULL;
	d->tentative = NIL;
	d->stale = false;
}

typedef struct IdEntry
{
	int32		id;
	ArgoKey    *key;
} IdEntry;

/* The cached key with this id, or NULL. */
static inline ArgoKey *
cached_id(KeyDict *d, int32 id)
{
	IdEntry    *e;

	if (id > 0 && id < d->nby_id)
		return d->by_id[id];
	if (id <= 0 || d->sparse == NULL)
		return NULL;
	e = hash_search(d->sparse, &id, HASH_FIND, NULL);
	return e ? e->key : NULL;
}

/*
 * Keep k by its id.  Ids are dense (a sequence's), so an array indexed by
 * id is the fast way; but an id is data a role that may write the
 * dictionary can set (2^30, say), so the array grows only while it stays
 * within a few times the number of keys, and other ids go to a hash.
 */
static void
dict_store(KeyDict *d, ArgoKey *k)
{
	int64		limit = 4 * (int64) hash_get_num_entries(d->by_str) + 1024;
	IdEntry    *e;

	if (k->id >= d->nby_id && k->id < limit)
	{
		int32		n = d->nby_id;

		while (n <= k->id)
			n *= 2;
		d->by_id = repalloc(d->by_id, sizeof(ArgoKey *) * n);
		memset(d->by_id + d->nby_id, 0, sizeof(ArgoKey *) * (n - d->nby_id));
		d->nby_id = n;
	}
	if (k->id < d->nby_id)
	{
		d->by_id[k->id] = k;
		return;
	}
	if (d->sparse == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(int32);
		ctl.entrysize = sizeof(IdEntry);
		ctl.hcxt = d->cxt;
		d->sparse = hash_create("argo sparse key ids", 64, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(d->sparse, &k->id, HASH_ENTER, NULL);
	e->key = k;
}

/* Forget an entry; its memory stays until the next reset (it may be in use). */
static void
dict_forget(KeyDict *d, ArgoKey *k)
{
	hash_search(d->by_str, &k->str, HASH_REMOVE, NULL);
	if (k->id < d->nby_id && d->by_id[k->id] == k)
		d->by_id[k->id] = NULL;
	else if (d->sparse != NULL)
		hash_search(d->sparse, &k->id, HASH_REMOVE, NULL);
}

static void
free_retired(void)
{
	ListCell   *lc;

	foreach(lc, retired)
		MemoryContextDelete(lfirst(lc));
	list_free(retired);
	retired = NIL;
}

/*
 * The keys a shard's part of a write met that its copy of the dictionary
 * lacks (shardpart.c): kept past the rollback of the part, for the
 * coordinator to add and send the write again; gone with the transaction
 * (keydict_xact_callback).
 */
static List *missing_keys = NIL;

static void
end_of_transaction(bool committed)
{
	HASH_SEQ_STATUS seq;
	KeyDict    *d;

	if (dicts == NULL)
		return;
	hash_seq_init(&seq, dicts);
	while ((d = hash_seq_search(&seq)) != NULL)
	{
		ListCell   *lc;

		if (d->tentative == NIL)
			continue;
		if (!committed)
			foreach(lc, d->tentative)
				dict_forget(d, lfirst(lc));
		d->tentative = NIL;		/* list memory goes with the next reset */
	}
}

static void
keydict_xact_callback(XactEvent event, void *arg)
{
	/* not at a subtransaction's abort: the keys outlive the part's (see missing_keys) */
	missing_keys = NIL;
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT)
		end_of_transaction(true);
	else if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
			 event == XACT_EVENT_PREPARE)
		end_of_transaction(false);
	else
		return;
	free_retired();
}

/* A subtransaction's abort may take keys of the parent's with it: forget all. */
static void
keydict_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		end_of_transaction(false);
}

static void
keydict_relcache_callback(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	KeyDict    *d;

	if (dicts == NULL)
		return;
	hash_seq_init(&seq, dicts);
	while ((d = hash_seq_search(&seq)) != NULL)
		if (relid == InvalidOid || relid == d->relid)
			d->stale = true;
}

static void
register_callbacks(void)
{
	HASHCTL		ctl;

	if (callbacks_registered)
		return;
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(KeyDict);
	ctl.hcxt = CacheMemoryContext;
	dicts = hash_create("argo key dictionaries", 16, &ctl,
						HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	RegisterXactCallback(keydict_xact_callback, NULL);
	RegisterSubXactCallback(keydict_subxact_callback, NULL);
	CacheRegisterRelcacheCallback(keydict_relcache_callback, (Datum) 0);
	callbacks_registered = true;
}

/*
 * The dictionary's unique indexes: on keyid (column 1) and on keystr
 * (column 2); not the partial one on keyid of the complete keys.
 */
static void
find_indexes(KeyDict *d, Relation rel)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	d->id_index = d->str_index = InvalidOid;
	foreach(lc, indexes)
	{
		Oid			idx = lfirst_oid(lc);
		Relation	irel = index_open(idx, AccessShareLock);

		bool		one = irel->rd_index->indisunique && irel->rd_index->indnatts == 1;

		if (one && irel->rd_index->indkey.values[0] == 1)
			d->id_index = idx;
		else if (one && irel->rd_index->indkey.values[0] == 2)
			d->str_index = idx;
		index_close(irel, AccessShareLock);
	}
	if (!OidIsValid(d->id_index) || !OidIsValid(d->str_index))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("key dictionary \"%s\" lacks its indexes",
						RelationGetRelationName(rel)),
				 errhint("If the database is being restored, wait until the restore has made its indexes.")));
}

/*
 * Reading the dictionary directly must be allowed exactly as SQL would
 * allow it; row-level security on it is not something Argo can honour
 * from C, and it would hide keys, not data, so it is refused.
 */
static void
check_read_access(Relation rel)
{
	argo_check_privilege(rel, ACL_SELECT);
	if (argo_rls_applies(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("row-level security on key dictionary \"%s\" is not supported",
						RelationGetRelationName(rel)),
				 errhint("Put policies on the collection's value tables.")));
}

/* The dictionary of a collection, checked for this statement. */
KeyDict *
keydict_of(ArgoCollection *c)
{
	Oid			relid;
	KeyDict    *d;
	bool		found;
	Relation	rel;

	if (c->dict != NULL)
		return c->dict;
	register_callbacks();
	relid = argo_table_relid(c, "keys");
	rel = table_open(relid, NoLock);
	check_read_access(rel);
	d = hash_search(dicts, &relid, HASH_ENTER, &found);
	if (!found || d->stale)
	{
		if (!found)
			d->cxt = NULL;
		d->relid = relid;
		dict_reset(d);
		/* a dictionary without its indexes (a restore not yet done) is not kept */
		d->stale = true;
		find_indexes(d, rel);
		d->stale = false;
	}
	table_close(rel, NoLock);
	strlcpy(d->coll, c->name, NAMEDATALEN);
	c->dict = d;
	return d;
}

/*
 * The flattened key of key id in collection coll's dictionary, if this
 * backend has it cached; NULL otherwise.  Reads nothing: for wording an
 * error already raised (a write that stored the key has it cached).
 */
const char *
keydict_cached_keystr(const char *coll, int32 id)
{
	HASH_SEQ_STATUS seq;
	KeyDict    *d;

	if (dicts == NULL)
		return NULL;
	hash_seq_init(&seq, dicts);
	while ((d = hash_seq_search(&seq)) != NULL)
	{
		ArgoKey    *k;

		if (strcmp(d->coll, coll) != 0 || d->stale || (k = cached_id(d, id)) == NULL)
			continue;
		hash_seq_term(&seq);
		return k->str;
	}
	return NULL;
}

static ArgoKey *
dict_add(KeyDict *d, int32 id, const char *str, int len, bool tentative)
{
	MemoryContext old = MemoryContextSwitchTo(d->cxt);
	ArgoKey    *k = palloc(sizeof(ArgoKey));
	StrEntry   *e;
	bool		found;

	k->id = id;
	k->str = pnstrdup(str, len);
	k->len = len;
	k->nsegs = keypath_parse(k->str, len, &k->segs);
	e = hash_search(d->by_str, &k->str, HASH_ENTER, &found);
	e->str = k->str;
	e->key = k;
	dict_store(d, k);
	if (tentative)
		d->tentative = lappend(d->tentative, k);
	MemoryContextSwitchTo(old);
	return k;
}

/* An open index scan over the dictionary. */
typedef struct DictScan
{
	KeyDict    *d;
	Relation	rel;
	Relation	index;
	Snapshot	snap;
	IndexScanDesc scan;
	TupleTableSlot *slot;
} DictScan;

static void
dictscan_begin(DictScan *s, KeyDict *d, Oid index, int nkeys)
{
	s->d = d;
	s->rel = table_open(d->relid, AccessShareLock);
	s->index = index_open(index, AccessShareLock);
	/* rows streaming from a parallel plan: its snapshot sees their keys */
	s->snap = RegisterSnapshot(IsInParallelMode() ? GetActiveSnapshot() :
							   GetLatestSnapshot());
	s->scan = index_beginscan(s->rel, s->index, s->snap, nkeys, 0);
	s->slot = table_slot_create(s->rel, NULL);
}

static void
dictscan_end(DictScan *s)
{
	index_endscan(s->scan);
	ExecDropSingleTupleTableSlot(s->slot);
	UnregisterSnapshot(s->snap);
	/* locks are kept to the end of the transaction, as SQL keeps them */
	index_close(s->index, NoLock);
	table_close(s->rel, NoLock);
}

/* The next key of the scan, cached; NULL at the end. */
static ArgoKey *
dictscan_next(DictScan *s)
{
	bool		isnull;
	bool		should_free;
	int32		id;
	text	   *str;
	HeapTuple	tup;
	bool		ours;

	CHECK_FOR_INTERRUPTS();
	if (!index_getnext_slot(s->scan, ForwardScanDirection, s->slot))
		return NULL;
	id = DatumGetInt32(slot_getattr(s->slot, 1, &isnull));
	if (cached_id(s->d, id) != NULL)
		return cached_id(s->d, id);
	str = DatumGetTextPP(slot_getattr(s->slot, 2, &isnull));
	tup = ExecFetchSlotHeapTuple(s->slot, false, &should_free);
	ours = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup->t_data));
	/* what the dictionary holds is input: Argo never writes these */
	if (id <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("key dictionary \"%s\" holds key id %d",
						RelationGetRelationName(s->rel), id)));
	if (VARSIZE_ANY_EXHDR(str) > ARGO_MAX_KEY_BYTES + 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("key dictionary \"%s\" holds a key of %zu bytes, longer than Argo writes",
						RelationGetRelationName(s->rel), VARSIZE_ANY_EXHDR(str))));
	return dict_add(s->d, id, VARDATA_ANY(str), VARSIZE_ANY_EXHDR(str), ours);
}

static void
text_key(ScanKey key, StrategyNumber strategy, RegProcedure proc, const char *s)
{
	ScanKeyEntryInitialize(key, 0, 1, strategy, InvalidOid, C_COLLATION_OID,
						   proc, CStringGetTextDatum(s));
}

/*
 * The transaction, still running, that is adding key id to the
 * dictionary; InvalidTransactionId if none is.  A dirty snapshot sees
 * rows of transactions in progress and names their inserter.
 */
static TransactionId
key_inserter(KeyDict *d, int32 id)
{
	Relation	rel = table_open(d->relid, AccessShareLock);
	Relation	index = index_open(d->id_index, AccessShareLock);
	SnapshotData dirty;
	IndexScanDesc scan;
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	ScanKeyData key;
	TransactionId xid = InvalidTransactionId;

	InitDirtySnapshot(dirty);
	scan = index_beginscan(rel, index, &dirty, 1, 0);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(id));
	index_rescan(scan, &key, 1, NULL, 0);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
		xid = dirty.xmin;
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(index, NoLock);
	table_close(rel, NoLock);
	return xid;
}

/* The key with this id, read through the dictionary's index; NULL if none. */
static ArgoKey *
read_id(KeyDict *d, int32 id)
{
	DictScan	s;
	ScanKeyData key;
	ArgoKey    *k;

	dictscan_begin(&s, d, d->id_index, 1);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(id));
	index_rescan(s.scan, &key, 1, NULL, 0);
	k = dictscan_next(&s);
	dictscan_end(&s);
	return k;
}

/*
 * The key with this id.  A row can name an id its dictionary does not
 * show yet only when the row committed before the key: a distributed
 * collection's shards commit (postgres_fdw) before its coordinator,
 * whose dictionary the key is added to.  Its writer is committing, so
 * wait for it, as a unique index waits for a row in progress, and read
 * again.  An id no row of the dictionary has then is corruption.
 */
const ArgoKey *
keydict_get(KeyDict *d, int32 id)
{
	ArgoKey    *k;
	TransactionId writer;

	if (cached_id(d, id) != NULL)
		return cached_id(d, id);
	k = read_id(d, id);
	if (k == NULL && !IsInParallelMode() &&
		TransactionIdIsValid(writer = key_inserter(d, id)))
	{
		XactLockTableWait(writer, NULL, NULL, XLTW_None);
		k = read_id(d, id);
	}
	if (k == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("key id %d is not in key dictionary %u", id, d->relid)));
	return k;
}

/* Whether the dictionary has a key of this id (no waiting, no error). */
bool
keydict_knows(KeyDict *d, int32 id)
{
	return cached_id(d, id) != NULL || read_id(d, id) != NULL;
}

static ArgoKey *
cached(KeyDict *d, const char *str)
{
	StrEntry   *e = hash_search(d->by_str, &str, HASH_FIND, NULL);

	return e ? e->key : NULL;
}

/* The id of a key, or 0 (no key has it) when the collection never had it. */
int32
keydict_find(KeyDict *d, const char *keystr)
{
	ArgoKey    *k = cached(d, keystr);
	DictScan	s;
	ScanKeyData key;

	if (k != NULL)
		return k->id;
	dictscan_begin(&s, d, d->str_index, 1);
	text_key(&key, BTEqualStrategyNumber, F_TEXTEQ, keystr);
	index_rescan(s.scan, &key, 1, NULL, 0);
	k = dictscan_next(&s);
	dictscan_end(&s);
	return k ? k->id : 0;
}

/* Ids of the keys in [lo, hi), in key order. */
static List *
range_ids(KeyDict *d, const char *lo, const char *hi)
{
	DictScan	s;
	ScanKeyData keys[2];
	ArgoKey    *k;
	List	   *ids = NIL;

	dictscan_begin(&s, d, d->str_index, 2);
	text_key(&keys[0], BTGreaterEqualStrategyNumber, F_TEXT_GE, lo);
	text_key(&keys[1], BTLessStrategyNumber, F_TEXT_LT, hi);
	index_rescan(s.scan, keys, 2, NULL, 0);
	while ((k = dictscan_next(&s)) != NULL)
		ids = lappend(ids, k);
	dictscan_end(&s);
	return ids;
}

static List *
prefix_keys(KeyDict *d, const char *prefix)
{
	return range_ids(d, prefix, keypath_prefix_upper(prefix));
}

/*
 * Keys in the subtree at keystr: the key itself, its descendants
 * ("k.x", "k[i]…") and the markers of an empty container ("k{}", "k[]").
 * The three kinds of descendant lie between "k." and "k|" (the index
 * orders bytes), so one range scan finds them, the keys between them that
 * only begin with k ("k\.x", "kx") left out: a projection asks this of
 * every path it names, and three scans a path were a tenth of BG's
 * statements.
 */
List *
keydict_subtree(KeyDict *d, const char *keystr)
{
	List	   *keys = NIL;
	int32		self = keydict_find(d, keystr);
	size_t		len = strlen(keystr);
	ListCell   *lc;

	if (self != 0)
		keys = lappend(keys, (void *) keydict_get(d, self));
	foreach(lc, range_ids(d, psprintf("%s.", keystr), psprintf("%s|", keystr)))
	{
		ArgoKey    *k = lfirst(lc);
		char		next = k->str[len];

		if (next == '.' || next == '[' || next == '{')
			keys = lappend(keys, k);
	}
	return keys;
}

/* Keys starting with keystr"[": everything inside the array at keystr. */
List *
keydict_in_array(KeyDict *d, const char *keystr)
{
	return prefix_keys(d, psprintf("%s[", keystr));
}

/* The direct elements keystr[i] of the array at keystr. */
List *
keydict_elements(KeyDict *d, const char *keystr)
{
	List	   *out = NIL;
	ListCell   *lc;
	int			plen = strlen(keystr);

	foreach(lc, keydict_in_array(d, keystr))
	{
		ArgoKey    *k = lfirst(lc);
		const char *rest = k->str + plen;
		int			digits = strspn(rest + 1, "0123456789");

		if (digits > 0 && rest[1 + digits] == ']' && rest[2 + digits] == '\0')
			out = lappend(out, k);
	}
	return out;
}

/*
 * The keys a path with [*] reaches: those under prefix (the steps before
 * its first [*]) whose segments match its pattern, exactly (the values
 * reached) or with subtree also the keys under each such value.  In key
 * order.
 */
List *
keydict_match(KeyDict *d, const char *prefix, const KeySeg *pattern, int nsegs,
			  bool subtree)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, keydict_in_array(d, prefix))
	{
		ArgoKey    *k = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		if (keypath_matches(k->segs, k->nsegs, pattern, nsegs, subtree))
			out = lappend(out, k);
	}
	return out;
}

/* A list of keys as an int4[] of their ids. */
Datum
keydict_id_array(List *keys)
{
	Datum	   *ids = palloc(sizeof(Datum) * Max(list_length(keys), 1));
	ListCell   *lc;

	foreach(lc, keys)
		ids[foreach_current_index(lc)] = Int32GetDatum(((ArgoKey *) lfirst(lc))->id);
	return PointerGetDatum(construct_array(ids, list_length(keys), INT4OID,
										   sizeof(int32), true, TYPALIGN_INT));
}

static int
cstring_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * Add the missing keys among keys[0..n) to the dictionary, in one
 * statement.  Sorted, so that two sessions adding the same new keys wait
 * for each other in the same order instead of deadlocking.
 */
static void
insert_missing(ArgoCollection *c, char **missing, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * n);
	Oid			type = TEXTARRAYOID;
	Datum		arr;
	char	   *sql;

	qsort(missing, n, sizeof(char *), cstring_cmp);
	for (int i = 0; i < n; i++)
		elems[i] = CStringGetTextDatum(missing[i]);
	arr = PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
	sql = psprintf("INSERT INTO %s (keystr) SELECT pg_catalog.unnest($1) ON CONFLICT (keystr) DO NOTHING",
				   c->keys_table);
	if (SPI_execute_with_args(sql, 1, &type, &arr, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not add keys to collection \"%s\"", c->name);
	CommandCounterIncrement();
}

/* A key a shard's part of a write met that its copy lacks: see missing_keys. */
static void
note_missing(const char *key)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);

	missing_keys = lappend(missing_keys, pstrdup(key));
	MemoryContextSwitchTo(old);
}

/* The keys met so far that the copy lacks, forgotten here. */
List *
keydict_take_missing(void)
{
	List	   *keys = missing_keys;

	missing_keys = NIL;
	return keys;
}

/*
 * The ids of keys[0..n) a shard's dictionary must have: its copy of the
 * coordinator's, written before the objects were sent.  A key it lacks
 * would get an id of the shard's own, which the coordinator's is not.
 */
void
keydict_assign_existing(ArgoCollection *c, char **keys, int n, int32 *ids)
{
	KeyDict    *d = keydict_of(c);

	for (int i = 0; i < n; i++)
		if ((ids[i] = keydict_find(d, keys[i])) == 0 && c->keys_copied)
			note_missing(keys[i]);
	if (missing_keys != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("keys are not in this shard's copy of the dictionary of \"%s\"", c->name)));
	for (int i = 0; i < n; i++)
		if (ids[i] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("key \"%s\" is not in this shard's copy of the dictionary of \"%s\"",
							keys[i], c->name),
					 errhint("argo_repair('%s') on the coordinator copies the dictionary to its shards.",
							 c->name)));
}

/*
 * The ids of the distinct keys[0..n), adding the ones the dictionary
 * lacks.  Not to be called while an SPI statement is running (it may run
 * one).
 */
void
keydict_assign(ArgoCollection *c, char **keys, int n, int32 *ids)
{
	KeyDict    *d = keydict_of(c);
	char	  **missing = palloc(sizeof(char *) * Max(n, 1));
	int			nmissing = 0;

	/* look them up first: most keys exist already */
	for (int i = 0; i < n; i++)
		if ((ids[i] = keydict_find(d, keys[i])) == 0)
			missing[nmissing++] = keys[i];
	if (nmissing == 0)
		return;
	insert_missing(c, missing, nmissing);
	for (int i = 0; i < n; i++)
	{
		if (ids[i] != 0)
			continue;
		ids[i] = keydict_find(d, keys[i]);
		if (ids[i] == 0)
			elog(ERROR, "key \"%s\" was added but cannot be found", keys[i]);
	}
	/* a shard runs its part of a statement with its copy of the dictionary */
	if (collection_is_distributed(c))
	{
		int32	   *missing_ids = palloc(sizeof(int32) * nmissing);

		for (int i = 0; i < nmissing; i++)
			missing_ids[i] = keydict_find(d, missing[i]);
		shardconn_copy_keys(c, nmissing, missing_ids, missing);
	}
}
