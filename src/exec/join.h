/*
 * join.h — joins: the types their conditions may pair, their tuples'
 * parts probed (join.c) or read set-wise when many (joinset.c); their SQL
 * is sql/joinsql.c's.
 */
#ifndef ARGO_EXEC_JOIN_H
#define ARGO_EXEC_JOIN_H

#include "utils/jsonb.h"

#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/objfetch.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/joinsql.h"
#include "exec/results.h"

/* join.c */
extern bool joins_distributed(ArgoQuery *q);
extern void run_join(ArgoQuery *q, ObjFetch **fetch, result_emit emit, void *arg);
extern void join_prune_types(ArgoQuery *q);
extern Jsonb *join_tuple_object(ArgoStmt *s, Jsonb **parts, bool *nullpart);
extern ObjFetch **join_fetchers(ArgoQuery *q);

/* joinset.c */
extern int64 joinset_threshold(ArgoQuery *q);
extern void joinset_fetch(ArgoQuery *q, int64 **ids, int64 n, int64 first,
						  rebuild_emit emit, void *arg);

#endif							/* ARGO_EXEC_JOIN_H */
