/*
 * check.c — argo_check(collection): what is wrong with a collection's
 * rows, in the spirit of amcheck.  A healthy collection gives no row.
 *
 * Argo's writes keep these invariants; a role that may write the tables
 * directly, a policy that filtered some rows of a write, or a bug could
 * break them: every value row belongs to an object of the directory and
 * to a key of the dictionary, an object has at most one row per key, and
 * the format's own rules hold (a key marking an empty object or array
 * holds no value; an Argo/1 row holds at most one value), and an
 * object's map says where exactly its rows are (or it has none), and a
 * kept document is exactly what its rows rebuild (or there is none).
 * First of all, the value tables have every index Argo made for them.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "common/common.h"
#include "common/errors.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "store/rowmap.h"
#include "store/shard/shard.h"
#include "exec/stream.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_check);

/* What each check looks for, in the order check_queries gives them. */
static const char *const check_names[] = {
	"Argo's indexes", "rows of no object", "rows of unknown keys", "two rows for one key",
	"values at empty-container markers", "rows holding two values",
	"malformed key ids", "exact number texts", "row maps", "kept documents"
};

#define NCHECKS lengthof(check_names)

static bool run_check(const char *sql, ObjSample *sample, ReturnSetInfo *rsinfo, const char *name);

/*
 * Each query yields one text per problem found, among the rows that
 * pass filter (on objid: every row, or those of sampled objects, $1).
 */
static List *
check_queries(ArgoCollection *c, const char *filter)
{
	StringInfoData rows;
	List	   *q = NIL;

	initStringInfo(&rows);
	if (c->format == ARGO_FORMAT_ARGO1)
		appendStringInfo(&rows, "SELECT objid, keyid, pg_catalog.num_nonnulls(valstr, valnum, valbool) AS nvals, "
						 "valstr IS NOT NULL OR valnum IS NOT NULL OR valbool IS NOT NULL AS hasval FROM %s WHERE %s",
						 c->data_table, filter);
	else
		appendStringInfo(&rows, "SELECT objid, keyid, 1 AS nvals, true AS hasval FROM %s WHERE %s"
						 " UNION ALL SELECT objid, keyid, 1, true FROM %s WHERE %s"
						 " UNION ALL SELECT objid, keyid, pg_catalog.num_nonnulls(valbool), valbool IS NOT NULL FROM %s WHERE %s",
						 c->str_table, filter, c->num_table, filter, c->bool_table, filter);
	q = lappend(q, psprintf("SELECT pg_catalog.format('object %%s has a row but no directory row', r.objid)"
							" FROM (%s) r WHERE NOT EXISTS (SELECT FROM %s o WHERE o.objid OPERATOR(pg_catalog.=) r.objid)"
							" GROUP BY r.objid ORDER BY r.objid",
							rows.data, c->obj_table));
	q = lappend(q, psprintf("SELECT pg_catalog.format('object %%s has a row of key id %%s, which the dictionary lacks', r.objid, r.keyid)"
							" FROM (%s) r WHERE NOT EXISTS (SELECT FROM %s k WHERE k.keyid OPERATOR(pg_catalog.=) r.keyid)"
							" ORDER BY r.objid, r.keyid",
							rows.data, c->keys_table));
	q = lappend(q, psprintf("SELECT pg_catalog.format('object %%s has %%s rows for key %%s', r.objid, pg_catalog.count(*), pg_catalog.quote_literal(k.keystr))"
							" FROM (%s) r LEFT JOIN %s k ON k.keyid OPERATOR(pg_catalog.=) r.keyid"
							" GROUP BY r.objid, r.keyid, k.keystr HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 ORDER BY r.objid, r.keyid",
							rows.data, c->keys_table));
	q = lappend(q, psprintf("SELECT pg_catalog.format('object %%s holds a value at %%s, which marks an empty object or array', r.objid, pg_catalog.quote_literal(k.keystr))"
							" FROM (%s) r JOIN %s k ON k.keyid OPERATOR(pg_catalog.=) r.keyid"
							" WHERE r.hasval AND (pg_catalog.right(k.keystr, 2) OPERATOR(pg_catalog.=) '{}' OR pg_catalog.right(k.keystr, 2) OPERATOR(pg_catalog.=) '[]')"
							" ORDER BY r.objid, r.keyid",
							rows.data, c->keys_table));
	q = lappend(q, psprintf("SELECT pg_catalog.format('object %%s has a row holding %%s values', r.objid, r.nvals)"
							" FROM (%s) r WHERE r.nvals OPERATOR(pg_catalog.>) 1 ORDER BY r.objid",
							rows.data));
	q = lappend(q, psprintf("SELECT pg_catalog.format('key id %%s is %%s', k.keyid, CASE WHEN k.keyid OPERATOR(pg_catalog.<=) 0 THEN 'not positive'"
							" ELSE 'longer than Argo writes' END) FROM %s k"
							" WHERE k.keyid OPERATOR(pg_catalog.<=) 0 OR pg_catalog.octet_length(k.keystr) OPERATOR(pg_catalog.>) %d ORDER BY k.keyid",
							c->keys_table, ARGO_MAX_KEY_BYTES + 2));
	/* reading checks that the text's double is valnum; this, the rest */
	q = lappend(q, psprintf("SELECT pg_catalog.format('object %%s keeps an exact number text that is not a number''s at %%s', r.objid, pg_catalog.quote_literal(k.keystr))"
							" FROM %s r LEFT JOIN %s k ON k.keyid OPERATOR(pg_catalog.=) r.keyid"
							" WHERE r.valexact IS NOT NULL AND (r.valnum IS NULL OR r.valexact OPERATOR(pg_catalog.!~) '^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][-+]?[0-9]+)?$')"
							" AND %s ORDER BY r.objid, r.keyid",
							c->format == ARGO_FORMAT_ARGO1 ? c->data_table : c->num_table,
							c->keys_table, filter));
	return q;
}

/* Objects whose maps are wrong: the first few by id, then how many in all. */
typedef struct MapCheck
{
	ReturnSetInfo *rsinfo;
	int64		wrong;
} MapCheck;

#define MAPS_NAMED 10

static void
put_problem(ReturnSetInfo *rsinfo, char *problem)
{
	Datum		v = CStringGetTextDatum(problem);
	bool		isnull = false;

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
}

static void
check_map(void *arg, int64 objid, bytea *stored, bytea *actual)
{
	MapCheck   *mc = arg;

	/* no map is no lie: the object is read by its objid indexes */
	if (stored == NULL || rowmap_equal(stored, actual))
		return;
	if (++mc->wrong <= MAPS_NAMED)
		put_problem(mc->rsinfo, psprintf("object " INT64_FORMAT "'s map of where its rows lie is out of date", objid));
}

/* The maps (of ids, or all), where Argo reads them (plain tables, no row-level security). */
static void
check_maps(ArgoCollection *c, ReturnSetInfo *rsinfo, const int64 *ids, int nids)
{
	int			n;
	const char *const *tables = collection_object_tables(c, &n);
	MapCheck	mc = {rsinfo, 0};

	for (int i = 0; i < n; i++)
	{
		Relation	rel = argo_open_table(c, tables[i]);
		bool		ok = argo_readable_directly(rel) &&
			(i < n - 1 ? OidIsValid(argo_objid_index(rel)) : rowmap_column(rel) > 0);

		table_close(rel, NoLock);
		if (!ok)
			return;
	}
	rowmap_walk(c, ids, nids, check_map, &mc);
	if (mc.wrong > 0)
		put_problem(rsinfo, psprintf(INT64_FORMAT " object(s) in all have out-of-date maps; argo_repair('%s') writes them again",
									 mc.wrong, c->name));
}

/* Kept documents that differ from their objects' rows: the first few, then how many. */
typedef struct DocCheck
{
	ReturnSetInfo *rsinfo;
	ObjFetch   *fetch;
	Rebuilder  *rb;
	Jsonb	   *doc;			/* the kept one of the object being read */
	bool		rebuilt;
	int64		wrong;
} DocCheck;

static void
rebuilt_object(void *arg, int64 objid, Jsonb *obj)
{
	DocCheck   *dc = arg;

	dc->rebuilt = true;
	if (obj != NULL && VARSIZE(obj) == VARSIZE(dc->doc) &&
		memcmp(obj, dc->doc, VARSIZE(obj)) == 0)
		return;
	if (++dc->wrong <= MAPS_NAMED)
		put_problem(dc->rsinfo, psprintf("object " INT64_FORMAT "'s kept document differs from its rows", objid));
}

/* One directory row (objid, doc): its document against its rows, rebuilt. */
static void
check_doc(void *arg, Datum *values, bool *nulls)
{
	DocCheck   *dc = arg;
	int64		objid = DatumGetInt64(values[0]);

	dc->doc = DatumGetJsonbP(values[1]);
	dc->rebuilt = false;
	objfetch_object(dc->fetch, objid, dc->rb);
	rebuilder_finish(dc->rb);
	if (!dc->rebuilt)
		rebuilt_object(dc, objid, NULL);
}

/* The kept documents (of sample->ids, or all), where Argo reads them (as the maps). */
static void
check_docs(ArgoCollection *c, ReturnSetInfo *rsinfo, ObjSample *sample)
{
	DocCheck	dc = {rsinfo};
	SqlBuf	   *buf;

	if (!OidIsValid(docs_relid(c)))
		return;
	/* a document of no object: Argo deletes both together */
	run_check(psprintf("SELECT pg_catalog.format('object %%s has a kept document but no directory row', d.objid)"
					   " FROM %s d WHERE NOT EXISTS (SELECT FROM %s o WHERE o.objid OPERATOR(pg_catalog.=) d.objid)"
					   " AND %s ORDER BY d.objid",
					   c->doc_table, c->obj_table,
					   sample->ids != (Datum) 0 ? "d.objid IN (SELECT pg_catalog.unnest($1))" : "true"),
			  sample, rsinfo, c->name);
	if ((dc.fetch = objfetch_open(c, NIL, false, true)) == NULL)
		return;
	objfetch_ignore_docs(dc.fetch);
	dc.rb = rebuilder_create(keydict_of(c), rebuilt_object, &dc);
	buf = sqlbuf_create();
	if (sample->ids != (Datum) 0)
		sqlbuf_param(buf, INT8ARRAYOID, sample->ids);
	appendStringInfo(&buf->sql, "SELECT d.objid, d.doc FROM %s d JOIN %s o ON o.objid OPERATOR(pg_catalog.=) d.objid"
					 " WHERE %s ORDER BY d.objid",
					 c->doc_table, c->obj_table,
					 sample->ids != (Datum) 0 ? "d.objid IN (SELECT pg_catalog.unnest($1))" : "true");
	argo_stream_rows(buf, check_doc, &dc);
	objfetch_close(dc.fetch);
	if (dc.wrong > 0)
		put_problem(rsinfo, psprintf(INT64_FORMAT " object(s) in all have kept documents that differ from their rows; "
									 "argo_repair('%s') writes them again",
									 dc.wrong, c->name));
}

/*
 * Where a long check is, for whoever runs it: a NOTICE as each check
 * ends (psql prints it at once), with its time and what it found.
 */
typedef struct Progress
{
	bool		on;
	int			step;
	instr_time	start;
	int64		found;			/* problems before this step */
} Progress;

static void
progress_begin(Progress *p, ReturnSetInfo *rsinfo)
{
	p->found = tuplestore_tuple_count(rsinfo->setResult);
	INSTR_TIME_SET_CURRENT(p->start);
}

static void
progress_end(Progress *p, ArgoCollection *c, ReturnSetInfo *rsinfo)
{
	instr_time	now;

	p->step++;
	if (!p->on)
		return;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, p->start);
	ereport(NOTICE,
			(errmsg("argo_check(%s): %d of %d, %s: " INT64_FORMAT " problem(s)",
					quote_literal_cstr(c->name), p->step, (int) NCHECKS, check_names[p->step - 1],
					tuplestore_tuple_count(rsinfo->setResult) - p->found),
			 errdetail("%.1f s", INSTR_TIME_GET_DOUBLE(now))));
}

/* Run one check query, its problems into the result; whether it found any. */
static bool
run_check(const char *sql, ObjSample *sample, ReturnSetInfo *rsinfo, const char *name)
{
	Oid			argtype = INT8ARRAYOID;
	bool		sampled = sample->ids != (Datum) 0;

	if (SPI_execute_with_args(sql, sampled ? 1 : 0, &argtype, &sample->ids, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not check collection \"%s\"", name);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		v = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		v = PointerGetDatum(cstring_to_text(TextDatumGetCString(v)));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	return SPI_processed > 0;
}

/* The sampled ids as a C array (NULL: every object). */
static int64 *
sample_ids(ObjSample *sample, int *n)
{
	Datum	   *elems;
	int64	   *ids;

	*n = -1;
	if (sample->ids == (Datum) 0)
		return NULL;
	deconstruct_array(DatumGetArrayTypeP(sample->ids), INT8OID, 8, true, TYPALIGN_DOUBLE,
					  &elems, NULL, n);
	ids = palloc(sizeof(int64) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		ids[i] = DatumGetInt64(elems[i]);
	return ids;
}

/*
 * argo_check(collection text, sample bigint, progress boolean) RETURNS
 * SETOF text: with a sample, the rows of about that many objects (pages
 * of the directory and of each value table at random, so that rows of
 * no object can be met too) and the dictionary.
 */
Datum
argo_check(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	int64		target = objsample_arg(fcinfo, 1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Progress	p = {PG_NARGS() > 2 && !PG_ARGISNULL(2) && PG_GETARG_BOOL(2)};
	ArgoCollection *c;
	ObjSample	sample;
	ListCell   *lc;
	bool		found = false;
	int64	   *ids;
	int			nids;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	argo_spi_connect();
	c = collection_lookup(name, false, AccessShareLock);
	objsample_take(c, target, true, &sample);
	if (p.on && sample.ids != (Datum) 0)
		ereport(NOTICE,
				(errmsg("argo_check(%s): the rows of a sample of the objects", quote_literal_cstr(c->name)),
				 errdetail(INT64_FORMAT " of " INT64_FORMAT " objects", sample.sampled, sample.objects)));
	progress_begin(&p, rsinfo);
	if (!collection_is_distributed(c))
		foreach(lc, collection_missing_indexes(c))
			put_problem(rsinfo, lfirst(lc));
	progress_end(&p, c, rsinfo);
	foreach(lc, check_queries(c, sample.ids != (Datum) 0 ? "objid IN (SELECT pg_catalog.unnest($1))" : "true"))
	{
		progress_begin(&p, rsinfo);
		found = run_check(lfirst(lc), &sample, rsinfo, name) || found;
		progress_end(&p, c, rsinfo);
	}
	ids = sample_ids(&sample, &nids);
	progress_begin(&p, rsinfo);
	check_maps(c, rsinfo, ids, nids);
	progress_end(&p, c, rsinfo);
	/* rows that break the rules above cannot be rebuilt to compare */
	progress_begin(&p, rsinfo);
	if (!found)
		check_docs(c, rsinfo, &sample);
	progress_end(&p, c, rsinfo);
	SPI_finish();
	return (Datum) 0;
}
