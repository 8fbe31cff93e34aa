/*
 * aggregate.c — COUNT, SUM, AVG, MIN, MAX with optional GROUP BY.
 *
 * PostgreSQL computes them: each selected object — or, over a join, each
 * tuple of objects — contributes the typed value columns of the group
 * path and of each aggregated path (LEFT JOINs on the vertical tables of
 * the path's collection), grouped by the group path's typed columns, so 5
 * and "5" are different groups and objects without a scalar there form
 * one group.  Result rows become objects through the rebuilder, which
 * nests the group path as in the original documents (under its alias in
 * a join, as a join's projections are).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "exec/exec.h"

/* The object id a path reads in each row of "o": an object, or a tuple's part. */
static char *
objid_of(ArgoQuery *q, ArgoPath *path)
{
	if (list_length(q->stmt->from) == 1)
		return "o.objid";
	return psprintf("o.o%d", path->source);
}

static ArgoCollection *
coll_of_path(ArgoQuery *q, ArgoPath *path)
{
	return list_nth(q->colls, path->source);
}

/* The joins a target needs go into buf; its result columns into cols. */
static void
emit_target(SqlBuf *buf, StringInfo cols, ArgoQuery *q, ArgoTarget *t, int i)
{
	char	   *alias = psprintf("a%d", i);
	ArgoCollection *c;
	ValueCols	v;

	switch (t->agg)
	{
		case AAGG_NONE:
			return;				/* the group path: already selected */
		case AAGG_COUNT_STAR:
			appendStringInfoString(cols, ", pg_catalog.count(*)");
			return;
		case AAGG_COUNT:
			/* objects having the path at all: null, {} and [] count */
			c = coll_of_path(q, t->path);
			appendStringInfoString(&buf->sql, " LEFT JOIN (SELECT DISTINCT objid FROM ");
			sql_rows_of_table(buf, c);
			appendStringInfoString(&buf->sql, " r WHERE ");
			sql_subtree_match(buf, c, "keyid", t->path->keystr);
			appendStringInfo(&buf->sql, ") %s ON %s.objid OPERATOR(pg_catalog.=) %s", alias, alias,
							 objid_of(q, t->path));
			appendStringInfo(cols, ", pg_catalog.count(%s.objid)", alias);
			return;
		default:
			break;
	}
	v = sql_value_join(buf, coll_of_path(q, t->path), objid_of(q, t->path),
					   t->path->keystr, alias);
	if (t->agg == AAGG_SUM)
		appendStringInfo(cols, ", pg_catalog.sum(%s)", v.num);
	else if (t->agg == AAGG_AVG)
		appendStringInfo(cols, ", pg_catalog.avg(%s)", v.num);
	else if (t->agg == AAGG_MIN)
		appendStringInfo(cols, ", pg_catalog.min(%s), pg_catalog.min(%s), pg_catalog.bool_and(%s)",
						 v.num, v.str, v.boolean);
	else
		appendStringInfo(cols, ", pg_catalog.max(%s), pg_catalog.max(%s), pg_catalog.bool_or(%s)",
						 v.num, v.str, v.boolean);
}

/*
 * FROM the selected objects (o.objid), or FROM the join's tuples (o.o0,
 * o.o1, …): the tuples are counted, not distinct objects, as SQL's
 * aggregates over a join count rows.
 */
static SqlBuf *
aggregate_source(ArgoQuery *q)
{
	SqlBuf	   *buf;

	if (list_length(q->stmt->from) > 1)
	{
		buf = sqlgen_join_tuples(q);
		appendStringInfoString(&buf->sql, "SELECT @COLS@ FROM j o");
		return buf;
	}
	buf = sqlbuf_create();
	appendStringInfoString(&buf->sql, "SELECT @COLS@ FROM (");
	sql_base_objids(buf, linitial(q->colls), q->stmt->where);
	appendStringInfoString(&buf->sql, ") o");
	return buf;
}

SqlBuf *
sqlgen_aggregate(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	SqlBuf	   *buf = sqlgen_aggregate_direct(q);
	StringInfoData cols;
	ValueCols	g = {"NULL::pg_catalog.float8", "NULL::pg_catalog.text", "NULL::boolean"};
	ListCell   *lc;

	if (buf != NULL)
		return buf;
	buf = aggregate_source(q);
	buf->custom_plan = true;
	if (s->group_by)
		g = sql_value_join(buf, coll_of_path(q, s->group_by), objid_of(q, s->group_by),
						   s->group_by->keystr, "g");
	initStringInfo(&cols);
	appendStringInfo(&cols, "%s, %s, %s", g.num, g.str, g.boolean);
	foreach(lc, s->targets)
		emit_target(buf, &cols, q, lfirst(lc), foreach_current_index(lc));
	if (s->group_by)
		appendStringInfo(&buf->sql, " GROUP BY %s, %s, %s", g.num, g.str, g.boolean);
	if (s->order_by)
	{
		appendStringInfoString(&buf->sql, " ORDER BY ");
		sql_order_keys(&buf->sql, &g, ((ArgoOrder *) linitial(s->order_by))->desc);
	}
	sql_limit_offset(buf, s);
	sqlbuf_replace(buf, "@COLS@", cols.data);
	return buf;
}

/*
 * Where the group value goes in a result: its path, under the alias of
 * its collection in a join.
 */
static char *
group_key(ArgoQuery *q)
{
	ArgoPath   *g = q->stmt->group_by;
	ArgoSource *src;
	const char *alias;
	StringInfoData key;

	if (list_length(q->stmt->from) == 1)
		return g->keystr;
	src = list_nth(q->stmt->from, g->source);
	alias = src->alias ? src->alias : src->coll;
	initStringInfo(&key);
	keypath_append_key(&key, alias, strlen(alias), true);
	appendStringInfo(&key, ".%s", g->keystr);
	return key.data;
}

/* Feed one value (column col of the result row) to the rebuilder. */
static void
add_value(Rebuilder *rb, int64 id, const char *keystr, HeapTuple tup,
		  TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);
	Oid			type = SPI_gettypeid(desc, col);

	if (isnull)
		rebuilder_add_keystr_row(rb, id, keystr, NULL, true, 0, true, false);
	else if (type == TEXTOID)
		rebuilder_add_keystr_row(rb, id, keystr, DatumGetTextPP(d), true, 0, true, false);
	else if (type == BOOLOID)
		rebuilder_add_keystr_row(rb, id, keystr, NULL, true, 0, false, DatumGetBool(d));
	else if (type == INT8OID)
		rebuilder_add_keystr_row(rb, id, keystr, NULL, false, (double) DatumGetInt64(d),
								 true, false);
	else if (type == FLOAT8OID)
		rebuilder_add_keystr_row(rb, id, keystr, NULL, false, DatumGetFloat8(d), true, false);
	else
		elog(ERROR, "argo: aggregate column of unexpected type %u", type);
}

/* First non-null of three columns, in the given order of preference. */
static int
first_present(HeapTuple tup, TupleDesc desc, int a, int b, int c)
{
	int			order[3] = {a, b, c};

	for (int i = 0; i < 3; i++)
	{
		bool		isnull;

		(void) SPI_getbinval(tup, desc, order[i], &isnull);
		if (!isnull)
			return order[i];
	}
	return a;
}

/* One result row: the group value, then each aggregate under its name. */
static void
rebuild_group(Rebuilder *rb, int64 id, ArgoStmt *s, const char *group_key,
			  HeapTuple tup, TupleDesc desc)
{
	int			col = 4;
	ListCell   *lc;

	if (s->group_by)
	{
		int			g = first_present(tup, desc, 1, 2, 3);
		bool		isnull;

		(void) SPI_getbinval(tup, desc, g, &isnull);
		if (!isnull)
			add_value(rb, id, group_key, tup, desc, g);
	}
	foreach(lc, s->targets)
	{
		ArgoTarget *t = lfirst(lc);
		StringInfoData key;

		if (t->agg == AAGG_NONE)
			continue;
		initStringInfo(&key);
		keypath_append_key(&key, t->alias, strlen(t->alias), true);
		if (t->agg == AAGG_MIN)
			add_value(rb, id, key.data, tup, desc, first_present(tup, desc, col, col + 1, col + 2));
		else if (t->agg == AAGG_MAX)
			add_value(rb, id, key.data, tup, desc, first_present(tup, desc, col + 2, col + 1, col));
		else
			add_value(rb, id, key.data, tup, desc, col);
		col += (t->agg == AAGG_MIN || t->agg == AAGG_MAX) ? 3 : 1;
	}
	/* even an empty result object is one group's answer */
	rebuilder_add_object(rb, id);
}

void
run_aggregate(ArgoQuery *q, rebuild_emit emit, void *arg)
{
	SqlBuf	   *buf = sqlgen_aggregate(q);
	Rebuilder  *rb = rebuilder_create(NULL, emit, arg);
	SPITupleTable *tt;
	uint64		n;
	int			rc;

	rc = argo_run(buf, true);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "argo: aggregate query failed: %s", SPI_result_code_string(rc));
	tt = SPI_tuptable;
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
		rebuild_group(rb, (int64) i, q->stmt, q->stmt->group_by ? group_key(q) : NULL,
					  tt->vals[i], tt->tupdesc);
	rebuilder_finish(rb);
}
