/*
 * update_ops.c — what UPDATE's SET list does to one object, as jsonb.
 *
 * p = v and UNSET p go through PostgreSQL's own jsonb_set and
 * jsonb_delete_path; the operators an application would otherwise
 * read-modify-write from the client (MongoDB's $inc, $push, $addToSet,
 * $pull) read the value at p and set the result.  Numbers add as numeric,
 * so 0.1 += 0.2 stores 0.3, as jsonb arithmetic would.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "common/numbers.h"
#include "doc/doc.h"
#include "doc/docexpr.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/update.h"

/* The path's steps as jsonb_set wants them: keys, and indexes as text. */
static Datum
path_array(List *steps, int nsteps)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(nsteps, 1));

	for (int i = 0; i < nsteps; i++)
	{
		ArgoStep   *s = list_nth(steps, i);

		if (s->is_index && s->index > PG_INT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("array index " INT64_FORMAT " is out of range", s->index)));
		elems[i] = s->is_index ?
			CStringGetTextDatum(psprintf(INT64_FORMAT, s->index)) :
			CStringGetTextDatum(s->key);
	}
	return PointerGetDatum(construct_array(elems, nsteps, TEXTOID, -1, false,
										   TYPALIGN_INT));
}

/* The value at the first nsteps steps, or NULL when missing. */
static JsonbValue *
set_value_at(Jsonb *doc, List *steps, int nsteps)
{
	JsonbContainer *cont = &doc->root;
	JsonbValue *v = NULL;

	for (int i = 0; i < nsteps; i++)
	{
		ArgoStep   *s = list_nth(steps, i);

		if (v != NULL && v->type != jbvBinary)
			return NULL;
		if (s->is_index)
			v = JsonContainerIsArray(cont) && s->index <= PG_INT32_MAX ?
				getIthJsonbValueFromContainer(cont, (uint32) s->index) : NULL;
		else
			v = JsonContainerIsObject(cont) ?
				getKeyJsonValueFromContainer(cont, s->key, strlen(s->key), NULL) : NULL;
		if (v == NULL)
			return NULL;
		if (v->type == jbvBinary)
			cont = v->val.binary.data;
	}
	return v;
}

static Jsonb *
empty_container(bool array)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
											  CStringGetDatum(array ? "[]" : "{}")));
}

static Jsonb *
set_at(Jsonb *doc, List *steps, int nsteps, Jsonb *value)
{
	return DatumGetJsonbP(DirectFunctionCall4(jsonb_set, JsonbPGetDatum(doc),
											  path_array(steps, nsteps),
											  JsonbPGetDatum(value),
											  BoolGetDatum(true)));
}

/* The number of elements of the array at the first nsteps steps (0: not one). */
static uint32
array_size_at(Jsonb *doc, List *steps, int nsteps)
{
	JsonbValue *v;

	if (nsteps == 0)
		return 0;
	v = set_value_at(doc, steps, nsteps);
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		return 0;
	return JsonContainerSize(v->val.binary.data);
}

/* A copy of the steps that may be changed. */
static List *
steps_copy(List *steps)
{
	List	   *copy = NIL;
	ListCell   *lc;

	foreach(lc, steps)
	{
		ArgoStep   *s = palloc(sizeof(ArgoStep));

		*s = *(ArgoStep *) lfirst(lc);
		copy = lappend(copy, s);
	}
	return copy;
}

/*
 * SET p = v: create what is missing on the way, as MongoDB's $set does;
 * a scalar in the way is an error, not silently replaced.  An index past
 * an array's end appends there, whatever follows it (a[3].c = 5 on a
 * two-element array makes a[2] {"c": 5}): the rest of the path goes on
 * from the element appended, where jsonb_set put it, not from a position
 * that does not exist (which jsonb_set would silently not create).
 */
Jsonb *
argo_apply_set(Jsonb *doc, ArgoPath *path, Jsonb *value)
{
	int			n = list_length(path->steps);
	List	   *steps = steps_copy(path->steps);

	for (int i = 0; i < n; i++)
	{
		ArgoStep   *s = list_nth(steps, i);
		bool		want_array;
		JsonbValue *v;

		if (s->is_index && s->index >= 0 && s->index <= PG_INT32_MAX &&
			s->index > array_size_at(doc, steps, i))
			s->index = array_size_at(doc, steps, i);
		if (i == n - 1)
			break;
		want_array = ((ArgoStep *) list_nth(steps, i + 1))->is_index;
		v = set_value_at(doc, steps, i + 1);
		if (v == NULL)
			doc = set_at(doc, steps, i + 1, empty_container(want_array));
		else if (v->type != jbvBinary ||
				 (want_array ? !JsonContainerIsArray(v->val.binary.data) :
				  !JsonContainerIsObject(v->val.binary.data)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot set \"%s\"", path->keystr),
					 errdetail("A value on the way is not %s.", want_array ? "an array" : "an object")));
	}
	return set_at(doc, steps, n, value);
}

static const char *
json_type_name(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvBool:
			return "a boolean";
		default:
			return JsonContainerIsArray(v->val.binary.data) ? "an array" : "an object";
	}
}

static Jsonb *
numeric_jsonb(Numeric n)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = n;
	return JsonbValueToJsonb(&v);
}

/* p += n (p -= n): a missing p becomes n, as with MongoDB's $inc. */
static Jsonb *
apply_inc(Jsonb *doc, ArgoSetItem *item)
{
	ArgoPath   *path = item->path;
	JsonbValue	amount;
	Numeric		n;
	JsonbValue *v = set_value_at(doc, path->steps, list_length(path->steps));

	if (!JsonbExtractScalar(&item->value->value->root, &amount) ||
		amount.type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s needs a number", item->negate ? "-=" : "+=")));
	n = amount.val.numeric;
	if (item->negate)
		n = DatumGetNumeric(DirectFunctionCall1(numeric_uminus, NumericGetDatum(n)));
	if (v != NULL && v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot add to \"%s\"", path->keystr),
				 errdetail("Its value is %s, not a number.", json_type_name(v))));
	if (v != NULL)
		n = DatumGetNumeric(DirectFunctionCall2(numeric_add,
												NumericGetDatum(v->val.numeric),
												NumericGetDatum(n)));
	return argo_apply_set(doc, path, numeric_jsonb(n));
}

/* value as an element to push: a scalar, or a container as binary */
static void
push_json(JsonbParseState **st, Jsonb *value)
{
	JsonbValue	v;

	if (!JsonbExtractScalar(&value->root, &v))
	{
		v.type = jbvBinary;
		v.val.binary.data = &value->root;
		v.val.binary.len = VARSIZE(value) - VARHDRSZ;
	}
	pushJsonbValue(st, WJB_ELEM, &v);
}

/* APPEND EACH: every element of the array value, in order. */
static void
push_elements(JsonbParseState **st, Jsonb *value)
{
	JsonbIterator *it = JsonbIteratorInit(&value->root);
	JsonbIteratorToken tok;
	JsonbValue	e;

	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		if (tok == WJB_ELEM)
			pushJsonbValue(st, WJB_ELEM, &e);
}

/* KEEP LAST n (FIRST n): the array cut down to its last (first) n elements. */
static Jsonb *
keep_elements(Jsonb *array, uint32 n, bool first)
{
	uint32		size = JsonContainerSize(&array->root);
	uint32		from = first || n >= size ? 0 : size - n;
	JsonbParseState *st = NULL;

	if (n >= size)
		return array;
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (uint32 i = from; i < from + n; i++)
		pushJsonbValue(&st, WJB_ELEM, getIthJsonbValueFromContainer(&array->root, i));
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
}

/*
 * The values an array operator takes: v, or with EACH each element of v
 * (its length into n).
 */
static Jsonb **
operand_values(ArgoSetItem *item, int *n)
{
	Jsonb	   *value = item->value->value;
	Jsonb	  **out;

	if (!item->each)
	{
		*n = 1;
		out = palloc(sizeof(Jsonb *));
		out[0] = value;
		return out;
	}
	*n = JsonContainerSize(&value->root);
	out = palloc(sizeof(Jsonb *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		out[i] = JsonbValueToJsonb(getIthJsonbValueFromContainer(&value->root, i));
	return out;
}

/* Whether elem equals one of the values (JSON equality); each it equals is marked present. */
static bool
mark_equal(JsonbValue *elem, Jsonb **values, int n, bool *present)
{
	Jsonb	   *e = JsonbValueToJsonb(elem);
	bool		any = false;

	for (int i = 0; i < n; i++)
		if (compareJsonbContainers(&e->root, &values[i]->root) == 0)
			any = present[i] = true;
	return any;
}

/* ADD's values the array lacks, each once, in their order. */
static void
push_missing(JsonbParseState **st, Jsonb **values, int n, bool *present)
{
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (present[i])
			continue;
		push_json(st, values[i]);
		for (int j = i + 1; j < n; j++)
			if (compareJsonbContainers(&values[i]->root, &values[j]->root) == 0)
				present[j] = true;
	}
}

/*
 * p APPEND v, p ADD v (unless an equal element is there), p REMOVE v
 * (every equal element); with EACH, each element of v.  A missing p is
 * [v] (REMOVE: nothing to do).
 */
static Jsonb *
apply_array_op(Jsonb *doc, ArgoSetItem *item)
{
	ArgoPath   *path = item->path;
	Jsonb	   *value = item->value->value;
	JsonbValue *v = set_value_at(doc, path->steps, list_length(path->steps));
	JsonbParseState *st = NULL;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	bool		found = false;
	int			n;
	Jsonb	  **values;
	bool	   *present;

	if (v == NULL && item->kind == ASET_REMOVE)
		return doc;
	if (v != NULL && (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 item->kind == ASET_REMOVE ? errmsg("cannot remove from \"%s\"", path->keystr) :
				 errmsg("cannot add to \"%s\"", path->keystr),
				 errdetail("Its value is %s, not an array.", json_type_name(v))));
	values = operand_values(item, &n);
	present = palloc0(sizeof(bool) * Max(n, 1));
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	if (v != NULL)
	{
		it = JsonbIteratorInit(v->val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			bool		same;

			if (tok != WJB_ELEM)
				continue;
			CHECK_FOR_INTERRUPTS();
			same = item->kind != ASET_APPEND && mark_equal(&e, values, n, present);
			found |= same;
			if (!(same && item->kind == ASET_REMOVE))
				pushJsonbValue(&st, WJB_ELEM, &e);
		}
	}
	if (item->kind == ASET_REMOVE && !found)
		return doc;
	if (item->kind == ASET_APPEND && item->each)
		push_elements(&st, value);
	else if (item->kind == ASET_APPEND)
		push_json(&st, value);
	else if (item->kind == ASET_ADD)
		push_missing(&st, values, n, present);
	value = JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
	if (item->keep != NULL)
		value = keep_elements(value, (uint32) item->keep->num, item->keep->keep_first);
	return argo_apply_set(doc, path, value);
}

/*
 * UNSET p: remove the value at p.  A path that reaches nothing — a key
 * missing, or a step into a value that is not the object or array the
 * step needs (a key of an array, a key of a number) — removes nothing,
 * as MongoDB's $unset; jsonb_delete_path would take a key of an array
 * for a position and fail.
 */
static Jsonb *
apply_unset(Jsonb *doc, ArgoPath *path)
{
	int			n = list_length(path->steps);

	if (set_value_at(doc, path->steps, n) == NULL)
		return doc;
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_delete_path, JsonbPGetDatum(doc),
											  path_array(path->steps, n)));
}

static Jsonb *
apply_item(Jsonb *doc, ArgoSetItem *item)
{
	switch (item->kind)
	{
		case ASET_SET:
			return argo_apply_set(doc, item->path, item->value->value);
		case ASET_UNSET:
			return apply_unset(doc, item->path);
		case ASET_INC:
			return apply_inc(doc, item);
		case ASET_APPEND:
		case ASET_ADD:
		case ASET_REMOVE:
			return apply_array_op(doc, item);
	}
	return doc;
}

static void expand_steps(Jsonb *doc, List *steps, int i, List *prefix, List **out);

/*
 * a[-n] (reference.md §5.4): the n-th element from the end of the array at prefix, as
 * a position; past the front, or no array, it reaches nothing (a SET
 * there is refused by apply_through_arrays).
 */
static void
expand_from_end(Jsonb *doc, List *steps, int i, List *prefix, List **out)
{
	ArgoStep   *step = list_nth(steps, i);
	JsonbValue *v = set_value_at(doc, prefix, list_length(prefix));
	ArgoStep   *at;
	int64		pos;

	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		return;
	pos = (int64) JsonContainerSize(v->val.binary.data) + step->index;
	if (pos < 0)
		return;
	at = palloc0(sizeof(ArgoStep));
	at->is_index = true;
	at->index = pos;
	expand_steps(doc, steps, i + 1, lappend(list_copy(prefix), at), out);
}

/* steps[i…] from the value at prefix: each path of positions they reach, into out. */
static void
expand_steps(Jsonb *doc, List *steps, int i, List *prefix, List **out)
{
	ArgoStep   *step;
	JsonbValue *v;
	uint32		n;
	Jsonb	   *spec;

	check_stack_depth();
	if (i == list_length(steps))
	{
		*out = lappend(*out, prefix);
		return;
	}
	step = list_nth(steps, i);
	if (step->is_index && !step->is_wild && step->index < 0)
	{
		expand_from_end(doc, steps, i, prefix, out);
		return;
	}
	if (!step->is_wild)
	{
		expand_steps(doc, steps, i + 1, lappend(list_copy(prefix), step), out);
		return;
	}
	/* a missing array, or no array there: nothing changes there */
	v = set_value_at(doc, prefix, list_length(prefix));
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		return;
	n = JsonContainerSize(v->val.binary.data);
	spec = step->filter ? sql_pred_spec(step->filter) : NULL;
	for (uint32 k = 0; k < n; k++)
	{
		ArgoStep   *at = palloc0(sizeof(ArgoStep));

		CHECK_FOR_INTERRUPTS();
		if (spec != NULL &&
			!doc_filter_keeps(getIthJsonbValueFromContainer(v->val.binary.data, k), spec))
			continue;
		at->is_index = true;
		at->index = k;
		expand_steps(doc, steps, i + 1, lappend(list_copy(prefix), at), out);
	}
}

/*
 * Whether a path whose only array steps are plain or negative positions
 * meets an array too short for one of its negative positions.
 */
static bool
reaches_past_front(Jsonb *doc, List *steps)
{
	for (int i = 0; i < list_length(steps); i++)
	{
		ArgoStep   *step = list_nth(steps, i);
		JsonbValue *v;

		if (step->is_wild)
			return false;
		if (!step->is_index || step->index >= 0)
			continue;
		v = set_value_at(doc, steps, i);
		return v != NULL && v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data) &&
			(int64) JsonContainerSize(v->val.binary.data) + step->index < 0;
	}
	return false;
}

/*
 * A change through [*] or filters [? …] (reference.md §5.3): the path expanded, on
 * this object, into a path of positions for each element it reaches (a
 * filter's, those its predicate keeps), each changed as a path without
 * them would be; an array missing on the way changes nothing there.
 * UNSET takes the elements from the last, so positions stay right.
 * false when the path reached nothing.
 */
static bool
apply_through_arrays(Jsonb **doc, ArgoSetItem *item)
{
	List	   *paths = NIL;
	int			n;

	expand_steps(*doc, item->path->steps, 0, NIL, &paths);
	n = list_length(paths);
	if (n == 0 && item->kind != ASET_UNSET && reaches_past_front(*doc, item->path->steps))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot set \"%s\"", item->path->keystr),
				 errdetail("A negative index reaches before the array's first element.")));
	for (int k = 0; k < n; k++)
	{
		ArgoSetItem one = *item;
		ArgoPath	path = *item->path;

		path.steps = list_nth(paths, item->kind == ASET_UNSET ? n - 1 - k : k);
		path.wild = path.filtered = false;
		one.path = &path;
		*doc = apply_item(*doc, &one);
	}
	return n > 0;
}

/*
 * The SET list applied to doc; *applied is false where every change goes
 * through [*] or a filter and none reached an element (the object is not
 * updated, as MongoDB's positional updates).
 */
/*
 * SET p = expr's value on the object as it was (every SET of a statement
 * reads that one), JSON null where it has none; compiled once, in the
 * statement's memory.
 */
static Jsonb *
computed_value(ArgoSetItem *item, Jsonb *doc)
{
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	JsonbValue	v;

	if (item->compiled == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(item));

		item->compiled = doc_compute_compile(sql_expr_spec(item->expr));
		MemoryContextSwitchTo(old);
	}
	if (!doc_expr_eval(item->compiled, &root, &v))
		v.type = jbvNull;
	/* a number given out must be one a document could hold (22003) */
	if (v.type == jbvNumeric)
		(void) argo_number_from_numeric(v.val.numeric, NULL);
	return JsonbValueToJsonb(&v);
}

Jsonb *
argo_apply_changes(Jsonb *doc, List *sets, bool *applied)
{
	ListCell   *lc;
	bool		any = false;
	Jsonb	  **computed = palloc0(sizeof(Jsonb *) * Max(list_length(sets), 1));

	foreach(lc, sets)
		if (((ArgoSetItem *) lfirst(lc))->expr != NULL)
			computed[foreach_current_index(lc)] = computed_value(lfirst(lc), doc);
	foreach(lc, sets)
	{
		ArgoSetItem *item = lfirst(lc);

		if (item->expr != NULL)
		{
			doc = argo_apply_set(doc, item->path, computed[foreach_current_index(lc)]);
			any = true;
		}
		else if (item->path->wild || item->path->filtered)
			any |= apply_through_arrays(&doc, item);
		else
		{
			doc = apply_item(doc, item);
			any = true;
		}
	}
	if (applied != NULL)
		*applied = any;
	return doc;
}
