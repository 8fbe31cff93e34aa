/*
 * shardconn.c — statements sent to a distributed collection's shards on
 * postgres_fdw's own connections.
 *
 * The coordinator's foreign scans and writes run on the connection
 * postgres_fdw keeps per server and user mapping, inside the remote
 * transaction it opened for the caller's (committed or rolled back with
 * it, savepoints mirrored).  A statement Argo sends to a shard must see
 * and be part of that same transaction — a read after a write in one
 * transaction sees the write — so it goes over that connection too:
 * postgres_fdw's GetConnection, looked up in its library, and libpq's
 * asynchronous calls, one statement to every shard at once, each result
 * taken a row at a time.  (dblink's connections are sessions of their
 * own: they could not see the caller's uncommitted writes.)
 *
 * Interrupts are checked while waiting for a shard; an error while a
 * shard still runs a statement leaves it to postgres_fdw's abort, which
 * cancels what runs on its connections.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/partcache.h"
#include "utils/rel.h"

#include "store/access.h"
#include "store/collection.h"
#include "store/rowbatch.h"
#include "store/shard/shard.h"

/* postgres_fdw's (connection.c, PostgreSQL 15) */
typedef struct PgFdwConnState
{
	void	   *pendingAreq;	/* an async scan's request in flight */
} PgFdwConnState;
typedef PGconn *(*GetConnection_fn) (UserMapping *user, bool will_prep_stmt,
									 PgFdwConnState **state);
typedef void (*report_error_fn) (int elevel, PGresult *res, PGconn *conn,
								 bool clear, const char *sql);

static GetConnection_fn fdw_get_connection = NULL;
static report_error_fn fdw_report_error = NULL;

/* What a shard server has, asked once per backend. */
typedef struct ShardServer
{
	Oid			server;			/* hash key */
	bool		current;		/* Argo of this version, with argo_shard_rows */
	char	   *schema;			/* Argo's schema there, quoted */
} ShardServer;

static HTAB *servers = NULL;

static int	partition_of(PartitionKey key, PartitionDesc pd, Datum id);

/* This database's version of Argo, which a shard's must be. */
static const char *
argo_extension_version(void)
{
	static char *version = NULL;

	if (version == NULL)
	{
		if (SPI_execute("SELECT extversion FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'argo'",
						true, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "could not read its own version");
		version = MemoryContextStrdup(TopMemoryContext,
									  SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	}
	return version;
}

static void
load_fdw(void)
{
	if (fdw_get_connection != NULL)
		return;
	fdw_get_connection = (GetConnection_fn)
		load_external_function("$libdir/postgres_fdw", "GetConnection", true, NULL);
	fdw_report_error = (report_error_fn)
		load_external_function("$libdir/postgres_fdw", "pgfdw_report_error", true, NULL);
}

/*
 * A shard's error raised as postgres_fdw words it (the remote message,
 * SQLSTATE and context), whichever connection it came on.
 */
static void
report_error(PGresult *res, PGconn *conn, bool clear, const char *sql)
{
	load_fdw();
	fdw_report_error(ERROR, res, conn, clear, sql);
}

/*
 * The connection to server for the current user, in the caller's remote
 * transaction; NULL if postgres_fdw is reading a scan on it right now
 * (an async foreign scan of the same statement), which a statement of
 * ours must not interleave with.
 */
static PGconn *
connection_of(Oid server)
{
	UserMapping *um = GetUserMapping(GetUserId(), server);
	PgFdwConnState *state = NULL;
	PGconn	   *conn;

	load_fdw();
	conn = fdw_get_connection(um, false, &state);
	if (state != NULL && state->pendingAreq != NULL)
		return NULL;
	return conn;
}

/* Wait, checking for interrupts, until conn has a whole result to give. */
static void
wait_result(PGconn *conn)
{
	while (PQisBusy(conn))
	{
		int			rc = WaitLatchOrSocket(MyLatch,
										   WL_LATCH_SET | WL_SOCKET_READABLE | WL_EXIT_ON_PM_DEATH,
										   PQsocket(conn), -1L, PG_WAIT_EXTENSION);

		if (rc & WL_LATCH_SET)
		{
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
		if ((rc & WL_SOCKET_READABLE) && !PQconsumeInput(conn))
			report_error(NULL, conn, false, "(reading a shard's result)");
	}
}

/* The next result of conn's statement sql, or NULL after the last. */
PGresult *
shardconn_result(PGconn *conn, const char *sql)
{
	PGresult   *res;

	wait_result(conn);
	res = PQgetResult(conn);
	if (res != NULL && PQresultStatus(res) != PGRES_SINGLE_TUPLE &&
		PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
		report_error(res, conn, true, sql);
	return res;
}

/* Read and drop what is left of conn's statement. */
void
shardconn_drain(PGconn *conn, const char *sql)
{
	PGresult   *res;

	while ((res = shardconn_result(conn, sql)) != NULL)
		PQclear(res);
}

/* After a statement was sent (ok), its rows asked for one at a time if need be. */
static void
sent(PGconn *conn, bool ok, const char *what, ShardResults results)
{
	if (!ok)
		report_error(NULL, conn, false, what);
	if (results != SHARD_WHOLE && !PQsetSingleRowMode(conn))
		elog(ERROR, "could not read a shard's rows one at a time");
}

/* Send sql with its text parameters, for its results as asked. */
void
shardconn_send(PGconn *conn, const char *sql, int nparams, const char *const *values,
			   ShardResults results)
{
	sent(conn, PQsendQueryParams(conn, sql, nparams, NULL, values, NULL, NULL,
								 results == SHARD_ROWS_BINARY ? 1 : 0),
		 sql, results);
}

/*
 * Statement number which (< 32), sql, prepared as name on conn if it is
 * one of Argo's own sessions and has not been yet: a shard then neither
 * parses nor plans it again for every read (a fifth of a read by ID()
 * there).  False, nothing done, for another connection.
 */
bool
shardconn_prepare(PGconn *conn, int which, const char *name, const char *sql, int nparams)
{
	uint32	   *prepared = shardsession_prepared(conn);

	Assert(which >= 0 && which < 32);
	if (prepared == NULL)
		return false;
	if (*prepared & (1U << which))
		return true;
	sent(conn, PQsendPrepare(conn, name, sql, nparams, NULL), sql, SHARD_WHOLE);
	shardconn_drain(conn, sql);
	*prepared |= 1U << which;
	return true;
}

/* Send the statement prepared on conn as name, with its text parameters. */
void
shardconn_send_prepared(PGconn *conn, const char *name, int nparams, const char *const *values,
						ShardResults results)
{
	sent(conn, PQsendQueryPrepared(conn, name, nparams, values, NULL, NULL,
								   results == SHARD_ROWS_BINARY ? 1 : 0),
		 name, results);
}

/* What server has: Argo's schema, and whether it is this version. */
static ShardServer *
server_of(Oid server, PGconn *conn)
{
	static const char *const ask =
		"SELECT pg_catalog.quote_ident(n.nspname), e.extversion OPERATOR(pg_catalog.=) $1"
		" FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
		" WHERE e.extname OPERATOR(pg_catalog.=) 'argo'";
	ShardServer *s;
	bool		found;
	const char *version = argo_extension_version();
	PGresult   *res;

	if (servers == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(ShardServer);
		servers = hash_create("argo shard servers", 16, &ctl, HASH_ELEM | HASH_BLOBS);
	}
	s = hash_search(servers, &server, HASH_FIND, NULL);
	if (s != NULL)
		return s;
	shardconn_send(conn, ask, 1, &version, SHARD_WHOLE);
	res = shardconn_result(conn, ask);
	s = hash_search(servers, &server, HASH_ENTER, &found);
	s->current = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 1), "t") == 0;
	s->schema = s->current ? MemoryContextStrdup(TopMemoryContext, PQgetvalue(res, 0, 0)) : NULL;
	PQclear(res);
	shardconn_drain(conn, ask);
	return s;
}

/*
 * A connection to each of c's servers, each with Argo's schema there;
 * false (nothing sent) if some shard has another version of Argo or its
 * connection is busy with a scan: the caller then reads the shards
 * through its foreign tables instead.
 */
bool
shardconn_open(ArgoCollection *c, ShardConns *out)
{
	return shardconn_open_servers(directory_server_oids(argo_table_relid(c, "obj")), out);
}

/*
 * The server of the shard that holds object id: the partition of the
 * directory its hash falls in, as PostgreSQL's routing finds it.
 */
Oid
shardconn_server_of(ArgoCollection *c, int64 id)
{
	Relation	dir = argo_open_table(c, "obj");
	PartitionDesc pd = RelationGetPartitionDesc(dir, true);
	Oid			server = GetForeignTable(pd->oids[partition_of(RelationGetPartitionKey(dir), pd,
															   Int64GetDatum(id))])->serverid;

	table_close(dir, NoLock);
	return server;
}

/* Connections to these servers, as shardconn_open makes them. */
bool
shardconn_open_servers(List *oids, ShardConns *out)
{
	ListCell   *lc;

	out->n = list_length(oids);
	out->conns = palloc0(sizeof(PGconn *) * out->n);
	out->schemas = palloc0(sizeof(char *) * out->n);
	out->names = palloc0(sizeof(char *) * out->n);
	out->servers = palloc0(sizeof(Oid) * out->n);
	out->binary = palloc0(sizeof(bool) * out->n);
	foreach(lc, oids)
	{
		int			i = foreach_current_index(lc);
		ShardServer *s;
		const char *encoding;

		out->servers[i] = lfirst_oid(lc);
		out->names[i] = GetForeignServer(lfirst_oid(lc))->servername;
		/* a read that is its own transaction needs no remote transaction */
		out->conns[i] = shardsession_usable() ? shardsession_get(lfirst_oid(lc)) :
			connection_of(lfirst_oid(lc));
		if (out->conns[i] == NULL)
			return false;
		s = server_of(lfirst_oid(lc), out->conns[i]);
		if (!s->current)
			return false;
		out->schemas[i] = s->schema;
		/* binary strings are not converted between encodings: only the same one */
		encoding = PQparameterStatus(out->conns[i], "server_encoding");
		out->binary[i] = encoding != NULL && strcmp(encoding, GetDatabaseEncodingName()) == 0;
	}
	return true;
}

/* An array's text form (array_out quotes each element as it must be). */
static char *
array_text(Datum *elems, int n, Oid type, int16 len, bool byval, char align)
{
	ArrayType  *arr = construct_array(elems, n, type, len, byval, align);

	return OidOutputFunctionCall(F_ARRAY_OUT, PointerGetDatum(arr));
}

/*
 * Keys (ids[i], keys[i]) copied into every shard's dictionary, in the
 * caller's remote transactions (so they commit with the rows that use
 * them); the number of keys the shards lacked, summed.  A key a shard
 * has already (by id or by text) is left as it is.
 */
int64
shardconn_copy_keys(ArgoCollection *c, int n, const int32 *ids, char *const *keys)
{
	List	   *oids = directory_server_oids(argo_table_relid(c, "obj"));
	Datum	   *idd = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *keyd = palloc(sizeof(Datum) * Max(n, 1));
	const char *values[2];
	char	   *sql;
	PGconn	  **conns = palloc(sizeof(PGconn *) * list_length(oids));
	int64		added = 0;
	ListCell   *lc;

	if (n == 0)
		return 0;
	shardsession_note_write();
	for (int i = 0; i < n; i++)
	{
		idd[i] = Int32GetDatum(ids[i]);
		keyd[i] = CStringGetTextDatum(keys[i]);
	}
	values[0] = array_text(idd, n, INT4OID, 4, true, TYPALIGN_INT);
	values[1] = array_text(keyd, n, TEXTOID, -1, false, TYPALIGN_INT);
	sql = psprintf("INSERT INTO %s (keyid, keystr) SELECT * FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.int4[]), pg_catalog.unnest($2::pg_catalog.text[]))"
				   " ON CONFLICT DO NOTHING", c->keys_table);
	foreach(lc, oids)
	{
		int			i = foreach_current_index(lc);

		if ((conns[i] = connection_of(lfirst_oid(lc))) == NULL)
			elog(ERROR, "a shard's connection is busy with a scan");
		shardconn_send(conns[i], sql, 2, values, SHARD_WHOLE);
	}
	for (int i = 0; i < list_length(oids); i++)
	{
		PGresult   *res;

		while ((res = shardconn_result(conns[i], sql)) != NULL)
		{
			added += atoll(PQcmdTuples(res));
			PQclear(res);
		}
	}
	return added;
}

/*
 * Rows for one of a distributed collection's tables (table: its quoted
 * name, the same on every shard), each sent to the shard its object
 * lives on, one INSERT per shard, all shards at once, in the caller's
 * remote transactions.  Column 0 is objid.  Instead of the partitioned
 * table's routing through postgres_fdw's batched INSERT … VALUES.
 */
void
shardconn_write_rows(ArgoCollection *c, const char *table, const ArgoRows *rows,
					 const Oid *types)
{
	Relation	dir = argo_open_table(c, "obj");
	PartitionKey key = RelationGetPartitionKey(dir);
	PartitionDesc pd = RelationGetPartitionDesc(dir, true);
	int			nparts = pd->nparts;
	int		   *part = palloc(sizeof(int) * Max(rows->n, 1));
	int		   *count = palloc0(sizeof(int) * nparts);
	PGconn	  **conns = palloc0(sizeof(PGconn *) * nparts);
	StringInfoData sql;

	for (int i = 0; i < rows->n; i++)
		count[part[i] = partition_of(key, pd, rows->cols[0][i])]++;
	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s (", table);
	for (int k = 0; k < rows->ncols; k++)
		appendStringInfo(&sql, "%s%s", k ? ", " : "", rows->names[k]);
	appendStringInfoString(&sql, ") SELECT * FROM ROWS FROM (");
	for (int k = 0; k < rows->ncols; k++)
		appendStringInfo(&sql, "%spg_catalog.unnest($%d::%s)", k ? ", " : "", k + 1,
						 format_type_be_qualified(get_array_type(types[k])));
	appendStringInfoChar(&sql, ')');
	for (int p = 0; p < nparts; p++)
	{
		const char **values;

		if (count[p] == 0)
			continue;
		values = palloc(sizeof(char *) * rows->ncols);
		for (int k = 0; k < rows->ncols; k++)
		{
			Datum	   *elems = palloc(sizeof(Datum) * count[p]);
			bool	   *nulls = palloc(sizeof(bool) * count[p]);
			int			n = 0;
			int16		len;
			bool		byval;
			char		align;

			for (int i = 0; i < rows->n; i++)
				if (part[i] == p)
				{
					elems[n] = rows->cols[k][i];
					nulls[n++] = rows->nulls[k] != NULL && rows->nulls[k][i];
				}
			get_typlenbyvalalign(types[k], &len, &byval, &align);
			values[k] = OidOutputFunctionCall(F_ARRAY_OUT, PointerGetDatum(
				construct_md_array(elems, nulls, 1, &n, (int[]) {1}, types[k], len, byval, align)));
		}
		conns[p] = connection_of(GetForeignTable(pd->oids[p])->serverid);
		if (conns[p] == NULL)
			elog(ERROR, "a shard's connection is busy with a scan");
		shardconn_send(conns[p], sql.data, rows->ncols, values, SHARD_WHOLE);
	}
	for (int p = 0; p < nparts; p++)
		if (conns[p] != NULL)
			shardconn_drain(conns[p], sql.data);
	table_close(dir, NoLock);
}

/* The partition of the directory object id hashes to. */
static int
partition_of(PartitionKey key, PartitionDesc pd, Datum id)
{
	bool		isnull = false;
	uint64		hash = compute_partition_hash_value(key->partnatts, key->partsupfunc,
													key->partcollation, &id, &isnull);
	int			part = pd->boundinfo->indexes[hash % pd->boundinfo->nindexes];

	if (part < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("object " INT64_FORMAT " has no shard", DatumGetInt64(id)),
				 errdetail("No partition of the collection's directory takes its id.")));
	return part;
}

/*
 * New objects sent whole to the shards they hash to, one statement per
 * shard, all at once, in the caller's remote transactions: each shard
 * writes their rows (and row maps) as a local insert does, with the ids
 * given and its copy of the dictionary, which keydict_assign has just
 * brought up to date.  False, having sent nothing, where the shards
 * cannot take them (argo_shards_take_objects, another version of Argo).
 */
bool
shardconn_insert_objects(ArgoCollection *c, const Datum *objids, Jsonb **docs, int n)
{
	Relation	dir;
	PartitionKey key;
	PartitionDesc pd;
	ShardConns	sc;
	Oid		   *home = palloc(sizeof(Oid) * Max(n, 1));	/* each object's server */
	Oid		   *part_server;
	char	   *sql;

	if (n == 0 || !argo_shards_take_objects(c))
		return n == 0;
	shardsession_note_write();
	if (!shardconn_open(c, &sc))
		return false;
	shardconn_dictionary_whole(c);
	dir = argo_open_table(c, "obj");
	key = RelationGetPartitionKey(dir);
	pd = RelationGetPartitionDesc(dir, true);
	/* each partition's server looked up once, not once an object and shard */
	part_server = palloc(sizeof(Oid) * pd->nparts);
	for (int p = 0; p < pd->nparts; p++)
		part_server[p] = GetForeignTable(pd->oids[p])->serverid;
	for (int i = 0; i < n; i++)
		home[i] = part_server[partition_of(key, pd, objids[i])];
	for (int k = 0; k < sc.n; k++)
	{
		Datum	   *ids = palloc(sizeof(Datum) * n);
		Datum	   *objs = palloc(sizeof(Datum) * n);
		const char *values[3];
		int			m = 0;

		for (int i = 0; i < n; i++)
			if (home[i] == sc.servers[k])
			{
				ids[m] = objids[i];
				objs[m++] = JsonbPGetDatum(docs[i]);
			}
		sc.conns[k] = m == 0 ? NULL : sc.conns[k];
		if (m == 0)
			continue;
		values[0] = c->name;
		values[1] = array_text(ids, m, INT8OID, 8, true, TYPALIGN_DOUBLE);
		values[2] = array_text(objs, m, JSONBOID, -1, false, TYPALIGN_INT);
		sql = psprintf("SELECT %s.argo_shard_insert($1, $2::pg_catalog.int8[], $3::pg_catalog.jsonb[])",
					   sc.schemas[k]);
		shardconn_send(sc.conns[k], sql, 3, values, SHARD_WHOLE);
	}
	for (int k = 0; k < sc.n; k++)
		if (sc.conns[k] != NULL)
			shardconn_drain(sc.conns[k], "SELECT argo_shard_insert(...)");
	table_close(dir, NoLock);
	return true;
}

/*
 * A load into the empty collection begins or ends on every shard
 * (argo_shard_load): each drops its indexes of it, then builds them once,
 * in the caller's remote transactions, all shards at once.  Nothing
 * where the shards do not take objects whole.
 */
void
shardconn_load(ArgoCollection *c, bool begin)
{
	ShardConns	sc;
	const char *values[2] = {c->name, begin ? "true" : "false"};
	char	   *sql;

	if (!argo_shards_take_objects(c))
		return;
	shardsession_note_write();
	if (!shardconn_open(c, &sc))
		return;
	for (int k = 0; k < sc.n; k++)
	{
		sql = psprintf("SELECT %s.argo_shard_load($1, $2::pg_catalog.bool)", sc.schemas[k]);
		shardconn_send(sc.conns[k], sql, 2, values, SHARD_WHOLE);
	}
	for (int k = 0; k < sc.n; k++)
		shardconn_drain(sc.conns[k], "SELECT argo_shard_load(...)");
}

/*
 * Every key of a distributed collection's dictionary copied to the
 * shards that lack it (a collection made before 0.7, or a copy that
 * failed): until then its shards neither run its statements nor take
 * its objects.  The number of keys the shards lacked, summed.
 */
int64
shardconn_copy_dictionary(ArgoCollection *c)
{
	int			n;
	int32	   *ids;
	char	  **keys;

	if (SPI_execute(psprintf("SELECT keyid, keystr FROM %s ORDER BY keyid", c->keys_table),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the dictionary of \"%s\"", c->name);
	n = (int) SPI_processed;
	ids = palloc(sizeof(int32) * Max(n, 1));
	keys = palloc(sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		keys[i] = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
	}
	return shardconn_copy_keys(c, n, ids, keys);
}

/*
 * Before a backend first sends c's objects or writes to its shards: their copies of
 * the dictionary made whole, so that a collection made before 0.7 takes
 * inserts without argo_repair.  Once per backend and collection, again
 * if the transaction that copied did not commit.
 */
void
shardconn_dictionary_whole(ArgoCollection *c)
{
	static HTAB *copied = NULL;
	Oid			dir = argo_table_relid(c, "obj");
	TransactionId *xid;
	bool		found;

	if (copied == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(Oid) + sizeof(TransactionId);
		copied = hash_create("argo shard dictionaries", 16, &ctl, HASH_ELEM | HASH_BLOBS);
	}
	xid = (TransactionId *) ((char *) hash_search(copied, &dir, HASH_ENTER, &found) + sizeof(Oid));
	if (found && (TransactionIdIsCurrentTransactionId(*xid) || TransactionIdDidCommit(*xid)))
		return;
	(void) shardconn_copy_dictionary(c);
	*xid = GetTopTransactionId();
}
