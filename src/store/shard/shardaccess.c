/*
 * shardaccess.c — what a role needs to use a distributed collection,
 * checked before any of its SQL runs.
 *
 * postgres_fdw looks up the role's user mapping while the statement is
 * planned, before the executor checks privileges, so a role without
 * either heard of the mapping (42704), not of the privilege it lacks.
 * Here the privilege on the coordinator's tables comes first (42501, as
 * PostgreSQL words it), then a mapping for each server of the collection
 * (42704, naming the server and what to create).  argo_grant notes the
 * mappings a grantee lacks (shards_missing_mappings).
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "store/access.h"
#include "store/collection.h"
#include "store/shard/shard.h"

/* The servers of c's directory's partitions, by OID, each once; NIL if c is local. */
static List *
server_oids(ArgoCollection *c)
{
	Oid			dir = argo_table_relid(c, "obj");

	if (get_rel_relkind(dir) != RELKIND_PARTITIONED_TABLE)
		return NIL;
	return directory_server_oids(dir);
}

/* Whether role has a user mapping for server, its own or PUBLIC's. */
static bool
has_mapping(Oid role, Oid server)
{
	return SearchSysCacheExists2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(role),
								 ObjectIdGetDatum(server)) ||
		SearchSysCacheExists2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(InvalidOid),
							  ObjectIdGetDatum(server));
}

/*
 * The current role may use distributed collection c as mode (ACL_SELECT
 * to read; ACL_INSERT, ACL_UPDATE or ACL_DELETE to write): the privilege
 * on its directory, then a user mapping for each of its servers.  Nothing
 * for a local collection.
 */
void
collection_check_shard_access(ArgoCollection *c, AclMode mode)
{
	List	   *servers = server_oids(c);
	Oid			dir = argo_table_relid(c, "obj");
	ListCell   *lc;
	AclResult	acl;

	if (servers == NIL)
		return;
	acl = pg_class_aclcheck(dir, GetUserId(), mode);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, get_rel_name(dir));
	foreach(lc, servers)
	{
		ForeignServer *server = GetForeignServer(lfirst_oid(lc));

		if (!has_mapping(GetUserId(), server->serverid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("role \"%s\" has no user mapping for server \"%s\" of collection \"%s\"",
							GetUserNameFromId(GetUserId(), false), server->servername, c->name),
					 errdetail("A distributed collection's shards are read and written as the role a user mapping names."),
					 errhint("CREATE USER MAPPING FOR %s SERVER %s OPTIONS (user '…', password '…'), or FOR PUBLIC.",
							 quote_identifier(GetUserNameFromId(GetUserId(), false)),
							 quote_identifier(server->servername))));
	}
}

/*
 * The servers of c that role (InvalidOid: PUBLIC) has no user mapping
 * for, as a comma-separated list of quoted names; NULL when none lacks one.
 */
char *
shards_missing_mappings(ArgoCollection *c, Oid role)
{
	StringInfoData out;
	ListCell   *lc;

	initStringInfo(&out);
	foreach(lc, server_oids(c))
	{
		ForeignServer *server = GetForeignServer(lfirst_oid(lc));

		if (OidIsValid(role) ? !has_mapping(role, server->serverid) :
			!SearchSysCacheExists2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(InvalidOid),
								   ObjectIdGetDatum(server->serverid)))
			appendStringInfo(&out, "%s\"%s\"", out.len ? ", " : "", server->servername);
	}
	return out.len > 0 ? out.data : NULL;
}
