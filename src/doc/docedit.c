/*
 * docedit.c — a document changed on its way out: its id added under a
 * key (RETURNING *, ID()), an aggregate's whole value added, paths taken
 * out (SELECT * EXCEPT), an array's distinct values (ARRAY_AGG(DISTINCT)).
 *
 * A write's RETURNING * hands back each object as written, a jsonb it
 * already holds; the id is added to that value rather than rebuilding
 * the object with it, and refused where the object has the key already,
 * as SELECT *, ID() refuses it (reconstruct.c).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "doc/doc.h"

/*
 * doc (an object) with value under key name: added, or (replace) in
 * place of what is there; else a key already there is 42712, objid
 * naming the object.
 */
static Jsonb *
with_member(Jsonb *doc, const char *name, JsonbValue *value, bool replace, int64 objid)
{
	JsonbParseState *state = NULL;
	JsonbIterator *it = JsonbIteratorInit(&doc->root);
	JsonbIteratorToken tok;
	JsonbValue	v;
	JsonbValue *res = NULL;
	int			namelen = strlen(name);
	bool		skip = false;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY && v.val.string.len == namelen &&
			memcmp(v.val.string.val, name, namelen) == 0)
		{
			if (!replace)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_ALIAS),
						 errmsg("object " INT64_FORMAT " already has a key \"%s\"", objid, name),
						 errhint("Name the id otherwise: RETURNING *, ID() AS id.")));
			skip = true;
			continue;
		}
		if (skip && tok == WJB_VALUE)
		{
			skip = false;
			continue;
		}
		/* nested containers come whole (skipNested): this ends the object */
		if (tok == WJB_END_OBJECT)
		{
			JsonbValue	key = {.type = jbvString};

			key.val.string.val = (char *) name;
			key.val.string.len = namelen;
			pushJsonbValue(&state, WJB_KEY, &key);
			pushJsonbValue(&state, WJB_VALUE, value);
		}
		res = pushJsonbValue(&state, tok, tok < WJB_BEGIN_ARRAY ? &v : NULL);
	}
	return JsonbValueToJsonb(res);
}

/* value as one JsonbValue a container can take */
static JsonbValue
as_value(Jsonb *value)
{
	JsonbValue	v;

	if (!JsonbExtractScalar(&value->root, &v))
	{
		v.type = jbvBinary;
		v.val.binary.data = &value->root;
		v.val.binary.len = VARSIZE(value) - VARHDRSZ;
	}
	return v;
}

/* doc (an object) with "name": id among its keys. */
Jsonb *
doc_with_id(Jsonb *doc, const char *name, int64 objid)
{
	JsonbValue	id = {.type = jbvNumeric};

	id.val.numeric = int64_to_numeric(objid);
	return with_member(doc, name, &id, false, objid);
}

/* doc (an object) with value under name, in place of what is there. */
Jsonb *
doc_with_member(Jsonb *doc, const char *name, Jsonb *value)
{
	JsonbValue	v = as_value(value);

	return with_member(doc, name, &v, true, 0);
}

/* An array of arrays as one array of their elements, in order. */
Jsonb *
doc_flatten(Jsonb *arrays)
{
	JsonbIterator *it = JsonbIteratorInit(&arrays->root);
	JsonbIteratorToken tok;
	JsonbValue	e;
	JsonbParseState *state = NULL;

	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		JsonbIterator *inner;
		JsonbValue	v;

		if (tok != WJB_ELEM || e.type != jbvBinary || !JsonContainerIsArray(e.val.binary.data))
			continue;
		inner = JsonbIteratorInit(e.val.binary.data);
		while ((tok = JsonbIteratorNext(&inner, &v, true)) != WJB_DONE)
			if (tok == WJB_ELEM)
				pushJsonbValue(&state, WJB_ELEM, &v);
	}
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_ARRAY, NULL));
}

/* Two values in ARRAY_AGG(DISTINCT)'s order: scalars by their sort keys. */
typedef struct DistinctValue
{
	JsonbValue	v;
	StringInfoData key;			/* data NULL: not a scalar (null, object, array) */
	int			first;			/* where first met */
} DistinctValue;

static int
distinct_cmp(const void *a, const void *b)
{
	const DistinctValue *x = a;
	const DistinctValue *y = b;

	if (x->key.data != NULL && y->key.data != NULL)
		return argo_sort_key_cmp((StringInfo) &x->key, (StringInfo) &y->key);
	if (x->key.data != NULL || y->key.data != NULL)
		return x->key.data != NULL ? -1 : 1;
	return x->first - y->first;
}

/*
 * The distinct values of array (jsonb equality), scalars in Argo's order
 * (numbers, strings, booleans), then nulls, objects and arrays in the
 * order first met: ARRAY_AGG(DISTINCT p), MongoDB's $addToSet.
 */
Jsonb *
doc_distinct_values(Jsonb *array)
{
	JsonbIterator *it = JsonbIteratorInit(&array->root);
	JsonbIteratorToken tok;
	JsonbValue	e;
	DistinctValue *d = palloc(sizeof(DistinctValue) * Max(JsonContainerSize(&array->root), 1));
	int			n = 0;
	JsonbParseState *state = NULL;

	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		Jsonb	   *ej;
		bool		seen = false;

		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		ej = JsonbValueToJsonb(&e);
		for (int i = 0; i < n && !seen; i++)
			seen = compareJsonbContainers(&JsonbValueToJsonb(&d[i].v)->root, &ej->root) == 0;
		if (seen)
			continue;
		d[n].v = e;
		d[n].first = n;
		initStringInfo(&d[n].key);
		if (!argo_value_sort_key(&e, &d[n].key))
			d[n].key.data = NULL;
		n++;
	}
	qsort(d, n, sizeof(DistinctValue), distinct_cmp);
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
		pushJsonbValue(&state, WJB_ELEM, &d[i].v);
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_ARRAY, NULL));
}

/* Whether an array step reaches the element at index (of size): [*], a filter, a position. */
static bool
element_matches(const DocCutStep *step, JsonbValue *elem, int index, int size)
{
	if (step->every)
		return step->filter == NULL || doc_filter_keeps(elem, step->filter);
	return step->index == (step->index < 0 ? index - size : index);
}

/*
 * Which of the paths name a member at depth: *ends when one ends there
 * (the member goes), and into below those that go on inside it.
 */
static int
paths_through(const DocCutPath **paths, int npaths, int depth, const JsonbValue *key,
			  JsonbValue *elem, int index, int size, const DocCutPath **below, bool *ends)
{
	int			n = 0;

	*ends = false;
	for (int i = 0; i < npaths; i++)
	{
		const DocCutStep *step = &paths[i]->steps[depth];
		bool		match = key != NULL ?
			(step->key != NULL && strlen(step->key) == key->val.string.len &&
			 memcmp(step->key, key->val.string.val, key->val.string.len) == 0) :
			(step->key == NULL && element_matches(step, elem, index, size));

		if (!match)
			continue;
		if (depth + 1 == paths[i]->nsteps)
			*ends = true;
		else
			below[n++] = paths[i];
	}
	return n;
}

static JsonbValue *copy_without(JsonbParseState **st, JsonbContainer *c,
								const DocCutPath **paths, int npaths, int depth);

/* A member's value: copied whole, or without what the paths below it name. */
static void
push_member(JsonbParseState **st, JsonbIteratorToken tok, JsonbValue *v,
			const DocCutPath **below, int nbelow, int depth)
{
	if (nbelow > 0 && v->type == jbvBinary)
		copy_without(st, v->val.binary.data, below, nbelow, depth + 1);
	else
		pushJsonbValue(st, tok, v);
}

/*
 * The container c pushed into st without the members the paths name at
 * depth and below (the paths whose steps so far led to c); the container
 * made, as its closing push gives it.
 */
static JsonbValue *
copy_without(JsonbParseState **st, JsonbContainer *c, const DocCutPath **paths,
			 int npaths, int depth)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbIteratorToken tok;
	JsonbValue	v;
	JsonbValue	key;
	JsonbValue *res = NULL;
	const DocCutPath **below = palloc(sizeof(DocCutPath *) * Max(npaths, 1));
	int			index = 0;
	int			size = JsonContainerSize(c);

	check_stack_depth();
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		bool		ends;
		int			nbelow;

		if (tok == WJB_KEY)
			key = v;
		else if (tok == WJB_VALUE)
		{
			nbelow = paths_through(paths, npaths, depth, &key, NULL, -1, 0, below, &ends);
			if (ends)
				continue;
			pushJsonbValue(st, WJB_KEY, &key);
			push_member(st, WJB_VALUE, &v, below, nbelow, depth);
		}
		else if (tok == WJB_ELEM)
		{
			nbelow = paths_through(paths, npaths, depth, NULL, &v, index++, size, below, &ends);
			if (!ends)
				push_member(st, WJB_ELEM, &v, below, nbelow, depth);
		}
		else
			res = pushJsonbValue(st, tok, NULL);
	}
	return res;
}

/*
 * doc without the values the paths reach (SELECT * EXCEPT): a path the
 * document lacks changes nothing; an element step removes that element
 * (every element for [*]), and the array closes up.
 */
Jsonb *
doc_without(Jsonb *doc, const DocCutPath *paths, int npaths)
{
	JsonbParseState *st = NULL;
	const DocCutPath **top = palloc(sizeof(DocCutPath *) * Max(npaths, 1));
	int			n = 0;

	for (int i = 0; i < npaths; i++)
		if (paths[i].nsteps > 0)
			top[n++] = &paths[i];
	return JsonbValueToJsonb(copy_without(&st, &doc->root, top, n, 0));
}
