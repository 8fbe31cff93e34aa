/*
 * docs.c — argo_keep_documents(collection, keep): whether a collection
 * keeps each object's jsonb beside its rows (storage/docs.c), set by its
 * owner.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "exec/exec.h"

PG_FUNCTION_INFO_V1(argo_keep_documents);

/*
 * A kept document holds every row of its object, so it must not be made
 * where a policy filters the rows: made by a role the policy filters, it
 * would hold less than the object; read by a role it filters, more.
 */
static void
check_no_policies(ArgoCollection *c)
{
	int			n;
	const char *const *tables = collection_object_tables(c, &n);

	for (int i = 0; i < n; i++)
	{
		Relation	rel = argo_open_table(c, tables[i]);
		bool		rls = rel->rd_rel->relrowsecurity;
		char	   *relname = pstrdup(RelationGetRelationName(rel));

		table_close(rel, NoLock);
		if (rls)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("collection \"%s\" cannot keep documents: table \"%s\" has row-level security",
							c->name, relname),
					 errdetail("A kept document holds all of its object's rows, whatever a policy hides.")));
	}
}

/* Add the column and fill it with each object as it is rebuilt now. */
static int64
keep(ArgoCollection *c)
{
	SqlBuf	   *buf = sqlbuf_create();
	int			rc;

	run_ddl(psprintf("ALTER TABLE %s ADD COLUMN doc pg_catalog.jsonb, SET (fillfactor = %d)", c->obj_table,
					 ARGO_DIRECTORY_FILLFACTOR));
	appendStringInfo(&buf->sql, "UPDATE %s o SET doc = %s($%d, o.objid)",
					 c->obj_table, argo_function("argo_object"),
					 sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name)));
	rc = argo_run(buf, false);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "argo: could not keep the documents: %s", SPI_result_code_string(rc));
	return (int64) SPI_processed;
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
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	/* the owner only, said before the lock others would wait behind */
	collection_check_owner(collection_lookup(name, false, NoLock));
	/* as a writer would lock, and stronger: no object changes meanwhile */
	c = collection_lookup(name, false, ShareRowExclusiveLock);
	collection_check_owner(c);
	if (collection_is_distributed(c))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("collection \"%s\" is distributed: its documents are on its shards", name)));
	dir = argo_open_table(c, "obj");
	has = docs_column(dir) > 0;
	maps = rowmap_column(dir) > 0;
	table_close(dir, NoLock);
	if (on && !has)
	{
		if (!maps)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("collection \"%s\" was made before version 0.6 and has no row maps", name),
					 errhint("Run ALTER EXTENSION argo UPDATE and argo_repair('%s') first.", name)));
		check_no_policies(c);
		n = keep(c);
	}
	else if (!on && has)
		run_ddl(psprintf("ALTER TABLE %s DROP COLUMN doc, RESET (fillfactor)", c->obj_table));
	SPI_finish();
	PG_RETURN_INT64(n);
}
