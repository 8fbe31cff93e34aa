/*
 * plan.c — how a statement will run: the one place that chooses.
 *
 * Execution (execute.c) and argo_explain both take the strategy from
 * argo_plan, so explain always names the path that runs — including the
 * ones that find objects from C without any SQL.  A few choices can only
 * be made while running (a projection's table found out of order, a
 * join turning out to have many tuples); the plan names those as the
 * fallback they are.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "access/table.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/objfetch.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/joinsql.h"
#include "sql/sql.h"
#include "exec/allobjects.h"
#include "exec/join.h"
#include "exec/lookup.h"
#include "exec/plan.h"
#include "exec/results.h"
#include "exec/shard/shardrun.h"

/* Found by an equality, at most this many objects are sorted as a set. */
#define LOOKUP_SORT_MAX 1000

/* A projection of every object, in id order: for SQL (or projscan.c). */
static bool
projects_everything(ArgoStmt *s)
{
	return !s->star && !s->id_name && !s->where && !s->order_by && !s->limit && !s->offset;
}

/*
 * Rows straight from the heap, or NULL where some table must be read
 * through SQL.  A projection of the whole collection is left to SQL: it
 * reads just the projected keys' rows through the (keyid, value) indexes,
 * where fetching object by object would read every row (a key in 1% of
 * the objects: 150 ms instead of 3 ms at 100k objects).  Without ORDER
 * BY the objects come in id order: the tables are read forward beside
 * them, descending only where the ids jump.
 */
static ObjFetch *
select_fetcher(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	ObjFetch   *f;

	if (projects_everything(s))
		return NULL;
	f = objfetch_open(c, s->star ? NIL : projection_keys(c, s->targets, 0),
					  !s->star, s->order_by == NIL);
	if (f != NULL && s->id_name != NULL)
		objfetch_every_object(f);
	else if (f != NULL && !s->star)
	{
		int			n;
		DocPath    *paths = select_doc_paths(s, &n);

		if (paths != NULL)
			objfetch_project_docs(f, paths, n);
	}
	return f;
}

/*
 * How many values a read finds from C before it gives the search to SQL:
 * work_mem's worth of ids (each with its document's place, sorted as a
 * pair), or what SQL sorts as a set.
 */
static int
lookup_cap(ArgoStmt *s)
{
	if (s->order_by || s->limit || s->offset)
		return LOOKUP_SORT_MAX;
	return (int) Min((Size) work_mem * 1024 / 32, MaxAllocSize / 32);
}

/*
 * WHERE path = lit, a range, lit op ANY path or ID() = n: the objects
 * found from C (lookup.c), if not too many.  With ORDER BY or LIMIT only
 * when few enough for SQL to sort them as a set.
 */
static bool
plan_lookup(ArgoPlan *p)
{
	ArgoStmt   *s = p->q->stmt;
	bool		ordered = s->order_by || s->limit || s->offset;

	/*
	 * A range under ORDER BY or LIMIT is left to SQL, which reads it in
	 * order from its index and stops (YCSB E: key >= x ORDER BY key LIMIT
	 * n): found whole first, it would find up to 1,000 objects to give n.
	 */
	p->point = ordered ? lookup_pred(s->where) : lookup_read_pred(s->where);
	if (p->point == NULL)
		return false;
	/* ID() = n: the fetch reads the directory row, or finds there is none */
	if (p->point->kind == APRED_ID && objfetch_reads_directory(p->fetch) &&
		!ordered)
	{
		p->ids = palloc(sizeof(int64));
		p->ids[0] = (int64) p->point->lit->num;
		p->nids = 1;
		p->unchecked = true;
		return true;
	}
	p->ids = lookup_ids_docs(linitial(p->q->colls), p->point, GetActiveSnapshot(),
							 lookup_cap(s), &p->nids, &p->doc_hints);
	if (p->ids == NULL)
	{
		p->point = NULL;
		return false;
	}
	return !ordered || p->nids <= LOOKUP_SORT_MAX;
}

/* An AND's term finds its objects for the others only up to this many, */
#define DRIVER_MAX 5000
/* and only where the others together find at least this many. */
#define DRIVER_OTHERS_MIN 1000

/*
 * Of terms (of one collection's objects, ANDed), the one whose objects
 * the others are judged on, one by one (sql/predicate.c), where one term
 * finds few objects and the others many: counted from the indexes, each
 * up to DRIVER_MAX.  PostgreSQL cannot weigh that itself: its estimates
 * for a key's values in the shared value tables miss by orders of
 * magnitude (a week of orders, 2,000, estimated at 3), and an INTERSECT
 * reads every term's objects whatever their number.  Judging an object
 * costs about what finding it does, so the others together must find
 * more than twice the driver's.
 */
static void
mark_driver(ArgoCollection *c, List *terms)
{
	int64		best = -1;
	int64		others = 0;
	ArgoPred   *driver = NULL;
	ListCell   *lc;

	if (c == NULL || list_length(terms) < 2 || list_length(terms) > 16 ||
		collection_is_distributed(c) || !docs_readable(c))
		return;
	foreach(lc, terms)
	{
		ArgoPred   *a = lfirst(lc);
		int64		n = -1;

		if (lookup_read_pred(a) != NULL && a->kind != APRED_ID && a->kind != APRED_IN)
			n = lookup_count_entries(c, a, DRIVER_MAX + 1, GetActiveSnapshot());
		if (n >= 0 && n <= DRIVER_MAX && (best < 0 || n < best))
		{
			if (best >= 0)
				others += best;
			best = n;
			driver = a;
		}
		else
			others += n < 0 ? PG_INT64_MAX / 32 : n;
	}
	if (driver == NULL || others <= 2 * best || others < DRIVER_OTHERS_MIN)
		return;
	foreach(lc, terms)
		if (lfirst(lc) != driver && !sql_doc_judges(lfirst(lc)))
			return;
	driver->drives = true;
}

/*
 * WHERE's AND: its terms' driver (mark_driver); in a join, among each
 * FROM item's own terms, which sql/joinsql.c ANDs into that item's
 * filter.
 */
static void
plan_and_driver(ArgoQuery *q)
{
	ArgoPred   *w = q->stmt->where;
	ListCell   *lc;

	if (w == NULL || w->kind != APRED_AND)
		return;
	for (int k = 0; k < list_length(q->colls); k++)
	{
		List	   *terms = NIL;

		foreach(lc, w->args)
			if (joinsql_pred_sources(lfirst(lc)) == ((uint32) 1 << k) ||
				(list_length(q->colls) == 1 && joinsql_pred_sources(lfirst(lc)) == 0))
				terms = lappend(terms, lfirst(lc));
		mark_driver(list_nth(q->colls, k), terms);
	}
}

/* At least this many objects, a sixteenth of the collection, are many. */
#define SETWISE_MIN 5000

/* About how many objects c's directory holds (ANALYZE's, else its pages'). */
static double
directory_size(ArgoCollection *c)
{
	Relation	dir = argo_open_table(c, "obj");
	double		n = dir->rd_rel->reltuples;

	if (n < 0)
		n = (double) RelationGetNumberOfBlocks(dir) * (BLCKSZ / 40);
	table_close(dir, NoLock);
	return n;
}

/*
 * The term that finds FROM item k's objects, of WHERE's terms on k alone:
 * the one such term, or the AND's driver; NULL where none is counted.
 */
static ArgoPred *
finding_term(ArgoQuery *q, int k)
{
	ArgoPred   *w = q->stmt->where;
	ArgoPred   *leaf = NULL;
	int			n = 0;
	ListCell   *lc;

	if (w == NULL)
		return NULL;
	if (w->kind != APRED_AND)
		leaf = joinsql_pred_sources(w) == ((uint32) 1 << k) ? w : NULL;
	else
		foreach(lc, w->args)
		{
			ArgoPred   *a = lfirst(lc);

			if (joinsql_pred_sources(a) != ((uint32) 1 << k))
				continue;
			n++;
			if (a->drives || leaf == NULL)
				leaf = a;
		}
	if (leaf == NULL || (n > 1 && !leaf->drives) || lookup_read_pred(leaf) == NULL ||
		leaf->kind == APRED_ID || leaf->kind == APRED_IN)
		return NULL;
	return leaf;
}

/*
 * Which FROM items' aggregated keys are read whole (q->setwise_sources):
 * one scan and a hash per key instead of a probe per object, which costs
 * more once the objects are a sixteenth of the collection or, in a join,
 * more than another item's collection holds (a month's 8,282 orders
 * joined through 29,000 items to 5,000 products: each product's
 * category looked up 6 times).  Counted from the index of the term that
 * finds them; PostgreSQL estimated a fifteenth of them (2,001 of 30,326
 * orders of a status).
 */
static void
plan_values_setwise(ArgoQuery *q)
{
	int			n = list_length(q->colls);
	double	   *dir = palloc(sizeof(double) * n);
	double		largest = 0;

	if (!argo_is_aggregate(q->stmt) || q->stmt->where == NULL)
		return;
	for (int k = 0; k < n; k++)
	{
		if (list_nth(q->colls, k) == NULL || collection_is_distributed(list_nth(q->colls, k)))
			return;
		dir[k] = directory_size(list_nth(q->colls, k));
		largest = Max(largest, dir[k]);
	}
	for (int k = 0; k < n; k++)
	{
		ArgoPred   *leaf = finding_term(q, k);
		int64		want = (int64) (n == 1 ? Max(SETWISE_MIN, dir[0] / 16) : largest + 1);
		int64		found;

		if (leaf == NULL)
			continue;
		found = lookup_count_entries(list_nth(q->colls, k), leaf, want, GetActiveSnapshot());
		if (n == 1 && found >= want)
			q->setwise_sources |= 1;
		for (int j = 0; j < n && n > 1; j++)
			if (j != k && found >= 0 && dir[j] <= (double) found)
				q->setwise_sources |= (uint32) 1 << j;
	}
}

/* The value types an aggregate's scalar path's key holds now (ArgoPath.value_types). */
static void
ask_value_types(ArgoQuery *q, ArgoPath *path)
{
	ArgoCollection *c;

	if (path == NULL || path->wild || path->filtered || path->id)
		return;
	c = list_nth(q->colls, path->source);
	if (c == NULL || c->format != ARGO_FORMAT_ARGO3 || collection_is_distributed(c))
		return;
	path->value_types = VALUE_TYPES_KNOWN;
	for (int t = 0; t < 3; t++)
		if (lookup_key_may_have(c, path->keystr, t, GetActiveSnapshot()))
			path->value_types |= 1 << t;
}

/*
 * For an aggregate's group and aggregated paths, which value tables to
 * join: one descent of each (keyid, value) index.
 */
static void
plan_value_types(ArgoQuery *q)
{
	ListCell   *lc;

	if (!argo_is_aggregate(q->stmt))
	{
		ArgoStmt   *s = q->stmt;
		ArgoPred   *w = s->where;

		/* ORDER BY with LIMIT, of every object or WHERE p = x (sql/firstgroup.c) */
		if (s->limit && list_length(s->order_by) <= 3 &&
			(w == NULL || (w->kind == APRED_CMP && w->op == ACMP_EQ)))
			foreach(lc, q->stmt->order_by)
				ask_value_types(q, ((ArgoOrder *) lfirst(lc))->path);
		return;
	}
	foreach(lc, q->stmt->group_by)
		ask_value_types(q, lfirst(lc));
	foreach(lc, q->stmt->targets)
		ask_value_types(q, ((ArgoTarget *) lfirst(lc))->path);
}

/* How a SELECT runs here, reading a distributed collection's shards' tables. */
void
argo_plan_local_select(ArgoPlan *p)
{
	ArgoQuery  *q = p->q;
	ArgoStmt   *s = q->stmt;

	if (argo_is_aggregate(s))
		p->strategy = ARGO_PLAN_AGGREGATE;
	else if (list_length(s->from) > 1)
	{
		p->join_fetch = join_fetchers(q);
		p->strategy = p->join_fetch ? ARGO_PLAN_JOIN_FETCH : ARGO_PLAN_JOIN_SQL;
	}
	else if (s->select_ids)
		p->strategy = ARGO_PLAN_SELECT_IDS;
	else if (allobjects_applies(s) && allobjects_readable(q))
		p->strategy = ARGO_PLAN_ALL_OBJECTS;
	else if ((p->doc_paths = allobjects_doc_paths(q, &p->ndoc_paths)) != NULL)
		p->strategy = ARGO_PLAN_PROJECTION_DOCS;
	else if ((p->fetch = select_fetcher(q)) == NULL)
		p->strategy = projects_everything(s) ? ARGO_PLAN_PROJECTION :
			(s->where || s->order_by || s->limit || s->offset) &&
			collection_is_distributed(linitial(q->colls)) ? ARGO_PLAN_BATCHES :
			ARGO_PLAN_ROWS_SQL;
	else
		p->strategy = plan_lookup(p) ? ARGO_PLAN_LOOKUP : ARGO_PLAN_FETCH;
}

/* How an UPDATE or DELETE runs here (of a distributed collection: through its foreign tables). */
void
argo_plan_local_write(ArgoPlan *p)
{
	ArgoStmt   *s = p->q->stmt;

	/* a point write finds its objects from C, under the locks' snapshot */
	p->point = lookup_pred(s->where);
	p->strategy = s->kind == ASTMT_DELETE ? ARGO_PLAN_DELETE :
		s->upsert ? ARGO_PLAN_UPSERT : ARGO_PLAN_UPDATE;
}

/* Choose how q runs; what it opens, argo_plan_close closes. */
ArgoPlan *
argo_plan(ArgoQuery *q)
{
	ArgoPlan   *p = palloc0(sizeof(ArgoPlan));
	ArgoStmt   *s = q->stmt;

	p->q = q;
	/* the value types each join condition may pair, found once for its SQL */
	if (list_length(s->from) > 1)
		join_prune_types(q);
	/* statements over collections that exist (an UPSERT may make its own) */
	if (s->kind == ASTMT_SELECT || (s->kind != ASTMT_INSERT && !s->upsert))
	{
		plan_and_driver(q);
		plan_values_setwise(q);
		plan_value_types(q);
	}
	switch (s->kind)
	{
		case ASTMT_SELECT:
			/* a distributed collection's shards run it where they can: decided here, once */
			if (shardagg_applies(q))
				p->strategy = ARGO_PLAN_SHARD_AGGREGATE;
			else if (shardjoin_applies(q))
				p->strategy = ARGO_PLAN_SHARD_JOIN;
			else if (shardread_applies(q))
				p->strategy = ARGO_PLAN_SHARD_READ;
			else
				argo_plan_local_select(p);
			break;
		case ASTMT_INSERT:
			p->strategy = ARGO_PLAN_INSERT;
			break;
		case ASTMT_DELETE:
		case ASTMT_UPDATE:
			if (shardwrite_applies(q))
				p->strategy = ARGO_PLAN_SHARD_WRITE;
			else
				argo_plan_local_write(p);
			break;
	}
	return p;
}

void
argo_plan_close(ArgoPlan *p)
{
	if (p->fetch)
		objfetch_close(p->fetch);
	if (p->join_fetch)
		for (int k = 0; k < list_length(p->q->stmt->from); k++)
			objfetch_close(p->join_fetch[k]);
	p->fetch = NULL;
	p->join_fetch = NULL;
}

/* The strategy's name, as argo_explain's first line says it. */
const char *
argo_plan_name(ArgoPlan *p)
{
	static const char *const names[] = {
		[ARGO_PLAN_INSERT] = "insert",
		[ARGO_PLAN_AGGREGATE] = "aggregate",
		[ARGO_PLAN_JOIN_FETCH] = "join, parts from the heap",
		[ARGO_PLAN_JOIN_SQL] = "join, parts through SQL",
		[ARGO_PLAN_SELECT_IDS] = "object ids",
		[ARGO_PLAN_ALL_OBJECTS] = "every object",
		[ARGO_PLAN_PROJECTION] = "projection of every object",
		[ARGO_PLAN_PROJECTION_DOCS] = "projection of every object, from the kept documents",
		[ARGO_PLAN_ROWS_SQL] = "rows through SQL",
		[ARGO_PLAN_BATCHES] = "ids by SQL, rows by SQL in batches",
		[ARGO_PLAN_LOOKUP] = "index lookup from C",
		[ARGO_PLAN_FETCH] = "ids by SQL, rows from the heap",
		[ARGO_PLAN_DELETE] = "delete",
		[ARGO_PLAN_UPDATE] = "update",
		[ARGO_PLAN_UPSERT] = "upsert",
		[ARGO_PLAN_SHARD_READ] = "run by the shards, merged",
		[ARGO_PLAN_SHARD_AGGREGATE] = "run by the shards, merged",
		[ARGO_PLAN_SHARD_JOIN] = "run by the shards, merged",
		[ARGO_PLAN_SHARD_WRITE] = "run by the shards, merged",
	};

	return names[p->strategy];
}
