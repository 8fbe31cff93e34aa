/*
 * lookup.h — objects found from C through an index, without SQL: point
 * reads and ranges (lookup.c), their few objects put in order in C
 * (lookuporder.c), and a two-collection join's pairs (lookupjoin.c).
 */
#ifndef ARGO_LOOKUP_H
#define ARGO_LOOKUP_H

#include "utils/snapshot.h"

#include "store/collection.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

struct ArgoPlan;

/* lookup.c: point reads straight from an index */
extern ArgoPred *lookup_pred(ArgoPred *where);
extern ArgoPred *lookup_read_pred(ArgoPred *where);
extern int64 *lookup_ids(ArgoCollection *c, ArgoPred *p, Snapshot snap, int *n);
extern int64 *lookup_ids_docs(ArgoCollection *c, ArgoPred *p, Snapshot snap, int cap, int *n,
							  DocHint **hints);
extern bool lookup_directory(ArgoCollection *c, int64 id, Snapshot snap, bool *found);
extern bool lookup_key_may_have(ArgoCollection *c, const char *keystr, int t, Snapshot snap);
extern int64 lookup_key_entries(ArgoCollection *c, int32 keyid, int64 limit, Snapshot snap);
extern int64 lookup_count_entries(ArgoCollection *c, ArgoPred *p, int64 limit, Snapshot snap);

/* lookuporder.c: a lookup's few objects ordered and cut in C */
extern bool lookup_orders_in_c(ArgoQuery *q);
extern void lookup_order_ids(struct ArgoPlan *p, int64 **ids, int *n);

/* lookupjoin.c: a join's pairs found from C */
typedef struct JoinPairs
{
	int64		n;
	int64		max;
	int64	   *ids[2];			/* ids[k][i]: part k of pair i */
	DocHint    *hints[2];		/* where each one's kept document may lie */
	MemoryContext cxt;			/* where the arrays grow */
} JoinPairs;
extern bool lookup_join_applies(ArgoQuery *q);
extern bool lookup_join_pairs(ArgoQuery *q, ObjFetch *left, JoinPairs *jp);

#endif							/* ARGO_LOOKUP_H */
