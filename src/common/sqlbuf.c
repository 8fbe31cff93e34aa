/*
 * sqlbuf.c — generated SQL text together with its parameter values.
 *
 * Every value that reaches SQL (keys, strings, numbers, booleans) goes
 * through here as an SPI parameter; only quoted identifiers are spliced,
 * and Argo's own functions are named with their schema.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "common/sqlbuf.h"

SqlBuf *
sqlbuf_create(void)
{
	SqlBuf	   *buf = palloc0(sizeof(SqlBuf));

	initStringInfo(&buf->sql);
	buf->maxparams = 16;
	buf->types = palloc(sizeof(Oid) * buf->maxparams);
	buf->values = palloc(sizeof(Datum) * buf->maxparams);
	buf->nulls = palloc(sizeof(char) * buf->maxparams);
	buf->notes = palloc(sizeof(char *) * buf->maxparams);
	return buf;
}

/* Register a parameter; returns its number. */
int
sqlbuf_param(SqlBuf *buf, Oid type, Datum value)
{
	if (buf->nparams == buf->maxparams)
	{
		buf->maxparams *= 2;
		buf->types = repalloc(buf->types, sizeof(Oid) * buf->maxparams);
		buf->values = repalloc(buf->values, sizeof(Datum) * buf->maxparams);
		buf->nulls = repalloc(buf->nulls, sizeof(char) * buf->maxparams);
		buf->notes = repalloc(buf->notes, sizeof(char *) * buf->maxparams);
	}
	buf->notes[buf->nparams] = NULL;
	buf->types[buf->nparams] = type;
	buf->values[buf->nparams] = value;
	buf->nulls[buf->nparams] = ' ';
	return ++buf->nparams;
}

/* Register a parameter and write "$n" into the SQL. */
void
sqlbuf_add_param(SqlBuf *buf, Oid type, Datum value)
{
	appendStringInfo(&buf->sql, "$%d", sqlbuf_param(buf, type, value));
}

/* Say what parameter paramno stands for (argo_explain shows it). */
void
sqlbuf_note(SqlBuf *buf, int paramno, const char *note)
{
	if (paramno >= 1 && paramno <= buf->nparams)
		buf->notes[paramno - 1] = note;
}

void
sqlbuf_add_text(SqlBuf *buf, const char *text)
{
	sqlbuf_add_param(buf, TEXTOID, CStringGetTextDatum(text));
}

/* Replace the one occurrence of placeholder, for text known only later. */
void
sqlbuf_replace(SqlBuf *buf, const char *placeholder, const char *text)
{
	char	   *at = strstr(buf->sql.data, placeholder);
	StringInfoData out;

	Assert(at != NULL);
	initStringInfo(&out);
	appendBinaryStringInfo(&out, buf->sql.data, at - buf->sql.data);
	appendStringInfoString(&out, text);
	appendStringInfoString(&out, at + strlen(placeholder));
	buf->sql = out;
}

/*
 * A function of an installed extension, schema-qualified for generated
 * SQL: the caller's search_path must not choose another.  NULL when
 * the extension is not installed.
 */
char *
extension_function(const char *extname, const char *fn)
{
	Oid			ext = get_extension_oid(extname, true);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp;

	if (!OidIsValid(ext))
		return NULL;
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "extension %u not found", ext);
	nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return psprintf("%s.%s", quote_identifier(get_namespace_name(nsp)),
					quote_identifier(fn));
}

/* One of Argo's own functions, schema-qualified. */
char *
argo_function(const char *fn)
{
	char	   *qualified = extension_function("argo", fn);

	if (qualified == NULL)
		elog(ERROR, "extension \"argo\" is not installed");
	return qualified;
}
