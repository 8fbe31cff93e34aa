/*
 * plancache.c — Argo's statements, prepared once per backend and reused.
 *
 * Every value reaches SQL as a parameter, so one shape of Argo query
 * always generates the same SQL text: the text (with its parameter types)
 * is the key.  PostgreSQL's plan cache revalidates a kept plan after DDL.
 * A generic plan (planned once, without the values) is allowed only for
 * equality lookups: for ranges, joins and aggregates the estimates without
 * values were measured to pick plans hundreds of times slower.  Writes by
 * object id (generic_plan) are always planned once: PostgreSQL would
 * otherwise keep re-planning them, their custom plans costing less on
 * paper (it knows how long the id arrays are).
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "executor/spi.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "common/plancache.h"
#include "common/sqlbuf.h"

/* Past this many statements the cache starts over. */
#define MAX_PLANS 512

typedef struct PlanEntry
{
	uint64		key;			/* hash of text, types and options */
	char	   *sql;			/* to tell hash collisions apart */
	int			options;
	SPIPlanPtr	plan;
} PlanEntry;

static HTAB *plans = NULL;

/*
 * Statements of ours executing now in this backend.  argo_object() runs
 * its SQL inside an enclosing Argo statement, so a full cache may not be
 * emptied then: SPI would go on reading the enclosing plan after it was
 * freed.  The cache grows past MAX_PLANS instead, by the few statements
 * one nested call prepares, and starts over at the next top-level one.
 */
static int	running = 0;

static void
reset_cache(void)
{
	HASH_SEQ_STATUS seq;
	PlanEntry  *e;

	if (plans == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(uint64);
		ctl.entrysize = sizeof(PlanEntry);
		ctl.hcxt = CacheMemoryContext;
		plans = hash_create("argo plans", 64, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		return;
	}
	hash_seq_init(&seq, plans);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		SPI_freeplan(e->plan);
		pfree(e->sql);
		hash_search(plans, &e->key, HASH_REMOVE, NULL);
	}
}

static uint64
plan_key(SqlBuf *buf, int options)
{
	uint64		h = hash_bytes_extended((const unsigned char *) buf->sql.data,
										buf->sql.len, options);

	return hash_bytes_extended((const unsigned char *) buf->types,
							   sizeof(Oid) * buf->nparams, h);
}

/* A kept plan for the statement in buf, prepared on first use. */
SPIPlanPtr
argo_prepare(SqlBuf *buf, int cursor_options)
{
	uint64		key;
	PlanEntry  *e;
	bool		found;
	SPIPlanPtr	plan;

	if (plans == NULL)
		reset_cache();
	if (buf->custom_plan)
		cursor_options |= CURSOR_OPT_CUSTOM_PLAN;
	else if (buf->generic_plan)
		cursor_options |= CURSOR_OPT_GENERIC_PLAN;
	key = plan_key(buf, cursor_options);
	e = hash_search(plans, &key, HASH_FIND, NULL);
	if (e != NULL && e->options == cursor_options &&
		strcmp(e->sql, buf->sql.data) == 0)
		return e->plan;

	plan = SPI_prepare_cursor(buf->sql.data, buf->nparams, buf->types,
							  cursor_options);
	if (plan == NULL)
		elog(ERROR, "could not prepare a statement: %s",
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "could not keep a prepared statement");
	if (e != NULL)				/* a collision: the newer statement wins */
	{
		/* the older one may be executing under us: then it is only dropped */
		if (running == 0)
			SPI_freeplan(e->plan);
		pfree(e->sql);
	}
	else if (hash_get_num_entries(plans) >= MAX_PLANS && running == 0)
		reset_cache();
	e = hash_search(plans, &key, HASH_ENTER, &found);
	e->sql = MemoryContextStrdup(CacheMemoryContext, buf->sql.data);
	e->options = cursor_options;
	e->plan = plan;
	return plan;
}

/* Open a cursor over the statement in buf. */
Portal
argo_open_cursor(SqlBuf *buf, bool read_only)
{
	return SPI_cursor_open(NULL, argo_prepare(buf, 0), buf->values,
						   buf->nulls, read_only);
}

/*
 * Run the statement in buf; returns SPI's result code.  A read-only
 * statement runs to completion at once, so it may be planned parallel.
 */
int
argo_run(SqlBuf *buf, bool read_only)
{
	SPIExecuteOptions opts;

	memset(&opts, 0, sizeof(opts));
	opts.read_only = read_only;
	return argo_run_with(buf, read_only ? CURSOR_OPT_PARALLEL_OK : 0, &opts);
}

/*
 * Run the statement in buf with SPI's options (a snapshot, a receiver);
 * buf's values become opts->params.
 */
int
argo_run_with(SqlBuf *buf, int cursor_options, SPIExecuteOptions *opts)
{
	SPIPlanPtr	plan = argo_prepare(buf, cursor_options);
	volatile int rc = 0;

	opts->params = argo_param_list(buf);
	running++;
	PG_TRY();
	{
		rc = SPI_execute_plan_extended(plan, opts);
	}
	PG_FINALLY();
	{
		running--;
	}
	PG_END_TRY();
	return rc;
}

/*
 * A value from this size on is not offered to a custom plan as a
 * constant: the plan would carry it, and a parallel plan is written out
 * as text for its workers byte by byte ("%d " each, and parsed back in
 * every worker): a join's two arrays of 100,000 ids cost more there than
 * the join.  Left a parameter, it goes to the workers as it is, and the
 * planner still estimates with it (unnest's rows, an ANY's selectivity).
 */
#define CONST_PARAM_MAX_BYTES 8192

/* buf's values as the parameters of a statement. */
ParamListInfo
argo_param_list(SqlBuf *buf)
{
	ParamListInfo params = makeParamList(buf->nparams);

	for (int i = 0; i < buf->nparams; i++)
	{
		bool		large;

		params->params[i].value = buf->values[i];
		params->params[i].isnull = buf->nulls[i] == 'n';
		large = !params->params[i].isnull && get_typlen(buf->types[i]) == -1 &&
			VARSIZE_ANY(DatumGetPointer(buf->values[i])) >= CONST_PARAM_MAX_BYTES;
		params->params[i].pflags = large ? 0 : PARAM_FLAG_CONST;
		params->params[i].ptype = buf->types[i];
	}
	return params;
}

/*
 * Run the statement in buf (a write) with the given snapshot; its AFTER
 * triggers fire at its end (the directory's, which keep kept documents
 * honest, read the statement's transition tables, which exist only
 * where triggers fire with the statement).
 */
int
argo_run_snapshot(SqlBuf *buf, Snapshot snap)
{
	SPIPlanPtr	plan = argo_prepare(buf, 0);
	volatile int rc = 0;

	running++;
	PG_TRY();
	{
		rc = SPI_execute_snapshot(plan, buf->values, buf->nulls, snap,
								  InvalidSnapshot, false, true, 0);
	}
	PG_FINALLY();
	{
		running--;
	}
	PG_END_TRY();
	return rc;
}

/*
 * For a function without a SET clause (argo_object, called once per
 * object, where the clause doubled its cost): the search_path the other
 * functions are declared with, until argo_unpin_search_path.  An error
 * unwinds it with the (sub)transaction.
 */
int
argo_pin_search_path(void)
{
	int			nest = NewGUCNestLevel();

	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
	return nest;
}

void
argo_unpin_search_path(int nest)
{
	AtEOXact_GUC(true, nest);
}

void
run_ddl(const char *sql)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != SPI_OK_UTILITY)
		elog(ERROR, "\"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

/* SPI_connect, which reports its own failures: one that returns is not expected. */
void
argo_spi_connect(void)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}
