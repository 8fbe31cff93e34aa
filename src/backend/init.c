/*
 * init.c — what loading the library sets up: Argo's settings, the custom
 * scan that streams argo_query's results (customscan.c) and the planner hook
 * that lets it read in parallel (planner.c), the executor hook that
 * plans a generic plan again for its statement (replan.c), the hint for a
 * parameter that is not jsonb (hint.c) and the expiry worker
 * (expireworker.c).  Its own file so that none of those calls another.
 */
#include "postgres.h"

#include "fmgr.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"

#include "store/access.h"
#include "store/docs.h"
#include "fn/fn.h"
#include "backend/hooks.h"

void		_PG_init(void);

static void
define_settings(void)
{
	DefineCustomBoolVariable("argo.stream_results",
							 "Plans FROM argo_query(...) as a scan whose results stream.",
							 "Off: a FunctionScan, which makes the whole result before the first row.",
							 &argo_stream_results, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("argo.keep_documents",
							 "Collections made from now on keep each object's jsonb beside its rows.",
							 "Whole-object reads take it instead of rebuilding the object; argo_keep_documents changes a collection made already.",
							 &argo_keep_documents_default, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("argo.analyze_after_load",
							 "A load that grows a collection by a tenth or more analyses its tables.",
							 "Off: the planner keeps the statistics it had until ANALYZE or autovacuum runs.",
							 &argo_analyze_after_load, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("argo.prefetch_pages",
							"Pages Argo asks for ahead of the one it reads.",
							"Kept documents and value rows a lookup reads, and the effective_io_concurrency of the SQL Argo runs; 0: none.",
							&argo_prefetch_pages, 64, 0, MAX_IO_CONCURRENCY, PGC_USERSET, 0,
							NULL, NULL, NULL);
}

void
_PG_init(void)
{
	define_settings();
	/* argo.expire_naptime, which a postmaster's preload must define */
	argo_expire_init();
	MarkGUCPrefixReserved("argo");
	argo_scan_init();
	argo_planner_init();
	argo_replan_init();
	argo_hint_init();
}
