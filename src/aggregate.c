/*
 * aggregate.c — COUNT, SUM, AVG, MIN, MAX with optional GROUP BY.
 *
 * PostgreSQL computes them: each selected object contributes the typed
 * value columns of the group path and of each aggregated path (LEFT JOINs
 * on the vertical tables), grouped by the group path's typed columns, so 5
 * and "5" are different groups and objects without a scalar there form
 * one group.  Result rows become objects through the rebuilder, which
 * nests the group path as in the original documents.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "argo.h"

/* The joins a target needs go into buf; its result columns into cols. */
static void
emit_target(SqlBuf *buf, StringInfo cols, ArgoCollection *c, ArgoTarget *t,
			int i)
{
	char	   *alias = psprintf("a%d", i);
	ValueCols	v;

	switch (t->agg)
	{
		case AAGG_NONE:
			return;				/* the group path: already selected */
		case AAGG_COUNT_STAR:
			appendStringInfoString(cols, ", count(*)");
			return;
		case AAGG_COUNT:
			/* objects having the path at all: null, {} and [] count */
			appendStringInfoString(&buf->sql, " LEFT JOIN (SELECT DISTINCT objid FROM ");
			sql_rows_of_table(buf, c);
			appendStringInfoString(&buf->sql, " r WHERE ");
			sql_subtree_match(buf, c, "keyid", t->path->keystr);
			appendStringInfo(&buf->sql, ") %s ON %s.objid = o.objid", alias, alias);
			appendStringInfo(cols, ", count(%s.objid)", alias);
			return;
		default:
			break;
	}
	v = sql_value_join(buf, c, "o.objid", t->path->keystr, alias);
	if (t->agg == AAGG_SUM)
		appendStringInfo(cols, ", sum(%s)", v.num);
	else if (t->agg == AAGG_AVG)
		appendStringInfo(cols, ", avg(%s)", v.num);
	else if (t->agg == AAGG_MIN)
		appendStringInfo(cols, ", min(%s), min(%s), bool_and(%s)",
						 v.num, v.str, v.boolean);
	else
		appendStringInfo(cols, ", max(%s), max(%s), bool_or(%s)",
						 v.num, v.str, v.boolean);
}

SqlBuf *
sqlgen_aggregate(ArgoQuery *q)
{
	ArgoStmt   *s = q->stmt;
	ArgoCollection *c = linitial(q->colls);
	SqlBuf	   *buf = sqlbuf_create();
	StringInfoData cols;
	ValueCols	g = {"NULL::float8", "NULL::text", "NULL::boolean"};
	ListCell   *lc;

	buf->custom_plan = true;
	appendStringInfoString(&buf->sql, "SELECT @COLS@ FROM (");
	sql_base_objids(buf, c, s->where);
	appendStringInfoString(&buf->sql, ") o");
	if (s->group_by)
		g = sql_value_join(buf, c, "o.objid", s->group_by->keystr, "g");
	initStringInfo(&cols);
	appendStringInfo(&cols, "%s, %s, %s", g.num, g.str, g.boolean);
	foreach(lc, s->targets)
		emit_target(buf, &cols, c, lfirst(lc), foreach_current_index(lc));
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
	else
		rebuilder_add_keystr_row(rb, id, keystr, NULL, false, DatumGetFloat8(d), true, false);
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
rebuild_group(Rebuilder *rb, int64 id, ArgoStmt *s, HeapTuple tup,
			  TupleDesc desc)
{
	int			col = 4;
	ListCell   *lc;

	if (s->group_by)
	{
		int			g = first_present(tup, desc, 1, 2, 3);
		bool		isnull;

		(void) SPI_getbinval(tup, desc, g, &isnull);
		if (!isnull)
			add_value(rb, id, s->group_by->keystr, tup, desc, g);
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
		rebuild_group(rb, (int64) i, q->stmt, tt->vals[i], tt->tupdesc);
	rebuilder_finish(rb);
}
