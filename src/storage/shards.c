/*
 * shards.c — a collection spread over several PostgreSQL servers with
 * PostgreSQL's own sharding: hash partitions that are postgres_fdw
 * foreign tables.
 *
 * On the coordinator, a distributed collection "c" has its key
 * dictionary and its id sequence as any collection has: object ids and
 * key ids are assigned there, once, so every shard holds the same ids.
 * Its directory and value tables are partitioned by hash of objid with
 * one modulus, each partition a foreign table on one server, so an
 * object lives whole on one shard (all its rows and its directory row).
 * Each server holds an ordinary Argo collection of the same name (made
 * through dblink with the server's user mapping), whose tables the
 * partitions name; its own dictionary and sequence stay empty.
 *
 * Nothing else here knows about shards: the access decision (access.c)
 * sees partitioned and foreign tables and sends every read and write of
 * such a collection through SQL, where PostgreSQL prunes partitions and
 * postgres_fdw pushes predicates, aggregates and batches to the shards.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "storage/storage.h"

/* Shards a collection may have (partition names take "_p" and two digits). */
#define MAX_SHARDS 64

/* One of dblink's functions, schema-qualified; dblink must be installed. */
static char *
dblink_function(const char *fn)
{
	char	   *qualified = extension_function("dblink", fn);

	if (qualified == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"dblink\" is not installed"),
				 errhint("A distributed collection's shards are made and dropped through dblink: CREATE EXTENSION dblink.")));
	return qualified;
}

/* The server, checked: a postgres_fdw server with a user mapping for us. */
static ForeignServer *
shard_server(const char *name)
{
	ForeignServer *server = GetForeignServerByName(name, true);

	if (server == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("server \"%s\" does not exist", name),
				 errhint("Define each shard with CREATE SERVER … FOREIGN DATA WRAPPER postgres_fdw and a user mapping.")));
	if (strcmp(GetForeignDataWrapper(server->fdwid)->fdwname, "postgres_fdw") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("server \"%s\" is not a postgres_fdw server", name)));
	(void) GetUserMapping(GetUserId(), server->serverid);	/* 42704 if none */
	return server;
}

typedef struct ShardContext
{
	const char *server;
} ShardContext;

static void
shard_errcontext(void *arg)
{
	errcontext("on server \"%s\"", ((ShardContext *) arg)->server);
}

/*
 * Run sql on the server (dblink, the server's user mapping, a
 * transaction of its own); sql returns one bigint, which is returned.
 */
static int64
shard_run(const char *server, const char *sql)
{
	ShardContext sc = {server};
	ErrorContextCallback cb = {error_context_stack, shard_errcontext, &sc};
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2] = {CStringGetTextDatum(server), CStringGetTextDatum(sql)};
	char	   *query = psprintf("SELECT n FROM %s($1, $2) AS t(n bigint)", dblink_function("dblink"));
	int64		n = 0;
	bool		isnull;

	error_context_stack = &cb;
	if (SPI_execute_with_args(query, 2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "argo: could not reach server \"%s\"", server);
	if (SPI_processed == 1)
		n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	error_context_stack = cb.previous;
	return n;
}

/* The collection on one shard: Argo must be there, the name free. */
static void
create_on_shard(const char *server, const char *name, ArgoFormat format)
{
	if (shard_run(server, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_extension WHERE extname = 'argo'") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"argo\" is not installed on server \"%s\"", server),
				 errhint("Install Argo on every shard: CREATE EXTENSION argo.")));
	if (shard_run(server, psprintf("SELECT pg_catalog.count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
								   " WHERE n.nspname = 'argo_data' AND c.relname = %s",
								   quote_literal_cstr(psprintf("%s_seq", name)))) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("collection \"%s\" already exists on server \"%s\"", name, server)));
	shard_run(server, psprintf("SELECT pg_catalog.count(*) FROM argo_create_collection(%s, %s)", quote_literal_cstr(name),
							   quote_literal_cstr(format == ARGO_FORMAT_ARGO1 ? "argo1" : "argo3")));
}

/*
 * One of the coordinator's tables: partitioned by hash of objid, one
 * foreign partition per server, naming the shard's table of the same
 * name.  Scans of several shards run at once (async_capable); inserts
 * go a thousand rows to a round trip (batch_size).
 */
static void
create_partitioned(ArgoCollection *c, const char *suffix, List *servers)
{
	char	   *table = quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_%s", c->name, suffix));
	ListCell   *lc;

	run_ddl(psprintf("CREATE TABLE %s (%s) PARTITION BY HASH (objid)", table,
					 collection_table_columns(suffix, true)));
	foreach(lc, servers)
	{
		int			i = foreach_current_index(lc);

		run_ddl(psprintf("CREATE FOREIGN TABLE %s PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)"
						 " SERVER %s OPTIONS (schema_name %s, table_name %s, async_capable 'true', batch_size '1000')",
						 quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_%s_p%d", c->name, suffix, i)),
						 table, list_length(servers), i, quote_identifier(lfirst(lc)),
						 quote_literal_cstr(ARGO_SCHEMA),
						 quote_literal_cstr(psprintf("%s_%s", c->name, suffix))));
	}
}

/*
 * Whether name and servers can make a distributed collection: 1 to
 * MAX_SHARDS postgres_fdw servers, each named once, and a name short
 * enough for its partitions' names.  Checked before anything is made.
 */
void
collection_check_shards(const char *name, List *servers)
{
	ListCell   *lc;

	if (list_length(servers) < 1 || list_length(servers) > MAX_SHARDS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a distributed collection has 1 to %d servers, not %d",
						MAX_SHARDS, list_length(servers))));
	if (strlen(name) > NAMEDATALEN - 1 - strlen("_bool_p63"))
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("collection name \"%s\" is too long for a distributed collection", name),
				 errdetail("A distributed collection's name has at most %d characters.",
						   (int) (NAMEDATALEN - 1 - strlen("_bool_p63")))));
	foreach(lc, servers)
	{
		for (ListCell *other = list_head(servers); other != lc; other = lnext(servers, other))
			if (strcmp(lfirst(other), lfirst(lc)) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("server \"%s\" is named twice", (char *) lfirst(lc))));
		shard_server(lfirst(lc));
	}
}

/*
 * Make c (already named, format set, servers checked) distributed over
 * the servers: the shards' collections first, then the coordinator's
 * dictionary and partitioned tables.
 */
void
collection_create_shards(ArgoCollection *c, List *servers)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	bool		is1 = c->format == ARGO_FORMAT_ARGO1;
	ListCell   *lc;

	/*
	 * The shards' collections commit at once (dblink); if anything after
	 * fails, the ones made here are dropped again before the error goes
	 * on, so a failed creation leaves nothing behind.
	 */
	{
		MemoryContext cxt = CurrentMemoryContext;
		ResourceOwner owner = CurrentResourceOwner;
		List	   *made = NIL;

		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(cxt);
		PG_TRY();
		{
			foreach(lc, servers)
			{
				create_on_shard(lfirst(lc), c->name, c->format);
				made = lappend(made, lfirst(lc));
			}
			collection_create_dictionary(c);
			create_partitioned(c, "obj", servers);
			for (int i = 0; i < (is1 ? 1 : 3); i++)
				create_partitioned(c, is1 ? "data" : argo3[i], servers);
			ReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(cxt);
			CurrentResourceOwner = owner;
		}
		PG_CATCH();
		{
			ErrorData  *e;

			MemoryContextSwitchTo(cxt);
			e = CopyErrorData();
			FlushErrorState();
			RollbackAndReleaseCurrentSubTransaction();
			MemoryContextSwitchTo(cxt);
			CurrentResourceOwner = owner;
			collection_drop_shards(c->name, made);
			ReThrowError(e);
		}
		PG_END_TRY();
	}
}

/* Whether c's tables are spread over servers (its directory is partitioned). */
bool
collection_is_distributed(ArgoCollection *c)
{
	return get_rel_relkind(argo_table_relid(c, "obj")) == RELKIND_PARTITIONED_TABLE;
}

/* The servers of c's directory's partitions, in partition order. */
List *
collection_shard_servers(ArgoCollection *c)
{
	List	   *parts = find_inheritance_children(argo_table_relid(c, "obj"), AccessShareLock);
	List	   *servers = NIL;
	ListCell   *lc;

	foreach(lc, parts)
	{
		HeapTuple	tup = SearchSysCache1(FOREIGNTABLEREL, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(tup))
			continue;
		servers = lappend(servers,
						  GetForeignServer(((Form_pg_foreign_table) GETSTRUCT(tup))->ftserver)->servername);
		ReleaseSysCache(tup);
	}
	return servers;
}

/*
 * Drop the shards' collections (after the coordinator's tables went);
 * each commits on its server at once, so this runs in no transaction
 * block of the caller's, where a rollback could not bring them back.
 */
void
collection_drop_shards(const char *name, List *servers)
{
	ListCell   *lc;

	foreach(lc, servers)
		shard_run(lfirst(lc), psprintf("SELECT pg_catalog.count(*) FROM argo_drop_collection(%s, true)",
									   quote_literal_cstr(name)));
}

/* Whether the server answers at the address its options give (no login). */
static bool
server_answers(ForeignServer *server)
{
	const char *keys[4] = {"connect_timeout"};
	const char *values[4] = {"2"};
	int			n = 1;
	ListCell   *lc;

	foreach(lc, server->options)
	{
		DefElem    *opt = lfirst(lc);

		if (n < 3 && (strcmp(opt->defname, "host") == 0 || strcmp(opt->defname, "hostaddr") == 0 ||
					  strcmp(opt->defname, "port") == 0))
		{
			keys[n] = opt->defname;
			values[n++] = defGetString(opt);
		}
	}
	keys[n] = NULL;
	values[n] = NULL;
	return PQpingParams(keys, values, 0) == PQPING_OK;
}

/*
 * A connection to a shard broke (postgres_fdw says "server closed the
 * connection unexpectedly", naming no server): say which of the
 * database's postgres_fdw servers do not answer now.  Called on an error
 * already caught; anything that fails here leaves the error as it was.
 */
void
shards_explain_failure(ErrorData *e)
{
	MemoryContext cxt = CurrentMemoryContext;
	StringInfoData down;

	if (ERRCODE_TO_CATEGORY(e->sqlerrcode) != ERRCODE_CONNECTION_EXCEPTION)
		return;
	initStringInfo(&down);
	PG_TRY();
	{
		Relation	rel = table_open(ForeignServerRelationId, AccessShareLock);
		SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
		HeapTuple	tup;

		while ((tup = systable_getnext(scan)) != NULL)
		{
			ForeignServer *server = GetForeignServer(((Form_pg_foreign_server) GETSTRUCT(tup))->oid);

			if (strcmp(GetForeignDataWrapper(server->fdwid)->fdwname, "postgres_fdw") == 0 &&
				!server_answers(server))
				appendStringInfo(&down, "%s\"%s\"", down.len ? ", " : "", server->servername);
		}
		systable_endscan(scan);
		table_close(rel, AccessShareLock);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		return;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	if (down.len > 0)
		e->detail = psprintf("%s%sServer %s does not answer.", e->detail ? e->detail : "",
							 e->detail ? " " : "", down.data);
}
