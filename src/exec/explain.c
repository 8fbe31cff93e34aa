/*
 * explain.c — argo_explain: the strategy argo_plan chose for a statement,
 * the SQL it runs with its parameters, and PostgreSQL's plan of each,
 * told as execute.c would run it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/objfetch.h"
#include "store/objwrite.h"
#include "store/shard/shard.h"
#include "parse/analyze.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "sql/writesql.h"
#include "exec/aggregate.h"
#include "exec/execute.h"
#include "exec/join.h"
#include "exec/lookup.h"
#include "exec/plan.h"
#include "exec/shard/shardrun.h"
#include "exec/stream.h"
#include "exec/update.h"

/* Append a copy of line, made in the caller's (non-SPI) context. */
static List *
add_line(List *out, MemoryContext cxt, const char *line)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);

	out = lappend(out, pstrdup(line));
	MemoryContextSwitchTo(old);
	return out;
}

static List *
describe_params(List *out, MemoryContext cxt, SqlBuf *buf)
{
	for (int i = 0; i < buf->nparams; i++)
	{
		Oid			typout;
		bool		varlena;

		getTypeOutputInfo(buf->types[i], &typout, &varlena);
		out = add_line(out, cxt,
					   psprintf("-- $%d = %s%s%s%s", i + 1,
								buf->nulls[i] == 'n' ? "NULL" :
								OidOutputFunctionCall(typout, buf->values[i]),
								buf->notes[i] ? " (" : "",
								buf->notes[i] ? buf->notes[i] : "",
								buf->notes[i] ? ")" : ""));
	}
	return out;
}

/* What an UPSERT does when it finds nothing, and what a RETURNING gives. */
static void
explain_write_end(ArgoPlan *p, List **out, MemoryContext cxt)
{
	ArgoReturning r = p->q->stmt->returning;

	if (p->strategy == ARGO_PLAN_UPSERT)
		*out = add_line(*out, cxt, "-- none found: the object the equalities describe is inserted, under an advisory lock on them");
	if (r == ARET_OBJECTS)
		*out = add_line(*out, cxt, psprintf("%s%s%s%s",
											p->strategy == ARGO_PLAN_DELETE ?
											"-- RETURNING *: each object rebuilt from its rows before they are deleted, in id order" :
											"-- RETURNING *: each object rebuilt as written, in id order",
											p->q->stmt->returning_id ? ", its id added under \"" : "",
											p->q->stmt->returning_id ? p->q->stmt->returning_id : "",
											p->q->stmt->returning_id ? "\"" : ""));
	else if (r == ARET_IDS)
		*out = add_line(*out, cxt, "-- RETURNING ID: the ids of the objects written, in id order");
}

/*
 * A write of a plain local collection: locked and written from C; the
 * only SQL is what finds the objects, unless a point write finds them
 * from C.
 */
static SqlBuf *
explain_write_from_c(ArgoPlan *p, List **out, MemoryContext cxt, const char *point)
{
	ArgoStmt   *s = p->q->stmt;
	SqlBuf	   *buf = NULL;
	int			n;

	/* what the write would check first: EXPLAIN of a DELETE is 42501 too */
	objwriter_check_privileges(linitial(p->q->colls),
							   p->strategy == ARGO_PLAN_DELETE ? ACL_DELETE : ACL_UPDATE);
	if (point && p->point->kind == APRED_ID)
		*out = add_line(*out, cxt, "-- the object found from C through the object directory, by id, as it is locked");
	else if (point && lookup_ids(linitial(p->q->colls), p->point, GetActiveSnapshot(), &n) != NULL)
		*out = add_line(*out, cxt, psprintf("-- the objects (%d now) found from C through %s", n, point));
	else
	{
		*out = add_line(*out, cxt, "-- the objects found by the SQL below");
		buf = writesql_ordered_ids(linitial(p->q->colls), s->where);
	}
	*out = add_line(*out, cxt, p->strategy == ARGO_PLAN_DELETE ?
					"-- each locked from C in id order (its directory row, FOR UPDATE); its rows, found by its map (else its objid index probes), deleted by tid, then its directory row" :
					"-- each locked from C in id order (its directory row, FOR UPDATE), read again by its map, changed; only its changed rows deleted (by tid) and inserted, and its directory row rewritten with its new map");
	explain_write_end(p, out, cxt);
	return buf;
}

/* What the strategy does, in a line or two, and the SQL it runs (or NULL). */
static SqlBuf *
explain_strategy(ArgoPlan *p, List **out, MemoryContext cxt)
{
	ArgoQuery  *q = p->q;
	ArgoStmt   *s = q->stmt;
	ArgoQuery	whole = *q;
	ArgoStmt	star = *s;
	int			n;
	const char *point = p->point == NULL ? NULL :
		p->point->kind == APRED_ID ? "the object directory, by id" :
		psprintf("the (keyid, value) index, for %s", quote_literal_cstr(p->point->path->keystr));

	*out = add_line(*out, cxt, psprintf("-- strategy: %s", argo_plan_name(p)));
	*out = add_line(*out, cxt, select_streams(p) ?
					"-- in FROM argo_query(...): results stream, made as the caller takes them (any SQL run a few rows at a time, never parallel)" :
					"-- in FROM argo_query(...): results made whole before the first is taken");
	switch (p->strategy)
	{
		case ARGO_PLAN_AGGREGATE:
			*out = add_line(*out, cxt, sqlgen_aggregate_direct(q) ?
							"-- the aggregates read off the value rows alone; no object is rebuilt" :
							"-- the aggregates computed by SQL over the selected objects; no object is rebuilt");
			return aggsql_build(q);
		case ARGO_PLAN_JOIN_FETCH:
			if (lookup_join_applies(q))
				*out = add_line(*out, cxt, "-- the pairs found from C: the left objects through the WHERE's index, each one's value at the ON path looked up in the right collection's (keyid, value) index; where a lookup declines or the pairs pass work_mem, the SQL below");
			*out = add_line(*out, cxt, "-- tuples' object ids in output order; each part's rows are then read where its directory row's map says (else by objid index probes)");
			if (!s->star)
				*out = add_line(*out, cxt,
								psprintf("-- or, if the join gives " INT64_FORMAT " tuples or more (a tenth of its largest collection), set-wise: the tuples' ids as arrays joined with the projected keys' rows",
										 joinset_threshold(q)));
			return joinsql_ids(q);
		case ARGO_PLAN_JOIN_SQL:
			*out = add_line(*out, cxt, "-- every part's rows read through SQL (row-level security, or a table that is not a plain heap table)");
			return joinsql_build(q);
		case ARGO_PLAN_SELECT_IDS:
			star.star = true;
			whole.stmt = &star;
			*out = add_line(*out, cxt, "-- the selected objects' ids, in output order; nothing is rebuilt");
			return sqlgen_select_ids(&whole);
		case ARGO_PLAN_ALL_OBJECTS:
			*out = add_line(*out, cxt, "-- argo_object() rebuilds each directory row's object where its map says its rows are (else reading the objid indexes forward beside the directory); PostgreSQL may share the directory out among parallel workers");
			return sqlgen_all_objects(q);
		case ARGO_PLAN_PROJECTION_DOCS:
			*out = add_line(*out, cxt, "-- two projected keys or more, in a quarter of the objects or more (their index entries counted up to that): each object's kept document, cut down to the projection's paths in C (argo_object() rebuilds an object that has none); in a query PostgreSQL plans in parallel, its processes share the documents' pages out, as for every object");
			return sqlgen_all_objects(q);
		case ARGO_PLAN_PROJECTION:
			*out = add_line(*out, cxt, "-- each table's rows of the projected keys read in heap order and merged by object id; where a table is found out of object order, the SQL below sorts them instead");
			return sqlgen_select_rows(q);
		case ARGO_PLAN_ROWS_SQL:
			*out = add_line(*out, cxt, "-- the objects' rows read through SQL (row-level security, or a table that is not a plain heap table)");
			return sqlgen_select_rows(q);
		case ARGO_PLAN_BATCHES:
			*out = add_line(*out, cxt, psprintf("-- object ids in output order (below); their rows then read %d objects at a time, one statement (WHERE objid = ANY) per batch, which postgres_fdw sends whole to each shard",
												ARGO_FETCH_ROWS));
			return sqlgen_select_ids(q);
		case ARGO_PLAN_LOOKUP:
			*out = add_line(*out, cxt, p->unchecked ?
							psprintf("-- the object found from C through %s (if there), its rows read where its directory row's map says (else by objid index probes); no SQL runs",
									 point) :
							psprintf("-- %d object(s) found from C through %s, their rows read where their directory rows' maps say (else by objid index probes)%s",
									 p->nids, point,
									 s->order_by && !lookup_orders_in_c(q) ? "; SQL only orders them:" :
									 s->order_by ? "; each read once for its ORDER BY values and put in order in C, then read again in that order; no SQL runs" :
									 s->limit || s->offset ? "; OFFSET and LIMIT applied to them in id order; no SQL runs" : "; no SQL runs"));
			return s->order_by && !lookup_orders_in_c(q) ? sqlgen_order_ids(q, p->ids, p->nids) : NULL;
		case ARGO_PLAN_FETCH:
			*out = add_line(*out, cxt, objfetch_streams(p->fetch) ?
							"-- object ids in id order; each object's rows are then read where its directory row's map says, the directory (and, for objects without a map, the objid indexes) read forward beside them, descending again only where the ids jump (objid index stream)" :
							"-- object ids in output order; each object's rows are then read where its directory row's map says (else by objid index probes)");
			return sqlgen_select_ids(q);
		case ARGO_PLAN_DELETE:
		case ARGO_PLAN_UPDATE:
		case ARGO_PLAN_UPSERT:
			if (objwriter_possible(linitial(q->colls)))
				return explain_write_from_c(p, out, cxt, point);
			if (point && lookup_ids(linitial(q->colls), p->point, GetActiveSnapshot(), &n) != NULL)
				*out = add_line(*out, cxt, psprintf("-- the objects (%d now) found from C through %s; the SQL below locks them by id", n, point));
			*out = add_line(*out, cxt, p->strategy == ARGO_PLAN_DELETE ?
							"-- the objects to delete, locked in id order (their directory rows); then their rows are deleted by object id" :
							"-- the objects to change, locked in id order (their directory rows); each is then read again, changed, and only its changed rows deleted and inserted");
			explain_write_end(p, out, cxt);
			return objlock_sql(linitial(q->colls), s->where, p->point,
							   p->strategy != ARGO_PLAN_DELETE);
		case ARGO_PLAN_SHARD_READ:
		case ARGO_PLAN_SHARD_AGGREGATE:
		case ARGO_PLAN_SHARD_JOIN:
		case ARGO_PLAN_SHARD_WRITE:
			{
				List	   *lines = p->strategy == ARGO_PLAN_SHARD_WRITE ? shardwrite_explain(q) :
					p->strategy == ARGO_PLAN_SHARD_JOIN ? shardjoin_explain(q) : shardread_explain(q);
				ListCell   *lc;

				if (lines == NIL)
				{
					*out = add_line(*out, cxt, "-- a shard cannot run it (another version of Argo, or its copy of the dictionary is behind: argo_repair copies it): the shards' tables are read through their foreign tables");
					if (s->kind == ASTMT_SELECT)
						argo_plan_local_select(p);
					else
						argo_plan_local_write(p);
					return explain_strategy(p, out, cxt);
				}
				foreach(lc, lines)
					*out = add_line(*out, cxt, lfirst(lc));
				return NULL;
			}
		case ARGO_PLAN_INSERT:
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("argo_explain explains SELECT, UPDATE and DELETE statements"),
			 errhint("An INSERT runs no query: it writes the objects' rows.")));
	return NULL;
}

/*
 * PostgreSQL's plan for buf as it will be planned: a statement that
 * streams runs as a cursor (common/rowcursor.c), never parallel, and for
 * its first rows where it asks (fast_start), as DECLARE … CURSOR plans.
 */
static int
explain_as_run(SqlBuf *buf, bool streams, bool verbose)
{
	int			nest = -1;
	int			rc;

	if (streams && !buf->fast_start)
	{
		nest = NewGUCNestLevel();
		(void) set_config_option("max_parallel_workers_per_gather", "0", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	}
	rc = SPI_execute_with_args(psprintf("EXPLAIN %s%s%s", verbose ? "(VERBOSE) " : "",
										streams && buf->fast_start ?
										"DECLARE argo_explain NO SCROLL CURSOR FOR " : "",
										buf->sql.data),
							   buf->nparams, buf->types, buf->values,
							   buf->nulls, false, 0);
	if (nest >= 0)
		AtEOXact_GUC(true, nest);
	return rc;
}

/* The SQL a statement runs, its parameters, and PostgreSQL's plan for it. */
List *
argo_explain_query(const char *query, Jsonb **params, int nparams)
{
	ArgoStmt   *stmt = argo_parse(query);
	ArgoPlan   *p;
	SqlBuf	   *buf;
	List	   *out = NIL;
	MemoryContext cxt = CurrentMemoryContext;
	ListCell   *lc;
	bool		streams;
	bool		verbose;
	int			rc;

	argo_spi_connect();
	p = argo_plan(argo_analyze(stmt, query, params, nparams));
	for (int i = 0; i < nparams; i++)
		out = add_line(out, cxt, psprintf("-- your $%d = %s", i + 1,
										  JsonbToCString(NULL, &params[i]->root, VARSIZE(params[i]))));
	buf = explain_strategy(p, &out, cxt);
	/* as FROM argo_query(…) runs it, which the lines above describe */
	streams = select_streams(p);
	verbose = joins_distributed(p->q);
	argo_plan_close(p);
	if (buf == NULL)
	{
		SPI_finish();
		return out;
	}
	foreach(lc, sql_pretty_lines(buf->sql.data))
		out = add_line(out, cxt, lfirst(lc));
	out = describe_params(out, cxt, buf);
	/* VERBOSE for shards: each foreign scan then shows the SQL its server runs */
	rc = explain_as_run(buf, streams, verbose);
	if (rc != SPI_OK_UTILITY && rc != SPI_OK_SELECT)
		elog(ERROR, "EXPLAIN failed: %s", SPI_result_code_string(rc));
	for (uint64 i = 0; i < SPI_processed; i++)
		out = add_line(out, cxt, SPI_getvalue(SPI_tuptable->vals[i],
											  SPI_tuptable->tupdesc, 1));
	SPI_finish();
	return out;
}

/*
 * What an error of a statement or load can say that its raiser did not
 * know: which shard does not answer, which unique key a value breaks.
 */
void
argo_explain_failure(ErrorData *e)
{
	shards_explain_failure(e);
	unique_explain_violation(e);
}
