/*
 * update.h — writes that change objects: UPDATE and UPSERT (update.c),
 * what a SET list does to one object (update_ops.c), DELETE (delete.c),
 * and the per-object write locks both take (objlock.c).
 */
#ifndef ARGO_EXEC_UPDATE_H
#define ARGO_EXEC_UPDATE_H

#include "utils/jsonb.h"

#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/objwrite.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "exec/plan.h"
#include "exec/results.h"

/* advisory locks' fourth field: SQL's own use 1 and 2 (upsert, update.c) */
#define ARGO_UPSERT_LOCK_SPACE 0x4152

typedef struct LockedObjects
{
	int64	   *ids;			/* in id order */
	int			n;
	bool		changed;		/* some changed after the locks' snapshot */
} LockedObjects;

/* update.c */
extern void run_update(ArgoPlan *p, result_emit emit, void *arg);

/* update_ops.c */
extern Jsonb *argo_apply_set(Jsonb *doc, ArgoPath *path, Jsonb *value);
extern Jsonb *argo_apply_changes(Jsonb *doc, List *sets, bool *applied);

/* delete.c */
extern void run_delete(ArgoPlan *p, result_emit emit, void *arg);

/* objlock.c */
extern SqlBuf *objlock_sql(ArgoCollection *c, ArgoPred *where, ArgoPred *point, bool touch);
extern LockedObjects *objlock_take(ArgoCollection *c, ArgoPred *where, ArgoPred *point, bool touch);
extern LockedObjects *objlock_take_direct(ArgoCollection *c, ArgoPred *where,
										  ArgoPred *point, ObjWriter *w);
extern LockedObjects *objlock_take_distributed(ArgoCollection *c, ArgoPred *where);
extern void objlock_recheck(ArgoCollection *c, ArgoPred *where, ArgoPred *point,
							LockedObjects *lo);

#endif							/* ARGO_EXEC_UPDATE_H */
