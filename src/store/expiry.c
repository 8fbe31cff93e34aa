/*
 * expiry.c — a collection's expiry (argo_expire): the path whose
 * timestamp ages an object and how long it lives after it, kept as the
 * comment of the collection's id sequence (pg_dump keeps it, dropping
 * the collection drops it, COMMENT needs the owner).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/comment.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"

#include "common/common.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/keydict.h"

#define EXPIRY_PREFIX "argo expire: "

static Oid
seq_relid(ArgoCollection *c)
{
	return RangeVarGetRelid(makeRangeVar(ARGO_SCHEMA, psprintf("%s_seq", c->name), -1),
							NoLock, true);
}

/*
 * c's expiry: the path (Argo/SQL's spelling) and the interval text
 * (PostgreSQL's), or false where it has none.
 */
bool
collection_expiry(ArgoCollection *c, char **path, char **after)
{
	Oid			relid = seq_relid(c);
	char	   *text = OidIsValid(relid) ? GetComment(relid, RelationRelationId, 0) : NULL;
	Jsonb	   *j;
	JsonbValue *p;
	JsonbValue *a;

	if (text == NULL || strncmp(text, EXPIRY_PREFIX, strlen(EXPIRY_PREFIX)) != 0)
		return false;
	j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text + strlen(EXPIRY_PREFIX))));
	p = getKeyJsonValueFromContainer(&j->root, "path", 4, NULL);
	a = getKeyJsonValueFromContainer(&j->root, "after", 5, NULL);
	if (p == NULL || a == NULL || p->type != jbvString || a->type != jbvString)
		return false;
	*path = pnstrdup(p->val.string.val, p->val.string.len);
	*after = pnstrdup(a->val.string.val, a->val.string.len);
	return true;
}

/* The table of c holding its strings. */
static const char *
string_table(ArgoCollection *c)
{
	return c->format == ARGO_FORMAT_ARGO1 ? c->data_table : c->str_table;
}

/* Drop the indexes of argo_expiry_time that c's string table has. */
static void
drop_expiry_indexes(ArgoCollection *c)
{
	SqlBuf	   *buf = sqlbuf_create();
	List	   *names = NIL;
	ListCell   *lc;

	appendStringInfo(&buf->sql,
					 "SELECT pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(i.relname)"
					 " FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class i ON i.oid OPERATOR(pg_catalog.=) x.indexrelid"
					 " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) i.relnamespace"
					 " WHERE x.indrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass($%d)"
					 " AND pg_catalog.strpos(pg_catalog.pg_get_expr(x.indexprs, x.indrelid), 'argo_expiry_time(') OPERATOR(pg_catalog.>) 0",
					 sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(string_table(c))));
	if (argo_run(buf, true) != SPI_OK_SELECT)
		elog(ERROR, "could not list the expiry indexes");
	for (uint64 i = 0; i < SPI_processed; i++)
		names = lappend(names, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
	foreach(lc, names)
		run_ddl(psprintf("DROP INDEX %s", (char *) lfirst(lc)));
}

/*
 * The index that finds the expired among the path's strings: the
 * timestamp each one holds (argo_expiry_time), for the path's key only.
 * Without it every call parsed every value of the key: 24 ms for a call
 * that found nothing among 50,000 sessions.  Numbers need none: the
 * (keyid, valnum) index orders them.
 */
static void
create_expiry_index(ArgoCollection *c, const char *keystr)
{
	char	   *k = (char *) keystr;
	int32		keyid;

	keydict_assign(c, &k, 1, &keyid);
	run_ddl(psprintf("CREATE INDEX ON %s (%s(valstr)) WHERE keyid OPERATOR(pg_catalog.=) %d",
					 string_table(c), argo_function("argo_expiry_time"), keyid));
}

/*
 * Set (after NULL: remove) c's expiry, keyed by keystr, the path's
 * flattened key; the caller is the owner.
 */
void
collection_set_expiry(ArgoCollection *c, const char *path, const char *keystr,
					  const char *after)
{
	StringInfoData j;

	initStringInfo(&j);
	if (after != NULL)
	{
		appendStringInfoString(&j, EXPIRY_PREFIX "{\"path\": ");
		escape_json(&j, path);
		appendStringInfoString(&j, ", \"after\": ");
		escape_json(&j, after);
		appendStringInfoChar(&j, '}');
	}
	run_ddl(psprintf("COMMENT ON SEQUENCE %s IS %s", c->seq,
					 after == NULL ? "NULL" : quote_literal_cstr(j.data)));
	drop_expiry_indexes(c);
	if (after != NULL)
		create_expiry_index(c, keystr);
}
