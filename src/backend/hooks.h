/*
 * hooks.h — what runs inside PostgreSQL's backends without being called
 * from SQL: what _PG_init sets up (init.c), and what the planner hook,
 * the custom scan and the replanning of generic plans share.
 */
#ifndef ARGO_HOOKS_H
#define ARGO_HOOKS_H

#include "postgres.h"

#include "nodes/params.h"

/* customscan.c: FROM argo_query(...) as a custom scan */
struct Plan;
struct Query;
extern void argo_scan_init(void);
extern bool argo_plan_for_value(struct Plan *plan, ParamListInfo params,
								struct Query **query, int *options);

/* planner.c: the planner hook that lets reads of every object run in parallel */
extern bool argo_stream_results;
extern void argo_planner_init(void);
extern bool argo_statement_text(Node *arg, ParamListInfo params, Datum *value);
extern bool argo_shareable_text(Node *arg, ParamListInfo params, bool deep);
extern Oid	argo_planner_query_oid(void);
extern Oid	argo_planner_read_oid(void);
extern void argo_planner_learn_query_oid(Oid oid);
extern struct Query *argo_planner_replan_query(int *options);

/* replan.c: a generic plan planned again for its statement */
extern void argo_replan_init(void);

/* expireworker.c: the worker that deletes expired objects, and its setting */
extern void argo_expire_init(void);

/* hint.c: the hint for a parameter that is not jsonb */
extern void argo_hint_init(void);

#endif							/* ARGO_HOOKS_H */
