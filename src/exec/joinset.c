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
#include "store/shard.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
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

/*
 * Part k's rows for the tuples in ids[k], numbered ord * (nparts + 1) + k
 * with ord counted from first; for *, a row with a NULL key first marks
 * each part as an object ({} has no other row).
 */
static void
joinset_emit_part(SqlBuf *buf, ArgoQuery *q, int k, int ids, int64 first)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = list_nth(q->colls, k);
	int			n = list_length(s->from) + 1;

	if (k > 0)
		appendStringInfoString(&buf->sql, " UNION ALL ");
	if (s->star)
		appendStringInfo(&buf->sql,
						 "SELECT (t.ord OPERATOR(pg_catalog.+) " INT64_FORMAT ") OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d AS id, NULL::integer AS keyid, NULL::pg_catalog.text AS valstr, NULL::pg_catalog.float8 AS valnum, NULL::boolean AS valbool "
						 "FROM pg_catalog.unnest($%d) WITH ORDINALITY AS t(objid, ord) WHERE t.objid OPERATOR(pg_catalog.<>) 0 UNION ALL ",
						 first - 1, n, k, ids);
	appendStringInfo(&buf->sql,
					 "SELECT (t.ord OPERATOR(pg_catalog.+) " INT64_FORMAT ") OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d, r.keyid, r.valstr, r.valnum, r.valbool "
					 "FROM pg_catalog.unnest($%d) WITH ORDINALITY AS t(objid, ord) JOIN ",
					 first - 1, n, k, ids);
	sql_object_rows_of_table(buf, c);
	appendStringInfoString(&buf->sql, " r ON r.objid OPERATOR(pg_catalog.=) t.objid WHERE true");
	/* a shard is sent the ids, not asked for every row */
	if (collection_is_distributed(c))
		appendStringInfo(&buf->sql, " AND r.objid OPERATOR(pg_catalog.=) ANY($%d)", ids);
	if (!s->star)
	{
		appendStringInfoString(&buf->sql, " AND ");
		sql_projection_filter(buf, c, "r.keyid", s->targets, k);
	}
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
	SqlBuf	   *buf = sqlbuf_create();
	PartRows	pr = {NULL, palloc(sizeof(KeyDict *) * nparts), nparts};

	for (int k = 0; k < nparts; k++)
	{
		int			p = sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids[k], (int) n));

		pr.dicts[k] = keydict_of(list_nth(q->colls, k));
		joinset_emit_part(buf, q, k, p, first);
	}
	appendStringInfo(&buf->sql,
					 " UNION ALL SELECT (g OPERATOR(pg_catalog.+) " INT64_FORMAT ") OPERATOR(pg_catalog.*) %d OPERATOR(pg_catalog.+) %d, NULL, NULL, NULL, NULL FROM pg_catalog.generate_series(1, $%d) AS g ORDER BY 1",
					 first - 1, nparts + 1, nparts,
					 sqlbuf_param(buf, INT8OID, Int64GetDatum(n)));
	/* the arrays' lengths differ from call to call: plan with them */
	buf->custom_plan = true;
	pr.rb = rebuilder_create(NULL, emit, arg);
	argo_stream_rows(buf, joinset_take_row, &pr);
	rebuilder_finish(pr.rb);
}
