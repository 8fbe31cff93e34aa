/*
 * export.c — argo_export_file(collection, path): every object of a
 * collection into a JSON-lines file on the server, one object's JSON
 * text a line, as argo_load_file reads it back.
 *
 * JSON text never holds a raw line break (a newline in a string is
 * written \n), so a line is an object, whatever its strings hold.  What
 * COPY writes is not JSON lines: its text format escapes every backslash
 * again ("say \\"hi\\"" for "say \"hi\""), and its CSV format quotes.
 * The objects are read as argo_query streams them (no temporary file,
 * memory bounded by a batch), with the caller's privileges.
 */
#include "postgres.h"

#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "common/errors.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/collection.h"

PG_FUNCTION_INFO_V1(argo_export_file);

/* Objects taken from the statement at a time. */
#define EXPORT_BATCH 1000

/* The same rules as COPY TO a file: the role, and an absolute path. */
static void
check_may_write(const char *path)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to export to a file on the server"),
				 errhint("Only roles with the privileges of pg_write_server_files may; others can write JSON lines from a client (docs/operations.md).")));
	if (!is_absolute_path(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for argo_export_file")));
}

/* Open path for writing as COPY does: not writable by group or others. */
static FILE *
open_for_export(const char *path)
{
	mode_t		oumask = umask(S_IWGRP | S_IWOTH);
	FILE	   *file;

	PG_TRY();
	{
		file = AllocateFile(path, PG_BINARY_W);
	}
	PG_FINALLY();
	{
		umask(oumask);
	}
	PG_END_TRY();
	if (file == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for writing: %m", path)));
	return file;
}

/* Write each object of the batch in SPI_tuptable as a line; how many. */
static uint64
write_batch(FILE *file, const char *path, MemoryContext rowcxt)
{
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		Jsonb	   *doc = DatumGetJsonbP(d);
		char	   *text = JsonbToCString(NULL, &doc->root, VARSIZE(doc));
		size_t		len = strlen(text);

		CHECK_FOR_INTERRUPTS();
		if (fwrite(text, 1, len, file) != len || fputc('\n', file) == EOF)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write to file \"%s\": %m", path)));
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	return SPI_processed;
}

/*
 * argo_export_file(collection text, path text [, with_ids boolean])
 * RETURNS bigint: the objects written.
 */
Datum
argo_export_file(PG_FUNCTION_ARGS)
{
	char	   *coll = argo_text_arg(fcinfo, 0, "collection name");
	char	   *path = argo_text_arg(fcinfo, 1, "path");
	bool		with_ids = false;
	Oid			type = TEXTOID;
	Datum		stmt;
	Portal		portal;
	FILE	   *file;
	MemoryContext rowcxt;
	int64		total = 0;

	if (PG_NARGS() > 2)
	{
		if (PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("with_ids must not be null")));
		with_ids = PG_GETARG_BOOL(2);
	}
	collection_check_name(coll);
	check_may_write(path);
	argo_spi_connect();
	/* the collection first: a missing one must not leave an empty file */
	(void) collection_lookup(coll, false, AccessShareLock);
	/* with ids as mongoexport writes them: "_id" on each line */
	stmt = CStringGetTextDatum(psprintf(with_ids ? "SELECT *, ID() FROM `%s`" : "SELECT * FROM `%s`", coll));
	portal = SPI_cursor_open_with_args(NULL, psprintf("SELECT x FROM %s($1) x", argo_function("argo_query")),
									   1, &type, &stmt, NULL, true, 0);
	file = open_for_export(path);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "argo export row", ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, EXPORT_BATCH);
		if (SPI_processed == 0)
			break;
		total += write_batch(file, path, rowcxt);
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	if (FreeFile(file) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", path)));
	SPI_finish();
	PG_RETURN_INT64(total);
}
