/*
 * ids.c — object ids in bulk: sorted, and as an int8[] parameter.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "common/ids.h"

static int
objid_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y;
}

void
objid_sort(int64 *ids, int n)
{
	qsort(ids, n, sizeof(int64), objid_cmp);
}

Datum
objid_array(const int64 *ids, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Int64GetDatum(ids[i]);
	return PointerGetDatum(construct_array(d, n, INT8OID, 8, true, TYPALIGN_DOUBLE));
}
