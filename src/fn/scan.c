/*
 * scan.c — FROM argo_query(…) planned as a custom scan, so that its
 * results stream: the caller's LIMIT, a cursor's FETCH, EXISTS or a
 * client that stops reading stop the statement (exec/cursor.c), where a
 * set-returning function's FunctionScan would make the whole result
 * first, in a tuplestore that spills past work_mem.
 *
 * The planner hook replaces the FunctionScan path of a FROM item that is
 * argo_query alone (no ORDINALITY, no ROWS FROM, no reference to other
 * FROM items, only its one column used) by an ArgoScan path; anywhere
 * else argo_query stays the function it is.  The scan evaluates the
 * function's arguments at its first row (EXPLAIN without ANALYZE runs
 * nothing) and does what calling the function would: checks EXECUTE on
 * it and applies its SET clauses (search_path, jit) around Argo's work.
 *
 * The library must be loaded when a query is planned, not only when it
 * runs: argo_query's planner support function (argo_query_support) is
 * called while its FROM item is estimated, before paths are chosen, and
 * loading the library then installs the hook.  It also tells the hook
 * argo_query's OID.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "exec/exec.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_query_support);

void		_PG_init(void);

static bool stream_results = true;
static Oid	argo_query_oid = InvalidOid;
static set_rel_pathlist_hook_type prev_pathlist_hook = NULL;

typedef struct ArgoScanState
{
	CustomScanState css;
	Oid			funcid;
	List	   *args;			/* ExprStates: the query text, the parameters */
	ArrayType  *config;			/* argo_query's SET clauses, or NULL */
	ArgoCursor *cursor;			/* NULL: not started */
	char	   *ran;			/* how it ran, for EXPLAIN ANALYZE */
	bool		explain_only;
} ArgoScanState;

static Plan *plan_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *path,
					   List *tlist, List *clauses, List *custom_plans);
static Node *create_scan_state(CustomScan *cscan);
static void begin_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_scan(CustomScanState *node);
static void end_scan(CustomScanState *node);
static void rescan(CustomScanState *node);
static void explain_scan(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomPathMethods path_methods = {
	.CustomName = "ArgoScan",
	.PlanCustomPath = plan_scan,
};

static const CustomScanMethods scan_methods = {
	.CustomName = "ArgoScan",
	.CreateCustomScanState = create_scan_state,
};

static const CustomExecMethods exec_methods = {
	.CustomName = "ArgoScan",
	.BeginCustomScan = begin_scan,
	.ExecCustomScan = exec_scan,
	.EndCustomScan = end_scan,
	.ReScanCustomScan = rescan,
	.ExplainCustomScan = explain_scan,
};

/* argo_query_support(internal) RETURNS internal: no estimate, only the OID */
Datum
argo_query_support(PG_FUNCTION_ARGS)
{
	Node	   *req = (Node *) PG_GETARG_POINTER(0);

	if (IsA(req, SupportRequestRows) && IsA(((SupportRequestRows *) req)->node, FuncExpr))
		argo_query_oid = ((FuncExpr *) ((SupportRequestRows *) req)->node)->funcid;
	PG_RETURN_POINTER(NULL);
}

/* Whether the rel's quals and outputs use only its one column. */
static bool
uses_only_the_column(RelOptInfo *rel, Index rti)
{
	Bitmapset  *attrs = NULL;
	ListCell   *lc;
	int			x = -1;

	pull_varattnos((Node *) rel->reltarget->exprs, rti, &attrs);
	foreach(lc, rel->baserestrictinfo)
		pull_varattnos((Node *) ((RestrictInfo *) lfirst(lc))->clause, rti, &attrs);
	foreach(lc, rel->reltarget->exprs)
		if (!IsA(lfirst(lc), Var))
			return false;
	while ((x = bms_next_member(attrs, x)) >= 0)
		if (x + FirstLowInvalidHeapAttributeNumber != 1)
			return false;
	return true;
}

/* argo_query alone in its FROM item, its arguments from no other item. */
static FuncExpr *
streamable_call(RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	RangeTblFunction *rtf;
	FuncExpr   *fe;

	if (!stream_results || rte->rtekind != RTE_FUNCTION || !OidIsValid(argo_query_oid) ||
		list_length(rte->functions) != 1 || rte->funcordinality || IS_DUMMY_REL(rel))
		return NULL;
	rtf = linitial(rte->functions);
	fe = (FuncExpr *) rtf->funcexpr;
	if (!IsA(fe, FuncExpr) || fe->funcid != argo_query_oid || list_length(fe->args) != 2 ||
		!bms_is_empty(rel->lateral_relids) || contain_subplans((Node *) fe->args) ||
		!uses_only_the_column(rel, rti))
		return NULL;
	return fe;
}

/*
 * The FunctionScan path is replaced: the scan costs what the function
 * would, but its first row comes at once.
 */
static void
argo_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	CustomPath *cp;
	Path	   *fs;

	if (prev_pathlist_hook)
		prev_pathlist_hook(root, rel, rti, rte);
	if (streamable_call(rel, rti, rte) == NULL || rel->pathlist == NIL)
		return;
	fs = linitial(rel->pathlist);
	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = rel->reltarget;
	cp->path.rows = rel->rows;
	cp->path.startup_cost = 0;
	cp->path.total_cost = fs->total_cost;
	cp->methods = &path_methods;
	rel->pathlist = NIL;
	add_path(rel, &cp->path);
}

static Plan *
plan_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *path,
		  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cs = makeNode(CustomScan);
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	FuncExpr   *fe = (FuncExpr *) ((RangeTblFunction *) linitial(rte->functions))->funcexpr;
	Var		   *column = makeVar(rel->relid, 1, JSONBOID, -1, InvalidOid, 0);

	cs->scan.plan.targetlist = tlist;
	cs->scan.plan.qual = extract_actual_clauses(clauses, false);
	/* no relation to open: the scan's tuple is its one column */
	cs->scan.scanrelid = 0;
	cs->custom_scan_tlist = list_make1(makeTargetEntry((Expr *) column, 1, NULL, false));
	cs->custom_exprs = copyObject(fe->args);
	cs->custom_private = list_make1_oid(fe->funcid);
	cs->methods = &scan_methods;
	/* a plan kept across argo_query's replacement is planned again */
	record_plan_function_dependency(root, fe->funcid);
	return &cs->scan.plan;
}

static Node *
create_scan_state(CustomScan *cscan)
{
	ArgoScanState *s = palloc0(sizeof(ArgoScanState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &exec_methods;
	s->funcid = linitial_oid(cscan->custom_private);
	return (Node *) s;
}

/* argo_query's SET clauses, as calling it would apply them. */
static ArrayType *
function_config(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	ArrayType  *config = NULL;
	bool		isnull;
	Datum		d;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", funcid);
	d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_proconfig, &isnull);
	if (!isnull)
		config = DatumGetArrayTypePCopy(d);
	ReleaseSysCache(tup);
	return config;
}

static void
begin_scan(CustomScanState *node, EState *estate, int eflags)
{
	ArgoScanState *s = (ArgoScanState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	AclResult	acl = pg_proc_aclcheck(s->funcid, GetUserId(), ACL_EXECUTE);

	/* what executing the function call would check */
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FUNCTION, get_func_name(s->funcid));
	InvokeFunctionExecuteHook(s->funcid);
	s->config = function_config(s->funcid);
	s->args = ExecInitExprList(cs->custom_exprs, &node->ss.ps);
	s->explain_only = (eflags & EXEC_FLAG_EXPLAIN_ONLY) != 0;
}

/* What runs Argo's work: with argo_query's settings, errors bounded. */
typedef struct Work
{
	ArgoScanState *s;
	char	   *query;
	Jsonb	  **params;
	int			nparams;
	Jsonb	   *result;
} Work;

static void
open_cursor(void *arg)
{
	Work	   *w = arg;

	w->s->cursor = argo_cursor_open(w->query, w->params, w->nparams);
}

static void
next_result(void *arg)
{
	Work	   *w = arg;

	w->result = argo_cursor_next(w->s->cursor);
}

static void
run_work(ArgoScanState *s, void (*fn) (void *), Work *w)
{
	int			nest = NewGUCNestLevel();

	if (s->config)
		ProcessGUCArray(s->config, superuser() ? PGC_SUSET : PGC_USERSET,
						PGC_S_SESSION, GUC_ACTION_SAVE);
	argo_with_bounded_errors(fn, w, argo_explain_failure);
	AtEOXact_GUC(true, nest);
}

/* The arguments, evaluated now, and the statement started. */
static void
start(ArgoScanState *s)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_query_memory);
	Work		w = {s};
	bool		isnull;
	Datum		query;
	Datum		params;

	query = ExecEvalExpr(linitial(s->args), econtext, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("query must not be null")));
	w.query = TextDatumGetCString(query);
	params = ExecEvalExpr(lsecond(s->args), econtext, &isnull);
	w.params = argo_params_of(params, isnull, &w.nparams);
	run_work(s, open_cursor, &w);
	s->ran = pstrdup(argo_cursor_describe(s->cursor));
	MemoryContextSwitchTo(old);
}

static TupleTableSlot *
next_row(ScanState *node)
{
	ArgoScanState *s = (ArgoScanState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	Work		w = {s};

	if (s->cursor == NULL)
		start(s);
	if (argo_cursor_queued(s->cursor))
		w.result = argo_cursor_next(s->cursor);
	else
		run_work(s, next_result, &w);
	ExecClearTuple(slot);
	if (w.result == NULL)
		return slot;
	slot->tts_values[0] = JsonbPGetDatum(w.result);
	slot->tts_isnull[0] = false;
	return ExecStoreVirtualTuple(slot);
}

static bool
recheck_row(ScanState *node, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, next_row, recheck_row);
}

/*
 * A write the caller took no row of (LIMIT 0) still runs, as a
 * data-modifying WITH does.
 */
static void
end_scan(CustomScanState *node)
{
	ArgoScanState *s = (ArgoScanState *) node;

	if (s->cursor == NULL && !s->explain_only && s->args != NIL)
	{
		ExprContext *econtext = node->ss.ps.ps_ExprContext;
		bool		isnull;
		Datum		query = ExecEvalExpr(linitial(s->args), econtext, &isnull);

		/* the portal is being dropped: no snapshot is active but the query's */
		if (!isnull && argo_is_write(TextDatumGetCString(query)))
		{
			PushActiveSnapshot(node->ss.ps.state->es_snapshot);
			start(s);
			PopActiveSnapshot();
		}
	}
	if (s->cursor)
		argo_cursor_close(s->cursor);
	s->cursor = NULL;
}

/*
 * From the first row again: a write's results are read again (it must
 * not run twice), unless its arguments changed; a read runs again.
 */
static void
rescan(CustomScanState *node)
{
	ArgoScanState *s = (ArgoScanState *) node;

	ExecScanReScan(&node->ss);
	if (s->cursor && node->ss.ps.chgParam == NULL && argo_cursor_rewind(s->cursor))
		return;
	if (s->cursor)
		argo_cursor_close(s->cursor);
	s->cursor = NULL;
}

static void
explain_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ArgoScanState *s = (ArgoScanState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	Node	   *query = linitial(cs->custom_exprs);

	if (IsA(query, Const) && !((Const *) query)->constisnull)
		ExplainPropertyText("Argo Statement", TextDatumGetCString(((Const *) query)->constvalue), es);
	if (s->ran)
		ExplainPropertyText("Argo Plan", s->ran, es);
}

void
_PG_init(void)
{
	DefineCustomBoolVariable("argo.stream_results",
							 "Plans FROM argo_query(...) as a scan whose results stream.",
							 "Off: a FunctionScan, which makes the whole result before the first row.",
							 &stream_results, true, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("argo");
	RegisterCustomScanMethods(&scan_methods);
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = argo_pathlist;
}
