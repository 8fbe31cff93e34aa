/*
 * argo.c — the SQL-callable functions.  Each unpacks its arguments, hands
 * the work to the modules and returns; all are SECURITY INVOKER, so what a
 * caller may do is what PostgreSQL lets them do to the tables.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "store/collection.h"
#include "store/shard/shard.h"
#include "exec/cursor.h"
#include "exec/execute.h"
#include "fn/fn.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(argo_query);
PG_FUNCTION_INFO_V1(argo_query_read);
PG_FUNCTION_INFO_V1(argo_explain);
PG_FUNCTION_INFO_V1(argo_create_collection);
PG_FUNCTION_INFO_V1(argo_drop_collection);
PG_FUNCTION_INFO_V1(argo_create_distributed_collection);
PG_FUNCTION_INFO_V1(argo_adopt_shards);

typedef struct SrfOut
{
	Tuplestorestate *store;
	TupleDesc	desc;
} SrfOut;

/* Set up materialize mode with a one-column result of the given type. */
static SrfOut
srf_begin(FunctionCallInfo fcinfo, Oid type)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old;
	SrfOut		out;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		!(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	out.desc = CreateTemplateTupleDesc(1);
	TupleDescInitEntry(out.desc, 1, "result", type, -1, 0);
	out.store = tuplestore_begin_heap(false, false, work_mem);
	MemoryContextSwitchTo(old);
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = out.store;
	rsinfo->setDesc = out.desc;
	return out;
}

static void
srf_put(SrfOut *out, Datum value)
{
	bool		isnull = false;

	tuplestore_putvalues(out->store, out->desc, &value, &isnull);
}

static void
emit_jsonb(void *arg, int64 objid, Jsonb *value)
{
	if (value == NULL)
	{
		tuplestore_clear(((SrfOut *) arg)->store);
		return;
	}
	srf_put((SrfOut *) arg, JsonbPGetDatum(value));
}

/* The VARIADIC jsonb[] of parameters, if given. */
static Jsonb **
get_params(FunctionCallInfo fcinfo, int argno, int *nparams)
{
	if (PG_NARGS() <= argno)
	{
		*nparams = 0;
		return NULL;
	}
	return argo_params_of(PG_GETARG_DATUM(argno), PG_ARGISNULL(argno), nparams);
}

/* A statement and where its results go, run under bounded errors. */
typedef struct Call
{
	char	   *query;
	Jsonb	  **params;
	int			nparams;
	SrfOut	   *out;
} Call;

static void
run_query(void *arg)
{
	Call	   *c = arg;

	argo_execute(c->query, c->params, c->nparams, emit_jsonb, c->out);
}

static void
run_explain(void *arg)
{
	Call	   *c = arg;
	ListCell   *lc;

	foreach(lc, argo_explain_query(c->query, c->params, c->nparams))
		srf_put(c->out, CStringGetTextDatum(lfirst(lc)));
}

/* A statement function: its arguments, a result set of type, fn run. */
static Datum
run_statement(FunctionCallInfo fcinfo, Oid type, void (*fn) (void *))
{
	SrfOut		out;
	Call		c;

	c.query = argo_text_arg(fcinfo, 0, "query");
	c.params = get_params(fcinfo, 1, &c.nparams);
	out = srf_begin(fcinfo, type);
	c.out = &out;
	argo_run_statement(fn, &c);
	return (Datum) 0;
}

/* argo_query(query text, VARIADIC params jsonb[]) RETURNS SETOF jsonb */
Datum
argo_query(PG_FUNCTION_ARGS)
{
	return run_statement(fcinfo, JSONBOID, run_query);
}

/* argo_explain(query text, VARIADIC params jsonb[]) RETURNS SETOF text */
Datum
argo_explain(PG_FUNCTION_ARGS)
{
	return run_statement(fcinfo, TEXTOID, run_explain);
}

/* argo_create_collection(name text, format text) RETURNS void */
Datum
argo_create_collection(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	char	   *fmt = argo_text_arg(fcinfo, 1, "format");
	ArgoFormat	format = format_from_name(fmt);

	argo_spi_connect();
	collection_create(name, format, false);
	SPI_finish();
	PG_RETURN_VOID();
}

/* The servers of a text[] argument, none null (shards.c checks the rest). */
static List *
server_list(FunctionCallInfo fcinfo, int argno)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *servers = NIL;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("servers must not be null")));
	arr = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("servers must be a one-dimensional array")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a server name must not be null")));
		servers = lappend(servers, TextDatumGetCString(elems[i]));
	}
	return servers;
}

/*
 * argo_create_distributed_collection(name text, servers text[], format
 * text) RETURNS void.  Its shards are made in their own transactions, so
 * it runs in none of the caller's.
 */
Datum
argo_create_distributed_collection(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	List	   *servers = server_list(fcinfo, 1);
	char	   *fmt = argo_text_arg(fcinfo, 2, "format");
	ArgoFormat	format = format_from_name(fmt);

	PreventInTransactionBlock(true, "argo_create_distributed_collection()");
	argo_spi_connect();
	collection_create_distributed(name, format, servers);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * argo_adopt_shards(collection text) RETURNS void: this database becomes
 * the coordinator of a distributed collection (a restored copy that
 * replaces the original; store/shard/home.c), its owner only.
 */
Datum
argo_adopt_shards(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	ArgoCollection *c;

	argo_spi_connect();
	c = collection_lookup(name, false, ShareRowExclusiveLock);
	collection_check_owner(c);
	if (!collection_is_distributed(c))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("collection \"%s\" is not distributed", name),
				 errdetail("It has no shards to adopt.")));
	collection_record_home(c);
	SPI_finish();
	PG_RETURN_VOID();
}

/* argo_drop_collection(name text, if_exists boolean) RETURNS void */
Datum
argo_drop_collection(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	bool		if_exists;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("if_exists must not be null")));
	if_exists = PG_GETARG_BOOL(1);

	argo_spi_connect();
	collection_drop(name, if_exists);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * argo_query_read(text, VARIADIC jsonb[]) RETURNS SETOF jsonb: argo_query
 * for a read, where the planner put it and a FROM item stayed a function
 * call; EXECUTE on argo_query is what it needs.
 */
Datum
argo_query_read(PG_FUNCTION_ARGS)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	Oid			argtypes[2] = {TEXTOID, JSONBARRAYOID};
	Oid			query_fn = LookupFuncName(list_make2(makeString(get_namespace_name(nsp)),
													 makeString("argo_query")),
										  2, argtypes, false);
	AclResult	acl = pg_proc_aclcheck(query_fn, GetUserId(), ACL_EXECUTE);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FUNCTION, "argo_query");
	if (!PG_ARGISNULL(0) && argo_is_write(text_to_cstring(PG_GETARG_TEXT_PP(0))))
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("argo_query_read runs only SELECT statements")));
	return argo_query(fcinfo);
}
