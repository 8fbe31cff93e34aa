/*
 * grant.c — argo_grant(collection, role, access) and argo_revoke: what a
 * reader or a writer of one collection needs, in one step.
 *
 * A collection is five or six tables and two sequences; a writer that
 * was granted the tables but not the key sequence fails only when the
 * first document with a new key arrives.  These functions grant (or
 * revoke) exactly the set an access needs, with PostgreSQL's own GRANT,
 * run as the caller: only a role that may grant on the collection's
 * tables (its owner, or one holding the grant option) can, and errors
 * are GRANT's own.
 *
 *   read:  SELECT on every table of the collection
 *   write: read, and INSERT, UPDATE, DELETE on the value tables, the
 *          directory and the kept documents, INSERT on the key
 *          dictionary and UPDATE of its complete column, USAGE on the
 *          object and key sequences
 *
 * Revoking read revokes write too (a writer reads what it changes);
 * revoking write leaves read.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "common/common.h"
#include "common/errors.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/shard/shard.h"

PG_FUNCTION_INFO_V1(argo_grant);
PG_FUNCTION_INFO_V1(argo_revoke);

typedef enum Access
{
	ACCESS_READ,
	ACCESS_WRITE
} Access;

static Access
access_arg(FunctionCallInfo fcinfo, int argno)
{
	char	   *access = argo_text_arg(fcinfo, argno, "access");

	if (pg_strcasecmp(access, "read") == 0)
		return ACCESS_READ;
	if (pg_strcasecmp(access, "write") == 0)
		return ACCESS_WRITE;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("access must be 'read' or 'write', not \"%s\"", access)));
	pg_unreachable();
}

/*
 * Whether a role argument means every role: "public", exactly as a role
 * name is written (no role may be named so).  "Public" or "PUBLIC" may
 * be roles of their own, and are taken as such.
 */
static bool
means_public(const char *role)
{
	return strcmp(role, "public") == 0;
}

/* The grantee as GRANT spells it: PUBLIC, or a role that exists. */
static const char *
grantee_arg(FunctionCallInfo fcinfo, int argno)
{
	char	   *role = argo_text_arg(fcinfo, argno, "role");

	if (means_public(role))
		return "PUBLIC";
	if (!OidIsValid(get_role_oid(role, true)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role \"%s\" does not exist", role),
				 pg_strcasecmp(role, "public") == 0 ?
				 errhint("Every role is written 'public', in lower case; role names are taken as written.") : 0));
	return quote_identifier(role);
}

/*
 * The collection's tables but the dictionary: value tables, directory,
 * and the kept documents where it keeps them (a reader reads them, a
 * writer writes them: store/docs.c).
 */
static List *
value_tables(ArgoCollection *c)
{
	List	   *tables;

	if (c->format == ARGO_FORMAT_ARGO1)
		tables = list_make2(c->data_table, c->obj_table);
	else
		tables = list_make4(c->str_table, c->num_table, c->bool_table, c->obj_table);
	if (OidIsValid(docs_relid(c)))
		tables = lappend(tables, c->doc_table);
	return tables;
}

static char *
joined(List *names)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
		appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", (char *) lfirst(lc));
	return buf.data;
}

static char *
sequences(ArgoCollection *c)
{
	return psprintf("%s, %s", quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_seq", c->name)),
					quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_kseq", c->name)));
}

static void
run_grants(ArgoCollection *c, Access access, const char *grantee, bool grant)
{
	char	   *values = joined(value_tables(c));
	const char *verb = grant ? "GRANT" : "REVOKE";
	const char *to = grant ? "TO" : "FROM";

	if (grant || access == ACCESS_READ)
		run_ddl(psprintf("%s SELECT ON %s, %s %s %s", verb, values, c->keys_table, to, grantee));
	if (grant && access == ACCESS_READ)
		return;
	run_ddl(psprintf("%s INSERT, UPDATE, DELETE ON %s %s %s", verb, values, to, grantee));
	run_ddl(psprintf("%s INSERT ON %s %s %s", verb, c->keys_table, to, grantee));
	/* a write that leaves an object without a complete key clears it */
	if (get_attnum(argo_table_relid(c, "keys"), "complete") != InvalidAttrNumber)
		run_ddl(psprintf("%s UPDATE (complete) ON %s %s %s", verb, c->keys_table, to, grantee));
	run_ddl(psprintf("%s USAGE ON SEQUENCE %s %s %s", verb, sequences(c), to, grantee));
}

/*
 * A distributed collection is read and written on its shards as the role
 * a user mapping names: say which of its servers the grantee has none
 * for, since the grant alone does not let it in.
 */
static void
note_missing_mappings(ArgoCollection *c, FunctionCallInfo fcinfo)
{
	char	   *role = text_to_cstring(PG_GETARG_TEXT_PP(1));
	bool		to_public = means_public(role);
	char	   *missing = shards_missing_mappings(c, to_public ? InvalidOid : get_role_oid(role, false));

	if (missing != NULL)
		ereport(NOTICE,
				(errmsg("%s has no user mapping for server %s of distributed collection \"%s\"",
						to_public ? "PUBLIC" : psprintf("role \"%s\"", role), missing, c->name),
				 errhint("It reads and writes the shards only through one: CREATE USER MAPPING FOR %s SERVER … OPTIONS (user '…', password '…').",
						 to_public ? "PUBLIC" : quote_identifier(role))));
}

static Datum
grant_or_revoke(FunctionCallInfo fcinfo, bool grant)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	const char *grantee = grantee_arg(fcinfo, 1);
	Access		access = access_arg(fcinfo, 2);
	ArgoCollection *c;

	argo_spi_connect();
	c = collection_lookup(name, false, AccessShareLock);
	run_grants(c, access, grantee, grant);
	if (grant)
		note_missing_mappings(c, fcinfo);
	SPI_finish();
	PG_RETURN_VOID();
}

/* argo_grant(collection text, role text, access text) RETURNS void */
Datum
argo_grant(PG_FUNCTION_ARGS)
{
	return grant_or_revoke(fcinfo, true);
}

/* argo_revoke(collection text, role text, access text) RETURNS void */
Datum
argo_revoke(PG_FUNCTION_ARGS)
{
	return grant_or_revoke(fcinfo, false);
}
