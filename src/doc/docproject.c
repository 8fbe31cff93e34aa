/*
 * docproject.c — a kept document cut down to a projection's paths.
 *
 * A projection of a few objects (SELECT userid, fname … WHERE userid IN
 * $1) read the rows of its keys where each object's map said: for BG's
 * members, 130 rows on three pages an object for four values.  When the
 * collection keeps its documents, the object's jsonb holds the same
 * values, and the projection is the document's value at each path, put
 * under the same path: what rebuilding the paths' rows gives (an object
 * with none of them gives nothing, as it has no rows).  Only paths of
 * object keys, none inside another (exec/shape.c checks a projection's).
 * An UPDATE cuts both versions of an object down to the members it
 * changes the same way before comparing their rows (exec/update.c).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/jsonb.h"

#include "doc/doc.h"

typedef struct Found
{
	const DocPath *path;
	JsonbValue	value;
} Found;

static int
cmp_found(const void *a, const void *b)
{
	const DocPath *pa = ((const Found *) a)->path;
	const DocPath *pb = ((const Found *) b)->path;

	for (int i = 0; i < pa->nsteps && i < pb->nsteps; i++)
	{
		int			c = strcmp(pa->keys[i], pb->keys[i]);

		if (c != 0)
			return c;
	}
	return (pa->nsteps > pb->nsteps) - (pa->nsteps < pb->nsteps);
}

/* The value at path in doc, into out; false where there is none. */
static bool
project_value_at(Jsonb *doc, const DocPath *path, JsonbValue *out)
{
	JsonbContainer *cur = &doc->root;

	for (int i = 0; i < path->nsteps; i++)
	{
		JsonbValue	key;
		JsonbValue *v;

		if (cur == NULL || !JsonContainerIsObject(cur))
			return false;
		key.type = jbvString;
		key.val.string.val = path->keys[i];
		key.val.string.len = strlen(path->keys[i]);
		v = findJsonbValueFromContainer(cur, JB_FOBJECT, &key);
		if (v == NULL)
			return false;
		if (i + 1 == path->nsteps)
		{
			*out = *v;
			return true;
		}
		cur = v->type == jbvBinary ? v->val.binary.data : NULL;
	}
	return false;
}

/* found[lo, hi), sorted, sharing their first depth keys: their members at depth. */
static void
push_level(JsonbParseState **st, Found *found, int lo, int hi, int depth)
{
	int			i = lo;

	check_stack_depth();		/* one level a step of the longest path */
	while (i < hi)
	{
		const char *k = found[i].path->keys[depth];
		int			j = i + 1;
		JsonbValue	key;

		while (j < hi && strcmp(found[j].path->keys[depth], k) == 0)
			j++;
		key.type = jbvString;
		key.val.string.val = (char *) k;
		key.val.string.len = strlen(k);
		pushJsonbValue(st, WJB_KEY, &key);
		if (found[i].path->nsteps == depth + 1)
			pushJsonbValue(st, WJB_VALUE, &found[i].value);
		else
		{
			pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
			push_level(st, found, i, j, depth + 1);
			pushJsonbValue(st, WJB_END_OBJECT, NULL);
		}
		i = j;
	}
}

/* doc's values at the paths, each under its path; NULL when it has none of them. */
Jsonb *
doc_project(Jsonb *doc, const DocPath *paths, int npaths)
{
	Found	   *found = palloc(sizeof(Found) * Max(npaths, 1));
	int			n = 0;
	JsonbParseState *st = NULL;
	JsonbValue *res;

	if (!JB_ROOT_IS_OBJECT(doc))
		return NULL;
	for (int i = 0; i < npaths; i++)
	{
		found[n].path = &paths[i];
		if (project_value_at(doc, &paths[i], &found[n].value))
			n++;
	}
	if (n == 0)
		return NULL;
	qsort(found, n, sizeof(Found), cmp_found);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_level(&st, found, 0, n, 0);
	res = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	pfree(found);
	return JsonbValueToJsonb(res);
}
