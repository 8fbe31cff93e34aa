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

#include "exec/exec.h"

static void
refuse(const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a shard's part of a statement is a SELECT of one local collection: %s", why)));
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
			refuse("its aggregates do not combine");
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
		refuse("its aggregates do not combine");
	s->having = NULL;
	s->order_by = NIL;
	s->limit = s->offset = NULL;
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
	ArgoCollection *c;

	if (stmt->kind != ASTMT_SELECT || list_length(stmt->from) != 1)
		refuse("this is not one");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	q = argo_analyze(stmt, query, params, nparams);
	c = linitial(q->colls);
	if (collection_is_distributed(c))
		refuse(psprintf("\"%s\" is distributed here too", c->name));
	if (keys_through > 0 && !keydict_knows(keydict_of(c), keys_through))
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
