/*
 * fn.h — what the SQL-facing files share: argo_query's parameters, the
 * same whether it runs as a function or under its custom scan.
 */
#ifndef ARGO_FN_H
#define ARGO_FN_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/params.h"
#include "utils/jsonb.h"

/* argo.c: argo_query itself, which argo_query_read (planner.c) calls */
extern Datum argo_query(PG_FUNCTION_ARGS);
extern Jsonb **argo_params_of(Datum array, bool isnull, int *nparams);

/* rowmaps.c: the maps written again, for argo_repair and after a restore (restored.c) */
struct ArgoCollection;
extern bool argo_analyze_after_load;
extern bool argo_pack_restored_docs(struct ArgoCollection *c);
extern int64 argo_repair_maps(struct ArgoCollection *c);
extern int64 argo_repair_docs(struct ArgoCollection *c);

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

/* settings.c: argo_query's SET clauses, applied to its scan's work */
typedef struct ArgoSettings
{
	struct ArrayType *config;	/* the clauses, or NULL */
	bool		declared;		/* exactly the extension's own */
} ArgoSettings;
extern ArgoSettings *argo_settings_of(Oid funcid);
extern void argo_with_settings(ArgoSettings *s, void (*fn) (void *), void *arg);
extern void argo_run_statement(void (*fn) (void *), void *arg);

/* hint.c: the hint for a parameter that is not jsonb */
extern void argo_hint_init(void);

/* sample.c: the objects an admin function reads (ids NULL: all of them) */
typedef struct ObjSample
{
	int64		objects;		/* in the collection */
	int64		sampled;		/* whose rows are read */
	Datum		ids;			/* their ids as int8[], or 0: every object */
} ObjSample;
extern void objsample_take(struct ArgoCollection *c, int64 target, bool with_rows,
						   ObjSample *s);
extern int64 objsample_arg(FunctionCallInfo fcinfo, int argno);

#endif							/* ARGO_FN_H */
