/*
 * feed.c — a collection's change feed, as written: one transactional
 * logical message per changed object (LogLogicalMessage, prefix "argo"),
 * in the transaction that changes it, so that logical decoding gives it
 * in commit order and never for a write that rolled back.  The output
 * plugin (backend/feedplugin.c) turns them into change events.
 *
 * A collection's feed is on while the table argo_data.c_feed exists,
 * owned by the collection's owner (argo_feed makes and drops it);
 * collections without it pay one catalog-cache lookup per statement.
 * With the column full_document, update events carry the whole object;
 * with before_change, updates and deletes carry the object before
 * (MongoDB's fullDocumentBeforeChange).
 *
 * Anyone may write logical messages (pg_logical_emit_message), so a
 * message alone proves nothing: each is written after the row change
 * that only a writer of the collection could make — the object's
 * directory row inserted, rewritten or deleted; for a drop, a row
 * inserted into c_feed — and the plugin gives out only messages so
 * backed by a change of the same transaction.
 *
 * A message is "op \t collection \t object id \t body", the body the
 * event's JSON fields beyond those: the object (insert, or update with
 * full documents) and, for an update, what changed: the paths set, with
 * their new values, and the paths removed, in the flattened-key form
 * of the storage (a.b, kids[3], a\.b for a key holding a dot).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "replication/message.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "common/common.h"
#include "common/keypath.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/feed.h"

/*
 * The feed switch of c: FEED_OFF, or on, with or without full documents.
 * Read from the catalog caches, without opening or locking c_feed: a
 * table another role planted under that name (and perhaps holds a lock
 * on) must neither switch anything on nor make c's writers wait.
 * argo_feed changes the switch under a lock that conflicts with every
 * writer's, so a writer that holds its own lock reads it settled.
 */
/* c's feed table, if it is one: c's owner's plain table c_feed. */
static Oid
feed_table(ArgoCollection *c)
{
	Oid			nsp = get_namespace_oid(ARGO_SCHEMA, true);
	Oid			feed = OidIsValid(nsp) ?
		get_relname_relid(psprintf("%s_feed", c->name), nsp) : InvalidOid;

	if (!OidIsValid(feed) || get_rel_relkind(feed) != RELKIND_RELATION ||
		argo_relation_owner(feed) != argo_relation_owner(argo_table_relid(c, "obj")))
		return InvalidOid;
	return feed;
}

FeedMode
feed_mode(ArgoCollection *c)
{
	Oid			feed = feed_table(c);

	if (!OidIsValid(feed))
		return FEED_OFF;
	return get_attnum(feed, "full_document") != InvalidAttrNumber ? FEED_FULL : FEED_CHANGES;
}

/* Whether c's updates and deletes carry the object before (column before_change). */
bool
feed_before_change(ArgoCollection *c)
{
	Oid			feed = feed_table(c);

	return OidIsValid(feed) && get_attnum(feed, "before_change") != InvalidAttrNumber;
}

static void
log_event(const char *op, ArgoCollection *c, int64 objid, StringInfo body)
{
	StringInfoData msg;

	initStringInfo(&msg);
	appendStringInfo(&msg, "%s\t%s\t" INT64_FORMAT "\t", op, c->name, objid);
	if (body != NULL)
		appendBinaryStringInfo(&msg, body->data, body->len);
	LogLogicalMessage(ARGO_FEED_PREFIX, msg.data, msg.len, true);
	pfree(msg.data);
}

static void
append_jsonb(StringInfo buf, Jsonb *doc)
{
	(void) JsonbToCString(buf, &doc->root, VARSIZE(doc));
}

/* An object inserted (its directory row already written). */
void
feed_log_insert(ArgoCollection *c, int64 objid, Jsonb *doc)
{
	StringInfoData body;

	initStringInfo(&body);
	appendStringInfoString(&body, "\"fullDocument\": ");
	append_jsonb(&body, doc);
	log_event("insert", c, objid, &body);
	pfree(body.data);
}

/* An object deleted (its directory row already deleted), and what it was, if wanted. */
void
feed_log_delete(ArgoCollection *c, int64 objid, Jsonb *before)
{
	StringInfoData body;

	if (before == NULL)
	{
		log_event("delete", c, objid, NULL);
		return;
	}
	initStringInfo(&body);
	appendStringInfoString(&body, "\"fullDocumentBeforeChange\": ");
	append_jsonb(&body, before);
	log_event("delete", c, objid, &body);
	pfree(body.data);
}

/* The collection is about to be dropped (c_feed's row already inserted). */
void
feed_log_drop(ArgoCollection *c)
{
	log_event("drop", c, 0, NULL);
}

typedef struct Diff
{
	StringInfoData set;			/* "path": value, … */
	StringInfoData unset;		/* "path", … */
	StringInfoData path;
	int			depth;			/* keys in path (an empty key adds none of its own) */
} Diff;

static void diff_values(Diff *d, JsonbValue *before, JsonbValue *after);

static void
add_set(Diff *d, JsonbValue *v)
{
	Jsonb	   *j = JsonbValueToJsonb(v);

	if (d->set.len > 0)
		appendStringInfoString(&d->set, ", ");
	escape_json(&d->set, d->path.data);
	appendStringInfoString(&d->set, ": ");
	append_jsonb(&d->set, j);
}

static void
add_unset(Diff *d)
{
	if (d->unset.len > 0)
		appendStringInfoString(&d->unset, ", ");
	escape_json(&d->unset, d->path.data);
}

/*
 * Descend to key: the path's length before, to come back with path_pop.
 * Whether the key is the path's first is its depth, not the path's
 * length: under the empty key "" the path is still empty, and its "a" is
 * ".a", not the top-level "a".
 */
static int
path_push(Diff *d, const char *key, int len)
{
	int			saved = d->path.len;

	keypath_append_key(&d->path, key, len, d->depth == 0);
	d->depth++;
	return saved;
}

static void
path_pop(Diff *d, int saved)
{
	d->path.len = saved;
	d->path.data[saved] = '\0';
	d->depth--;
}

/* Two objects: keys only in before are removed; others compared. */
static void
diff_objects(Diff *d, JsonbContainer *before, JsonbContainer *after)
{
	JsonbIterator *it = JsonbIteratorInit(before);
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		if (findJsonbValueFromContainer(after, JB_FOBJECT, &k) == NULL)
		{
			int			saved = path_push(d, k.val.string.val, k.val.string.len);

			add_unset(d);
			path_pop(d, saved);
		}
	}
	it = JsonbIteratorInit(after);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		JsonbValue *old;
		int			saved;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		old = findJsonbValueFromContainer(before, JB_FOBJECT, &k);
		saved = path_push(d, k.val.string.val, k.val.string.len);
		if (old == NULL)
			add_set(d, &v);
		else
			diff_values(d, old, &v);
		path_pop(d, saved);
	}
}

/* A value changed: objects compared key by key, anything else set whole. */
static void
diff_values(Diff *d, JsonbValue *before, JsonbValue *after)
{
	check_stack_depth();
	if (before->type == jbvBinary && after->type == jbvBinary &&
		JsonContainerIsObject(before->val.binary.data) &&
		JsonContainerIsObject(after->val.binary.data))
	{
		diff_objects(d, before->val.binary.data, after->val.binary.data);
		return;
	}
	if (before->type == after->type &&
		compareJsonbContainers(&JsonbValueToJsonb(before)->root,
							   &JsonbValueToJsonb(after)->root) == 0)
		return;
	add_set(d, after);
}

/*
 * An object updated (its directory row already rewritten): the paths it
 * set and removed, with full documents the object after, and with
 * before_change the object before.
 */
void
feed_log_update(ArgoCollection *c, FeedMode mode, bool before_change, int64 objid,
				Jsonb *before, Jsonb *after)
{
	Diff		d;
	StringInfoData body;

	initStringInfo(&d.set);
	initStringInfo(&d.unset);
	initStringInfo(&d.path);
	d.depth = 0;
	diff_objects(&d, &before->root, &after->root);
	/* rewritten, but the same: no event */
	if (d.set.len == 0 && d.unset.len == 0)
		return;
	initStringInfo(&body);
	appendStringInfo(&body, "\"updateDescription\": {\"updatedFields\": {%s}, \"removedFields\": [%s]}",
					 d.set.data, d.unset.data);
	if (mode == FEED_FULL)
	{
		appendStringInfoString(&body, ", \"fullDocument\": ");
		append_jsonb(&body, after);
	}
	if (before_change)
	{
		appendStringInfoString(&body, ", \"fullDocumentBeforeChange\": ");
		append_jsonb(&body, before);
	}
	log_event("update", c, objid, &body);
	pfree(body.data);
	pfree(d.set.data);
	pfree(d.unset.data);
	pfree(d.path.data);
}
