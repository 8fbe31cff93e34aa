/*
 * shardread.c — a SELECT of a distributed collection run by its shards,
 * merged here.
 *
 * Every shard runs Argo on its own part of the collection: it finds,
 * rebuilds, projects and orders its objects and sends each result with
 * its object id (shardpart.c).  The coordinator sends the statement to
 * the shards it needs at once (one for WHERE ID() = n), on postgres_fdw's
 * connections inside the caller's remote transactions, or on Argo's own
 * for a SELECT that is its own transaction (shardconn.c,
 * shardsession.c), and merges their results as they come, a row at a
 * time: by object id, or by the ORDER BY keys and then id, which is the
 * order one server would give.  OFFSET and LIMIT count the merged
 * results; each shard returns at most LIMIT + OFFSET.  An aggregate's
 * groups are read the same way and combined in shardagg.c.
 *
 * The merge takes ORDER BY keys from the results themselves, so a
 * statement is sent to the shards only where each ordering path lies in
 * what a result holds (SELECT *, or a path listed as a target without
 * AS); others read the shards' tables through their foreign tables, as
 * before.  So does a statement when a shard's Argo is of another version
 * or its copy of the dictionary is behind.  A join's FROM items are read
 * here too, each from its collection's shards (shardread_open_source),
 * and joined in shardjoin.c.
 */
#include "postgres.h"

#include <math.h>

#include "access/parallel.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/shardsql.h"
#include "sql/sql.h"
#include "exec/results.h"
#include "exec/shard/shardrun.h"

/* One shard's results, the current one first. */
typedef struct ShardStream
{
	PGconn	   *conn;
	const char *server;
	MemoryContext cxt;			/* the current result's memory */
	bool		done;
	bool		binary;			/* its results come in binary */
	bool		behind;			/* the shard's dictionary lacks keys */
	int64		objid;
	Jsonb	   *doc;
	StringInfoData *keys;		/* per ORDER BY item; data NULL for none */
} ShardStream;

struct ShardRead
{
	ArgoQuery  *q;
	int			source;			/* a join's FROM item pulled (shardjoin.c), or -1 */
	const char *keyvals;		/* and the values its condition must have, or NULL */
	char	   *sql;
	int			n;
	ShardStream *streams;
	Jsonb	  **order_paths;	/* per ORDER BY item; NULL for ID() */
	ShardStream *reading;		/* for an error's context */
	ShardStream *last;			/* whose result shardread_next gave last */
	ErrorContextCallback context;
};

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

	/* EXCEPT runs here, on what the foreign tables give */
	if (s->kind != ASTMT_SELECT || list_length(q->colls) != 1 || argo_is_aggregate(s) ||
		s->except != NIL || IsParallelWorker() || !collection_is_distributed(linitial(q->colls)))
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
char *
shardread_params_text(Jsonb **params, int nparams)
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
char *
shardread_keys_through(ArgoCollection *c)
{
	SqlBuf	   *buf = sql_newest_key(c);

	if (SPI_execute_plan(argo_prepare(buf, 0), NULL, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read the newest key of \"%s\"", c->name);
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/*
 * LIMIT + OFFSET as a shard's row limit, "-1" for none.  With DISTINCT,
 * its LIMIT and OFFSET: a shard's first LIMIT + OFFSET distinct results
 * hold every one of the merge's first that it has.
 */
static char *
row_limit(ArgoStmt *s)
{
	ArgoLiteral *limit = s->distinct ? s->distinct_limit : s->limit;
	ArgoLiteral *offset = s->distinct ? s->distinct_offset : s->offset;

	if (limit == NULL)
		return "-1";
	return psprintf(INT64_FORMAT, (int64) limit->num + (offset ? (int64) offset->num : 0));
}

/*
 * A result's object id and document: in binary, the id's eight bytes
 * (network order) and the document's jsonb bytes, checked; else as text.
 */
static void
take_result(ShardStream *st, PGresult *res)
{
	uint64		id;

	if (!st->binary)
	{
		st->objid = pg_strtoint64(PQgetvalue(res, 0, 0));
		st->doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
													 CStringGetDatum(PQgetvalue(res, 0, 1))));
		return;
	}
	if (PQgetlength(res, 0, 0) != sizeof(uint64) || PQgetisnull(res, 0, 1))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("a shard sent a result that is not an object id and a document")));
	memcpy(&id, PQgetvalue(res, 0, 0), sizeof(id));
	st->objid = (int64) pg_ntoh64(id);
	st->doc = argo_jsonb_from_bytes(PQgetvalue(res, 0, 1), PQgetlength(res, 0, 1));
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
	take_result(st, res);
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
shardread_cmp_int64(int64 a, int64 b)
{
	return a < b ? -1 : a > b ? 1 : 0;
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
		int			c = r->order_paths[i] == NULL ?
			(ob->desc ? -1 : 1) * shardread_cmp_int64(a->objid, b->objid) :
			argo_sort_key_order(&a->keys[i], &b->keys[i], ob->desc, ob->nulls_first);

		if (c != 0)
			return c;
	}
	return shardread_cmp_int64(a->objid, b->objid);
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

/*
 * The shards a statement needs: WHERE ID() = n (alone, or ANDed with
 * more) names one object, which one shard holds; else all of them.
 */
bool
shardread_open_shards(ArgoQuery *q, ShardConns *sc)
{
	ArgoCollection *c = linitial(q->colls);
	ArgoPred   *w = q->stmt->where;
	ListCell   *lc;

	if (w != NULL && w->kind == APRED_AND)
		foreach(lc, w->args)
			if (((ArgoPred *) lfirst(lc))->kind == APRED_ID)
				w = lfirst(lc);
	if (w != NULL && w->kind == APRED_ID && w->op == ACMP_EQ && w->lits == NIL &&
		w->lit != NULL && w->lit->type == ALIT_NUMBER && fabs(w->lit->num) < 1e18 &&
		w->lit->num == floor(w->lit->num))
	{
		Oid			server = shardconn_server_of(c, (int64) w->lit->num);

		if (OidIsValid(server))
			return shardconn_open_servers(list_make1_oid(server), sc);
	}
	return shardconn_open(c, sc);
}

static ShardRead *open_read(ArgoQuery *q, int source, const char *keyvals);

/*
 * Send a shard its part, r->sql with values, prepared where the
 * connection is one of Argo's own (one statement each for a SELECT's
 * rows and a join's part, as text or binary).
 */
static void
send_part(ShardRead *r, ShardStream *st, const char *const *values)
{
	int			which = (r->source >= 0 ? 2 : 0) + (st->binary ? 1 : 0);
	int			nparams = r->source >= 0 ? 5 : 4;
	const char *name = psprintf("argo_part_%d", which);
	ShardResults results = st->binary ? SHARD_ROWS_BINARY : SHARD_ROWS;

	if (shardconn_prepare(st->conn, which, name, r->sql, nparams))
		shardconn_send_prepared(st->conn, name, nparams, values, results);
	else
		shardconn_send(st->conn, r->sql, nparams, values, results);
}

/* Send the statement to every shard; false if one cannot take it. */
static bool
send_all(ShardRead *r)
{
	ArgoCollection *c = linitial(r->q->colls);
	ShardConns	sc;
	const char *values[5];

	if (!shardread_open_shards(r->q, &sc))
		return false;
	values[0] = r->q->text;
	values[1] = shardread_params_text(r->q->params, r->q->nparams);
	values[2] = shardread_keys_through(c);
	values[3] = r->source >= 0 ? psprintf("%d", r->source) :
		argo_is_aggregate(r->q->stmt) ? "-1" : row_limit(r->q->stmt);
	values[4] = r->keyvals;
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
		st->binary = sc.binary[i];
		r->sql = shardsql_part(sc.schemas[i], st->binary, r->source >= 0);
		send_part(r, st, values);
	}
	return true;
}

/*
 * q sent to every shard, each one's first result read; NULL (nothing
 * left running) where a shard cannot run it, for the caller to read the
 * shards' tables instead.  Errors while it is open name the shard.
 */
ShardRead *
shardread_open(ArgoQuery *q)
{
	return open_read(q, -1, NULL);
}

/*
 * FROM item source of the join q, pulled from its collection's shards
 * (argo_shard_join_part) in object id order, as shardread_open reads;
 * keyvals: a JSON array its condition's value must be in, or NULL.
 */
ShardRead *
shardread_open_source(ArgoQuery *q, int source, const char *keyvals)
{
	ArgoQuery  *alone = palloc(sizeof(ArgoQuery));
	ArgoStmt   *s = palloc0(sizeof(ArgoStmt));

	*alone = *q;
	s->kind = ASTMT_SELECT;
	s->star = true;
	s->from = list_make1(list_nth(q->stmt->from, source));
	alone->stmt = s;
	alone->colls = list_make1(list_nth(q->colls, source));
	return open_read(alone, source, keyvals);
}

static ShardRead *
open_read(ArgoQuery *q, int source, const char *keyvals)
{
	ArgoStmt   *s = q->stmt;
	ShardRead  *r = palloc0(sizeof(ShardRead));
	bool		behind = false;

	r->q = q;
	r->source = source;
	r->keyvals = keyvals;
	r->order_paths = palloc0(sizeof(Jsonb *) * Max(list_length(s->order_by), 1));
	for (int i = 0; i < list_length(s->order_by) && !argo_is_aggregate(s); i++)
	{
		ArgoOrder  *ob = list_nth(s->order_by, i);

		if (!ob->path->id)
			r->order_paths[i] = DatumGetJsonbP(sql_path_steps(ob->path));
	}
	if (!send_all(r))
		return NULL;
	r->context.previous = error_context_stack;
	r->context.callback = shard_context;
	r->context.arg = r;
	error_context_stack = &r->context;
	for (int i = 0; i < r->n; i++)
	{
		advance(r, &r->streams[i]);
		behind |= r->streams[i].behind;
	}
	if (!behind)
		return r;
	shardread_close(r);
	return NULL;
}

/*
 * The next result in the order one server gives (of a SELECT that is
 * not an aggregate); NULL after the last.  It lasts until the next call.
 */
Jsonb *
shardread_next(ShardRead *r)
{
	CHECK_FOR_INTERRUPTS();
	if (r->last != NULL)
		advance(r, r->last);
	r->last = next_stream(r);
	return r->last ? r->last->doc : NULL;
}

/* Read what the shards have left to send (a LIMIT's rest: at most LIMIT + OFFSET a shard). */
void
shardread_close(ShardRead *r)
{
	for (int i = 0; i < r->n; i++)
	{
		r->reading = &r->streams[i];
		shardconn_drain(r->streams[i].conn, r->sql);
	}
	error_context_stack = r->context.previous;
}

/*
 * Run q (not an aggregate) on the shards, its merged results to emit;
 * false (nothing emitted) where a shard could not run it.
 */
bool
shardread_run(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoStmt   *s = q->stmt;
	ShardRead  *r = shardread_open(q);
	Jsonb	   *doc;
	int64		offset = s->offset ? (int64) s->offset->num : 0;
	int64		limit = s->limit ? (int64) s->limit->num : -1;

	if (r == NULL)
		return false;
	while (limit != 0 && (doc = shardread_next(r)) != NULL)
	{
		if (offset > 0)
			offset--;
		else
		{
			emit(arg, 0, doc);
			if (limit > 0)
				limit--;
		}
	}
	shardread_close(r);
	return true;
}

/* Whether every shard's dictionary has the coordinator's newest key. */
static bool
shards_know_keys(ArgoCollection *c, ShardConns *sc)
{
	char	   *sql = shardsql_has_key(c);
	const char *newest = shardread_keys_through(c);
	bool		all = true;

	if (newest == NULL)
		return true;
	for (int i = 0; i < sc->n; i++)
		shardconn_send(sc->conns[i], sql, 1, &newest, SHARD_WHOLE);
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
	ArgoStmt   *s = q->stmt;
	ShardConns	sc;
	List	   *lines = NIL;

	if (!shardread_open_shards(q, &sc) || !shards_know_keys(linitial(q->colls), &sc))
		return NIL;
	if (argo_is_aggregate(s))
		lines = lappend(lines, psprintf("-- each shard it needs (%d) runs the statement on its own objects at once, on postgres_fdw's connections, and returns its groups with partial aggregates; the coordinator adds up equal groups (counts and sums added, the extreme of MIN and MAX, AVG as sum over count)%s",
										sc.n, s->order_by || s->offset || s->limit ? ", then applies ORDER BY, OFFSET and LIMIT" : ""));
	else
		lines = lappend(lines, psprintf("-- each shard it needs (%d) runs the statement on its own objects at once, on postgres_fdw's connections, and returns %s with their object ids; the coordinator merges them %s%s",
										sc.n, s->limit ? "its first LIMIT + OFFSET results" : "its results",
										s->order_by ? "by the ORDER BY values in them, then object id" : "in object id order",
										s->offset || s->limit ? ", then applies OFFSET and LIMIT" : ""));
	return list_concat(lines, shardread_explain_each(q, &sc, "argo_shard_rows"));
}

/*
 * Each shard's own argo_explain of q, as lines naming the shard and the
 * function it runs q through.
 */
List *
shardread_explain_each(ArgoQuery *q, ShardConns *sc, const char *function)
{
	const char *values[2];
	char	  **asks = palloc(sizeof(char *) * Max(sc->n, 1));
	List	   *lines = NIL;

	values[0] = q->text;
	values[1] = shardread_params_text(q->params, q->nparams);
	for (int i = 0; i < sc->n; i++)
		shardconn_send(sc->conns[i], asks[i] = shardsql_explain(sc->schemas[i]), 2, values, SHARD_WHOLE);
	for (int i = 0; i < sc->n; i++)
	{
		PGresult   *res;

		lines = lappend(lines, psprintf("-- shard \"%s\" runs %s.%s(...), whose plan there is:",
										sc->names[i], sc->schemas[i], function));
		while ((res = shardconn_result(sc->conns[i], asks[i])) != NULL)
		{
			for (int row = 0; row < PQntuples(res); row++)
				lines = lappend(lines, psprintf("--   %s", PQgetvalue(res, row, 0)));
			PQclear(res);
		}
	}
	return lines;
}
