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
#include "nodes/bitmapset.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "common/errors.h"
#include "common/keypath.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/keydict.h"
#include "store/shard/shard.h"
#include "fn/fn.h"

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

/* The key ids of m as int4[]. */
static Datum
map_id_array(KeyMap *m)
{
	int			dims[1] = {m->n};
	int			lbs[1] = {1};

	return PointerGetDatum(construct_md_array(m->ids, NULL, 1, dims, lbs,
											  INT4OID, 4, true, TYPALIGN_INT));
}

/*
 * The collection's rows that pass filter (SQL over objid and keyid) as
 * (objid, keyid, its JSON type).
 */
static void
typed_rows(SqlBuf *buf, ArgoCollection *c, const char *filter)
{
	if (c->format == ARGO_FORMAT_ARGO1)
	{
		appendStringInfo(&buf->sql,
						 "SELECT objid, keyid, CASE WHEN valstr IS NOT NULL THEN 'string' WHEN valnum IS NOT NULL THEN 'number'"
						 " WHEN valbool IS NOT NULL THEN 'boolean' ELSE 'null' END AS t FROM %s WHERE %s",
						 c->data_table, filter);
		return;
	}
	appendStringInfo(&buf->sql,
					 "SELECT objid, keyid, 'string' AS t FROM %s WHERE %s UNION ALL SELECT objid, keyid, 'number' FROM %s WHERE %s"
					 " UNION ALL SELECT objid, keyid, CASE WHEN valbool IS NULL THEN 'null' ELSE 'boolean' END FROM %s WHERE %s",
					 c->str_table, filter, c->num_table, filter, c->bool_table, filter);
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

/*
 * Which rows a count reads: all of them, those of the sampled objects
 * (then scaled to the collection), or those of some keys (the ones no
 * sampled object has: rare by that, and found through their index).
 */
typedef enum Scope
{
	EVERY_ROW,
	SAMPLED_OBJECTS,
	SOME_KEYS
} Scope;

/* The filter on objid and keyid for a scope whose array is parameter $n. */
static const char *
scope_filter(Scope scope, int n)
{
	if (scope == SAMPLED_OBJECTS)
		return psprintf("objid IN (SELECT pg_catalog.unnest($%d))", n);
	if (scope == SOME_KEYS)
		return psprintf("keyid OPERATOR(pg_catalog.=) ANY($%d)", n);
	return "true";
}

/*
 * The statement that counts, per path of m, its types and objects in
 * scope (arg: the sampled ids or the keys; objects scaled by s).
 */
static SqlBuf *
schema_query(ArgoCollection *c, KeyMap *m, Scope scope, Datum arg, ObjSample *s)
{
	SqlBuf	   *buf = sqlbuf_create();

	sqlbuf_param(buf, INT4ARRAYOID, map_id_array(m));
	sqlbuf_param(buf, TEXTARRAYOID, text_array(m->paths, NULL, m->n));
	sqlbuf_param(buf, TEXTARRAYOID, text_array(m->types, m->type_nulls, m->n));
	/* unique at a key's own path (no fixed type), not at its parents' */
	sqlbuf_param(buf, INT4ARRAYOID, keydict_id_array(unique_keys(c)));
	if (scope != EVERY_ROW)
		sqlbuf_param(buf, scope == SAMPLED_OBJECTS ? INT8ARRAYOID : INT4ARRAYOID, arg);
	if (scope == SAMPLED_OBJECTS)
	{
		sqlbuf_param(buf, NUMERICOID, DirectFunctionCall1(int8_numeric, Int64GetDatum(s->objects)));
		sqlbuf_param(buf, NUMERICOID, DirectFunctionCall1(int8_numeric, Int64GetDatum(Max(s->sampled, 1))));
	}
	appendStringInfo(&buf->sql,
					 "SELECT k.path, pg_catalog.array_agg(DISTINCT coalesce(k.type, r.t) ORDER BY coalesce(k.type, r.t)), %s,"
					 " pg_catalog.bool_or(k.keyid OPERATOR(pg_catalog.=) ANY($4) AND k.type IS NULL), %s"
					 " FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3)) k(keyid, path, type) JOIN (",
					 scope == SAMPLED_OBJECTS ?
					 "LEAST($6, pg_catalog.round(pg_catalog.count(DISTINCT r.objid) OPERATOR(pg_catalog.*) $6 OPERATOR(pg_catalog./) $7))::bigint"
					 : "pg_catalog.count(DISTINCT r.objid)",
					 scope == SAMPLED_OBJECTS ? "false" : "true");
	typed_rows(buf, c, scope_filter(scope, 5));
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
		elog(ERROR, "could not read the keys of collection \"%s\"", c->name);
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

/* The rows of a schema statement, kept while another runs. */
typedef struct SchemaRows
{
	SPITupleTable *tt;
	uint64		n;
	char	  **paths;
} SchemaRows;

static void
schema_run(SqlBuf *buf, ArgoCollection *c, SchemaRows *r)
{
	if (argo_run(buf, true) != SPI_OK_SELECT)
		elog(ERROR, "could not read the schema of collection \"%s\"", c->name);
	r->tt = SPI_tuptable;
	r->n = SPI_processed;
	r->paths = palloc(sizeof(char *) * (r->n + 1));
	for (uint64 i = 0; i < r->n; i++)
		r->paths[i] = SPI_getvalue(r->tt->vals[i], r->tt->tupdesc, 1);
}

static int
schema_path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The entries of m whose paths no row of r has. */
static KeyMap *
unseen_paths(KeyMap *m, SchemaRows *r)
{
	KeyMap	   *u = palloc0(sizeof(KeyMap));

	for (int i = 0; i < m->n; i++)
	{
		char	   *path = TextDatumGetCString(m->paths[i]);

		CHECK_FOR_INTERRUPTS();
		if (bsearch(&path, r->paths, r->n, sizeof(char *), schema_path_cmp) == NULL)
			map_add(u, DatumGetInt32(m->ids[i]), path,
					m->type_nulls[i] ? NULL : TextDatumGetCString(m->types[i]));
	}
	return u;
}

static void
put_row(ReturnSetInfo *rsinfo, SchemaRows *r, uint64 i)
{
	Datum		values[5];
	bool		nulls[5];

	heap_deform_tuple(r->tt->vals[i], r->tt->tupdesc, values, nulls);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Two statements' rows, each in path order, as one in path order. */
static void
put_merged(ReturnSetInfo *rsinfo, SchemaRows *a, SchemaRows *b)
{
	uint64		i = 0,
				j = 0;

	while (i < a->n || j < b->n)
	{
		CHECK_FOR_INTERRUPTS();
		if (j == b->n || (i < a->n && strcmp(a->paths[i], b->paths[j]) < 0))
			put_row(rsinfo, a, i++);
		else
			put_row(rsinfo, b, j++);
	}
}

/*
 * argo_keys(collection text, sample bigint) RETURNS TABLE (path text,
 * types text[], objects bigint, is_unique boolean, exact boolean)
 */
Datum
argo_keys(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	int64		target = objsample_arg(fcinfo, 1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ArgoCollection *c;
	KeyMap	   *m;
	ObjSample	sample;
	SchemaRows	seen = {0},
				unseen = {0};

	InitMaterializedSRF(fcinfo, 0);
	argo_spi_connect();
	c = collection_lookup(name, false, AccessShareLock);
	m = map_dictionary(c);
	if (m->n > 0)
	{
		objsample_take(c, target, false, &sample);
		if (sample.ids == (Datum) 0)
			schema_run(schema_query(c, m, EVERY_ROW, (Datum) 0, &sample), c, &seen);
		else
		{
			KeyMap	   *u;

			schema_run(schema_query(c, m, SAMPLED_OBJECTS, sample.ids, &sample), c, &seen);
			u = unseen_paths(m, &seen);
			if (u->n > 0)
				schema_run(schema_query(c, u, SOME_KEYS, map_id_array(u), &sample), c, &unseen);
		}
		put_merged(rsinfo, &seen, &unseen);
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * One type's rows at each key that pass filter, as (keyid, kind, n, d,
 * f1): rows, distinct values, and values met once (to estimate the
 * distinct values of the whole from a sample).  Grouped by value first:
 * count(DISTINCT) per key makes the planner read the whole table in
 * key order through its index, 2.5 times slower at 1M objects.
 */
static void
value_counts(StringInfo sql, const char *table, const char *col, const char *kind,
			 const char *filter)
{
	appendStringInfo(sql,
					 "SELECT keyid, '%s' AS kind, pg_catalog.sum(c)::bigint AS n, pg_catalog.count(*) AS d,"
					 " pg_catalog.count(*) FILTER (WHERE c OPERATOR(pg_catalog.=) 1) AS f1"
					 " FROM (SELECT keyid, %s AS v, pg_catalog.count(*) AS c FROM %s WHERE %s IS NOT NULL AND %s GROUP BY keyid, %s) g GROUP BY keyid",
					 kind, col, table, col, filter, col);
}

/* Every type's counts at each key, and its null rows (kind z), that pass filter. */
static void
key_counts(StringInfo sql, ArgoCollection *c, const char *filter)
{
	bool		one = c->format == ARGO_FORMAT_ARGO1;

	value_counts(sql, one ? c->data_table : c->str_table, "valstr", "s", filter);
	appendStringInfoString(sql, " UNION ALL ");
	value_counts(sql, one ? c->data_table : c->num_table, "valnum", "n", filter);
	appendStringInfoString(sql, " UNION ALL ");
	value_counts(sql, one ? c->data_table : c->bool_table, "valbool", "b", filter);
	appendStringInfo(sql,
					 " UNION ALL SELECT keyid, 'z', pg_catalog.count(*), 0, 0 FROM %s WHERE %s AND %s GROUP BY keyid",
					 one ? c->data_table : c->bool_table,
					 one ? "pg_catalog.num_nonnulls(valstr, valnum, valbool) OPERATOR(pg_catalog.=) 0" : "valbool IS NULL",
					 filter);
}

/*
 * Per key in scope (arg: the sampled ids or the keys): rows and distinct
 * values of each type, and null rows.  A sample's are scaled by objects
 * $2 over sampled $3, its distinct values by the Haas-Stokes estimator
 * ANALYZE uses (every value met once: as many as rows; none: those met).
 * OPERATOR() binds all alike, left to right: hence the parentheses.
 */
static SqlBuf *
stats_query(ArgoCollection *c, Scope scope, Datum arg, ObjSample *s)
{
	SqlBuf	   *buf = sqlbuf_create();
	StringInfo	sql = &buf->sql;

	if (scope != EVERY_ROW)
		sqlbuf_param(buf, scope == SAMPLED_OBJECTS ? INT8ARRAYOID : INT4ARRAYOID, arg);
	if (scope == SAMPLED_OBJECTS)
	{
		sqlbuf_param(buf, NUMERICOID, DirectFunctionCall1(int8_numeric, Int64GetDatum(s->objects)));
		sqlbuf_param(buf, NUMERICOID, DirectFunctionCall1(int8_numeric, Int64GetDatum(Max(s->sampled, 1))));
	}
	appendStringInfoString(sql, "WITH counts AS (");
	key_counts(sql, c, scope_filter(scope, 1));
	if (scope == SAMPLED_OBJECTS)
		appendStringInfoString(sql,
							   "), scaled AS (SELECT keyid, kind, n, d, f1, pg_catalog.round(n OPERATOR(pg_catalog.*) $2 OPERATOR(pg_catalog./) $3) AS r FROM counts),"
							   " est AS (SELECT keyid, kind, r, CASE WHEN f1 OPERATOR(pg_catalog.>=) n THEN r WHEN f1 OPERATOR(pg_catalog.=) 0 THEN d"
							   " ELSE LEAST(r, GREATEST(d, pg_catalog.round((n OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog./)"
							   " ((n OPERATOR(pg_catalog.-) f1) OPERATOR(pg_catalog.+) ((f1 OPERATOR(pg_catalog.*) n) OPERATOR(pg_catalog./) r))))) END AS d FROM scaled)");
	else
		appendStringInfoString(sql, "), est AS (SELECT keyid, kind, n AS r, d FROM counts)");
	appendStringInfoString(sql,
						   " SELECT keyid, pg_catalog.max(r) FILTER (WHERE kind OPERATOR(pg_catalog.=) 's')::bigint, pg_catalog.max(d) FILTER (WHERE kind OPERATOR(pg_catalog.=) 's')::bigint,"
						   " pg_catalog.max(r) FILTER (WHERE kind OPERATOR(pg_catalog.=) 'n')::bigint, pg_catalog.max(d) FILTER (WHERE kind OPERATOR(pg_catalog.=) 'n')::bigint,"
						   " pg_catalog.max(r) FILTER (WHERE kind OPERATOR(pg_catalog.=) 'b')::bigint, pg_catalog.max(d) FILTER (WHERE kind OPERATOR(pg_catalog.=) 'b')::bigint,"
						   " pg_catalog.max(r) FILTER (WHERE kind OPERATOR(pg_catalog.=) 'z')::bigint FROM est GROUP BY keyid");
	return buf;
}

#define NSTATS 8				/* keyid and the seven counts */

/* Per-key counts gathered from one or two statements, as columns. */
typedef struct KeyStats
{
	int			n;
	int			max;
	Datum	   *cols[NSTATS];
	bool	   *nulls[NSTATS];
	Bitmapset  *keys;
} KeyStats;

static void
stats_collect(SqlBuf *buf, ArgoCollection *c, KeyStats *ks)
{
	if (argo_run(buf, true) != SPI_OK_SELECT)
		elog(ERROR, "could not count the keys of collection \"%s\"", c->name);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		Datum		values[NSTATS];
		bool		nulls[NSTATS];

		CHECK_FOR_INTERRUPTS();
		heap_deform_tuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, values, nulls);
		if (ks->n == ks->max)
		{
			ks->max = ks->max ? ks->max * 2 : 256;
			for (int k = 0; k < NSTATS; k++)
			{
				ks->cols[k] = ks->cols[k] ? repalloc(ks->cols[k], sizeof(Datum) * ks->max) : palloc(sizeof(Datum) * ks->max);
				ks->nulls[k] = ks->nulls[k] ? repalloc(ks->nulls[k], sizeof(bool) * ks->max) : palloc(sizeof(bool) * ks->max);
			}
		}
		for (int k = 0; k < NSTATS; k++)
		{
			ks->cols[k][ks->n] = values[k];
			ks->nulls[k][ks->n] = nulls[k];
		}
		ks->keys = bms_add_member(ks->keys, DatumGetInt32(values[0]));
		ks->n++;
	}
}

/* The dictionary's keys that ks has no counts for, as int4[] (or 0: none). */
static Datum
keys_not_in(ArgoCollection *c, KeyStats *ks)
{
	char	   *sql = psprintf("SELECT keyid FROM %s", c->keys_table);
	List	   *ids = NIL;
	Datum	   *elems;
	int			n = 0;
	ListCell   *lc;

	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the keys of collection \"%s\"", c->name);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		int32		id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));

		if (id > 0 && !bms_is_member(id, ks->keys))
			ids = lappend_int(ids, id);
	}
	if (ids == NIL)
		return (Datum) 0;
	elems = palloc(sizeof(Datum) * list_length(ids));
	foreach(lc, ids)
		elems[n++] = Int32GetDatum(lfirst_int(lc));
	return PointerGetDatum(construct_array(elems, n, INT4OID, 4, true, TYPALIGN_INT));
}

/* Write ks into the dictionary; keys no row uses any more count zero. */
static int64
stats_write(ArgoCollection *c, KeyStats *ks)
{
	static const Oid types[NSTATS] = {INT4ARRAYOID, INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID,
	INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID};
	SqlBuf	   *buf = sqlbuf_create();

	for (int k = 0; k < NSTATS; k++)
	{
		int			dims[1] = {ks->n};
		int			lbs[1] = {1};

		sqlbuf_param(buf, types[k],
					 PointerGetDatum(construct_md_array(ks->n ? ks->cols[k] : NULL, ks->n ? ks->nulls[k] : NULL,
														ks->n ? 1 : 0, dims, lbs,
														k == 0 ? INT4OID : INT8OID, k == 0 ? 4 : 8, true,
														k == 0 ? TYPALIGN_INT : TYPALIGN_DOUBLE)));
	}
	appendStringInfo(&buf->sql,
					 "UPDATE %s k SET rows_str = coalesce(s.rs, 0), distinct_str = coalesce(s.ds, 0),"
					 " rows_num = coalesce(s.rn, 0), distinct_num = coalesce(s.dn, 0),"
					 " rows_bool = coalesce(s.rb, 0), distinct_bool = coalesce(s.db, 0),"
					 " rows_null = coalesce(s.z, 0), analyzed_at = pg_catalog.now()"
					 " FROM %s k2 LEFT JOIN ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4),"
					 " pg_catalog.unnest($5), pg_catalog.unnest($6), pg_catalog.unnest($7), pg_catalog.unnest($8)) s(keyid, rs, ds, rn, dn, rb, db, z)"
					 " ON s.keyid OPERATOR(pg_catalog.=) k2.keyid WHERE k.keyid OPERATOR(pg_catalog.=) k2.keyid",
					 c->keys_table, c->keys_table);
	if (argo_run(buf, false) != SPI_OK_UPDATE)
		elog(ERROR, "could not count the keys of collection \"%s\"", c->name);
	return (int64) SPI_processed;
}

/*
 * argo_analyze(collection text, sample bigint, OUT keys bigint, OUT
 * objects bigint, OUT sampled bigint): the keys counted, the objects of
 * the collection and those whose rows were read
 */
Datum
argo_analyze_collection(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	int64		target = objsample_arg(fcinfo, 1);
	ArgoCollection *c;
	ObjSample	sample;
	KeyStats	ks = {0};
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "argo_analyze must return a row");
	argo_spi_connect();
	/* writers wait while the complete keys are counted (keyflags.c) */
	c = collection_lookup(name, false, ShareRowExclusiveLock);
	objsample_take(c, target, false, &sample);
	if (sample.ids == (Datum) 0)
		stats_collect(stats_query(c, EVERY_ROW, (Datum) 0, &sample), c, &ks);
	else
	{
		Datum		unseen;

		stats_collect(stats_query(c, SAMPLED_OBJECTS, sample.ids, &sample), c, &ks);
		unseen = keys_not_in(c, &ks);
		if (unseen != (Datum) 0)
			stats_collect(stats_query(c, SOME_KEYS, unseen, &sample), c, &ks);
	}
	values[0] = Int64GetDatum(stats_write(c, &ks));
	keyflags_set(c, true, true);
	values[1] = Int64GetDatum(sample.objects);
	values[2] = Int64GetDatum(sample.sampled);
	SPI_finish();
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
