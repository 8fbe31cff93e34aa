/*
 * argo.h — shared definitions of the Argo extension.
 *
 * The pipeline is: scanner/grammar (scan.l, gram.y) build the parse tree
 * declared here; analyze.c binds parameters and checks it against the
 * collection; sqlgen.c / predicate.c turn it into SQL text with SPI
 * parameters; execute.c runs that SQL; decompose.c and reconstruct.c map
 * objects to rows and back.  keypath.c owns the flattened-key format.
 */
#ifndef ARGO_H
#define ARGO_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"
#include "executor/spi.h"
#include "utils/portal.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

/* Schema holding every collection's tables and sequence. */
#define ARGO_SCHEMA "argo_data"

/*
 * Flattened keys go into B-tree indexes, whose rows are limited to about
 * 2.7 kB; the key and the indexed prefix of a string value share that.
 */
#define ARGO_MAX_KEY_BYTES	1024
#define ARGO_STR_PREFIX_CHARS 256

/* ---------- parse tree ---------- */

typedef enum ArgoLitType
{
	ALIT_NULL,
	ALIT_STRING,
	ALIT_NUMBER,
	ALIT_BOOL
} ArgoLitType;

/* A literal; a parameter ($n) is a literal whose value is bound later. */
typedef struct ArgoLiteral
{
	ArgoLitType type;
	char	   *str;			/* ALIT_STRING */
	double		num;			/* ALIT_NUMBER */
	bool		b;				/* ALIT_BOOL */
	int			paramno;		/* > 0 for $n until bound */
	int			user_param;		/* the $n it was bound from, for argo_explain */
	int			location;
} ArgoLiteral;

/* One step of a path: an object key or an array index. */
typedef struct ArgoStep
{
	bool		is_index;
	char	   *key;
	int64		index;
} ArgoStep;

typedef struct ArgoPath
{
	List	   *steps;			/* of ArgoStep * */
	int			location;
	int			source;			/* index into the FROM list, after analysis */
	char	   *keystr;			/* flattened key, after analysis */
} ArgoPath;

typedef enum ArgoCmpOp
{
	ACMP_EQ,
	ACMP_NE,
	ACMP_LT,
	ACMP_LE,
	ACMP_GT,
	ACMP_GE
} ArgoCmpOp;

typedef enum ArgoPredKind
{
	APRED_AND,					/* args: two or more, flattened */
	APRED_OR,
	APRED_NOT,					/* left */
	APRED_CMP,					/* path op lit */
	APRED_LIKE,					/* path LIKE lit */
	APRED_BETWEEN,				/* path BETWEEN lit AND lit2 */
	APRED_ANY,					/* lit op ANY path */
	APRED_IN,					/* path IN (lits) */
	APRED_EXISTS,				/* EXISTS path */
	APRED_ISNULL,				/* path IS NULL */
	APRED_ISNOTNULL,			/* path IS NOT NULL */
	APRED_ID					/* ID() op lit, ID() IN (lits): no path */
} ArgoPredKind;

typedef struct ArgoPred
{
	ArgoPredKind kind;
	struct ArgoPred *left;		/* NOT */
	List	   *args;			/* AND, OR: of ArgoPred *, none of the same kind */
	ArgoPath   *path;
	ArgoCmpOp	op;
	ArgoLiteral *lit;
	ArgoLiteral *lit2;
	List	   *lits;			/* IN: of ArgoLiteral * */
	ArgoLiteral *list_param;	/* IN $n: a JSON array, becomes lits */
} ArgoPred;

/* A AND B (or OR): one n-ary node, however long the chain. */
extern ArgoPred *pred_combine(ArgoPredKind kind, ArgoPred *a, ArgoPred *b);

typedef enum ArgoAggKind
{
	AAGG_NONE,
	AAGG_COUNT_STAR,
	AAGG_COUNT,
	AAGG_SUM,
	AAGG_AVG,
	AAGG_MIN,
	AAGG_MAX
} ArgoAggKind;

/* A SELECT target: a path, or an aggregate over one. */
typedef struct ArgoTarget
{
	ArgoAggKind agg;
	ArgoPath   *path;			/* NULL for COUNT(*) */
	char	   *alias;			/* output name of an aggregate */
	int			location;
} ArgoTarget;

/* A FROM item; join conditions are on every item after the first. */
typedef struct ArgoSource
{
	char	   *coll;
	char	   *alias;
	int			location;
	ArgoPath   *on_left;
	ArgoPath   *on_right;
} ArgoSource;

typedef struct ArgoOrder
{
	ArgoPath   *path;
	bool		desc;
} ArgoOrder;

/* A JSON value given inline ({…}, […], a scalar) or as a parameter. */
typedef struct ArgoJson
{
	char	   *text;			/* JSON text, or NULL for a parameter */
	ArgoLiteral *lit;			/* a scalar literal (SET p = 'x') */
	int			paramno;
	int			location;
	Jsonb	   *value;			/* after analysis */
} ArgoJson;

typedef enum ArgoSetKind
{
	ASET_SET,					/* p = v */
	ASET_UNSET,					/* UNSET p */
	ASET_INC,					/* p += n, p -= n */
	ASET_APPEND,				/* p APPEND v */
	ASET_ADD,					/* p ADD v: append unless an equal element is there */
	ASET_REMOVE					/* p REMOVE v: every equal element */
} ArgoSetKind;

typedef struct ArgoSetItem
{
	ArgoSetKind kind;
	ArgoPath   *path;
	ArgoJson   *value;			/* NULL for UNSET */
	bool		negate;			/* -= */
} ArgoSetItem;

typedef enum ArgoStmtKind
{
	ASTMT_SELECT,
	ASTMT_INSERT,
	ASTMT_DELETE,
	ASTMT_UPDATE
} ArgoStmtKind;

typedef struct ArgoStmt
{
	ArgoStmtKind kind;
	bool		star;			/* SELECT * */
	List	   *targets;		/* of ArgoTarget * */
	List	   *from;			/* of ArgoSource *; one item for DML */
	ArgoPred   *where;
	ArgoPath   *group_by;
	List	   *order_by;		/* of ArgoOrder * */
	ArgoLiteral *limit;
	ArgoLiteral *offset;
	List	   *objects;		/* INSERT: of ArgoJson * */
	List	   *sets;			/* UPDATE: of ArgoSetItem * */
	bool		upsert;			/* UPSERT: insert when nothing matches */
	bool		returning_ids;	/* INSERT … RETURNING ID */
	bool		select_ids;		/* SELECT ID() */
} ArgoStmt;

/* ---------- parser (gram.y, scan.l) ---------- */

extern ArgoStmt *argo_parse(const char *query);

/* Raise a 42601 syntax error pointing into the Argo/SQL text. */
extern void argo_syntax_error(const char *query, int location,
							  const char *fmt,...) pg_attribute_printf(3, 4);

/* errors.c: errors that quote a bounded excerpt of long statements */
extern int	argo_errquery(const char *query, int location);
extern void argo_with_bounded_errors(void (*fn) (void *), void *arg);

/* ---------- keys (keypath.c) ---------- */

/* Kinds of row a flattened key can stand for. */
#define ARGO_MARK_EMPTY_OBJECT	"{}"
#define ARGO_MARK_EMPTY_ARRAY	"[]"

extern void keypath_append_key(StringInfo buf, const char *key, int len,
							   bool first);
extern void keypath_append_index(StringInfo buf, int64 index);
extern char *keypath_from_steps(List *steps);
extern void keypath_check_length(int len);
extern char *keypath_prefix_upper(const char *prefix);
extern struct HTAB *keystr_hash_create(const char *name, Size entrysize,
									   MemoryContext cxt);

/* A parsed flattened key. */
typedef enum KeySegKind
{
	KSEG_KEY,
	KSEG_INDEX,
	KSEG_EMPTY_OBJECT,
	KSEG_EMPTY_ARRAY
} KeySegKind;

typedef struct KeySeg
{
	KeySegKind	kind;
	const char *key;			/* unescaped, not terminated */
	int			keylen;
	int64		index;
} KeySeg;

extern int	keypath_parse(const char *keystr, int len, KeySeg **segs);
extern int	keyseg_cmp(const KeySeg *a, const KeySeg *b);

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
	char	   *seq;
	struct KeyDict *dict;		/* this statement's, from keydict_of */
} ArgoCollection;

extern void collection_check_name(const char *name);
extern ArgoCollection *collection_lookup(const char *name, bool missing_ok,
										 int lockmode);
extern char *argo_function(const char *fn);
extern ArgoCollection *collection_create(const char *name, ArgoFormat format,
										 bool if_not_exists);
extern ArgoCollection *collection_open_for_insert(const char *name);
extern void collection_drop(const char *name, bool missing_ok);
extern void collection_check_may_create(void);
extern void run_ddl(const char *sql);

/* indexes.c: Argo's own indexes on the value tables */
extern void collection_create_indexes(ArgoCollection *coll);
extern List *collection_drop_indexes(ArgoCollection *coll);
extern void collection_rebuild_indexes(ArgoCollection *coll, List *dropped);
extern bool collection_is_empty(ArgoCollection *coll);
extern ArgoFormat format_from_name(const char *fmt);

/* ---------- the key dictionary (keydict.c) ---------- */

/*
 * Per-key statistics kept in the dictionary by argo_analyze: rows and
 * distinct values per type, and rows holding null (or marking {} / []).
 */
#define ARGO_KEY_STATS_COLUMNS \
	"rows_str bigint, distinct_str bigint, rows_num bigint, distinct_num bigint, " \
	"rows_bool bigint, distinct_bool bigint, rows_null bigint, analyzed_at pg_catalog.timestamptz"

/* A key as the dictionary knows it, parsed once per backend. */
typedef struct ArgoKey
{
	int32		id;
	char	   *str;
	int			len;
	KeySeg	   *segs;
	int			nsegs;
} ArgoKey;

typedef struct KeyDict KeyDict;

extern KeyDict *keydict_of(ArgoCollection *c);
extern const ArgoKey *keydict_get(KeyDict *d, int32 id);
extern int32 keydict_find(KeyDict *d, const char *keystr);
extern List *keydict_subtree(KeyDict *d, const char *keystr);
extern List *keydict_in_array(KeyDict *d, const char *keystr);
extern List *keydict_elements(KeyDict *d, const char *keystr);
extern Datum keydict_id_array(List *keys);
extern void keydict_assign(ArgoCollection *c, char **keys, int n, int32 *ids);

/* ---------- numbers (numbers.c) ---------- */

extern double argo_number_from_numeric(Numeric num, char **exact);
extern Numeric argo_number_to_numeric(double d);
extern Numeric argo_number_from_exact(text *exact, double d);

/* ---------- SQL building (sqlbuf.c) ---------- */

/* SQL text plus the values of its $n parameters. */
typedef struct SqlBuf
{
	StringInfoData sql;
	int			nparams;
	int			maxparams;
	Oid		   *types;
	Datum	   *values;
	char	   *nulls;
	const char **notes;			/* what each parameter is, for argo_explain */
	bool		custom_plan;	/* its best plan depends on the values */
	bool		generic_plan;	/* … never does: plan it once */
} SqlBuf;

extern SqlBuf *sqlbuf_create(void);
extern int	sqlbuf_param(SqlBuf *buf, Oid type, Datum value);
extern void sqlbuf_add_param(SqlBuf *buf, Oid type, Datum value);
extern void sqlbuf_note(SqlBuf *buf, int paramno, const char *note);

/* sqlpretty.c: generated SQL over several lines, for argo_explain */
extern List *sql_pretty_lines(const char *sql);
extern void sqlbuf_add_text(SqlBuf *buf, const char *text);
extern void sqlbuf_replace(SqlBuf *buf, const char *placeholder,
						   const char *text);

/* ---------- prepared statements (plancache.c) ---------- */

extern SPIPlanPtr argo_prepare(SqlBuf *buf, int cursor_options);
extern Portal argo_open_cursor(SqlBuf *buf, bool read_only);
extern int	argo_run(SqlBuf *buf, bool read_only);
extern int	argo_run_with(SqlBuf *buf, int cursor_options, SPIExecuteOptions *opts);
extern int	argo_run_snapshot(SqlBuf *buf, Snapshot snap);
extern int	argo_pin_search_path(void);
extern void argo_unpin_search_path(int nest);

/* ---------- statement analysis (analyze.c) ---------- */

typedef struct ArgoQuery
{
	ArgoStmt   *stmt;
	List	   *colls;			/* of ArgoCollection *, parallel to stmt->from */
	const char *text;
} ArgoQuery;

extern Jsonb *literal_to_jsonb(ArgoLiteral *lit);
extern ArgoQuery *argo_analyze(ArgoStmt *stmt, const char *text,
							   Jsonb **params, int nparams);

/* ---------- SQL generation (predicate.c, sqlgen.c) ---------- */

extern void pred_emit_objids(SqlBuf *buf, ArgoCollection *coll, ArgoPred *pred);
extern void sql_value_comparison(SqlBuf *buf, ArgoLiteral *lit, ArgoCmpOp op);
extern void sql_rows_of_table(SqlBuf *buf, ArgoCollection *coll);
extern void sql_object_rows_of_table(SqlBuf *buf, ArgoCollection *coll);
extern void sql_all_objids(SqlBuf *buf, ArgoCollection *coll);
extern void sql_subtree_match(SqlBuf *buf, ArgoCollection *c, const char *col,
							  const char *keystr);
extern int	sql_key_param(SqlBuf *buf, ArgoCollection *c, const char *keystr);
extern int	sql_keys_param(SqlBuf *buf, List *keys);
extern List *projection_keys(ArgoCollection *c, List *targets, int source);
/* The typed value columns of one path, from sql_value_join. */
typedef struct ValueCols
{
	char	   *num;
	char	   *str;
	char	   *boolean;
} ValueCols;

extern void sql_base_objids(SqlBuf *buf, ArgoCollection *c, ArgoPred *where);
extern ValueCols sql_value_join(SqlBuf *buf, ArgoCollection *c,
								const char *objid_expr, const char *keystr,
								const char *alias);
extern void sql_order_keys(StringInfo out, ValueCols *v, bool desc);
extern void sql_limit_offset(SqlBuf *buf, ArgoStmt *s);
extern void sql_projection_filter(SqlBuf *buf, ArgoCollection *c,
								  const char *col, List *targets, int source);

/*
 * bulkinsert.c: rows for one table, by columns; a column missing from
 * cols is NULL in every row.
 */
#define ARGO_MAX_BULK_COLS 6
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
} ArgoRows;

extern bool argo_bulk_insert(const char *table, int natts, const ArgoRows *rows);

/* topn.c */
extern bool topn_applies(ArgoStmt *s);
extern void topn_emit_ids(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s);
extern SqlBuf *sqlgen_select_rows(ArgoQuery *q);
extern SqlBuf *sqlgen_select_ids(ArgoQuery *q);
extern SqlBuf *sqlgen_order_ids(ArgoQuery *q, const int64 *ids, int n);
extern SqlBuf *sqlgen_all_objects(ArgoQuery *q);
extern SqlBuf *sqlgen_delete_ids(ArgoCollection *c, const int64 *ids, int n);
extern SqlBuf *sqlgen_aggregate(ArgoQuery *q);
extern SqlBuf *sqlgen_aggregate_direct(ArgoQuery *q);
extern bool argo_is_aggregate(ArgoStmt *s);

/* ---------- object decomposition (decompose.c) ---------- */

typedef struct RowBatch RowBatch;

extern RowBatch *rowbatch_create(ArgoCollection *coll, bool directory);
extern void rowbatch_add_object(RowBatch *batch, int64 objid, Jsonb *obj);
extern int	rowbatch_objects(RowBatch *batch);
extern void rowbatch_flush(RowBatch *batch);
extern void rowbatch_hold(RowBatch *batch);
extern void rowbatch_drop_common(RowBatch *a, RowBatch *b);
extern void rowbatch_delete(RowBatch *b);
extern int64 *argo_next_objids(ArgoCollection *coll, int n);
extern void argo_check_object(Jsonb *obj);

/* ---------- object reconstruction (reconstruct.c) ---------- */

typedef struct Rebuilder Rebuilder;

/* One row of an object being rebuilt, its key parsed. */
typedef struct RRow
{
	KeySeg	   *segs;
	int			nsegs;			/* 0: the object itself, which may be {} */
	JsonbValue	val;			/* jbvNull for null, {} and [] too */
} RRow;

extern Jsonb *jsonb_write_object(RRow *rows, int nrows, int64 objid);

/* Receives each rebuilt object; returns false to stop. */
typedef void (*rebuild_emit) (void *arg, int64 objid, Jsonb *obj);

extern Rebuilder *rebuilder_create(KeyDict *dict, rebuild_emit emit, void *arg);
extern void rebuilder_add_row(Rebuilder *rb, int64 objid, const ArgoKey *key,
							  text *valstr, bool num_null, double valnum,
							  bool bool_null, bool valbool);
extern void rebuilder_add_object(Rebuilder *rb, int64 objid);
extern KeyDict *rebuilder_dict(Rebuilder *rb);
extern void rebuilder_add_keystr_row(Rebuilder *rb, int64 objid,
									 const char *keystr, text *valstr,
									 bool num_null, double valnum,
									 bool bool_null, bool valbool);
extern void rebuilder_finish(Rebuilder *rb);

/* ---------- statements with their own executors ---------- */

/*
 * Receives each result of a statement; NULL withdraws every result so far
 * (a plan that found it cannot finish hands over to another).
 */
typedef void (*result_emit) (void *arg, Jsonb *value);

extern void run_aggregate(ArgoQuery *q, rebuild_emit emit, void *arg);
extern void run_join(ArgoQuery *q, result_emit emit, void *arg);
extern Jsonb *run_update(ArgoQuery *q);

/* advisory locks' fourth field: SQL's own use 1 and 2 (upsert, update.c) */
#define ARGO_UPSERT_LOCK_SPACE 0x4152
extern Jsonb *argo_apply_set(Jsonb *doc, ArgoPath *path, Jsonb *value);
extern Jsonb *argo_apply_changes(Jsonb *doc, List *sets);
extern bool allobjects_applies(ArgoStmt *s);
extern bool allobjects_readable(ArgoQuery *q);
extern bool projscan_run(ArgoQuery *q, Rebuilder *rb, result_emit emit, void *arg);
extern bool allobjects_run(ArgoQuery *q, result_emit emit, void *arg);
extern SqlBuf *sqlgen_rows_of_ids(ArgoCollection *c, const int64 *ids, int n);

/* objlock.c: per-object write locks */
typedef struct LockedObjects
{
	int64	   *ids;			/* in id order */
	int			n;
	bool		changed;		/* some changed after the locks' snapshot */
} LockedObjects;

extern SqlBuf *objlock_sql(ArgoCollection *c, ArgoPred *where, bool touch);
extern LockedObjects *objlock_take(ArgoCollection *c, ArgoPred *where, bool touch);
extern void objlock_recheck(ArgoCollection *c, ArgoPred *where, LockedObjects *lo);
extern Datum objid_array(const int64 *ids, int n);
extern void objid_sort(int64 *ids, int n);

/* fetch.c: objects' rows straight from the heap */
typedef struct ObjFetch ObjFetch;

extern ObjFetch *objfetch_open(ArgoCollection *c, List *keys, bool projection,
							   bool stream);
extern void objfetch_object(ObjFetch *f, int64 objid, Rebuilder *rb);
extern void objfetch_close(ObjFetch *f);
extern bool objfetch_streams(ObjFetch *f);
extern Snapshot objfetch_snapshot(ObjFetch *f);
extern Relation argo_open_table(ArgoCollection *c, const char *suffix);
extern void argo_check_select(Relation rel);
extern bool argo_readable_directly(Relation rel);

/* lookup.c: point reads straight from an index */
extern ArgoPred *lookup_pred(ArgoPred *where);
extern int64 *lookup_ids(ArgoCollection *c, ArgoPred *p, Snapshot snap, int *n);
extern bool lookup_directory(ArgoCollection *c, int64 id, Snapshot snap, bool *found);

/* stream.c */
extern void argo_rebuild_from_cursor(Portal portal, Rebuilder *rb);
extern void argo_rebuild_from_query(SqlBuf *buf, Rebuilder *rb);
extern void argo_fetch_objects(SqlBuf *ids, ObjFetch *f, Rebuilder *rb);
typedef void (*row_fn) (void *arg, Datum *values, bool *nulls);
extern void argo_stream_rows(SqlBuf *buf, row_fn take, void *arg);
extern void argo_add_row(Rebuilder *rb, KeyDict *d, Datum *v, bool *isnull);
extern SqlBuf *sqlgen_join(ArgoQuery *q);
extern SqlBuf *sqlgen_join_ids(ArgoQuery *q);
extern SqlBuf *sqlgen_join_tuples(ArgoQuery *q);
extern ObjFetch **join_fetchers(ArgoQuery *q);
extern int64 joinset_threshold(ArgoQuery *q);
extern double directory_objects(ArgoCollection *c);
extern void joinset_fetch(ArgoQuery *q, int64 **ids, int64 n, int64 first,
						  rebuild_emit emit, void *arg);

/* ---------- SQL-callable functions (argo.c, load.c) ---------- */

extern char *argo_text_arg(FunctionCallInfo fcinfo, int argno, const char *what);

/* ---------- execution (execute.c) ---------- */

extern void argo_execute(const char *query, Jsonb **params, int nparams,
						 result_emit emit, void *arg);
extern List *argo_explain_query(const char *query, Jsonb **params, int nparams);
extern Jsonb *argo_count_result(const char *key, int64 n);
extern Jsonb *argo_counts_result(const char *key1, int64 n1, const char *key2, int64 n2);

#endif							/* ARGO_H */
