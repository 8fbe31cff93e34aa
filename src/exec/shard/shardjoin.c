/*
 * shardjoin.c — a join of distributed collections: each FROM item's
 * objects pulled from its shards, the tuples made here.
 *
 * Through foreign tables a join reads every row of each condition's key
 * from every shard, then fetches each part by id, several foreign scans
 * a part.  Instead each shard runs the part of the statement that names
 * one FROM item (argo_shard_join_part, shardpart.c): the WHERE
 * conjuncts that name only that item, its objects whole or projected,
 * and the value of each join condition's path in them.  The items are
 * pulled in FROM order; a later item's shards are sent the distinct
 * values its condition must match when they are few (NoBench Q11's 100
 * left objects ask for their partners, not for every object), or nothing
 * where there are none.  Each later item's objects are hashed by their
 * condition's value as Argo's sort key writes it (the type, then the
 * value; a number as its double, as the rows' valnum compare), and the
 * tuples are made by walking the items left to right in object id
 * order, the order one server gives, a LEFT JOIN's part null where
 * nothing matched.  OFFSET and LIMIT count the tuples.
 *
 * With ORDER BY the tuples are kept and sorted when all are made, by the
 * ORDER BY paths' values in the pulled objects (Argo's sort keys), ties
 * in object id order.
 *
 * It takes joins whose collections are all distributed, without
 * aggregates, DISTINCT or ID(), whose WHERE conjuncts each name one FROM
 * item (not a LEFT JOIN's right side) and whose conditions each name an
 * earlier item; the others, and a join a shard cannot run its part of,
 * read the shards' tables (join.c).  The pulled parts stay in memory
 * until the last tuple is made, as a hash join's inner side would.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "doc/doc.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/join.h"
#include "exec/results.h"
#include "exec/shard/shardrun.h"

/* At most this many distinct values are sent to a later item's shards. */
#define REDUCE_MAX 10000

/* One FROM item's pulled objects, in object id order. */
typedef struct PulledItem
{
	int			n;
	int			max;
	Jsonb	  **docs;			/* the part, as the tuple shows it */
	StringInfoData **keys;		/* keys[m][row]: condition m's value (data NULL: none) */
	StringInfoData **order;		/* order[i][row]: ORDER BY item i's value, if it is this item's */
	int		   *heads;			/* by the item's own condition's value: first row, -1 */
	int		   *next;
	uint32		mask;
} PulledItem;

typedef struct ShardJoin
{
	ArgoQuery  *q;
	int			nitems;
	PulledItem	   *items;
	int		   *other;			/* other[m]: the earlier item condition m names */
	Jsonb	  **own_path;		/* own_path[m]: m's side, as a path in its object */
	Jsonb	  **other_path;		/* other_path[m]: the other side's */
	int			norder;
	int		   *order_item;		/* per ORDER BY item: the FROM item its path is in */
	Jsonb	  **order_path;		/* and the path in that item's objects */
	bool		keeping;		/* ORDER BY: tuples kept, sorted when all are made */
	int		   *tuples;			/* their rows, nitems a tuple */
	int64		ntuples;
	int64		maxtuples;
	int		   *rows;			/* the current tuple's row per item, -1: null part */
	Jsonb	  **parts;
	bool	   *nullpart;
	int64		offset;
	int64		limit;			/* -1: none */
	result_emit emit;
	void	   *arg;
	MemoryContext tuple_cxt;
} ShardJoin;

static ArgoSource *
source_of(ShardJoin *j, int k)
{
	return list_nth(j->q->stmt->from, k);
}

/*
 * A conjunct the shards can run: it names one FROM item, and no part.  Not
 * a LEFT JOIN's right side: its conjuncts are judged per tuple, where a
 * part without a match has no values (join.c), not before joining.
 */
static bool
conjunct_of_one(ArgoQuery *q, ArgoPred *p)
{
	uint32		srcs = joinsql_pred_sources(p);

	return srcs != 0 && (srcs & (srcs - 1)) == 0 && !joinsql_asks_part(p) &&
		!((ArgoSource *) list_nth(q->stmt->from, pg_rightmost_one_pos32(srcs)))->left_join;
}

/* The FROM item of condition m's path that is not m; -1 where the condition is not one of m and an earlier item. */
static int
other_item(ArgoSource *src, int m)
{
	if (src->on_left->source == m && src->on_right->source < m)
		return src->on_right->source;
	if (src->on_right->source == m && src->on_left->source < m)
		return src->on_left->source;
	return -1;
}

bool
shardjoin_applies(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ListCell   *lc;

	if (s->kind != ASTMT_SELECT || list_length(s->from) < 2 || list_length(s->from) > 32 ||
		argo_is_aggregate(s) || s->distinct || s->id_name || s->select_ids ||
		IsParallelWorker())
		return false;
	foreach(lc, s->order_by)
		if (((ArgoOrder *) lfirst(lc))->path->id)
			return false;
	foreach(lc, q->colls)
		if (!collection_is_distributed(lfirst(lc)))
			return false;
	for (int m = 1; m < list_length(s->from); m++)
		if (other_item(list_nth(s->from, m), m) < 0)
			return false;
	if (s->where != NULL)
	{
		List	   *conjuncts = s->where->kind == APRED_AND ? s->where->args : list_make1(s->where);

		foreach(lc, conjuncts)
			if (!conjunct_of_one(q, lfirst(lc)))
				return false;
	}
	foreach(lc, s->targets)
		if (((ArgoTarget *) lfirst(lc))->agg != AAGG_NONE ||
			((ArgoTarget *) lfirst(lc))->path->id)
			return false;
	return true;
}

/* path without its alias, as argo_doc_sort_key walks it in a whole object. */
static Jsonb *
path_in_object(ArgoPath *path)
{
	ArgoPath	alone = *path;

	alone.steps = list_delete_first(list_copy(path->steps));
	return DatumGetJsonbP(sql_path_steps(&alone));
}

/* Whether a key of a projected part is one a join condition's value came under. */
static bool
hidden_key(JsonbValue *k)
{
	int			len = strlen(ARGO_JOIN_PREFIX);

	return k->val.string.len >= len && memcmp(k->val.string.val, ARGO_JOIN_PREFIX, len) == 0;
}

/* A projected part without the join conditions' values. */
static Jsonb *
without_hidden(Jsonb *doc)
{
	JsonbParseState *st = NULL;
	JsonbIterator *it = JsonbIteratorInit(&doc->root);
	JsonbIteratorToken tok;
	JsonbValue	v;
	JsonbValue *res = NULL;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY && hidden_key(&v))
		{
			(void) JsonbIteratorNext(&it, &v, true);
			continue;
		}
		res = pushJsonbValue(&st, tok, tok < WJB_BEGIN_ARRAY ? &v : NULL);
	}
	return JsonbValueToJsonb(res);
}

/*
 * The sort key of a value in a pulled object (data NULL for none): at
 * path in a whole object, else under its own name in a projected one.
 */
static void
join_value_key(ShardJoin *j, Jsonb *doc, Jsonb *path, const char *name, StringInfo key)
{
	bool		found;

	initStringInfo(key);
	if (j->q->stmt->star)
		found = argo_doc_sort_key(doc, path, key);
	else
	{
		JsonbValue *v = getKeyJsonValueFromContainer(&doc->root, name, strlen(name), NULL);

		found = v != NULL && argo_value_sort_key(v, key);
	}
	if (!found)
	{
		pfree(key->data);
		key->data = NULL;
	}
}

/* Condition m's value in row doc of item k into key. */
static void
condition_key(ShardJoin *j, int k, int m, Jsonb *doc, StringInfo key)
{
	join_value_key(j, doc, k == m ? j->own_path[m] : j->other_path[m],
			  psprintf("%s%d", ARGO_JOIN_PREFIX, m), key);
}

static bool
in_condition(ShardJoin *j, int k, int m)
{
	return k == m || j->other[m] == k;
}

static void *
grown(void *p, Size size)
{
	return p == NULL ? palloc_extended(size, MCXT_ALLOC_HUGE) : repalloc_huge(p, size);
}

static void
part_add_row(ShardJoin *j, int k, Jsonb *doc)
{
	PulledItem	   *it = &j->items[k];

	if (it->n == it->max)
	{
		it->max = Max(it->max * 2, 64);
		it->docs = grown(it->docs, sizeof(Jsonb *) * it->max);
		for (int m = 1; m < j->nitems; m++)
			if (in_condition(j, k, m))
				it->keys[m] = grown(it->keys[m], sizeof(StringInfoData) * it->max);
		for (int i = 0; i < j->norder; i++)
			if (j->order_item[i] == k)
				it->order[i] = grown(it->order[i], sizeof(StringInfoData) * it->max);
	}
	for (int m = 1; m < j->nitems; m++)
		if (in_condition(j, k, m))
			condition_key(j, k, m, doc, &it->keys[m][it->n]);
	for (int i = 0; i < j->norder; i++)
		if (j->order_item[i] == k)
			join_value_key(j, doc, j->order_path[i], psprintf("%so%d", ARGO_JOIN_PREFIX, i),
					  &it->order[i][it->n]);
	it->docs[it->n] = j->q->stmt->star ? doc : without_hidden(doc);
	it->n++;
}

/* The value a sort key was made of, as JSON. */
static void
key_json(StringInfo key, StringInfo out)
{
	if (key->data[0] == '1')
	{
		uint64		bits = strtou64(key->data + 1, NULL, 16);
		double		d;

		bits = (bits & UINT64CONST(0x8000000000000000)) ? bits & ~UINT64CONST(0x8000000000000000) : ~bits;
		memcpy(&d, &bits, sizeof(d));
		appendStringInfo(out, "%.17g", d);
	}
	else if (key->data[0] == '2')
		escape_json(out, pnstrdup(key->data + 1, key->len - 1));
	else
		appendStringInfoString(out, key->data[1] == '1' ? "true" : "false");
}

static bool
keys_equal(StringInfo a, StringInfo b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* The rows whose values hash alike, for join_reduction() */
typedef struct SeenValue
{
	uint32		hash;
	List	   *rows;
} SeenValue;

/*
 * The distinct values item m's condition must match, as a JSON array;
 * NULL where there are too many to send (the shards send every object).
 * *none: there are none, so no object of m can match.
 */
static char *
join_reduction(ShardJoin *j, int m, bool *none)
{
	PulledItem	   *o = &j->items[j->other[m]];
	HTAB	   *seen;
	HASHCTL		ctl = {.keysize = sizeof(uint32), .entrysize = sizeof(SeenValue)};
	StringInfoData out;
	int			count = 0;

	ctl.hcxt = CurrentMemoryContext;
	seen = hash_create("argo join values", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	initStringInfo(&out);
	appendStringInfoChar(&out, '[');
	for (int r = 0; r < o->n; r++)
	{
		StringInfo	key = &o->keys[m][r];
		uint32		h;
		bool		found;
		SeenValue  *e;
		ListCell   *lc;
		bool		dup = false;

		CHECK_FOR_INTERRUPTS();
		if (key->data == NULL)
			continue;
		h = hash_bytes((unsigned char *) key->data, key->len);
		e = hash_search(seen, &h, HASH_ENTER, &found);
		if (!found)
			e->rows = NIL;
		foreach(lc, e->rows)
			dup |= keys_equal(&o->keys[m][lfirst_int(lc)], key);
		if (dup)
			continue;
		e->rows = lappend_int(e->rows, r);
		if (++count > REDUCE_MAX)
		{
			hash_destroy(seen);
			*none = false;
			return NULL;
		}
		if (count > 1)
			appendStringInfoChar(&out, ',');
		key_json(key, &out);
	}
	hash_destroy(seen);
	*none = count == 0;
	appendStringInfoChar(&out, ']');
	return out.data;
}

/* PulledItem m's rows by their own condition's value; each chain in object id order. */
static void
hash_item(ShardJoin *j, int m)
{
	PulledItem	   *it = &j->items[m];
	uint32		nbuckets = 1;

	while (nbuckets < (uint32) Max(it->n, 1))
		nbuckets <<= 1;
	it->mask = nbuckets - 1;
	it->heads = palloc_extended(sizeof(int) * nbuckets, MCXT_ALLOC_HUGE);
	memset(it->heads, -1, sizeof(int) * nbuckets);
	it->next = palloc_extended(sizeof(int) * Max(it->n, 1), MCXT_ALLOC_HUGE);
	for (int r = it->n - 1; r >= 0; r--)
	{
		StringInfo	key = &it->keys[m][r];
		uint32		b;

		CHECK_FOR_INTERRUPTS();
		if (key->data == NULL)
			continue;
		b = hash_bytes((unsigned char *) key->data, key->len) & it->mask;
		it->next[r] = it->heads[b];
		it->heads[b] = r;
	}
}

/* PulledItem k's objects from its shards; false where a shard cannot run its part. */
static bool
pull(ShardJoin *j, int k)
{
	const char *keyvals = NULL;
	ShardRead  *r;
	Jsonb	   *doc;
	bool		none = false;

	if (k > 0)
	{
		keyvals = join_reduction(j, k, &none);
		/* nothing of k can match: an inner join has no tuples, a left one null parts */
		if (none)
			return true;
	}
	r = shardread_open_source(j->q, k, keyvals);
	if (r == NULL)
		return false;
	while ((doc = shardread_next(r)) != NULL)
	{
		Jsonb	   *copy = palloc(VARSIZE(doc));

		memcpy(copy, doc, VARSIZE(doc));
		part_add_row(j, k, copy);
	}
	shardread_close(r);
	return true;
}

static void keep_tuple(ShardJoin *j);

/* The tuple j->rows, unless OFFSET skips it; false once LIMIT is reached. */
static bool
emit_tuple(ShardJoin *j)
{
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	if (j->keeping)
	{
		keep_tuple(j);
		return true;
	}
	if (j->offset > 0)
	{
		j->offset--;
		return true;
	}
	if (j->limit == 0)
		return false;
	for (int k = 0; k < j->nitems; k++)
	{
		j->nullpart[k] = j->rows[k] < 0;
		j->parts[k] = j->rows[k] < 0 ? NULL : j->items[k].docs[j->rows[k]];
	}
	old = MemoryContextSwitchTo(j->tuple_cxt);
	j->emit(j->arg, 0, join_tuple_object(j->q->stmt, j->parts, j->nullpart));
	MemoryContextSwitchTo(old);
	MemoryContextReset(j->tuple_cxt);
	if (j->limit > 0)
		j->limit--;
	return j->limit != 0;
}

/* ORDER BY: the tuple j->rows kept, to be sorted when all are made. */
static void
keep_tuple(ShardJoin *j)
{
	if (j->ntuples == j->maxtuples)
	{
		j->maxtuples *= 2;
		j->tuples = repalloc_huge(j->tuples, sizeof(int) * j->nitems * j->maxtuples);
	}
	memcpy(j->tuples + j->ntuples * j->nitems, j->rows, sizeof(int) * j->nitems);
	j->ntuples++;
}

/* ORDER BY's order of two kept tuples; ties in the order they were made. */
static int
cmp_tuples(const void *a, const void *b, void *arg)
{
	const int  *ra = a;
	const int  *rb = b;
	ShardJoin  *sorting = arg;
	ListCell   *lc;

	foreach(lc, sorting->q->stmt->order_by)
	{
		int			i = foreach_current_index(lc);
		int			k = sorting->order_item[i];
		StringInfoData none = {0};
		StringInfo	ka = ra[k] < 0 ? &none : &sorting->items[k].order[i][ra[k]];
		StringInfo	kb = rb[k] < 0 ? &none : &sorting->items[k].order[i][rb[k]];
		ArgoOrder  *ob = lfirst(lc);
		int			c = argo_sort_key_order(ka, kb, ob->desc, ob->nulls_first);

		if (c != 0)
			return c;
	}
	return ra[sorting->nitems] < rb[sorting->nitems] ? -1 : ra[sorting->nitems] > rb[sorting->nitems];
}

/* The kept tuples in ORDER BY's order, then OFFSET and LIMIT. */
static void
emit_sorted(ShardJoin *j)
{
	int			width = j->nitems + 1;
	int		   *sorted = palloc_extended(sizeof(int) * width * Max(j->ntuples, 1), MCXT_ALLOC_HUGE);

	/* each tuple with its place, for ties */
	for (int64 t = 0; t < j->ntuples; t++)
	{
		CHECK_FOR_INTERRUPTS();
		memcpy(sorted + t * width, j->tuples + t * j->nitems, sizeof(int) * j->nitems);
		sorted[t * width + j->nitems] = (int) t;
	}
	qsort_arg(sorted, j->ntuples, sizeof(int) * width, cmp_tuples, j);
	j->keeping = false;
	for (int64 t = 0; t < j->ntuples; t++)
	{
		memcpy(j->rows, sorted + t * width, sizeof(int) * j->nitems);
		if (!emit_tuple(j))
			break;
	}
}

/* The tuples from item m on, given the rows of the items before it; false once LIMIT is reached. */
static bool
walk(ShardJoin *j, int m)
{
	PulledItem	   *it;
	int			o;
	StringInfo	key;
	bool		matched = false;

	if (m == j->nitems)
		return emit_tuple(j);
	it = &j->items[m];
	o = j->other[m];
	key = j->rows[o] < 0 ? NULL : &j->items[o].keys[m][j->rows[o]];
	if (key != NULL && key->data != NULL && it->n > 0)
	{
		uint32		b = hash_bytes((unsigned char *) key->data, key->len) & it->mask;

		for (int r = it->heads[b]; r >= 0; r = it->next[r])
		{
			CHECK_FOR_INTERRUPTS();
			if (!keys_equal(&it->keys[m][r], key))
				continue;
			matched = true;
			j->rows[m] = r;
			if (!walk(j, m + 1))
				return false;
		}
	}
	if (matched || !source_of(j, m)->left_join)
		return true;
	j->rows[m] = -1;
	return walk(j, m + 1);
}

static void
setup(ShardJoin *j, ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoStmt   *s = q->stmt;

	j->q = q;
	j->nitems = list_length(s->from);
	j->items = palloc0(sizeof(PulledItem) * j->nitems);
	j->other = palloc0(sizeof(int) * j->nitems);
	j->own_path = palloc0(sizeof(Jsonb *) * j->nitems);
	j->other_path = palloc0(sizeof(Jsonb *) * j->nitems);
	for (int m = 1; m < j->nitems; m++)
	{
		ArgoSource *src = source_of(j, m);
		bool		left_is_own = src->on_left->source == m;

		j->other[m] = other_item(src, m);
		j->own_path[m] = path_in_object(left_is_own ? src->on_left : src->on_right);
		j->other_path[m] = path_in_object(left_is_own ? src->on_right : src->on_left);
	}
	j->norder = list_length(s->order_by);
	j->order_item = palloc0(sizeof(int) * Max(j->norder, 1));
	j->order_path = palloc0(sizeof(Jsonb *) * Max(j->norder, 1));
	for (int i = 0; i < j->norder; i++)
	{
		ArgoPath   *path = ((ArgoOrder *) list_nth(s->order_by, i))->path;

		j->order_item[i] = path->source;
		j->order_path[i] = path_in_object(path);
	}
	for (int k = 0; k < j->nitems; k++)
	{
		j->items[k].keys = palloc0(sizeof(StringInfoData *) * j->nitems);
		j->items[k].order = palloc0(sizeof(StringInfoData *) * Max(j->norder, 1));
	}
	if (j->norder > 0)
	{
		j->keeping = true;
		j->maxtuples = 1024;
		j->tuples = palloc_extended(sizeof(int) * j->nitems * j->maxtuples, MCXT_ALLOC_HUGE);
	}
	j->rows = palloc(sizeof(int) * j->nitems);
	j->parts = palloc0(sizeof(Jsonb *) * j->nitems);
	j->nullpart = palloc0(sizeof(bool) * j->nitems);
	j->offset = s->offset ? (int64) s->offset->num : 0;
	j->limit = s->limit ? (int64) s->limit->num : -1;
	j->emit = emit;
	j->arg = arg;
	j->tuple_cxt = AllocSetContextCreate(CurrentMemoryContext, "argo shard join tuple",
										 ALLOCSET_DEFAULT_SIZES);
}

/*
 * Run the join q (shardjoin_applies) from its items' shards, its tuples
 * to emit; false, having emitted nothing, where a shard could not run
 * its part.
 */
bool
shardjoin_run(ArgoQuery *q, result_emit emit, void *arg)
{
	ShardJoin	j = {0};

	setup(&j, q, emit, arg);
	for (int k = 0; k < j.nitems; k++)
	{
		if (!pull(&j, k))
			return false;
		if (k > 0)
			hash_item(&j, k);
	}
	if (j.limit == 0)
		return true;
	for (int r = 0; r < j.items[0].n; r++)
	{
		j.rows[0] = r;
		if (!walk(&j, 1))
			break;
	}
	if (j.keeping)
		emit_sorted(&j);
	return true;
}

/* argo_explain's lines for a join the shards' parts make. */
List *
shardjoin_explain(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	List	   *lines = NIL;
	ListCell   *lc;

	lines = lappend(lines, "-- each FROM item is pulled from its collection's shards (argo_shard_join_part, all of an item's shards at once): the WHERE conjuncts that name only it, its objects whole or as its targets, and its join conditions' values");
	foreach(lc, s->from)
	{
		ArgoSource *src = lfirst(lc);
		int			k = foreach_current_index(lc);

		lines = lappend(lines, psprintf("--   %d: \"%s\" from the shards of \"%s\"%s", k,
										src->alias ? src->alias : src->coll, src->coll,
										k == 0 ? "" :
										psprintf(", only objects whose condition's value is among the earlier items' (when at most %d distinct), hashed by it",
												 REDUCE_MAX)));
	}
	lines = lappend(lines, psprintf("-- the tuples are made here in object id order%s%s%s",
									s->order_by ? ", kept and sorted by the ORDER BY values in the pulled objects" : "",
									s->offset || s->limit ? ", then OFFSET and LIMIT" : "",
									"; a shard that cannot run its part: the shards' tables are read as for a join of local collections"));
	return lines;
}
