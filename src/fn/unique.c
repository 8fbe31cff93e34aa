/*
 * unique.c — argo_unique(collection, path, enabled): a unique key, made
 * or removed by the collection's owner (store/unique.c keeps it).
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/builtins.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"

PG_FUNCTION_INFO_V1(argo_unique);

/*
 * argo_unique(collection text, path text, enabled boolean DEFAULT true)
 * RETURNS void.  The path in Argo/SQL's spelling (address.city,
 * `odd.key`); one value, so no [*] and not ID() (unique already).
 */
Datum
argo_unique(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	char	   *text = argo_text_arg(fcinfo, 1, "path");
	ArgoPath   *path;
	ArgoCollection *c;
	bool		on;
	int32		keyid;
	char	   *keystr;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("enabled must not be null")));
	on = PG_GETARG_BOOL(2);
	path = argo_parse_path(text);
	if (path->id || path->wild)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a unique key is a path with one value per object, not \"%s\"", text),
				 errhint(path->id ? "Object ids are unique already." :
						 "A path with [*] reaches many values.")));
	argo_bind_lone_path(path);
	keystr = path->keystr;
	argo_spi_connect();
	c = collection_open_as_owner(name, ShareRowExclusiveLock, "A unique key would span its shards.", NULL);
	keydict_assign(c, &keystr, 1, &keyid);
	collection_set_unique(c, keystr, keyid, on);
	SPI_finish();
	PG_RETURN_VOID();
}
