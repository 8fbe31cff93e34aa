/*
 * shardwrite.c — an UPDATE or DELETE of a distributed collection run by
 * its shards.
 *
 * Through foreign tables a write locks its objects with an UPDATE per
 * shard, reads their rows back, and deletes and inserts the changed ones
 * table by table: a dozen round trips, and the objects rebuilt here.
 * Instead the statement goes whole, with its parameters, to the shards
 * it needs (one for WHERE ID() = n), all at once, on postgres_fdw's
 * connections inside the caller's remote transactions, and each runs it
 * on its own objects with its own Argo (argo_shard_write: the objects
 * locked, rechecked, rewritten from C as a local write does), taking
 * every key from its copy of the dictionary.  The keys a change is
 * known to add — a SET's value at a path of object keys, an increment's
 * number, the parent an UNSET may leave empty — are added here first
 * and copied to every shard in the same remote transactions.  Others
 * (APPEND past the longest array so far, changes at array positions)
 * only a shard meets: it rolls its part back and names them, and they
 * are added and copied and the write sent to that shard again.  UPSERT
 * is written the older way.  The shards' counts are added up here, and
 * their ids and the objects RETURNING * gives merged in id order.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "store/access.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "store/rowbatch.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/shardsql.h"
#include "exec/results.h"
#include "exec/shard/shardrun.h"

/* Rounds of keys a shard's part of a write may ask for before it is an error. */
#define MAX_KEY_ROUNDS 20

/* Whether every step of path is an object key. */
static bool
object_keys_only(ArgoPath *path)
{
	ListCell   *lc;

	if (path->id || path->wild)
		return false;
	foreach(lc, path->steps)
		if (((ArgoStep *) lfirst(lc))->is_index)
			return false;
	return true;
}

/* An UPDATE or DELETE of a distributed collection its shards can run. */
bool
shardwrite_applies(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);

	if ((s->kind != ASTMT_UPDATE && s->kind != ASTMT_DELETE) || s->upsert ||
		c == NULL || !collection_is_distributed(c) || IsParallelWorker())
		return false;
	return argo_shards_take_writes(c, s->kind == ASTMT_DELETE ? ACL_SELECT | ACL_DELETE :
								   ACL_SELECT | ACL_INSERT | ACL_UPDATE | ACL_DELETE);
}

/* {"a": {"b": value}} for path a.b: an object whose rows are value's at the path. */
static Jsonb *
value_at_path(ArgoPath *path, Jsonb *value)
{
	JsonbParseState *st = NULL;
	JsonbValue	v = {.type = jbvBinary};
	ListCell   *lc;

	foreach(lc, path->steps)
	{
		JsonbValue	k = {.type = jbvString};

		k.val.string.val = ((ArgoStep *) lfirst(lc))->key;
		k.val.string.len = strlen(k.val.string.val);
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		pushJsonbValue(&st, WJB_KEY, &k);
	}
	if (JB_ROOT_IS_SCALAR(value))
		(void) JsonbExtractScalar(&value->root, &v);
	else
	{
		v.val.binary.data = &value->root;
		v.val.binary.len = VARSIZE(value) - VARHDRSZ;
	}
	pushJsonbValue(&st, WJB_VALUE, &v);
	for (int i = 1; i < list_length(path->steps); i++)
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

static int
keystr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* keys (some twice) in the dictionary and every shard's copy */
static void
add_keys(ArgoCollection *c, List *keys)
{
	char	  **arr;
	int			n = 0;
	ListCell   *lc;

	if (keys == NIL)
		return;
	arr = palloc(sizeof(char *) * list_length(keys));
	foreach(lc, keys)
		arr[foreach_current_index(lc)] = lfirst(lc);
	qsort(arr, list_length(keys), sizeof(char *), keystr_cmp);
	for (int i = 0; i < list_length(keys); i++)
		if (n == 0 || strcmp(arr[n - 1], arr[i]) != 0)
			arr[n++] = arr[i];
	keydict_assign(c, arr, n, palloc(sizeof(int32) * n));
}

/*
 * The keys the statement's changes may give an object, in the dictionary
 * and every shard's copy: a SET's value's at its path, an increment's
 * number, and an UNSET's parent, which may be left an empty object.
 */
static void
assign_keys(ArgoQuery *q)
{
	ArgoCollection *c = linitial(q->colls);
	Jsonb	   *empty = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	Jsonb	   *zero = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("0")));
	List	   *keys = NIL;
	ListCell   *lc;

	foreach(lc, q->stmt->sets)
	{
		ArgoSetItem *item = lfirst(lc);
		ArgoPath	parent = *item->path;
		Jsonb	   *obj = NULL;
		int			nk;
		char	  **k;

		/* the others' keys depend on each object's arrays: the shards ask for them */
		if (!object_keys_only(item->path))
			continue;
		if (item->kind == ASET_SET)
			obj = value_at_path(item->path, item->value->value);
		else if (item->kind == ASET_INC)
			obj = value_at_path(item->path, zero);
		else if (item->kind == ASET_UNSET && list_length(item->path->steps) > 1)
		{
			parent.steps = list_truncate(list_copy(item->path->steps), list_length(item->path->steps) - 1);
			obj = value_at_path(&parent, empty);
		}
		if (obj == NULL)
			continue;
		k = rowbatch_object_keys(c, obj, &nk);
		for (int i = 0; i < nk; i++)
			keys = lappend(keys, k[i]);
	}
	add_keys(c, keys);
}

/* An object RETURNING * gives, with its id. */
typedef struct Returned
{
	int64		objid;
	Jsonb	   *doc;
} Returned;

/* What the shards said: their counts added, their ids and objects gathered. */
typedef struct WriteResult
{
	const char *what;			/* "updated", "deleted" */
	int64		total;
	int64	   *ids;
	int			nids;
	int			maxids;
	List	   *returned;		/* of Returned * */
} WriteResult;

/* The keys of a shard's {"missing": [...]}, added to *keys; false for another result. */
static bool
missing_keys(Jsonb *doc, List **keys)
{
	JsonbValue *m = getKeyJsonValueFromContainer(&doc->root, "missing", 7, NULL);

	if (m == NULL || m->type != jbvBinary || !JsonContainerIsArray(m->val.binary.data))
		return false;
	for (uint32 i = 0; i < JsonContainerSize(m->val.binary.data); i++)
	{
		JsonbValue *k = getIthJsonbValueFromContainer(m->val.binary.data, i);

		if (k == NULL || k->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("a shard's write named a key that is not a string")));
		*keys = lappend(*keys, pnstrdup(k->val.string.val, k->val.string.len));
	}
	return true;
}

/* One shard's result: its count (and ids) added; false where it lacked keys, added to *keys. */
static bool
add_shard_result(WriteResult *w, const char *text, List **keys)
{
	Jsonb	   *doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	JsonbValue *n;
	JsonbValue *ids;

	if (missing_keys(doc, keys))
		return false;
	n = getKeyJsonValueFromContainer(&doc->root, w->what, strlen(w->what), NULL);
	ids = getKeyJsonValueFromContainer(&doc->root, "ids", 3, NULL);

	if (n == NULL || n->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a shard's write returned no count of what it wrote"),
				 errdetail("It returned %s.", text)));
	w->total += DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(n->val.numeric)));
	if (ids == NULL || ids->type != jbvBinary || !JsonContainerIsArray(ids->val.binary.data))
		return true;
	for (uint32 i = 0; i < JsonContainerSize(ids->val.binary.data); i++)
	{
		JsonbValue *id = getIthJsonbValueFromContainer(ids->val.binary.data, i);

		CHECK_FOR_INTERRUPTS();
		if (id == NULL || id->type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("a shard's write returned an object id that is not a number"),
					 errdetail("It returned %s.", text)));
		if (w->nids == w->maxids)
		{
			w->maxids = Max(w->maxids * 2, 16);
			w->ids = w->ids ? repalloc(w->ids, sizeof(int64) * w->maxids) :
				palloc(sizeof(int64) * w->maxids);
		}
		w->ids[w->nids++] = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(id->val.numeric)));
	}
	return true;
}

/*
 * One row of a shard's answer: an object RETURNING * gives (its id > 0),
 * else its count or the keys it lacked; false for those.
 */
static bool
add_shard_row(WriteResult *w, PGresult *res, int row, List **keys)
{
	int64		objid = PQgetisnull(res, row, 0) ? 0 : pg_strtoint64(PQgetvalue(res, row, 0));
	Returned   *r;

	if (objid <= 0)
		return add_shard_result(w, PQgetvalue(res, row, 1), keys);
	r = palloc(sizeof(Returned));
	r->objid = objid;
	r->doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(PQgetvalue(res, row, 1))));
	w->returned = lappend(w->returned, r);
	return true;
}

static int
returned_cmp(const ListCell *a, const ListCell *b)
{
	int64		x = ((Returned *) lfirst(a))->objid;
	int64		y = ((Returned *) lfirst(b))->objid;

	return x < y ? -1 : x > y;
}

static int
int64_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y;
}

/* Which shard an error while it wrote came from. */
static void
write_context(void *arg)
{
	const char *const *server = arg;

	if (*server != NULL)
		errcontext("writing on shard \"%s\"", *server);
}

/*
 * Run q (shardwrite_applies) on its shards, its result to emit; false,
 * having sent nothing, where a shard cannot (another version of Argo, a
 * connection busy with a scan).
 */
bool
shardwrite_run(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	WriteResult w = {s->kind == ASTMT_DELETE ? "deleted" : "updated"};
	ShardConns	sc;
	const char *values[3];
	char	  **sql;
	bool	   *pending;
	const char *server = NULL;
	ErrorContextCallback context = {error_context_stack, write_context, &server};

	collection_check_home(c);
	shardsession_note_write();
	if (!shardread_open_shards(q, &sc))
		return false;
	shardconn_dictionary_whole(c);
	assign_keys(q);
	values[0] = q->text;
	values[1] = shardread_params_text(q->params, q->nparams);
	values[2] = shardread_keys_through(c);
	sql = palloc(sizeof(char *) * sc.n);
	pending = palloc(sizeof(bool) * sc.n);
	for (int i = 0; i < sc.n; i++)
	{
		sql[i] = shardsql_write(sc.schemas[i]);
		pending[i] = true;
	}
	for (int round = 0;; round++)
	{
		List	   *missing = NIL;

		error_context_stack = &context;
		for (int i = 0; i < sc.n; i++)
			if (pending[i])
				shardconn_send(sc.conns[i], sql[i], 3, values, SHARD_WHOLE);
		for (int i = 0; i < sc.n; i++)
		{
			PGresult   *res;

			if (!pending[i])
				continue;
			server = sc.names[i];
			/* done unless it names keys it lacks (RETURNING * may send no row at all) */
			pending[i] = false;
			while ((res = shardconn_result(sc.conns[i], sql[i])) != NULL)
			{
				for (int row = 0; row < PQntuples(res); row++)
					if (!add_shard_row(&w, res, row, &missing))
						pending[i] = true;
				PQclear(res);
			}
		}
		server = NULL;
		error_context_stack = context.previous;
		if (missing == NIL)
			break;
		/* each new key makes progress; a shard that asks on and on is broken */
		if (round == MAX_KEY_ROUNDS)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the shards of \"%s\" still lack keys after %d rounds of copying", c->name, round + 1)));
		/* the shards that lacked keys wrote nothing: the keys, then again */
		add_keys(c, missing);
		values[2] = shardread_keys_through(c);
	}
	if (s->returning == ARET_OBJECTS)
	{
		ListCell   *lc;

		/* in id order, as one server returns them */
		list_sort(w.returned, returned_cmp);
		foreach(lc, w.returned)
		{
			CHECK_FOR_INTERRUPTS();
			emit(arg, ((Returned *) lfirst(lc))->objid, ((Returned *) lfirst(lc))->doc);
		}
	}
	else if (s->returning == ARET_IDS)
	{
		if (w.nids > 1)
			qsort(w.ids, w.nids, sizeof(int64), int64_cmp);
		emit(arg, 0, s->kind == ASTMT_DELETE ? argo_write_ids_result("deleted", w.ids, w.nids) :
			 argo_upsert_ids_result(w.ids, w.nids, w.total, -1));
	}
	else
		emit(arg, 0, argo_count_result(w.what, w.total));
	return true;
}

/* argo_explain's lines for a write its shards run. */
List *
shardwrite_explain(ArgoQuery *q)
{
	ShardConns	sc;

	if (!shardread_open_shards(q, &sc))
		return NIL;
	return lcons(psprintf("-- each shard it needs (%d) runs the statement on its own objects at once (argo_shard_write), in the transaction's remote transactions on postgres_fdw's connections, with every key from its copy of the dictionary (the keys the changes are known to add are added here and copied to the shards first; a shard that meets others names them, and runs it again once they are copied); their counts%s are added up here",
						  sc.n, q->stmt->returning == ARET_IDS ? " and ids" : ""),
				 shardread_explain_each(q, &sc, "argo_shard_write"));
}
