/*
 * results.h — a statement's results: where they go (result_emit), the
 * objects shaped on their way out (renamed paths and ids, filters and
 * negative indices, EXCEPT, DISTINCT) and what write statements return.
 */
#ifndef ARGO_EXEC_RESULTS_H
#define ARGO_EXEC_RESULTS_H

#include "utils/jsonb.h"

#include "doc/doc.h"
#include "parse/analyze.h"
#include "parse/parse.h"

/*
 * Receives each result of a statement; NULL withdraws every result so far
 * (a plan that found it cannot finish hands over to another).
 */
typedef void (*result_emit) (void *arg, int64 objid, Jsonb *value);

/* Where results go: emit(arg, each). */
typedef struct EmitTarget
{
	result_emit emit;
	void	   *arg;
	const DocPath *paths;		/* each object cut down to these first, or NULL */
	int			npaths;
} EmitTarget;

/* shape.c: renamed paths and ids in a SELECT's objects */
extern Rebuilder *select_rebuilder(ArgoQuery *q, int source, rebuild_emit emit, void *arg);
extern DocPath *select_doc_paths(ArgoStmt *s, int *n);
extern void argo_emit_written(ArgoStmt *s, result_emit emit, void *arg, int64 objid, Jsonb *obj);

/*
 * LIMIT and OFFSET counted in C where results are dropped after the SQL
 * (a projection that reaches nothing, a computed object with no value, a
 * group HAVING judges out): taken from the statement, whose SQL then has
 * none, and each result asked whether it falls within (results.c).
 */
typedef struct RowWindow
{
	int64		offset;
	int64		limit;			/* -1: none */
} RowWindow;
extern RowWindow argo_row_window(ArgoStmt *s);
extern bool argo_row_window_take(RowWindow *w);

/* elempick.c: targets through filters or negative indices, cut from whole objects */
typedef struct Picking Picking;
extern Picking *pick_begin(ArgoStmt *s, result_emit emit, void *arg);
extern void pick_emit(void *arg, int64 objid, Jsonb *doc);

/* compute.c: computed targets (reference.md §9.2), made from whole objects */
typedef struct Computing Computing;
extern Computing *compute_begin(ArgoStmt *s, result_emit emit, void *arg);
extern void compute_emit(void *arg, int64 objid, Jsonb *doc);

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

#endif							/* ARGO_EXEC_RESULTS_H */
