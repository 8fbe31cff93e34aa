/*
 * fn.h — what the SQL-callable functions share, and what the backend's
 * hooks (backend/) take from them: argo_query and its parameters, the
 * same whether it runs as a function or under its custom scan, and the
 * functions' own settings.
 */
#ifndef ARGO_FN_H
#define ARGO_FN_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/params.h"
#include "utils/jsonb.h"

/* argo.c: argo_query itself (and argo_query_read, which the planner hook swaps in) */
extern Datum argo_query(PG_FUNCTION_ARGS);
extern Jsonb **argo_params_of(Datum array, bool isnull, int *nparams);

/* rowmaps.c: the maps written again, for argo_repair and after a restore (restored.c) */
struct ArgoCollection;
extern bool argo_analyze_after_load;
extern bool argo_pack_restored_docs(struct ArgoCollection *c);
extern int64 argo_repair_maps(struct ArgoCollection *c);
extern int64 argo_repair_docs(struct ArgoCollection *c);

/* settings.c: argo_query's SET clauses, applied to its scan's work */
typedef struct ArgoSettings
{
	struct ArrayType *config;	/* the clauses, or NULL */
	bool		declared;		/* exactly the extension's own */
} ArgoSettings;
extern ArgoSettings *argo_settings_of(Oid funcid);
extern void argo_with_settings(ArgoSettings *s, void (*fn) (void *), void *arg);
extern void argo_run_statement(void (*fn) (void *), void *arg);

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
