/*
 * replan.c — a generic plan of FROM argo_query($1) planned again, when it
 * starts, for the statement its parameter gives.
 *
 * A driver sends the statement text as a bound parameter, through one SQL
 * string for every statement; after a few executions the plan cache keeps
 * a generic plan, made for no statement (its cost is the function's
 * default estimate, below any custom plan's).  That plan cannot be
 * parallel: a read of every object of a large collection would run in
 * one process, and so would all the query does above it (the objects'
 * text, an aggregate), where a plan made for the statement puts both in
 * workers under a Gather (backend/customscan.c).  So when a generic plan starts and
 * its statement is such a read, the query the plan kept is planned for
 * the parameters at hand, as a custom plan would be, and that plan runs;
 * any other statement (a point read, a write) runs the generic plan,
 * paying only a parse of its text.  The new plan is this run's alone,
 * in the run's memory.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "tcop/tcopprot.h"

#include "backend/hooks.h"

static ExecutorStart_hook_type prev_start_hook = NULL;

/* The first node of the plan, its subplans included, that wants planning again. */
static bool
find_in(Plan *plan, ParamListInfo params, Query **query, int *options);

static bool
find_in_list(List *plans, ParamListInfo params, Query **query, int *options)
{
	ListCell   *lc;

	foreach(lc, plans)
		if (find_in(lfirst(lc), params, query, options))
			return true;
	return false;
}

static bool
find_in(Plan *plan, ParamListInfo params, Query **query, int *options)
{
	if (plan == NULL)
		return false;
	check_stack_depth();
	if (argo_plan_for_value(plan, params, query, options))
		return true;
	switch (nodeTag(plan))
	{
		case T_Append:
			return find_in_list(((Append *) plan)->appendplans, params, query, options);
		case T_MergeAppend:
			return find_in_list(((MergeAppend *) plan)->mergeplans, params, query, options);
		case T_SubqueryScan:
			return find_in(((SubqueryScan *) plan)->subplan, params, query, options);
		case T_CustomScan:
			return find_in_list(((CustomScan *) plan)->custom_plans, params, query, options);
		default:
			return find_in(plan->lefttree, params, query, options) ||
				find_in(plan->righttree, params, query, options);
	}
}

static void
argo_executor_start(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	Query	   *query;
	int			options;

	/* only a plan run with parameters can have kept its query */
	if (queryDesc->params != NULL && stmt->commandType == CMD_SELECT &&
		(find_in(stmt->planTree, queryDesc->params, &query, &options) ||
		 find_in_list(stmt->subplans, queryDesc->params, &query, &options)))
		queryDesc->plannedstmt = pg_plan_query(copyObject(query), queryDesc->sourceText,
											   options, queryDesc->params);
	if (prev_start_hook)
		prev_start_hook(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

void
argo_replan_init(void)
{
	prev_start_hook = ExecutorStart_hook;
	ExecutorStart_hook = argo_executor_start;
}
