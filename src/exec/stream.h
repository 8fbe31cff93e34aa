/*
 * stream.h — SQL's rows or object ids streamed into a rebuilder
 * (stream.c).
 */
#ifndef ARGO_EXEC_STREAM_H
#define ARGO_EXEC_STREAM_H

#include "tcop/dest.h"
#include "utils/portal.h"

#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/parse.h"

/* Rows fetched from a cursor per round, and objects read per batch of ids */
#define ARGO_FETCH_ROWS 2000

typedef void (*row_fn) (void *arg, Datum *values, bool *nulls);

/* stream.c */
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

#endif							/* ARGO_EXEC_STREAM_H */
