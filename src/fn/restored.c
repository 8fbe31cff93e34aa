/*
 * restored.c — a collection that pg_restore made reads at full speed,
 * with nothing for anyone to run afterwards.
 *
 * A dump holds each directory row's map of where its object's rows lay
 * (store/rowmap.c): addresses in the tables dumped, not in those the
 * restore fills.  A map carries the epoch of the tables it was made for,
 * so a restored map is known to be out of date and never followed — but
 * until argo_repair every object would be read through the objid
 * indexes, about half as fast.  A restore makes a collection's indexes,
 * constraints and triggers after its data; after each such command on a
 * table of argo_data, this event trigger looks whether that collection
 * is now whole (every index and trigger Argo reads and writes it by) and
 * its maps of other tables, and if so writes them again, within the
 * restore, after packing its kept documents, which the restore wrote
 * uncompressed (docpack.c).  A collection that Argo itself makes has no
 * map yet: nothing is done.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "common/common.h"
#include "common/errors.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/rowmap.h"
#include "store/shard/shard.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_restored);

#define MAP_TRIGGERS 4			/* argo_rowmaps_insert, _update, _delete, _truncate */
#define DIRECTORY_TRIGGERS 3	/* argo_rowmaps_update, _delete, _truncate */

/* An ALTER TABLE that adds a constraint (a dump's primary and unique keys). */
static bool
adds_index(AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableType t = ((AlterTableCmd *) lfirst(lc))->subtype;

		if (t == AT_AddConstraint || t == AT_AddIndex || t == AT_AddIndexConstraint)
			return true;
	}
	return false;
}

/* The table a command made an index, a constraint or a trigger on. */
static RangeVar *
command_table(Node *parsetree)
{
	if (IsA(parsetree, CreateTrigStmt))
		return ((CreateTrigStmt *) parsetree)->relation;
	if (IsA(parsetree, IndexStmt))
		return ((IndexStmt *) parsetree)->relation;
	if (IsA(parsetree, AlterTableStmt) && adds_index((AlterTableStmt *) parsetree))
		return ((AlterTableStmt *) parsetree)->relation;
	return NULL;
}

/* The collection a table name of argo_data belongs to, or NULL. */
static char *
restored_collection_of(const char *relname)
{
	static const char *const suffixes[] = {"_str", "_num", "_bool", "_data", "_keys", "_obj", "_doc"};
	size_t		len = strlen(relname);

	for (int i = 0; i < lengthof(suffixes); i++)
	{
		size_t		slen = strlen(suffixes[i]);

		if (len > slen && strcmp(relname + len - slen, suffixes[i]) == 0)
			return pnstrdup(relname, len - slen);
	}
	return NULL;
}

static int
map_triggers(Relation rel)
{
	int			n = 0;

	for (int i = 0; rel->trigdesc != NULL && i < rel->trigdesc->numtriggers; i++)
		if (strncmp(rel->trigdesc->triggers[i].tgname, "argo_rowmaps_", 13) == 0)
			n++;
	return n;
}

/*
 * Whether table coll_suffix exists with what Argo needs of it: two
 * indexes (the dictionary), or an objid index and, for a value table,
 * the triggers that forget maps.
 */
static bool
table_whole(Oid nsp, const char *coll, const char *suffix)
{
	Oid			relid = get_relname_relid(psprintf("%s_%s", coll, suffix), nsp);
	Relation	rel;
	bool		whole;

	if (!OidIsValid(relid))
		return false;
	rel = table_open(relid, AccessShareLock);
	if (strcmp(suffix, "keys") == 0)
		whole = list_length(RelationGetIndexList(rel)) >= 2;
	else
		whole = OidIsValid(argo_objid_index(rel)) &&
			map_triggers(rel) == (strcmp(suffix, "obj") == 0 ? DIRECTORY_TRIGGERS : MAP_TRIGGERS);
	table_close(rel, AccessShareLock);
	return whole;
}

static bool
collection_whole(Oid nsp, const char *coll)
{
	static const char *const argo3[] = {"str", "num", "bool", "keys", "obj"};
	static const char *const argo1[] = {"data", "keys", "obj"};
	bool		is1 = OidIsValid(get_relname_relid(psprintf("%s_data", coll), nsp));
	int			n = is1 ? lengthof(argo1) : lengthof(argo3);

	for (int i = 0; i < n; i++)
		if (!table_whole(nsp, coll, is1 ? argo1[i] : argo3[i]))
			return false;
	return true;
}

/*
 * Whether this role may write the maps from C, as argo_repair would:
 * the directory updatable, no row-level security on any table.
 */
static bool
maps_writable(ArgoCollection *c)
{
	int			n;
	const char *const *tables = collection_object_tables(c, &n);
	bool		ok = true;

	for (int i = 0; i < n && ok; i++)
	{
		Relation	rel = argo_open_table(c, tables[i]);

		ok = argo_readable_directly(rel) &&
			pg_class_aclcheck(RelationGetRelid(rel), GetUserId(),
							  ACL_SELECT | (i == n - 1 ? ACL_UPDATE : 0)) == ACLCHECK_OK;
		table_close(rel, NoLock);
	}
	return ok;
}

/* Whether this role may read the directory, from C, to tell whether its maps are current. */
static bool
directory_readable(ArgoCollection *c)
{
	Relation	dir = argo_open_table(c, "obj");
	bool		ok = argo_readable_directly(dir) &&
		pg_class_aclcheck(RelationGetRelid(dir), GetUserId(), ACL_SELECT) == ACLCHECK_OK;

	table_close(dir, NoLock);
	return ok;
}

static void
write_maps_again(const char *coll)
{
	ArgoCollection *c = collection_lookup(coll, true, NoLock);
	int64		n;
	bool		stale;
	bool		packed;

	/*
	 * A restore runs as the collection's owner (or a superuser); anyone
	 * else's DDL on a table of that name (one with CREATE on argo_data
	 * can make one) is none of this trigger's business, and must not get
	 * the lock every writer of the collection would then queue behind.
	 */
	if (c == NULL || !has_privs_of_role(GetUserId(), collection_owner(c)))
		return;
	c = collection_lookup(coll, true, ShareRowExclusiveLock);
	if (c == NULL || collection_is_distributed(c) || !directory_readable(c))
		return;
	/* a utility command may run without a snapshot; the directory is read with one */
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		packed = argo_pack_restored_docs(c);
		stale = rowmap_out_of_date(c);
		PopActiveSnapshot();
	}
	else
	{
		packed = argo_pack_restored_docs(c);
		stale = rowmap_out_of_date(c);
	}
	if (packed)
		ereport(NOTICE,
				(errmsg("collection \"%s\": kept documents compressed again", coll),
				 errdetail("A restore writes them as given; Argo keeps them compressed.")));
	if (!stale)
		return;
	if (!maps_writable(c))
	{
		ereport(WARNING,
				(errmsg("collection \"%s\" was restored with maps of other tables", coll),
				 errhint("Have its owner run argo_repair('%s'); until then its objects are read through its indexes.", coll)));
		return;
	}
	n = argo_repair_maps(c);
	ereport(NOTICE,
			(errmsg("collection \"%s\": %lld maps of where its objects' rows lie written again",
					coll, (long long) n),
			 errdetail("They were made for other tables (a restored dump, a rewritten table).")));
}

/*
 * write_maps_again in a subtransaction: the command that fired this is
 * someone's DDL (a restore's, or an index of their own), and a
 * collection this cannot repair must not make it fail — it only stays
 * slower until argo_repair, which is what the warning says.
 */
static void
write_maps_of(void *coll)
{
	write_maps_again(coll);
}

static void
write_maps_guarded(const char *coll)
{
	ErrorData  *e = argo_in_subtransaction(write_maps_of, (void *) coll);

	if (e == NULL)
		return;
	if (e->sqlerrcode == ERRCODE_QUERY_CANCELED)
		ReThrowError(e);
	ereport(WARNING,
			(errmsg("the maps of collection \"%s\" were not written again: %s", coll, e->message),
			 errhint("argo_repair('%s') writes them; until then its objects are read through its indexes.", coll)));
}

/* An ALTER TABLE that turns row-level security on or off, or forces it. */
static RangeVar *
changes_rls(Node *parsetree)
{
	AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
	ListCell   *lc;

	if (!IsA(parsetree, AlterTableStmt))
		return NULL;
	foreach(lc, stmt->cmds)
	{
		AlterTableType t = ((AlterTableCmd *) lfirst(lc))->subtype;

		if (t == AT_EnableRowSecurity || t == AT_DisableRowSecurity ||
			t == AT_ForceRowSecurity || t == AT_NoForceRowSecurity)
			return stmt->relation;
	}
	return NULL;
}

/*
 * Row-level security turned on (or off) on a table of a collection that
 * keeps documents: its kept documents get the same at once, in the same
 * transaction (store/docs.c), so that no role the new policies filter
 * reads whole objects through them.  Only the tables' owner can alter
 * them, and it is who runs this.
 */
static void
sync_docs_rls(RangeVar *table, Oid nsp)
{
	Oid			relid = RangeVarGetRelid(table, NoLock, true);
	char	   *coll;
	ArgoCollection *c;

	if (!OidIsValid(relid) || get_rel_namespace(relid) != nsp ||
		(coll = restored_collection_of(get_rel_name(relid))) == NULL || !collection_name_valid(coll))
		return;
	c = collection_lookup(coll, true, NoLock);
	if (c == NULL || !has_privs_of_role(GetUserId(), collection_owner(c)))
		return;
	argo_spi_connect();
	docs_sync_rls(c);
	SPI_finish();
}

/* argo_restored() RETURNS event_trigger, ON ddl_command_end */
Datum
argo_restored(PG_FUNCTION_ARGS)
{
	EventTriggerData *ev;
	RangeVar   *table;
	Oid			nsp;
	Oid			relnsp;
	char	   *coll;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("argo_restored() runs only as an event trigger")));
	ev = (EventTriggerData *) fcinfo->context;
	nsp = get_namespace_oid(ARGO_SCHEMA, true);
	if (OidIsValid(nsp) && !creating_extension && (table = changes_rls(ev->parsetree)) != NULL)
		sync_docs_rls(table, nsp);
	table = command_table(ev->parsetree);
	if (table == NULL || !OidIsValid(nsp))
		PG_RETURN_NULL();
	/* a restore names every table with its schema; so does Argo */
	relnsp = table->schemaname ? get_namespace_oid(table->schemaname, true) : InvalidOid;
	if (creating_extension || relnsp != nsp || (coll = restored_collection_of(table->relname)) == NULL ||
		!collection_whole(nsp, coll))
		PG_RETURN_NULL();
	argo_spi_connect();
	write_maps_guarded(coll);
	SPI_finish();
	PG_RETURN_NULL();
}
