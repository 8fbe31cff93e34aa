/*
 * keyflags.c — the keys every object of a collection holds a scalar at:
 * the dictionary's complete column.
 *
 * ORDER BY p DESC puts first the objects with no scalar at p; proving
 * there are none took two counts over the collection (24-32 ms at 200k
 * objects) on every such statement.  The flag answers it under the
 * statement's snapshot: set exactly by argo_analyze and by a load into
 * an empty collection, each under a lock that waits for writes in
 * progress and holds back new ones; cleared, in the same transaction,
 * by any write through Argo that leaves an object without a scalar at
 * a flagged key.
 *
 * A writer reads the flags after locking the directory (RowExclusiveLock,
 * which the setters' lock conflicts with) and with the latest snapshot,
 * so that one set after its own snapshot was taken is seen too: clearing
 * that row then fails with 40001 under REPEATABLE READ, as a concurrent
 * update does.  What it read is kept until a setter or a clearer
 * commits (an invalidation of the dictionary) or a rollback.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/keypath.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "store/shard/shard.h"

typedef struct FlagKey
{
	int32		id;
	KeySeg	   *segs;
	int			nsegs;
	bool		cleared;		/* by this backend, in a transaction not yet ended */
} FlagKey;

/* One collection's flagged keys, as this transaction's writer read them. */
typedef struct FlagSet
{
	Oid			keys_relid;
	int			n;
	FlagKey    *keys;
} FlagSet;

/*
 * What this backend read, kept across transactions (CacheMemoryContext):
 * a setter's or a clearer's commit sends an invalidation of the
 * dictionary, which a writer takes in as it locks the directory; a
 * transaction or subtransaction rolled back may take a clearing with it.
 */
static MemoryContext flags_cxt = NULL;
static List *known = NIL;
static uint64 generation = 0;	/* of known: counts its resets */

static void
forget_all(void)
{
	if (flags_cxt != NULL)
		MemoryContextReset(flags_cxt);
	known = NIL;
	generation++;
}

static void
xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		forget_all();
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		forget_all();
}

static void
relcache_callback(Datum arg, Oid relid)
{
	ListCell   *lc;

	foreach(lc, known)
		if (relid == InvalidOid || ((FlagSet *) lfirst(lc))->keys_relid == relid)
		{
			forget_all();
			return;
		}
}

static void
register_callbacks(void)
{
	if (flags_cxt != NULL)
		return;
	flags_cxt = AllocSetContextCreate(CacheMemoryContext, "argo complete keys",
									  ALLOCSET_SMALL_SIZES);
	RegisterXactCallback(xact_callback, NULL);
	RegisterSubXactCallback(subxact_callback, NULL);
	CacheRegisterRelcacheCallback(relcache_callback, (Datum) 0);
}

/* The flags work on c: its dictionary has the column (0.10 and later). */
bool
keyflags_usable(ArgoCollection *c)
{
	if (collection_is_distributed(c))
		return false;
	return get_attnum(argo_table_relid(c, "keys"), "complete") != InvalidAttrNumber;
}


static FlagSet *
read_flags(ArgoCollection *c, Oid keys_relid)
{
	SqlBuf	   *buf = sqlbuf_create();
	MemoryContext old;
	FlagSet    *fs;

	appendStringInfo(&buf->sql, "SELECT keyid, keystr FROM %s WHERE complete", c->keys_table);
	if (argo_run_snapshot(buf, GetLatestSnapshot()) != SPI_OK_SELECT)
		elog(ERROR, "could not read the complete keys of collection \"%s\"", c->name);
	old = MemoryContextSwitchTo(flags_cxt);
	fs = palloc0(sizeof(FlagSet));
	fs->keys_relid = keys_relid;
	fs->keys = palloc0(sizeof(FlagKey) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		HeapTuple	t = SPI_tuptable->vals[i];
		Datum		id = SPI_getbinval(t, SPI_tuptable->tupdesc, 1, &isnull);
		char	   *str = SPI_getvalue(t, SPI_tuptable->tupdesc, 2);
		FlagKey    *k = &fs->keys[fs->n];

		if (isnull || str == NULL)
			continue;
		k->id = DatumGetInt32(id);
		k->nsegs = keypath_parse(pstrdup(str), strlen(str), &k->segs);
		fs->n++;
	}
	known = lappend(known, fs);
	MemoryContextSwitchTo(old);
	return fs;
}

/*
 * c's flags as this backend read them, read now if not yet.  The lock
 * first: the setters' lock conflicts with it, and taking it takes in
 * the invalidations of what committed before.
 */
static FlagSet *
flags_of(ArgoCollection *c)
{
	Oid			keys_relid = argo_table_relid(c, "keys");
	ListCell   *lc;

	register_callbacks();
	LockRelationOid(argo_table_relid(c, "obj"), RowExclusiveLock);
	foreach(lc, known)
	{
		FlagSet    *fs = lfirst(lc);

		if (fs->keys_relid == keys_relid)
			return fs;
	}
	return read_flags(c, keys_relid);
}

/* Whether doc holds a number, string or boolean at the key's path. */
static bool
holds_scalar(Jsonb *doc, const FlagKey *k)
{
	JsonbContainer *cont = &doc->root;
	JsonbValue *v = NULL;

	for (int i = 0; i < k->nsegs; i++)
	{
		const KeySeg *s = &k->segs[i];

		if (s->kind == KSEG_KEY && JsonContainerIsObject(cont))
			v = getKeyJsonValueFromContainer(cont, s->key, s->keylen, NULL);
		else if (s->kind == KSEG_INDEX && JsonContainerIsArray(cont) && s->index >= 0 &&
				 s->index < JsonContainerSize(cont))
			v = getIthJsonbValueFromContainer(cont, (uint32) s->index);
		else
			return false;
		if (v == NULL)
			return false;
		if (i < k->nsegs - 1)
		{
			if (v->type != jbvBinary)
				return false;
			cont = v->val.binary.data;
		}
	}
	return v != NULL && (v->type == jbvNumeric || v->type == jbvString || v->type == jbvBool);
}

static void
clear_flag(ArgoCollection *c, int32 keyid)
{
	SqlBuf	   *buf = sqlbuf_create();
	Oid			keys = argo_table_relid(c, "keys");

	/*
	 * Cleared already, by a writer that committed after this backend read
	 * the flags in its transaction (the invalidation comes only with a
	 * lock it takes anew): nothing to do, and no 40001 for it under
	 * REPEATABLE READ.
	 */
	appendStringInfo(&buf->sql, "SELECT FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d AND complete",
					 c->keys_table, sqlbuf_param(buf, INT4OID, Int32GetDatum(keyid)));
	if (argo_run_snapshot(buf, GetLatestSnapshot()) != SPI_OK_SELECT)
		elog(ERROR, "could not read the complete keys of collection \"%s\"", c->name);
	if (SPI_processed == 0)
		return;
	/* the writer's privilege to: collection_check_writer (store/access.c) */
	buf = sqlbuf_create();
	/* no "AND complete": a row set after this snapshot must conflict */
	appendStringInfo(&buf->sql, "UPDATE %s SET complete = false WHERE keyid OPERATOR(pg_catalog.=) $%d",
					 c->keys_table, sqlbuf_param(buf, INT4OID, Int32GetDatum(keyid)));
	if (argo_run(buf, false) != SPI_OK_UPDATE)
		elog(ERROR, "could not clear a complete key of collection \"%s\"", c->name);
	/* other backends read the flags again once this commits */
	CacheInvalidateRelcacheByRelid(keys);
}

/*
 * An object c is about to hold (inserted, or as an update leaves it):
 * clear the flags of the keys it has no scalar at.  Clearing runs SQL,
 * which may take in invalidations and forget fs: the ids are copied.
 */
void
keyflags_check_object(ArgoCollection *c, Jsonb *doc)
{
	FlagSet    *fs;
	int32	   *lacking;
	int			n = 0;
	uint64		gen;

	if (!keyflags_usable(c))
		return;
	fs = flags_of(c);
	gen = generation;
	for (int i = 0; i < fs->n; i++)
		if (!fs->keys[i].cleared && !holds_scalar(doc, &fs->keys[i]))
		{
			if (n == 0)
				lacking = palloc(sizeof(int32) * fs->n);
			lacking[n++] = fs->keys[i].id;
		}
	for (int i = 0; i < n; i++)
		clear_flag(c, lacking[i]);
	for (int i = 0; n > 0 && gen == generation && i < fs->n; i++)
		for (int j = 0; j < n; j++)
			if (fs->keys[i].id == lacking[j])
				fs->keys[i].cleared = true;
}

/*
 * The keys worth counting: no array step, and, where argo_analyze has
 * just counted them (counted), at least half as many rows as objects (a
 * key every object has is in every object sampled).  An int4[].
 */
static Datum
candidates(ArgoCollection *c, bool counted)
{
	SqlBuf	   *buf = sqlbuf_create();
	bool		isnull;
	Datum		ids;

	appendStringInfo(&buf->sql,
					 "SELECT coalesce(pg_catalog.array_agg(keyid), '{}'::pg_catalog.int4[]) FROM %s"
					 " WHERE pg_catalog.strpos(keystr, '[') OPERATOR(pg_catalog.=) 0",
					 c->keys_table);
	if (counted)
		appendStringInfo(&buf->sql,
						 " AND (coalesce(rows_str, 0) OPERATOR(pg_catalog.+) coalesce(rows_num, 0)"
						 " OPERATOR(pg_catalog.+) coalesce(rows_bool, 0)) OPERATOR(pg_catalog.>=)"
						 " ((SELECT pg_catalog.count(*) FROM %s) OPERATOR(pg_catalog./) 2)",
						 c->obj_table);
	/* not read-only: it must see the counts argo_analyze has just written */
	if (argo_run(buf, false) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not read the keys of collection \"%s\"", c->name);
	ids = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return datumCopy(ids, false, -1);
}

/*
 * Set each key's flag to whether every object holds a scalar there,
 * counted under a lock that keeps writers out (ShareRowExclusiveLock on
 * the directory: no two setters at once either).  Keys with an array
 * step are left unflagged.  wait: block for the lock; else skip when
 * writers hold it.  Under a transaction snapshot, which may not see
 * what writers committed before the lock, nothing is set.  counted:
 * argo_analyze has just written the keys' row counts.  Counting every
 * key's rows tripled argo_analyze (100k NoBench objects: 0.18 -> 0.67
 * s); the candidates' rows are found through their indexes.
 */
bool
keyflags_set(ArgoCollection *c, bool wait, bool counted)
{
	Oid			obj = argo_table_relid(c, "obj");
	SqlBuf	   *buf;
	const char *rows;
	int			k;

	if (!keyflags_usable(c) || IsolationUsesXactSnapshot())
		return false;
	if (wait)
		LockRelationOid(obj, ShareRowExclusiveLock);
	else if (!ConditionalLockRelationOid(obj, ShareRowExclusiveLock))
		return false;
	buf = sqlbuf_create();
	k = sqlbuf_param(buf, INT4ARRAYOID, candidates(c, counted));
	if (c->format == ARGO_FORMAT_ARGO1)
		rows = psprintf("SELECT keyid FROM %s WHERE keyid OPERATOR(pg_catalog.=) ANY ($%d)"
						" AND pg_catalog.num_nonnulls(valstr, valnum, valbool) OPERATOR(pg_catalog.>) 0",
						c->data_table, k);
	else
		rows = psprintf("SELECT keyid FROM %s WHERE keyid OPERATOR(pg_catalog.=) ANY ($%d)"
						" UNION ALL SELECT keyid FROM %s WHERE keyid OPERATOR(pg_catalog.=) ANY ($%d)"
						" UNION ALL SELECT keyid FROM %s WHERE keyid OPERATOR(pg_catalog.=) ANY ($%d) AND valbool IS NOT NULL",
						c->num_table, k, c->str_table, k, c->bool_table, k);
	appendStringInfo(&buf->sql,
					 "WITH n AS (SELECT pg_catalog.count(*) AS n FROM %s),"
					 " r AS (SELECT x.keyid, pg_catalog.count(*) AS c FROM (%s) x GROUP BY x.keyid),"
					 " s AS (SELECT k.keyid, coalesce(r.c OPERATOR(pg_catalog.=) n.n, n.n OPERATOR(pg_catalog.=) 0"
					 " AND pg_catalog.strpos(k.keystr, '[') OPERATOR(pg_catalog.=) 0) AS full"
					 " FROM %s k CROSS JOIN n LEFT JOIN r ON r.keyid OPERATOR(pg_catalog.=) k.keyid)"
					 " UPDATE %s k SET complete = s.full FROM s"
					 " WHERE k.keyid OPERATOR(pg_catalog.=) s.keyid AND k.complete IS DISTINCT FROM s.full",
					 c->obj_table, rows, c->keys_table, c->keys_table);
	if (argo_run(buf, false) != SPI_OK_UPDATE)
		elog(ERROR, "could not set the complete keys of collection \"%s\"", c->name);
	CacheInvalidateRelcacheByRelid(argo_table_relid(c, "keys"));
	return true;
}

/*
 * SQL that is true when no object of c may lack a scalar at key id $k
 * (the flag, under the statement's snapshot), or NULL where the flags
 * do not work.
 */
char *
keyflags_sql(ArgoCollection *c, int k)
{
	if (!keyflags_usable(c))
		return NULL;
	return psprintf("(SELECT complete FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d) IS TRUE",
					c->keys_table, k);
}
