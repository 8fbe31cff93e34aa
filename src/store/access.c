/*
 * access.c — whether C may read or write a collection's table directly.
 *
 * Reading or writing a table from C must do what SQL would: the same
 * privilege check (42501), row-level security, and only where PostgreSQL
 * would read or write the heap plainly.  Every such decision is made
 * here; objfetch.c, lookup.c, bulkinsert.c, keydict.c and the writers ask.
 * The tables themselves were resolved and locked once, when the
 * statement looked its collection up (catalog.c), and are opened by OID.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "parser/parse_relation.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "common/common.h"
#include "common/sqlbuf.h"
#include "store/access.h"
#include "store/collection.h"

int			argo_prefetch_pages = 64;

static const char *const suffixes[ARGO_NTABLES] = {"str", "num", "bool", "data", "keys", "obj", "doc"};

static int
table_index(const char *suffix)
{
	for (int i = 0; i < ARGO_NTABLES; i++)
		if (strcmp(suffixes[i], suffix) == 0)
			return i;
	elog(ERROR, "no collection table \"%s\"", suffix);
	return -1;
}

/* Remember the OID of a table of c, resolved and locked by the lookup. */
void
argo_table_resolved(ArgoCollection *c, const char *suffix, Oid relid)
{
	c->relids[table_index(suffix)] = relid;
}

/*
 * The OID of a table of c: the one the statement locked; for a
 * collection made or found without locking (creation, drop), looked up
 * and locked now.  A table gone meanwhile means the collection is.
 */
Oid
argo_table_relid(ArgoCollection *c, const char *suffix)
{
	int			i = table_index(suffix);

	if (!OidIsValid(c->relids[i]))
	{
		RangeVar   *rv = makeRangeVar(ARGO_SCHEMA, psprintf("%s_%s", c->name, suffix), -1);

		c->relids[i] = RangeVarGetRelid(rv, AccessShareLock, true);
		if (!OidIsValid(c->relids[i]))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("collection \"%s\" does not exist", c->name)));
	}
	return c->relids[i];
}

/* A table of c, open (its lock is the statement's). */
Relation
argo_open_table(ArgoCollection *c, const char *suffix)
{
	return table_open(argo_table_relid(c, suffix), NoLock);
}

/* SQL would check the privilege; a denial is SQL's error, 42501. */
void
argo_check_privilege(Relation rel, AclMode mode)
{
	AclResult	acl = pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), mode);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, RelationGetRelationName(rel));
}

/*
 * A writer of c also adds keys to its dictionary, with the key sequence,
 * and clears the dictionary's complete flags (store/keyflags.c): INSERT
 * and UPDATE (complete) on the one, USAGE on the other.  Checked at every
 * write, not only when a document with a new key comes or a flag must be
 * cleared (which may be weeks after the role was set up), so a role
 * granted too little fails on its first write, naming what it lacks and
 * how to grant it.
 */
void
collection_check_writer(ArgoCollection *c)
{
	Oid			keys = argo_table_relid(c, "keys");
	Oid			kseq = get_relname_relid(psprintf("%s_kseq", c->name),
										 get_namespace_oid(ARGO_SCHEMA, false));
	AttrNumber	complete = get_attnum(keys, "complete");
	const char *missing = NULL;
	const char *why = "adds the keys of new documents to its key dictionary";

	if (pg_class_aclcheck(keys, GetUserId(), ACL_INSERT) != ACLCHECK_OK)
		missing = psprintf("table %s_keys", c->name);
	else if (OidIsValid(kseq) &&
			 pg_class_aclcheck(kseq, GetUserId(), ACL_USAGE | ACL_UPDATE) != ACLCHECK_OK)
		missing = psprintf("sequence %s_kseq", c->name);
	else if (complete != InvalidAttrNumber &&
			 pg_class_aclcheck(keys, GetUserId(), ACL_UPDATE) != ACLCHECK_OK &&
			 pg_attribute_aclcheck(keys, complete, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
	{
		missing = psprintf("column complete of table %s_keys", c->name);
		why = "clears a key's complete flag when it leaves an object without a key every object had";
	}
	if (missing != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for %s", missing),
				 errdetail("A writer of collection \"%s\" %s.", c->name, why),
				 errhint("argo_grant('%s', role, 'write') grants what a writer needs.", c->name)));
}

/*
 * A write from C (mode: ACL_INSERT, ACL_UPDATE or ACL_DELETE) refused
 * where SQL's would be: in a read-only transaction, on a standby.  Every
 * writer checks, whichever function or statement reached it.
 */
void
argo_check_writable(AclMode mode)
{
	PreventCommandIfReadOnly(mode == ACL_DELETE ? "DELETE" :
							 mode == ACL_UPDATE ? "UPDATE" : "INSERT");
}

/* Whether row-level security applies to this statement's reads of rel. */
bool
argo_rls_applies(Relation rel)
{
	return check_enable_rls(RelationGetRelid(rel), InvalidOid, true) == RLS_ENABLED;
}

/* A plain heap table, without row-level security: what C may read as SQL would. */
bool
argo_readable_directly(Relation rel)
{
	return rel->rd_rel->relkind == RELKIND_RELATION &&
		rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
		!argo_rls_applies(rel);
}

/* Columns not dropped (an upgrade from 0.1 dropped keystr). */
static int
live_columns(TupleDesc desc)
{
	int			n = 0;

	for (int i = 0; i < desc->natts; i++)
		n += !TupleDescAttr(desc, i)->attisdropped;
	return n;
}

/*
 * Whether every trigger on rel is Argo's own: the one that forgets maps
 * and documents when rows are written through SQL, and the one that
 * keeps SQL from writing documents — which writes from C need not fire.
 */
bool
argo_only_own_triggers(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;
	Oid			forget = InvalidOid,
				guard = InvalidOid;

	if (td == NULL)
		return true;
	for (int i = 0; i < td->numtriggers; i++)
	{
		if (!OidIsValid(forget))
		{
			forget = argo_forget_rowmaps_oid();
			guard = argo_trigger_function_oid("argo_docs_guard");
		}
		if (td->triggers[i].tgfoid != forget && td->triggers[i].tgfoid != guard)
			return false;
	}
	return true;
}

/*
 * Whether rows may be written into rel as COPY writes them: a plain
 * table with Argo's natts columns only, no trigger but Argo's own, no generated column,
 * no row-level security, and INSERT granted (else SQL's INSERT raises
 * what it must).
 */
static bool
insertable_as(Relation rel, int natts, char relkind)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;

	return rel->rd_rel->relkind == relkind &&
		live_columns(RelationGetDescr(rel)) == natts &&
		argo_only_own_triggers(rel) &&
		(constr == NULL || !constr->has_generated_stored) &&
		!argo_rls_applies(rel) &&
		pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_INSERT) == ACLCHECK_OK;
}

bool
argo_insertable_directly(Relation rel, int natts)
{
	return insertable_as(rel, natts, RELKIND_RELATION);
}

/*
 * Whether a distributed collection's new objects may go to its shards
 * whole, each shard writing their rows: no table of the coordinator has
 * row-level security or a trigger but Argo's own, and the role may
 * insert into each (else the rows go through the partitioned tables,
 * where SQL raises what it must).
 */
bool
argo_shards_take_objects(ArgoCollection *c)
{
	return argo_shards_take_writes(c, ACL_INSERT);
}

/*
 * The same for an UPDATE or DELETE the shards run (exec/shard/shardwrite.c):
 * the role holds mode on each table, as writing them here would need.
 */
bool
argo_shards_take_writes(ArgoCollection *c, AclMode mode)
{
	static const char *const argo3[] = {"obj", "str", "num", "bool", NULL};
	static const char *const argo1[] = {"obj", "data", NULL};
	const char *const *suffixes = c->format == ARGO_FORMAT_ARGO1 ? argo1 : argo3;
	bool		ok = true;

	for (int i = 0; ok && suffixes[i] != NULL; i++)
	{
		Relation	rel = argo_open_table(c, suffixes[i]);

		ok = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE &&
			argo_only_own_triggers(rel) && !argo_rls_applies(rel) &&
			pg_class_aclmask(RelationGetRelid(rel), GetUserId(), mode, ACLMASK_ALL) == mode;
		table_close(rel, NoLock);
	}
	return ok;
}

/*
 * The same of a distributed collection's partitioned table, whose rows
 * may then be sent to its shards' tables as they are (shardconn.c).
 */
bool
argo_insertable_to_shards(Relation rel, int natts)
{
	return insertable_as(rel, natts, RELKIND_PARTITIONED_TABLE);
}

/*
 * A valid, non-partial B-tree whose first column is objid; InvalidOid if
 * none.  Read from the catalog caches without opening (and locking)
 * each index: a read that finds its rows by map never opens one.
 */
Oid
argo_objid_index(Relation rel)
{
	AttrNumber	objatt = attnameAttNum(rel, "objid", false);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		HeapTuple	itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		HeapTuple	ctup;
		Form_pg_index index;
		bool		fits;

		if (!HeapTupleIsValid(itup))
			continue;
		index = (Form_pg_index) GETSTRUCT(itup);
		fits = objatt > 0 && index->indisvalid && index->indnkeyatts >= 1 &&
			index->indkey.values[0] == objatt &&
			heap_attisnull(itup, Anum_pg_index_indpred, NULL);
		ReleaseSysCache(itup);
		if (!fits)
			continue;
		ctup = SearchSysCache1(RELOID, ObjectIdGetDatum(lfirst_oid(lc)));
		if (!HeapTupleIsValid(ctup))
			continue;
		fits = ((Form_pg_class) GETSTRUCT(ctup))->relam == BTREE_AM_OID;
		ReleaseSysCache(ctup);
		if (fits)
			return lfirst_oid(lc);
	}
	return InvalidOid;
}

/*
 * The OIDs of Argo's trigger functions, looked up once per backend and
 * again after any change to pg_proc (a dropped and re-created
 * extension): every write from C asks.
 */
static Oid	forget_rowmaps_oid = InvalidOid;
static Oid	docs_guard_oid = InvalidOid;
static bool trigger_oids_callback = false;

static void
trigger_oids_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	forget_rowmaps_oid = InvalidOid;
	docs_guard_oid = InvalidOid;
}

/* The OID of Argo's trigger function fn (of no arguments), InvalidOid if none. */
Oid
argo_trigger_function_oid(const char *fn)
{
	Oid		   *cached = strcmp(fn, "argo_docs_guard") == 0 ? &docs_guard_oid : &forget_rowmaps_oid;

	if (!trigger_oids_callback)
	{
		CacheRegisterSyscacheCallback(PROCOID, trigger_oids_reset, (Datum) 0);
		trigger_oids_callback = true;
	}
	if (!OidIsValid(*cached))
		*cached = LookupFuncName(stringToQualifiedNameList(argo_function(fn)), 0, NULL, true);
	return *cached;
}

Oid
argo_forget_rowmaps_oid(void)
{
	return argo_trigger_function_oid("argo_forget_rowmaps");
}

/* The owner of a relation; InvalidOid when there is none (dropped). */
Oid
argo_relation_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/* The OID the lookup resolved for c's table suffix (InvalidOid: none, or not yet). */
Oid
argo_resolved_relid(ArgoCollection *c, const char *suffix)
{
	return c->relids[table_index(suffix)];
}
