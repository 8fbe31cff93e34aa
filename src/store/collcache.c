/*
 * collcache.c — what a backend learnt about a collection's tables, kept
 * for its next statements.
 *
 * Finding a collection by name costs a statement five name lookups, five
 * relation opens and a check of every column (catalog.c); a point read
 * spent a fifth of Argo's own time there.  A collection found once is
 * remembered by name with its tables' OIDs, and the next lookup only
 * locks those OIDs.  Taking a lock processes the invalidations other
 * sessions sent, and any change to one of the tables or the sequence
 * (drop, rename, owner, columns, a transaction that made them rolling
 * back) sends one: the entry is then forgotten and the caller looks the
 * collection up by name again, as PostgreSQL's own caches do.
 */
#include "postgres.h"

#include "storage/lmgr.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"

#include "store/collection.h"

typedef struct CachedCollection
{
	char		name[NAMEDATALEN];	/* hash key */
	bool		valid;
	ArgoFormat	format;
	Oid			seq;
	int			nlocks;
	Oid			lock_order[ARGO_NTABLES];	/* as a drop locks them */
	Oid			relids[ARGO_NTABLES];	/* ArgoCollection's relids */
} CachedCollection;

static HTAB *cache = NULL;

static bool
names_relation(CachedCollection *e, Oid relid)
{
	if (relid == e->seq)
		return true;
	for (int i = 0; i < e->nlocks; i++)
		if (e->lock_order[i] == relid)
			return true;
	return false;
}

static void
collcache_relcache_callback(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	CachedCollection *e;

	hash_seq_init(&seq, cache);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (relid == InvalidOid || names_relation(e, relid))
			e->valid = false;
}

static void
cache_init(void)
{
	HASHCTL		ctl;

	if (cache != NULL)
		return;
	ctl.keysize = NAMEDATALEN;
	ctl.entrysize = sizeof(CachedCollection);
	ctl.hcxt = CacheMemoryContext;
	cache = hash_create("argo collections", 16, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(collcache_relcache_callback, (Datum) 0);
}

/*
 * The collection's tables, locked in lockmode in drop order, when this
 * backend knows them and nothing changed them since: true, with its
 * format and relids.  False means look it up by name; locks taken here
 * stay, harmlessly, until the transaction ends.
 */
bool
collcache_get(const char *name, int lockmode, ArgoFormat *format, Oid *relids)
{
	CachedCollection *e;

	if (cache == NULL || strlen(name) >= NAMEDATALEN)
		return false;
	e = hash_search(cache, name, HASH_FIND, NULL);
	if (e == NULL || !e->valid)
		return false;
	for (int i = 0; i < e->nlocks; i++)
	{
		LockRelationOid(e->lock_order[i], lockmode);
		/* the lock may have brought invalidations; e itself stays put */
		if (!e->valid)
			return false;
	}
	*format = e->format;
	memcpy(relids, e->relids, sizeof(e->relids));
	return true;
}

/* Remember a collection just found by name, its tables locked and checked. */
void
collcache_put(const char *name, ArgoFormat format, Oid seq,
			  const Oid *lock_order, int nlocks, const Oid *relids)
{
	CachedCollection *e;

	if (strlen(name) >= NAMEDATALEN)
		return;
	cache_init();
	e = hash_search(cache, name, HASH_ENTER, NULL);
	e->valid = true;
	e->format = format;
	e->seq = seq;
	e->nlocks = nlocks;
	memcpy(e->lock_order, lock_order, sizeof(Oid) * nlocks);
	memcpy(e->relids, relids, sizeof(e->relids));
}
