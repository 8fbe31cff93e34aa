/*
 * rowbatch.h — objects written as rows: decomposed into a batch
 * (rowbatch.c) and written as COPY writes them, or through SQL
 * (bulkinsert.c).
 */
#ifndef ARGO_ROWBATCH_H
#define ARGO_ROWBATCH_H

#include "storage/itemptr.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

#include "store/collection.h"

typedef struct RowBatch RowBatch;
struct RowLog;

/* rowbatch.c: objects to rows, and an UPDATE's changed rows */
extern RowBatch *rowbatch_create(ArgoCollection *coll, bool directory);
extern void rowbatch_fix_keys(RowBatch *b);
extern char **rowbatch_object_keys(ArgoCollection *c, Jsonb *obj, int *n);
extern void rowbatch_add_object(RowBatch *batch, int64 objid, Jsonb *obj);
extern int	rowbatch_objects(RowBatch *batch);
extern void rowbatch_flush(RowBatch *batch);
extern void rowbatch_hold(RowBatch *batch);
extern void rowbatch_drop_common(RowBatch *a, RowBatch *b);
extern void rowbatch_delete(RowBatch *b);
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

/* bulkinsert.c */
extern bool argo_bulk_insert(Oid relid, int natts, const ArgoRows *rows);

#endif							/* ARGO_ROWBATCH_H */
