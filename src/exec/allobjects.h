/*
 * allobjects.h — every object of a collection (allobjects.c), or a
 * projection of every object in heap order (projscan.c).
 */
#ifndef ARGO_EXEC_ALLOBJECTS_H
#define ARGO_EXEC_ALLOBJECTS_H

#include "doc/doc.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "exec/plan.h"
#include "exec/results.h"

/* allobjects.c */
extern bool allobjects_applies(ArgoStmt *s);
extern bool allobjects_projects_every_object(ArgoStmt *s);
extern bool allobjects_projection_shared(ArgoStmt *s, const char *query);
extern bool allobjects_readable(ArgoQuery *q);
extern DocPath *allobjects_doc_paths(ArgoQuery *q, int *n);
extern bool allobjects_run(ArgoPlan *p, result_emit emit, void *arg);
extern void allobjects_take(void *arg, Datum *values, bool *nulls);

/* projscan.c */
extern bool projscan_run(ArgoQuery *q, Rebuilder *rb, result_emit emit, void *arg);

#endif							/* ARGO_EXEC_ALLOBJECTS_H */
