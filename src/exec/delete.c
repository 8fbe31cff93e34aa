/*
 * delete.c — DELETE: the objects the WHERE selects are locked in id
 * order, rebuilt first where RETURNING * or the change feed wants them,
 * then their rows go — from C where the tables allow (objwriter), else by
 * SQL statements of DELETE_BATCH ids each.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/feed.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "store/objwrite.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/plan.h"
#include "exec/results.h"
#include "exec/stream.h"
#include "exec/update.h"

static int64
run_count_query(SqlBuf *buf)
{
	int			rc;
	bool		isnull;

	rc = argo_run(buf, false);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "statement failed: %s", SPI_result_code_string(rc));
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull));
}

/* Objects deleted per statement: their ids are one array parameter. */
#define DELETE_BATCH 10000

/*
 * What a DELETE rebuilds before an object's rows go: for RETURNING *,
 * each object to the caller; for a feed whose events carry the object
 * before, each kept until its event is logged.
 */
typedef struct Deleting
{
	ArgoStmt   *stmt;
	EmitTarget *returning;		/* RETURNING *'s caller, or NULL */
	bool		keep;			/* the feed wants them */
	int			n;				/* kept since the last reset, in id order */
	int			max;
	int			next;			/* the next one deleting_doc looks at */
	int64	   *ids;
	Jsonb	  **docs;
} Deleting;

static void
deleting_take(void *arg, int64 objid, Jsonb *obj)
{
	Deleting   *d = arg;

	if (d->returning != NULL)
		argo_emit_written(d->stmt, d->returning->emit, d->returning->arg, objid, obj);
	if (!d->keep)
		return;
	if (d->n == d->max)
	{
		d->max = d->max ? d->max * 2 : 64;
		d->ids = d->ids ? repalloc(d->ids, sizeof(int64) * d->max) : palloc(sizeof(int64) * d->max);
		d->docs = d->docs ? repalloc(d->docs, sizeof(Jsonb *) * d->max) : palloc(sizeof(Jsonb *) * d->max);
	}
	d->ids[d->n] = objid;
	d->docs[d->n++] = obj;
}

static void
deleting_reset(Deleting *d)
{
	d->n = d->next = 0;
}

/*
 * Object id's document as rebuilt, asked for in id order; an object
 * none was rebuilt for has no rows: it is {}.
 */
static Jsonb *
deleting_doc(Deleting *d, int64 id)
{
	while (d->next < d->n && d->ids[d->next] < id)
		d->next++;
	if (d->next < d->n && d->ids[d->next] == id)
		return d->docs[d->next++];
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
}

/*
 * Delete locked objects from C: their rows found (by map or objid index)
 * and deleted by tid, then their directory rows.
 */
static int64
delete_direct(ArgoCollection *c, ObjWriter *w, const int64 *ids, int n, FeedMode feed,
			  Rebuilder *rb, Deleting *d)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "argo delete",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	RowLog		log = {0};
	ObjFetch   *f;

	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	f = objfetch_open(c, NIL, false, false);
	if (f == NULL)
		elog(ERROR, "a collection written from C cannot be read from C");
	objfetch_log_rows(f, &log);
	for (int i = 0; i < n; i++)
	{
		int			from = log.n;

		/* the object as it is deleted (rb), else only its rows' tids */
		deleting_reset(d);
		objfetch_object(f, ids[i], rb);
		if (rb != NULL)
			rebuilder_finish(rb);
		for (int r = from; r < log.n; r++)
			objwriter_delete_rows(w, log.rows[r].table, &log.rows[r].tid, 1);
		objwriter_delete_object(w, ids[i]);
		if (feed != FEED_OFF)
			feed_log_delete(c, ids[i], d->keep ? deleting_doc(d, ids[i]) : NULL);
		if (i % 1000 == 999)
			log.n = 0;
	}
	objfetch_close(f);
	PopActiveSnapshot();
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	/* what d kept lived in cxt */
	d->ids = NULL;
	d->docs = NULL;
	d->n = d->max = d->next = 0;
	return n;
}

/* The objects are locked in id order first, as an UPDATE's are (objlock.c). */
void
run_delete(ArgoPlan *p, result_emit emit, void *arg)
{
	ArgoQuery  *q = p->q;
	ArgoCollection *c = linitial(q->colls);
	ObjWriter  *w = objwriter_open(c, ACL_DELETE);
	FeedMode	feed = feed_mode(c);
	LockedObjects *lo = w ? objlock_take_direct(c, q->stmt->where, p->point, w) :
		collection_is_distributed(c) ? objlock_take_distributed(c, q->stmt->where) :
		objlock_take(c, q->stmt->where, p->point, false);
	int64		total = 0;
	EmitTarget	target = {emit, arg};
	Deleting	d = {q->stmt, q->stmt->returning == ARET_OBJECTS ? &target : NULL,
	feed != FEED_OFF && feed_before_change(c)};
	/* each object as deleted, rebuilt before its rows go */
	Rebuilder  *rb = d.returning != NULL || d.keep ?
		rebuilder_create(keydict_of(c), deleting_take, &d) : NULL;

	objlock_recheck(c, q->stmt->where, w ? p->point : NULL, lo);
	if (w)
	{
		total = delete_direct(c, w, lo->ids, lo->n, feed, rb, &d);
		objwriter_close(w);
	}
	else
		for (int i = 0; i < lo->n; i += DELETE_BATCH)
		{
			int			n = Min(DELETE_BATCH, lo->n - i);

			deleting_reset(&d);
			if (rb != NULL)
			{
				CommandCounterIncrement();
				PushActiveSnapshot(GetTransactionSnapshot());
				argo_rebuild_from_query(sqlgen_rows_of_ids(c, lo->ids + i, n), rb);
				PopActiveSnapshot();
			}
			total += run_count_query(sqlgen_delete_ids(c, lo->ids + i, n));
			for (int k = 0; feed != FEED_OFF && k < n; k++)
				feed_log_delete(c, lo->ids[i + k], d.keep ? deleting_doc(&d, lo->ids[i + k]) : NULL);
		}
	if (q->stmt->returning == ARET_IDS)
		emit(arg, 0, argo_write_ids_result("deleted", lo->ids, lo->n));
	else if (q->stmt->returning == ARET_COUNT)
		emit(arg, 0, argo_count_result("deleted", total));
}
