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
#include "utils/memutils.h"

#include "argo.h"

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
		elog(ERROR, "argo: could not prepare a statement: %s",
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "argo: could not keep a prepared statement");
	if (e != NULL)				/* a collision: the newer statement wins */
	{
		SPI_freeplan(e->plan);
		pfree(e->sql);
	}
	else if (hash_get_num_entries(plans) >= MAX_PLANS)
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
	return SPI_execute_plan(argo_prepare(buf, read_only ? CURSOR_OPT_PARALLEL_OK : 0),
							buf->values, buf->nulls, read_only, 0);
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
