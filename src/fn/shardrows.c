/*
 * shardrows.c — argo_shard_rows, the function a coordinator calls on a
 * shard to run the shard's part of a SELECT (exec/shardpart.c).
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/tuplestore.h"

#include "exec/exec.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_shard_rows);
PG_FUNCTION_INFO_V1(argo_shard_insert);
PG_FUNCTION_INFO_V1(argo_shard_join_part);
PG_FUNCTION_INFO_V1(argo_shard_write);
PG_FUNCTION_INFO_V1(argo_jsonb_bytes);
PG_FUNCTION_INFO_V1(argo_shard_load);

/*
 * The indexes a coordinator's load into this shard's part of a collection
 * dropped at its beginning, to build at its end: both calls come in the
 * coordinator's remote transaction, so to this backend, in one local
 * transaction.
 */
static struct
{
	LocalTransactionId lxid;
	char	   *name;			/* both in TopTransactionContext */
	List	   *dropped;
}			shard_load;

/*
 * A transaction that began a load here and commits without ending it
 * would leave the collection without its indexes: it fails instead, and
 * its DROP INDEX is rolled back with it.
 */
static void
shard_load_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_COMMIT && shard_load.lxid == MyProc->lxid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("a load into collection \"%s\" was begun on this shard and not ended",
						shard_load.name)));
}

/*
 * argo_jsonb_bytes(doc jsonb) RETURNS bytea: the document's binary form,
 * for a coordinator to read results without parsing their text again
 * (it checks them: doc/jsonbcheck.c).  The same bytes: jsonb and bytea
 * are both varlenas.
 */
Datum
argo_jsonb_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P((bytea *) PG_GETARG_JSONB_P(0));
}

/* Each result with its object id; NULL withdraws the results so far. */
static void
emit_part(void *arg, Jsonb *doc)
{
	ReturnSetInfo *out = arg;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (doc == NULL)
	{
		tuplestore_clear(out->setResult);
		return;
	}
	values[0] = Int64GetDatum(argo_emitted_objid);
	values[1] = JsonbPGetDatum(doc);
	tuplestore_putvalues(out->setResult, out->setDesc, values, nulls);
}

/* The elements of a JSON array of parameters. */
static Jsonb **
params_of(Jsonb *array, int *n)
{
	Jsonb	  **params;
	int			i = 0;

	if (!JB_ROOT_IS_ARRAY(array) || JB_ROOT_IS_SCALAR(array))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a shard's parameters are a JSON array")));
	*n = JB_ROOT_COUNT(array);
	params = palloc(sizeof(Jsonb *) * Max(*n, 1));
	for (i = 0; i < *n; i++)
		params[i] = JsonbValueToJsonb(getIthJsonbValueFromContainer(&array->root, i));
	return params;
}

typedef struct PartCall
{
	char	   *query;
	Jsonb	  **params;
	int			nparams;
	int32		keys_through;
	int64		row_limit;
	int			source;			/* a join's FROM item, or -1 */
	bool		write;			/* an UPDATE or DELETE */
	Jsonb	   *keyvals;
	ReturnSetInfo *out;
} PartCall;

static void
run_part(void *arg)
{
	PartCall   *c = arg;
	bool		nulls[2] = {true, true};
	Datum		values[2] = {0, 0};

	if (c->write)
	{
		argo_execute_write_part(c->query, c->params, c->nparams, c->keys_through,
								emit_part, c->out);
		return;
	}
	/* behind: one row of NULLs, so that the coordinator's transaction goes on */
	if (!(c->source < 0 ?
		  argo_execute_part(c->query, c->params, c->nparams, c->keys_through,
							c->row_limit, emit_part, c->out) :
		  argo_execute_join_part(c->query, c->params, c->nparams, c->keys_through,
								 c->source, c->keyvals, emit_part, c->out)))
		tuplestore_putvalues(c->out->setResult, c->out->setDesc, values, nulls);
}

/*
 * argo_shard_rows(query text, params jsonb, keys_through integer,
 * row_limit bigint) RETURNS TABLE(objid bigint, doc jsonb): the results
 * of this shard's part of query, each with its object id, in the
 * statement's order; one row of NULLs if this shard's dictionary lacks
 * key keys_through.  row_limit < 0: no limit.
 */
static void
part_call_args(FunctionCallInfo fcinfo, PartCall *c)
{
	c->query = argo_text_arg(fcinfo, 0, "query");
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a shard's parameters must not be null")));
	c->params = params_of(PG_GETARG_JSONB_P(1), &c->nparams);
	c->keys_through = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	c->row_limit = -1;
	c->source = -1;
	c->keyvals = NULL;
	c->write = false;
}

/* Run c, its results as the result set declared: TABLE (objid bigint, doc jsonb). */
static Datum
part_call_run(FunctionCallInfo fcinfo, PartCall *c)
{
	InitMaterializedSRF(fcinfo, 0);
	c->out = (ReturnSetInfo *) fcinfo->resultinfo;
	argo_with_bounded_errors(run_part, c, argo_explain_failure);
	return (Datum) 0;
}

Datum
argo_shard_rows(PG_FUNCTION_ARGS)
{
	PartCall	c;

	part_call_args(fcinfo, &c);
	c.row_limit = PG_ARGISNULL(3) ? -1 : PG_GETARG_INT64(3);
	return part_call_run(fcinfo, &c);
}

/*
 * argo_shard_join_part(query text, params jsonb, keys_through integer,
 * source integer, keyvals jsonb) RETURNS TABLE(objid bigint, doc jsonb):
 * the objects of FROM item source of the join query on this shard that
 * its own WHERE conjuncts keep (and, keyvals given, whose join
 * condition's value is in that array), as the coordinator joins them
 * (exec/shardjoin.c), in object id order; one row of NULLs if this
 * shard's dictionary lacks key keys_through.
 */
Datum
argo_shard_join_part(PG_FUNCTION_ARGS)
{
	PartCall	c;

	part_call_args(fcinfo, &c);
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a join's source must not be null")));
	c.source = PG_GETARG_INT32(3);
	c.keyvals = PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4);
	return part_call_run(fcinfo, &c);
}

/*
 * A coordinator's write to this shard's part of collection name: SPI
 * connected (the caller finishes it), the collection locked for writing,
 * and not itself distributed.
 */
static ArgoCollection *
shard_collection_open(const char *name)
{
	ArgoCollection *c;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	c = collection_lookup(name, false, RowExclusiveLock);
	if (collection_is_distributed(c))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("collection \"%s\" is distributed here too", name)));
	return c;
}

/*
 * argo_shard_insert(collection text, ids bigint[], docs jsonb[]) RETURNS
 * bigint: objects a coordinator sends whole, written here with the ids
 * it drew, as a local insert writes them (rows from C, row maps, sorted
 * index entries); every key must be in this shard's copy of the
 * dictionary already.  The number written.
 */
Datum
argo_shard_insert(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	Datum	   *ids;
	Datum	   *docs;
	bool	   *nulls;
	int			nids;
	int			ndocs;
	ArgoCollection *c;
	RowBatch   *b;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a shard's objects and their ids must not be null")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), INT8OID, 8, true, TYPALIGN_DOUBLE, &ids, &nulls, &nids);
	for (int i = 0; i < nids; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a shard's object ids must not be null")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), JSONBOID, -1, false, TYPALIGN_INT, &docs, &nulls, &ndocs);
	if (ndocs != nids)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a shard is sent %d objects and %d ids", ndocs, nids)));
	c = shard_collection_open(name);
	b = rowbatch_create(c, true);
	rowbatch_fix_keys(b);
	for (int i = 0; i < nids; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a shard's objects must not be null")));
		rowbatch_add_object(b, DatumGetInt64(ids[i]), DatumGetJsonbP(docs[i]));
	}
	rowbatch_flush(b);
	SPI_finish();
	PG_RETURN_INT64(nids);
}

/*
 * argo_shard_write(query text, params jsonb, keys_through integer)
 * RETURNS TABLE(objid bigint, doc jsonb): this shard's part of an UPDATE
 * or DELETE of a distributed collection (exec/shardwrite.c), run on its
 * own objects, every key from its copy of the dictionary; its count
 * result ({"updated": n}, with RETURNING ID the ids too) as doc.
 */
Datum
argo_shard_write(PG_FUNCTION_ARGS)
{
	PartCall	c;

	part_call_args(fcinfo, &c);
	c.write = true;
	return part_call_run(fcinfo, &c);
}

/*
 * argo_shard_load(collection text, begin boolean) RETURNS integer: a
 * coordinator's load into an empty distributed collection begins or ends
 * (fn/load.c).  At its beginning, if this shard's part is empty too,
 * Argo's indexes of its value tables are dropped (as a local load into
 * an empty collection does, and only by their owner); at its end they
 * are built once.  How many indexes were dropped or built.
 */
Datum
argo_shard_load(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	ArgoCollection *c;
	int			n = 0;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("whether a load begins must not be null")));
	/* a coordinator's remote transaction: begin and end in one block */
	if (!IsTransactionBlock())
		ereport(ERROR,
				(errcode(ERRCODE_NO_ACTIVE_SQL_TRANSACTION),
				 errmsg("argo_shard_load runs inside a transaction block, as a coordinator sends it")));
	c = shard_collection_open(name);
	if (PG_GETARG_BOOL(1))
	{
		static bool registered = false;

		List	   *dropped = collection_is_empty(c) ? collection_drop_indexes(c) : NIL;
		MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);

		shard_load.lxid = MyProc->lxid;
		shard_load.name = pstrdup(name);
		shard_load.dropped = list_copy(dropped);
		MemoryContextSwitchTo(old);
		if (!registered)
			RegisterXactCallback(shard_load_xact_callback, NULL);
		registered = true;
		n = list_length(dropped);
	}
	else if (shard_load.lxid == MyProc->lxid && strcmp(shard_load.name, name) == 0)
	{
		collection_rebuild_indexes(c, shard_load.dropped);
		n = list_length(shard_load.dropped);
		shard_load.lxid = InvalidLocalTransactionId;
	}
	SPI_finish();
	PG_RETURN_INT32(n);
}
