/*
 * shardsql.c — the statements the coordinator sends its shards
 * (exec/shard/shardread.c, exec/shard/shardwrite.c): a shard's part of a read, of a
 * join's FROM item or of a write, each through the shard's own Argo
 * function in the schema its extension is in; whether a shard's
 * dictionary has a key; a shard's argo_explain.
 */
#include "postgres.h"

#include "common/sqlbuf.h"
#include "store/collection.h"
#include "sql/shardsql.h"

/*
 * A shard's part of a read (argo_shard_rows) or of a join's FROM item
 * (argo_shard_join_part), its documents as jsonb's binary form where the
 * shard sends it (binary) or as text.
 */
char *
shardsql_part(const char *schema, bool binary, bool join_part)
{
	return psprintf("SELECT objid, %s FROM %s.%s",
					binary ? psprintf("%s.argo_jsonb_bytes(doc)", schema) : "doc",
					schema,
					join_part ?
					"argo_shard_join_part($1, $2::pg_catalog.jsonb, $3::pg_catalog.int4, $4::pg_catalog.int4, $5::pg_catalog.jsonb)" :
					"argo_shard_rows($1, $2::pg_catalog.jsonb, $3::pg_catalog.int4, $4::pg_catalog.int8)");
}

/* A shard's part of a write (argo_shard_write). */
char *
shardsql_write(const char *schema)
{
	return psprintf("SELECT objid, doc FROM %s.argo_shard_write($1, $2::pg_catalog.jsonb, $3::pg_catalog.int4)",
					schema);
}

/* Whether c's dictionary (a shard's, through its foreign table's name) has key $1. */
char *
shardsql_has_key(ArgoCollection *c)
{
	return psprintf("SELECT 1 FROM %s WHERE keyid OPERATOR(pg_catalog.=) $1", c->keys_table);
}

/* A shard's argo_explain of a statement ($1) with its parameters ($2, a JSON array). */
char *
shardsql_explain(const char *schema)
{
	return psprintf("SELECT line FROM %s.argo_explain($1, VARIADIC ARRAY(SELECT pg_catalog.jsonb_array_elements($2::pg_catalog.jsonb))) line",
					schema);
}
