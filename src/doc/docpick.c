/*
 * docpick.c — a projection whose paths go through filters [? pred] or
 * negative indices, made from the whole document: for each path, what
 * it reaches, under the same nesting as the object (reference.md §3.1's rule: an
 * array keeps the elements a path reaches, in their order, closed up),
 * the paths' parts merged.  A filter as a path's last step keeps the
 * array with the elements it keeps, whole ([] when it keeps none).
 * Paths are spec steps (sql/filter.c writes them, docpred.c reads them).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "common/numbers.h"
#include "doc/doc.h"

typedef struct PNode PNode;

typedef struct PMember
{
	JsonbValue	key;			/* an object's member, or … */
	int64		index;			/* … an array's element, by its place in the original */
	PNode	   *node;
} PMember;

struct PNode
{
	char		kind;			/* 'o' object, 'a' array, 'v' a value whole */
	JsonbValue	value;
	List	   *members;		/* of PMember */
};

static bool pick(JsonbValue *v, JsonbContainer *steps, int i, PNode **slot);

static bool
is_kind(JsonbValue *v, bool array)
{
	return v->type == jbvBinary &&
		(array ? JsonContainerIsArray(v->val.binary.data) : JsonContainerIsObject(v->val.binary.data));
}

/* The node at slot as an object or array; a whole value there already covers everything. */
static PNode *
container(PNode **slot, char kind)
{
	if (*slot == NULL)
	{
		*slot = palloc0(sizeof(PNode));
		(*slot)->kind = kind;
	}
	return *slot;
}

static PMember *
node_member(PNode *n, JsonbValue *key, int64 index)
{
	ListCell   *lc;
	PMember    *m;

	foreach(lc, n->members)
	{
		m = lfirst(lc);
		if (key != NULL ? (m->key.val.string.len == key->val.string.len &&
						   memcmp(m->key.val.string.val, key->val.string.val, key->val.string.len) == 0) :
			m->index == index)
			return m;
	}
	m = palloc0(sizeof(PMember));
	if (key != NULL)
		m->key = *key;
	m->index = index;
	n->members = lappend(n->members, m);
	return m;
}

/* Pick into a member of n (made if need be, dropped if nothing was picked). */
static bool
pick_member(PNode *n, JsonbValue *key, int64 index, JsonbValue *child, JsonbContainer *steps, int i)
{
	int			before = list_length(n->members);
	PMember    *m = node_member(n, key, index);

	if (pick(child, steps, i, &m->node))
		return true;
	if (list_length(n->members) > before)
		n->members = list_delete_last(n->members);
	return false;
}

/* The elements of the array v a [*] or filter step keeps, picked on. */
static bool
pick_elements(JsonbValue *v, JsonbValue *filter, bool last, JsonbContainer *steps, int i, PNode **slot)
{
	Jsonb	   *spec = filter ? JsonbValueToJsonb(filter) : NULL;
	PNode	   *n;
	bool		any = false;

	if (!is_kind(v, true))
		return false;
	if (*slot != NULL && (*slot)->kind == 'v')
		return true;
	n = container(slot, 'a');
	for (uint32 k = 0; k < JsonContainerSize(v->val.binary.data); k++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, k);

		CHECK_FOR_INTERRUPTS();
		if (spec != NULL && !doc_filter_keeps(e, spec))
			continue;
		any |= pick_member(n, NULL, k, e, steps, i + 1);
	}
	/* a filter ending the path keeps the array, even with no element */
	return any || (filter != NULL && last);
}

static bool
pick(JsonbValue *v, JsonbContainer *steps, int i, PNode **slot)
{
	JsonbValue *step;

	check_stack_depth();
	if (i == (int) JsonContainerSize(steps))
	{
		if (*slot == NULL)
			*slot = palloc0(sizeof(PNode));
		(*slot)->kind = 'v';
		(*slot)->value = *v;
		(*slot)->members = NIL;
		return true;
	}
	if (*slot != NULL && (*slot)->kind == 'v')
		return true;			/* the whole value is picked already */
	step = getIthJsonbValueFromContainer(steps, i);
	if (step->type == jbvString)
	{
		JsonbValue *child;

		if (!is_kind(v, false) ||
			(child = findJsonbValueFromContainer(v->val.binary.data, JB_FOBJECT, step)) == NULL)
			return false;
		return pick_member(container(slot, 'o'), step, 0, child, steps, i + 1);
	}
	if (step->type == jbvNumeric)
	{
		double		pos = argo_number_from_numeric(step->val.numeric, NULL);
		uint32		size;

		if (!is_kind(v, true))
			return false;
		size = JsonContainerSize(v->val.binary.data);
		if (pos < 0)
			pos += size;
		if (pos < 0 || pos >= size)
			return false;
		return pick_member(container(slot, 'a'), NULL, (int64) pos,
						   getIthJsonbValueFromContainer(v->val.binary.data, (uint32) pos), steps, i + 1);
	}
	return pick_elements(v, getKeyJsonValueFromContainer(step->val.binary.data, "?", 1, NULL),
						 i == (int) JsonContainerSize(steps) - 1, steps, i, slot);
}

static int
by_index(const ListCell *a, const ListCell *b)
{
	int64		x = ((PMember *) lfirst(a))->index;
	int64		y = ((PMember *) lfirst(b))->index;

	return (x > y) - (x < y);
}

static JsonbValue *
push_node(JsonbParseState **st, PNode *n, JsonbIteratorToken as)
{
	ListCell   *lc;
	JsonbValue *res;

	if (n->kind == 'v')
		return pushJsonbValue(st, as, &n->value);
	if (n->kind == 'a')
		list_sort(n->members, by_index);
	res = pushJsonbValue(st, n->kind == 'o' ? WJB_BEGIN_OBJECT : WJB_BEGIN_ARRAY, NULL);
	foreach(lc, n->members)
	{
		PMember    *m = lfirst(lc);

		if (n->kind == 'o')
			pushJsonbValue(st, WJB_KEY, &m->key);
		push_node(st, m->node, n->kind == 'o' ? WJB_VALUE : WJB_ELEM);
	}
	res = pushJsonbValue(st, n->kind == 'o' ? WJB_END_OBJECT : WJB_END_ARRAY, NULL);
	return res;
}

/*
 * doc cut down to what the paths (jsonb arrays of spec steps) reach;
 * NULL where they reach nothing (the object is not returned).
 */
Jsonb *
doc_pick(Jsonb *doc, Jsonb **paths, int npaths)
{
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	PNode	   *top = NULL;
	bool		any = false;
	JsonbParseState *st = NULL;

	for (int i = 0; i < npaths; i++)
		any |= pick(&root, &paths[i]->root, 0, &top);
	if (!any)
		return NULL;
	return JsonbValueToJsonb(push_node(&st, top, WJB_VALUE));
}
