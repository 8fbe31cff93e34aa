/*
 * writesql.h — the SQL a write runs around its writes from C (writesql.c).
 */
#ifndef ARGO_SQL_WRITESQL_H
#define ARGO_SQL_WRITESQL_H

#include "common/sqlbuf.h"
#include "store/collection.h"
#include "parse/expr.h"

extern SqlBuf *writesql_lock(ArgoCollection *c, ArgoPred *where, bool touch,
							 const int64 *ids, int n);
extern SqlBuf *writesql_ordered_ids(ArgoCollection *c, ArgoPred *where);
extern SqlBuf *writesql_forget_maps(ArgoCollection *c, const int64 *ids, int n);
extern SqlBuf *writesql_recheck(ArgoCollection *c, ArgoPred *where, const int64 *ids, int n);

#endif							/* ARGO_SQL_WRITESQL_H */
