/*
 * joinset.c — the parts of a large join read set-wise.
 *
 * A join's tuples are few or many.  For few, each part is fetched by
 * index probes on its object id (objfetch.c): three B-tree descents a part
 * in Argo/3.  For many — a good share of a collection — that is the
 * wrong plan: 100k tuples of a self-join spent 0.5 s in 200k probes.
 * Then the tuples' ids go to SQL as arrays, joined with the value rows of
 * the parts (a hash join over the rows of the projected keys, or of the
 * whole collection for *), and come back ordered by tuple.  The choice is
 * made on what Argo knows for sure: how many tuples the join gave, and
 * how large each collection's directory is.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "common/ids.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "sql/joinsql.h"
#include "exec/join.h"
#include "exec/stream.h"

/* Fewer tuples are always probed. */
#define JOINSET_MIN_TUPLES 10000

/*
 * The number of tuples from which set-wise pays: a tenth of the largest
 * collection joined (a probe costs about what reading ten objects' rows
 * in a hash join does), and never under JOINSET_MIN_TUPLES.  Whole parts
 * (SELECT *) are always probed: an object's rows lie together for the
 * probe, while the set-wise plan sorts every row of every part by tuple
 * (100k tuples of a self-join on 100k objects: 1.0 s probed, 1.8 s
 * set-wise; projected: 0.64 s probed, 0.50 s set-wise).
 */
int64
joinset_threshold(ArgoQuery *q)
{
	double		largest = 0;
	ListCell   *lc;

	if (q->stmt->star)
		return PG_INT64_MAX;

	foreach(lc, q->colls)
		largest = Max(largest, directory_objects(lfirst(lc)));
	return Max(JOINSET_MIN_TUPLES, (int64) (largest / 10));
}

typedef struct PartRows
{
	Rebuilder  *rb;
	KeyDict   **dicts;			/* per part */
	int			nparts;
} PartRows;

/* One row of some part: its key from that part's dictionary. */
static void
joinset_take_row(void *arg, Datum *values, bool *nulls)
{
	PartRows   *pr = arg;
	int			part = DatumGetInt64(values[0]) % (pr->nparts + 1);

	/* the tuple's marker (part nparts) has a NULL key: no dictionary */
	argo_add_row(pr->rb, part < pr->nparts ? pr->dicts[part] : NULL, values, nulls);
}

/*
 * The parts of n tuples, numbered from first: ids[k][i] is part k of
 * tuple first + i.  Each part object goes to emit as ord * (nparts + 1) +
 * part, in tuple order, and each tuple ends with a marker numbered
 * ord * (nparts + 1) + nparts, so that a tuple whose parts all project to
 * nothing still appears.
 */
void
joinset_fetch(ArgoQuery *q, int64 **ids, int64 n, int64 first,
			  rebuild_emit emit, void *arg)
{
	int			nparts = list_length(q->stmt->from);
	SqlBuf	   *buf = joinsql_parts(q, ids, n, first);
	PartRows	pr = {NULL, palloc(sizeof(KeyDict *) * nparts), nparts};

	for (int k = 0; k < nparts; k++)
		pr.dicts[k] = keydict_of(list_nth(q->colls, k));
	pr.rb = rebuilder_create(NULL, emit, arg);
	argo_stream_rows(buf, joinset_take_row, &pr);
	rebuilder_finish(pr.rb);
}
