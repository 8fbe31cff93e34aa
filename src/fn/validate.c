/*
 * validate.c — argo_validate(collection, schema): a JSON Schema every
 * object of the collection must satisfy, checked at once against what
 * is stored, then on every write (store/schema.c); NULL removes it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/collection.h"
#include "store/docs.h"

PG_FUNCTION_INFO_V1(argo_validate);

/* Every stored object against schema, in id order; 23514 naming the first that fails. */
static void
check_stored(ArgoCollection *c, Jsonb *schema)
{
	bool		docs = OidIsValid(docs_relid(c));
	SqlBuf	   *buf = sqlbuf_create();
	Portal		portal;
	int			name = sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name));

	appendStringInfo(&buf->sql, "SELECT o.objid, %s%s($%d, o.objid)%s FROM %s o",
					 docs ? "COALESCE(d.doc, " : "", argo_function("argo_object"), name,
					 docs ? ")" : "", c->obj_table);
	if (docs)
		appendStringInfo(&buf->sql, " LEFT JOIN %s d ON d.objid OPERATOR(pg_catalog.=) o.objid",
						 c->doc_table);
	appendStringInfoString(&buf->sql, " ORDER BY o.objid");
	portal = SPI_cursor_open_with_args(NULL, buf->sql.data, buf->nparams, buf->types,
									   buf->values, buf->nulls, true, 0);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			int64		id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull);
			char	   *path;
			const char *kw;

			CHECK_FOR_INTERRUPTS();
			if (!isnull && !schema_accepts(schema, DatumGetJsonbP(d), &path, &kw))
				ereport(ERROR,
						(errcode(ERRCODE_CHECK_VIOLATION),
						 errmsg("object " INT64_FORMAT " of collection \"%s\" does not satisfy the schema", id, c->name),
						 errdetail("At %s: \"%s\" fails.", path, kw),
						 errhint("Change or delete the objects first; nothing was set.")));
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
}

/* argo_validate(collection text, schema jsonb) RETURNS void */
Datum
argo_validate(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	Jsonb	   *schema = PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1);
	ArgoCollection *c;

	if (schema != NULL)
		schema_check_keywords(schema);
	argo_spi_connect();
	/* writers wait while the stored objects are checked */
	c = collection_open_as_owner(name, ShareRowExclusiveLock, "Validation is not supported there yet.", NULL);
	if (schema != NULL)
		check_stored(c, schema);
	collection_set_schema(c, schema);
	SPI_finish();
	PG_RETURN_VOID();
}
