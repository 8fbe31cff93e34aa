/*
 * load.c — bulk loading: many documents per call, decomposed in batches
 * and written set-based (rowbatch.c), with object ids drawn per batch.
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/detoast.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "commands/progress.h"
#include "common/string.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"

#include "common/common.h"
#include "common/errors.h"
#include "common/ids.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "store/rowbatch.h"
#include "store/shard/shard.h"
#include "sql/sql.h"
#include "exec/execute.h"
#include "fn/fn.h"
#include "fn/jsonarray.h"

PG_FUNCTION_INFO_V1(argo_load);
PG_FUNCTION_INFO_V1(argo_load_file);
PG_FUNCTION_INFO_V1(argo_count);

/* argo.analyze_after_load */
bool		argo_analyze_after_load = true;

#define LOAD_BATCH 1000

/* Where in the file a load is, for its errors' context. */
typedef struct FilePos
{
	const char *path;
	int64		line;			/* from 1 */
	ArrayReader *array;			/* a JSON array's reader, or NULL for JSON lines */
} FilePos;

/* Where a pending document of a file was: its line, or its element. */
typedef struct DocPlace
{
	int64		line;
	int64		element;
	int64		element_line;
} DocPlace;

/* Documents waiting for their object ids. */
typedef struct Loader
{
	ArgoCollection *coll;
	RowBatch   *rows;
	MemoryContext cxt;			/* the pending documents */
	MemoryContext parse_cxt;	/* one document's parse, freed once it is copied */
	Jsonb	   *docs[LOAD_BATCH];
	int			ndocs;
	FilePos    *pos;			/* a file's, told each document's place on flush */
	DocPlace	places[LOAD_BATCH];
	bool		with_ids;		/* each document's "_id" is its object id */
	int64		ids[LOAD_BATCH];
	int64		max_id;
	double		before;			/* objects before the load (estimated); -1: unknown */
	int64		total;
	int64		bytes;			/* of the documents' text, for progress */
	List	   *dropped_indexes;	/* to build again at the end */
	bool		shards_loading; /* the shards dropped theirs too */
} Loader;

/*
 * A load reports its progress where COPY's is watched,
 * pg_stat_progress_copy: the collection's directory as the table,
 * objects as tuples, the documents' bytes (of the file's lines, or of the
 * query's values), type FILE or CALLBACK (a query's rows).  The index
 * build at the end shows in pg_stat_progress_create_index.
 */
static void
progress_start(Loader *l, int type, int64 bytes_total)
{
	const int	index[] = {PROGRESS_COPY_COMMAND, PROGRESS_COPY_TYPE, PROGRESS_COPY_BYTES_TOTAL};
	int64		val[] = {PROGRESS_COPY_COMMAND_FROM, type, bytes_total};
	pgstat_progress_start_command(PROGRESS_COMMAND_COPY, argo_table_relid(l->coll, "obj"));
	pgstat_progress_update_multi_param(3, index, val);
}

static void
progress_report(Loader *l)
{
	const int	index[] = {PROGRESS_COPY_BYTES_PROCESSED, PROGRESS_COPY_TUPLES_PROCESSED};
	int64		val[] = {l->bytes, l->total};

	pgstat_progress_update_multi_param(2, index, val);
}

/* The directory's row estimate, -1 where it was never counted. */
static double
objects_estimate(ArgoCollection *c)
{
	Relation	dir = argo_open_table(c, "obj");
	double		n = dir->rd_rel->reltuples;

	table_close(dir, NoLock);
	return n;
}

/*
 * A load that grew the collection by a tenth or more analyses its tables
 * (argo.analyze_after_load): joins planned on a new collection's empty
 * statistics were 15-76x slower until someone ran ANALYZE.  Only the
 * tables' owner may, as ANALYZE itself says; others load as before.
 */
static void
analyze_after_load(Loader *l)
{
	static const char *const suffixes[] = {"str", "num", "bool", "data", "keys", "obj", "doc"};
	Oid			nsp = get_namespace_oid(ARGO_SCHEMA, false);
	StringInfoData sql;

	if (!argo_analyze_after_load || l->total == 0 || collection_is_distributed(l->coll) ||
		(l->before >= 0 && l->total * 10 < l->before))
		return;
	initStringInfo(&sql);
	appendStringInfoString(&sql, "ANALYZE ");
	for (int i = 0; i < lengthof(suffixes); i++)
	{
		char	   *name = psprintf("%s_%s", l->coll->name, suffixes[i]);
		Oid			relid = get_relname_relid(name, nsp);

		if (!OidIsValid(relid))
			continue;
		if (!pg_class_ownercheck(relid, GetUserId()))
			return;
		appendStringInfo(&sql, "%s%s", sql.data[sql.len - 1] == ' ' ? "" : ", ",
						 quote_qualified_identifier(ARGO_SCHEMA, name));
	}
	run_ddl(sql.data);
}

static void
loader_init(Loader *l, const char *collname, int progress_type, int64 bytes_total,
			bool with_ids)
{
	memset(l, 0, sizeof(*l));
	l->coll = collection_open_for_insert(collname);
	l->with_ids = with_ids;
	if (with_ids && collection_is_distributed(l->coll))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a load that keeps ids is not supported on distributed collection \"%s\"", collname)));
	progress_start(l, progress_type, bytes_total);
	/*
	 * Into an empty collection, build Argo's indexes once at the end: far
	 * cheaper than maintaining them row by row.  (DROP INDEX locks the
	 * tables until commit, as a bulk load into a new collection may.)
	 * Only the tables' owner may drop them; others load with them in
	 * place, needing no more than INSERT.  A distributed collection's
	 * shards do the same with theirs.
	 */
	l->before = collection_is_empty(l->coll) ? 0 : objects_estimate(l->coll);
	if (l->before == 0)
	{
		l->dropped_indexes = collection_drop_indexes(l->coll);
		l->shards_loading = collection_is_distributed(l->coll);
		if (l->shards_loading)
			shardconn_load(l->coll, true);
	}
	l->rows = rowbatch_create(l->coll, true);
	l->cxt = AllocSetContextCreate(CurrentMemoryContext, "argo load",
								   ALLOCSET_DEFAULT_SIZES);
	l->parse_cxt = AllocSetContextCreate(CurrentMemoryContext, "argo load parse",
										 ALLOCSET_DEFAULT_SIZES);
}

/* Which document of the load an error (a schema's, say) is about. */
static void
flush_errcontext(void *arg)
{
	errcontext("document " INT64_FORMAT " of the load", *(int64 *) arg);
}

/*
 * The id a document to load with ids gives ("_id", a positive integer),
 * and the document without it.
 */
static Jsonb *
take_id(Jsonb *doc, int64 *id)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&doc->root, "_id", 3, NULL);
	JsonbIterator *it;
	JsonbValue	jv;
	JsonbIteratorToken tok;
	JsonbParseState *state = NULL;
	JsonbValue *res = NULL;
	bool		skip = false;

	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a document to load with its id has no \"_id\"")));
	if (v->type != jbvNumeric ||
		!DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(v->val.numeric),
										  DirectFunctionCall2(numeric_trunc, NumericGetDatum(v->val.numeric),
															  Int32GetDatum(0)))) ||
		DatumGetBool(DirectFunctionCall2(numeric_le, NumericGetDatum(v->val.numeric),
										 NumericGetDatum(int64_to_numeric(0)))) ||
		DatumGetBool(DirectFunctionCall2(numeric_gt, NumericGetDatum(v->val.numeric),
										 NumericGetDatum(int64_to_numeric(PG_INT64_MAX)))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a document's \"_id\" must be a positive integer")));
	*id = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v->val.numeric)));
	it = JsonbIteratorInit(&doc->root);
	while ((tok = JsonbIteratorNext(&it, &jv, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY && jv.val.string.len == 3 && memcmp(jv.val.string.val, "_id", 3) == 0 &&
			state != NULL && state->next == NULL)
		{
			skip = true;
			continue;
		}
		if (skip)
		{
			skip = false;
			continue;
		}
		res = pushJsonbValue(&state, tok, tok < WJB_BEGIN_ARRAY ? &jv : NULL);
	}
	return JsonbValueToJsonb(res);
}

static int
id_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * A load with ids writes none that an object has (loaded before it, or
 * already there): 23505 naming the first, so that nothing is loaded.
 * *position names the document for the error's context.
 */
static void
check_ids_free(Loader *l, int64 *position)
{
	int64	   *sorted = palloc(sizeof(int64) * l->ndocs);
	SqlBuf	   *buf = sqlbuf_create();
	bool		isnull;
	Datum		taken;

	memcpy(sorted, l->ids, sizeof(int64) * l->ndocs);
	qsort(sorted, l->ndocs, sizeof(int64), id_cmp);
	for (int i = 1; i < l->ndocs; i++)
		if (sorted[i] == sorted[i - 1])
		{
			/* the second document that gives it */
			for (int j = 0, seen = 0; j < l->ndocs && seen < 2; j++)
				if (l->ids[j] == sorted[i] && ++seen == 2)
					*position = l->total + j + 1;
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("the load gives id " INT64_FORMAT " twice", sorted[i])));
		}
	appendStringInfo(&buf->sql, "SELECT pg_catalog.min(objid) FROM %s WHERE objid OPERATOR(pg_catalog.=) ANY ($%d)",
					 l->coll->obj_table, sqlbuf_param(buf, INT8ARRAYOID, objid_array(sorted, l->ndocs)));
	if (argo_run(buf, false) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not look for the ids to load");
	taken = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
	{
		for (int i = 0; i < l->ndocs; i++)
			if (l->ids[i] == DatumGetInt64(taken))
				*position = l->total + i + 1;
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("collection \"%s\" already has an object of id " INT64_FORMAT,
						l->coll->name, DatumGetInt64(taken)),
				 errdetail("A load that keeps ids loads nothing when one is taken.")));
	}
	SPI_freetuptable(SPI_tuptable);
	for (int i = 0; i < l->ndocs; i++)
		l->max_id = Max(l->max_id, l->ids[i]);
}

/* The collection's id sequence past the largest id loaded, if it is not. */
static void
sequence_past_ids(Loader *l)
{
	SqlBuf	   *buf;
	int			seq,
				m;

	if (!l->with_ids || l->max_id == 0)
		return;
	buf = sqlbuf_create();
	seq = sqlbuf_param(buf, REGCLASSOID,
					   ObjectIdGetDatum(RangeVarGetRelid(makeRangeVar(ARGO_SCHEMA, psprintf("%s_seq", l->coll->name), -1),
														 NoLock, false)));
	m = sqlbuf_param(buf, INT8OID, Int64GetDatum(l->max_id));
	appendStringInfo(&buf->sql,
					 "SELECT pg_catalog.setval($%d, $%d) FROM %s"
					 " WHERE $%d OPERATOR(pg_catalog.>) CASE WHEN is_called THEN last_value ELSE last_value OPERATOR(pg_catalog.-) 1 END",
					 seq, m, l->coll->seq, m);
	if (argo_run(buf, false) != SPI_OK_SELECT)
		elog(ERROR, "could not move the id sequence past the ids loaded");
}

static void
place_remember(const FilePos *pos, DocPlace *place)
{
	place->line = pos->line;
	if (pos->array != NULL)
	{
		place->element = pos->array->element;
		place->element_line = pos->array->element_line;
	}
}

static void
place_restore(FilePos *pos, const DocPlace *place)
{
	pos->line = place->line;
	if (pos->array != NULL)
	{
		pos->array->element = place->element;
		pos->array->element_line = place->element_line;
	}
}

static void
loader_flush(Loader *l)
{
	int64	   *ids;
	MemoryContext old;
	int64		position = 0;
	DocPlace	here = {0, 0, 0};
	ErrorContextCallback cb = {error_context_stack, flush_errcontext, &position};

	if (l->ndocs == 0)
		return;
	/* what decomposing and writing leave behind goes with the documents */
	old = MemoryContextSwitchTo(l->cxt);
	error_context_stack = &cb;
	if (l->with_ids)
	{
		ids = l->ids;
		check_ids_free(l, &position);
	}
	else
		ids = argo_next_objids(l->coll, l->ndocs);
	if (l->pos != NULL)
		place_remember(l->pos, &here);
	for (int i = 0; i < l->ndocs; i++)
	{
		position = l->total + i + 1;
		/* an error names the document's own line, not the batch's last */
		if (l->pos != NULL)
			place_restore(l->pos, &l->places[i]);
		rowbatch_add_object(l->rows, ids[i], l->docs[i]);
	}
	if (l->pos != NULL)
		place_restore(l->pos, &here);
	error_context_stack = cb.previous;
	MemoryContextSwitchTo(old);
	l->total += l->ndocs;
	l->ndocs = 0;
	MemoryContextReset(l->cxt);
	progress_report(l);
}

/*
 * Take a document (of bytes bytes of text), copied: the caller's memory
 * may go away.  Then free what parsing it took (made in l->parse_cxt):
 * jsonb_in leaves ~10 kB a NoBench document behind, and a million of
 * them made a load page-fault through 10 GB.
 */
static void
loader_add(Loader *l, Jsonb *doc, int64 bytes)
{
	Jsonb	   *copy;

	argo_check_object(doc);
	if (l->with_ids)
		doc = take_id(doc, &l->ids[l->ndocs]);
	copy = MemoryContextAlloc(l->cxt, VARSIZE(doc));
	l->bytes += bytes;
	memcpy(copy, doc, VARSIZE(doc));
	MemoryContextReset(l->parse_cxt);
	if (l->pos != NULL)
		place_remember(l->pos, &l->places[l->ndocs]);
	l->docs[l->ndocs++] = copy;
	if (l->ndocs == LOAD_BATCH)
		loader_flush(l);
}

/* A document of text, parsed in the loader's parse context, taken. */
static void
loader_add_text(Loader *l, const char *text, int64 bytes)
{
	MemoryContext old = MemoryContextSwitchTo(l->parse_cxt);
	Jsonb	   *doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));

	MemoryContextSwitchTo(old);
	loader_add(l, doc, bytes);
}

static int64
loader_finish(Loader *l)
{
	loader_flush(l);
	rowbatch_flush(l->rows);
	sequence_past_ids(l);
	collection_rebuild_indexes(l->coll, l->dropped_indexes);
	if (l->shards_loading)
		shardconn_load(l->coll, false);
	/* the loaded objects are all there are: say which keys each holds */
	if (l->before == 0)
		(void) keyflags_set(l->coll, false, false);
	analyze_after_load(l);
	pgstat_progress_end_command();
	return l->total;
}

/* A cursor row's first column as jsonb, and its size; json and text are parsed. */
static Jsonb *
row_document(HeapTuple tup, TupleDesc desc, Oid type, int64 *bytes)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, 1, &isnull);
	char	   *s;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a document to load is null")));
	if (type == JSONBOID)
	{
		*bytes = toast_raw_datum_size(d) - VARHDRSZ;
		return DatumGetJsonbP(d);
	}
	s = SPI_getvalue(tup, desc, 1);
	*bytes = strlen(s);
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(s)));
}

/* A load's arguments and result, for running it with bounded errors. */
typedef struct LoadCall
{
	char	   *coll;
	char	   *source;			/* the query, or the file's path */
	bool		with_ids;		/* each document's "_id" is its id */
	int64		total;
} LoadCall;

static void
load_query(void *arg)
{
	LoadCall   *lc = arg;
	char	   *coll = lc->coll;
	char	   *query = lc->source;
	Loader		l;
	Portal		portal;
	Oid			type;

	argo_spi_connect();
	loader_init(&l, coll, PROGRESS_COPY_TYPE_CALLBACK, 0, lc->with_ids);
	portal = SPI_cursor_open_with_args(NULL, query, 0, NULL, NULL, NULL, false, 0);
	if (portal->tupDesc == NULL || portal->tupDesc->natts != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the load query must return one column of documents")));
	type = SPI_gettypeid(portal->tupDesc, 1);
	if (type != JSONBOID && type != JSONOID && type != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the load query must return jsonb, json or text, not %s",
						format_type_be(type))));
	for (;;)
	{
		SPITupleTable *tt;
		uint64		n;

		SPI_cursor_fetch(portal, true, LOAD_BATCH);
		if (SPI_processed == 0)
			break;
		/* loader_add runs SPI when a batch fills: keep our own copies */
		tt = SPI_tuptable;
		n = SPI_processed;
		for (uint64 i = 0; i < n; i++)
		{
			int64		bytes;
			MemoryContext old = MemoryContextSwitchTo(l.parse_cxt);
			Jsonb	   *doc = row_document(tt->vals[i], tt->tupdesc, type, &bytes);

			MemoryContextSwitchTo(old);
			loader_add(&l, doc, bytes);
		}
		SPI_freetuptable(tt);
	}
	SPI_cursor_close(portal);
	lc->total = loader_finish(&l);
	SPI_finish();
}

/*
 * A load of the collection (argument 0) from a source (argument 1, what):
 * its object count; an error quotes a bounded excerpt, and a shard that
 * broke off is named.
 */
static Datum
run_load(FunctionCallInfo fcinfo, const char *what, void (*load) (void *))
{
	LoadCall	lc = {argo_text_arg(fcinfo, 0, "collection name"),
	argo_text_arg(fcinfo, 1, what), false, 0};

	/* argo_load(c, source, with_ids), a function of its own */
	if (PG_NARGS() > 2)
	{
		if (PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("with_ids must not be null")));
		lc.with_ids = PG_GETARG_BOOL(2);
	}

	argo_run_statement(load, &lc);
	PG_RETURN_INT64(lc.total);
}

/* argo_load(collection text, query text) RETURNS bigint */
Datum
argo_load(PG_FUNCTION_ARGS)
{
	return run_load(fcinfo, "query", load_query);
}

static int64
file_size(FILE *file)
{
	struct stat st;

	return fstat(fileno(file), &st) == 0 ? (int64) st.st_size : 0;
}

static void
file_error_context(void *arg)
{
	FilePos    *pos = arg;

	if (pos->array)
		errcontext("element " INT64_FORMAT " of the JSON array in file \"%s\", from line " INT64_FORMAT,
				   pos->array->element, pos->path, pos->array->element_line);
	else
		errcontext("line " INT64_FORMAT " of file \"%s\"", pos->line, pos->path);
}

static void load_from_file(void *arg);

/*
 * argo_load_file(collection text, path text) RETURNS bigint: a file of
 * JSON lines, or one holding a single JSON array of the documents.
 */
Datum
argo_load_file(PG_FUNCTION_ARGS)
{
	return run_load(fcinfo, "file name", load_from_file);
}

/* One document per line; blank lines are skipped. */
static void
load_lines(Loader *l, FILE *file, FilePos *pos)
{
	StringInfoData line;

	initStringInfo(&line);
	while (pg_get_line_buf(file, &line))
	{
		pos->line++;
		CHECK_FOR_INTERRUPTS();
		if (strspn(line.data, " \t\r\n") == (size_t) line.len)
		{
			l->bytes += line.len;
			continue;
		}
		loader_add_text(l, line.data, line.len);
	}
}

/* The elements of the array reader r has started, one document each. */
static void
load_elements(Loader *l, ArrayReader *r)
{
	StringInfoData element;
	int64		before = r->bytes;

	initStringInfo(&element);
	l->bytes += r->bytes;
	while (array_reader_next(r, &element))
	{
		CHECK_FOR_INTERRUPTS();
		loader_add_text(l, element.data, r->bytes - before);
		before = r->bytes;
	}
}

static void
load_from_file(void *arg)
{
	LoadCall   *lc = arg;
	char	   *path = lc->source;
	FilePos		pos = {path, 0, NULL};
	ErrorContextCallback errctx;
	ArrayReader reader;
	Loader		l;
	FILE	   *file;

	/* the same rule as COPY FROM a file */
	if (!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to load from a file on the server"),
				 errhint("Only roles with the privileges of pg_read_server_files may; others can \\copy into a table and use argo_load.")));
	argo_spi_connect();
	file = AllocateFile(path, "r");
	if (file == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for reading: %m", path)));
	loader_init(&l, lc->coll, PROGRESS_COPY_TYPE_FILE, file_size(file), lc->with_ids);
	l.pos = &pos;
	errctx.callback = file_error_context;
	errctx.arg = &pos;
	errctx.previous = error_context_stack;
	error_context_stack = &errctx;
	if (array_reader_start(&reader, file, path))
	{
		pos.array = &reader;
		load_elements(&l, &reader);
	}
	else
	{
		/* the whitespace before the first line was read looking for '[' */
		pos.line = reader.line;
		l.bytes += reader.bytes;
		load_lines(&l, file, &pos);
	}
	/* the last documents' errors name their lines too */
	loader_flush(&l);
	error_context_stack = errctx.previous;
	if (ferror(file))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", path)));
	FreeFile(file);
	lc->total = loader_finish(&l);
	SPI_finish();
}

/* argo_count(collection text) RETURNS bigint: objects in a collection */
Datum
argo_count(PG_FUNCTION_ARGS)
{
	char	   *coll = argo_text_arg(fcinfo, 0, "collection name");
	SqlBuf	   *buf = sqlbuf_create();
	bool		isnull;
	int64		n;

	argo_spi_connect();
	/* the directory's primary key: an index-only scan */
	appendStringInfoString(&buf->sql, "SELECT pg_catalog.count(*) FROM (");
	sql_all_objids(buf, collection_lookup(coll, false, AccessShareLock));
	appendStringInfoString(&buf->sql, ") o");
	if (SPI_execute(buf->sql.data, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "counting objects failed");
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	PG_RETURN_INT64(n);
}
