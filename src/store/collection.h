/*
 * collection.h — a collection and its tables: found by name (and
 * remembered per backend), made and dropped with Argo's indexes, its
 * owner, and what it keeps as its tables' comments (unique keys, expiry,
 * JSON Schema).
 */
#ifndef ARGO_COLLECTION_H
#define ARGO_COLLECTION_H

#include "nodes/parsenodes.h"
#include "storage/lockdefs.h"
#include "utils/jsonb.h"

/*
 * A collection's tables, by suffix: str, num, bool, data, keys, obj, and
 * doc where it keeps its objects' documents (docs.c).
 */
#define ARGO_NTABLES 7

typedef enum ArgoFormat
{
	ARGO_FORMAT_ARGO3,
	ARGO_FORMAT_ARGO1
} ArgoFormat;

typedef struct ArgoCollection
{
	char	   *name;
	ArgoFormat	format;
	/* quoted, schema-qualified names, ready to splice into SQL */
	char	   *str_table;		/* Argo/3 */
	char	   *num_table;
	char	   *bool_table;
	char	   *data_table;		/* Argo/1 */
	char	   *keys_table;		/* the key dictionary */
	char	   *obj_table;		/* the object directory */
	char	   *doc_table;		/* the kept documents (docs.c) */
	char	   *seq;
	Oid			relids[ARGO_NTABLES];	/* resolved and locked by the lookup */
	bool		docs_known;		/* relids' doc says whether it keeps them */
	struct KeyDict *dict;		/* this statement's, from keydict_of */
	bool		keys_copied;	/* a shard's write: keys only from this copy of the
								 * dictionary, those it lacks noted (shardpart.c) */
	bool		writer_checked; /* this lookup's writer privileges passed
								 * (collection_check_writes, docs.c) */
} ArgoCollection;

/* advisory locks' fourth field for collection names (catalog.c) */
#define ARGO_NAME_LOCK_SPACE 0x414E

/* catalog.c: collections made, found, dropped; their owner */
extern void collection_check_name(const char *name);
extern bool collection_name_valid(const char *name);
extern ArgoCollection *collection_lookup(const char *name, bool missing_ok,
										 int lockmode);
extern ArgoCollection *collection_create(const char *name, ArgoFormat format,
										 bool if_not_exists);
extern ArgoCollection *collection_create_distributed(const char *name, ArgoFormat format,
													 List *servers);
extern ArgoCollection *collection_open_for_insert(const char *name);
extern void collection_drop(const char *name, bool missing_ok);
extern void collection_check_may_create(void);
extern void collection_check_lock_privileges(const char *name, AclMode also);
extern Oid	collection_owner(ArgoCollection *c);
extern ArgoCollection *collection_open_as_owner(const char *name, LOCKMODE lockmode,
												const char *why, const char *hint);
extern double directory_objects(ArgoCollection *c);
extern bool collection_is_empty(ArgoCollection *coll);
extern ArgoFormat format_from_name(const char *fmt);
extern const char *const *collection_object_tables(ArgoCollection *c, int *n);
extern void collection_check_owner(ArgoCollection *c);

/* collcache.c: collections this backend found, by name */
extern bool collcache_get(const char *name, int lockmode, ArgoFormat *format, Oid *relids);
extern void collcache_put(const char *name, ArgoFormat format, Oid seq,
						  const Oid *lock_order, int nlocks, const Oid *relids);

/* tables.c: each table's columns and the dictionary */
extern const char *collection_table_columns(const char *suffix, bool distributed);
extern void collection_create_dictionary(ArgoCollection *c);

/* indexes.c: Argo's own indexes on the value tables */
extern void collection_create_indexes(ArgoCollection *coll);
extern List *collection_drop_indexes(ArgoCollection *coll);
extern void collection_rebuild_indexes(ArgoCollection *coll, List *dropped);
extern List *collection_missing_indexes(ArgoCollection *coll);

/* unique.c: unique keys, kept by partial unique indexes */
extern void collection_set_unique(ArgoCollection *c, const char *keystr, int32 keyid, bool on);
extern List *collection_unique_keys(ArgoCollection *c);
extern void unique_explain_violation(ErrorData *e);

/* expiry.c: a collection's expiry (argo_expire): its path and interval */
extern bool collection_expiry(ArgoCollection *c, char **path, char **after);
extern void collection_set_expiry(ArgoCollection *c, const char *path, const char *keystr,
								  const char *after);

/* schema.c: a collection's JSON Schema (argo_validate), and objects checked against it */
extern Jsonb *collection_schema(ArgoCollection *c);
extern void collection_set_schema(ArgoCollection *c, Jsonb *schema);
extern void collection_check_object(ArgoCollection *c, Jsonb *schema, Jsonb *obj);

#endif							/* ARGO_COLLECTION_H */
