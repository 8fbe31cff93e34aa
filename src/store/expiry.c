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

#include "common/common.h"
#include "common/plancache.h"
#include "store/collection.h"

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

/* Set (after NULL: remove) c's expiry; the caller is the owner. */
void
collection_set_expiry(ArgoCollection *c, const char *path, const char *after)
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
}
