/*
 * fold.h — the collation case-insensitive matching folds under (fold.c).
 */
#ifndef ARGO_FOLD_H
#define ARGO_FOLD_H

#include "postgres.h"

extern Oid	argo_fold_collation(void);
extern const char *argo_fold_collate_sql(void);

#endif							/* ARGO_FOLD_H */
