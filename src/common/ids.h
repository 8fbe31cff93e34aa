/*
 * ids.h — object ids in bulk: sorted, and as an int8[] (ids.c).
 */
#ifndef ARGO_IDS_H
#define ARGO_IDS_H

#include "postgres.h"


/* ids.c: object ids in bulk */
extern Datum objid_array(const int64 *ids, int n);
extern void objid_sort(int64 *ids, int n);

#endif							/* ARGO_IDS_H */
