/*
 * init.c — what loading the library sets up: Argo's settings, the custom
 * scan and planner hooks that stream argo_query's results (scan.c),
 * the executor hook that plans a generic plan again for its statement
 * (replan.c), and the hint for a parameter that is not jsonb (hint.c).
 * Its own file so that neither of those two calls the other.
 */
#include "postgres.h"

#include "fmgr.h"

#include "fn/fn.h"

void		_PG_init(void);

void
_PG_init(void)
{
	/* before scan.c reserves the "argo." prefix */
	argo_expire_init();
	argo_scan_init();
	argo_replan_init();
	argo_hint_init();
}
