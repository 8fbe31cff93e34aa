/*
 * home.c — which database coordinates a distributed collection.
 *
 * A coordinator's tables are foreign tables naming the shards' tables,
 * so a copy of its database (pg_restore into another database or
 * cluster) would write into the same shards as the original: its ids,
 * drawn from a copy of the sequence, would collide with the original's
 * (23505), and keys it adds would be unknown to the original's
 * dictionary.  So the coordinator records itself — its database's OID
 * and its cluster's system identifier — as the comment of the
 * collection's directory, a comment pg_dump carries along, and a write
 * from any other database is refused until it adopts the shards
 * (argo_adopt_shards, when the copy replaces the original).  A physical
 * copy of the cluster keeps both and is not told apart.  Collections
 * made before this (no record) are not checked.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "commands/comment.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/shard/shard.h"

#define HOME_PREFIX "argo coordinator: "
#define SHARD_PART_MARK "argo shard part"

/* This database, as a home is recorded. */
static char *
home_here(void)
{
	return psprintf(HOME_PREFIX "database %u of cluster " UINT64_FORMAT,
					MyDatabaseId, GetSystemIdentifier());
}

/* Record this database as distributed collection c's coordinator. */
void
collection_record_home(ArgoCollection *c)
{
	run_ddl(psprintf("COMMENT ON TABLE %s IS %s", c->obj_table,
					 quote_literal_cstr(home_here())));
}

/* Refuse a write to c's shards from a database other than its coordinator. */
void
collection_check_home(ArgoCollection *c)
{
	char	   *home = GetComment(argo_table_relid(c, "obj"), RelationRelationId, 0);
	char	   *here;

	if (home == NULL || strncmp(home, HOME_PREFIX, strlen(HOME_PREFIX)) != 0)
		return;
	here = home_here();
	if (strcmp(home, here) == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("collection \"%s\" is coordinated from another database", c->name),
			 errdetail("Its shards take writes from there. It was made by %s; this is %s (a restored copy?).",
					   home + strlen(HOME_PREFIX), here + strlen(HOME_PREFIX)),
			 errhint("If this database replaces that one, argo_adopt_shards('%s') makes it the coordinator; never let two write.",
					 c->name)));
}

/* Whether c, here, is the part of a distributed collection a coordinator made. */
bool
collection_is_shard_part(ArgoCollection *c)
{
	char	   *mark = GetComment(argo_table_relid(c, "obj"), RelationRelationId, 0);

	return mark != NULL && strcmp(mark, SHARD_PART_MARK) == 0;
}

/* Mark c as a shard's part (its owner, as a coordinator connects). */
void
collection_mark_shard_part(ArgoCollection *c)
{
	run_ddl(psprintf("COMMENT ON TABLE %s IS %s", c->obj_table,
					 quote_literal_cstr(SHARD_PART_MARK)));
}
