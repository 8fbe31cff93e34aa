/*
 * aggregate.h — aggregates over objects or a join's tuples (aggregate.c).
 */
#ifndef ARGO_EXEC_AGGREGATE_H
#define ARGO_EXEC_AGGREGATE_H

#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "sql/aggsql.h"

/* aggregate.c */
extern void run_aggregate(ArgoQuery *q, rebuild_emit emit, void *arg);

#endif							/* ARGO_EXEC_AGGREGATE_H */
