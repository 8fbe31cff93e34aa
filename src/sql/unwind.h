/*
 * unwind.h — GROUP BY p[*] in one pass over the value rows, when every
 * path goes into p's array (unwind.c), and the result columns of an
 * aggregate's target that aggregate.c and it write alike.
 */
#ifndef ARGO_SQL_UNWIND_H
#define ARGO_SQL_UNWIND_H

#include "common/sqlbuf.h"
#include "parse/analyze.h"
#include "sql/sql.h"

/* A target's result columns: one value, or MIN/MAX's three typed ones. */
typedef struct TargetCols
{
	int			n;
	char	   *col[3];			/* number, string, boolean for MIN/MAX */
} TargetCols;

extern bool unwind_one_pass_applies(ArgoQuery *q);
extern SqlBuf *unwind_one_pass(ArgoQuery *q, ValueCols *groups, TargetCols *targets);
extern bool unwind_docs_applies(ArgoQuery *q);
extern SqlBuf *unwind_docs(ArgoQuery *q, ValueCols *groups, TargetCols *targets);

#endif							/* ARGO_SQL_UNWIND_H */
