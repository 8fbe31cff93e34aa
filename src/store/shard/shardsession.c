/*
 * shardsession.c — Argo's own connections to a distributed collection's
 * shards, for a read that is a transaction by itself.
 *
 * On postgres_fdw's connections every statement is wrapped in a remote
 * transaction: a START TRANSACTION sent to each shard in turn when it is
 * first used and a COMMIT to each in turn at the end, which for a short
 * read costs several times the read (docs/distributed.md gives the
 * figures, dated).  A SELECT that is the whole of its transaction
 * (no transaction block, nothing written to a shard before it) needs
 * none of that: each shard's part is one statement, one snapshot, as it
 * is inside a remote transaction.  So it runs on a connection of Argo's
 * own per server and user mapping, kept for the backend.
 *
 * They are made as postgres_fdw makes its own, under the same rules: the
 * server's and the user mapping's libpq options (postgres_fdw's own
 * ExtractConnectionOptions), and for a role that is not a superuser a
 * password in the mapping that the server asked for, unless a superuser
 * set password_required 'false' on the mapping.  A statement still
 * running on one when the caller's transaction aborts is cancelled and
 * the connection closed; a changed server or mapping closes them all, and
 * one whose backend on the shard was ended is made again.
 */
#include "postgres.h"

#include <poll.h>

#include "access/xact.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "store/shard/shard.h"

typedef int (*ExtractConnectionOptions_fn) (List *defelems, const char **keywords,
											const char **values);

typedef struct Session
{
	Oid			umid;			/* hash key: the user mapping */
	PGconn	   *conn;
	bool		stale;			/* its server or mapping changed */
	uint32		prepared;		/* the statements prepared on it, by number */
} Session;

static HTAB *sessions = NULL;
static LocalTransactionId written_lxid = InvalidLocalTransactionId;

/* The transaction has written to some shard: its reads must see that. */
void
shardsession_note_write(void)
{
	written_lxid = MyProc->lxid;
}

/* Whether a read may run on Argo's own connections (see above). */
bool
shardsession_usable(void)
{
	return !IsTransactionBlock() && !IsSubTransaction() && written_lxid != MyProc->lxid;
}

static void
close_session(Session *s, bool cancel)
{
	if (s->conn == NULL)
		return;
	if (cancel && PQtransactionStatus(s->conn) == PQTRANS_ACTIVE)
	{
		PGcancel   *c = PQgetCancel(s->conn);
		char		err[256];

		if (c != NULL)
		{
			(void) PQcancel(c, err, sizeof(err));
			PQfreeCancel(c);
		}
	}
	PQfinish(s->conn);
	s->conn = NULL;
	s->prepared = 0;
}

/* At the end of a transaction, a connection still busy is closed. */
static void
session_xact_callback(XactEvent event, void *arg)
{
	HASH_SEQ_STATUS seq;
	Session    *s;

	if (event != XACT_EVENT_ABORT && event != XACT_EVENT_PARALLEL_ABORT &&
		event != XACT_EVENT_COMMIT)
		return;
	hash_seq_init(&seq, sessions);
	while ((s = hash_seq_search(&seq)) != NULL)
		if (s->conn != NULL && (PQstatus(s->conn) != CONNECTION_OK ||
								PQtransactionStatus(s->conn) != PQTRANS_IDLE))
			close_session(s, true);
}

/* A server or user mapping changed: every connection is made again. */
static void
inval_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	HASH_SEQ_STATUS seq;
	Session    *s;

	/* closed when next taken: one may be reading a statement's results now */
	hash_seq_init(&seq, sessions);
	while ((s = hash_seq_search(&seq)) != NULL)
		s->stale = true;
}

static void
init_sessions(void)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(Session);
	sessions = hash_create("argo shard sessions", 16, &ctl, HASH_ELEM | HASH_BLOBS);
	RegisterXactCallback(session_xact_callback, NULL);
	CacheRegisterSyscacheCallback(FOREIGNSERVEROID, inval_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(USERMAPPINGOID, inval_callback, (Datum) 0);
}

/* Whether the mapping may connect without a password (a superuser said so). */
static bool
password_optional(UserMapping *um)
{
	ListCell   *lc;

	foreach(lc, um->options)
	{
		DefElem    *d = lfirst(lc);

		if (strcmp(d->defname, "password_required") == 0 && !defGetBoolean(d))
			return true;
	}
	return false;
}

static void
password_error(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
			 errmsg("password is required"),
			 errdetail("%s", detail)));
}

/* A new connection for the user mapping, as postgres_fdw would make it. */
static PGconn *
connect_session(ForeignServer *server, UserMapping *um)
{
	ExtractConnectionOptions_fn extract = (ExtractConnectionOptions_fn)
		load_external_function("$libdir/postgres_fdw", "ExtractConnectionOptions", true, NULL);
	int			n = list_length(server->options) + list_length(um->options) + 4;
	const char **keywords = palloc0(sizeof(char *) * n);
	const char **values = palloc0(sizeof(char *) * n);
	bool		checked = superuser_arg(um->userid) || password_optional(um);
	bool		has_password = false;
	PGconn	   *conn;
	PGresult   *res;
	int			i;

	i = extract(server->options, keywords, values);
	i += extract(um->options, keywords + i, values + i);
	keywords[i] = "fallback_application_name";
	values[i++] = "argo";
	keywords[i] = "client_encoding";
	values[i++] = GetDatabaseEncodingName();
	for (int k = 0; k < i; k++)
		has_password |= strcmp(keywords[k], "password") == 0 && values[k][0] != '\0';
	if (!checked && !has_password)
		password_error("Non-superusers must provide a password in the user mapping.");
	conn = PQconnectdbParams(keywords, values, false);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		char	   *msg = conn ? pchomp(PQerrorMessage(conn)) : "out of memory";

		if (conn)
			PQfinish(conn);
		ereport(ERROR,
				(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
				 errmsg("could not connect to server \"%s\"", server->servername),
				 errdetail_internal("%s", msg)));
	}
	if (!checked && !PQconnectionUsedPassword(conn))
	{
		PQfinish(conn);
		password_error("Non-superuser cannot connect if the server does not request a password.");
	}
	/* as postgres_fdw's sessions: nothing of ours resolved through the remote user's path */
	res = PQexec(conn, "SET search_path = pg_catalog");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		PQclear(res);
		PQfinish(conn);
		ereport(ERROR,
				(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
				 errmsg("could not set up a session on server \"%s\"", server->servername)));
	}
	PQclear(res);
	return conn;
}

/*
 * Whether the server has written to an idle session: it sends nothing
 * unasked but the FATAL of a backend ended there (pg_terminate_backend, a
 * restart) before it closes the socket, which libpq notices only when the
 * next statement fails.  Such a session is made again.
 */
static bool
ended_by_server(PGconn *conn)
{
	struct pollfd pfd = {.fd = PQsocket(conn),.events = POLLIN};

	return poll(&pfd, 1, 0) != 0;
}

/* Argo's own connection to server for the current user, made if need be. */
PGconn *
shardsession_get(Oid server)
{
	UserMapping *um = GetUserMapping(GetUserId(), server);
	bool		found;
	Session    *s;

	if (sessions == NULL)
		init_sessions();
	s = hash_search(sessions, &um->umid, HASH_ENTER, &found);
	if (!found)
		s->conn = NULL;
	if (s->conn != NULL && (s->stale || PQstatus(s->conn) != CONNECTION_OK ||
							ended_by_server(s->conn)))
		close_session(s, false);
	s->stale = false;
	if (s->conn == NULL)
	{
		s->conn = connect_session(GetForeignServer(server), um);
		s->prepared = 0;
	}
	return s->conn;
}

/*
 * The statements prepared on conn, by number, for the caller to read and
 * mark (shardconn_prepare), if conn is one of Argo's own sessions; NULL
 * for another connection (postgres_fdw's: its statements are its own
 * business).  Made again, a session has none.
 */
uint32 *
shardsession_prepared(PGconn *conn)
{
	HASH_SEQ_STATUS seq;
	Session    *s;
	uint32	   *found = NULL;

	if (sessions == NULL)
		return NULL;
	hash_seq_init(&seq, sessions);
	while ((s = hash_seq_search(&seq)) != NULL)
		if (s->conn == conn)
			found = &s->prepared;
	return found;
}
