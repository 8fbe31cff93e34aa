/*
 * analyze.h — a statement analysed (analyze.c): parameters bound, paths
 * flattened, types checked, collections looked up.
 */
#ifndef ARGO_PARSE_ANALYZE_H
#define ARGO_PARSE_ANALYZE_H

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "parse/expr.h"
#include "parse/parse.h"

typedef struct ArgoQuery
{
	ArgoStmt   *stmt;
	List	   *colls;			/* of ArgoCollection *, parallel to stmt->from */
	const char *text;
	Jsonb	  **params;			/* as given: a shard is sent text and these */
	int			nparams;
	/*
	 * Run by the processes of a parallel query, which the planner chose
	 * having found the projection's keys common (allobjects.c): every
	 * process takes the documents without counting them again.
	 */
	bool		shared;
	/*
	 * Bit k: the plan (exec/plan.c) found FROM item k's objects in the
	 * aggregate many — a sixteenth of the collection or more, or in a
	 * join more than the item's collection holds: their aggregated keys'
	 * rows are read whole and hashed rather than looked up one by one.
	 */
	uint32		setwise_sources;
} ArgoQuery;

extern Jsonb *literal_to_jsonb(ArgoLiteral *lit);
extern ArgoQuery *argo_analyze(ArgoStmt *stmt, const char *text,
							   Jsonb **params, int nparams);

extern bool argo_is_aggregate(ArgoStmt *s);
extern bool argo_value_aggregate(ArgoAggKind agg);
extern void argo_bind_lone_path(ArgoPath *path);
extern char *keypath_from_steps(List *steps);

/* prepqual.c: predicate rewrites for every reader of the tree */
extern ArgoPred *pred_prepare(ArgoPred *p);

#endif							/* ARGO_PARSE_ANALYZE_H */
