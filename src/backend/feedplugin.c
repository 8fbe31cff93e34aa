/*
 * feedplugin.c — Argo's logical decoding output plugin: a replication
 * slot made with plugin 'argo' (the library's name) gives one line of
 * JSON per change event of every collection whose feed is on, in commit
 * order, each transaction's events together:
 *
 *   {"_id": "<token>", "operationType": "insert" | "update" | "delete" |
 *    "drop" | "invalidate", "ns": {"coll": …, "incarnation": …},
 *    "documentKey": {"id": …}, "clusterTime": "<commit time, UTC>",
 *    "fullDocument": …,
 *    "updateDescription": {"updatedFields": {…}, "removedFields": […]}}
 *
 * A drop is followed by an invalidate, as MongoDB's change streams end
 * with one; incarnation (the OID of the collection's sequence) tells a
 * collection from one made later under the same name.
 *
 * The token is the transaction's commit LSN and the event's number in
 * it, as 16 and 8 hex digits (FEED_TOKEN_DIGITS): tokens sort as text in
 * the order events come, so "the events after token t" is a string
 * comparison.
 *
 * The events are the transactional logical messages the writers logged
 * (store/feed.c).  Anyone may log such a message, so each is given out
 * only if the same transaction made the change that vouches for it: the
 * object's directory row inserted, updated or deleted for an insert,
 * update or delete event (its id read from the decoded row; a deleted
 * row's id from its primary key, which the directory's replica identity
 * logs), or for a drop a row inserted into the collection's c_feed —
 * tables that are the collection's own (owned by its owner), and one
 * event per such change.  The message's parts are checked to be what
 * writers write, and its body's shape (store/feedbody.c), so that it
 * can neither override the event's own fields nor break its JSON.  Rows
 * of other tables pass unseen.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "replication/logical.h"
#include "replication/output_plugin.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/hsearch.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "common/common.h"
#include "store/access.h"
#include "store/feed.h"

extern void _PG_output_plugin_init(OutputPluginCallbacks *cb);

/*
 * A change that vouches for one event: the directory row of (collection,
 * object) inserted, updated or deleted ('i', 'u', 'd'), or for a drop
 * ('x', object 0) a row inserted into the collection's c_feed.  Each
 * message uses up one voucher of its kind, so a transaction that changed
 * an object once can carry one event for it, not a second one logged by
 * hand.
 */
typedef struct VoucherKey
{
	char		coll[NAMEDATALEN];
	int64		objid;
	char		kind;
} VoucherKey;

typedef struct Voucher
{
	VoucherKey	key;
	int			count;
	Oid			incarnation;	/* the collection's sequence */
} Voucher;

/*
 * Whether a table of argo_data is its collection's own, by relation OID,
 * and the OID of the collection's sequence: made and dropped with the
 * collection, it tells one collection of a name from the next.
 */
typedef struct OwnTable
{
	Oid			relid;
	bool		own;
	Oid			seq;
} OwnTable;

typedef struct FeedState
{
	MemoryContext cxt;			/* one transaction's */
	HTAB	   *vouchers;
	HTAB	   *tables;
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
	ctl.keysize = sizeof(VoucherKey);
	ctl.entrysize = sizeof(Voucher);
	ctl.hcxt = st->cxt;
	st->vouchers = hash_create("argo feed vouchers", 64, &ctl,
							   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(OwnTable);
	st->tables = hash_create("argo feed tables", 16, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	st->seq = 0;
}

static void
voucher_key(VoucherKey *k, const char *coll, int len, int64 objid, char kind)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->coll, coll, Min(len, NAMEDATALEN - 1));
	k->objid = objid;
	k->kind = kind;
}

static void
vouch(FeedState *st, const char *coll, int len, int64 objid, char kind, Oid incarnation)
{
	VoucherKey	k;
	Voucher    *v;
	bool		found;

	voucher_key(&k, coll, len, objid, kind);
	v = hash_search(st->vouchers, &k, HASH_ENTER, &found);
	v->count = found ? v->count + 1 : 1;
	v->incarnation = incarnation;
}

/* Use up a voucher for the event; InvalidOid when there is none left. */
static Oid
redeem(FeedState *st, const char *coll, int64 objid, char kind)
{
	VoucherKey	k;
	Voucher    *v;

	voucher_key(&k, coll, strlen(coll), objid, kind);
	v = hash_search(st->vouchers, &k, HASH_FIND, NULL);
	if (v == NULL || v->count == 0)
		return InvalidOid;
	v->count--;
	return v->incarnation;
}

/*
 * Whether rel, "<coll>_<suffix>" in argo_data, is collection coll's own:
 * a plain table owned by the owner of the collection's sequence, as
 * catalog.c decides what a collection is.  Returns that sequence's OID,
 * or InvalidOid when rel is not the collection's.  A table another role with
 * CREATE on argo_data planted under such a name vouches for nothing.
 * Read from the catalog as of the change (decoding's snapshot).
 */
static Oid
own_table(FeedState *st, Relation rel, const char *coll, int len)
{
	Oid			relid = RelationGetRelid(rel);
	OwnTable   *t;
	bool		found;

	t = hash_search(st->tables, &relid, HASH_ENTER, &found);
	if (!found)
	{
		char	   *seqname = psprintf("%.*s_seq", len, coll);
		Oid			seq = get_relname_relid(seqname, RelationGetNamespace(rel));

		t->own = rel->rd_rel->relkind == RELKIND_RELATION && OidIsValid(seq) &&
			get_rel_relkind(seq) == RELKIND_SEQUENCE &&
			argo_relation_owner(seq) == rel->rd_rel->relowner;
		t->seq = seq;
	}
	return t->own ? t->seq : InvalidOid;
}

/* The collection a table of argo_data belongs to, if its name ends in suffix. */
static int
plugin_collection_of(Relation rel, const char *suffix)
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
	Oid			seq;
	MemoryContext old;

	if ((len = plugin_collection_of(rel, "_obj")) > 0)
	{
		AttrNumber	att = attnameAttNum(rel, "objid", false);
		bool		isnull = true;
		Datum		id = 0;
		char		kind = 0;

		if (change->action == REORDER_BUFFER_CHANGE_INSERT)
			tup = change->data.tp.newtuple, kind = 'i';
		else if (change->action == REORDER_BUFFER_CHANGE_UPDATE)
			tup = change->data.tp.newtuple, kind = 'u';
		else if (change->action == REORDER_BUFFER_CHANGE_DELETE)
			tup = change->data.tp.oldtuple, kind = 'd';
		if (tup == NULL || att <= 0 ||
			TupleDescAttr(RelationGetDescr(rel), att - 1)->atttypid != INT8OID)
			return;
		id = heap_getattr(&tup->tuple, att, RelationGetDescr(rel), &isnull);
		old = MemoryContextSwitchTo(st->cxt);
		if (!isnull && OidIsValid(seq = own_table(st, rel, name, len)))
			vouch(st, name, len, DatumGetInt64(id), kind, seq);
		MemoryContextSwitchTo(old);
	}
	else if ((len = plugin_collection_of(rel, "_feed")) > 0 &&
			 change->action == REORDER_BUFFER_CHANGE_INSERT)
	{
		old = MemoryContextSwitchTo(st->cxt);
		if (OidIsValid(seq = own_table(st, rel, name, len)))
			vouch(st, name, len, 0, 'x', seq);
		MemoryContextSwitchTo(old);
	}
}

/* Operations and the kind of change that vouches for each. */
static const struct
{
	const char *op;
	char		kind;
}			operations[] = {
	{"insert", 'i'}, {"update", 'u'}, {"delete", 'd'}, {"drop", 'x'}
};

/*
 * "op \t collection \t id \t body", each part as Argo's writers make it:
 * a known operation, a collection name as catalog.c allows one, an
 * object id in decimal (0 for a drop, positive otherwise).  The body is
 * judged by feed_body_valid.
 */
static bool
split_message(const char *msg, Size size, char **op, char *kind, char **coll,
			  int64 *id, char **body, int *bodylen)
{
	char	   *copy = pnstrdup(msg, size);
	char	   *tab1 = strchr(copy, '\t');
	char	   *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
	char	   *tab3 = tab2 ? strchr(tab2 + 1, '\t') : NULL;
	char	   *end;
	size_t		clen;

	if (tab3 == NULL || strlen(copy) != size)
		return false;
	*tab1 = *tab2 = *tab3 = '\0';
	*op = copy;
	*kind = 0;
	for (int i = 0; i < lengthof(operations); i++)
		if (strcmp(copy, operations[i].op) == 0)
			*kind = operations[i].kind;
	*coll = tab1 + 1;
	clen = strlen(*coll);
	if (*kind == 0 || clen == 0 || clen >= NAMEDATALEN ||
		!(isalpha((unsigned char) (*coll)[0]) || (*coll)[0] == '_') ||
		strspn(*coll, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != clen)
		return false;
	if (strspn(tab2 + 1, "0123456789") != strlen(tab2 + 1) || tab2[1] == '\0' ||
		(tab2[1] == '0' && tab2[2] != '\0') || strlen(tab2 + 1) > 19)
		return false;
	errno = 0;
	*id = strtoi64(tab2 + 1, &end, 10);
	if (errno != 0 || (*kind == 'x') != (*id == 0))
		return false;
	*body = tab3 + 1;
	*bodylen = size - (*body - copy);
	return true;
}

/*
 * A commit time as MongoDB's wall time is written: ISO 8601 in UTC,
 * whatever the time zone of the session that decodes.
 */
static void
append_utc_time(StringInfo out, TimestampTz t)
{
	struct pg_tm tm;
	fsec_t		fsec;
	char		buf[MAXDATELEN + 1];

	if (timestamp2tm(t, NULL, &tm, &fsec, NULL, NULL) != 0)
	{
		appendStringInfoString(out, "null");
		return;
	}
	EncodeDateTime(&tm, fsec, false, 0, NULL, USE_XSD_DATES, buf);
	appendStringInfo(out, "\"%sZ\"", buf);
}

/* An event's opening fields: token, operation, collection and its incarnation. */
static void
event_head(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, const char *op,
		   const char *coll, Oid incarnation)
{
	FeedState  *st = ctx->output_plugin_private;

	StaticAssertStmt(FEED_TOKEN_DIGITS == 24, "the token's format writes 3 x 8 hex digits");
	appendStringInfo(ctx->out, "{\"_id\": \"%08X%08X%08X\", \"operationType\": \"%s\", \"ns\": {\"coll\": ",
					 LSN_FORMAT_ARGS(txn->final_lsn), ++st->seq, op);
	escape_json(ctx->out, coll);
	appendStringInfo(ctx->out, ", \"incarnation\": %u}", incarnation);
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
	char		kind;
	int64		id;
	int			bodylen;
	Oid			incarnation = InvalidOid;
	MemoryContext old;

	if (!transactional || txn == NULL || strcmp(prefix, ARGO_FEED_PREFIX) != 0)
		return;
	old = MemoryContextSwitchTo(st->cxt);
	if (!split_message(message, size, &op, &kind, &coll, &id, &body, &bodylen) ||
		!feed_body_valid(op, body, bodylen) ||
		!OidIsValid(incarnation = redeem(st, coll, id, kind)))
	{
		MemoryContextSwitchTo(old);
		return;
	}
	OutputPluginPrepareWrite(ctx, kind != 'x');
	event_head(ctx, txn, op, coll, incarnation);
	if (kind != 'x')
		appendStringInfo(ctx->out, ", \"documentKey\": {\"id\": " INT64_FORMAT "}", id);
	appendStringInfoString(ctx->out, ", \"clusterTime\": ");
	append_utc_time(ctx->out, txn->xact_time.commit_time);
	if (bodylen > 0)
	{
		appendStringInfoString(ctx->out, ", ");
		appendBinaryStringInfo(ctx->out, body, bodylen);
	}
	appendStringInfoChar(ctx->out, '}');
	OutputPluginWrite(ctx, kind != 'x');
	if (kind == 'x')
	{
		/* as MongoDB's: a stream of a dropped collection ends */
		OutputPluginPrepareWrite(ctx, true);
		event_head(ctx, txn, "invalidate", coll, incarnation);
		appendStringInfoString(ctx->out, ", \"clusterTime\": ");
		append_utc_time(ctx->out, txn->xact_time.commit_time);
		appendStringInfoChar(ctx->out, '}');
		OutputPluginWrite(ctx, true);
	}
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
