/*
 * shard.h — collections spread over postgres_fdw servers: made and
 * dropped (shards.c), the database that coordinates them (home.c),
 * statements sent on postgres_fdw's connections (shardconn.c) or Argo's
 * own (shardsession.c), and a role's access to them (shardaccess.c).
 */
#ifndef ARGO_SHARD_H
#define ARGO_SHARD_H

#include "utils/jsonb.h"

#include "store/collection.h"

struct pg_conn;
struct pg_result;
struct ArgoRows;

typedef struct ShardConns
{
	int			n;
	struct pg_conn **conns;		/* per server of the collection */
	char	  **schemas;		/* Argo's schema there, quoted */
	char	  **names;			/* the servers' names */
	Oid		   *servers;
	bool	   *binary;			/* its results may come as binary (same encoding) */
} ShardConns;

/* How a statement sent to a shard gives its results. */
typedef enum ShardResults
{
	SHARD_WHOLE,				/* one result, as text */
	SHARD_ROWS,					/* a row at a time, as text */
	SHARD_ROWS_BINARY			/* a row at a time, in binary */
} ShardResults;

/* shards.c */
extern void collection_check_shards(const char *name, List *servers);
extern void collection_create_shards(ArgoCollection *c, List *servers);
extern bool collection_is_distributed(ArgoCollection *c);
extern List *collection_shard_servers(ArgoCollection *c);
extern void collection_drop_shards(const char *name, List *servers);
extern void collection_check_shards_answer(const char *name, List *servers);
extern int64 collection_shards_size(const char *name, List *servers);
extern void shards_explain_failure(ErrorData *e);
extern void shards_note_collection(ArgoCollection *c);
extern List *directory_server_oids(Oid dir);

/* home.c */
extern void collection_record_home(ArgoCollection *c);
extern void collection_check_home(ArgoCollection *c);
extern bool collection_is_shard_part(ArgoCollection *c);
extern void collection_mark_shard_part(ArgoCollection *c);

/* shardconn.c */
extern bool shardconn_open(ArgoCollection *c, ShardConns *out);
extern bool shardconn_open_servers(List *oids, ShardConns *out);
extern Oid	shardconn_server_of(ArgoCollection *c, int64 id);
extern void shardconn_dictionary_whole(ArgoCollection *c);
extern void shardconn_load(ArgoCollection *c, bool begin);
extern bool shardconn_prepare(struct pg_conn *conn, int which, const char *name,
							  const char *sql, int nparams);
extern void shardconn_send_prepared(struct pg_conn *conn, const char *name, int nparams,
									const char *const *values, ShardResults results);
extern void shardconn_send(struct pg_conn *conn, const char *sql, int nparams,
						   const char *const *values, ShardResults results);
extern struct pg_result *shardconn_result(struct pg_conn *conn, const char *sql);
extern void shardconn_drain(struct pg_conn *conn, const char *sql);
extern int64 shardconn_copy_keys(ArgoCollection *c, int n, const int32 *ids, char *const *keys);
extern void shardconn_write_rows(ArgoCollection *c, const char *table,
								 const struct ArgoRows *rows, const Oid *types);
extern bool shardconn_insert_objects(ArgoCollection *c, const Datum *objids, Jsonb **docs, int n);
extern int64 shardconn_copy_dictionary(ArgoCollection *c);

/* shardsession.c */
extern void shardsession_note_write(void);
extern bool shardsession_usable(void);
extern struct pg_conn *shardsession_get(Oid server);
extern uint32 *shardsession_prepared(struct pg_conn *conn);

/* shardaccess.c */
extern void collection_check_shard_access(ArgoCollection *c, AclMode mode);
extern char *shards_missing_mappings(ArgoCollection *c, Oid role);

#endif							/* ARGO_SHARD_H */
