/*
 * feed.c — following a collection: argo_feed switches its change feed
 * on and off; argo_changes reads a replication slot's events (made with
 * Argo's output plugin, backend/feedplugin.c) after a token; argo_changes_ack
 * lets the slot forget what a consumer has kept.
 *
 * argo_changes peeks at the slot (pg_logical_slot_peek_changes): nothing
 * is consumed until acknowledged, so a consumer that keeps its last
 * token resumes exactly after it, across restarts and crashes of either
 * side.  Acknowledging a token moves the slot to the commit of that
 * token's transaction, never past it: the transaction's later events
 * stay readable.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "replication/slot.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/pg_lsn.h"
#include "utils/tuplestore.h"

#include "common/common.h"
#include "common/errors.h"
#include "common/plancache.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/feed.h"

PG_FUNCTION_INFO_V1(argo_feed);
PG_FUNCTION_INFO_V1(argo_changes);
PG_FUNCTION_INFO_V1(argo_changes_ack);
PG_FUNCTION_INFO_V1(argo_feed_slot);

static void create_feed(ArgoCollection *c, bool full, bool before);

/*
 * argo_feed(collection text, enabled boolean, full_document boolean,
 * before_change boolean) RETURNS void: the collection's owner switches
 * its feed on (updates carrying the whole object when full_document,
 * updates and deletes the object before when before_change) or off.
 */
Datum
argo_feed(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	bool		on,
				full,
				before;
	ArgoCollection *c;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || (PG_NARGS() > 3 && PG_ARGISNULL(3)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("enabled, full_document and before_change must not be null")));
	on = PG_GETARG_BOOL(1);
	full = PG_GETARG_BOOL(2);
	before = PG_NARGS() > 3 && PG_GETARG_BOOL(3);
	argo_spi_connect();
	c = collection_open_as_owner(name, ShareRowExclusiveLock, "Its changes happen on its shards.",
								 "Follow a collection of one server.");
	/* after the arguments: a wrong name is the caller's problem first */
	if (on && wal_level < WAL_LEVEL_LOGICAL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a change feed needs wal_level = logical"),
				 errhint("Set wal_level = logical in postgresql.conf and restart the server.")));
	if (feed_mode(c) != FEED_OFF)
		drop_feed(c, false);
	if (on)
		create_feed(c, full, before);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * The table whose existence switches c's feed on, owned by c's owner
 * whoever of its members asks (the writers and the output plugin
 * believe only a table of that owner's).  A table of that name another
 * role made first is said to be in the way, not silently ignored.
 */
static void
create_feed(ArgoCollection *c, bool full, bool before)
{
	char	   *table = psprintf("%s_feed", c->name);
	char	   *qualified = quote_qualified_identifier(ARGO_SCHEMA, table);
	Oid			owner = collection_owner(c);
	Oid			squat = get_relname_relid(table, get_namespace_oid(ARGO_SCHEMA, false));

	if (OidIsValid(squat))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s.%s\" is in the way of collection \"%s\"'s feed",
						ARGO_SCHEMA, table, c->name),
				 errdetail("It is owned by role \"%s\", not by the collection's owner.",
						   GetUserNameFromId(argo_relation_owner(squat), true) ?
						   GetUserNameFromId(argo_relation_owner(squat), true) : "(dropped)"),
				 errhint("Have its owner or a superuser drop it, then switch the feed on again.")));
	run_ddl(psprintf("CREATE TABLE %s (dropped_at pg_catalog.timestamptz DEFAULT pg_catalog.now()%s%s)",
					 qualified, full ? ", full_document boolean" : "",
					 before ? ", before_change boolean" : ""));
	if (owner != GetUserId())
		run_ddl(psprintf("ALTER TABLE %s OWNER TO %s", qualified,
						 quote_identifier(GetUserNameFromId(owner, false))));
}

/* The slot's name, the first argument (type name). */
static char *
slot_arg(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("slot name must not be null")));
	return pstrdup(NameStr(*PG_GETARG_NAME(0)));
}

/*
 * The caller must be one who may use replication slots, and the slot must
 * exist and decode with Argo's plugin: another plugin's
 * output is not events, and a name that is not a slot should say so
 * whatever wal_level is (PostgreSQL checks wal_level first).  Returns
 * the position up to which its consumer has acknowledged events.
 */
static XLogRecPtr
check_slot(const char *slot)
{
	ReplicationSlot *s;
	bool		found,
				argo = false;
	XLogRecPtr	confirmed = InvalidXLogRecPtr;

	/* PostgreSQL's own rule and error (42501), before anything of the slot is told */
	CheckSlotPermissions();
	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	s = SearchNamedReplicationSlot(slot, false);
	found = s != NULL;
	if (found)
	{
		SpinLockAcquire(&s->mutex);
		argo = s->data.database != InvalidOid &&
			strcmp(NameStr(s->data.plugin), "argo") == 0;
		confirmed = s->data.confirmed_flush;
		SpinLockRelease(&s->mutex);
	}
	LWLockRelease(ReplicationSlotControlLock);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("replication slot \"%s\" does not exist", slot)));
	if (!argo)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("replication slot \"%s\" does not decode with argo", slot),
				 errhint("Create one with pg_create_logical_replication_slot(name, 'argo').")));
	return confirmed;
}

static void
not_a_token(const char *token, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("\"%s\" is not a change feed token", token),
			 errdetail("%s", why)));
}

/*
 * A token as given: exactly FEED_TOKEN_DIGITS hexadecimal digits (either
 * case), the "_id" of an event; returned in upper case, as events carry
 * it, with its transaction's commit LSN.
 */
static char *
token_arg(const char *token, XLogRecPtr *lsn)
{
	char	   *norm = pstrdup(token);
	uint64		hi = 0;

	if (strlen(token) != FEED_TOKEN_DIGITS ||
		strspn(token, "0123456789abcdefABCDEF") != FEED_TOKEN_DIGITS)
		not_a_token(token, psprintf("A token is the \"_id\" of an event argo_changes gave: %d hexadecimal digits.",
									FEED_TOKEN_DIGITS));
	for (int i = 0; i < FEED_TOKEN_DIGITS; i++)
		norm[i] = pg_toupper((unsigned char) norm[i]);
	for (int i = 0; i < FEED_LSN_DIGITS; i++)
		hi = hi * 16 + (norm[i] <= '9' ? norm[i] - '0' : norm[i] - 'A' + 10);
	*lsn = (XLogRecPtr) hi;
	if (*lsn == InvalidXLogRecPtr)
		not_a_token(token, "No transaction commits at position 0.");
	return norm;
}

/* Whether a transaction's commit record starts at lsn (in WAL already flushed). */
static bool
commit_at(XLogRecPtr lsn)
{
	XLogReaderState *reader;
	XLogRecord *record;
	char	   *errormsg;
	bool		commit = false;

	if (lsn > GetFlushRecPtr(NULL))
		return false;
	reader = XLogReaderAllocate(wal_segment_size, NULL,
								XL_ROUTINE(.page_read = &read_local_xlog_page,
										   .segment_open = &wal_segment_open,
										   .segment_close = &wal_segment_close),
								NULL);
	if (reader == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while reading WAL")));
	XLogBeginRead(reader, lsn);
	record = XLogReadRecord(reader, &errormsg);
	if (record != NULL && XLogRecGetRmid(reader) == RM_XACT_ID)
	{
		uint8		info = XLogRecGetInfo(reader) & XLOG_XACT_OPMASK;

		commit = info == XLOG_XACT_COMMIT || info == XLOG_XACT_COMMIT_PREPARED;
	}
	XLogReaderFree(reader);
	return commit;
}

/*
 * A token the slot can have given out: a transaction's commit at or
 * after the slot's acknowledged position (earlier ones are gone).  For
 * an ack, an older token is acknowledged already (*gone, no error).
 */
static char *
given_token(const char *slot, const char *token, XLogRecPtr confirmed,
			bool ack, XLogRecPtr *lsn, bool *gone)
{
	char	   *norm = token_arg(token, lsn);

	*gone = *lsn < confirmed;
	if (*gone && !ack)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the events after token \"%s\" are no longer kept", norm),
				 errdetail("Slot \"%s\" was acknowledged up to %X/%X, after that token's transaction; the events between are gone.",
						   slot, LSN_FORMAT_ARGS(confirmed)),
				 errhint("Start again from a copy of the collection, and follow the slot from its start (after = NULL).")));
	if (!*gone && !commit_at(*lsn))
		not_a_token(norm, psprintf("Slot \"%s\" has given out no event with it: no transaction committed at %X/%X.",
								   slot, LSN_FORMAT_ARGS(*lsn)));
	return norm;
}

/* A text field of an event (top level, or in "ns"). */
static char *
event_field(Jsonb *ev, const char *outer, const char *key)
{
	JsonbValue	k,
			   *v;
	JsonbContainer *c = &ev->root;

	if (outer != NULL)
	{
		k.type = jbvString;
		k.val.string.val = (char *) outer;
		k.val.string.len = strlen(outer);
		v = findJsonbValueFromContainer(c, JB_FOBJECT, &k);
		if (v == NULL || v->type != jbvBinary)
			return NULL;
		c = v->val.binary.data;
	}
	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	v = findJsonbValueFromContainer(c, JB_FOBJECT, &k);
	return v != NULL && v->type == jbvString ?
		pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

/*
 * Following a collection whose feed is off gives only what the slot
 * kept from when it was on: a consumer that sees nothing should know
 * why.  A notice, not an error: those events are still readable, and
 * a collection dropped since has none other.
 */
static void
notice_feed_off(const char *coll)
{
	ArgoCollection *c = collection_lookup(coll, true, AccessShareLock);

	if (c != NULL && feed_mode(c) == FEED_OFF)
		ereport(NOTICE,
				(errmsg("collection \"%s\"'s change feed is off", coll),
				 errdetail("Its changes are not recorded."),
				 errhint("argo_feed('%s', true, false) switches it on; events from before that are not made.", coll)));
}

/* The slot's events (of coll, after the token), at most max, into the result. */
static void
fetch_some_events(Portal portal, ReturnSetInfo *rsinfo, const char *coll,
				  const char *after, int max)
{
	int			n = 0;

	while (n < max)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed && n < max; i++)
		{
			bool		isnull;
			char	   *data = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
			Jsonb	   *ev = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(data)));
			char	   *token = event_field(ev, NULL, "_id");
			char	   *evcoll = event_field(ev, "ns", "coll");
			Datum		out[2];
			bool		nulls[2] = {false, false};

			CHECK_FOR_INTERRUPTS();
			if (token == NULL || (after != NULL && strcmp(token, after) <= 0) ||
				(coll != NULL && (evcoll == NULL || strcmp(evcoll, coll) != 0)))
				continue;
			out[0] = CStringGetTextDatum(token);
			out[1] = JsonbPGetDatum(ev);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, nulls);
			n++;
		}
		SPI_freetuptable(SPI_tuptable);
	}
}

/*
 * The slot's events (of coll, after the token), at most max, into the
 * result.  A slot another session reads (a stream, another consumer)
 * is PostgreSQL's 55006, with the hint a consumer needs.
 */
static void
fetch_events(Portal portal, ReturnSetInfo *rsinfo, const char *coll,
			 const char *after, int max)
{
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		fetch_some_events(portal, rsinfo, coll, after, max);
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		if (e->sqlerrcode != ERRCODE_OBJECT_IN_USE)
			PG_RE_THROW();
		FlushErrorState();
		e->hint = pstrdup("A slot serves one reader at a time: give each consumer its own slot (argo_feed_slot).");
		ReThrowError(e);
	}
	PG_END_TRY();
}


/*
 * argo_changes(slot name, collection text, after text, max integer)
 * RETURNS TABLE (token text, event jsonb): the slot's events of the
 * collection (NULL: of every one) after the token (NULL: from the
 * slot's start), at most max, in order.
 */
Datum
argo_changes(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *slot = slot_arg(fcinfo);
	char	   *coll = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *after = PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	int			max = PG_ARGISNULL(3) ? INT_MAX : PG_GETARG_INT32(3);
	Oid			types[1] = {NAMEOID};
	Datum		values[1];
	Portal		portal;
	XLogRecPtr	confirmed,
				lsn;
	bool		gone;

	/* who may use slots, then whether this one is there, then its arguments */
	confirmed = check_slot(slot);
	if (max < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max must be at least 1, not %d", max)));
	if (after != NULL)
		after = given_token(slot, after, confirmed, false, &lsn, &gone);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	argo_spi_connect();
	if (coll != NULL)
		notice_feed_off(coll);
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(slot));
	portal = SPI_cursor_open_with_args(NULL, "SELECT data FROM pg_catalog.pg_logical_slot_peek_changes($1, NULL, NULL)",
									   1, types, values, NULL, true, 0);
	fetch_events(portal, rsinfo, coll, after, max);
	SPI_cursor_close(portal);
	SPI_finish();
	return (Datum) 0;
}

/* Run one of PostgreSQL's slot functions (sql) on the slot; what it does, for its error. */
static void
run_slot_function(const char *sql, int nargs, Oid *types, Datum *values,
				  const char *what, const char *slot)
{
	argo_spi_connect();
	if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not %s slot \"%s\"", what, slot);
	SPI_finish();
}

/*
 * argo_changes_ack(slot name, token text) RETURNS void: the consumer has
 * kept every event up to the token; the slot may let go of transactions
 * committed before the token's (its own later events stay).
 */
Datum
argo_changes_ack(PG_FUNCTION_ARGS)
{
	char	   *slot = slot_arg(fcinfo);
	char	   *token = argo_text_arg(fcinfo, 1, "token");
	Oid			types[2] = {NAMEOID, PG_LSNOID};
	Datum		values[2];
	XLogRecPtr	confirmed = check_slot(slot);
	XLogRecPtr	lsn;
	bool		gone;

	token = given_token(slot, token, confirmed, true, &lsn, &gone);
	if (gone)
		PG_RETURN_VOID();
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(slot));
	values[1] = LSNGetDatum(lsn);
	run_slot_function("SELECT FROM pg_catalog.pg_replication_slot_advance($1, $2)",
					  2, types, values, "advance", slot);
	PG_RETURN_VOID();
}

/*
 * argo_feed_slot(slot name) RETURNS void: a slot of Argo's plugin for
 * one consumer (a slot serves one reader at a time); a NULL name is an
 * error, not a slot silently not made.
 */
Datum
argo_feed_slot(PG_FUNCTION_ARGS)
{
	char	   *slot = slot_arg(fcinfo);
	Oid			types[1] = {NAMEOID};
	Datum		values[1];

	values[0] = DirectFunctionCall1(namein, CStringGetDatum(slot));
	run_slot_function("SELECT FROM pg_catalog.pg_create_logical_replication_slot($1, 'argo')",
					  1, types, values, "make", slot);
	PG_RETURN_VOID();
}
