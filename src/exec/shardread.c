/*
 * shardread.c — a SELECT of a distributed collection run by its shards,
 * merged here.
 *
 * Every shard runs Argo on its own part of the collection: it finds,
 * rebuilds, projects and orders its objects and sends each result with
 * its object id (shardpart.c).  The coordinator sends the statement to
 * all shards at once, on postgres_fdw's connections inside the caller's
 * remote transactions (shardconn.c), and merges their results as they
 * come, a row at a time: by object id, or by the ORDER BY keys and then
 * id, which is the order one server would give.  OFFSET and LIMIT count
 * the merged results; each shard returns at most LIMIT + OFFSET.
 *
 * The merge takes ORDER BY keys from the results themselves, so a
 * statement is sent to the shards only where each ordering path lies in
 * what a result holds (SELECT *, or a path listed as a target without
 * AS); others, aggregates and joins read the shards' tables through
 * their foreign tables, as before.  So does a statement when a shard's
 * Argo is of another version or its copy of the dictionary is behind.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "exec/exec.h"

/* One shard's results, the current one first. */
typedef struct ShardStream
{
	PGconn	   *conn;
	const char *server;
	MemoryContext cxt;			/* the current result's memory */
	bool		done;
	bool		behind;			/* the shard's dictionary lacks keys */
	int64		objid;
	Jsonb	   *doc;
	StringInfoData *keys;		/* per ORDER BY item; data NULL for none */
} ShardStream;

typedef struct ShardRead
{
	ArgoQuery  *q;
	char	   *sql;
	int			n;
	ShardStream *streams;
	Jsonb	  **order_paths;	/* per ORDER BY item; NULL for ID() */
	ShardStream *reading;		/* for an error's context */
} ShardRead;

/* Which shard an error while reading its results came from. */
static void
shard_context(void *arg)
{
	ShardRead  *r = arg;

	if (r->reading != NULL)
		errcontext("reading the results of shard \"%s\"", r->reading->server);
}

/* Whether path's value lies in every result that has it (its target is there whole). */
static bool
in_results(ArgoStmt *s, ArgoPath *path)
{
	ArgoStep   *first = linitial(path->steps);
	ListCell   *lc;

	if (first->is_index || (s->id_name && strcmp(first->key, s->id_name) == 0))
		return false;
	if (s->star)
		return true;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		bool		prefix = !t->alias && !t->path->id &&
			list_length(t->path->steps) <= list_length(path->steps);

		for (int i = 0; prefix && i < list_length(t->path->steps); i++)
		{
			ArgoStep   *ts = list_nth(t->path->steps, i);
			ArgoStep   *ps = list_nth(path->steps, i);

			prefix = !ts->is_index && !ps->is_index && strcmp(ts->key, ps->key) == 0;
		}
		if (prefix)
			return true;
	}
	return false;
}

/* A SELECT of one distributed collection that its shards can run and this merge order. */
bool
shardread_applies(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ListCell   *lc;

	if (s->kind != ASTMT_SELECT || list_length(q->colls) != 1 || argo_is_aggregate(s) ||
		IsParallelWorker() || !collection_is_distributed(linitial(q->colls)))
		return false;
	foreach(lc, s->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);

		if (!ob->path->id && !in_results(s, ob->path))
			return false;
	}
	return true;
}

/* The statement's parameters as one JSON array, for the shards. */
static char *
params_text(Jsonb **params, int nparams)
{
	StringInfoData out;

	initStringInfo(&out);
	appendStringInfoChar(&out, '[');
	for (int i = 0; i < nparams; i++)
	{
		if (i > 0)
			appendStringInfoChar(&out, ',');
		(void) JsonbToCString(&out, &params[i]->root, VARSIZE(params[i]));
	}
	appendStringInfoChar(&out, ']');
	return out.data;
}

/* The coordinator's newest key id: a shard's dictionary must have it. */
static char *
keys_through(ArgoCollection *c)
{
	SqlBuf	   *buf = sqlbuf_create();

	appendStringInfo(&buf->sql, "SELECT pg_catalog.max(keyid) FROM %s", c->keys_table);
	if (SPI_execute_plan(argo_prepare(buf, 0), NULL, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "argo: could not read the newest key of \"%s\"", c->name);
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/* LIMIT + OFFSET as a shard's row limit, "-1" for none. */
static char *
row_limit(ArgoStmt *s)
{
	if (s->limit == NULL)
		return "-1";
	return psprintf(INT64_FORMAT, (int64) s->limit->num +
					(s->offset ? (int64) s->offset->num : 0));
}

/* The stream's next result (done after its last), with its ORDER BY keys. */
static void
advance(ShardRead *r, ShardStream *st)
{
	PGresult   *res;
	MemoryContext old;

	MemoryContextReset(st->cxt);
	r->reading = st;
	while (!st->done)
	{
		res = shardconn_result(st->conn, r->sql);
		if (res == NULL)
		{
			st->done = true;
			return;
		}
		if (PQresultStatus(res) == PGRES_SINGLE_TUPLE)
			break;
		PQclear(res);
	}
	if (st->done)
		return;
	if (PQgetisnull(res, 0, 0))
	{
		/* the shard's dictionary is behind: it ran nothing */
		st->behind = true;
		PQclear(res);
		return;
	}
	old = MemoryContextSwitchTo(st->cxt);
	st->objid = pg_strtoint64(PQgetvalue(res, 0, 0));
	st->doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(PQgetvalue(res, 0, 1))));
	PQclear(res);
	for (int i = 0; i < list_length(r->q->stmt->order_by); i++)
	{
		st->keys[i].data = NULL;
		if (r->order_paths[i] == NULL)
			continue;
		initStringInfo(&st->keys[i]);
		if (!argo_doc_sort_key(st->doc, r->order_paths[i], &st->keys[i]))
			st->keys[i].data = NULL;
	}
	MemoryContextSwitchTo(old);
}

static int
cmp_int64(int64 a, int64 b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

/* Keys compare as bytes, shorter first; no key (NULL) is last. */
static int
cmp_key(StringInfo a, StringInfo b)
{
	int			c;

	if (a->data == NULL || b->data == NULL)
		return (a->data == NULL) - (b->data == NULL);
	c = memcmp(a->data, b->data, Min(a->len, b->len));
	return c != 0 ? c : cmp_int64(a->len, b->len);
}

/* The order one server gives: ORDER BY's keys, then object id. */
static int
cmp_streams(ShardRead *r, ShardStream *a, ShardStream *b)
{
	ListCell   *lc;

	foreach(lc, r->q->stmt->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);
		int			i = foreach_current_index(lc);
		int			c = r->order_paths[i] == NULL ? cmp_int64(a->objid, b->objid) :
			cmp_key(&a->keys[i], &b->keys[i]);

		if (c != 0)
			return ob->desc ? -c : c;
	}
	return cmp_int64(a->objid, b->objid);
}

/* The stream whose result comes next; NULL when all are done. */
static ShardStream *
next_stream(ShardRead *r)
{
	ShardStream *best = NULL;

	for (int i = 0; i < r->n; i++)
	{
		ShardStream *st = &r->streams[i];

		if (!st->done && (best == NULL || cmp_streams(r, st, best) < 0))
			best = st;
	}
	return best;
}

/* Send the statement to every shard; false if one cannot take it. */
static bool
send_all(ShardRead *r)
{
	ArgoCollection *c = linitial(r->q->colls);
	ShardConns	sc;
	const char *values[4];

	if (!shardconn_open(c, &sc))
		return false;
	values[0] = r->q->text;
	values[1] = params_text(r->q->params, r->q->nparams);
	values[2] = keys_through(c);
	values[3] = row_limit(r->q->stmt);
	r->n = sc.n;
	r->streams = palloc0(sizeof(ShardStream) * sc.n);
	for (int i = 0; i < sc.n; i++)
	{
		ShardStream *st = &r->streams[i];

		st->conn = sc.conns[i];
		st->server = sc.names[i];
		st->cxt = AllocSetContextCreate(CurrentMemoryContext, "argo shard result",
										ALLOCSET_SMALL_SIZES);
		st->keys = palloc0(sizeof(StringInfoData) * Max(list_length(r->q->stmt->order_by), 1));
		r->sql = psprintf("SELECT objid, doc FROM %s.argo_shard_rows($1, $2::pg_catalog.jsonb, $3::pg_catalog.int4, $4::pg_catalog.int8)",
						  sc.schemas[i]);
		shardconn_send(st->conn, r->sql, 4, values, true);
	}
	return true;
}

/*
 * Run q on the shards, its merged results to emit; false (nothing
 * emitted) where a shard could not run it, for the caller to read the
 * shards' tables instead.
 */
bool
shardread_run(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoStmt   *s = q->stmt;
	ShardRead	r = {q};
	ShardStream *st;
	ErrorContextCallback context = {error_context_stack, shard_context, &r};
	bool		behind = false;
	int64		offset = s->offset ? (int64) s->offset->num : 0;
	int64		limit = s->limit ? (int64) s->limit->num : -1;

	r.order_paths = palloc0(sizeof(Jsonb *) * Max(list_length(s->order_by), 1));
	for (int i = 0; i < list_length(s->order_by); i++)
	{
		ArgoOrder  *ob = list_nth(s->order_by, i);

		if (!ob->path->id)
			r.order_paths[i] = DatumGetJsonbP(sql_path_steps(ob->path));
	}
	if (!send_all(&r))
		return false;
	error_context_stack = &context;
	for (int i = 0; i < r.n; i++)
	{
		advance(&r, &r.streams[i]);
		behind |= r.streams[i].behind;
	}
	while (limit != 0 && (st = next_stream(&r)) != NULL && !behind)
	{
		CHECK_FOR_INTERRUPTS();
		if (offset > 0)
			offset--;
		else
		{
			emit(arg, st->doc);
			if (limit > 0)
				limit--;
		}
		advance(&r, st);
	}
	/* what a LIMIT left unread (at most LIMIT + OFFSET a shard) */
	for (int i = 0; i < r.n; i++)
	{
		r.reading = &r.streams[i];
		shardconn_drain(r.streams[i].conn, r.sql);
	}
	error_context_stack = context.previous;
	return !behind;
}

/* Whether every shard's dictionary has the coordinator's newest key. */
static bool
shards_know_keys(ArgoCollection *c, ShardConns *sc)
{
	char	   *sql = psprintf("SELECT 1 FROM %s WHERE keyid OPERATOR(pg_catalog.=) $1", c->keys_table);
	const char *newest = keys_through(c);
	bool		all = true;

	if (newest == NULL)
		return true;
	for (int i = 0; i < sc->n; i++)
		shardconn_send(sc->conns[i], sql, 1, &newest, false);
	for (int i = 0; i < sc->n; i++)
	{
		PGresult   *res;

		while ((res = shardconn_result(sc->conns[i], sql)) != NULL)
		{
			all &= PQntuples(res) == 1;
			PQclear(res);
		}
	}
	return all;
}

/*
 * What each shard runs, with its own argo_explain of the statement, for
 * argo_explain; NIL if a shard could not run it.
 */
List *
shardread_explain(ArgoQuery *q)
{
	static const char *const ask =
		"SELECT line FROM %s.argo_explain($1, VARIADIC ARRAY(SELECT pg_catalog.jsonb_array_elements($2::pg_catalog.jsonb))) line";
	ArgoStmt   *s = q->stmt;
	ShardConns	sc;
	const char *values[2];
	List	   *lines = NIL;

	if (!shardconn_open(linitial(q->colls), &sc) || !shards_know_keys(linitial(q->colls), &sc))
		return NIL;
	values[0] = q->text;
	values[1] = params_text(q->params, q->nparams);
	lines = lappend(lines, psprintf("-- every shard (%d) runs the statement on its own objects at once, on postgres_fdw's connections, and returns %s with their object ids; the coordinator merges them %s%s",
									sc.n, s->limit ? "its first LIMIT + OFFSET results" : "its results",
									s->order_by ? "by the ORDER BY values in them, then object id" : "in object id order",
									s->offset || s->limit ? ", then applies OFFSET and LIMIT" : ""));
	for (int i = 0; i < sc.n; i++)
		shardconn_send(sc.conns[i], psprintf(ask, sc.schemas[i]), 2, values, false);
	for (int i = 0; i < sc.n; i++)
	{
		PGresult   *res;

		lines = lappend(lines, psprintf("-- shard \"%s\" runs %s.argo_shard_rows(...), whose plan there is:",
										sc.names[i], sc.schemas[i]));
		while ((res = shardconn_result(sc.conns[i], ask)) != NULL)
		{
			for (int row = 0; row < PQntuples(res); row++)
				lines = lappend(lines, psprintf("--   %s", PQgetvalue(res, row, 0)));
			PQclear(res);
		}
	}
	return lines;
}
