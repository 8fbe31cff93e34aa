/*
 * docs.h — documents kept whole beside their rows, in c_doc (docs.c; made
 * and dropped with the collection, catalog.c), and where a value row says
 * its object's document lies (dochint.c).
 */
#ifndef ARGO_DOCS_H
#define ARGO_DOCS_H

#include "storage/itemptr.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

#include "store/collection.h"

extern bool argo_keep_documents_default;

/*
 * c_doc leaves a fifth of each page free, so that an update's new version
 * of a document goes on the same page, a HOT update that touches no index
 * (docs/design.md)
 */
#define ARGO_DOCS_FILLFACTOR 80

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

/* catalog.c */
extern Oid	docs_find(ArgoCollection *c, LOCKMODE lockmode, Oid owner);
extern Oid	docs_relid(ArgoCollection *c);
extern void docs_create(ArgoCollection *c);
extern void docs_drop(ArgoCollection *c);

typedef struct DocWriter DocWriter;

/* docs.c */
extern void docs_sync_rls(ArgoCollection *c);
extern bool docs_readable(ArgoCollection *c);
extern bool docs_text_index(ArgoCollection *c, Jsonb *path, Oid *config);
extern Jsonb *docs_value(Datum d, bool isnull);
extern Datum docs_stored_form(Jsonb *doc);
extern bool docs_insertable(ArgoCollection *c);
extern void collection_check_writes(ArgoCollection *c);
extern ItemPointerData *docs_insert_new(ArgoCollection *c, int n, Datum *objids, Datum *docs);
extern DocWriter *docwriter_open(ArgoCollection *c, AclMode mode);
extern ItemPointerData docwriter_put(DocWriter *w, int64 objid, Jsonb *doc,
									 const ItemPointerData *hint);
extern void docwriter_close(DocWriter *w);
extern void docs_forget(Oid relid, const int64 *ids, int n);
extern void docs_forget_all(Oid relid);

/* dochint.c */
extern DocHint dochint_make(Oid relid, const ItemPointerData *row, const ItemPointerData *doc);
extern DocHint dochint_none(void);
extern void dochint_refresh(DocHint *h, int64 objid, const ItemPointerData *root);

#endif							/* ARGO_DOCS_H */
