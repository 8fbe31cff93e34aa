/*
 * shardrun.h — statements on distributed collections: a shard's part
 * (shardpart.c), the coordinator's merge of a SELECT (shardread.c), its
 * aggregates (shardagg.c), joins (shardjoin.c) and writes (shardwrite.c).
 */
#ifndef ARGO_EXEC_SHARDRUN_H
#define ARGO_EXEC_SHARDRUN_H

#include "utils/jsonb.h"

#include "store/collection.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "exec/results.h"

/* A join source's condition value m is named ARGO_JOIN_PREFIX "m" (shardpart.c) */
#define ARGO_JOIN_PREFIX "\001j"
/* A shard's partial aggregate i is named ARGO_PARTIAL_PREFIX "i" (shardpart.c) */
#define ARGO_PARTIAL_PREFIX "\001argo"

typedef struct ShardRead ShardRead;

/* shardpart.c */
extern bool argo_execute_part(const char *query, Jsonb **params, int nparams,
							  int32 keys_through, int64 row_limit,
							  result_emit emit, void *arg);
extern bool argo_execute_join_part(const char *query, Jsonb **params, int nparams,
								   int32 keys_through, int source, Jsonb *keyvals,
								   result_emit emit, void *arg);
extern void argo_execute_write_part(const char *query, Jsonb **params, int nparams,
									int32 keys_through, result_emit emit, void *arg);

/* shardread.c */
extern bool shardread_applies(ArgoQuery *q);
extern ShardRead *shardread_open(ArgoQuery *q);
extern ShardRead *shardread_open_source(ArgoQuery *q, int source, const char *keyvals);
extern bool shardread_open_shards(ArgoQuery *q, ShardConns *sc);
extern char *shardread_params_text(Jsonb **params, int nparams);
extern char *shardread_keys_through(ArgoCollection *c);
extern Jsonb *shardread_next(ShardRead *r);
extern void shardread_close(ShardRead *r);
extern bool shardread_run(ArgoQuery *q, result_emit emit, void *arg);
extern List *shardread_explain(ArgoQuery *q);
extern List *shardread_explain_each(ArgoQuery *q, ShardConns *sc, const char *function);

/* shardagg.c */
extern bool shardagg_applies(ArgoQuery *q);
extern bool shardagg_run(ArgoQuery *q, result_emit emit, void *arg);

/* shardjoin.c */
extern bool shardjoin_applies(ArgoQuery *q);
extern bool shardjoin_run(ArgoQuery *q, result_emit emit, void *arg);
extern List *shardjoin_explain(ArgoQuery *q);

/* shardwrite.c */
extern bool shardwrite_applies(ArgoQuery *q);
extern bool shardwrite_run(ArgoQuery *q, result_emit emit, void *arg);
extern List *shardwrite_explain(ArgoQuery *q);

#endif							/* ARGO_EXEC_SHARDRUN_H */
