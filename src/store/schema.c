/*
 * schema.c — a collection's JSON Schema (argo_validate): kept as the
 * comment of its key dictionary table, read once a statement, and every
 * object written checked against it.
 *
 * A comment costs no table of its own: pg_dump keeps it, dropping the
 * collection drops it, COMMENT needs the owner (who alone may set a
 * schema).  The parsed schema is kept per backend beside the text it
 * came from, so a statement that finds the same text parses nothing.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "commands/comment.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "common/plancache.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"

#define SCHEMA_PREFIX "argo schema: "

typedef struct SchemaEntry
{
	Oid			relid;			/* the key dictionary table */
	char	   *text;			/* the comment it was parsed from */
	Jsonb	   *schema;
} SchemaEntry;

static HTAB *schemas = NULL;

/* c's schema, or NULL where it has none. */
Jsonb *
collection_schema(ArgoCollection *c)
{
	Oid			relid = argo_table_relid(c, "keys");
	char	   *text = OidIsValid(relid) ? GetComment(relid, RelationRelationId, 0) : NULL;
	SchemaEntry *e;
	bool		found;
	MemoryContext old;

	if (text == NULL || strncmp(text, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)) != 0)
		return NULL;
	if (schemas == NULL)
	{
		HASHCTL		ctl = {.keysize = sizeof(Oid), .entrysize = sizeof(SchemaEntry),
		.hcxt = TopMemoryContext};

		schemas = hash_create("argo schemas", 16, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(schemas, &relid, HASH_ENTER, &found);
	if (found && strcmp(e->text, text) == 0)
		return e->schema;
	if (found)
	{
		pfree(e->text);
		pfree(e->schema);
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	e->text = pstrdup(text);
	e->schema = DatumGetJsonbPCopy(DirectFunctionCall1(jsonb_in,
													   CStringGetDatum(text + strlen(SCHEMA_PREFIX))));
	MemoryContextSwitchTo(old);
	return e->schema;
}

/* Set (NULL: remove) c's schema; the caller checked it and is the owner. */
void
collection_set_schema(ArgoCollection *c, Jsonb *schema)
{
	run_ddl(psprintf("COMMENT ON TABLE %s IS %s", c->keys_table,
					 schema == NULL ? "NULL" :
					 quote_literal_cstr(psprintf(SCHEMA_PREFIX "%s",
												 JsonbToCString(NULL, &schema->root, VARSIZE(schema))))));
}

/* obj against schema: 23514 naming the path and the keyword that fail. */
void
collection_check_object(ArgoCollection *c, Jsonb *schema, Jsonb *obj)
{
	char	   *path;
	const char *kw;

	if (schema == NULL || schema_accepts(schema, obj, &path, &kw))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("object does not satisfy the schema of collection \"%s\"", c->name),
			 errdetail("At %s: \"%s\" fails.", path, kw),
			 errhint("argo_collections shows the schema; argo_validate sets it.")));
}
