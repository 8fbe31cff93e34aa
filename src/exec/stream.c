/*
 * stream.c — rows of (objid, key, valstr, valnum, valbool) from SQL into
 * the rebuilder.  The key is a key id of the rebuilder's dictionary, or a
 * flattened key as text (joins, whose parts come from several
 * collections); a NULL key says that the object exists (SELECT *: {}
 * has no other row).
 *
 * A statement run to completion hands its rows to a DestReceiver as the
 * executor makes them: nothing is materialized, and, unlike a cursor
 * fetched in rounds, PostgreSQL may plan it parallel.  A cursor is kept
 * for UPDATE, whose emit callback itself runs SPI, which must not happen
 * while another SPI statement is executing.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/params.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/results.h"
#include "exec/stream.h"


typedef struct RebuildReceiver
{
	DestReceiver pub;
	Rebuilder  *rb;
	row_fn		take;			/* or rows go to this function */
	void	   *arg;
	MemoryContext rowcxt;		/* one row's: what it detoasts, freed after it */
	TupleDesc  *desc;			/* if not NULL: told the rows' descriptor */
} RebuildReceiver;

/*
 * One (objid, keyid, valstr, valnum, valbool) row into rb, its key from
 * d; a NULL key says that the object exists.
 */
void
argo_add_row(Rebuilder *rb, KeyDict *d, Datum *v, bool *isnull)
{
	if (isnull[1])
	{
		rebuilder_add_object(rb, DatumGetInt64(v[0]));
		return;
	}
	rebuilder_add_row(rb, DatumGetInt64(v[0]), keydict_get(d, DatumGetInt32(v[1])),
					  isnull[2] ? NULL : (text *) DatumGetPointer(v[2]),
					  isnull[3], isnull[3] ? 0 : DatumGetFloat8(v[3]),
					  isnull[4], isnull[4] ? false : DatumGetBool(v[4]));
}

/* The same with the key as text (rows of several collections). */
static void
add_row_values(Rebuilder *rb, Oid keytype, Datum *v, bool *isnull)
{
	if (keytype == INT4OID || isnull[1])
	{
		argo_add_row(rb, rebuilder_dict(rb), v, isnull);
		return;
	}
	rebuilder_add_keystr_row(rb, DatumGetInt64(v[0]), TextDatumGetCString(v[1]),
							 isnull[2] ? NULL : (text *) DatumGetPointer(v[2]),
							 isnull[3], isnull[3] ? 0 : DatumGetFloat8(v[3]),
							 isnull[4], isnull[4] ? false : DatumGetBool(v[4]));
}

/*
 * One row, in a context of its own that is emptied after it: the
 * executor calls this in the statement's memory, where a kept document
 * detoasted to be taken (or a long string) would otherwise stay until
 * the statement ends — a whole collection's worth.  Whatever outlives the
 * row the rebuilder and the takers copy into memory of their own.
 */
static bool
receive_row(TupleTableSlot *slot, DestReceiver *self)
{
	RebuildReceiver *r = (RebuildReceiver *) self;
	MemoryContext old;

	old = MemoryContextSwitchTo(r->rowcxt);
	slot_getallattrs(slot);
	if (r->take)
		r->take(r->arg, slot->tts_values, slot->tts_isnull);
	else
		add_row_values(r->rb,
					   TupleDescAttr(slot->tts_tupleDescriptor, 1)->atttypid,
					   slot->tts_values, slot->tts_isnull);
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->rowcxt);
	return true;
}

static void
receiver_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	RebuildReceiver *r = (RebuildReceiver *) self;

	if (r->take == NULL && desc->natts != 5)
		elog(ERROR, "a row query returned %d columns, not 5", desc->natts);
	if (r->desc != NULL)
		*r->desc = desc;
}

static void
receiver_noop(DestReceiver *self)
{
}

/* Ready to receive; its row context is a child of the current one. */
static void
receiver_init(RebuildReceiver *recv)
{
	recv->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "argo row", ALLOCSET_DEFAULT_SIZES);
	recv->pub.receiveSlot = receive_row;
	recv->pub.rStartup = receiver_startup;
	recv->pub.rShutdown = receiver_noop;
	recv->pub.rDestroy = receiver_noop;
	/* not DestNone, for which SPI reports no SELECT; as PL/pgSQL's RETURN QUERY */
	recv->pub.mydest = DestTuplestore;
}

/* A receiver handing each row to take, as it is made. */
DestReceiver *
argo_row_receiver(row_fn take, void *arg)
{
	RebuildReceiver *recv = palloc0(sizeof(RebuildReceiver));

	receiver_init(recv);
	recv->take = take;
	recv->arg = arg;
	return &recv->pub;
}

/* Run the read-only statement in buf, its rows going to recv. */
static void
run_into(SqlBuf *buf, RebuildReceiver *recv)
{
	SPIExecuteOptions opts;
	int			rc;

	receiver_init(recv);
	memset(&opts, 0, sizeof(opts));
	opts.read_only = true;
	opts.dest = (DestReceiver *) recv;
	rc = argo_run_with(buf, CURSOR_OPT_PARALLEL_OK, &opts);
	MemoryContextDelete(recv->rowcxt);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "row query failed: %s", SPI_result_code_string(rc));
	if (recv->rb)
		rebuilder_finish(recv->rb);
}

/* Run the read-only statement in buf, rebuilding objects from its rows. */
void
argo_rebuild_from_query(SqlBuf *buf, Rebuilder *rb)
{
	RebuildReceiver recv;

	memset(&recv, 0, sizeof(recv));
	recv.rb = rb;
	run_into(buf, &recv);
}

/*
 * Run the read-only statement in buf, handing each row to take as it is
 * made (take must not run SPI).
 */
void
argo_stream_rows(SqlBuf *buf, row_fn take, void *arg)
{
	argo_stream_described(buf, take, arg, NULL);
}

/*
 * The same, *desc set to the rows' descriptor before the first row (for
 * a take that reads columns of several types), valid while they come.
 */
void
argo_stream_described(SqlBuf *buf, row_fn take, void *arg, TupleDesc *desc)
{
	RebuildReceiver recv;

	memset(&recv, 0, sizeof(recv));
	recv.take = take;
	recv.arg = arg;
	recv.desc = desc;
	run_into(buf, &recv);
}

typedef struct FetchTarget
{
	ObjFetch   *fetch;
	Rebuilder  *rb;
	/* where each object's kept document may lie, by id (sorted); or none */
	const int64 *doc_ids;
	DocHint    *doc_hints;
	int			ndocs;
	int			fetched;		/* objects fetched */
	int			prefetched;		/* doc_hints[0, prefetched) asked for */
} FetchTarget;

/* Where argo_fetch_row sends an object id: f's rows for it, into rb. */
void *
argo_fetch_target(ObjFetch *f, Rebuilder *rb)
{
	FetchTarget *t = palloc(sizeof(FetchTarget));

	t->fetch = f;
	t->rb = rb;
	t->ndocs = 0;
	t->fetched = t->prefetched = 0;
	return t;
}

/* The objects' kept documents' places, found with their ids (lookup.c). */
void
argo_fetch_target_docs(void *target, const int64 *ids, DocHint *hints, int n)
{
	FetchTarget *t = target;

	t->doc_ids = ids;
	t->doc_hints = hints;
	t->ndocs = hints != NULL ? n : 0;
	t->fetched = 0;
	t->prefetched = 0;
}

/* Where objid's kept document may lie, as the target was told; NULL if not. */
static DocHint *
doc_hint(FetchTarget *t, int64 objid)
{
	int			lo = 0,
				hi = t->ndocs;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (t->doc_ids[mid] < objid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->ndocs && t->doc_ids[lo] == objid ? &t->doc_hints[lo] : NULL;
}

/* A row whose first column is an object id: the object's rows fetched. */
void
argo_fetch_row(void *target, Datum *values, bool *nulls)
{
	FetchTarget *t = target;
	int64		objid = DatumGetInt64(values[0]);

	if (t->ndocs > 0)
	{
		/* exactly ahead when fetched in id order, as a read without ORDER BY is */
		objfetch_prefetch_docs(t->fetch, t->rb, t->doc_hints, t->ndocs, t->fetched++,
							   &t->prefetched);
		objfetch_hint_doc(t->fetch, doc_hint(t, objid));
	}
	objfetch_object(t->fetch, objid, t->rb);
}

/* A row of (objid, keyid, valstr, valnum, valbool) into the rebuilder. */
void
argo_rebuild_row(void *rb, Datum *values, bool *nulls)
{
	argo_add_row(rb, rebuilder_dict(rb), values, nulls);
}

/*
 * Run the read-only statement in ids, which yields object ids in output
 * order, and rebuild each object from the rows f fetches for it.
 */
void
argo_fetch_objects(SqlBuf *ids, ObjFetch *f, Rebuilder *rb)
{
	argo_stream_rows(ids, argo_fetch_row, argo_fetch_target(f, rb));
	rebuilder_finish(rb);
}

/* Feed every row of a cursor into the rebuilder. */
void
argo_rebuild_from_cursor(Portal portal, Rebuilder *rb)
{
	for (;;)
	{
		SPITupleTable *tt;
		uint64		n;

		SPI_cursor_fetch(portal, true, ARGO_FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		/* the emit callback may run SPI too: keep our own copies */
		tt = SPI_tuptable;
		n = SPI_processed;
		for (uint64 i = 0; i < n; i++)
		{
			Datum		v[5];
			bool		isnull[5];

			heap_deform_tuple(tt->vals[i], tt->tupdesc, v, isnull);
			add_row_values(rb, TupleDescAttr(tt->tupdesc, 1)->atttypid, v, isnull);
		}
		SPI_freetuptable(tt);
	}
	rebuilder_finish(rb);
}

/* One batch's objects, as the rows query rebuilds them (in id order). */
typedef struct Batch
{
	int			n;
	int64		ids[ARGO_FETCH_ROWS];	/* in output order */
	int			order[ARGO_FETCH_ROWS];	/* positions, by id */
	Jsonb	   *docs[ARGO_FETCH_ROWS];	/* by position; NULL: not rebuilt */
	MemoryContext cxt;
} Batch;

static int
position_cmp(const void *a, const void *b, void *arg)
{
	const int64 *ids = arg;
	int64		x = ids[*(const int *) a];
	int64		y = ids[*(const int *) b];

	return x < y ? -1 : x > y;
}

/* Keep an object the batch's rows rebuilt, at its output position. */
static void
keep_object(void *arg, int64 objid, Jsonb *obj)
{
	Batch	   *b = arg;
	int			lo = 0,
				hi = b->n;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (b->ids[b->order[mid]] < objid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->n || b->ids[b->order[lo]] != objid)
		return;
	b->docs[b->order[lo]] = (Jsonb *) MemoryContextAlloc(b->cxt, VARSIZE(obj));
	memcpy(b->docs[b->order[lo]], obj, VARSIZE(obj));
}

/*
 * Run the statement in idsql, which yields object ids in output order,
 * and rebuild the objects a batch of ids at a time, each batch's rows
 * read by one statement (sqlgen_rows_of_batch); emit them in output
 * order.  For a distributed collection, where that is one round trip per
 * shard and batch instead of one per object.
 */
void
argo_fetch_in_batches(ArgoQuery *q, SqlBuf *idsql, rebuild_emit emit, void *arg)
{
	Portal		portal = argo_open_cursor(idsql, true);
	Batch	   *b = palloc0(sizeof(Batch));

	b->cxt = AllocSetContextCreate(CurrentMemoryContext, "argo batch", ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		Rebuilder  *rb;

		SPI_cursor_fetch(portal, true, ARGO_FETCH_ROWS);
		b->n = (int) SPI_processed;
		if (b->n == 0)
			break;
		for (int i = 0; i < b->n; i++)
		{
			bool		isnull;

			b->ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
			b->order[i] = i;
			b->docs[i] = NULL;
		}
		SPI_freetuptable(SPI_tuptable);
		qsort_arg(b->order, b->n, sizeof(int), position_cmp, b->ids);
		rb = select_rebuilder(q, 0, keep_object, b);
		argo_rebuild_from_query(sqlgen_rows_of_batch(q, b->ids, b->n), rb);
		for (int i = 0; i < b->n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (b->docs[i] != NULL)
				emit(arg, b->ids[i], b->docs[i]);
		}
		MemoryContextReset(b->cxt);
	}
	SPI_cursor_close(portal);
	MemoryContextDelete(b->cxt);
}
