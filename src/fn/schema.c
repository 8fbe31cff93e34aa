/*
 * schema.c — what the key dictionary knows of a collection:
 * argo_keys(collection), its schema, and argo_analyze(collection), which
 * counts rows and distinct values per key and type into the dictionary
 * (as ANALYZE does for a table, exactly and when asked: counting on
 * every write would make all writers of a collection queue on the few
 * rows of its common keys).
 *
 * Each path is written as in Argo/SQL, with array positions collapsed to
 * [*] ("kids[*].name"), so that a thousand-element array is one path.
 * For each: the JSON types found there and in how many objects.  Objects
 * and arrays count as types of the path that holds them, whether or not
 * they are empty.  The dictionary says which paths there are; one pass
 * over the value tables counts them.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "exec/exec.h"

PG_FUNCTION_INFO_V1(argo_keys);
PG_FUNCTION_INFO_V1(argo_analyze_collection);

/* (key id, path, type) triples: type NULL means "the row's own type". */
typedef struct KeyMap
{
	int			n;
	int			max;
	Datum	   *ids;
	Datum	   *paths;
	Datum	   *types;
	bool	   *type_nulls;
} KeyMap;

static void
map_add(KeyMap *m, int32 id, const char *path, const char *type)
{
	if (m->n == m->max)
	{
		m->max = m->max ? m->max * 2 : 256;
		m->ids = m->ids ? repalloc(m->ids, sizeof(Datum) * m->max) : palloc(sizeof(Datum) * m->max);
		m->paths = m->paths ? repalloc(m->paths, sizeof(Datum) * m->max) : palloc(sizeof(Datum) * m->max);
		m->types = m->types ? repalloc(m->types, sizeof(Datum) * m->max) : palloc(sizeof(Datum) * m->max);
		m->type_nulls = m->type_nulls ? repalloc(m->type_nulls, sizeof(bool) * m->max) : palloc(sizeof(bool) * m->max);
	}
	m->ids[m->n] = Int32GetDatum(id);
	m->paths[m->n] = CStringGetTextDatum(path);
	m->types[m->n] = type ? CStringGetTextDatum(type) : (Datum) 0;
	m->type_nulls[m->n] = (type == NULL);
	m->n++;
}

/* One segment as Argo/SQL writes it: name, `quoted name` or [*]. */
static void
append_step(StringInfo path, const KeySeg *seg)
{
	bool		plain;

	if (seg->kind == KSEG_INDEX)
	{
		appendStringInfoString(path, "[*]");
		return;
	}
	plain = seg->keylen > 0 &&
		(isalpha((unsigned char) seg->key[0]) || seg->key[0] == '_');
	if (path->len > 0)
		appendStringInfoChar(path, '.');
	for (int i = 0; i < seg->keylen && plain; i++)
		plain = isalnum((unsigned char) seg->key[i]) || seg->key[i] == '_';
	if (plain)
	{
		appendBinaryStringInfo(path, seg->key, seg->keylen);
		return;
	}
	appendStringInfoChar(path, '`');
	for (int i = 0; i < seg->keylen; i++)
	{
		if (seg->key[i] == '`')
			appendStringInfoChar(path, '`');
		appendStringInfoChar(path, seg->key[i]);
	}
	appendStringInfoChar(path, '`');
}

/*
 * What one key says: each container on its way (an object before a
 * name, an array before a position) and its own value, whose type is the
 * row's, or that of the empty container its marker stands for.
 */
static void
map_key(KeyMap *m, const ArgoKey *k)
{
	StringInfoData path;
	int			nsegs = k->nsegs;
	const char *last_type = NULL;

	if (nsegs > 0 && k->segs[nsegs - 1].kind == KSEG_EMPTY_OBJECT)
		last_type = "object", nsegs--;
	else if (nsegs > 0 && k->segs[nsegs - 1].kind == KSEG_EMPTY_ARRAY)
		last_type = "array", nsegs--;
	initStringInfo(&path);
	for (int i = 0; i < nsegs; i++)
	{
		if (i > 0)
			map_add(m, k->id, path.data,
					k->segs[i].kind == KSEG_INDEX ? "array" : "object");
		append_step(&path, &k->segs[i]);
	}
	map_add(m, k->id, path.data, last_type);
}

static Datum
text_array(Datum *elems, bool *nulls, int n)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};

	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs,
											  TEXTOID, -1, false, TYPALIGN_INT));
}

/* Every row of the collection as (objid, keyid, its JSON type). */
static void
typed_rows(SqlBuf *buf, ArgoCollection *c)
{
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		appendStringInfo(&buf->sql,
						 "SELECT objid, keyid, CASE WHEN valstr IS NOT NULL THEN 'string' WHEN valnum IS NOT NULL THEN 'number'"
						 " WHEN valbool IS NOT NULL THEN 'boolean' ELSE 'null' END AS t FROM %s",
						 c->data_table);
		return;
	}
	appendStringInfo(&buf->sql,
					 "SELECT objid, keyid, 'string' AS t FROM %s UNION ALL SELECT objid, keyid, 'number' FROM %s"
					 " UNION ALL SELECT objid, keyid, CASE WHEN valbool IS NULL THEN 'null' ELSE 'boolean' END FROM %s",
					 c->str_table, c->num_table, c->bool_table);
}

/* The keys argo_unique made unique, as dictionary keys. */
static List *
unique_keys(ArgoCollection *c)
{
	List	   *keys = NIL;
	ListCell   *lc;

	if (collection_is_distributed(c))
		return NIL;
	foreach(lc, collection_unique_keys(c))
		keys = lappend(keys, (void *) keydict_get(keydict_of(c), lfirst_int(lc)));
	return keys;
}

/* The statement that counts, per path, its types and objects. */
static SqlBuf *
schema_query(ArgoCollection *c, KeyMap *m)
{
	SqlBuf	   *buf = sqlbuf_create();
	int			dims[1] = {m->n};
	int			lbs[1] = {1};

	sqlbuf_param(buf, INT4ARRAYOID,
				 PointerGetDatum(construct_md_array(m->ids, NULL, 1, dims, lbs,
													INT4OID, 4, true, TYPALIGN_INT)));
	sqlbuf_param(buf, TEXTARRAYOID, text_array(m->paths, NULL, m->n));
	sqlbuf_param(buf, TEXTARRAYOID, text_array(m->types, m->type_nulls, m->n));
	sqlbuf_param(buf, INT4ARRAYOID, keydict_id_array(unique_keys(c)));
	appendStringInfoString(&buf->sql,
						   "SELECT k.path, pg_catalog.array_agg(DISTINCT coalesce(k.type, r.t) ORDER BY coalesce(k.type, r.t)), pg_catalog.count(DISTINCT r.objid),"
						   " pg_catalog.bool_or(k.keyid OPERATOR(pg_catalog.=) ANY($4))"
						   " FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3)) k(keyid, path, type) JOIN (");
	typed_rows(buf, c);
	appendStringInfoString(&buf->sql, ") r ON r.keyid OPERATOR(pg_catalog.=) k.keyid GROUP BY k.path ORDER BY k.path COLLATE pg_catalog.\"C\"");
	return buf;
}

/* Every key the dictionary holds, mapped to the paths it stands for. */
static KeyMap *
map_dictionary(ArgoCollection *c)
{
	KeyMap	   *m = palloc0(sizeof(KeyMap));
	KeyDict    *d = keydict_of(c);
	char	   *sql = psprintf("SELECT keyid FROM %s ORDER BY keyid", c->keys_table);
	SPITupleTable *tt;
	uint64		n;

	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "argo: could not read the keys of collection \"%s\"", c->name);
	tt = SPI_tuptable;
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		map_key(m, keydict_get(d, DatumGetInt32(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull))));
	}
	SPI_freetuptable(tt);
	return m;
}

/*
 * argo_keys(collection text) RETURNS TABLE (path text, types text[],
 * objects bigint, is_unique boolean)
 */
Datum
argo_keys(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ArgoCollection *c;
	KeyMap	   *m;
	SPITupleTable *tt;

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	c = collection_lookup(name, false, AccessShareLock);
	m = map_dictionary(c);
	if (m->n > 0)
	{
		SqlBuf	   *buf = schema_query(c, m);

		if (argo_run(buf, true) != SPI_OK_SELECT)
			elog(ERROR, "argo: could not read the schema of collection \"%s\"", name);
		tt = SPI_tuptable;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			Datum		values[4];
			bool		nulls[4];

			heap_deform_tuple(tt->vals[i], tt->tupdesc, values, nulls);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	SPI_finish();
	return (Datum) 0;
}

/* Per key: rows and distinct values per type, and null rows, as s(keyid, …). */
static void
key_counts(StringInfo sql, ArgoCollection *c)
{
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		appendStringInfo(sql,
						 "SELECT keyid, pg_catalog.count(valstr) AS rs, pg_catalog.count(DISTINCT valstr) AS ds, pg_catalog.count(valnum) AS rn, pg_catalog.count(DISTINCT valnum) AS dn,"
						 " pg_catalog.count(valbool) AS rb, pg_catalog.count(DISTINCT valbool) AS db, pg_catalog.count(*) FILTER (WHERE pg_catalog.num_nonnulls(valstr, valnum, valbool) OPERATOR(pg_catalog.=) 0) AS z"
						 " FROM %s GROUP BY keyid",
						 c->data_table);
		return;
	}
	appendStringInfo(sql,
					 "SELECT keyid, pg_catalog.sum(rs)::bigint AS rs, pg_catalog.sum(ds)::bigint AS ds, pg_catalog.sum(rn)::bigint AS rn, pg_catalog.sum(dn)::bigint AS dn,"
					 " pg_catalog.sum(rb)::bigint AS rb, pg_catalog.sum(db)::bigint AS db, pg_catalog.sum(z)::bigint AS z FROM ("
					 "SELECT keyid, pg_catalog.count(*) AS rs, pg_catalog.count(DISTINCT valstr) AS ds, 0 AS rn, 0 AS dn, 0 AS rb, 0 AS db, 0 AS z FROM %s GROUP BY keyid"
					 " UNION ALL SELECT keyid, 0, 0, pg_catalog.count(*), pg_catalog.count(DISTINCT valnum), 0, 0, 0 FROM %s GROUP BY keyid"
					 " UNION ALL SELECT keyid, 0, 0, 0, 0, pg_catalog.count(valbool), pg_catalog.count(DISTINCT valbool), pg_catalog.count(*) OPERATOR(pg_catalog.-) pg_catalog.count(valbool) FROM %s GROUP BY keyid"
					 ") u GROUP BY keyid",
					 c->str_table, c->num_table, c->bool_table);
}

/* argo_analyze(collection text) RETURNS bigint: the keys counted */
Datum
argo_analyze_collection(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	ArgoCollection *c;
	StringInfoData sql;
	int64		n;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	c = collection_lookup(name, false, RowExclusiveLock);
	initStringInfo(&sql);
	appendStringInfoString(&sql, "WITH s AS (");
	key_counts(&sql, c);
	/* keys no row uses any more count zero */
	appendStringInfo(&sql,
					 ") UPDATE %s k SET rows_str = coalesce(s.rs, 0), distinct_str = coalesce(s.ds, 0),"
					 " rows_num = coalesce(s.rn, 0), distinct_num = coalesce(s.dn, 0),"
					 " rows_bool = coalesce(s.rb, 0), distinct_bool = coalesce(s.db, 0),"
					 " rows_null = coalesce(s.z, 0), analyzed_at = pg_catalog.now()"
					 " FROM %s k2 LEFT JOIN s ON s.keyid OPERATOR(pg_catalog.=) k2.keyid WHERE k.keyid OPERATOR(pg_catalog.=) k2.keyid",
					 c->keys_table, c->keys_table);
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "argo: could not count the keys of collection \"%s\"", name);
	n = (int64) SPI_processed;
	SPI_finish();
	PG_RETURN_INT64(n);
}
