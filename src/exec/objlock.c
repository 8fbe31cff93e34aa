/*
 * objlock.c — per-object write locks.
 *
 * An UPDATE or DELETE locks the directory rows of the objects it changes,
 * in object id order, and holds them to commit: writers of different
 * objects never wait for each other, writers of one object take turns,
 * and statements that lock several objects take them in one order, so
 * they cannot deadlock with each other.
 *
 * An UPDATE also updates the directory rows it locked (to themselves): a
 * new row version is what PostgreSQL's REPEATABLE READ and SERIALIZABLE
 * check, so a transaction that would overwrite a change it cannot see
 * fails with 40001 instead (a DELETE deletes them, to the same effect).
 * The version each lock found tells whether the object changed after the
 * statement's snapshot; in READ COMMITTED such objects are read again and
 * kept only if they still match WHERE, as PostgreSQL's own UPDATE
 * re-evaluates a row that changed while it waited.
 *
 * On a plain local collection the locks are taken from C (objwrite.c),
 * each directory row then rewritten with its object's new map; through
 * SQL (lock and touch in one statement) where the tables need SQL.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "common/ids.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/objwrite.h"
#include "store/rowmap.h"
#include "store/shard/shard.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "sql/writesql.h"
#include "exec/lookup.h"
#include "exec/update.h"

/*
 * The statement that locks; for a point write (point, from argo_plan),
 * with the ids the lookup finds now.
 */
SqlBuf *
objlock_sql(ArgoCollection *c, ArgoPred *where, ArgoPred *point, bool touch)
{
	int64	   *ids = NULL;
	int			n = 0;

	if (point != NULL)
		ids = lookup_ids(c, point, GetActiveSnapshot(), &n);
	return writesql_lock(c, where, touch, ids, n);
}

/* Whether a lock found a row version the snapshot does not see. */
static bool
changed_since(TransactionId xmin, Snapshot snap)
{
	if (!TransactionIdIsNormal(xmin) || TransactionIdIsCurrentTransactionId(xmin))
		return false;
	return XidInMVCCSnapshot(xmin, snap);
}

/*
 * Row-level security on any table of the collection refuses the write,
 * before anything is locked or changed: a policy that hides some of an
 * object's rows from the statement, or lets it insert rows but not
 * delete them, would leave the object in a state no statement could have
 * produced (two values for one key, a delete that deletes nothing).
 */
static void
refuse_rls(ArgoCollection *c)
{
	static const char *const argo3[] = {"str", "num", "bool", "keys", "obj"};
	static const char *const argo1[] = {"data", "keys", "obj"};
	bool		is1 = c->format == ARGO_FORMAT_ARGO1;
	const char *const *suffixes = is1 ? argo1 : argo3;
	int			n = is1 ? lengthof(argo1) : lengthof(argo3);

	for (int i = 0; i < n; i++)
	{
		Relation	rel = argo_open_table(c, suffixes[i]);
		bool		rls = argo_rls_applies(rel);
		char	   *name = RelationGetRelationName(rel);

		table_close(rel, NoLock);
		if (rls)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("row-level security on table \"%s\" is not supported by UPDATE, UPSERT or DELETE",
							name),
					 errdetail("Argo changes whole objects; a policy that filters some of an object's rows would leave it half changed."),
					 errhint("Read and insert under row-level security; change objects as a role the policies do not apply to (the tables' owner, or one with BYPASSRLS).")));
	}
}

/*
 * Lock the objects WHERE selects; their ids in order.  *changed: some of
 * them changed after the snapshot the locks were taken with.
 */
LockedObjects *
objlock_take(ArgoCollection *c, ArgoPred *where, ArgoPred *point, bool touch)
{
	LockedObjects *lo = palloc0(sizeof(LockedObjects));
	int64	   *ids = NULL;
	int			n = 0;
	SqlBuf	   *buf;
	Snapshot	snap;
	int			rc;

	refuse_rls(c);
	CommandCounterIncrement();
	snap = RegisterSnapshot(GetTransactionSnapshot());
	/* a point write finds its object from C, with the locks' snapshot */
	if (point != NULL)
		ids = lookup_ids(c, point, snap, &n);
	if (ids != NULL && n == 0)
	{
		UnregisterSnapshot(snap);
		lo->ids = ids;
		return lo;
	}
	buf = writesql_lock(c, where, touch, ids, n);
	rc = argo_run_snapshot(buf, snap);
	if (rc != (touch ? SPI_OK_UPDATE_RETURNING : SPI_OK_SELECT))
		elog(ERROR, "could not lock objects: %s", SPI_result_code_string(rc));
	lo->n = (int) SPI_processed;
	lo->ids = palloc(sizeof(int64) * Max(lo->n, 1));
	for (int i = 0; i < lo->n; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		bool		isnull;

		lo->ids[i] = DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &isnull));
		lo->changed |= changed_since(DatumGetTransactionId(SPI_getbinval(tup, SPI_tuptable->tupdesc, 2, &isnull)),
									 snap);
	}
	SPI_freetuptable(SPI_tuptable);
	UnregisterSnapshot(snap);
	objid_sort(lo->ids, lo->n);
	return lo;
}

/* The ids, in order, of the objects WHERE selects under snap (SQL). */
static int64 *
ids_by_sql(ArgoCollection *c, ArgoPred *where, Snapshot snap, int *n)
{
	SqlBuf	   *buf = writesql_ordered_ids(c, where);
	int64	   *ids;
	int			rc;

	rc = argo_run_snapshot(buf, snap);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not find the objects to write: %s", SPI_result_code_string(rc));
	*n = (int) SPI_processed;
	ids = palloc(sizeof(int64) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
	return ids;
}

/*
 * The same as objlock_take, the locks taken from C by the writer w: the
 * objects found (from C for a point write, else by SQL) and each
 * directory row locked in id order.
 */
LockedObjects *
objlock_take_direct(ArgoCollection *c, ArgoPred *where, ArgoPred *point, ObjWriter *w)
{
	LockedObjects *lo = palloc0(sizeof(LockedObjects));
	int64	   *ids = NULL;
	DocHint    *hints = NULL;
	int			n = 0;
	Snapshot	snap;

	refuse_rls(c);
	CommandCounterIncrement();
	snap = RegisterSnapshot(GetTransactionSnapshot());
	/* ID() = n: the lock finds the directory row, or that there is none */
	if (point != NULL && point->kind == APRED_ID)
	{
		ids = palloc(sizeof(int64));
		ids[0] = (int64) point->lit->num;
		n = 1;
	}
	else if (point != NULL)
		ids = lookup_ids_docs(c, point, snap, 0, &n, &hints);
	if (ids == NULL)
		ids = ids_by_sql(c, where, snap, &n);
	lo->ids = palloc(sizeof(int64) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		changed;

		CHECK_FOR_INTERRUPTS();
		if (!objwriter_lock(w, ids[i], snap, &changed))
			continue;
		/* where the value row found says its document lies (checked when written) */
		if (hints != NULL)
			objwriter_hint_doc(w, ids[i], &hints[i]);
		lo->ids[lo->n++] = ids[i];
		lo->changed |= changed;
	}
	UnregisterSnapshot(snap);
	return lo;
}

/*
 * A distributed collection's objects, locked and touched by one
 * statement per shard that postgres_fdw sends whole: the ids found
 * first, then UPDATE … WHERE objid = ANY($1) RETURNING.
 * Each shard's B-tree takes the array in id order, and the shards are
 * written in partition order, so statements still lock in one order.
 * The shards run at REPEATABLE READ (postgres_fdw's rule), so an object
 * changed meanwhile is a serialization failure there, never re-checked.
 */
LockedObjects *
objlock_take_distributed(ArgoCollection *c, ArgoPred *where)
{
	LockedObjects *lo = palloc0(sizeof(LockedObjects));
	SqlBuf	   *buf;
	Snapshot	snap;
	int64	   *ids;
	int			n;
	int			rc;

	refuse_rls(c);
	collection_check_home(c);
	shardsession_note_write();
	CommandCounterIncrement();
	snap = RegisterSnapshot(GetTransactionSnapshot());
	ids = ids_by_sql(c, where, snap, &n);
	UnregisterSnapshot(snap);
	lo->ids = ids;
	if (n == 0)
		return lo;
	buf = writesql_forget_maps(c, ids, n);
	rc = argo_run(buf, false);
	if (rc != SPI_OK_UPDATE_RETURNING)
		elog(ERROR, "could not lock objects: %s", SPI_result_code_string(rc));
	lo->n = (int) SPI_processed;
	lo->ids = palloc(sizeof(int64) * Max(lo->n, 1));
	for (int i = 0; i < lo->n; i++)
	{
		bool		isnull;

		lo->ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
	objid_sort(lo->ids, lo->n);
	return lo;
}

/*
 * objlock_recheck for a WHERE the lookup answers from C (point): the ids
 * it finds under a new snapshot, kept where they were locked; false when
 * SQL must answer instead.  A hot
 * object's writers each recheck while holding its lock, so this is the
 * lock's hold time: one index descent instead of an SQL statement.
 */
static bool
recheck_point(ArgoCollection *c, ArgoPred *point, LockedObjects *lo)
{
	Snapshot	snap;
	int64	   *now;
	int			n,
				i = 0,
				kept = 0;

	CommandCounterIncrement();
	snap = RegisterSnapshot(GetTransactionSnapshot());
	now = lookup_ids(c, point, snap, &n);
	UnregisterSnapshot(snap);
	if (now == NULL)
		return false;			/* SQL must answer after all */
	/* both in id order */
	for (int j = 0; j < lo->n; j++)
	{
		while (i < n && now[i] < lo->ids[j])
			i++;
		if (i < n && now[i] == lo->ids[j])
			lo->ids[kept++] = lo->ids[j];
	}
	lo->n = kept;
	return true;
}

/*
 * READ COMMITTED, when some locked object changed after the locks'
 * snapshot: keep those that still match WHERE under a new snapshot,
 * which sees every earlier writer's commit.  (Under a transaction
 * snapshot such a change was a serialization failure already.)
 */
void
objlock_recheck(ArgoCollection *c, ArgoPred *where, ArgoPred *point, LockedObjects *lo)
{
	SqlBuf	   *buf;
	int			rc;

	if (where == NULL || !lo->changed || lo->n == 0 || IsolationUsesXactSnapshot())
		return;
	if (point != NULL && recheck_point(c, point, lo))
		return;
	buf = writesql_recheck(c, where, lo->ids, lo->n);
	rc = argo_run(buf, false);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "could not re-read locked objects: %s",
			 SPI_result_code_string(rc));
	lo->n = (int) SPI_processed;
	for (int i = 0; i < lo->n; i++)
	{
		bool		isnull;

		lo->ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
												 SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
}
