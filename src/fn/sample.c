/*
 * sample.c — which objects an admin function reads when it need not
 * read them all (argo_keys, argo_analyze, argo_check with a sample).
 *
 * Pages of the directory picked at random (TABLESAMPLE SYSTEM), as
 * ANALYZE picks pages: the cost is that of the sample, not of the
 * collection, and every object is as likely to be picked as any other.
 * Objects written together share pages, so a sample of n objects varies
 * more than n objects picked one by one would; the callers scale counts
 * and say that they did.  The objects are counted exactly (an index-only
 * scan of the directory's key), so that what every object has is
 * reported as every object.
 *
 * argo_check also wants rows that belong to no object: with_rows picks
 * pages of each value table too, the target shared among the tables (a
 * value table's page holds the rows of a few objects, about as many as a
 * directory page holds).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "common/common.h"
#include "store/collection.h"
#include "store/shard/shard.h"
#include "fn/fn.h"

/* The objects of c, counted. */
static int64
count_objects(ArgoCollection *c)
{
	char	   *sql = psprintf("SELECT pg_catalog.count(*) FROM %s", c->obj_table);
	bool		isnull;
	int64		n;

	if (SPI_execute(sql, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not count the objects of collection \"%s\"", c->name);
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);
	return n;
}

/* The ids met on pct percent of the pages of each table, as one int8[]. */
static Datum
sampled_ids(ArgoCollection *c, double pct, bool with_rows, int64 *n)
{
	StringInfoData sql;
	int			ntables;
	const char *const *tables = collection_object_tables(c, &ntables);
	Datum		arg = Float4GetDatum((float4) pct);
	Oid			argtype = FLOAT4OID;
	bool		isnull;
	Datum		ids;

	initStringInfo(&sql);
	/* a sampling method is a function found by its name: pg_catalog's */
	appendStringInfo(&sql, "SELECT pg_catalog.array_agg(DISTINCT objid ORDER BY objid) FROM (SELECT objid FROM %s TABLESAMPLE pg_catalog.system ($1)",
					 c->obj_table);
	/* the directory is the last of the object's tables */
	for (int i = 0; with_rows && i < ntables - 1; i++)
		appendStringInfo(&sql, " UNION ALL SELECT objid FROM %s TABLESAMPLE pg_catalog.system ($1)",
						 quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_%s", c->name, tables[i])));
	appendStringInfoString(&sql, ") s");
	if (SPI_execute_with_args(sql.data, 1, &argtype, &arg, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not sample collection \"%s\"", c->name);
	ids = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
	{
		/* no page picked held a row: an empty sample, an empty array */
		*n = 0;
		return PointerGetDatum(construct_empty_array(INT8OID));
	}
	ids = SPI_datumTransfer(ids, false, -1);
	*n = ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(ids)), ARR_DIMS(DatumGetArrayTypeP(ids)));
	return ids;
}

/*
 * Pick about target objects of c (every object when target is negative,
 * when c has no more, or when c is distributed: its tables are on other
 * servers, which cannot sample for us).  SPI must be connected.
 */
void
objsample_take(ArgoCollection *c, int64 target, bool with_rows, ObjSample *s)
{
	s->objects = count_objects(c);
	s->ids = (Datum) 0;
	s->sampled = s->objects;
	if (target < 0 || s->objects <= target || collection_is_distributed(c))
		return;
	if (with_rows)
	{
		int			ntables;

		(void) collection_object_tables(c, &ntables);
		target = Max(target / ntables, 1);
	}
	s->ids = sampled_ids(c, 100.0 * (double) target / (double) s->objects, with_rows, &s->sampled);
}

/* A sample argument: NULL reads every object, else at least one. */
int64
objsample_arg(FunctionCallInfo fcinfo, int argno)
{
	int64		target;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return -1;
	target = PG_GETARG_INT64(argno);
	if (target < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample must be at least 1 object, or NULL for every object")));
	return target;
}
