/*
 * text.c — argo_text(collection, path, config): an index for text search
 * (p @@ 'query') over the strings at a path of the kept documents.
 *
 * A GIN index on argo_text_vector(doc, path, config) of c_doc, made by
 * the collection's owner; predicate.c finds it by its expression and
 * takes the path's configuration from it, so the index is all there is
 * to keep (pg_dump keeps it; DROP INDEX removes it).
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/regproc.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

PG_FUNCTION_INFO_V1(argo_text);

/* argo_text(collection text, path text, config regconfig DEFAULT 'simple') RETURNS void */
Datum
argo_text(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	char	   *text = argo_text_arg(fcinfo, 1, "path");
	ArgoPath   *path;
	ArgoCollection *c;
	Oid			config;
	Oid			had;
	Jsonb	   *steps;
	char	   *literal;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("config must not be null")));
	config = PG_GETARG_OID(2);
	path = argo_parse_path(text);
	if (path->id || path->filtered)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a text index is over the strings at a path, not \"%s\"", text)));
	argo_bind_lone_path(path);
	steps = DatumGetJsonbP(sql_path_steps(path));
	argo_spi_connect();
	c = collection_open_as_owner(name, ShareLock, "Text search is not supported there yet.", NULL);
	if (!OidIsValid(docs_relid(c)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("collection \"%s\" keeps no documents", name),
				 errdetail("A text index is made over them."),
				 errhint("SELECT argo_keep_documents('%s') keeps them.", name)));
	if (docs_text_index(c, steps, &had))
	{
		if (had == config)
		{
			SPI_finish();
			PG_RETURN_VOID();
		}
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("path \"%s\" of collection \"%s\" has a text index with configuration %s already",
						text, name, DatumGetCString(DirectFunctionCall1(regconfigout, ObjectIdGetDatum(had)))),
				 errhint("Drop that index first (DROP INDEX) to index it with another.")));
	}
	literal = JsonbToCString(NULL, &steps->root, VARSIZE(steps));
	run_ddl(psprintf("CREATE INDEX ON %s USING gin (%s(doc, %s::pg_catalog.jsonb, %s::pg_catalog.regconfig))",
						  c->doc_table, argo_function("argo_text_vector"),
						  quote_literal_cstr(literal),
						  quote_literal_cstr(DatumGetCString(DirectFunctionCall1(regconfigout, ObjectIdGetDatum(config))))));
	SPI_finish();
	PG_RETURN_VOID();
}
