/*
 * expire.c — objects that expire (argo_expire): a path whose timestamp
 * ages each object, and how long it lives after that; argo_expire_now
 * deletes what has expired, through Argo's own DELETE (the change feed,
 * unique keys and everything else as for any DELETE).  The background
 * worker (expireworker.c) calls it once a minute in every database.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "common/errors.h"
#include "common/isotime.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "exec/execute.h"

PG_FUNCTION_INFO_V1(argo_expire);
PG_FUNCTION_INFO_V1(argo_expire_now);
PG_FUNCTION_INFO_V1(argo_expiry_time);

#define EXPIRE_BATCH 1000

/* argo_expiry_time(text) RETURNS timestamptz: an ISO 8601 timestamp with its zone, else NULL */
Datum
argo_expiry_time(PG_FUNCTION_ARGS)
{
	char	   *s = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (!argo_iso_with_zone(s))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(DirectFunctionCall3(timestamptz_in, CStringGetDatum(s),
										ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
}

/* argo_expire(collection text, path text, after interval) RETURNS void; after NULL removes it */
Datum
argo_expire(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	char	   *text = argo_text_arg(fcinfo, 1, "path");
	Interval   *after = PG_ARGISNULL(2) ? NULL : PG_GETARG_INTERVAL_P(2);
	ArgoPath   *path = argo_parse_path(text);
	ArgoCollection *c;

	if (path->id || path->wild || path->filtered)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an expiry path has one value per object, not \"%s\"", text)));
	if (after != NULL &&
		DatumGetInt32(DirectFunctionCall2(interval_cmp, IntervalPGetDatum(after),
										  DirectFunctionCall3(interval_in, CStringGetDatum("0"),
															  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)))) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("after must not be negative"),
				 errdetail("An object cannot expire before its time.")));
	argo_bind_lone_path(path);
	argo_spi_connect();
	c = collection_open_as_owner(name, ShareRowExclusiveLock, "Expiry is not supported there yet.", NULL);
	collection_set_expiry(c, text, path->keystr, after == NULL ? NULL :
						  DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(after))));
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * Up to limit ids of c's expired objects: their path's timestamp before
 * now() - after.  Not read-only: SPI then takes a new snapshot, which
 * sees the batches this call already deleted (a read-only statement sees
 * the objects as the call began, and would find the same ones again).
 */
static Jsonb *
expired_ids(ArgoCollection *c, int32 keyid, const char *after, int limit, int *n)
{
	SqlBuf	   *buf = sqlbuf_create();
	int			k = sqlbuf_param(buf, INT4OID, Int32GetDatum(keyid));
	int			a = sqlbuf_param(buf, INTERVALOID,
								 DirectFunctionCall3(interval_in, CStringGetDatum(after),
													 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	const char *str = c->format == ARGO_FORMAT_ARGO1 ? c->data_table : c->str_table;
	const char *num = c->format == ARGO_FORMAT_ARGO1 ? c->data_table : c->num_table;
	bool		isnull;
	Datum		ids;
	int			rc;

	/* the key id a constant, so that the path's expiry index answers */
	buf->custom_plan = true;

	appendStringInfo(&buf->sql,
					 "SELECT pg_catalog.jsonb_agg(objid) FROM (SELECT objid FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d"
					 " AND %s(valstr) OPERATOR(pg_catalog.<) (pg_catalog.now() OPERATOR(pg_catalog.-) $%d)"
					 " UNION SELECT objid FROM %s WHERE keyid OPERATOR(pg_catalog.=) $%d"
					 " AND valnum OPERATOR(pg_catalog.<) pg_catalog.date_part('epoch', pg_catalog.now() OPERATOR(pg_catalog.-) $%d)"
					 " LIMIT %d) e",
					 str, k, argo_function("argo_expiry_time"), a, num, k, a, limit);
	rc = argo_run(buf, false);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not find the expired objects");
	ids = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
	{
		*n = 0;
		return NULL;
	}
	*n = (int) JsonContainerSize(&DatumGetJsonbP(ids)->root);
	return DatumGetJsonbPCopy(ids);
}

/* The count a DELETE's result object holds. */
static void
add_deleted(void *arg, int64 objid, Jsonb *result)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&result->root, "deleted", 7, NULL);

	if (v != NULL && v->type == jbvNumeric)
		*(int64 *) arg += DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v->val.numeric)));
}

/*
 * Delete up to max (all where max < 0) of c's expired objects, a batch at
 * a time; each batch's memory goes with it, so any number of objects
 * expire in bounded memory.
 */
static int64
expire_collection(ArgoCollection *c, int64 max)
{
	char	   *text;
	char	   *after;
	ArgoPath   *path;
	int32		keyid;
	int64		total = 0;
	MemoryContext batch;
	MemoryContext old;

	if (!collection_expiry(c, &text, &after))
		return 0;
	path = argo_parse_path(text);
	argo_bind_lone_path(path);
	keyid = keydict_find(keydict_of(c), path->keystr);
	batch = AllocSetContextCreate(CurrentMemoryContext, "argo expiry batch", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(batch);
	while (keyid > 0 && (max < 0 || total < max))
	{
		int			limit = max < 0 ? EXPIRE_BATCH : (int) Min(max - total, EXPIRE_BATCH);
		int			n;
		Jsonb	   *ids;

		CHECK_FOR_INTERRUPTS();
		ids = expired_ids(c, keyid, after, limit, &n);
		SPI_freetuptable(SPI_tuptable);
		if (n == 0)
			break;
		argo_execute(psprintf("DELETE FROM %s WHERE ID() IN $1", c->name), &ids, 1, add_deleted, &total);
		MemoryContextReset(batch);
		if (n < limit)
			break;
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(batch);
	return total;
}

/*
 * argo_expire_now(collection text [, max_objects bigint]) RETURNS bigint:
 * the objects expired and deleted, at most max_objects (the worker's
 * batch, a transaction each) where it is given.
 */
Datum
argo_expire_now(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	int64		max = -1;
	ArgoCollection *c;
	int64		total;

	if (PG_NARGS() > 1)
	{
		max = PG_GETARG_INT64(1);
		if (max < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_objects must not be negative")));
	}
	argo_spi_connect();
	c = collection_lookup(name, false, RowExclusiveLock);
	total = expire_collection(c, max);
	SPI_finish();
	PG_RETURN_INT64(total);
}
