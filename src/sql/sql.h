/*
 * sql.h — Argo/SQL as PostgreSQL SQL: predicates as object-id queries,
 * whole statements (one per Argo query, so one snapshot), ORDER BY one
 * path with LIMIT through the value indexes, aggregates of a whole
 * collection off its value rows, and the fragments they share.  Builds
 * text and parameters; runs nothing.
 */
#ifndef ARGO_SQL_H
#define ARGO_SQL_H

#include "storage/block.h"
#include "utils/jsonb.h"

#include "common/keypath.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"

/* An Argo/1 row's text for rebuilding: its string, or a number's exact text */
#define ARGO1_OBJECT_VALSTR "CASE WHEN valnum IS NULL THEN valstr ELSE valexact END"

/* tables.c: a collection's keys, rows and values as pieces of SQL */
extern int	sql_key_param(SqlBuf *buf, ArgoCollection *c, const char *keystr);
extern int	sql_keys_param(SqlBuf *buf, List *keys);
extern List *sql_path_keys(ArgoCollection *c, ArgoPath *path, bool subtree);
extern void sql_rows_of_table(SqlBuf *buf, ArgoCollection *coll);
extern void sql_number_rows_of_table(SqlBuf *buf, ArgoCollection *coll);
extern void sql_object_rows_of_table(SqlBuf *buf, ArgoCollection *coll);
extern void sql_all_objids(SqlBuf *buf, ArgoCollection *coll);
extern SqlBuf *sql_key_rows(const char *table, int type, Datum keys);
extern SqlBuf *sql_newest_key(ArgoCollection *c);
extern const char *sql_typed_table(ArgoCollection *c, ArgoLitType t);
extern const char *sql_value_column(ArgoLitType t);
extern const char *sql_cmp_operator(ArgoCmpOp op);
extern void sql_add_literal(SqlBuf *buf, ArgoLiteral *lit);
extern void sql_value_comparison(SqlBuf *buf, ArgoLiteral *lit, ArgoCmpOp op);
extern void sql_subtree_match(SqlBuf *buf, ArgoCollection *c, const char *col,
							  const char *keystr);
extern void sql_path_key_match(SqlBuf *buf, ArgoCollection *c, const char *col,
							   ArgoPath *path);
extern void sql_path_subtree_match(SqlBuf *buf, ArgoCollection *c, const char *col,
								   ArgoPath *path);
extern void sql_begin_leaf(SqlBuf *buf, ArgoCollection *c, ArgoLitType t, ArgoPath *path);

/* predicate.c: WHERE as object ids */
extern void pred_emit_objids(SqlBuf *buf, ArgoCollection *coll, ArgoPred *pred);

/* wild.c: leaves on a path with [*] */
extern void sql_wild_leaf(SqlBuf *buf, ArgoCollection *c, ArgoPath *path, ArgoLitType t,
						  void (*test) (SqlBuf *, void *), void *arg, bool truth);
extern void sql_any(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth);

/* wholevalue.c: p = json, p != json with json an object or array */
extern void sql_whole_value(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth);

/* fragments.c: pieces several statements share */
/* The typed value columns of one path, from sql_value_join. */
typedef struct ValueCols
{
	char	   *num;
	char	   *str;
	char	   *boolean;
} ValueCols;

extern List *projection_keys(ArgoCollection *c, List *targets, int source);

/* A path's keys as parallel int4[] parameters ($n each). */
typedef struct KeyArrays
{
	int			keys;			/* key ids */
	int			roots;			/* the value each lies under, numbered */
	int			elems;			/* its position in an unwound array, or -1 */
} KeyArrays;

/* A path's keys with the value each lies under and its element position. */
typedef struct KeyRows
{
	List	   *keys;			/* ArgoKey * */
	Datum	   *roots;			/* int4 */
	Datum	   *elems;			/* int4 */
} KeyRows;

extern Datum sql_int4_array(Datum *elems, int n);
extern KeyRows sql_path_key_rows(ArgoCollection *c, ArgoPath *path, bool subtree, int elem_seg);
extern KeyArrays sql_path_key_arrays(SqlBuf *buf, ArgoCollection *c, ArgoPath *path,
									 bool subtree, int elem_seg);
extern List *sql_array_element_keys(ArgoCollection *c, ArgoPath *path);
extern void sql_values_reached(SqlBuf *buf, ArgoCollection *c, ArgoPath *path,
							   int elem_seg);
extern void sql_array_elements(SqlBuf *buf, ArgoCollection *c, ArgoPath *path);
extern void sql_base_objids(SqlBuf *buf, ArgoCollection *c, ArgoPred *where);
extern ValueCols sql_value_join(SqlBuf *buf, ArgoCollection *c,
								const char *objid_expr, const char *keystr,
								const char *alias);
extern ValueCols sql_value_join_types(SqlBuf *buf, ArgoCollection *c,
									  const char *objid_expr, const char *keystr,
									  const char *alias, int types, bool setwise);
extern void sql_order_keys(StringInfo out, ValueCols *v, bool desc, bool nulls_first);
extern char *sql_exact_number(const char *alias);
extern char *sql_exact_join(SqlBuf *buf, ArgoCollection *c, const char *objid_expr,
							const char *keystr, const char *alias, bool setwise);
extern int	sql_alias_steps(ArgoPath *path);
extern Datum sql_key_steps(ArgoPath *path, int from, int to);

/* filter.c: a leaf through a filter [? pred], judged on each candidate object */
extern void sql_filter_check(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth);
extern void sql_filter_checks(SqlBuf *buf, ArgoCollection *c, List *preds, bool hinted);
extern bool sql_doc_judges(ArgoPred *p);
extern Jsonb *sql_pred_spec(ArgoPred *p);
extern Jsonb *sql_expr_spec(ArgoExpr *e);
extern int	sql_compute_spec(SqlBuf *buf, ArgoExpr *e, ArgoPath *each, bool aligned);
extern Datum sql_path_steps(ArgoPath *path);
extern Datum sql_path_spec(ArgoPath *path);
extern void sql_text_check(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, Oid config, bool truth,
						   bool only_undocumented);
extern void sql_limit_offset(SqlBuf *buf, ArgoStmt *s);
extern void sql_projection_filter(SqlBuf *buf, ArgoCollection *c,
								  const char *col, List *targets, int source);

/* topn.c: ORDER BY one path … LIMIT n from the value indexes */
extern bool topn_applies(ArgoStmt *s);
extern void topn_emit_ids(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s);

/* firstgroup.c: ORDER BY two paths … LIMIT n, from the first path's first value */
extern bool firstgroup_applies(ArgoCollection *c, ArgoStmt *s);
extern int	firstgroup_emit_head(SqlBuf *buf, ArgoCollection *c, ArgoStmt *s);
extern void firstgroup_emit_tail(SqlBuf *buf, int want);

/* sqlgen.c: whole statements */
extern SqlBuf *sqlgen_select_rows(ArgoQuery *q);
extern SqlBuf *sqlgen_select_ids(ArgoQuery *q);
extern SqlBuf *sqlgen_order_ids(ArgoQuery *q, const int64 *ids, int n);
extern SqlBuf *sqlgen_all_objects(ArgoQuery *q);
extern SqlBuf *sqlgen_all_objects_range(ArgoQuery *q, BlockNumber first, BlockNumber end);
extern SqlBuf *sqlgen_all_objects_undocumented(ArgoQuery *q);
extern bool sqlgen_reads_docs(ArgoCollection *c);
extern SqlBuf *sqlgen_delete_ids(ArgoCollection *c, const int64 *ids, int n);
extern SqlBuf *sqlgen_rows_of_batch(ArgoQuery *q, const int64 *ids, int n);
extern SqlBuf *sqlgen_rows_of_ids(ArgoCollection *c, const int64 *ids, int n);

/* aggscan.c: aggregates of a whole collection off its value rows */
extern SqlBuf *sqlgen_aggregate_direct(ArgoQuery *q);

#endif							/* ARGO_SQL_H */
