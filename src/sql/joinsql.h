/*
 * joinsql.h — the SQL of a SELECT over joins (joinsql.c): its tuples of
 * object ids, with or without the statement's order and limits.
 */
#ifndef ARGO_SQL_JOINSQL_H
#define ARGO_SQL_JOINSQL_H

#include "common/sqlbuf.h"
#include "parse/analyze.h"
#include "parse/expr.h"

extern uint32 joinsql_pred_sources(ArgoPred *p);
extern bool joinsql_asks_part(ArgoPred *p);
extern SqlBuf *joinsql_build(ArgoQuery *q);
extern SqlBuf *joinsql_ids(ArgoQuery *q);
extern SqlBuf *joinsql_tuples(ArgoQuery *q);
extern SqlBuf *joinsql_parts(ArgoQuery *q, int64 **ids, int64 n, int64 first);

#endif							/* ARGO_SQL_JOINSQL_H */
