/*
 * shardrows.c — the functions a coordinator calls on a shard (through
 * postgres_fdw's connections or shardsession.c's): argo_shard_rows runs
 * the shard's part of a SELECT and argo_shard_join_part a join source's
 * (exec/shard/shardpart.c), argo_shard_write its part of an UPDATE or DELETE,
 * argo_shard_insert and argo_shard_load write the objects the
 * coordinator sends, and argo_jsonb_bytes gives a jsonb in its binary
 * form for the coordinator to check (doc/jsonbcheck.c).
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/rowbatch.h"
#include "store/shard/shard.h"
#include "exec/execute.h"
#include "exec/shard/shardrun.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_shard_rows);
PG_FUNCTION_INFO_V1(argo_shard_insert);
PG_FUNCTION_INFO_V1(argo_shard_join_part);
PG_FUNCTION_INFO_V1(argo_shard_write);
PG_FUNCTION_INFO_V1(argo_jsonb_bytes);
PG_FUNCTION_INFO_V1(argo_shard_load);

/*
 * The loads a coordinator began on this shard's parts and has not ended,
 * each with the indexes it dropped, to build at its end: both calls come
 * in the coordinator's remote transaction, so to this backend, in one
 * local transaction.  One per collection: a transaction may begin loads
 * of several.
 */
typedef struct ShardLoad
{
	char	   *name;
	List	   *dropped;
} ShardLoad;

static LocalTransactionId loads_lxid = InvalidLocalTransactionId;
static List *loads = NIL;		/* of ShardLoad, in TopTransactionContext */

/* This transaction's loads (forgotten when it is another's). */
static List *
open_loads(void)
{
	if (loads_lxid != MyProc->lxid)
	{
		loads = NIL;
		loads_lxid = MyProc->lxid;
	}
	return loads;
}

/*
 * A transaction that began a load here and commits without ending it
 * would leave the collection without its indexes: it fails instead, and
 * its DROP INDEX is rolled back with it.
 */
static void
shard_load_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_COMMIT && loads_lxid == MyProc->lxid && loads != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("a load into collection \"%s\" was begun on this shard and not ended",
						((ShardLoad *) linitial(loads))->name)));
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
shardrows_emit_part(void *arg, int64 objid, Jsonb *doc)
{
	ReturnSetInfo *out = arg;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (doc == NULL)
	{
		tuplestore_clear(out->setResult);
		return;
	}
	values[0] = Int64GetDatum(objid);
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
								shardrows_emit_part, c->out);
		return;
	}
	/* behind: one row of NULLs, so that the coordinator's transaction goes on */
	if (!(c->source < 0 ?
		  argo_execute_part(c->query, c->params, c->nparams, c->keys_through,
							c->row_limit, shardrows_emit_part, c->out) :
		  argo_execute_join_part(c->query, c->params, c->nparams, c->keys_through,
								 c->source, c->keyvals, shardrows_emit_part, c->out)))
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
	argo_run_statement(run_part, c);
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
 * (exec/shard/shardjoin.c), in object id order; one row of NULLs if this
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

/* Whether the collection's own sequence has ever given out an id. */
static bool
numbered_here(ArgoCollection *c)
{
	if (SPI_execute(psprintf("SELECT is_called FROM %s", c->seq), true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read the sequence of collection \"%s\"", c->name);
	return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
									  &(bool) {false}));
}

/*
 * Only a shard's part (store/shard/home.c) takes ids chosen elsewhere and
 * loads that drop its indexes.  A part a coordinator made before the
 * mark existed is marked by its owner's first call, provided its own
 * sequence never numbered an object: a collection that numbers its
 * objects would give out again the ids written here.
 */
static void
check_shard_part(ArgoCollection *c)
{
	if (collection_is_shard_part(c))
		return;
	if (pg_class_ownercheck(argo_table_relid(c, "obj"), GetUserId()) && !numbered_here(c))
	{
		collection_mark_shard_part(c);
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("collection \"%s\" is not a shard's part of a distributed collection", c->name),
			 errdetail("Objects with ids drawn elsewhere, and loads that drop its indexes, go only into a collection a coordinator made on this server."),
			 errhint("Insert into it with argo_query.")));
}

/*
 * A coordinator's write to this shard's part of collection name: SPI
 * connected (the caller finishes it), the collection locked for writing,
 * a shard's part and not itself distributed.
 */
static ArgoCollection *
shard_collection_open(const char *name)
{
	ArgoCollection *c;

	argo_spi_connect();
	c = collection_lookup(name, false, RowExclusiveLock);
	if (collection_is_distributed(c))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("collection \"%s\" is distributed here too", name)));
	check_shard_part(c);
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
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a shard's object ids must not be null")));
		if (DatumGetInt64(ids[i]) < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("object id " INT64_FORMAT " is not one a coordinator draws",
							DatumGetInt64(ids[i]))));
	}
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
 * or DELETE of a distributed collection (exec/shard/shardwrite.c), run on its
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

/* A load of c begins: its indexes dropped if its part is empty. */
static int
load_begin(ArgoCollection *c)
{
	static bool registered = false;
	List	   *dropped;
	MemoryContext old;
	ShardLoad  *l;
	ListCell   *lc;

	foreach(lc, open_loads())
		if (strcmp(((ShardLoad *) lfirst(lc))->name, c->name) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
					 errmsg("a load into collection \"%s\" was begun on this shard already", c->name)));
	dropped = collection_is_empty(c) ? collection_drop_indexes(c) : NIL;
	old = MemoryContextSwitchTo(TopTransactionContext);
	l = palloc(sizeof(ShardLoad));
	l->name = pstrdup(c->name);
	l->dropped = list_copy(dropped);
	loads = lappend(loads, l);
	MemoryContextSwitchTo(old);
	if (!registered)
		RegisterXactCallback(shard_load_xact_callback, NULL);
	registered = true;
	return list_length(dropped);
}

/* A load of c ends: what its beginning dropped, built (nothing if none began). */
static int
load_end(ArgoCollection *c)
{
	ListCell   *lc;

	foreach(lc, open_loads())
	{
		ShardLoad  *l = lfirst(lc);

		if (strcmp(l->name, c->name) == 0)
		{
			collection_rebuild_indexes(c, l->dropped);
			loads = foreach_delete_current(loads, lc);
			return list_length(l->dropped);
		}
	}
	return 0;
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
		n = load_begin(c);
	else
		n = load_end(c);
	SPI_finish();
	PG_RETURN_INT32(n);
}
