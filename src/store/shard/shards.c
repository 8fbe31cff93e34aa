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
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "partitioning/partdesc.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "common/common.h"
#include "common/errors.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/shard/shard.h"

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
 * Run sql on the server (dblink, the server's user mapping, a session
 * and transaction of its own) with its search_path pinned to pg_catalog
 * first, as postgres_fdw pins its own sessions: nothing in sql, and no
 * function it calls unqualified, resolves through a schema a role on
 * the shard could plant (the mapped user's "$user" schema, say).  sql
 * returns at most one text value, which is returned (NULL: no row, or
 * NULL).
 */
static char *
shard_query(const char *server, const char *sql)
{
	ShardContext sc = {server};
	ErrorContextCallback cb = {error_context_stack, shard_errcontext, &sc};
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2] = {CStringGetTextDatum(server),
		CStringGetTextDatum(psprintf("SET search_path = pg_catalog, pg_temp; %s", sql))};
	char	   *query = psprintf("SELECT v FROM %s($1, $2) AS t(v text)", dblink_function("dblink"));
	char	   *v = NULL;

	error_context_stack = &cb;
	if (SPI_execute_with_args(query, 2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not reach server \"%s\"", server);
	if (SPI_processed == 1)
		v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	error_context_stack = cb.previous;
	return v;
}

/* What a server is, asked before anything is made or dropped on it. */
typedef struct ShardProbe
{
	char	   *argo_schema;	/* where Argo's functions are; NULL: no Argo */
	char	   *database;		/* "system identifier:database oid" */
	bool		taken;			/* a collection of the name is there */
} ShardProbe;

static ShardProbe
shard_probe(const char *server, const char *name)
{
	ShardProbe	p = {0};
	char	   *v = shard_query(server,
								psprintf("SELECT n.nspname::text || '|' || (SELECT system_identifier FROM pg_control_system())::text"
										 " || ':' || (SELECT oid FROM pg_database WHERE datname = current_database())::text"
										 " || '|' || EXISTS (SELECT FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace"
										 " WHERE s.nspname = 'argo_data' AND c.relname = %s AND c.relkind = 'S')::text"
										 " FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'argo'",
										 quote_literal_cstr(psprintf("%s_seq", name))));
	char	   *bar1,
			   *bar2;

	if (v == NULL || (bar1 = strchr(v, '|')) == NULL || (bar2 = strchr(bar1 + 1, '|')) == NULL)
		return p;
	*bar1 = *bar2 = '\0';
	p.argo_schema = v;
	p.database = bar1 + 1;
	p.taken = strcmp(bar2 + 1, "true") == 0;
	return p;
}

/* Argo's function fn on a shard, by the schema the probe found. */
static char *
shard_function(ShardProbe *p, const char *fn)
{
	return psprintf("%s.%s", quote_identifier(p->argo_schema), fn);
}

/*
 * Every server answers, has Argo, is a database of its own and, to
 * create (probes not NULL), has no collection of the name: asked of all
 * before anything is made, so that none of these makes a half-created
 * collection to clean up.
 */
static void
probe_shards(const char *name, List *servers, ShardProbe *probes)
{
	ListCell   *lc;

	foreach(lc, servers)
	{
		int			i = foreach_current_index(lc);
		ShardProbe	p = shard_probe(lfirst(lc), name);

		if (p.argo_schema == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("extension \"argo\" is not installed on server \"%s\"", (char *) lfirst(lc)),
					 errhint("Install Argo on every shard: CREATE EXTENSION argo.")));
		if (probes == NULL)
			continue;
		for (int k = 0; k < i; k++)
			if (strcmp(probes[k].database, p.database) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("servers \"%s\" and \"%s\" are one database",
								(char *) list_nth(servers, k), (char *) lfirst(lc)),
						 errhint("Give each shard a database of its own.")));
		if (p.taken)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("collection \"%s\" already exists on server \"%s\"", name, (char *) lfirst(lc))));
		probes[i] = p;
	}
}

/* Before a drop: every server of the collection answers, with Argo. */
void
collection_check_shards_answer(const char *name, List *servers)
{
	probe_shards(name, servers, NULL);
}

/*
 * The collection on one shard, as probed, marked there as a shard's part
 * (store/shard/home.c) in the same transaction: argo_shard_insert of no
 * object marks a collection its caller owns and never numbered objects
 * of.
 */
static void
create_on_shard(const char *server, ShardProbe *p, const char *name, ArgoFormat format)
{
	shard_query(server, psprintf("SELECT pg_catalog.count(*)::text FROM %s(%s, %s);"
								 " SELECT %s(%s, '{}'::pg_catalog.int8[], '{}'::pg_catalog.jsonb[])::text",
								 shard_function(p, "argo_create_collection"), quote_literal_cstr(name),
								 quote_literal_cstr(format == ARGO_FORMAT_ARGO1 ? "argo1" : "argo3"),
								 shard_function(p, "argo_shard_insert"), quote_literal_cstr(name)));
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

/* A distributed collection being made, and the shards that hold it so far. */
typedef struct Making
{
	ArgoCollection *c;
	List	   *servers;
	ShardProbe *probes;
	List	   *made;
} Making;

static void
make_shards(void *arg)
{
	static const char *const argo3[] = {"str", "num", "bool"};
	Making	   *m = arg;
	bool		is1 = m->c->format == ARGO_FORMAT_ARGO1;
	ListCell   *lc;

	foreach(lc, m->servers)
	{
		create_on_shard(lfirst(lc), &m->probes[foreach_current_index(lc)], m->c->name, m->c->format);
		m->made = lappend(m->made, lfirst(lc));
	}
	collection_create_dictionary(m->c);
	create_partitioned(m->c, "obj", m->servers);
	for (int i = 0; i < (is1 ? 1 : 3); i++)
		create_partitioned(m->c, is1 ? "data" : argo3[i], m->servers);
	collection_record_home(m->c);
}

/*
 * Make c (already named, format set, servers checked) distributed over
 * the servers: the shards' collections first, then the coordinator's
 * dictionary and partitioned tables.  The shards' collections commit at
 * once (dblink); if anything after fails, the ones made are dropped
 * again before the error goes on, so a failed creation leaves nothing
 * behind.
 */
void
collection_create_shards(ArgoCollection *c, List *servers)
{
	Making		m = {c, servers, palloc0(sizeof(ShardProbe) * list_length(servers)), NIL};
	ErrorData  *e;

	probe_shards(c->name, servers, m.probes);
	if ((e = argo_in_subtransaction(make_shards, &m)) != NULL)
	{
		collection_drop_shards(c->name, m.made);
		ReThrowError(e);
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

/* Something to do on a shard that may fail without failing the caller. */
typedef char *(*shard_action) (const char *server, const char *name);

typedef struct ShardTry
{
	shard_action action;
	const char *server;
	const char *name;
	char	   *value;
} ShardTry;

static void
shard_try_run(void *arg)
{
	ShardTry   *t = arg;

	t->value = t->action(t->server, t->name);
}

/*
 * Do action on a shard in a subtransaction: its value, or NULL with the
 * error's message in *why when it failed.
 */
static char *
shard_try(const char *server, const char *name, shard_action action, char **why)
{
	ShardTry	t = {action, server, name, NULL};
	ErrorData  *e = argo_in_subtransaction(shard_try_run, &t);

	if (e == NULL)
		return t.value;
	*why = e->message;
	return NULL;
}

/* The collection dropped on one shard (as it may be there already). */
static char *
drop_on_shard(const char *server, const char *name)
{
	ShardProbe	p = shard_probe(server, name);

	if (p.argo_schema == NULL)
		elog(ERROR, "extension \"argo\" is not installed there");
	shard_query(server, psprintf("SELECT pg_catalog.count(*)::text FROM %s(%s, true)",
								 shard_function(&p, "argo_drop_collection"),
								 quote_literal_cstr(name)));
	return "";
}

/* The bytes of the collection's tables on one shard, as its own listing says. */
static char *
size_on_shard(const char *server, const char *name)
{
	ShardProbe	p = shard_probe(server, name);

	if (p.argo_schema == NULL)
		elog(ERROR, "extension \"argo\" is not installed there");
	return shard_query(server, psprintf("SELECT size_bytes::text FROM %s WHERE name = %s",
										shard_function(&p, "argo_collections"),
										quote_literal_cstr(name)));
}

/*
 * The bytes of a distributed collection's tables on its shards; -1 when
 * a shard does not say (it does not answer, or lacks the collection).
 */
int64
collection_shards_size(const char *name, List *servers)
{
	int64		total = 0;
	ListCell   *lc;

	foreach(lc, servers)
	{
		char	   *why = NULL;
		char	   *v = shard_try(lfirst(lc), name, size_on_shard, &why);

		if (v == NULL)
			return -1;
		total += strtoi64(v, NULL, 10);
	}
	return total;
}

/*
 * Drop the shards' collections (after the coordinator's tables went, or
 * when a creation failed); each commits on its server at once, so this
 * runs in no transaction block of the caller's, where a rollback could
 * not bring them back.  A shard that fails keeps its part, which a
 * warning names with what to run there: the collection is gone from the
 * coordinator either way.
 */
void
collection_drop_shards(const char *name, List *servers)
{
	ListCell   *lc;

	foreach(lc, servers)
	{
		char	   *why = NULL;

		if (shard_try(lfirst(lc), name, drop_on_shard, &why) == NULL)
			ereport(WARNING,
					(errmsg("collection \"%s\" is still on server \"%s\"", name, (char *) lfirst(lc)),
					 errdetail("Dropping it there failed: %s", why),
					 errhint("Drop it on that server: SELECT argo_drop_collection('%s');", name)));
	}
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
 * The directories of the distributed collections this transaction's
 * statements opened (collection_lookup notes them): the servers a broken
 * connection can have been to.  Stamped with the local transaction, so
 * a new transaction starts with none.
 */
#define NOTED_MAX 16
static Oid	noted[NOTED_MAX];
static int	nnoted;
static LocalTransactionId noted_lxid = InvalidLocalTransactionId;

void
shards_note_collection(ArgoCollection *c)
{
	Oid			dir = argo_table_relid(c, "obj");

	if (get_rel_relkind(dir) != RELKIND_PARTITIONED_TABLE)
		return;
	if (noted_lxid != MyProc->lxid)
	{
		nnoted = 0;
		noted_lxid = MyProc->lxid;
	}
	for (int i = 0; i < nnoted; i++)
		if (noted[i] == dir)
			return;
	if (nnoted < NOTED_MAX)
		noted[nnoted++] = dir;
}

/*
 * The servers of a partitioned directory's partitions, by OID, each once:
 * from its partition descriptor, which the relcache keeps (scanning
 * pg_inherits for every statement was a tenth of a distributed read by
 * ID() on the coordinator).
 */
List *
directory_server_oids(Oid dir)
{
	List	   *servers = NIL;
	Relation	rel = table_open(dir, AccessShareLock);
	PartitionDesc pd = RelationGetPartitionDesc(rel, true);

	for (int i = 0; i < pd->nparts; i++)
	{
		HeapTuple	tup = SearchSysCache1(FOREIGNTABLEREL, ObjectIdGetDatum(pd->oids[i]));

		if (!HeapTupleIsValid(tup))
			continue;
		servers = list_append_unique_oid(servers,
										 ((Form_pg_foreign_table) GETSTRUCT(tup))->ftserver);
		ReleaseSysCache(tup);
	}
	table_close(rel, NoLock);
	return servers;
}

/* The servers of the noted collections' partitions, each once. */
static List *
noted_servers(void)
{
	List	   *servers = NIL;

	if (noted_lxid != MyProc->lxid)
		return NIL;
	for (int i = 0; i < nnoted; i++)
		servers = list_concat_unique_oid(servers, directory_server_oids(noted[i]));
	return servers;
}

/*
 * A connection to a shard broke (postgres_fdw says "server closed the
 * connection unexpectedly", naming no server): say which servers of the
 * collections the transaction used do not answer now.  Called on an
 * error already caught; anything that fails here leaves the error as it
 * was.
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
		ListCell   *lc;

		foreach(lc, noted_servers())
		{
			ForeignServer *server = GetForeignServer(lfirst_oid(lc));

			if (!server_answers(server))
				appendStringInfo(&down, "%s\"%s\"", down.len ? ", " : "", server->servername);
		}
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
