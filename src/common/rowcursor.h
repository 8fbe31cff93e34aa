/*
 * rowcursor.h — a read-only statement run a few rows at a time (rowcursor.c).
 */
#ifndef ARGO_ROWCURSOR_H
#define ARGO_ROWCURSOR_H

#include "postgres.h"

#include "tcop/dest.h"

#include "common/sqlbuf.h"

/* rowcursor.c: a read-only statement run a few rows at a time */
typedef struct RowCursor RowCursor;

extern RowCursor *rowcursor_open(SqlBuf *buf, DestReceiver *dest);
extern bool rowcursor_fetch(RowCursor *c, uint64 n);
extern void rowcursor_close(RowCursor *c);

#endif							/* ARGO_ROWCURSOR_H */
