/*
 * planner.c — the planner hook that lets a query read every object of a
 * collection in parallel.  argo_query may write, so it is PARALLEL
 * UNSAFE and a query calling it is never planned in parallel; where each
 * argo_query call of a query is a FROM item whose statement (a constant
 * text, parsed when planning; a projection also analysed, to know that
 * it reads the kept documents) is such a read, the calls become
 * argo_query_read, the same function, read-only and PARALLEL RESTRICTED,
 * and customscan.c offers their partial paths.  A generic plan, whose statement
 * is a parameter without a value, keeps its query in its ArgoScan, to be
 * planned again for a statement that turns out to be such a read
 * (argo_plan_for_value, replan.c).
 *
 * argo_query's OID comes from its planner support function
 * (argo_query_support, customscan.c) or a lookup here.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"

#include "common/sqlbuf.h"
#include "parse/parse.h"
#include "exec/cursor.h"
#include "backend/hooks.h"

/* argo.stream_results: off, argo_query is a plain function (customscan.c reads it too) */
bool		argo_stream_results = true;
static Oid	argo_query_oid = InvalidOid;
static Oid	read_oid = InvalidOid;	/* argo_query_read, when last swapped in */
static planner_hook_type prev_planner_hook = NULL;

/*
 * The query being planned, kept in its ArgoScan, when its one argo_query
 * call's statement is a parameter without a value (a generic plan); the
 * cursor options it was planned with.
 */
static Query *replan_query = NULL;
static int	replan_options = 0;

/*
 * The statement text of a call: a constant, or a parameter whose value
 * this plan is made for (a custom plan of a prepared statement, as a
 * driver's bound parameter gives: the planner folds it into a constant
 * later; a generic plan has no value and is not shared).
 */
bool
argo_statement_text(Node *arg, ParamListInfo params, Datum *value)
{
	if (IsA(arg, Const))
	{
		Const	   *c = (Const *) arg;

		if (c->constisnull || c->consttype != TEXTOID)
			return false;
		*value = c->constvalue;
		return true;
	}
	if (IsA(arg, Param) && ((Param *) arg)->paramkind == PARAM_EXTERN && params != NULL)
	{
		Param	   *p = (Param *) arg;
		ParamExternData buf;
		ParamExternData *v;

		if (p->paramid <= 0 || p->paramid > params->numParams)
			return false;
		v = params->paramFetch ? params->paramFetch(params, p->paramid, true, &buf) :
			&params->params[p->paramid - 1];
		if (v == NULL || v->isnull || !(v->pflags & PARAM_FLAG_CONST) ||
			v->ptype != TEXTOID || p->paramtype != TEXTOID)
			return false;
		*value = v->value;
		return true;
	}
	return false;
}

/*
 * Whether a statement text known when planning is a read that processes
 * can share; deep: a projection is analysed to know (argo_shareable_query),
 * else the parsed statement is taken at its word (argo_query_read, which
 * the planner hook put in having asked deep).
 * Parsing it while planning must not fail the plan (a statement that is
 * never run, under LIMIT 0, raises nothing today): a syntax error says
 * only "no"; any other error is raised.
 */
bool
argo_shareable_text(Node *arg, ParamListInfo params, bool deep)
{
	Datum		stmt_text;
	MemoryContext cxt,
				old;
	volatile bool ok = false;
	char	   *query;

	if (!argo_statement_text(arg, params, &stmt_text))
		return false;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "argo plan-time parse", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	query = TextDatumGetCString(stmt_text);
	PG_TRY();
	{
		ok = argo_shareable_query(query, deep);
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		if (ERRCODE_TO_CATEGORY(e->sqlerrcode) != ERRCODE_SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION &&
			ERRCODE_TO_CATEGORY(e->sqlerrcode) != ERRCODE_DATA_EXCEPTION &&
			e->sqlerrcode != ERRCODE_FEATURE_NOT_SUPPORTED)
			PG_RE_THROW();
		FlushErrorState();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return ok;
}

/* The argo_query calls of a query: all of them, and those a FROM item shares. */
typedef struct Calls
{
	int			all;
	List	   *shareable;
	List	   *unknown;		/* FROM items whose text is a parameter without a value */
	ParamListInfo params;
} Calls;

static bool
find_calls(Node *node, Calls *k)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
		{
			RangeTblEntry *rte = lfirst(lc);
			FuncExpr   *fe;

			if (rte->rtekind != RTE_FUNCTION || list_length(rte->functions) != 1 ||
				rte->funcordinality)
				continue;
			fe = (FuncExpr *) ((RangeTblFunction *) linitial(rte->functions))->funcexpr;
			/* the parameters' default is not filled in before planning */
			if (!IsA(fe, FuncExpr) || fe->funcid != argo_query_oid ||
				list_length(fe->args) > 2 || fe->args == NIL)
				continue;
			if (argo_shareable_text(linitial(fe->args), k->params, true))
				k->shareable = lappend(k->shareable, fe);
			else if (IsA(linitial(fe->args), Param) &&
					 ((Param *) linitial(fe->args))->paramkind == PARAM_EXTERN &&
					 !argo_statement_text(linitial(fe->args), k->params, &(Datum) {0}))
				k->unknown = lappend(k->unknown, fe);
		}
		return query_tree_walker((Query *) node, find_calls, k, 0);
	}
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcid == argo_query_oid)
		k->all++;
	return expression_tree_walker(node, find_calls, k);
}

/*
 * argo_query in the extension's schema, or InvalidOid.  The support
 * function learns it while a query is planned, after this hook has run:
 * without a lookup, the first query of a session would never be shared
 * among workers.
 */
static Oid
lookup_query_oid(Query *parse)
{
	Oid			argtypes[2] = {TEXTOID, JSONBARRAYOID};
	char	   *qualified;
	ListCell   *lc;
	bool		calls = false;

	/* most queries call no function in FROM: no catalog lookup for them */
	foreach(lc, parse->rtable)
		calls |= ((RangeTblEntry *) lfirst(lc))->rtekind == RTE_FUNCTION;
	if (!calls || (qualified = extension_function("argo", "argo_query")) == NULL)
		return InvalidOid;
	return LookupFuncName(stringToQualifiedNameList(qualified), 2, argtypes, true);
}

/* argo_query_read, beside argo_query, or InvalidOid. */
static Oid
lookup_read_oid(void)
{
	Oid			argtypes[2] = {TEXTOID, JSONBARRAYOID};
	char	   *nsp = get_namespace_name(get_func_namespace(argo_query_oid));

	if (nsp == NULL)
		return InvalidOid;
	return LookupFuncName(list_make2(makeString(nsp), makeString("argo_query_read")),
						  2, argtypes, true);
}

/*
 * Whether the query would be parallel safe if its one argo_query call
 * were a read (argo_query_read): then a plan of it for a statement that
 * reads every object may be parallel.
 */
static bool
safe_as_a_read(Query *parse, FuncExpr *call)
{
	char		hazard;

	if (parse->hasModifyingCTE || !OidIsValid(read_oid = lookup_read_oid()))
		return false;
	call->funcid = read_oid;
	hazard = max_parallel_hazard(parse);
	call->funcid = argo_query_oid;
	return hazard != PROPARALLEL_UNSAFE;
}

/*
 * Where a query may be parallel and each of its argo_query calls is a
 * FROM item reading every object of a collection, the calls become
 * argo_query_read, which a parallel plan may hold.  Where its one call's
 * statement is a parameter without a value (a generic plan), the plan
 * keeps the query, to be planned again when it runs such a statement.
 */
static PlannedStmt *
argo_planner(Query *parse, const char *query_string, int cursorOptions,
			 ParamListInfo boundParams)
{
	Query	   *keep = NULL;
	Query	   *save_query = replan_query;
	int			save_options = replan_options;
	PlannedStmt *result;

	if (argo_stream_results && !OidIsValid(argo_query_oid))
		argo_query_oid = lookup_query_oid(parse);
	if (argo_stream_results && OidIsValid(argo_query_oid) &&
		(cursorOptions & CURSOR_OPT_PARALLEL_OK) != 0 && IsUnderPostmaster &&
		parse->commandType == CMD_SELECT && max_parallel_workers_per_gather > 0)
	{
		Calls		k = {0, NIL, NIL, boundParams};

		find_calls((Node *) parse, &k);
		if (k.all > 0 && list_length(k.shareable) == k.all &&
			OidIsValid(read_oid = lookup_read_oid()))
		{
			ListCell   *lc;

			foreach(lc, k.shareable)
				((FuncExpr *) lfirst(lc))->funcid = read_oid;
		}
		else if (k.all == 1 && list_length(k.unknown) == 1 &&
				 safe_as_a_read(parse, linitial(k.unknown)))
			keep = copyObject(parse);	/* before the planner changes it */
	}
	replan_query = keep;
	replan_options = cursorOptions;
	PG_TRY();
	{
		if (prev_planner_hook)
			result = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
		else
			result = standard_planner(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		replan_query = save_query;
		replan_options = save_options;
	}
	PG_END_TRY();
	return result;
}

/* What customscan.c asks while it plans an ArgoScan. */
Oid
argo_planner_query_oid(void)
{
	return argo_query_oid;
}

Oid
argo_planner_read_oid(void)
{
	return read_oid;
}

void
argo_planner_learn_query_oid(Oid oid)
{
	argo_query_oid = oid;
}

/* The query a generic plan keeps for planning again, or NULL; its cursor options. */
Query *
argo_planner_replan_query(int *options)
{
	*options = replan_options;
	return replan_query;
}

/* The planner hook (init.c) */
void
argo_planner_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = argo_planner;
}
