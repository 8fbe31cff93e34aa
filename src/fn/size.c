/*
 * size.c — argo_collection_size(collection): the bytes a collection's
 * tables take, with their indexes and TOAST, for the argo_collections
 * listing.  A distributed collection's rows are on its shards, whose
 * own listings are asked (through dblink); its coordinator holds only
 * the key dictionary.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "common/plancache.h"
#include "store/collection.h"
#include "store/shard/shard.h"

PG_FUNCTION_INFO_V1(argo_collection_size);

/*
 * argo_collection_size(collection text) RETURNS bigint: NULL for a
 * collection that does not exist, or one of whose shards does not say.
 */
Datum
argo_collection_size(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ArgoCollection *c;
	int64		total = 0;
	bool		distributed;

	/* a sequence anyone named "x-y_seq" in argo_data is no collection */
	if (!collection_name_valid(name))
		PG_RETURN_NULL();
	argo_spi_connect();
	c = collection_lookup(name, true, AccessShareLock);
	if (c == NULL)
	{
		SPI_finish();
		PG_RETURN_NULL();
	}
	distributed = collection_is_distributed(c);
	for (int i = 0; i < ARGO_NTABLES; i++)
		if (OidIsValid(c->relids[i]))
			total += DatumGetInt64(DirectFunctionCall1(pg_total_relation_size,
													   ObjectIdGetDatum(c->relids[i])));
	if (distributed)
	{
		int64		shards = collection_shards_size(name, collection_shard_servers(c));

		if (shards < 0)
		{
			SPI_finish();
			PG_RETURN_NULL();
		}
		total += shards;
	}
	SPI_finish();
	PG_RETURN_INT64(total);
}
