/*
 * objfetch.h — objects' rows read straight from the heap (objfetch.c),
 * by their maps or the objid indexes, and logged with their tids for a
 * writer.
 */
#ifndef ARGO_OBJFETCH_H
#define ARGO_OBJFETCH_H

#include "storage/itemptr.h"
#include "utils/snapshot.h"

#include "doc/doc.h"
#include "store/collection.h"
#include "store/docs.h"

typedef struct ObjFetch ObjFetch;
struct DocPath;

/*
 * objfetch.c can log the rows it hands out, with their tids, for a writer
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

/* objfetch.c */
extern ObjFetch *objfetch_open(ArgoCollection *c, List *keys, bool projection,
							   bool stream);
extern bool objfetch_object(ObjFetch *f, int64 objid, Rebuilder *rb);
extern void objfetch_close(ObjFetch *f);
extern bool objfetch_streams(ObjFetch *f);
extern void objfetch_every_object(ObjFetch *f);
extern void objfetch_ignore_docs(ObjFetch *f);
extern void objfetch_project_docs(ObjFetch *f, const struct DocPath *paths, int npaths);
extern bool objfetch_reads_directory(ObjFetch *f);
extern void objfetch_hint_doc(ObjFetch *f, DocHint *hint);
extern void objfetch_prefetch_docs(ObjFetch *f, Rebuilder *rb, const DocHint *hints,
								   int n, int at, int *asked);
extern Snapshot objfetch_snapshot(ObjFetch *f);
extern void objfetch_log_rows(ObjFetch *f, RowLog *log);

#endif							/* ARGO_OBJFETCH_H */
