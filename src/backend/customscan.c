/*
 * customscan.c — FROM argo_query(…) planned as a custom scan, so that its
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
 * loading the library then installs the hook.  It also tells the hooks
 * argo_query's OID.
 *
 * Every object of a collection, unsorted (or a projection of every object
 * that its kept documents give), can also be read by a parallel
 * query: a partial ArgoScan path, under PostgreSQL's own Gather (and its
 * partial aggregates), each process reading chunks of the directory
 * (exec/cursor.c), offered where the planner hook (planner.c) made the
 * call argo_query_read.  The first query of a session, planned before the
 * library was loaded, is simply not parallel.
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
#include "optimizer/cost.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "access/table.h"
#include "storage/bufmgr.h"
#include "storage/shm_toc.h"
#include "catalog/namespace.h"
#include "utils/memutils.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "common/common.h"
#include "parse/parse.h"
#include "exec/cursor.h"
#include "exec/execute.h"
#include "fn/fn.h"
#include "backend/hooks.h"

PG_FUNCTION_INFO_V1(argo_query_support);


static set_rel_pathlist_hook_type prev_pathlist_hook = NULL;

typedef struct ArgoCustomScanState
{
	CustomScanState css;
	Oid			funcid;
	List	   *args;			/* ExprStates: the query text, the parameters */
	ArgoSettings *settings;		/* argo_query's SET clauses */
	ArgoCursor *cursor;			/* NULL: not started */
	char	   *ran;			/* how it ran, for EXPLAIN ANALYZE */
	bool		explain_only;
	ArgoShare  *share;			/* a parallel query's processes, or NULL */
} ArgoCustomScanState;

static Plan *plan_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *path,
					   List *tlist, List *clauses, List *custom_plans);
static Node *create_scan_state(CustomScan *cscan);
static void begin_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_scan(CustomScanState *node);
static void end_scan(CustomScanState *node);
static void rescan(CustomScanState *node);
static void explain_scan(CustomScanState *node, List *ancestors, ExplainState *es);
static Size estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate);

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
	.EstimateDSMCustomScan = estimate_dsm,
	.InitializeDSMCustomScan = initialize_dsm,
	.ReInitializeDSMCustomScan = reinitialize_dsm,
	.InitializeWorkerCustomScan = initialize_worker,
};

/* argo_query_support(internal) RETURNS internal: no estimate, only the OID */
Datum
argo_query_support(PG_FUNCTION_ARGS)
{
	Node	   *req = (Node *) PG_GETARG_POINTER(0);

	if (IsA(req, SupportRequestRows) && IsA(((SupportRequestRows *) req)->node, FuncExpr))
		argo_planner_learn_query_oid(((FuncExpr *) ((SupportRequestRows *) req)->node)->funcid);
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
	Oid			query_oid = argo_planner_query_oid();
	Oid			read_oid = argo_planner_read_oid();

	if (!argo_stream_results || rte->rtekind != RTE_FUNCTION || !OidIsValid(query_oid) ||
		list_length(rte->functions) != 1 || rte->funcordinality || IS_DUMMY_REL(rel))
		return NULL;
	rtf = linitial(rte->functions);
	fe = (FuncExpr *) rtf->funcexpr;
	if (!IsA(fe, FuncExpr) ||
		(fe->funcid != query_oid && (fe->funcid != read_oid || !OidIsValid(read_oid))) ||
		list_length(fe->args) != 2 ||
		!bms_is_empty(rel->lateral_relids) || contain_subplans((Node *) fe->args) ||
		!uses_only_the_column(rel, rti))
		return NULL;
	/* argo_query_read called by name is its function, which checks what it runs */
	if (fe->funcid == read_oid && !argo_shareable_text(linitial(fe->args), NULL, false))
		return NULL;
	return fe;
}

/*
 * The collection a shareable statement reads (parsed again: cheap, and
 * it parsed when it was found shareable), its directory's OID, or
 * InvalidOid.
 */
static Oid
read_directory(Datum stmt_text)
{
	ArgoStmt   *stmt = argo_parse(TextDatumGetCString(stmt_text));
	ArgoSource *src = linitial(stmt->from);
	Oid			nsp = get_namespace_oid(ARGO_SCHEMA, true);

	if (!OidIsValid(nsp) || strlen(src->coll) > NAMEDATALEN - 5)
		return InvalidOid;
	return get_relname_relid(psprintf("%s_obj", src->coll), nsp);
}

/*
 * The pages a parallel read of every object of the statement's
 * collection goes through: its kept documents' (docs.c), or five times
 * its directory's where it keeps none (each object rebuilt from its rows
 * reads about as much again as its document would be); 0 if unknown.
 */
static double
read_pages(Datum stmt_text, Oid dir)
{
	ArgoStmt   *stmt = argo_parse(TextDatumGetCString(stmt_text));
	ArgoSource *src = linitial(stmt->from);
	Oid			docs = get_relname_relid(psprintf("%s_doc", src->coll), get_rel_namespace(dir));
	Oid			relid = OidIsValid(docs) ? docs : dir;
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		pages;

	if (!HeapTupleIsValid(tup))
		return 0;
	pages = ((Form_pg_class) GETSTRUCT(tup))->relpages;
	ReleaseSysCache(tup);
	/* not analyzed yet (the directory may have been): its size now */
	if (pages <= 0 && OidIsValid(docs))
	{
		Relation	rel = table_open(docs, AccessShareLock);

		pages = RelationGetNumberOfBlocks(rel);
		table_close(rel, AccessShareLock);
	}
	return OidIsValid(docs) ? pages : pages * 5;
}

/* Like PostgreSQL's own (costsize.c): the leader's share counted in. */
static double
parallel_divisor(int workers)
{
	double		divisor = workers;

	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;
	return divisor;
}

/*
 * Every object of a collection, read by a parallel query: the scan's
 * rows and cost are the directory's, an object costing what a
 * sequential scan of a table of whole documents would (kept documents),
 * or five times that (rebuilt from rows); and a partial path, each
 * process reading its chunks, for PostgreSQL to put under a Gather.
 */
static void
add_shared_paths(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte, CustomPath *whole)
{
	FuncExpr   *fe = (FuncExpr *) ((RangeTblFunction *) linitial(rte->functions))->funcexpr;
	Oid			dir = read_directory(((Const *) linitial(fe->args))->constvalue);
	HeapTuple	tup;
	double		objects,
				pages,
				per_object;
	int			workers;
	CustomPath *cp;

	if (!OidIsValid(dir) || !(tup = SearchSysCache1(RELOID, ObjectIdGetDatum(dir))))
		return;
	objects = ((Form_pg_class) GETSTRUCT(tup))->reltuples;
	ReleaseSysCache(tup);
	pages = read_pages(((Const *) linitial(fe->args))->constvalue, dir);
	if (objects <= 0 || pages <= 0)
		return;
	per_object = (pages * seq_page_cost) / objects + cpu_tuple_cost;
	rel->rows = clamp_row_est(objects * clauselist_selectivity(root, rel->baserestrictinfo, 0, JOIN_INNER, NULL));
	whole->path.rows = rel->rows;
	whole->path.total_cost = objects * per_object;
	if (!root->glob->parallelModeOK || rel->reloptkind != RELOPT_BASEREL ||
		!is_parallel_safe(root, (Node *) fe->args) ||
		!is_parallel_safe(root, (Node *) rel->baserestrictinfo) ||
		!is_parallel_safe(root, (Node *) rel->reltarget->exprs))
		return;
	workers = compute_parallel_worker(rel, pages, -1, max_parallel_workers_per_gather);
	if (workers <= 0)
		return;
	rel->consider_parallel = true;
	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = rel->reltarget;
	cp->path.parallel_aware = true;
	cp->path.parallel_safe = true;
	cp->path.parallel_workers = workers;
	cp->path.rows = clamp_row_est(rel->rows / parallel_divisor(workers));
	cp->path.startup_cost = 0;
	cp->path.total_cost = objects * per_object / parallel_divisor(workers);
	cp->methods = &path_methods;
	add_partial_path(rel, &cp->path);
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
	if (((FuncExpr *) ((RangeTblFunction *) linitial(rte->functions))->funcexpr)->funcid ==
		argo_planner_read_oid())
		add_shared_paths(root, rel, rte, cp);
}

static Plan *
plan_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *path,
		  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cs = makeNode(CustomScan);
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	FuncExpr   *fe = (FuncExpr *) ((RangeTblFunction *) linitial(rte->functions))->funcexpr;
	Var		   *column = makeVar(rel->relid, 1, JSONBOID, -1, InvalidOid, 0);
	Oid			query_oid = argo_planner_query_oid();
	int			options;
	Query	   *replan = argo_planner_replan_query(&options);

	cs->scan.plan.targetlist = tlist;
	cs->scan.plan.qual = extract_actual_clauses(clauses, false);
	/* no relation to open: the scan's tuple is its one column */
	cs->scan.scanrelid = 0;
	cs->custom_scan_tlist = list_make1(makeTargetEntry((Expr *) column, 1, NULL, false));
	cs->custom_exprs = copyObject(fe->args);
	/*
	 * EXECUTE is checked on argo_query, whichever of the two was planned;
	 * a generic plan whose statement is unknown keeps its query, to be
	 * planned again for a statement that reads in parallel
	 * (argo_plan_for_value)
	 */
	cs->custom_private = list_make3(makeConst(OIDOID, -1, InvalidOid, sizeof(Oid),
											  ObjectIdGetDatum(query_oid), false, true),
									makeInteger(options),
									copyObject(replan));
	cs->methods = &scan_methods;
	/* a plan kept across argo_query's replacement is planned again */
	record_plan_function_dependency(root, fe->funcid);
	record_plan_function_dependency(root, query_oid);
	return &cs->scan.plan;
}

static Node *
create_scan_state(CustomScan *cscan)
{
	ArgoCustomScanState *s = palloc0(sizeof(ArgoCustomScanState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &exec_methods;
	s->funcid = DatumGetObjectId(((Const *) linitial(cscan->custom_private))->constvalue);
	return (Node *) s;
}

static void
begin_scan(CustomScanState *node, EState *estate, int eflags)
{
	ArgoCustomScanState *s = (ArgoCustomScanState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	AclResult	acl = pg_proc_aclcheck(s->funcid, GetUserId(), ACL_EXECUTE);

	/* what executing the function call would check */
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FUNCTION, get_func_name(s->funcid));
	InvokeFunctionExecuteHook(s->funcid);
	s->settings = argo_settings_of(s->funcid);
	s->args = ExecInitExprList(cs->custom_exprs, &node->ss.ps);
	s->explain_only = (eflags & EXEC_FLAG_EXPLAIN_ONLY) != 0;
}

/* What runs Argo's work: with argo_query's settings, errors bounded. */
typedef struct Work
{
	ArgoCustomScanState *s;
	char	   *query;
	Jsonb	  **params;
	int			nparams;
	bool		fetch;			/* open_cursor takes the first result too */
	Jsonb	   *result;
} Work;

/*
 * Opened and, when a row is wanted, its first result taken under the
 * same settings: each change of argo_query's settings and its undoing
 * cost as much as a point read's parse (PostgreSQL 15 visits every
 * setting to undo one).
 */
static void
open_cursor(void *arg)
{
	Work	   *w = arg;

	w->s->cursor = argo_cursor_open(w->query, w->params, w->nparams, w->s->share);
	if (w->fetch)
		w->result = argo_cursor_next(w->s->cursor);
}

static void
next_result(void *arg)
{
	Work	   *w = arg;

	w->result = argo_cursor_next(w->s->cursor);
}

typedef struct BoundedWork
{
	void		(*fn) (void *);
	Work	   *w;
} BoundedWork;

static void
bounded_work(void *arg)
{
	BoundedWork *b = arg;

	argo_run_statement(b->fn, b->w);
}

static void
run_work(ArgoCustomScanState *s, void (*fn) (void *), Work *w)
{
	BoundedWork b = {fn, w};

	argo_with_settings(s->settings, bounded_work, &b);
}

/*
 * The arguments, evaluated now, and the statement started; with fetch,
 * its first result in w->result.
 */
static void
start(ArgoCustomScanState *s, Work *w, bool fetch)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_query_memory);
	bool		isnull;
	Datum		query;
	Datum		params;

	query = ExecEvalExpr(linitial(s->args), econtext, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("query must not be null")));
	w->query = TextDatumGetCString(query);
	params = ExecEvalExpr(lsecond(s->args), econtext, &isnull);
	w->params = argo_params_of(params, isnull, &w->nparams);
	w->fetch = fetch;
	run_work(s, open_cursor, w);
	s->ran = pstrdup(argo_cursor_describe(s->cursor));
	MemoryContextSwitchTo(old);
}

static TupleTableSlot *
next_row(ScanState *node)
{
	ArgoCustomScanState *s = (ArgoCustomScanState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	Work		w = {s};

	if (s->cursor == NULL)
		start(s, &w, true);
	else if (argo_cursor_queued(s->cursor))
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
	ArgoCustomScanState *s = (ArgoCustomScanState *) node;

	if (s->cursor == NULL && !s->explain_only && s->args != NIL)
	{
		ExprContext *econtext = node->ss.ps.ps_ExprContext;
		bool		isnull;
		Datum		query = ExecEvalExpr(linitial(s->args), econtext, &isnull);

		/* the portal is being dropped: no snapshot is active but the query's */
		if (!isnull && argo_is_write(TextDatumGetCString(query)))
		{
			Work		w = {s};

			PushActiveSnapshot(node->ss.ps.state->es_snapshot);
			start(s, &w, false);
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
	ArgoCustomScanState *s = (ArgoCustomScanState *) node;

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
	ArgoCustomScanState *s = (ArgoCustomScanState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	Node	   *query = linitial(cs->custom_exprs);

	if (IsA(query, Const) && !((Const *) query)->constisnull)
		ExplainPropertyText("Argo Statement", TextDatumGetCString(((Const *) query)->constvalue), es);
	if (s->ran)
		ExplainPropertyText("Argo Plan", s->ran, es);
}

static Size
estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return sizeof(ArgoShare);
}

static void
initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	argo_share_init(coordinate);
	((ArgoCustomScanState *) node)->share = coordinate;
}

static void
reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	argo_share_init(coordinate);
}

static void
initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	((ArgoCustomScanState *) node)->share = coordinate;
}

/*
 * Workers a parallel read of every object of a statement's collection
 * would have, as add_shared_paths counts them; 0 when it is unknown.
 */
static int
read_workers(Datum stmt_text)
{
	Oid			dir = read_directory(stmt_text);
	double		pages;
	RelOptInfo	rel;

	if (!OidIsValid(dir))
		return 0;
	pages = read_pages(stmt_text, dir);
	/* compute_parallel_worker reads only these of a base relation */
	memset(&rel, 0, sizeof(rel));
	rel.type = T_RelOptInfo;
	rel.reloptkind = RELOPT_BASEREL;
	rel.rel_parallel_workers = -1;
	return compute_parallel_worker(&rel, pages, -1, max_parallel_workers_per_gather);
}

/*
 * Whether a plan node is the ArgoScan of a generic plan that, for the
 * statement its parameters give now, is better planned again: the
 * statement reads every object of a collection large enough for a
 * parallel plan, which a generic plan (made for no statement) cannot be.
 * query, options: what planning it again takes (exec/replan.c).
 */
bool
argo_plan_for_value(Plan *plan, ParamListInfo params, Query **query, int *options)
{
	CustomScan *cs = (CustomScan *) plan;
	Node	   *arg;
	Datum		stmt_text;

	if (!IsA(plan, CustomScan) || cs->methods != &scan_methods ||
		list_length(cs->custom_private) < 3 || lthird(cs->custom_private) == NULL)
		return false;
	arg = linitial(cs->custom_exprs);
	if (!argo_shareable_text(arg, params, true) || !argo_statement_text(arg, params, &stmt_text) ||
		read_workers(stmt_text) <= 0)
		return false;
	*query = lthird(cs->custom_private);
	*options = intVal(lsecond(cs->custom_private));
	return true;
}

/* The custom scan and the hook that offers it (init.c) */
void
argo_scan_init(void)
{
	RegisterCustomScanMethods(&scan_methods);
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = argo_pathlist;
}
