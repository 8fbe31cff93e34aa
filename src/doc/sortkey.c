/*
 * sortkey.c — the value at a path of a document, as the sort keys of
 * ORDER BY: argo_sort_num, argo_sort_str, argo_sort_bool.
 *
 * Every object of a collection that keeps its documents, sorted, is
 * sorted by what its document holds at the path rather than by the rows
 * joined from the value tables: at 1M objects the joins cost as much as
 * the sort.  The three functions give exactly what the rows' columns
 * would: a number as its double (valnum), a string as its text (valstr),
 * a boolean (valbool), and NULL where the path holds another type, a
 * null, an object or an array, or nothing — so sorting by the three in
 * turn orders numbers, strings, booleans, then the rest, as the rows do
 * (sql/fragments.c).
 *
 * The path is a jsonb array of steps: a string is an object key, a
 * number an array position, so that a[1] never reaches a key "1".
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "common/common.h"

PG_FUNCTION_INFO_V1(argo_sort_num);
PG_FUNCTION_INFO_V1(argo_sort_str);
PG_FUNCTION_INFO_V1(argo_sort_bool);

/* The step's array position, or -1 for one no array has. */
static int32
step_index(JsonbValue *step)
{
	bool		have_error = false;
	int32		i = numeric_int4_opt_error(step->val.numeric, &have_error);

	return have_error || i < 0 ? -1 : i;
}

/* The value at path in doc; false where there is none. */
static bool
path_value(Jsonb *doc, Jsonb *path, JsonbValue *out)
{
	JsonbContainer *cur = &doc->root;
	uint32		nsteps;

	if (!JB_ROOT_IS_ARRAY(path) || JB_ROOT_IS_SCALAR(path) || JB_ROOT_IS_SCALAR(doc))
		return false;
	nsteps = JB_ROOT_COUNT(path);
	for (uint32 s = 0; s < nsteps; s++)
	{
		JsonbValue *step = getIthJsonbValueFromContainer(&path->root, s);
		JsonbValue *v = NULL;

		if (cur == NULL || step == NULL)
			return false;
		if (step->type == jbvString && JsonContainerIsObject(cur))
			v = findJsonbValueFromContainer(cur, JB_FOBJECT, step);
		else if (step->type == jbvNumeric && JsonContainerIsArray(cur) && step_index(step) >= 0)
			v = getIthJsonbValueFromContainer(cur, (uint32) step_index(step));
		if (v == NULL)
			return false;
		if (s + 1 == nsteps)
		{
			*out = *v;
			return true;
		}
		cur = v->type == jbvBinary ? v->val.binary.data : NULL;
	}
	return false;
}

/* argo_sort_num(doc jsonb, path jsonb) RETURNS float8: a number's double, as valnum */
Datum
argo_sort_num(PG_FUNCTION_ARGS)
{
	JsonbValue	v;

	if (!path_value(PG_GETARG_JSONB_P(0), PG_GETARG_JSONB_P(1), &v) || v.type != jbvNumeric)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(argo_number_from_numeric(v.val.numeric, NULL));
}

/* argo_sort_str(doc jsonb, path jsonb) RETURNS text: a string, as valstr */
Datum
argo_sort_str(PG_FUNCTION_ARGS)
{
	JsonbValue	v;

	if (!path_value(PG_GETARG_JSONB_P(0), PG_GETARG_JSONB_P(1), &v) || v.type != jbvString)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(v.val.string.val, v.val.string.len));
}

/* argo_sort_bool(doc jsonb, path jsonb) RETURNS boolean: a boolean, as valbool */
Datum
argo_sort_bool(PG_FUNCTION_ARGS)
{
	JsonbValue	v;

	if (!path_value(PG_GETARG_JSONB_P(0), PG_GETARG_JSONB_P(1), &v) || v.type != jbvBool)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(v.val.boolean);
}
