/*
 * plan.h — how a statement runs, chosen once (plan.c) for execution and
 * for argo_explain alike.
 */
#ifndef ARGO_EXEC_PLAN_H
#define ARGO_EXEC_PLAN_H

#include "doc/doc.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"

typedef enum ArgoStrategy
{
	ARGO_PLAN_INSERT,
	ARGO_PLAN_AGGREGATE,		/* one SQL statement, off the value rows or over objects */
	ARGO_PLAN_JOIN_FETCH,		/* tuples' ids by SQL; parts' rows from the heap */
	ARGO_PLAN_JOIN_SQL,			/* parts' rows through SQL */
	ARGO_PLAN_SELECT_IDS,		/* SELECT ID() */
	ARGO_PLAN_ALL_OBJECTS,		/* argo_object() per directory row */
	ARGO_PLAN_PROJECTION,		/* projected rows in heap order, else sorted by SQL */
	ARGO_PLAN_PROJECTION_DOCS,	/* every object's kept document, cut down */
	ARGO_PLAN_ROWS_SQL,			/* objects' rows through SQL */
	ARGO_PLAN_BATCHES,			/* ids by SQL, rows by SQL a batch at a time */
	ARGO_PLAN_LOOKUP,			/* objects found from C by an index; rows from the heap */
	ARGO_PLAN_FETCH,			/* objects picked by SQL; rows from the heap */
	ARGO_PLAN_DELETE,
	ARGO_PLAN_UPDATE,
	ARGO_PLAN_UPSERT,
	/* each shard runs its part (shardpart.c), merged here: */
	ARGO_PLAN_SHARD_READ,		/* objects or projections, in one order */
	ARGO_PLAN_SHARD_AGGREGATE,	/* the shards' groups combined */
	ARGO_PLAN_SHARD_JOIN,		/* each FROM item pulled, tuples made here */
	ARGO_PLAN_SHARD_WRITE		/* UPDATE or DELETE run by the shards */
} ArgoStrategy;

typedef struct ArgoPlan
{
	ArgoQuery  *q;
	ArgoStrategy strategy;
	ArgoPred   *point;			/* an equality answered from C (lookup.c) */
	int64	   *ids;			/* LOOKUP: what it found */
	DocHint    *doc_hints;		/* and where each one's kept document may lie */
	int			nids;
	bool		unchecked;		/* ids: ID() = n, the directory not asked yet */
	ObjFetch   *fetch;			/* LOOKUP, FETCH */
	ObjFetch  **join_fetch;		/* JOIN_FETCH */
	DocPath    *doc_paths;		/* PROJECTION_DOCS: the projection's paths */
	int			ndoc_paths;
} ArgoPlan;

/* plan.c */
extern ArgoPlan *argo_plan(ArgoQuery *q);
extern void argo_plan_local_select(ArgoPlan *p);
extern void argo_plan_local_write(ArgoPlan *p);
extern void argo_plan_close(ArgoPlan *p);
extern const char *argo_plan_name(ArgoPlan *p);

#endif							/* ARGO_EXEC_PLAN_H */
