/*
 * shardsql.h — the statements the coordinator sends its shards (shardsql.c).
 */
#ifndef ARGO_SQL_SHARDSQL_H
#define ARGO_SQL_SHARDSQL_H

#include "store/collection.h"

extern char *shardsql_part(const char *schema, bool binary, bool join_part);
extern char *shardsql_write(const char *schema);
extern char *shardsql_has_key(ArgoCollection *c);
extern char *shardsql_explain(const char *schema);

#endif							/* ARGO_SQL_SHARDSQL_H */
