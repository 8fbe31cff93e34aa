/*
 * execute.h — one statement run by its plan (execute.c), the reads one
 * SQL statement or a list of ids drives, and argo_explain (explain.c).
 */
#ifndef ARGO_EXEC_EXECUTE_H
#define ARGO_EXEC_EXECUTE_H

#include "utils/jsonb.h"

#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "exec/plan.h"
#include "exec/results.h"
#include "exec/stream.h"

/*
 * A read that one SQL statement (or a list of object ids) drives: each of
 * its rows goes to take; after the last, the rebuilder (if any) finishes.
 */
typedef struct RowDriver
{
	SqlBuf	   *sql;			/* the statement, or NULL: */
	const int64 *ids;			/* these objects, in output order */
	int			nids;
	row_fn		take;
	void	   *arg;
	Rebuilder  *rb;
} RowDriver;

/* execute.c */
extern void argo_execute(const char *query, Jsonb **params, int nparams,
						 result_emit emit, void *arg);
extern void argo_run_plan(ArgoPlan *p, result_emit emit, void *arg);
extern void argo_run_analyzed(ArgoQuery *q, result_emit emit, void *arg);
extern bool select_streams(ArgoPlan *p);
extern bool select_driver(ArgoPlan *p, result_emit emit, void *arg, RowDriver *d);

/* explain.c */
extern void argo_explain_failure(ErrorData *e);
extern List *argo_explain_query(const char *query, Jsonb **params, int nparams);

#endif							/* ARGO_EXEC_EXECUTE_H */
