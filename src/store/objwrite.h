/*
 * objwrite.h — an UPDATE's or DELETE's writes from C (objwrite.c):
 * directory rows locked, rows deleted by tid, maps and documents written.
 */
#ifndef ARGO_OBJWRITE_H
#define ARGO_OBJWRITE_H

#include "storage/itemptr.h"
#include "utils/jsonb.h"
#include "utils/snapshot.h"

#include "store/collection.h"
#include "store/docs.h"

typedef struct ObjWriter ObjWriter;

/* objwrite.c */
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

#endif							/* ARGO_OBJWRITE_H */
