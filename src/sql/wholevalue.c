/*
 * wholevalue.c — p = json and p != json with json an object or array
 * (reference.md §7): the objects whose value at p equals the given one,
 * found by comparing the value's rows (each key under p, relative, with
 * its scalar) with the object's rows there.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "common/keypath.h"
#include "common/numbers.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/keydict.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

/* A whole value's rows: each key under it (relative), and its scalar. */
typedef struct ValueRows
{
	int			n;
	HTAB	   *rels;			/* relative key -> its number, from 1 */
	Datum	   *types;			/* 0 string, 1 number, 2 boolean, 3 null or marker */
	Datum	   *strs;
	Datum	   *nums;
	Datum	   *bools;
	bool	   *strnull;
	bool	   *numnull;
	bool	   *boolnull;
	int			kind;			/* the value: 1 object, 2 array */
} ValueRows;

typedef struct RelEntry
{
	const char *rel;			/* hash key */
	int			n;
} RelEntry;

static void
value_row(ValueRows *vr, const char *rel, JsonbValue *v)
{
	int			i = vr->n++;
	bool		found;
	RelEntry   *e;

	if (i % 64 == 0)
	{
		int			max = i + 64;

		vr->types = i ? repalloc(vr->types, sizeof(Datum) * max) : palloc(sizeof(Datum) * max);
		vr->strs = i ? repalloc(vr->strs, sizeof(Datum) * max) : palloc(sizeof(Datum) * max);
		vr->nums = i ? repalloc(vr->nums, sizeof(Datum) * max) : palloc(sizeof(Datum) * max);
		vr->bools = i ? repalloc(vr->bools, sizeof(Datum) * max) : palloc(sizeof(Datum) * max);
		vr->strnull = i ? repalloc(vr->strnull, sizeof(bool) * max) : palloc(sizeof(bool) * max);
		vr->numnull = i ? repalloc(vr->numnull, sizeof(bool) * max) : palloc(sizeof(bool) * max);
		vr->boolnull = i ? repalloc(vr->boolnull, sizeof(bool) * max) : palloc(sizeof(bool) * max);
	}
	e = hash_search(vr->rels, &rel, HASH_ENTER, &found);
	e->rel = pstrdup(rel);
	e->n = i + 1;
	vr->strnull[i] = vr->numnull[i] = vr->boolnull[i] = true;
	vr->strs[i] = vr->nums[i] = vr->bools[i] = (Datum) 0;
	if (v == NULL || v->type == jbvNull)
		vr->types[i] = Int32GetDatum(3);
	else if (v->type == jbvString)
	{
		vr->types[i] = Int32GetDatum(0);
		vr->strs[i] = PointerGetDatum(cstring_to_text_with_len(v->val.string.val, v->val.string.len));
		vr->strnull[i] = false;
	}
	else if (v->type == jbvNumeric)
	{
		vr->types[i] = Int32GetDatum(1);
		vr->nums[i] = Float8GetDatum(argo_number_from_numeric(v->val.numeric, NULL));
		vr->numnull[i] = false;
	}
	else
	{
		vr->types[i] = Int32GetDatum(2);
		vr->bools[i] = BoolGetDatum(v->val.boolean);
		vr->boolnull[i] = false;
	}
}

/*
 * A whole value (an object or array) as the rows Argo would store for it
 * under a path, keyed by their keys relative to the path: ".a", "[0].b",
 * "{}" and "[]" for empty containers (the value itself, when it is one).
 * Walked iteratively, as objects are decomposed.
 */
static ValueRows *
value_rows(Jsonb *j)
{
	ValueRows  *vr = palloc0(sizeof(ValueRows));
	JsonbIterator *it = JsonbIteratorInit(&j->root);
	JsonbValue	v;
	JsonbIteratorToken tok;
	StringInfoData path;
	int		   *lens = NULL;
	int64	   *counts = NULL;
	bool	   *arrays = NULL;
	int			depth = 0,
				max = 0;

	vr->rels = keystr_hash_create("argo value rows", sizeof(RelEntry), CurrentMemoryContext);
	vr->kind = JB_ROOT_IS_ARRAY(j) ? 2 : 1;
	initStringInfo(&path);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok == WJB_KEY || tok == WJB_ELEM ||
			((tok == WJB_BEGIN_ARRAY || tok == WJB_BEGIN_OBJECT) && depth > 0 && arrays[depth - 1]))
		{
			/* the next child's key */
			path.len = lens[depth - 1];
			path.data[path.len] = '\0';
			if (arrays[depth - 1])
				keypath_append_index(&path, counts[depth - 1]);
			else
				keypath_append_key(&path, v.val.string.val, v.val.string.len, false);
			counts[depth - 1]++;
			if (tok == WJB_ELEM)
				value_row(vr, path.data, &v);
			if (tok == WJB_KEY || tok == WJB_ELEM)
				continue;
		}
		if (tok == WJB_VALUE)
			value_row(vr, path.data, &v);
		else if (tok == WJB_BEGIN_ARRAY || tok == WJB_BEGIN_OBJECT)
		{
			if (depth == max)
			{
				max = max ? max * 2 : 8;
				lens = lens ? repalloc(lens, sizeof(int) * max) : palloc(sizeof(int) * max);
				counts = counts ? repalloc(counts, sizeof(int64) * max) : palloc(sizeof(int64) * max);
				arrays = arrays ? repalloc(arrays, sizeof(bool) * max) : palloc(sizeof(bool) * max);
			}
			lens[depth] = path.len;
			counts[depth] = 0;
			arrays[depth] = tok == WJB_BEGIN_ARRAY;
			depth++;
		}
		else if (tok == WJB_END_ARRAY || tok == WJB_END_OBJECT)
		{
			depth--;
			if (counts[depth] == 0)
			{
				path.len = lens[depth];
				path.data[path.len] = '\0';
				appendStringInfoString(&path, tok == WJB_END_ARRAY ?
									   ARGO_MARK_EMPTY_ARRAY : ARGO_MARK_EMPTY_OBJECT);
				value_row(vr, path.data, NULL);
			}
		}
	}
	return vr;
}

/* A stored key relative to the value a path reaches: its segments after the path's. */
static char *
relative_key(const ArgoKey *k, int nsegs)
{
	StringInfoData rel;

	initStringInfo(&rel);
	for (int i = nsegs; i < k->nsegs; i++)
	{
		if (k->segs[i].kind == KSEG_KEY)
			keypath_append_key(&rel, k->segs[i].key, k->segs[i].keylen, false);
		else if (k->segs[i].kind == KSEG_INDEX)
			keypath_append_index(&rel, k->segs[i].index);
		else
			appendStringInfoString(&rel, k->segs[i].kind == KSEG_EMPTY_OBJECT ?
								   ARGO_MARK_EMPTY_OBJECT : ARGO_MARK_EMPTY_ARRAY);
	}
	return rel.data;
}

static Datum
array_of(Datum *elems, bool *nulls, int n, Oid type)
{
	int16		typlen;
	bool		byval;
	char		align;
	int			dims[1] = {n};
	int			lbs[1] = {1};

	get_typlenbyvalalign(type, &typlen, &byval, &align);
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs, type, typlen, byval, align));
}

/*
 * "(…) v": per object and value reached (its root), whether the value
 * equals the whole value J (eq: its rows are exactly J's rows, under
 * the same relative keys, with equal scalars — numbers as doubles, as
 * jsonb's = by value) and whether it is of J's kind (typed: an object,
 * or an array).  Every key under the values the path reaches is given
 * with its root, its kind and the number of J's row of its relative key
 * (0: none).
 */
static void
emit_value_rows(SqlBuf *buf, ArgoCollection *c, ArgoPath *path, Jsonb *j)
{
	ValueRows  *vr = value_rows(j);
	List	   *keys = sql_path_keys(c, path, true);
	int			n = list_length(keys);
	Datum	   *roots = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *rels = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *kinds = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *jrels = palloc(sizeof(Datum) * Max(vr->n, 1));
	HTAB	   *rootnums = keystr_hash_create("argo value roots", sizeof(RelEntry), CurrentMemoryContext);
	int			nsegs = path->nsegs;
	ListCell   *lc;

	foreach(lc, keys)
	{
		ArgoKey    *k = lfirst(lc);
		int			i = foreach_current_index(lc);
		char	   *root = keypath_from_segs(k->segs, nsegs);
		char	   *rel = relative_key(k, nsegs);
		RelEntry   *e;
		bool		found;

		e = hash_search(rootnums, &root, HASH_ENTER, &found);
		if (!found)
			e->n = hash_get_num_entries(rootnums);
		roots[i] = Int32GetDatum(e->n);
		e = hash_search(vr->rels, &rel, HASH_FIND, NULL);
		rels[i] = Int32GetDatum(e ? e->n : 0);
		kinds[i] = Int32GetDatum(k->nsegs == nsegs ? 0 :
								 k->segs[nsegs].kind == KSEG_KEY ||
								 k->segs[nsegs].kind == KSEG_EMPTY_OBJECT ? 1 : 2);
	}
	for (int i = 0; i < vr->n; i++)
		jrels[i] = Int32GetDatum(i + 1);
	buf->custom_plan = true;
	appendStringInfo(&buf->sql,
					 "(SELECT r.objid, m.root, pg_catalog.bool_and(m.kind OPERATOR(pg_catalog.=) %d) AS typed,"
					 " pg_catalog.count(*) OPERATOR(pg_catalog.=) %d AND pg_catalog.count(j.rel) OPERATOR(pg_catalog.=) %d AS eq FROM ",
					 vr->kind, vr->n, vr->n);
	sql_rows_of_table(buf, c);
	appendStringInfo(&buf->sql,
					 " r JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS m(k, root, rel, kind)"
					 " ON r.keyid OPERATOR(pg_catalog.=) m.k",
					 sql_keys_param(buf, keys),
					 sqlbuf_param(buf, INT4ARRAYOID, array_of(roots, NULL, n, INT4OID)),
					 sqlbuf_param(buf, INT4ARRAYOID, array_of(rels, NULL, n, INT4OID)),
					 sqlbuf_param(buf, INT4ARRAYOID, array_of(kinds, NULL, n, INT4OID)));
	appendStringInfo(&buf->sql,
					 " LEFT JOIN ROWS FROM (pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d), pg_catalog.unnest($%d)) AS j(rel, t, s, n, b)"
					 " ON j.rel OPERATOR(pg_catalog.=) m.rel AND CASE j.t WHEN 0 THEN r.valstr OPERATOR(pg_catalog.=) j.s"
					 " WHEN 1 THEN r.valnum OPERATOR(pg_catalog.=) j.n WHEN 2 THEN r.valbool OPERATOR(pg_catalog.=) j.b"
					 " ELSE pg_catalog.num_nonnulls(r.valstr, r.valnum, r.valbool) OPERATOR(pg_catalog.=) 0 END"
					 " GROUP BY r.objid, m.root) v",
					 sqlbuf_param(buf, INT4ARRAYOID, array_of(jrels, NULL, vr->n, INT4OID)),
					 sqlbuf_param(buf, INT4ARRAYOID, array_of(vr->types, NULL, vr->n, INT4OID)),
					 sqlbuf_param(buf, TEXTARRAYOID, array_of(vr->strs, vr->strnull, vr->n, TEXTOID)),
					 sqlbuf_param(buf, FLOAT8ARRAYOID, array_of(vr->nums, vr->numnull, vr->n, FLOAT8OID)),
					 sqlbuf_param(buf, BOOLARRAYOID, array_of(vr->bools, vr->boolnull, vr->n, BOOLOID)));
}

/*
 * p = json, p != json, with json an object or array (reference.md §7): the whole
 * value at p compared, TRUE or FALSE where p has a value, else UNKNOWN.
 * On a path with [*], existential as any comparison (reference.md §3.1): the values
 * reached "of the literal's type" are objects (arrays) for an object
 * (array) literal.
 */
void
sql_whole_value(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	/* = wanted TRUE, or != wanted FALSE: the values equal to J */
	bool		equal = (p->op == ACMP_EQ) == truth;

	appendStringInfoString(&buf->sql, "(SELECT objid FROM ");
	emit_value_rows(buf, c, p->path, p->lit->json);
	if (!p->path->wild)
	{
		appendStringInfo(&buf->sql, " WHERE %seq)", equal ? "" : "NOT ");
		return;
	}
	if (truth)
		appendStringInfo(&buf->sql, " WHERE %s)", p->op == ACMP_EQ ? "eq" : "typed AND NOT eq");
	else
		appendStringInfo(&buf->sql, " GROUP BY objid HAVING pg_catalog.bool_and(typed) AND %s)",
						 p->op == ACMP_EQ ? "NOT pg_catalog.bool_or(eq)" : "pg_catalog.bool_and(eq)");
	if (truth)
		return;
	/* FALSE too where the array at the first [*] is empty */
	appendStringInfoString(&buf->sql, " UNION (SELECT objid FROM ");
	sql_rows_of_table(buf, c);
	appendStringInfo(&buf->sql, " r WHERE keyid OPERATOR(pg_catalog.=) $%d)",
					 sql_key_param(buf, c, psprintf("%s" ARGO_MARK_EMPTY_ARRAY, p->path->prefix)));
}
