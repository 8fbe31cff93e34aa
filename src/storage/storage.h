/*
 * storage.h — collections as tables: the catalog of a collection's tables,
 * Argo's indexes, the key dictionary, objects written as rows (through
 * SQL or as COPY writes them) and objects' rows read straight from the
 * heap.  Knows rows and keys; nothing of statements.
 */
#ifndef ARGO_STORAGE_H
#define ARGO_STORAGE_H

#include "common/common.h"
#include "doc/doc.h"
#include "nodes/parsenodes.h"
#include "storage/itemptr.h"
#include "utils/rel.h"

/*
 * A collection's tables, by suffix: str, num, bool, data, keys, obj, and
 * doc where it keeps its objects' documents (docs.c).
 */
#define ARGO_NTABLES 7

/*
 * Where a value row found says its object's kept document lies
 * (dochint.c): the row, to set its doctid again where it proves stale.
 */
typedef struct DocHint
{
	Oid			relid;			/* the row's table (InvalidOid: no row) */
	ItemPointerData row;		/* the value row */
	ItemPointerData doc;		/* its doctid (invalid: none) */
} DocHint;

/* ---------- collections (catalog.c) ---------- */

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
} ArgoCollection;

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

/* advisory locks' fourth field for collection names (catalog.c) */
#define ARGO_NAME_LOCK_SPACE 0x414E
extern double directory_objects(ArgoCollection *c);
extern const char *collection_table_columns(const char *suffix, bool distributed);
extern void collection_create_dictionary(ArgoCollection *c);

/* collcache.c: collections this backend found, by name */
extern bool collcache_get(const char *name, int lockmode, ArgoFormat *format, Oid *relids);
extern void collcache_put(const char *name, ArgoFormat format, Oid seq,
						  const Oid *lock_order, int nlocks, const Oid *relids);

/* indexes.c: Argo's own indexes on the value tables */
extern void collection_create_indexes(ArgoCollection *coll);
extern List *collection_drop_indexes(ArgoCollection *coll);
extern void collection_rebuild_indexes(ArgoCollection *coll, List *dropped);
extern List *collection_missing_indexes(ArgoCollection *coll);
extern bool collection_is_empty(ArgoCollection *coll);
extern ArgoFormat format_from_name(const char *fmt);

/* shards.c: collections spread over postgres_fdw servers */
extern void collection_check_shards(const char *name, List *servers);
extern void collection_create_shards(ArgoCollection *c, List *servers);
extern bool collection_is_distributed(ArgoCollection *c);

/* home.c: which database coordinates a distributed collection */
extern void collection_record_home(ArgoCollection *c);
extern void collection_check_home(ArgoCollection *c);
extern bool collection_is_shard_part(ArgoCollection *c);
extern void collection_mark_shard_part(ArgoCollection *c);
extern const char *const *collection_object_tables(ArgoCollection *c, int *n);
extern List *collection_shard_servers(ArgoCollection *c);
extern void collection_drop_shards(const char *name, List *servers);
extern void collection_check_shards_answer(const char *name, List *servers);
extern int64 collection_shards_size(const char *name, List *servers);
extern void shards_explain_failure(ErrorData *e);
extern void shards_note_collection(ArgoCollection *c);
extern List *directory_server_oids(Oid dir);

/* shardconn.c: statements sent to shards on postgres_fdw's connections */
struct pg_conn;
struct pg_result;
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

extern bool shardconn_open(ArgoCollection *c, ShardConns *out);
extern bool shardconn_open_servers(List *oids, ShardConns *out);
extern Oid	shardconn_server_of(ArgoCollection *c, int64 id);
extern void shardconn_dictionary_whole(ArgoCollection *c);
extern void shardconn_load(ArgoCollection *c, bool begin);

/* shardsession.c: Argo's own connections, for a read that is its own transaction */
extern void shardsession_note_write(void);
extern bool shardsession_usable(void);
extern struct pg_conn *shardsession_get(Oid server);
extern uint32 *shardsession_prepared(struct pg_conn *conn);
extern bool shardconn_prepare(struct pg_conn *conn, int which, const char *name,
							  const char *sql, int nparams);
extern void shardconn_send_prepared(struct pg_conn *conn, const char *name, int nparams,
									const char *const *values, ShardResults results);
extern void shardconn_send(struct pg_conn *conn, const char *sql, int nparams,
						   const char *const *values, ShardResults results);
extern struct pg_result *shardconn_result(struct pg_conn *conn, const char *sql);
extern void shardconn_drain(struct pg_conn *conn, const char *sql);
extern int64 shardconn_copy_keys(ArgoCollection *c, int n, const int32 *ids, char *const *keys);
struct ArgoRows;
extern void shardconn_write_rows(ArgoCollection *c, const char *table,
								 const struct ArgoRows *rows, const Oid *types);
extern bool shardconn_insert_objects(ArgoCollection *c, const Datum *objids, Jsonb **docs, int n);
extern int64 shardconn_copy_dictionary(ArgoCollection *c);

/* shardaccess.c: a role's privilege and user mappings for a distributed collection */
extern void collection_check_shard_access(ArgoCollection *c, AclMode mode);
extern char *shards_missing_mappings(ArgoCollection *c, Oid role);

/* feed.c: the change feed's messages, written with each change */
#define ARGO_FEED_PREFIX "argo"
/*
 * An event's token (its "_id"): its transaction's commit LSN and its
 * number there, in hex digits (feedplugin.c writes it, fn/feed.c reads it)
 */
#define FEED_LSN_DIGITS 16
#define FEED_TOKEN_DIGITS (FEED_LSN_DIGITS + 8)

typedef enum FeedMode
{
	FEED_OFF,
	FEED_CHANGES,				/* updates say what changed */
	FEED_FULL					/* … and carry the object after */
} FeedMode;

extern FeedMode feed_mode(ArgoCollection *c);
extern bool feed_before_change(ArgoCollection *c);
extern void feed_log_insert(ArgoCollection *c, int64 objid, Jsonb *doc);
extern void feed_log_update(ArgoCollection *c, FeedMode mode, bool before_change,
							int64 objid, Jsonb *before, Jsonb *after);
extern void feed_log_delete(ArgoCollection *c, int64 objid, Jsonb *before);
extern void feed_log_drop(ArgoCollection *c);
extern bool feed_body_valid(const char *op, const char *body, int len);
extern void drop_feed(ArgoCollection *c, bool collection_dropped);
extern void collection_check_owner(ArgoCollection *c);

/* ---------- the key dictionary (keydict.c) ---------- */

/*
 * Per-key statistics kept in the dictionary by argo_analyze: rows and
 * distinct values per type, and rows holding null (or marking {} / []).
 */
#define ARGO_KEY_STATS_COLUMNS \
	"rows_str bigint, distinct_str bigint, rows_num bigint, distinct_num bigint, " \
	"rows_bool bigint, distinct_bool bigint, rows_null bigint, analyzed_at pg_catalog.timestamptz"

typedef struct KeyDict KeyDict;

extern KeyDict *keydict_of(ArgoCollection *c);
extern const ArgoKey *keydict_get(KeyDict *d, int32 id);
extern bool keydict_knows(KeyDict *d, int32 id);
extern int32 keydict_find(KeyDict *d, const char *keystr);
extern List *keydict_subtree(KeyDict *d, const char *keystr);
extern List *keydict_in_array(KeyDict *d, const char *keystr);
extern List *keydict_elements(KeyDict *d, const char *keystr);
extern List *keydict_match(KeyDict *d, const char *prefix, const KeySeg *pattern,
						   int nsegs, bool subtree);
extern Datum keydict_id_array(List *keys);
extern void keydict_assign(ArgoCollection *c, char **keys, int n, int32 *ids);
extern void keydict_assign_existing(ArgoCollection *c, char **keys, int n, int32 *ids);
extern List *keydict_take_missing(void);
extern const char *keydict_cached_keystr(const char *coll, int32 id);

/* unique.c: unique keys, kept by partial unique indexes */
extern void collection_set_unique(ArgoCollection *c, const char *keystr, int32 keyid, bool on);
extern List *collection_unique_keys(ArgoCollection *c);
extern void unique_explain_violation(ErrorData *e);

/* ---------- object decomposition (decompose.c) ---------- */

typedef struct RowBatch RowBatch;

extern RowBatch *rowbatch_create(ArgoCollection *coll, bool directory);
extern void rowbatch_fix_keys(RowBatch *b);
extern char **rowbatch_object_keys(ArgoCollection *c, Jsonb *obj, int *n);
extern void rowbatch_add_object(RowBatch *batch, int64 objid, Jsonb *obj);
extern int	rowbatch_objects(RowBatch *batch);
extern void rowbatch_flush(RowBatch *batch);
extern void rowbatch_hold(RowBatch *batch);
extern void rowbatch_drop_common(RowBatch *a, RowBatch *b);
extern void rowbatch_delete(RowBatch *b);
struct RowLog;
extern bool rowbatch_flush_logged(RowBatch *b, struct RowLog *log);
extern int	rowbatch_pairs(RowBatch *b, int t, int64 **objids, int32 **keyids);
extern void rowbatch_clear(RowBatch *b);
extern void rowbatch_set_doc_tids(RowBatch *b, const int64 *ids, const ItemPointerData *tids, int n);
extern int64 *argo_next_objids(ArgoCollection *coll, int n);
extern void argo_check_object(Jsonb *obj);

/*
 * bulkinsert.c: rows for one table, by columns; a column missing from
 * cols is NULL in every row.
 */
#define ARGO_MAX_BULK_COLS 7
typedef struct ArgoRows
{
	int			n;
	int			ncols;
	const char *names[ARGO_MAX_BULK_COLS];
	Datum	   *cols[ARGO_MAX_BULK_COLS];
	bool	   *nulls[ARGO_MAX_BULK_COLS];	/* NULL: none is null */
	bool		append;			/* new objects: after the last page, so that
								 * rows lie in object order (not where the
								 * FSM finds space) */
	ItemPointerData *tids;		/* if not NULL: where each row went */
} ArgoRows;

extern bool argo_bulk_insert(Oid relid, int natts, const ArgoRows *rows);
extern bool argo_insertable_to_shards(Relation rel, int natts);
extern bool argo_shards_take_objects(ArgoCollection *c);
extern bool argo_shards_take_writes(ArgoCollection *c, AclMode mode);

/* rowmap.c: where an object's rows lie, kept in its directory row */
#define ROWMAP_MAX_TABLES 3

typedef struct RowRun
{
	BlockNumber block;
	OffsetNumber first;
	uint16		count;
} RowRun;

typedef struct RowMap
{
	uint32		epoch;
	int			ntables;
	int			nruns[ROWMAP_MAX_TABLES];
	RowRun	   *runs[ROWMAP_MAX_TABLES];
} RowMap;

extern uint32 rowmap_epoch(Relation *tables, int ntables);
extern bytea *rowmap_encode(uint32 epoch, int ntables, ItemPointerData **tids,
							const int *n);
extern bool rowmap_epoch_of(bytea *map, uint32 *epoch);
extern bool rowmap_decode(bytea *map, int ntables, RowMap *m);
extern AttrNumber rowmap_column(Relation dir);

/* docs.c: documents kept whole beside their rows, in c_doc */
extern bool argo_keep_documents_default;
/*
 * c_doc leaves a fifth of each page free, so that an update's new version
 * of a document goes on the same page, a HOT update that touches no index
 * (docs/design.md)
 */
#define ARGO_DOCS_FILLFACTOR 80
extern Oid	docs_find(ArgoCollection *c, LOCKMODE lockmode, Oid owner);
extern Oid	docs_relid(ArgoCollection *c);
extern void docs_create(ArgoCollection *c);
extern void docs_drop(ArgoCollection *c);
extern void docs_sync_rls(ArgoCollection *c);
extern bool docs_readable(ArgoCollection *c);
extern bool docs_text_index(ArgoCollection *c, Jsonb *path, Oid *config);
extern Jsonb *docs_value(Datum d, bool isnull);
extern bool docs_insertable(ArgoCollection *c);
extern void docs_check_writer(ArgoCollection *c);
extern ItemPointerData *docs_insert_new(ArgoCollection *c, int n, Datum *objids, Datum *docs);
typedef struct DocWriter DocWriter;
extern DocWriter *docwriter_open(ArgoCollection *c, AclMode mode);
extern ItemPointerData docwriter_put(DocWriter *w, int64 objid, Jsonb *doc,
									 const ItemPointerData *hint);
extern void docwriter_close(DocWriter *w);
extern void docs_forget(Oid relid, const int64 *ids, int n);
extern void docs_forget_all(Oid relid);

/* maprepair.c: the maps the objid indexes call for */
typedef void (*map_visit) (void *arg, int64 objid, bytea *stored, bytea *actual);
extern void rowmap_walk(ArgoCollection *c, const int64 *ids, int nids,
						map_visit fn, void *arg);
extern bool rowmap_equal(bytea *a, bytea *b);
extern bool rowmap_out_of_date(ArgoCollection *c);

/* fetch.c: objects' rows straight from the heap */
typedef struct ObjFetch ObjFetch;

extern ObjFetch *objfetch_open(ArgoCollection *c, List *keys, bool projection,
							   bool stream);
extern bool objfetch_object(ObjFetch *f, int64 objid, Rebuilder *rb);
extern void objfetch_close(ObjFetch *f);
extern bool objfetch_streams(ObjFetch *f);
extern void objfetch_every_object(ObjFetch *f);
extern void objfetch_ignore_docs(ObjFetch *f);
struct DocPath;
extern void objfetch_project_docs(ObjFetch *f, const struct DocPath *paths, int npaths);
extern bool objfetch_reads_directory(ObjFetch *f);
extern void objfetch_hint_doc(ObjFetch *f, DocHint *hint);
extern Snapshot objfetch_snapshot(ObjFetch *f);

/*
 * fetch.c can log the rows it hands out, with their tids, for a writer
 * that will delete some of them and write the object's new map.
 */
typedef struct LoggedRow
{
	int64		objid;
	int32		keyid;
	int16		table;			/* index among the format's value tables */
	bool		gone;			/* deleted since */
	ItemPointerData tid;
} LoggedRow;

typedef struct RowLog
{
	int			n;
	int			max;
	LoggedRow  *rows;
} RowLog;

extern void objfetch_log_rows(ObjFetch *f, RowLog *log);

/* objwrite.c: an UPDATE's or DELETE's writes from C */
typedef struct ObjWriter ObjWriter;

extern ObjWriter *objwriter_open(ArgoCollection *c, AclMode mode);
extern bool objwriter_possible(ArgoCollection *c);
extern void objwriter_check_privileges(ArgoCollection *c, AclMode mode);
extern void objwriter_close(ObjWriter *w);
extern uint32 objwriter_epoch(ObjWriter *w);
extern bool objwriter_lock(ObjWriter *w, int64 objid, Snapshot snap, bool *changed);
extern void objwriter_delete_rows(ObjWriter *w, int t, const ItemPointerData *tids, int n);
extern void objwriter_set_map(ObjWriter *w, int64 objid, bytea *map);
extern void objwriter_hint_doc(ObjWriter *w, int64 objid, const DocHint *hint);
extern ItemPointerData objwriter_put_doc(ObjWriter *w, int64 objid, Jsonb *doc);
extern bool objwriter_keeps_docs(ObjWriter *w);
extern void objwriter_delete_object(ObjWriter *w, int64 objid);

/* access.c: whether C may read or write a table directly */
extern void argo_table_resolved(ArgoCollection *c, const char *suffix, Oid relid);
extern Oid	argo_table_relid(ArgoCollection *c, const char *suffix);

/* expiry.c: a collection's expiry (argo_expire): its path and interval */
extern bool collection_expiry(ArgoCollection *c, char **path, char **after);
extern void collection_set_expiry(ArgoCollection *c, const char *path, const char *after);

/* schema.c: a collection's JSON Schema (argo_validate), and objects checked against it */
extern Jsonb *collection_schema(ArgoCollection *c);
extern void collection_set_schema(ArgoCollection *c, Jsonb *schema);
extern void collection_check_object(ArgoCollection *c, Jsonb *schema, Jsonb *obj);
extern Relation argo_open_table(ArgoCollection *c, const char *suffix);
extern void argo_check_privilege(Relation rel, AclMode mode);
extern void collection_check_writer(ArgoCollection *c);
extern bool argo_rls_applies(Relation rel);
extern bool argo_readable_directly(Relation rel);
extern bool argo_insertable_directly(Relation rel, int natts);
extern Oid	argo_objid_index(Relation rel);
extern Oid	argo_relation_owner(Oid relid);
extern bool argo_only_own_triggers(Relation rel);
extern Oid	argo_forget_rowmaps_oid(void);
extern Oid	argo_trigger_function_oid(const char *fn);
extern Oid	argo_resolved_relid(ArgoCollection *c, const char *suffix);

/* dochint.c: where a value row says its object's kept document lies */
extern DocHint dochint_make(Oid relid, const ItemPointerData *row, const ItemPointerData *doc);
extern DocHint dochint_none(void);
extern void dochint_refresh(DocHint *h, int64 objid, const ItemPointerData *root);

/* layout.c: a table's columns and objid index, remembered per backend */
typedef struct TableLayout
{
	AttrNumber	objatt;
	AttrNumber	keyatt;
	AttrNumber	valatt[4];		/* valstr, valnum, valbool, valexact (<= 0: none) */
	AttrNumber	docatt;			/* doctid (tid), or 0: a table made before 0.7 */
	bool		ids_first;		/* objid int8, keyid int4: columns 1 and 2 */
	Oid			objid_index;	/* a valid B-tree led by objid, or InvalidOid */
	Oid			valindex[3];	/* (keyid, value) of strings, numbers, booleans */
	bool		valcover[3];	/* that index has INCLUDE (objid, doctid) */
} TableLayout;
extern TableLayout argo_table_layout(Relation rel);
extern bool argo_is_prefix_expr(Node *e, AttrNumber valatt);

#endif							/* ARGO_STORAGE_H */
