/*
 * rowcursor.c — a read-only statement run a few rows at a time, each
 * round's rows going to a receiver, for results that stream (a caller
 * that stops taking rows stops the statement).
 *
 * A portal would do the same, but a portal lives in the transaction's
 * table of portals, which drops the ones SPI made at commit in no
 * particular order: a cursor WITH HOLD over argo_query, made whole at
 * commit, could find the portal under it already gone.  So the statement
 * runs here on an executor of its own, whose memory is the caller's and
 * whose plan and snapshot belong to the caller's resource owner (the
 * scan's portal): it lives exactly as long as the scan that reads it.
 *
 * The plan comes from Argo's plan cache (plancache.c) and is planned for
 * a cursor: never parallel, since a statement stopped between rounds
 * cannot keep workers; for its first rows (cursor_tuple_fraction) only
 * where the statement asks it (fast_start), since a plan for the first
 * tenth can read a whole key's rows out of heap order.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "tcop/pquery.h"
#include "utils/plancache.h"
#include "utils/snapmgr.h"

#include "common/plancache.h"
#include "common/rowcursor.h"
#include "common/sqlbuf.h"

struct RowCursor
{
	CachedPlan *plan;
	ResourceOwner owner;		/* holds the plan */
	QueryDesc  *qd;
	bool		done;
};

/*
 * Start the statement in buf, its rows to go to dest; under SPI (the plan
 * may have to be prepared), with the snapshot it is to read active.  Its
 * state lives in the caller's memory context.
 */
RowCursor *
rowcursor_open(SqlBuf *buf, DestReceiver *dest)
{
	MemoryContext cxt = CurrentMemoryContext;
	CachedPlanSource *source =
		linitial(SPI_plan_get_plan_sources(argo_prepare(buf, buf->fast_start ? CURSOR_OPT_FAST_PLAN : 0)));
	ParamListInfo params;
	RowCursor  *c;
	PlannedStmt *stmt;

	/* preparing leaves SPI's memory current, which SPI_finish frees */
	MemoryContextSwitchTo(cxt);
	params = argo_param_list(buf);
	c = palloc0(sizeof(RowCursor));

	c->owner = CurrentResourceOwner;
	c->plan = GetCachedPlan(source, params, c->owner, NULL);
	stmt = linitial_node(PlannedStmt, c->plan->stmt_list);
	if (list_length(c->plan->stmt_list) != 1 || stmt->commandType != CMD_SELECT ||
		stmt->hasModifyingCTE)
		elog(ERROR, "a streamed statement is not one SELECT");
	/* the plan source may be dropped from the cache while this runs */
	c->qd = CreateQueryDesc(stmt, pstrdup(source->query_string), GetActiveSnapshot(),
							InvalidSnapshot, dest, params, NULL, 0);
	/* a SELECT fires no trigger: no trigger context to interleave with the caller's */
	ExecutorStart(c->qd, EXEC_FLAG_SKIP_TRIGGERS);
	return c;
}

/* Up to n more rows to the receiver; false once the statement has ended. */
bool
rowcursor_fetch(RowCursor *c, uint64 n)
{
	if (c->done)
		return false;
	PushActiveSnapshot(c->qd->snapshot);
	ExecutorRun(c->qd, ForwardScanDirection, n, false);
	PopActiveSnapshot();
	if (c->qd->estate->es_processed < n)
		c->done = true;
	return !c->done;
}

/* End the statement, read whole or not. */
void
rowcursor_close(RowCursor *c)
{
	if (c->qd == NULL)
		return;
	ExecutorFinish(c->qd);
	ExecutorEnd(c->qd);
	FreeQueryDesc(c->qd);
	c->qd = NULL;
	ReleaseCachedPlan(c->plan, c->owner);
}
