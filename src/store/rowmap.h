/*
 * rowmap.h — where an object's rows lie, kept in its directory row
 * (rowmap.c), and the maps the objid indexes call for (maprepair.c).
 */
#ifndef ARGO_ROWMAP_H
#define ARGO_ROWMAP_H

#include "utils/rel.h"

#include "store/collection.h"

#define ROWMAP_MAX_TABLES 3

typedef struct RowRun
{
	BlockNumber block;
	OffsetNumber first;
	uint16		count;
} RowRun;

typedef struct RowMap
{
	uint32		epoch;
	int			ntables;
	int			nruns[ROWMAP_MAX_TABLES];
	RowRun	   *runs[ROWMAP_MAX_TABLES];
} RowMap;

/* rowmap.c */
extern uint32 rowmap_epoch(Relation *tables, int ntables);
extern bytea *rowmap_encode(uint32 epoch, int ntables, ItemPointerData **tids,
							const int *n);
extern bool rowmap_epoch_of(bytea *map, uint32 *epoch);
extern bool rowmap_decode(bytea *map, int ntables, RowMap *m);
extern AttrNumber rowmap_column(Relation dir);
typedef void (*map_visit) (void *arg, int64 objid, bytea *stored, bytea *actual);
/* maprepair.c */
extern void rowmap_walk(ArgoCollection *c, const int64 *ids, int nids,
						map_visit fn, void *arg);
extern bool rowmap_equal(bytea *a, bytea *b);
extern bool rowmap_out_of_date(ArgoCollection *c);

#endif							/* ARGO_ROWMAP_H */
