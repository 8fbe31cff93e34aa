/*
 * object.c — argo_object(collection, id): one object rebuilt, as a
 * function SQL can call per row, in parallel workers too.
 *
 * Reads of whole collections use it so that PostgreSQL can spread the
 * rebuilding of objects over parallel workers: SQL scans the directory
 * (a Parallel Index Only Scan shares its pages out among the processes)
 * and calls this for each id, in the worker that found it.  Within one
 * call site the objects come in increasing id order, so the objid
 * indexes are read forward beside them (objfetch.c's stream), descending
 * again only where a worker's share jumps ahead.
 *
 * So a call site keeps its scans open from one call to the next, as an
 * executor node does, and closes them when its memory goes (the end of
 * the statement).  Their buffers, relations and snapshot belong to the
 * site's own resource owner, not to whichever owner was current at a
 * call: a site may outlive a subtransaction (PL/pgSQL keeps simple
 * expressions for the whole transaction), and an owner released under
 * the scans would leave them holding nothing.  A (sub)transaction that
 * aborts after using a site releases the site's resources without
 * touching its scans, which may have stopped anywhere; the site then
 * opens afresh if called again.  A commit closes what is still open.
 *
 * The function is STABLE and PARALLEL SAFE: it only reads, with the
 * statement's snapshot, after the privilege checks SQL would make; where
 * the tables cannot be read directly (row-level security) it rebuilds
 * the object through SQL instead.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/ilist.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "common/plancache.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "sql/sql.h"
#include "exec/lookup.h"
#include "exec/stream.h"

PG_FUNCTION_INFO_V1(argo_object);

/* One call site's state, in its own memory under the site's fn_mcxt. */
typedef struct ObjectSite
{
	dlist_node	node;			/* in open_sites */
	MemoryContext cxt;
	char	   *name;			/* the collection, as the caller named it */
	ArgoCollection *coll;
	ResourceOwner owner;		/* the scans' resources; NULL: released */
	SubTransactionId used_in;	/* the subtransaction of the last call */
	ObjFetch   *fetch;			/* NULL: rebuild through SQL */
	Rebuilder  *rb;
	Jsonb	   *result;			/* the object just rebuilt, or NULL */
	MemoryContext out;			/* where the result is copied to */
} ObjectSite;

static dlist_head open_sites = DLIST_STATIC_INIT(open_sites);
static bool callbacks_registered = false;

static void
object_take_object(void *arg, int64 objid, Jsonb *obj)
{
	ObjectSite *s = arg;
	Size		len = VARSIZE(obj);

	s->result = MemoryContextAlloc(s->out, len);
	memcpy(s->result, obj, len);
}

/* Release the site's resources; its scans are closed first if close_scans. */
static void
release_site(ObjectSite *s, bool close_scans)
{
	ResourceOwner owner = s->owner;

	if (owner == NULL)
		return;
	s->owner = NULL;
	if (close_scans && s->fetch != NULL)
	{
		ResourceOwner save = CurrentResourceOwner;

		CurrentResourceOwner = owner;
		objfetch_close(s->fetch);
		CurrentResourceOwner = save;
	}
	s->fetch = NULL;
	/* locks go to the transaction, which keeps them to its end */
	ResourceOwnerRelease(owner, RESOURCE_RELEASE_BEFORE_LOCKS, close_scans, false);
	ResourceOwnerRelease(owner, RESOURCE_RELEASE_LOCKS, close_scans, false);
	ResourceOwnerRelease(owner, RESOURCE_RELEASE_AFTER_LOCKS, close_scans, false);
	ResourceOwnerDelete(owner);
}

static void
object_xact_callback(XactEvent event, void *arg)
{
	dlist_mutable_iter it;

	dlist_foreach_modify(it, &open_sites)
	{
		ObjectSite *s = dlist_container(ObjectSite, node, it.cur);

		switch (event)
		{
			case XACT_EVENT_PRE_COMMIT:
			case XACT_EVENT_PARALLEL_PRE_COMMIT:
			case XACT_EVENT_PRE_PREPARE:
				release_site(s, true);
				break;
			case XACT_EVENT_ABORT:
			case XACT_EVENT_PARALLEL_ABORT:
				/* the transaction's owner releases and deletes the site's */
				s->owner = NULL;
				s->fetch = NULL;
				break;
			default:
				break;
		}
	}
}

static void
object_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	dlist_iter	it;

	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	dlist_foreach(it, &open_sites)
	{
		ObjectSite *s = dlist_container(ObjectSite, node, it.cur);

		if (s->used_in >= mySubid)
			release_site(s, false);
	}
}

/*
 * The site's memory goes: the statement ended (close the scans), or an
 * aborting transaction took it (release only).
 */
static void
forget_site(void *arg)
{
	ObjectSite *s = arg;

	release_site(s, IsTransactionState());
	dlist_delete(&s->node);
}

static ObjectSite *
open_site(FunctionCallInfo fcinfo, const char *name)
{
	MemoryContext cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt, "argo_object",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ObjectSite *s = palloc0(sizeof(ObjectSite));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));
	ResourceOwner save = CurrentResourceOwner;

	if (!callbacks_registered)
	{
		RegisterXactCallback(object_xact_callback, NULL);
		RegisterSubXactCallback(object_subxact_callback, NULL);
		callbacks_registered = true;
	}
	s->cxt = cxt;
	s->name = pstrdup(name);
	s->used_in = GetCurrentSubTransactionId();
	s->owner = ResourceOwnerCreate(TopTransactionResourceOwner, "argo_object");
	dlist_push_head(&open_sites, &s->node);
	cb->func = forget_site;
	cb->arg = s;
	MemoryContextRegisterResetCallback(cxt, cb);

	CurrentResourceOwner = s->owner;
	s->coll = collection_lookup(name, false, AccessShareLock);
	s->fetch = objfetch_open(s->coll, NIL, false, true);
	s->rb = rebuilder_create(keydict_of(s->coll), object_take_object, s);
	CurrentResourceOwner = save;
	MemoryContextSwitchTo(old);
	/* only a site that opened is kept for the next call */
	fcinfo->flinfo->fn_extra = s;
	return s;
}
/*
 * Whether the site still serves this call: not released, the same
 * collection, and (where the site outlives a statement, as PL/pgSQL's
 * expressions do) the same snapshot.
 */
static bool
site_fits(ObjectSite *s, const char *name)
{
	Snapshot	now = GetActiveSnapshot();
	Snapshot	had = s->fetch ? objfetch_snapshot(s->fetch) : NULL;

	return s->owner != NULL && strcmp(s->name, name) == 0 &&
		(had == NULL || (had->xmin == now->xmin && had->xmax == now->xmax &&
						 had->curcid == now->curcid));
}

/* Under row-level security: the object's rows through SQL. */
static void
rebuild_through_sql(ObjectSite *s, int64 objid)
{
	int			pin;

	s->result = NULL;
	argo_spi_connect();
	pin = argo_pin_search_path();
	argo_rebuild_from_query(sqlgen_rows_of_ids(s->coll, &objid, 1), s->rb);
	argo_unpin_search_path(pin);
	SPI_finish();
}

/*
 * argo_object(collection text, id bigint) RETURNS jsonb: the object, or
 * NULL when the collection holds no object with that id.
 */
Datum
argo_object(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int64		objid = PG_GETARG_INT64(1);
	ObjectSite *s = fcinfo->flinfo->fn_extra;
	ResourceOwner save = CurrentResourceOwner;
	bool		found;

	if (s != NULL && !site_fits(s, name))
	{
		fcinfo->flinfo->fn_extra = NULL;
		MemoryContextDelete(s->cxt);
		s = NULL;
	}
	if (s == NULL)
		s = open_site(fcinfo, name);
	s->out = CurrentMemoryContext;
	s->result = NULL;
	s->used_in = GetCurrentSubTransactionId();
	/* an error on the way: the abort restores the current owner */
	CurrentResourceOwner = s->owner;
	if (s->fetch == NULL)
		rebuild_through_sql(s, objid);
	else
	{
		found = objfetch_object(s->fetch, objid, s->rb);
		rebuilder_finish(s->rb);
		/* an object with no row ({}) is one only if the directory says so */
		if (found && JB_ROOT_COUNT(s->result) == 0)
		{
			if (!lookup_directory(s->coll, objid, GetActiveSnapshot(), &found))
				rebuild_through_sql(s, objid);
			else if (!found)
				s->result = NULL;
		}
	}
	CurrentResourceOwner = save;
	if (s->result == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(s->result);
}
