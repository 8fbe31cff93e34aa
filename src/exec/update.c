/*
 * update.c — UPDATE c SET p = json, … UNSET p, … [WHERE pred].
 *
 * The matching objects are locked in id order (objlock.c), read back after
 * their locks are granted, changed with PostgreSQL's own jsonb_set and
 * jsonb_delete_path (after creating missing intermediate objects and
 * arrays), and only the rows that differ are deleted and inserted:
 * writers of different objects run in parallel, writers of one object
 * take turns and each starts from the other's result.
 *
 * On a plain local collection all of it happens from C (objwrite.c): the
 * rows read are logged with their tids, the changed ones deleted by tid,
 * the new ones inserted as COPY would, and each directory row rewritten
 * with its object's new map.  Otherwise through SQL, the maps forgotten.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/feed.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "store/objwrite.h"
#include "store/rowbatch.h"
#include "store/rowmap.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/plan.h"
#include "exec/results.h"
#include "exec/stream.h"
#include "exec/update.h"

#define UPDATE_BATCH 1000

typedef struct Updater
{
	ArgoQuery  *q;
	ArgoCollection *coll;
	MemoryContext cxt;			/* one batch's objects and rows */
	int64		ids[UPDATE_BATCH];
	Jsonb	   *docs[UPDATE_BATCH];
	Jsonb	   *after[UPDATE_BATCH];	/* the objects changed */
	int			n;
	int64		total;
	FeedMode	feed;
	bool		before_change;	/* its events carry the object before */
	result_emit emit;			/* RETURNING *: each object changed */
	void	   *arg;
	int64	   *changed;		/* RETURNING ID: the ids changed, in keep */
	MemoryContext keep;			/* the statement's memory, past every batch */
	int			nchanged;
	int			maxchanged;
	DocPath    *touched;		/* the top-level keys the SET list changes */
	int			ntouched;
	Jsonb	   *schema;			/* what a changed object must satisfy (argo_validate), or NULL */
} Updater;

/* The ids of objects changed, kept for RETURNING ID. */
static void
remember_changed(Updater *u, const int64 *ids, int n)
{
	if (u->q->stmt->returning != ARET_IDS)
		return;
	if (u->nchanged + n > u->maxchanged)
	{
		u->maxchanged = Max(u->maxchanged * 2, u->nchanged + n + 16);
		/* called inside a batch's memory, which is reset after it */
		u->changed = u->changed ? repalloc_huge(u->changed, sizeof(int64) * u->maxchanged) :
			MemoryContextAllocHuge(u->keep, sizeof(int64) * u->maxchanged);
	}
	memcpy(u->changed + u->nchanged, ids, sizeof(int64) * n);
	u->nchanged += n;
}

/* A batch changed: its objects for RETURNING * (as updated), or their ids. */
static void
returning_batch(Updater *u)
{
	if (u->q->stmt->returning == ARET_OBJECTS)
		for (int i = 0; i < u->n; i++)
			argo_emit_written(u->q->stmt, u->emit, u->arg, u->ids[i], u->after[i]);
	remember_changed(u, u->ids, u->n);
}

/* An object read back under its lock, copied: the rebuilder reuses its memory. */
static void
update_take_object(void *arg, int64 objid, Jsonb *obj)
{
	Updater    *u = arg;

	u->ids[u->n] = objid;
	u->docs[u->n] = MemoryContextAlloc(u->cxt, VARSIZE(obj));
	memcpy(u->docs[u->n], obj, VARSIZE(obj));
	u->n++;
}

/*
 * The locked objects' current rows, rebuilt into u->ids/u->docs; with a
 * log, each row read is logged with its tid.
 */
static void
read_locked(Updater *u, const int64 *ids, int n, RowLog *log)
{
	ArgoCollection *c = u->coll;
	Rebuilder  *rb = rebuilder_create(keydict_of(c), update_take_object, u);
	ObjFetch   *f;

	/* after the locks: a snapshot that sees every earlier writer's commit */
	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	f = objfetch_open(c, NIL, false, false);
	if (f != NULL)
	{
		if (log != NULL)
			objfetch_log_rows(f, log);
		for (int i = 0; i < n; i++)
			objfetch_object(f, ids[i], rb);
		rebuilder_finish(rb);
		objfetch_close(f);
	}
	else if (log == NULL)
		argo_rebuild_from_query(sqlgen_rows_of_ids(c, ids, n), rb);
	else
		elog(ERROR, "a collection written from C cannot be read from C");
	PopActiveSnapshot();
}

/* The object an error raised while changing it is about: its ID(). */
static void
object_errcontext(void *arg)
{
	errcontext("changing the object with ID() " INT64_FORMAT, *(int64 *) arg);
}

/*
 * The top-level keys a SET list changes (each path's first key), as
 * one-step paths for doc_project; NULL when a path has none.
 */
static DocPath *
touched_members(List *sets, int *n)
{
	DocPath    *out = palloc0(sizeof(DocPath) * Max(list_length(sets), 1));
	ListCell   *lc;

	*n = 0;
	foreach(lc, sets)
	{
		ArgoPath   *path = ((ArgoSetItem *) lfirst(lc))->path;
		ArgoStep   *first;
		char	   *key;
		bool		seen = false;

		if (path->id || path->nsegs <= 0)
			return NULL;
		/* the first step after the alias, if the path starts with it */
		first = list_nth(path->steps, list_length(path->steps) - path->nsegs);
		if (first->is_index || first->is_wild || first->key == NULL)
			return NULL;
		key = first->key;
		for (int i = 0; i < *n; i++)
			seen |= strcmp(out[i].keys[0], key) == 0;
		if (seen)
			continue;
		out[*n].nsteps = 1;
		out[*n].keys = palloc(sizeof(char *));
		out[*n].keys[0] = key;
		(*n)++;
	}
	return *n > 0 ? out : NULL;
}

/*
 * The rows of the object and of its changed version to compare: those
 * of the members the SET list touches, where both versions have some
 * member (an object with none has a row saying so, which comparing only
 * some members would get wrong).  The others are the same in both: an
 * update of one array of BG's members decomposed all ~130 leaves twice.
 */
static void
add_compared(Updater *u, int64 objid, Jsonb *doc, Jsonb *changed,
			 RowBatch *before, RowBatch *after)
{
	if (u->touched != NULL && JB_ROOT_COUNT(doc) > 0 && JB_ROOT_COUNT(changed) > 0)
	{
		doc = doc_project(doc, u->touched, u->ntouched);
		changed = doc_project(changed, u->touched, u->ntouched);
	}
	if (doc != NULL)
		rowbatch_add_object(before, objid, doc);
	if (changed != NULL)
		rowbatch_add_object(after, objid, changed);
}

/*
 * Read the locked objects (logging their rows' tids when log is given),
 * apply the SET list, and leave in before and after only the rows that
 * differ: what to delete and what to insert.
 */
static void
change_objects(Updater *u, const int64 *ids, int n, RowLog *log,
			   RowBatch *before, RowBatch *after)
{
	int64		objid = 0;
	ErrorContextCallback cb = {error_context_stack, object_errcontext, &objid};
	int			kept = 0;

	rowbatch_hold(before);
	rowbatch_hold(after);
	u->n = 0;
	read_locked(u, ids, n, log);
	error_context_stack = &cb;
	for (int i = 0; i < u->n; i++)
	{
		bool		applied;
		Jsonb	   *changed;

		CHECK_FOR_INTERRUPTS();
		objid = u->ids[i];
		changed = argo_apply_changes(u->docs[i], u->q->stmt->sets, &applied);
		/* a change through a filter that kept no element: not updated */
		if (applied)
		{
			collection_check_object(u->coll, u->schema, changed);
			keyflags_check_object(u->coll, changed);
			u->ids[kept] = u->ids[i];
			u->docs[kept] = u->docs[i];
			u->after[kept] = changed;
			add_compared(u, u->ids[kept], u->docs[kept], u->after[kept], before, after);
			kept++;
		}
	}
	u->n = kept;
	error_context_stack = cb.previous;
	rowbatch_drop_common(before, after);
}

/* The batch's events for the change feed, after its directory rows changed. */
static void
log_updates(Updater *u)
{
	for (int i = 0; u->feed != FEED_OFF && i < u->n; i++)
		feed_log_update(u->coll, u->feed, u->before_change, u->ids[i], u->docs[i], u->after[i]);
}

/*
 * Change the locked objects: rebuild, apply the changes, and write only
 * the rows that differ.
 */
static void
update_batch(Updater *u, const int64 *ids, int n)
{
	MemoryContext old = MemoryContextSwitchTo(u->cxt);
	RowBatch   *before = rowbatch_create(u->coll, false);
	RowBatch   *after = rowbatch_create(u->coll, false);

	change_objects(u, ids, n, NULL, before, after);
	rowbatch_delete(before);
	rowbatch_flush(after);
	log_updates(u);
	returning_batch(u);
	u->total += u->n;
	MemoryContextSwitchTo(old);
	MemoryContextReset(u->cxt);
}

/* Logged rows by object, table, key; then by tid. */
static int
logged_cmp(const void *x, const void *y)
{
	const LoggedRow *a = x;
	const LoggedRow *b = y;

	if (a->objid != b->objid)
		return a->objid < b->objid ? -1 : 1;
	if (a->table != b->table)
		return a->table - b->table;
	if (a->keyid != b->keyid)
		return a->keyid < b->keyid ? -1 : 1;
	return ItemPointerCompare((ItemPointer) &a->tid, (ItemPointer) &b->tid);
}

/* The first logged row of (objid, table, keyid) in the sorted log, or -1. */
static int
logged_find(RowLog *log, int64 objid, int table, int32 keyid)
{
	int			lo = 0,
				hi = log->n;
	LoggedRow	want = {objid, keyid, (int16) table};

	ItemPointerSetInvalid(&want.tid);
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		LoggedRow  *r = &log->rows[mid];
		int			c = r->objid != objid ? (r->objid < objid ? -1 : 1) :
			r->table != table ? r->table - table :
			r->keyid != keyid ? (r->keyid < keyid ? -1 : 1) : 0;

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < log->n && log->rows[lo].objid == objid &&
		log->rows[lo].table == table && log->rows[lo].keyid == keyid ? lo : -1;
}

/*
 * Delete the rows left in before (what changed) by the tids the read
 * logged (every row of that key, should there be more than one), and
 * mark them gone in the log.
 */
static void
delete_changed(ObjWriter *w, RowBatch *before, RowLog *log, int ntables)
{
	qsort(log->rows, log->n, sizeof(LoggedRow), logged_cmp);
	for (int t = 0; t < ntables; t++)
	{
		int64	   *objids;
		int32	   *keyids;
		int			n = rowbatch_pairs(before, t, &objids, &keyids);
		ItemPointerData *tids = palloc(sizeof(ItemPointerData) * Max(n, 1));
		int			ntids = 0;

		for (int i = 0; i < n; i++)
		{
			int			at = logged_find(log, objids[i], t, keyids[i]);

			for (; at >= 0 && at < log->n && log->rows[at].objid == objids[i] &&
				 log->rows[at].table == t && log->rows[at].keyid == keyids[i]; at++)
			{
				if (log->rows[at].gone)
					continue;
				log->rows[at].gone = true;
				if (ntids == n)
					tids = repalloc(tids, sizeof(ItemPointerData) * (ntids *= 2));
				tids[ntids++] = log->rows[at].tid;
			}
		}
		objwriter_delete_rows(w, t, tids, ntids);
	}
	rowbatch_clear(before);
}

/*
 * Rewrite each object's directory row with the map of its rows now: those
 * read and not deleted, and those inserted (log); no map when some rows
 * went through SQL (known is false).
 */
static void
write_maps(ObjWriter *w, Updater *u, RowLog *log, int ntables, bool known)
{
	int			at = 0;

	qsort(log->rows, log->n, sizeof(LoggedRow), logged_cmp);
	for (int i = 0; i < u->n; i++)
	{
		int64		objid = u->ids[i];
		ItemPointerData *tids[ROWMAP_MAX_TABLES];
		int			n[ROWMAP_MAX_TABLES] = {0};

		int			end;

		while (at < log->n && log->rows[at].objid < objid)
			at++;
		for (end = at; end < log->n && log->rows[end].objid == objid; end++)
			;
		for (int t = 0; t < ntables; t++)
			tids[t] = palloc(sizeof(ItemPointerData) * Max(end - at, 1));
		for (; at < end; at++)
			if (!log->rows[at].gone)
				tids[log->rows[at].table][n[log->rows[at].table]++] = log->rows[at].tid;
		objwriter_set_map(w, objid, known ?
						  rowmap_encode(objwriter_epoch(w), ntables, tids, n) : NULL);
	}
}

/*
 * Each changed object's kept document, before its new rows, which keep
 * where it lies (rows that then go through SQL have it forgotten).
 */
static void
put_docs(ObjWriter *w, Updater *u, RowBatch *after)
{
	ItemPointerData *tids;

	if (!objwriter_keeps_docs(w))
		return;
	tids = palloc(sizeof(ItemPointerData) * Max(u->n, 1));
	for (int i = 0; i < u->n; i++)
		tids[i] = objwriter_put_doc(w, u->ids[i], u->after[i]);
	/* read in id order (objlock.c locks them so) */
	rowbatch_set_doc_tids(after, u->ids, tids, u->n);
}

/* The same as update_batch, every write from C by w. */
static void
update_batch_direct(Updater *u, ObjWriter *w, const int64 *ids, int n)
{
	MemoryContext old = MemoryContextSwitchTo(u->cxt);
	RowBatch   *before = rowbatch_create(u->coll, false);
	RowBatch   *after = rowbatch_create(u->coll, false);
	int			ntables = u->coll->format == ARGO_FORMAT_ARGO1 ? 1 : 3;
	RowLog		log = {0};
	bool		known;

	change_objects(u, ids, n, &log, before, after);
	delete_changed(w, before, &log, ntables);
	put_docs(w, u, after);
	known = rowbatch_flush_logged(after, &log);
	write_maps(w, u, &log, ntables, known);
	log_updates(u);
	returning_batch(u);
	u->total += u->n;
	MemoryContextSwitchTo(old);
	MemoryContextReset(u->cxt);
}

/* UPSERT's WHERE: path = literal terms, alone or joined by AND. */
static List *
upsert_terms(ArgoPred *where)
{
	List	   *terms = where == NULL ? NIL :
		where->kind == APRED_AND ? where->args : list_make1(where);
	ListCell   *lc;

	foreach(lc, terms)
	{
		ArgoPred   *p = lfirst(lc);

		if (p->kind != APRED_CMP || p->op != ACMP_EQ || p->path->wild || p->path->filtered)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("UPSERT needs a WHERE of path = value terms joined by AND"),
					 errhint("The object it inserts when none matches is built from them.")));
	}
	return terms;
}

/*
 * Upserts of the same terms into one collection take turns (a lock held
 * to commit, taken before the objects are looked for), so two cannot
 * both insert.  A transaction snapshot cannot see what the other
 * inserted: having waited, it fails with 40001 instead.
 */
/* UPDATE on the directory, which every write of an object needs (objlock.c). */
static void
check_may_update(ArgoCollection *c)
{
	Relation	rel = argo_open_table(c, "obj");
	AclResult	acl = pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_UPDATE);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, RelationGetRelationName(rel));
	table_close(rel, NoLock);
}

static void
lock_upsert(const char *coll, List *terms)
{
	StringInfoData key;
	LOCKTAG		tag;
	ListCell   *lc;

	initStringInfo(&key);
	foreach(lc, terms)
	{
		ArgoPred   *p = lfirst(lc);
		Jsonb	   *v = literal_to_jsonb(p->lit);

		appendStringInfoString(&key, p->path->keystr);
		appendStringInfoChar(&key, '\0');
		appendBinaryStringInfo(&key, (char *) v, VARSIZE(v));
	}
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId,
						 DatumGetUInt32(hash_any((unsigned char *) coll, strlen(coll))),
						 DatumGetUInt32(hash_any((unsigned char *) key.data, key.len)),
						 ARGO_UPSERT_LOCK_SPACE);
	if (LockAcquire(&tag, ExclusiveLock, false, true) != LOCKACQUIRE_NOT_AVAIL)
		return;
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to a concurrent upsert of the same object")));
}

static void
upsert_errcontext(void *arg)
{
	errcontext("the object the UPSERT inserts, ID() " INT64_FORMAT, *(int64 *) arg);
}

/*
 * Nothing matched: the object of WHERE's terms, changed by the SET list;
 * its id and the object are given back for RETURNING.
 */
static int64
upsert_insert(ArgoQuery *q, List *terms, Jsonb **inserted)
{
	ArgoCollection *c = linitial(q->colls);
	Jsonb	   *doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	RowBatch   *rows;
	ListCell   *lc;
	int64		id;
	ErrorContextCallback cb = {error_context_stack, upsert_errcontext, NULL};

	foreach(lc, terms)
	{
		ArgoPred   *p = lfirst(lc);

		doc = argo_apply_set(doc, p->path, literal_to_jsonb(p->lit));
	}
	/* then ON INSERT SET, which wins where both name a path */
	doc = argo_apply_changes(doc, list_concat_copy(q->stmt->sets, q->stmt->insert_sets), NULL);
	if (c == NULL)
		c = collection_open_for_insert(((ArgoSource *) linitial(q->stmt->from))->coll);
	rows = rowbatch_create(c, true);
	id = argo_next_objids(c, 1)[0];
	cb.arg = &id;
	error_context_stack = &cb;
	rowbatch_add_object(rows, id, doc);
	error_context_stack = cb.previous;
	rowbatch_flush(rows);
	*inserted = doc;
	return id;
}

/*
 * What the statement returns: {"updated": n} (an UPSERT's with
 * "inserted"), with RETURNING ID the ids changed too, in id order; with
 * RETURNING * the objects were emitted as each batch changed them.
 */
static void
emit_result(Updater *u, result_emit emit, void *arg, int64 inserted)
{
	ArgoStmt   *s = u->q->stmt;

	if (s->returning == ARET_OBJECTS)
		return;
	if (s->returning == ARET_IDS)
		emit(arg, 0, argo_upsert_ids_result(u->changed, u->nchanged, u->total,
										 s->upsert ? inserted : -1));
	else if (s->upsert)
		emit(arg, 0, argo_counts_result("updated", u->total, "inserted", inserted));
	else
		emit(arg, 0, argo_count_result("updated", u->total));
}

/* An UPSERT that inserted: its object, or its id among the changed. */
static void
upserted(Updater *u, int64 id, Jsonb *doc, result_emit emit, void *arg)
{
	if (u->q->stmt->returning == ARET_OBJECTS)
		argo_emit_written(u->q->stmt, emit, arg, id, doc);
	remember_changed(u, &id, 1);
}

/*
 * An UPSERT into a collection that did not exist when it was analysed may
 * have waited for one that made it (and its object): having the lock, it
 * looks again, and if the collection is there now runs as if it had been
 * there all along, analysed anew against it.  Whether it did.
 */
static bool
upsert_found_collection(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoPlan   *p;

	/* what the lock's holder made is then in the caches (as lmgr.c does) */
	AcceptInvalidationMessages();
	if (collection_lookup(((ArgoSource *) linitial(q->stmt->from))->coll, true, RowExclusiveLock) == NULL)
		return false;
	p = argo_plan(argo_analyze(argo_parse(q->text), q->text, q->params, q->nparams));
	if (linitial(p->q->colls) == NULL)
		elog(ERROR, "collection vanished under an UPSERT's lock");
	run_update(p, emit, arg);
	argo_plan_close(p);
	return true;
}

/* UPDATE (UPSERT): see emit_result */
void
run_update(ArgoPlan *p, result_emit emit, void *arg)
{
	ArgoQuery  *q = p->q;
	Updater		u = {q, linitial(q->colls)};
	ArgoPred   *where = q->stmt->where;
	List	   *terms = NIL;
	LockedObjects *lo;
	ObjWriter  *w;
	Jsonb	   *doc;
	int64		id;

	u.emit = emit;
	u.arg = arg;
	u.keep = CurrentMemoryContext;
	if (q->stmt->upsert)
	{
		terms = upsert_terms(where);
		/* the lock makes other UPSERTs wait: only for who may write */
		if (u.coll == NULL)
			collection_check_may_create();
		else
			check_may_update(u.coll);
		lock_upsert(((ArgoSource *) linitial(q->stmt->from))->coll, terms);
		if (u.coll == NULL && upsert_found_collection(q, emit, arg))
			return;
		if (u.coll == NULL)
		{
			id = upsert_insert(q, terms, &doc);
			upserted(&u, id, doc, emit, arg);
			emit_result(&u, emit, arg, 1);
			return;
		}
	}
	u.cxt = AllocSetContextCreate(CurrentMemoryContext, "argo update",
								  ALLOCSET_DEFAULT_SIZES);
	u.feed = feed_mode(u.coll);
	u.touched = touched_members(q->stmt->sets, &u.ntouched);
	u.schema = u.coll != NULL ? collection_schema(u.coll) : NULL;
	u.before_change = u.feed != FEED_OFF && feed_before_change(u.coll);
	w = objwriter_open(u.coll, ACL_UPDATE);
	lo = w ? objlock_take_direct(u.coll, where, p->point, w) :
		collection_is_distributed(u.coll) ? objlock_take_distributed(u.coll, where) :
		objlock_take(u.coll, where, p->point, true);
	objlock_recheck(u.coll, where, w ? p->point : NULL, lo);
	for (int i = 0; i < lo->n; i += UPDATE_BATCH)
	{
		if (w)
			update_batch_direct(&u, w, lo->ids + i, Min(UPDATE_BATCH, lo->n - i));
		else
			update_batch(&u, lo->ids + i, Min(UPDATE_BATCH, lo->n - i));
	}
	if (w)
		objwriter_close(w);
	if (q->stmt->upsert && u.total == 0)
	{
		id = upsert_insert(q, terms, &doc);
		upserted(&u, id, doc, emit, arg);
		emit_result(&u, emit, arg, 1);
		return;
	}
	emit_result(&u, emit, arg, 0);
}
