/*
 * shardpart.c — a shard's part of a statement on a distributed
 * collection: the SELECT run here, on this server's own collection of
 * the same name, each result handed on with its object id, for the
 * coordinator to merge with the other shards' (shardread.c).
 *
 * The shard runs the statement as written but for what only the merge
 * can do: OFFSET counts the merged results, so a shard returns the first
 * LIMIT + OFFSET of its own (DISTINCT then counts distinct results, as
 * it does on one server).  The key ids in the shard's rows are the
 * coordinator's, and its dictionary a copy of the coordinator's, written
 * with each new key; keys_through, the coordinator's newest key id,
 * tells a shard whose copy is behind (a collection made before 0.7, or a
 * copy that failed) that it must not answer: a path it does not know
 * would match nothing, a wrong answer given quietly.
 *
 * An aggregate's part is its groups with each aggregate as this shard's
 * partial value, named by its place among the targets (COUNT a count,
 * SUM a sum, MIN and MAX this shard's extreme), for the coordinator to
 * combine (shardagg.c), an aggregate only HAVING names among them;
 * HAVING, ORDER BY, OFFSET and LIMIT are the combined groups', so no
 * shard applies them.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/jsonb.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "exec/execute.h"
#include "exec/results.h"
#include "exec/shard/shardrun.h"

static void
refuse(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a shard's part of a statement is a SELECT of one local collection"),
			 errdetail("%s", why)));
}

/* LIMIT + OFFSET (none for no LIMIT), OFFSET left to the merge. */
static void
limit_for_merge(ArgoStmt *s, int64 row_limit)
{
	s->offset = NULL;
	if (row_limit < 0)
		s->limit = NULL;
	else
	{
		s->limit = palloc0(sizeof(ArgoLiteral));
		s->limit->type = ALIT_NUMBER;
		s->limit->num = (double) row_limit;
	}
}

/* Each aggregate under the name the coordinator combines it by. */
static void
partial_aggregates(ArgoStmt *s)
{
	List	   *counts = NIL;
	ListCell   *lc;

	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		int			i = foreach_current_index(lc);

		if (t->agg == AAGG_COUNT_DISTINCT)
			refuse("Its aggregates do not combine.");
		if (t->agg != AAGG_NONE)
			t->alias = psprintf("%s%d", ARGO_PARTIAL_PREFIX, i);
		/* HAVING's own aggregates are the coordinator's to compare */
		t->hidden = false;
		/* AVG: its sum, and how many numbers it had (ARGO_PARTIAL_PREFIX "i" "n") */
		if (t->agg == AAGG_AVG)
		{
			ArgoTarget *n = palloc(sizeof(ArgoTarget));

			*n = *t;
			n->agg = AAGG_COUNT_NUMBERS;
			n->alias = psprintf("%s%dn", ARGO_PARTIAL_PREFIX, i);
			counts = lappend(counts, n);
			t->agg = AAGG_SUM;
		}
	}
	s->targets = list_concat(s->targets, counts);
	if (s->distinct)
		refuse("Its aggregates do not combine.");
	s->having = NULL;
	s->order_by = NIL;
	s->limit = s->offset = NULL;
}

/*
 * stmt analyzed here, SPI connected: on this server's own collection of
 * the name, which must not be distributed here too.
 */
static ArgoQuery *
analyze_here(ArgoStmt *stmt, const char *query, Jsonb **params, int nparams)
{
	ArgoQuery  *q;
	ArgoCollection *c;

	argo_spi_connect();
	q = argo_analyze(stmt, query, params, nparams);
	c = linitial(q->colls);
	if (collection_is_distributed(c))
		refuse(psprintf("\"%s\" is distributed here too", c->name));
	return q;
}

/* Whether this shard's copy of the dictionary lacks the coordinator's newest key. */
static bool
copy_behind(ArgoQuery *q, int32 keys_through)
{
	return keys_through > 0 && !keydict_knows(keydict_of(linitial(q->colls)), keys_through);
}

/*
 * Run query's part here; false, having run nothing, if this shard's
 * dictionary lacks key keys_through.  row_limit < 0: no LIMIT.
 */
bool
argo_execute_part(const char *query, Jsonb **params, int nparams,
				  int32 keys_through, int64 row_limit,
				  result_emit emit, void *arg)
{
	ArgoStmt   *stmt = argo_parse(query);
	ArgoQuery  *q;

	if (stmt->kind != ASTMT_SELECT || list_length(stmt->from) != 1)
		refuse("This is not one.");
	q = analyze_here(stmt, query, params, nparams);
	if (copy_behind(q, keys_through))
	{
		SPI_finish();
		return false;
	}
	if (argo_is_aggregate(stmt))
		partial_aggregates(stmt);
	else
		limit_for_merge(stmt, row_limit);
	argo_run_analyzed(q, emit, arg);
	SPI_finish();
	return true;
}

/*
 * A join's source, as the coordinator pulls it (shardjoin.c): the join's
 * FROM item source alone, with the WHERE conjuncts that name only it.
 * Its part is its objects whole (SELECT *) or its targets, with the
 * value of each join condition's path in it as a target of its own,
 * named ARGO_JOIN_PREFIX and the condition's FROM item (an ORDER BY
 * path's, "o" and its place among the ORDER BY items); keyvals, where
 * given, keeps only objects whose own condition's value is among them.
 * Paths are compared by their first step, the alias, before analysis.
 */

static const char *
source_name(ArgoSource *src)
{
	return src->alias ? src->alias : src->coll;
}

static bool
path_in(ArgoPath *path, const char *name)
{
	ArgoStep   *first;

	if (path == NULL || path->id || list_length(path->steps) < 2)
		return false;
	first = linitial(path->steps);
	return !first->is_index && strcmp(first->key, name) == 0;
}

/* Whether every path of p is of source name (and p names no part, id or aggregate). */
static bool
pred_in(ArgoPred *p, const char *name)
{
	ListCell   *lc;

	if (p->kind == APRED_ID || p->agg != NULL)
		return false;
	if (p->path != NULL && !path_in(p->path, name))
		return false;
	foreach(lc, p->args)
		if (!pred_in(lfirst(lc), name))
			return false;
	return p->left == NULL || pred_in(p->left, name);
}

static ArgoPath *
path_copy(ArgoPath *path)
{
	ArgoPath   *copy = palloc(sizeof(ArgoPath));

	*copy = *path;
	return copy;
}

/* WHERE's conjuncts of source name, ANDed (NULL for none). */
static ArgoPred *
source_where(ArgoPred *where, const char *name)
{
	List	   *conjuncts = where == NULL ? NIL :
		where->kind == APRED_AND ? where->args : list_make1(where);
	ArgoPred   *out = NULL;
	ListCell   *lc;

	foreach(lc, conjuncts)
		if (pred_in(lfirst(lc), name))
			out = out ? pred_combine(APRED_AND, out, lfirst(lc)) : lfirst(lc);
	return out;
}

/* The path of join condition m that lies in source name, or NULL. */
static ArgoPath *
condition_path(ArgoSource *on, const char *name)
{
	return path_in(on->on_left, name) ? on->on_left :
		path_in(on->on_right, name) ? on->on_right : NULL;
}

/*
 * The targets of source name, and each join condition's and ORDER BY
 * path in it under its own name.  The first FROM item's objects also
 * carry their ids: a projection leaves out objects with none of its
 * paths, and a LEFT JOIN keeps every left object.
 */
static List *
source_targets(ArgoStmt *s, const char *name, bool first)
{
	List	   *out = NIL;
	ListCell   *lc;

	if (first)
	{
		ArgoTarget *t = palloc0(sizeof(ArgoTarget));

		t->path = palloc0(sizeof(ArgoPath));
		t->path->id = true;
		t->path->keystr = "";
		t->alias = ARGO_JOIN_PREFIX "id";
		out = lappend(out, t);
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);

		if (t->agg == AAGG_NONE && path_in(t->path, name))
			out = lappend(out, t);
	}
	foreach(lc, s->order_by)
	{
		ArgoOrder  *ob = lfirst(lc);
		ArgoTarget *t;

		if (!path_in(ob->path, name))
			continue;
		t = palloc0(sizeof(ArgoTarget));
		t->path = path_copy(ob->path);
		t->alias = psprintf("%so%d", ARGO_JOIN_PREFIX, foreach_current_index(lc));
		t->location = ob->path->location;
		out = lappend(out, t);
	}
	for (int m = 1; m < list_length(s->from); m++)
	{
		ArgoPath   *path = condition_path(list_nth(s->from, m), name);
		ArgoTarget *t;

		if (path == NULL)
			continue;
		t = palloc0(sizeof(ArgoTarget));
		t->path = path_copy(path);
		t->alias = psprintf("%s%d", ARGO_JOIN_PREFIX, m);
		t->location = path->location;
		out = lappend(out, t);
	}
	return out;
}

/* keyvals as "path IN $n" on source's own condition's path. */
static ArgoPred *
part_reduction(ArgoSource *src, int paramno)
{
	ArgoPred   *in = palloc0(sizeof(ArgoPred));
	const char *name = source_name(src);

	in->kind = APRED_IN;
	in->op = ACMP_EQ;
	in->path = path_copy(path_in(src->on_left, name) ? src->on_left : src->on_right);
	in->list_param = palloc0(sizeof(ArgoLiteral));
	in->list_param->paramno = paramno;
	in->list_param->location = -1;
	return in;
}

/* stmt, a join, rewritten as the SELECT of its FROM item source. */
static void
source_statement(ArgoStmt *s, int source, bool reduce, int nparams)
{
	ArgoSource *src;
	ArgoSource *alone = palloc0(sizeof(ArgoSource));
	const char *name;

	if (s->kind != ASTMT_SELECT || list_length(s->from) < 2 || argo_is_aggregate(s) ||
		source < 0 || source >= list_length(s->from) || (reduce && source == 0))
		refuse("This is not a source of a join.");
	src = list_nth(s->from, source);
	name = source_name(src);
	if (condition_path(src, name) == NULL && source > 0)
		refuse("Its join condition does not name it.");
	if (!s->star)
		s->targets = source_targets(s, name, source == 0);
	s->where = source_where(s->where, name);
	if (reduce)
		s->where = s->where ? pred_combine(APRED_AND, s->where, part_reduction(src, nparams)) :
			part_reduction(src, nparams);
	alone->coll = src->coll;
	alone->alias = (char *) name;
	alone->location = src->location;
	s->from = list_make1(alone);
	s->order_by = NIL;
	s->limit = s->offset = NULL;
	s->distinct = false;
}

/*
 * Run source's part of the join query here (keyvals: NULL, or the values
 * its condition's path must have); false, having run nothing, if this
 * shard's dictionary lacks key keys_through.
 */
bool
argo_execute_join_part(const char *query, Jsonb **params, int nparams,
					   int32 keys_through, int source, Jsonb *keyvals,
					   result_emit emit, void *arg)
{
	ArgoStmt   *stmt = argo_parse(query);
	Jsonb	  **all = palloc(sizeof(Jsonb *) * (nparams + 1));
	ArgoQuery  *q;

	source_statement(stmt, source, keyvals != NULL, nparams + 1);
	memcpy(all, params, sizeof(Jsonb *) * nparams);
	all[nparams] = keyvals;
	q = analyze_here(stmt, query, all, nparams + (keyvals != NULL));
	if (copy_behind(q, keys_through))
	{
		SPI_finish();
		return false;
	}
	argo_run_analyzed(q, emit, arg);
	SPI_finish();
	return true;
}

/* {"missing": [keys]}: what this shard's copy lacked, nothing written. */
static Jsonb *
missing_result(List *keys)
{
	JsonbParseState *st = NULL;
	JsonbValue	v = {.type = jbvString};
	ListCell   *lc;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	v.val.string.val = "missing";
	v.val.string.len = 7;
	pushJsonbValue(&st, WJB_KEY, &v);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, keys)
	{
		v.val.string.val = lfirst(lc);
		v.val.string.len = strlen(lfirst(lc));
		pushJsonbValue(&st, WJB_ELEM, &v);
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/* The part a shard writes, with keys only from its copy of the dictionary. */
typedef struct WriteCall
{
	ArgoQuery  *q;
	result_emit emit;
	void	   *arg;
} WriteCall;

static void
write_with_copied_keys(void *arg)
{
	WriteCall  *w = arg;

	((ArgoCollection *) linitial(w->q->colls))->keys_copied = true;
	argo_run_analyzed(w->q, w->emit, w->arg);
}

/*
 * The write, in a subtransaction: where it meets keys this shard's copy
 * lacks (an APPEND past the longest array so far: keys the coordinator
 * could not foresee), what it wrote is rolled back and the keys are the
 * result, for the coordinator to add and send the write again.
 */
static void
run_write(ArgoQuery *q, result_emit emit, void *arg)
{
	WriteCall	w = {q, emit, arg};
	ErrorData  *e;
	List	   *missing;

	(void) keydict_take_missing();
	e = argo_in_subtransaction(write_with_copied_keys, &w);
	if (e == NULL)
		return;
	missing = keydict_take_missing();
	if (missing == NIL)
		ReThrowError(e);
	/* the objects RETURNING * sent before were rolled back: withdrawn */
	emit(arg, 0, NULL);
	emit(arg, 0, missing_result(missing));
}

/*
 * Run the UPDATE or DELETE query here, as the coordinator sends it
 * (shardwrite.c), its count (and ids) to emit: with keys only from this
 * shard's copy of the dictionary, which the coordinator brought up to
 * date in the same transaction (or else the keys it lacks, see
 * run_write); a copy behind key keys_through is an error, for a write
 * may not be taken back once some shard ran it.
 */
void
argo_execute_write_part(const char *query, Jsonb **params, int nparams,
						int32 keys_through, result_emit emit, void *arg)
{
	ArgoStmt   *stmt = argo_parse(query);
	ArgoQuery  *q;
	const char *name;

	if ((stmt->kind != ASTMT_UPDATE && stmt->kind != ASTMT_DELETE) || stmt->upsert)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a shard's part of a write is an UPDATE or DELETE of one local collection")));
	q = analyze_here(stmt, query, params, nparams);
	name = ((ArgoCollection *) linitial(q->colls))->name;
	if (copy_behind(q, keys_through))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("this shard's copy of the dictionary of \"%s\" lacks key %d", name, keys_through),
				 errhint("argo_repair('%s') on the coordinator copies the dictionary to its shards.", name)));
	run_write(q, emit, arg);
	SPI_finish();
}
