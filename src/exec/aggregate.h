/*
 * aggregate.h — aggregates over objects or a join's tuples (aggregate.c),
 * and GROUP BY p[*] in one pass when every path goes into p's array
 * (unwind.c).
 */
#ifndef ARGO_EXEC_AGGREGATE_H
#define ARGO_EXEC_AGGREGATE_H

#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"

/* A target's result columns: one value, or MIN/MAX's three typed ones. */
typedef struct TargetCols
{
	int			n;
	char	   *col[3];			/* number, string, boolean for MIN/MAX */
} TargetCols;

/* aggregate.c */
extern SqlBuf *aggregate_sql(ArgoQuery *q);
extern void run_aggregate(ArgoQuery *q, rebuild_emit emit, void *arg);

/* unwind.c */
extern bool unwind_one_pass_applies(ArgoQuery *q);
extern SqlBuf *unwind_one_pass(ArgoQuery *q, ValueCols *groups, TargetCols *targets);

#endif							/* ARGO_EXEC_AGGREGATE_H */
