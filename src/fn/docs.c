/*
 * docs.c — argo_keep_documents(collection, keep): whether a collection
 * keeps each object's jsonb beside its rows (store/docs.c), set by its
 * owner.
 */
#include "postgres.h"

#include "access/table.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/rowmap.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_keep_documents);

/*
 * A document is made from the rows the caller sees, so the caller must
 * see every row: a role a policy filters would make copies holding less
 * than their objects (store/docs.c keeps copies out of reach of the
 * roles policies filter).  The maps of rows are made alongside.
 */
static void
check_sees_every_row(ArgoCollection *c)
{
	int			n;
	const char *const *tables = collection_object_tables(c, &n);

	for (int i = 0; i < n; i++)
	{
		Relation	rel = argo_open_table(c, tables[i]);
		bool		rls = argo_rls_applies(rel);
		char	   *relname = pstrdup(RelationGetRelationName(rel));

		table_close(rel, NoLock);
		if (rls)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("collection \"%s\" cannot keep documents made by a role that row-level security filters", c->name),
					 errdetail("Table \"%s\" has a policy that applies to this role; a kept document holds all of its object's rows.",
							   relname),
					 errhint("Run argo_keep_documents as the tables' owner (without FORCE ROW LEVEL SECURITY) or a role with BYPASSRLS.")));
	}
}

/*
 * argo_keep_documents(collection text, keep boolean DEFAULT true)
 * RETURNS bigint: the documents written (0 when nothing changes).
 */
Datum
argo_keep_documents(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	ArgoCollection *c;
	Relation	dir;
	bool		has,
				maps;
	bool		on;
	int64		n = 0;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("keep must not be null")));
	on = PG_GETARG_BOOL(1);
	argo_spi_connect();
	/* as a writer would lock, and stronger: no object changes meanwhile */
	c = collection_open_as_owner(name, ShareRowExclusiveLock, "Its documents are on its shards.", NULL);
	has = OidIsValid(docs_relid(c));
	dir = argo_open_table(c, "obj");
	maps = rowmap_column(dir) > 0;
	table_close(dir, NoLock);
	if (on && !has)
	{
		if (!maps)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("collection \"%s\" was made before version 0.6 and has no row maps", name),
					 errhint("Run ALTER EXTENSION argo UPDATE and argo_repair('%s') first.", name)));
		check_sees_every_row(c);
		docs_create(c);
		docs_sync_rls(c);
		n = argo_repair_docs(c);
	}
	else if (!on && has)
		docs_drop(c);
	SPI_finish();
	PG_RETURN_INT64(n);
}
