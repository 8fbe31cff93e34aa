/*
 * feedplugin.c — Argo's logical decoding output plugin: a replication
 * slot made with plugin 'argo' (the library's name) gives one line of
 * JSON per change event of every collection whose feed is on, in commit
 * order, each transaction's events together:
 *
 *   {"_id": "<token>", "operationType": "insert" | "update" | "delete" |
 *    "drop", "ns": {"coll": …}, "documentKey": {"id": …},
 *    "clusterTime": "<commit time>", "fullDocument": …,
 *    "updateDescription": {"updatedFields": {…}, "removedFields": […]}}
 *
 * The token is the transaction's commit LSN and the event's number in
 * it, as 16 and 8 hex digits: tokens sort as text in the order events
 * come, so "the events after token t" is a string comparison.
 *
 * The events are the transactional logical messages the writers logged
 * (storage/feed.c).  Anyone may log such a message, so each is given out
 * only if the same transaction made the change that vouches for it: the
 * object's directory row inserted, updated or deleted (its id read from
 * the decoded row; a deleted row's id from its primary key, which the
 * directory's replica identity logs), or for a drop a row inserted into
 * the collection's c_feed.  Rows of other tables pass unseen.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "parser/parse_relation.h"
#include "replication/logical.h"
#include "replication/output_plugin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "exec/exec.h"

extern void _PG_output_plugin_init(OutputPluginCallbacks *cb);

/* A change that vouches for events: (collection, object id; 0: a drop). */
typedef struct Voucher
{
	char		coll[NAMEDATALEN];
	int64		objid;
} Voucher;

typedef struct FeedState
{
	MemoryContext cxt;			/* one transaction's */
	HTAB	   *vouchers;
	uint32		seq;			/* events given out in the transaction */
} FeedState;

static void
feed_startup(LogicalDecodingContext *ctx, OutputPluginOptions *opt, bool is_init)
{
	FeedState  *st = MemoryContextAllocZero(ctx->context, sizeof(FeedState));

	st->cxt = AllocSetContextCreate(ctx->context, "argo feed transaction",
									ALLOCSET_DEFAULT_SIZES);
	opt->output_type = OUTPUT_PLUGIN_TEXTUAL_OUTPUT;
	opt->receive_rewrites = false;
	ctx->output_plugin_private = st;
}

static void
feed_begin(LogicalDecodingContext *ctx, ReorderBufferTXN *txn)
{
	FeedState  *st = ctx->output_plugin_private;
	HASHCTL		ctl;

	MemoryContextReset(st->cxt);
	ctl.keysize = sizeof(Voucher);
	ctl.entrysize = sizeof(Voucher);
	ctl.hcxt = st->cxt;
	st->vouchers = hash_create("argo feed vouchers", 64, &ctl,
							   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	st->seq = 0;
}

static void
vouch(FeedState *st, const char *coll, int len, int64 objid)
{
	Voucher		v;

	memset(&v, 0, sizeof(v));
	memcpy(v.coll, coll, Min(len, NAMEDATALEN - 1));
	v.objid = objid;
	(void) hash_search(st->vouchers, &v, HASH_ENTER, NULL);
}

static bool
vouched(FeedState *st, const char *coll, int64 objid)
{
	Voucher		v;

	memset(&v, 0, sizeof(v));
	strlcpy(v.coll, coll, NAMEDATALEN);
	v.objid = objid;
	return hash_search(st->vouchers, &v, HASH_FIND, NULL) != NULL;
}

/* The collection a table of argo_data belongs to, if its name ends in suffix. */
static int
collection_of(Relation rel, const char *suffix)
{
	const char *name = RelationGetRelationName(rel);
	int			len = strlen(name);
	int			slen = strlen(suffix);

	if (len <= slen || strcmp(name + len - slen, suffix) != 0 ||
		RelationGetNamespace(rel) != get_namespace_oid(ARGO_SCHEMA, true))
		return -1;
	return len - slen;
}

static void
feed_change(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
			Relation rel, ReorderBufferChange *change)
{
	FeedState  *st = ctx->output_plugin_private;
	const char *name = RelationGetRelationName(rel);
	ReorderBufferTupleBuf *tup = NULL;
	int			len;

	if ((len = collection_of(rel, "_obj")) > 0)
	{
		AttrNumber	att = attnameAttNum(rel, "objid", false);
		bool		isnull = true;
		Datum		id = 0;

		if (change->action == REORDER_BUFFER_CHANGE_INSERT ||
			change->action == REORDER_BUFFER_CHANGE_UPDATE)
			tup = change->data.tp.newtuple;
		else if (change->action == REORDER_BUFFER_CHANGE_DELETE)
			tup = change->data.tp.oldtuple;
		if (tup != NULL && att > 0)
			id = heap_getattr(&tup->tuple, att, RelationGetDescr(rel), &isnull);
		if (!isnull)
			vouch(st, name, len, DatumGetInt64(id));
	}
	else if ((len = collection_of(rel, "_feed")) > 0 &&
			 change->action == REORDER_BUFFER_CHANGE_INSERT)
		vouch(st, name, len, 0);
}

/* "op \t collection \t id \t body" into its parts; false if it is not one. */
static bool
split_message(const char *msg, Size size, char **op, char **coll, int64 *id, char **body)
{
	char	   *copy = pnstrdup(msg, size);
	char	   *tab1 = strchr(copy, '\t');
	char	   *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
	char	   *tab3 = tab2 ? strchr(tab2 + 1, '\t') : NULL;

	if (tab3 == NULL)
		return false;
	*tab1 = *tab2 = *tab3 = '\0';
	*op = copy;
	*coll = tab1 + 1;
	*id = strtoi64(tab2 + 1, NULL, 10);
	*body = tab3 + 1;
	return strlen(*coll) > 0 && strlen(*coll) < NAMEDATALEN;
}

static void
feed_message(LogicalDecodingContext *ctx, ReorderBufferTXN *txn,
			 XLogRecPtr lsn, bool transactional, const char *prefix,
			 Size size, const char *message)
{
	FeedState  *st = ctx->output_plugin_private;
	char	   *op,
			   *coll,
			   *body;
	int64		id;
	bool		drop;
	MemoryContext old;

	if (!transactional || txn == NULL || strcmp(prefix, ARGO_FEED_PREFIX) != 0)
		return;
	old = MemoryContextSwitchTo(st->cxt);
	if (!split_message(message, size, &op, &coll, &id, &body))
	{
		MemoryContextSwitchTo(old);
		return;
	}
	drop = strcmp(op, "drop") == 0;
	if (!vouched(st, coll, drop ? 0 : id) ||
		(!drop && strcmp(op, "insert") != 0 && strcmp(op, "update") != 0 &&
		 strcmp(op, "delete") != 0))
	{
		MemoryContextSwitchTo(old);
		return;
	}
	OutputPluginPrepareWrite(ctx, true);
	appendStringInfo(ctx->out, "{\"_id\": \"%08X%08X%08X\", \"operationType\": \"%s\", \"ns\": {\"coll\": ",
					 LSN_FORMAT_ARGS(txn->final_lsn), ++st->seq, op);
	escape_json(ctx->out, coll);
	appendStringInfoChar(ctx->out, '}');
	if (!drop)
		appendStringInfo(ctx->out, ", \"documentKey\": {\"id\": " INT64_FORMAT "}", id);
	appendStringInfoString(ctx->out, ", \"clusterTime\": ");
	escape_json(ctx->out, timestamptz_to_str(txn->xact_time.commit_time));
	if (*body)
		appendStringInfo(ctx->out, ", %s", body);
	appendStringInfoChar(ctx->out, '}');
	OutputPluginWrite(ctx, true);
	MemoryContextSwitchTo(old);
}

static void
feed_commit(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr commit_lsn)
{
}

void
_PG_output_plugin_init(OutputPluginCallbacks *cb)
{
	cb->startup_cb = feed_startup;
	cb->begin_cb = feed_begin;
	cb->change_cb = feed_change;
	cb->commit_cb = feed_commit;
	cb->message_cb = feed_message;
}
