/*
 * shardagg.c — an aggregate of a distributed collection computed by its
 * shards and combined here.
 *
 * Each shard groups its own objects and gives every group with its
 * partial aggregates (shardpart.c); the coordinator adds up the groups
 * that are equal (the same group values, a missing one included): counts
 * and sums added, MIN and MAX the extreme of the shards' extremes in the
 * cross-type order (numbers, strings, booleans: the byte order of
 * argo_doc_sort_key's keys), AVG the sum of the shards' sums over the
 * sum of their counts of numbers.  Then ORDER BY, with ties in the
 * groups' own order as on one server, OFFSET and LIMIT; HAVING keeps the
 * groups it is true for (three-valued, as SQL compares there), the
 * aggregates only it names left out of the results.  COUNT(DISTINCT)
 * and DISTINCT read the shards' tables through the foreign tables, as
 * before.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "common/numbers.h"
#include "doc/doc.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/results.h"
#include "exec/shard/shardrun.h"

/* One aggregate of one group, as combined so far. */
typedef struct Partial
{
	bool		any;			/* some shard had a value */
	int64		count;
	Numeric		sum;			/* SUM, AVG: exact (reference.md §9.3), or NULL */
	JsonbValue	extreme;		/* MIN, MAX: the value */
	StringInfoData key;			/* and its sort key */
} Partial;

typedef struct AggGroup
{
	Jsonb	   *values;			/* the group's values, as results hold them */
	Partial    *partials;		/* per target */
	Jsonb	   *result;
	StringInfoData *keys;		/* per ORDER BY item, then per group path */
} AggGroup;

typedef struct Combine
{
	ArgoQuery  *q;
	HTAB	   *hashes;			/* hash of values -> List of AggGroup * */
	List	   *groups;
	MemoryContext cxt;
} Combine;

typedef struct HashEntry
{
	uint32		hash;
	List	   *groups;
} HashEntry;

/* Statements whose aggregates combine (shardpart.c refuses the others). */
bool
shardagg_applies(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ListCell   *lc;

	if (s->kind != ASTMT_SELECT || list_length(q->colls) != 1 || !argo_is_aggregate(s) ||
		s->distinct || IsParallelWorker() ||
		!collection_is_distributed(linitial(q->colls)))
		return false;
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg == AAGG_COUNT_DISTINCT)
			return false;
	}
	return true;
}

static bool
is_partial_name(JsonbValue *k)
{
	int			len = strlen(ARGO_PARTIAL_PREFIX);

	return k->val.string.len > len && memcmp(k->val.string.val, ARGO_PARTIAL_PREFIX, len) == 0;
}

/* A shard's result without its partials: the group's values. */
static Jsonb *
group_values(Jsonb *doc)
{
	JsonbIterator *it = JsonbIteratorInit(&doc->root);
	JsonbParseState *st = NULL;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;
	JsonbValue *res = NULL;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
		{
			res = pushJsonbValue(&st, tok, tok == WJB_BEGIN_OBJECT || tok == WJB_END_OBJECT ? NULL : &k);
			continue;
		}
		tok = JsonbIteratorNext(&it, &v, true);
		if (is_partial_name(&k))
			continue;
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &v);
	}
	return JsonbValueToJsonb(res);
}

/* The group equal to values, made if new. */
static AggGroup *
group_of(Combine *c, Jsonb *values)
{
	uint32		h = DatumGetUInt32(DirectFunctionCall1(jsonb_hash, JsonbPGetDatum(values)));
	bool		found;
	HashEntry  *e = hash_search(c->hashes, &h, HASH_ENTER, &found);
	ListCell   *lc;
	AggGroup   *g;
	MemoryContext old;

	if (!found)
		e->groups = NIL;
	foreach(lc, e->groups)
		if (compareJsonbContainers(&((AggGroup *) lfirst(lc))->values->root, &values->root) == 0)
			return lfirst(lc);
	old = MemoryContextSwitchTo(c->cxt);
	g = palloc0(sizeof(AggGroup));
	g->values = memcpy(palloc(VARSIZE(values)), values, VARSIZE(values));
	g->partials = palloc0(sizeof(Partial) * list_length(c->q->stmt->targets));
	e->groups = lappend(e->groups, g);
	c->groups = lappend(c->groups, g);
	MemoryContextSwitchTo(old);
	return g;
}

static double
number_of(JsonbValue *v)
{
	return argo_number_from_numeric(v->val.numeric, NULL);
}

/* v added to p's exact sum, in the combine's memory. */
static void
add_exact(Combine *c, Partial *p, JsonbValue *v)
{
	MemoryContext old = MemoryContextSwitchTo(c->cxt);

	p->sum = p->sum == NULL ? DatumGetNumericCopy(NumericGetDatum(v->val.numeric)) :
		DatumGetNumeric(DirectFunctionCall2(numeric_add, NumericGetDatum(p->sum),
											NumericGetDatum(v->val.numeric)));
	MemoryContextSwitchTo(old);
}

/* One shard's partial value v of target t, added to p. */
static void
combine(Combine *c, ArgoTarget *t, Partial *p, JsonbValue *v)
{
	StringInfoData key;
	int			cmp;

	if (v == NULL || v->type == jbvNull)
		return;
	switch (t->agg)
	{
		case AAGG_COUNT_STAR:
		case AAGG_COUNT:
			p->count += (int64) number_of(v);
			break;
		case AAGG_SUM:
			add_exact(c, p, v);
			break;
		case AAGG_MIN:
		case AAGG_MAX:
			initStringInfo(&key);
			(void) argo_value_sort_key(v, &key);
			cmp = p->any ? argo_sort_key_cmp(&key, &p->key) : 0;
			if (!p->any || (t->agg == AAGG_MIN ? cmp < 0 : cmp > 0))
			{
				MemoryContext old = MemoryContextSwitchTo(c->cxt);

				p->extreme = *v;
				if (v->type == jbvString)
					p->extreme.val.string.val = pnstrdup(v->val.string.val, v->val.string.len);
				else if (v->type == jbvNumeric)
					p->extreme.val.numeric = DatumGetNumericCopy(NumericGetDatum(v->val.numeric));
				p->key.data = NULL;
				initStringInfo(&p->key);
				appendBinaryStringInfo(&p->key, key.data, key.len);
				MemoryContextSwitchTo(old);
			}
			break;
		default:
			elog(ERROR, "a shard's aggregate that does not combine");
	}
	p->any = true;
}

/* A shard's partial by its name (shardpart.c), or NULL. */
static JsonbValue *
partial_named(Jsonb *doc, int i, const char *suffix)
{
	JsonbValue	name;

	name.type = jbvString;
	name.val.string.val = psprintf("%s%d%s", ARGO_PARTIAL_PREFIX, i, suffix);
	name.val.string.len = strlen(name.val.string.val);
	return findJsonbValueFromContainer(&doc->root, JB_FOBJECT, &name);
}

/* One shard's group: its partials added to the group's. */
static void
add_shard_group(Combine *c, Jsonb *doc)
{
	AggGroup   *g = group_of(c, group_values(doc));
	ListCell   *lc;

	foreach(lc, c->q->stmt->targets)
	{
		ArgoTarget *t = lfirst(lc);
		int			i = foreach_current_index(lc);
		Partial    *p = &g->partials[i];
		JsonbValue *v;

		if (t->agg == AAGG_NONE)
			continue;
		if (t->agg != AAGG_AVG)
		{
			combine(c, t, p, partial_named(doc, i, ""));
			continue;
		}
		/* AVG: the shard's sum and its count of numbers */
		if ((v = partial_named(doc, i, "n")) != NULL && v->type == jbvNumeric)
			p->count += (int64) number_of(v);
		if ((v = partial_named(doc, i, "")) != NULL && v->type == jbvNumeric)
		{
			add_exact(c, p, v);
			p->any = true;
		}
	}
}

/* A combined aggregate as the result holds it; null where no shard had a value. */
static JsonbValue
final_value(ArgoTarget *t, Partial *p)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	if (t->agg == AAGG_COUNT_STAR || t->agg == AAGG_COUNT)
		v.val.numeric = argo_number_to_numeric((double) p->count);
	else if (!p->any)
		v.type = jbvNull;
	else if (t->agg == AAGG_SUM)
		v.val.numeric = p->sum;
	else if (t->agg == AAGG_AVG)
		v.val.numeric = DatumGetNumeric(DirectFunctionCall2(numeric_div, NumericGetDatum(p->sum),
															NumericGetDatum(int64_to_numeric(Max(p->count, 1)))));
	else
		v = p->extreme;
	return v;
}

/* The group's result: its values, then each aggregate under its name. */
static Jsonb *
group_result(Combine *c, AggGroup *g)
{
	JsonbIterator *it = JsonbIteratorInit(&g->values->root);
	JsonbParseState *st = NULL;
	JsonbValue	v;
	JsonbIteratorToken tok;
	ListCell   *lc;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_END_OBJECT)
		pushJsonbValue(&st, tok, tok == WJB_BEGIN_OBJECT ? NULL : &v);
	foreach(lc, c->q->stmt->targets)
	{
		ArgoTarget *t = lfirst(lc);
		JsonbValue	k,
					val;

		if (t->agg == AAGG_NONE || t->hidden)
			continue;
		k.type = jbvString;
		k.val.string.val = t->alias;
		k.val.string.len = strlen(t->alias);
		val = final_value(t, &g->partials[foreach_current_index(lc)]);
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &val);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

static int	shardagg_target_index(ArgoStmt *s, ArgoTarget *t);

/*
 * One HAVING comparison, as SQL makes it (aggregate.c): the aggregate's
 * value of the literal's type against the literal; unknown (-1) where
 * the aggregate has no value of that type.
 */
static int
having_leaf(Combine *c, AggGroup *g, ArgoPred *p)
{
	JsonbValue	v = final_value(p->agg, &g->partials[shardagg_target_index(c->q->stmt, p->agg)]);
	ArgoLiteral *lit = p->lit;
	int			cmp;

	if (lit->type == ALIT_NUMBER && v.type == jbvNumeric)
	{
		double		d = argo_number_from_numeric(v.val.numeric, NULL);

		cmp = d < lit->num ? -1 : d > lit->num ? 1 : 0;
	}
	else if (lit->type == ALIT_STRING && v.type == jbvString)
	{
		int			len = strlen(lit->str);

		cmp = memcmp(v.val.string.val, lit->str, Min(v.val.string.len, len));
		if (cmp == 0)
			cmp = (v.val.string.len > len) - (v.val.string.len < len);
	}
	else if (lit->type == ALIT_BOOL && v.type == jbvBool)
		cmp = (int) v.val.boolean - (int) lit->b;
	else
		return -1;
	switch (p->op)
	{
		case ACMP_EQ:
			return cmp == 0;
		case ACMP_NE:
			return cmp != 0;
		case ACMP_LT:
			return cmp < 0;
		case ACMP_LE:
			return cmp <= 0;
		case ACMP_GT:
			return cmp > 0;
		case ACMP_GE:
			return cmp >= 0;
	}
	return -1;
}

/* HAVING in three-valued logic: 1 true, 0 false, -1 unknown. */
static int
having(Combine *c, AggGroup *g, ArgoPred *p)
{
	ListCell   *lc;
	int			r;

	check_stack_depth();
	switch (p->kind)
	{
		case APRED_AND:
		case APRED_OR:
			r = p->kind == APRED_AND ? 1 : 0;
			foreach(lc, p->args)
			{
				int			a = having(c, g, lfirst(lc));

				if (p->kind == APRED_AND)
					r = (a == 0 || r == 0) ? 0 : (a < 0 || r < 0) ? -1 : 1;
				else
					r = (a == 1 || r == 1) ? 1 : (a < 0 || r < 0) ? -1 : 0;
			}
			return r;
		case APRED_NOT:
			r = having(c, g, p->left);
			return r < 0 ? -1 : !r;
		default:
			return having_leaf(c, g, p);
	}
}

/*
 * Where a group path's value is in a result: under its output name when
 * a target renames it (one key), else at its path.
 */
static Jsonb *
result_steps(ArgoStmt *s, ArgoPath *path)
{
	ListCell   *lc;

	foreach(lc, s->group_by)
	{
		ArgoPath   *g = lfirst(lc);

		if (g->out_name != NULL && g->source == path->source &&
			strcmp(g->keystr, path->keystr) == 0)
		{
			JsonbParseState *st = NULL;
			JsonbValue	name = {.type = jbvString};

			name.val.string.val = g->out_name;
			name.val.string.len = strlen(g->out_name);
			pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
			pushJsonbValue(&st, WJB_ELEM, &name);
			return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
		}
	}
	return DatumGetJsonbP(sql_path_steps(path));
}

/* The sort key at path in doc into key (data NULL for none). */
static void
path_key(ArgoStmt *s, Jsonb *doc, ArgoPath *path, StringInfo key)
{
	initStringInfo(key);
	if (!argo_doc_sort_key(doc, result_steps(s, path), key))
		key->data = NULL;
}

static int
shardagg_target_index(ArgoStmt *s, ArgoTarget *t)
{
	ListCell   *lc;

	foreach(lc, s->targets)
		if (lfirst(lc) == t)
			return foreach_current_index(lc);
	elog(ERROR, "an aggregate ordered by that is not a target");
	return -1;
}

/* ORDER BY's keys, then the group paths' (ties in the groups' own order). */
static void
group_keys(Combine *c, AggGroup *g)
{
	ArgoStmt   *s = c->q->stmt;
	int			n = list_length(s->order_by);
	ListCell   *lc;

	g->keys = palloc0(sizeof(StringInfoData) * Max(n + list_length(s->group_by), 1));
	foreach(lc, s->order_by)
	{
		ArgoOrder  *o = lfirst(lc);
		StringInfo	key = &g->keys[foreach_current_index(lc)];

		if (o->agg == NULL)
			path_key(s, g->result, o->path, key);
		else
		{
			JsonbValue	v = final_value(o->agg, &g->partials[shardagg_target_index(s, o->agg)]);

			initStringInfo(key);
			if (!argo_value_sort_key(&v, key))
				key->data = NULL;
		}
	}
	foreach(lc, s->group_by)
		path_key(s, g->result, lfirst(lc), &g->keys[n + foreach_current_index(lc)]);
}

static ArgoStmt *sorting;

static int
cmp_groups(const ListCell *a, const ListCell *b)
{
	AggGroup   *ga = lfirst(a);
	AggGroup   *gb = lfirst(b);
	int			n = list_length(sorting->order_by);

	for (int i = 0; i < n + list_length(sorting->group_by); i++)
	{
		ArgoOrder  *ob = i < n ? list_nth(sorting->order_by, i) : NULL;
		int			c = ob ? argo_sort_key_order(&ga->keys[i], &gb->keys[i], ob->desc, ob->nulls_first) :
			argo_sort_key_cmp(&ga->keys[i], &gb->keys[i]);

		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * Run q's aggregates on the shards and combine them, the results to
 * emit; false (nothing emitted) where a shard could not run it.
 */
bool
shardagg_run(ArgoQuery *q, result_emit emit, void *arg)
{
	ArgoStmt   *s = q->stmt;
	ShardRead  *r = shardread_open(q);
	Combine		c = {q};
	HASHCTL		ctl;
	Jsonb	   *doc;
	ListCell   *lc;
	int64		offset = s->offset ? (int64) s->offset->num : 0;
	int64		limit = s->limit ? (int64) s->limit->num : -1;

	if (r == NULL)
		return false;
	c.cxt = CurrentMemoryContext;
	ctl.keysize = sizeof(uint32);
	ctl.entrysize = sizeof(HashEntry);
	ctl.hcxt = CurrentMemoryContext;
	c.hashes = hash_create("argo shard groups", 256, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	while ((doc = shardread_next(r)) != NULL)
		add_shard_group(&c, doc);
	shardread_close(r);
	/* HAVING keeps the groups for which it is true */
	if (s->having)
	{
		List	   *kept = NIL;

		foreach(lc, c.groups)
			if (having(&c, lfirst(lc), s->having) == 1)
				kept = lappend(kept, lfirst(lc));
		c.groups = kept;
	}
	foreach(lc, c.groups)
	{
		AggGroup   *g = lfirst(lc);

		g->result = group_result(&c, g);
		if (s->order_by)
			group_keys(&c, g);
	}
	if (s->order_by)
	{
		sorting = s;
		list_sort(c.groups, cmp_groups);
	}
	foreach(lc, c.groups)
	{
		if (limit == 0)
			break;
		if (offset > 0)
		{
			offset--;
			continue;
		}
		emit(arg, 0, ((AggGroup *) lfirst(lc))->result);
		if (limit > 0)
			limit--;
	}
	return true;
}
