/*
 * compute.c — the SQL functions an aggregate over expressions and an
 * exact SUM read their values with (reference.md §9.2, §9.3).
 *
 * argo_compute(doc, spec, elem) gives what an expression computes on a
 * document, as a jsonb array of values (NULL for none): one value, or,
 * under the per-element rule, one per element of the array the
 * expression's [*] paths pass through — all of them, or the unwound
 * unit's element alone.  spec is {"x": expression, "each": [step, …]}
 * (sql/filter.c writes it; "each" the steps to that array), with
 * "aligned": true one [value] or [] per element, so that a read of every
 * element computes an object's values in one call; it is compiled once
 * per call site.
 *
 * argo_exact(valnum, valexact) is a value row's number exactly as
 * written: its exact text where the row keeps one, else its double's
 * shortest text — the numbers SUM and AVG add in numeric.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "common/numbers.h"
#include "doc/doc.h"
#include "doc/docexpr.h"

PG_FUNCTION_INFO_V1(argo_compute);
PG_FUNCTION_INFO_V1(argo_exact);

/* A spec compiled for a call site, kept while the same spec comes. */
typedef struct ComputeSpec
{
	MemoryContext cxt;
	Jsonb	   *spec;
	DocExpr    *x;
	Jsonb	   *each;			/* steps to the array, or NULL */
	bool		aligned;		/* one [v] or [] per element, in order */
} ComputeSpec;

static void
bad_compute_spec(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("malformed compute spec"),
			 errdetail("argo_compute takes {\"x\": expression, \"each\": [step, …]}.")));
}

static ComputeSpec *
compute_spec(FunctionCallInfo fcinfo, Jsonb *spec)
{
	ComputeSpec *c = fcinfo->flinfo->fn_extra;
	MemoryContext old;
	JsonbValue *x;
	JsonbValue *each;

	if (c != NULL && c->spec != NULL && VARSIZE(c->spec) == VARSIZE(spec) &&
		memcmp(c->spec, spec, VARSIZE(spec)) == 0)
		return c;
	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ComputeSpec));
		c->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt, "argo compute spec", ALLOCSET_SMALL_SIZES);
		fcinfo->flinfo->fn_extra = c;
	}
	c->spec = NULL;
	MemoryContextReset(c->cxt);
	old = MemoryContextSwitchTo(c->cxt);
	spec = DatumGetJsonbPCopy(JsonbPGetDatum(spec));
	if (!JB_ROOT_IS_OBJECT(spec) ||
		(x = getKeyJsonValueFromContainer(&spec->root, "x", 1, NULL)) == NULL || x->type != jbvBinary)
		bad_compute_spec();
	c->x = doc_compute_compile(JsonbValueToJsonb(x));
	each = getKeyJsonValueFromContainer(&spec->root, "each", 4, NULL);
	if (each != NULL && (each->type != jbvBinary || !JsonContainerIsArray(each->val.binary.data)))
		bad_compute_spec();
	c->each = each != NULL ? JsonbValueToJsonb(each) : NULL;
	c->aligned = getKeyJsonValueFromContainer(&spec->root, "aligned", 7, NULL) != NULL;
	MemoryContextSwitchTo(old);
	c->spec = spec;
	return c;
}

/* The value at steps (keys and positions) in doc, or NULL. */
static JsonbValue *
value_at_steps(Jsonb *doc, Jsonb *steps)
{
	JsonbValue	cur = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	JsonbValue *v = &cur;

	for (uint32 i = 0; i < JB_ROOT_COUNT(steps); i++)
	{
		JsonbValue *s = getIthJsonbValueFromContainer(&steps->root, i);

		if (v->type != jbvBinary)
			return NULL;
		if (s->type == jbvString && JsonContainerIsObject(v->val.binary.data))
			v = findJsonbValueFromContainer(v->val.binary.data, JB_FOBJECT, s);
		else if (s->type == jbvNumeric && JsonContainerIsArray(v->val.binary.data))
		{
			int64		pos = (int64) argo_number_from_numeric(s->val.numeric, NULL);

			v = pos >= 0 && pos < JsonContainerSize(v->val.binary.data) ?
				getIthJsonbValueFromContainer(v->val.binary.data, (uint32) pos) : NULL;
		}
		else
			return NULL;
		if (v == NULL)
			return NULL;
	}
	return v;
}

/*
 * One element's value added to the array being built; whether there was
 * one.  aligned: as an array of it, or an empty one where there is none,
 * so that each element has its place.
 */
static bool
push_value(JsonbParseState **st, DocExpr *x, JsonbValue *root, JsonbValue *elem, bool aligned)
{
	JsonbValue	v;
	bool		has = doc_expr_eval_elem(x, root, elem, &v);

	/* a number given out must be one a document could hold (22003) */
	if (has && v.type == jbvNumeric)
		(void) argo_number_from_numeric(v.val.numeric, NULL);
	if (!has && !aligned)
		return false;
	if (*st == NULL)
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	if (aligned)
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	/* (a container is pushed whole: pushJsonbValue unpacks it) */
	if (has)
		pushJsonbValue(st, WJB_ELEM, &v);
	if (aligned)
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
	return has;
}

/*
 * argo_compute(doc jsonb, spec jsonb, elem integer) RETURNS jsonb: the
 * values the expression computes on doc (per element of "each", or on
 * element elem alone), as an array; NULL where it computes none.
 */
Datum
argo_compute(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc;
	ComputeSpec *c;
	JsonbValue	root;
	JsonbValue *array;
	JsonbParseState *st = NULL;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	doc = PG_GETARG_JSONB_P(0);
	c = compute_spec(fcinfo, PG_GETARG_JSONB_P(1));
	root.type = jbvBinary;
	root.val.binary.data = &doc->root;
	root.val.binary.len = VARSIZE(doc);
	if (c->each == NULL)
		push_value(&st, c->x, &root, NULL, false);
	else if ((array = value_at_steps(doc, c->each)) != NULL && array->type == jbvBinary &&
			 JsonContainerIsArray(array->val.binary.data) && !JsonContainerIsScalar(array->val.binary.data))
	{
		uint32		n = JsonContainerSize(array->val.binary.data);

		for (uint32 i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (!PG_ARGISNULL(2) && PG_GETARG_INT32(2) != (int32) i)
				continue;
			push_value(&st, c->x, &root, getIthJsonbValueFromContainer(array->val.binary.data, i), c->aligned);
		}
	}
	if (st == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL)));
}

/* argo_exact(valnum float8, valexact text) RETURNS numeric: the row's number as written. */
Datum
argo_exact(PG_FUNCTION_ARGS)
{
	double		d;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	d = PG_GETARG_FLOAT8(0);
	if (!PG_ARGISNULL(1))
		PG_RETURN_NUMERIC(argo_number_from_exact(PG_GETARG_TEXT_PP(1), d));
	PG_RETURN_NUMERIC(argo_number_to_numeric(d));
}
