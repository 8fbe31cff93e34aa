/*
 * feed.c — following a collection: argo_feed switches its change feed
 * on and off; argo_changes reads a replication slot's events (made with
 * Argo's output plugin, fn/feedplugin.c) after a token; argo_changes_ack
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

#include "access/xlog.h"
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
#include "utils/pg_lsn.h"
#include "utils/tuplestore.h"

#include "exec/exec.h"

PG_FUNCTION_INFO_V1(argo_feed);
PG_FUNCTION_INFO_V1(argo_changes);
PG_FUNCTION_INFO_V1(argo_changes_ack);

/*
 * argo_feed(collection text, enabled boolean, full_document boolean)
 * RETURNS void: the collection's owner switches its feed on (updates
 * carrying the whole object when full_document) or off.
 */
Datum
argo_feed(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	bool		on,
				full;
	ArgoCollection *c;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("enabled and full_document must not be null")));
	on = PG_GETARG_BOOL(1);
	full = PG_GETARG_BOOL(2);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	c = collection_lookup(name, false, ShareRowExclusiveLock);
	collection_check_owner(c);
	if (collection_is_distributed(c))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("collection \"%s\" is distributed: its changes happen on its shards", name),
				 errhint("Follow a collection of one server.")));
	/* after the arguments: a wrong name is the caller's problem first */
	if (on && wal_level < WAL_LEVEL_LOGICAL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a change feed needs wal_level = logical"),
				 errhint("Set wal_level = logical in postgresql.conf and restart the server.")));
	if (feed_mode(c) != FEED_OFF)
		drop_feed(c, false);
	if (on)
		run_ddl(psprintf("CREATE TABLE %s (dropped_at pg_catalog.timestamptz DEFAULT pg_catalog.now()%s)",
						 quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_feed", name)),
						 full ? ", full_document boolean" : ""));
	SPI_finish();
	PG_RETURN_VOID();
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
 * The slot must exist and decode with Argo's plugin: another plugin's
 * output is not events, and a name that is not a slot should say so
 * whatever wal_level is (PostgreSQL checks wal_level first).
 */
static void
check_slot(const char *slot)
{
	ReplicationSlot *s;
	bool		found,
				argo = false;

	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	s = SearchNamedReplicationSlot(slot, false);
	found = s != NULL;
	if (found)
	{
		SpinLockAcquire(&s->mutex);
		argo = s->data.database != InvalidOid &&
			strcmp(NameStr(s->data.plugin), "argo") == 0;
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
}

/* The LSN a token starts with: its transaction's commit. */
static XLogRecPtr
token_lsn(const char *token)
{
	uint32		hi,
				lo,
				seq;

	if (strlen(token) != 24 || sscanf(token, "%8X%8X%8X", &hi, &lo, &seq) != 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a change feed token", token),
				 errdetail("A token is the \"_id\" of an event argo_changes gave: 24 hexadecimal digits.")));
	return ((XLogRecPtr) hi << 32) | lo;
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
	int			n = 0;
	Portal		portal;

	if (after != NULL)
		(void) token_lsn(after);
	if (max < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max must be at least 1, not %d", max)));
	check_slot(slot);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(slot));
	portal = SPI_cursor_open_with_args(NULL, "SELECT data FROM pg_catalog.pg_logical_slot_peek_changes($1, NULL, NULL)",
									   1, types, values, NULL, true, 0);
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
	SPI_cursor_close(portal);
	SPI_finish();
	return (Datum) 0;
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

	values[0] = DirectFunctionCall1(namein, CStringGetDatum(slot));
	values[1] = LSNGetDatum(token_lsn(token));
	check_slot(slot);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	if (SPI_execute_with_args("SELECT FROM pg_catalog.pg_replication_slot_advance($1, $2)",
							  2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "argo: could not advance slot \"%s\"", slot);
	SPI_finish();
	PG_RETURN_VOID();
}
