/*
 * aggsql.h — the SQL of an aggregate statement (aggsql.c): its groups'
 * and aggregates' columns, HAVING, ORDER BY and limits.
 */
#ifndef ARGO_SQL_AGGSQL_H
#define ARGO_SQL_AGGSQL_H

#include "common/sqlbuf.h"
#include "parse/analyze.h"

extern SqlBuf *aggsql_build(ArgoQuery *q);

#endif							/* ARGO_SQL_AGGSQL_H */
