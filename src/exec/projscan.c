/*
 * projscan.c — a projection of every object without sorting its rows.
 *
 * The projected keys' rows come from the (keyid, value) indexes in heap
 * order, and a loaded table's heap order is object id order: rows are
 * written object after object.  So instead of sorting every row by object
 * id (an external sort of 32 MB for one key of 1M objects, 0.3 s of 0.7),
 * each table's rows are read as they lie and merged by object id here.
 * Heap order is object order only until updates reuse space, so every
 * stream is checked as it is read: at the first row out of order, the
 * results so far are withdrawn, the statement runs the sorting plan, and
 * the table's storage is remembered (for this backend) as one to sort.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"

#include "common/common.h"
#include "common/plancache.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/allobjects.h"
#include "exec/results.h"
#include "exec/stream.h"

#define STREAM_BATCH 2000

typedef struct TableStorage
{
	Oid			relid;
	Oid			relfilenode;
} TableStorage;

/* One table's rows of the projected keys, in heap order. */
typedef struct RowStream
{
	const char *table;
	TableStorage storage;
	int			type;			/* 0 strings, 1 numbers, 2 booleans, 3 all (Argo/1) */
	Portal		portal;
	SPITupleTable *tt;
	uint64		pos;
	int64		last;			/* the object id of the row before */
	bool		done;
} RowStream;

/*
 * Tables found out of object order in this backend.  A table is known by
 * its storage, not its name: a collection dropped and made again, or a
 * table rewritten in order (CLUSTER, VACUUM FULL, a reload after
 * TRUNCATE), gets new storage and is tried in heap order again.
 */
static HTAB *disordered = NULL;

static TableStorage
table_storage(ArgoCollection *c, const char *suffix)
{
	TableStorage ts = {argo_table_relid(c, suffix), InvalidOid};
	Relation	rel = argo_open_table(c, suffix);

	ts.relfilenode = rel->rd_node.relNode;
	table_close(rel, NoLock);
	return ts;
}

static bool
known_disordered(TableStorage *ts)
{
	return disordered != NULL &&
		hash_search(disordered, ts, HASH_FIND, NULL) != NULL;
}

static void
remember_disordered(TableStorage *ts)
{
	if (disordered == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(TableStorage);
		ctl.entrysize = sizeof(TableStorage);
		ctl.hcxt = TopMemoryContext;
		disordered = hash_create("argo disordered tables", 16, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	if (OidIsValid(ts->relid))
		(void) hash_search(disordered, ts, HASH_ENTER, NULL);
}

static void
open_stream(RowStream *s, ArgoCollection *c, Datum keys)
{
	SqlBuf	   *buf = sql_key_rows(s->table, s->type, keys);

	s->portal = argo_open_cursor(buf, true);
}

/* Make s's next row current; false when it has none. */
static bool
stream_ready(RowStream *s)
{
	if (s->done)
		return false;
	if (s->tt != NULL && s->pos < s->tt->numvals)
		return true;
	if (s->tt != NULL)
		SPI_freetuptable(s->tt);
	SPI_cursor_fetch(s->portal, true, STREAM_BATCH);
	s->tt = SPI_tuptable;
	s->pos = 0;
	if (SPI_processed == 0)
	{
		s->done = true;
		return false;
	}
	return true;
}

static int64
stream_objid(RowStream *s)
{
	bool		isnull;

	return DatumGetInt64(SPI_getbinval(s->tt->vals[s->pos], s->tt->tupdesc, 1, &isnull));
}

/* Hand s's current row to the rebuilder. */
static void
take_row(RowStream *s, int64 objid, KeyDict *d, Rebuilder *rb)
{
	Datum		v[5];
	bool		isnull[5];

	heap_deform_tuple(s->tt->vals[s->pos], s->tt->tupdesc, v, isnull);
	argo_add_row(rb, d, v, isnull);
	s->last = objid;
	s->pos++;
}

static void
close_streams(RowStream *s, int n)
{
	for (int i = 0; i < n; i++)
		SPI_cursor_close(s[i].portal);
}

/*
 * Merge the streams by object id into rb; false, having emitted nothing
 * that stays (emit(arg, 0, NULL) withdraws it), if a stream is out of order.
 */
bool
projscan_run(ArgoQuery *q, Rebuilder *rb, result_emit emit, void *arg)
{
	ArgoCollection *c = linitial(q->colls);
	KeyDict    *d = keydict_of(c);
	Datum		keys = keydict_id_array(projection_keys(c, q->stmt->targets, 0));
	static const char *const suffixes[] = {"str", "num", "bool", "data"};
	RowStream	s[3];
	int			n = c->format == ARGO_FORMAT_ARGO1 ? 1 : 3;

	memset(s, 0, sizeof(s));
	if (n == 1)
	{
		s[0].table = c->data_table;
		s[0].type = 3;
	}
	else
	{
		s[0].table = c->str_table;
		s[1].table = c->num_table;
		s[1].type = 1;
		s[2].table = c->bool_table;
		s[2].type = 2;
	}
	for (int i = 0; i < n; i++)
	{
		s[i].storage = table_storage(c, suffixes[s[i].type]);
		if (known_disordered(&s[i].storage))
		{
			elog(DEBUG1, "%s was found out of object order before: sorting",
				 s[i].table);
			return false;
		}
		s[i].last = PG_INT64_MIN;
		open_stream(&s[i], c, keys);
	}
	for (;;)
	{
		int			best = -1;
		int64		best_id = 0;

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < n; i++)
		{
			int64		id;

			if (!stream_ready(&s[i]))
				continue;
			id = stream_objid(&s[i]);
			if (id < s[i].last)
			{
				elog(DEBUG1, "%s is out of object order: sorting", s[i].table);
				remember_disordered(&s[i].storage);
				close_streams(s, n);
				emit(arg, 0, NULL);
				return false;
			}
			if (best < 0 || id < best_id)
			{
				best = i;
				best_id = id;
			}
		}
		if (best < 0)
			break;
		take_row(&s[best], best_id, d, rb);
	}
	rebuilder_finish(rb);
	close_streams(s, n);
	return true;
}
