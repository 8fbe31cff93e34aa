/*
 * exec.h — running Argo statements: the dispatcher (execute.c), the
 * statements with executors of their own (aggregates, joins, every
 * object, UPDATE/UPSERT/DELETE with per-object locks) and the streams
 * that feed SQL's rows or object ids into a rebuilder; reads found from
 * C through an index are lookup.h's.
 */
#ifndef ARGO_EXEC_H
#define ARGO_EXEC_H

#include "port/atomics.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/fetch.h"
#include "store/keydict.h"
#include "store/objwrite.h"
#include "store/shard.h"
#include "sql/sql.h"

/*
 * Receives each result of a statement; NULL withdraws every result so far
 * (a plan that found it cannot finish hands over to another).
 */
typedef void (*result_emit) (void *arg, int64 objid, Jsonb *value);

/* Rows fetched from a cursor per round, and objects read per batch of ids */
#define ARGO_FETCH_ROWS 2000

/* Where results go: emit(arg, each). */
typedef struct EmitTarget
{
	result_emit emit;
	void	   *arg;
	const DocPath *paths;		/* each object cut down to these first, or NULL */
	int			npaths;
} EmitTarget;

/* plan.c: how a statement runs, chosen once for execution and explain */
typedef enum ArgoStrategy
{
	ARGO_PLAN_INSERT,
	ARGO_PLAN_AGGREGATE,		/* one SQL statement, off the value rows or over objects */
	ARGO_PLAN_JOIN_FETCH,		/* tuples' ids by SQL; parts' rows from the heap */
	ARGO_PLAN_JOIN_SQL,			/* parts' rows through SQL */
	ARGO_PLAN_SELECT_IDS,		/* SELECT ID() */
	ARGO_PLAN_ALL_OBJECTS,		/* argo_object() per directory row */
	ARGO_PLAN_PROJECTION,		/* projected rows in heap order, else sorted by SQL */
	ARGO_PLAN_PROJECTION_DOCS,	/* every object's kept document, cut down */
	ARGO_PLAN_ROWS_SQL,			/* objects' rows through SQL */
	ARGO_PLAN_BATCHES,			/* ids by SQL, rows by SQL a batch at a time */
	ARGO_PLAN_LOOKUP,			/* objects found from C by an index; rows from the heap */
	ARGO_PLAN_FETCH,			/* objects picked by SQL; rows from the heap */
	ARGO_PLAN_DELETE,
	ARGO_PLAN_UPDATE,
	ARGO_PLAN_UPSERT,
	ARGO_PLAN_SHARDS			/* each shard runs it (shardpart.c), merged here */
} ArgoStrategy;

typedef struct ArgoPlan
{
	ArgoQuery  *q;
	ArgoStrategy strategy;
	ArgoPred   *point;			/* an equality answered from C (lookup.c) */
	int64	   *ids;			/* LOOKUP: what it found */
	DocHint    *doc_hints;		/* and where each one's kept document may lie */
	int			nids;
	bool		unchecked;		/* ids: ID() = n, the directory not asked yet */
	ObjFetch   *fetch;			/* LOOKUP, FETCH */
	ObjFetch  **join_fetch;		/* JOIN_FETCH */
	DocPath    *doc_paths;		/* PROJECTION_DOCS: the projection's paths */
	int			ndoc_paths;
} ArgoPlan;

extern ArgoPlan *argo_plan(ArgoQuery *q);
extern void argo_plan_local_select(ArgoPlan *p);
extern void argo_plan_local_write(ArgoPlan *p);
extern void argo_plan_close(ArgoPlan *p);
extern const char *argo_plan_name(ArgoPlan *p);

/* execute.c: one statement, run or explained */
extern void argo_execute(const char *query, Jsonb **params, int nparams,
						 result_emit emit, void *arg);
extern void argo_run_plan(ArgoPlan *p, result_emit emit, void *arg);
extern void argo_run_analyzed(ArgoQuery *q, result_emit emit, void *arg);
extern void argo_explain_failure(ErrorData *e);

typedef void (*row_fn) (void *arg, Datum *values, bool *nulls);

/*
 * A read that one SQL statement (or a list of object ids) drives: each of
 * its rows goes to take; after the last, the rebuilder (if any) finishes.
 */
typedef struct RowDriver
{
	SqlBuf	   *sql;			/* the statement, or NULL: */
	const int64 *ids;			/* these objects, in output order */
	int			nids;
	row_fn		take;
	void	   *arg;
	Rebuilder  *rb;
} RowDriver;

extern bool select_streams(ArgoPlan *p);
extern bool select_driver(ArgoPlan *p, result_emit emit, void *arg, RowDriver *d);

/* cursor.c: a statement's results taken one at a time */
typedef struct ArgoCursor ArgoCursor;

/*
 * A read shared among a parallel query's processes (fn/scan.c): each
 * takes the next chunk of the directory's pages; a statement that cannot
 * be shared runs whole in the first process to claim it, and in no other.
 */
typedef struct ArgoShare
{
	pg_atomic_uint32 next_chunk;
	pg_atomic_uint32 whole_claimed;
	pg_atomic_uint32 rest_claimed;	/* the objects without kept documents */
} ArgoShare;

extern void argo_share_init(ArgoShare *share);
extern bool argo_shareable_statement(ArgoStmt *s);
extern ArgoCursor *argo_cursor_open(const char *query, Jsonb **params, int nparams,
									ArgoShare *share);
extern Jsonb *argo_cursor_next(ArgoCursor *c);
extern void argo_cursor_close(ArgoCursor *c);
extern bool argo_cursor_queued(ArgoCursor *c);
extern bool argo_cursor_rewind(ArgoCursor *c);
extern bool argo_is_write(const char *query);
extern const char *argo_cursor_describe(ArgoCursor *c);
extern List *argo_explain_query(const char *query, Jsonb **params, int nparams);

/* shardpart.c, shardread.c: a shard's part of a SELECT; the coordinator's merge */
extern bool argo_execute_part(const char *query, Jsonb **params, int nparams,
							  int32 keys_through, int64 row_limit,
							  result_emit emit, void *arg);
extern bool argo_execute_join_part(const char *query, Jsonb **params, int nparams,
								   int32 keys_through, int source, Jsonb *keyvals,
								   result_emit emit, void *arg);
extern void argo_execute_write_part(const char *query, Jsonb **params, int nparams,
									int32 keys_through, result_emit emit, void *arg);
extern bool shardwrite_applies(ArgoQuery *q);
extern bool shardwrite_run(ArgoQuery *q, result_emit emit, void *arg);
extern List *shardwrite_explain(ArgoQuery *q);
/* A join source's condition value m is named ARGO_JOIN_PREFIX "m" (shardpart.c) */
#define ARGO_JOIN_PREFIX "\001j"
typedef struct ShardRead ShardRead;

extern bool shardread_applies(ArgoQuery *q);
extern ShardRead *shardread_open(ArgoQuery *q);
extern ShardRead *shardread_open_source(ArgoQuery *q, int source, const char *keyvals);
extern bool shardread_open_shards(ArgoQuery *q, ShardConns *sc);
extern char *shardread_params_text(Jsonb **params, int nparams);
extern char *shardread_keys_through(ArgoCollection *c);
extern Jsonb *shardread_next(ShardRead *r);
extern void shardread_close(ShardRead *r);
extern bool shardread_run(ArgoQuery *q, result_emit emit, void *arg);
extern bool shardagg_applies(ArgoQuery *q);
extern bool shardagg_run(ArgoQuery *q, result_emit emit, void *arg);
/* A shard's partial aggregate i is named ARGO_PARTIAL_PREFIX "i" (shardpart.c) */
#define ARGO_PARTIAL_PREFIX "\001argo"
extern List *shardread_explain(ArgoQuery *q);
extern List *shardread_explain_each(ArgoQuery *q, ShardConns *sc, const char *function);

/* shape.c: renamed paths and ids in a SELECT's objects */
extern Rebuilder *select_rebuilder(ArgoQuery *q, int source, rebuild_emit emit, void *arg);
extern DocPath *select_doc_paths(ArgoStmt *s, int *n);
extern void argo_emit_written(ArgoStmt *s, result_emit emit, void *arg, int64 objid, Jsonb *obj);

/* elempick.c: targets through filters or negative indices, cut from whole objects */
typedef struct Picking Picking;
extern Picking *pick_begin(ArgoStmt *s, result_emit emit, void *arg);
extern void pick_emit(void *arg, int64 objid, Jsonb *doc);

/* except.c: SELECT * EXCEPT (…), each result without those paths */
typedef struct Excepting Excepting;
extern Excepting *except_begin(ArgoStmt *s, result_emit emit, void *arg);
extern void except_emit(void *arg, int64 objid, Jsonb *doc);

/* distinct.c: SELECT DISTINCT, with LIMIT and OFFSET after it */
typedef struct Distinct Distinct;

extern Distinct *distinct_begin(ArgoStmt *s, result_emit emit, void *arg);
extern void distinct_emit(void *arg, int64 objid, Jsonb *doc);
extern void distinct_finish(Distinct *d, bool give_on);
extern Jsonb *distinct_next(Distinct *d);
extern void distinct_end(Distinct *d);

/* results.c: what write statements return */
extern Jsonb *argo_count_result(const char *key, int64 n);
extern Jsonb *argo_counts_result(const char *key1, int64 n1, const char *key2, int64 n2);
extern Jsonb *argo_inserted_ids_result(const int64 *ids, int n);
extern Jsonb *argo_write_ids_result(const char *what, const int64 *ids, int n);
extern Jsonb *argo_upsert_ids_result(const int64 *ids, int n, int64 updated, int64 inserted);

/* aggregate.c: aggregates over objects or a join's tuples */
/* A target's result columns: one value, or MIN/MAX's three typed ones. */
typedef struct TargetCols
{
	int			n;
	char	   *col[3];			/* number, string, boolean for MIN/MAX */
} TargetCols;

extern SqlBuf *sqlgen_aggregate(ArgoQuery *q);
extern void run_aggregate(ArgoQuery *q, rebuild_emit emit, void *arg);

/* unwind.c: GROUP BY p[*] in one pass when every path goes into p's array */
extern bool unwind_one_pass_applies(ArgoQuery *q);
extern SqlBuf *unwind_one_pass(ArgoQuery *q, ValueCols *groups, TargetCols *targets);

/* join.c, joinset.c: joins, their parts probed or read set-wise */
extern bool joins_distributed(ArgoQuery *q);
extern void run_join(ArgoQuery *q, ObjFetch **fetch, result_emit emit, void *arg);

extern uint32 join_pred_sources(ArgoPred *p);
extern bool join_asks_part(ArgoPred *p);
extern Jsonb *join_tuple_object(ArgoStmt *s, Jsonb **parts, bool *nullpart);
extern bool shardjoin_applies(ArgoQuery *q);
extern bool shardjoin_run(ArgoQuery *q, result_emit emit, void *arg);
extern List *shardjoin_explain(ArgoQuery *q);
extern SqlBuf *sqlgen_join(ArgoQuery *q);
extern SqlBuf *sqlgen_join_ids(ArgoQuery *q);
extern SqlBuf *sqlgen_join_tuples(ArgoQuery *q);
extern ObjFetch **join_fetchers(ArgoQuery *q);
extern int64 joinset_threshold(ArgoQuery *q);
extern void joinset_fetch(ArgoQuery *q, int64 **ids, int64 n, int64 first,
						  rebuild_emit emit, void *arg);

/* allobjects.c, projscan.c: every object, or a projection of every object */
extern bool allobjects_applies(ArgoStmt *s);
extern bool allobjects_readable(ArgoQuery *q);
extern DocPath *allobjects_doc_paths(ArgoQuery *q, int *n);
extern bool allobjects_run(ArgoPlan *p, result_emit emit, void *arg);
extern void allobjects_take(void *arg, Datum *values, bool *nulls);
extern bool projscan_run(ArgoQuery *q, Rebuilder *rb, result_emit emit, void *arg);

/* update.c, update_ops.c: UPDATE and UPSERT; what a SET list does */
extern void run_update(ArgoPlan *p, result_emit emit, void *arg);
/* delete.c */
extern void run_delete(ArgoPlan *p, result_emit emit, void *arg);
/* advisory locks' fourth field: SQL's own use 1 and 2 (upsert, update.c) */
#define ARGO_UPSERT_LOCK_SPACE 0x4152
extern Jsonb *argo_apply_set(Jsonb *doc, ArgoPath *path, Jsonb *value);
extern Jsonb *argo_apply_changes(Jsonb *doc, List *sets, bool *applied);

/* objlock.c: per-object write locks */
typedef struct LockedObjects
{
	int64	   *ids;			/* in id order */
	int			n;
	bool		changed;		/* some changed after the locks' snapshot */
} LockedObjects;

extern SqlBuf *objlock_sql(ArgoCollection *c, ArgoPred *where, ArgoPred *point, bool touch);
extern LockedObjects *objlock_take(ArgoCollection *c, ArgoPred *where, ArgoPred *point, bool touch);
extern LockedObjects *objlock_take_direct(ArgoCollection *c, ArgoPred *where,
										  ArgoPred *point, ObjWriter *w);
extern LockedObjects *objlock_take_distributed(ArgoCollection *c, ArgoPred *where);
extern void objlock_recheck(ArgoCollection *c, ArgoPred *where, ArgoPred *point,
							LockedObjects *lo);

/* stream.c: SQL's rows or object ids into a rebuilder */
extern void argo_rebuild_from_cursor(Portal portal, Rebuilder *rb);
extern void argo_fetch_in_batches(ArgoQuery *q, SqlBuf *idsql, rebuild_emit emit, void *arg);
extern void argo_rebuild_from_query(SqlBuf *buf, Rebuilder *rb);
extern void argo_fetch_objects(SqlBuf *ids, ObjFetch *f, Rebuilder *rb);
extern void argo_stream_rows(SqlBuf *buf, row_fn take, void *arg);
extern void argo_stream_described(SqlBuf *buf, row_fn take, void *arg, TupleDesc *desc);
extern void argo_add_row(Rebuilder *rb, KeyDict *d, Datum *v, bool *isnull);
extern void argo_rebuild_row(void *rb, Datum *values, bool *nulls);
extern void *argo_fetch_target(ObjFetch *f, Rebuilder *rb);
extern void argo_fetch_target_docs(void *target, const int64 *ids, DocHint *hints, int n);
extern void argo_fetch_row(void *target, Datum *values, bool *nulls);
extern DestReceiver *argo_row_receiver(row_fn take, void *arg);

#endif							/* ARGO_EXEC_H */
