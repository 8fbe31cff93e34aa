/*
 * settings.c — argo_query's SET clauses, applied to the work its scan
 * does as calling the function would apply them.
 *
 * The extension declares argo_query with search_path = pg_catalog,
 * pg_temp and jit = off.  Applied as PostgreSQL applies a function's
 * clauses — a GUC nest level, each setting parsed and set, and undone by
 * visiting every setting PostgreSQL has — they cost a point read about
 * 4% of its backend's time, and the caller's search path is worked out
 * again from its text by the next statement (2% more).  For exactly
 * those clauses the same effect is had directly: the path pinned by an
 * override (pg_catalog alone: Argo's SQL names even its own tables by
 * schema, and never a temporary one) and the planner's JIT switch held
 * off, both put back when the work ends or fails.  Any other clauses (an
 * administrator's ALTER FUNCTION … SET) are applied through GUC.
 *
 * Every Argo function's statement also runs with argo.prefetch_pages as
 * its SQL's effective_io_concurrency (argo_run_statement).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "jit/jit.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "store/access.h"
#include "exec/execute.h"
#include "fn/fn.h"

/* Whether config is the extension's own clauses, and nothing else. */
static bool
declared_clauses(ArrayType *config)
{
	Datum	   *items;
	bool	   *nulls;
	int			n;
	bool		path = false,
				jit = false;

	deconstruct_array(config, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		char	   *s = nulls[i] ? "" : TextDatumGetCString(items[i]);

		if (strcmp(s, "search_path=pg_catalog, pg_temp") == 0)
			path = true;
		else if (strcmp(s, "jit=off") == 0)
			jit = true;
		else
			return false;
	}
	return n == 2 && path && jit;
}

/*
 * The clauses of the functions whose calls become custom scans
 * (argo_query, argo_query_read), kept per backend until their catalog
 * row changes (ALTER FUNCTION … SET, an upgrade): reading and comparing
 * them was 0.9% of a point read.  A kept array is never freed (a scan
 * begun before the change may hold it): a few hundred bytes a change.
 */
#define KNOWN_FUNCTIONS 4

typedef struct KnownSettings
{
	Oid			funcid;			/* InvalidOid: to be read again */
	uint32		hash;			/* of funcid's catalog row */
	ArgoSettings s;
} KnownSettings;

static KnownSettings known[KNOWN_FUNCTIONS];
static int	known_next = 0;

static void
forget_settings(Datum arg, int cacheid, uint32 hashvalue)
{
	for (int i = 0; i < KNOWN_FUNCTIONS; i++)
		if (hashvalue == 0 || hashvalue == known[i].hash)
			known[i].funcid = InvalidOid;
}

/* The function's SET clauses, read as the call would read them. */
static void
read_settings(Oid funcid, ArgoSettings *s)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	bool		isnull;
	Datum		d;
	MemoryContext old;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", funcid);
	d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_proconfig, &isnull);
	s->config = NULL;
	s->declared = false;
	if (!isnull)
	{
		old = MemoryContextSwitchTo(TopMemoryContext);
		s->config = DatumGetArrayTypePCopy(d);
		MemoryContextSwitchTo(old);
		s->declared = declared_clauses(s->config);
	}
	ReleaseSysCache(tup);
}

/* funcid's SET clauses, in the caller's memory (their array the backend's). */
ArgoSettings *
argo_settings_of(Oid funcid)
{
	static bool registered = false;
	ArgoSettings *s = palloc(sizeof(ArgoSettings));
	KnownSettings *k = NULL;

	if (!registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, forget_settings, (Datum) 0);
		registered = true;
	}
	for (int i = 0; i < KNOWN_FUNCTIONS && k == NULL; i++)
		if (known[i].funcid == funcid)
			k = &known[i];
	if (k == NULL)
	{
		k = &known[known_next];
		known_next = (known_next + 1) % KNOWN_FUNCTIONS;
		k->funcid = InvalidOid;
		read_settings(funcid, &k->s);
		k->hash = GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(funcid));
		k->funcid = funcid;
	}
	*s = k->s;
	return s;
}

/* fn(arg) under the settings: the declared ones directly, others by GUC. */
void
argo_with_settings(ArgoSettings *s, void (*fn) (void *), void *arg)
{
	OverrideSearchPath path = {NIL, true, false};
	bool		jit = jit_enabled;
	int			nest;

	if (s->config == NULL)
	{
		fn(arg);
		return;
	}
	if (!s->declared)
	{
		nest = NewGUCNestLevel();
		ProcessGUCArray(s->config, superuser() ? PGC_SUSET : PGC_USERSET,
						PGC_S_SESSION, GUC_ACTION_SAVE);
		fn(arg);
		AtEOXact_GUC(true, nest);
		return;
	}
	PushOverrideSearchPath(&path);
	jit_enabled = false;
	PG_TRY();
	{
		fn(arg);
	}
	PG_FINALLY();
	{
		jit_enabled = jit;
		PopOverrideSearchPath();
	}
	PG_END_TRY();
}

/*
 * fn(arg), an Argo function's statement: its errors' quoted SQL bounded,
 * its SQL's bitmap scans asking for argo.prefetch_pages pages ahead
 * (PostgreSQL's default of one leaves a selective read on first touch
 * waiting for each page in turn: NoBench's Q3 at 1M, kernel cache
 * dropped, 1.0-1.5 s against 0.27-0.33 s with 64), put back after.
 */
void
argo_run_statement(void (*fn) (void *), void *arg)
{
	int			io = effective_io_concurrency;

	effective_io_concurrency = argo_prefetch_pages;
	PG_TRY();
	{
		argo_with_bounded_errors(fn, arg, argo_explain_failure);
	}
	PG_FINALLY();
	{
		effective_io_concurrency = io;
	}
	PG_END_TRY();
}
