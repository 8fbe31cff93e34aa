/*
 * sortkey.c — the value at a path of a document, as the sort key of
 * ORDER BY: argo_sort_key.
 *
 * Every object of a collection that keeps its documents, sorted, is
 * sorted by what its document holds at the path rather than by the rows
 * joined from the value tables: at 1M objects the joins cost as much as
 * the sort.  The key orders exactly as the rows' columns would: a
 * number by its double (valnum), a string by its text (valstr), a
 * boolean (valbool), NULL where the path holds another type, a null, an
 * object or an array, or nothing — numbers, strings, booleans, then the
 * rest, as sorting by the three columns in turn does (sql/fragments.c).
 *
 * The path is a jsonb array of steps: a string is an object key, a
 * number an array position, so that a[1] never reaches a key "1".
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "common/numbers.h"
#include "doc/doc.h"
#include "doc/docexpr.h"

PG_FUNCTION_INFO_V1(argo_sort_key);


/* The element of array c at a step's position, negative from the end; NULL past either end. */
static JsonbValue *
element_at(JsonbContainer *c, JsonbValue *step)
{
	bool		have_error = false;
	int32		i = numeric_int4_opt_error(step->val.numeric, &have_error);

	if (!have_error && i < 0)
		i += (int32) JsonContainerSize(c);
	if (have_error || i < 0)
		return NULL;
	return getIthJsonbValueFromContainer(c, (uint32) i);
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
		else if (step->type == jbvNumeric && JsonContainerIsArray(cur))
			v = element_at(cur, step);
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

/*
 * A double as 16 hex digits that sort as the doubles do: the sign bit
 * flipped for positives, every bit for negatives (IEEE 754 order), -0
 * as 0 so that the two compare equal as doubles do.
 */
static void
append_sortable_double(StringInfo out, double d)
{
	static const char hex[] = "0123456789ABCDEF";
	uint64		bits;
	char		digits[16];

	if (d == 0.0)
		d = 0.0;
	memcpy(&bits, &d, sizeof(bits));
	bits = (bits & UINT64CONST(0x8000000000000000)) ? ~bits : bits | UINT64CONST(0x8000000000000000);
	/* by hand: a formatted print of each key cost 7% of a two-key sort over documents */
	for (int i = 15; i >= 0; i--, bits >>= 4)
		digits[i] = hex[bits & 0xF];
	appendBinaryStringInfo(out, digits, sizeof(digits));
}

/*
 * ORDER BY an expression (reference.md §9.2): its spec, an object where a
 * path is an array, compiled once for as long as the same spec comes —
 * every row of a sort brings the same one.
 */
static DocExpr *
sort_expression(Jsonb *spec)
{
	static MemoryContext cxt = NULL;
	static Jsonb *last = NULL;
	static DocExpr *expr = NULL;
	MemoryContext old;
	Jsonb	   *copy;

	if (last != NULL && VARSIZE(last) == VARSIZE(spec) && memcmp(last, spec, VARSIZE(spec)) == 0)
		return expr;
	if (cxt == NULL)
		cxt = AllocSetContextCreate(TopMemoryContext, "argo sort expression", ALLOCSET_SMALL_SIZES);
	last = NULL;
	MemoryContextReset(cxt);
	old = MemoryContextSwitchTo(cxt);
	copy = palloc(VARSIZE(spec));
	memcpy(copy, spec, VARSIZE(spec));
	expr = doc_compute_compile(copy);
	MemoryContextSwitchTo(old);
	last = copy;
	return expr;
}

/*
 * argo_sort_key(doc jsonb, path jsonb) RETURNS text: the value at the
 * path as one key that sorts, in the "C" collation, as the rows' three
 * columns do in turn — "1" and a number's double (valnum) in sortable
 * hex, "2" and a string (valstr), "3" and 0 or 1 for a boolean
 * (valbool) — and NULL for null, an object, an array or nothing.  One
 * call and one comparison per row instead of three.
 */
Datum
argo_sort_key(PG_FUNCTION_ARGS)
{
	StringInfoData key;

	/* most keys are 17 bytes (a number's): not a 1 kB buffer a row (it grows where it must) */
	key.maxlen = 64;
	key.data = palloc(key.maxlen);
	resetStringInfo(&key);
	if (!argo_doc_sort_key(PG_GETARG_JSONB_P(0), PG_GETARG_JSONB_P(1), &key))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(key.data, key.len));
}

/*
 * argo_sort_key's key, appended to key; false (nothing appended) where
 * it is NULL.  Keys compare as bytes (the "C" collation), shorter first.
 */
bool
argo_doc_sort_key(Jsonb *doc, Jsonb *path, StringInfo key)
{
	JsonbValue	v;

	if (JB_ROOT_IS_OBJECT(path))
	{
		JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};

		return doc_expr_eval(sort_expression(path), &root, &v) && argo_value_sort_key(&v, key);
	}
	return path_value(doc, path, &v) && argo_value_sort_key(&v, key);
}

/*
 * Two such keys compared as the "C" collation compares them: bytes,
 * then length; no key (data NULL) last, as SQL's NULLs are ascending.
 */
int
argo_sort_key_cmp(StringInfo a, StringInfo b)
{
	int			c;

	if (a->data == NULL || b->data == NULL)
		return (a->data == NULL) - (b->data == NULL);
	c = memcmp(a->data, b->data, Min(a->len, b->len));
	return c != 0 ? c : (a->len > b->len) - (a->len < b->len);
}

/*
 * Two keys in an ORDER BY item's order: desc reverses the keys, and no
 * key comes first or last as nulls_first says, whatever the direction.
 */
int
argo_sort_key_order(StringInfo a, StringInfo b, bool desc, bool nulls_first)
{
	int			c;

	if (a->data == NULL || b->data == NULL)
	{
		c = (a->data == NULL) - (b->data == NULL);
		return nulls_first ? -c : c;
	}
	c = argo_sort_key_cmp(a, b);
	return desc ? -c : c;
}

/* The same key of one value; false (nothing appended) for null, an object or an array. */
bool
argo_value_sort_key(JsonbValue *v, StringInfo key)
{
	if (v->type == jbvNumeric)
	{
		appendStringInfoChar(key, '1');
		append_sortable_double(key, argo_number_from_numeric(v->val.numeric, NULL));
	}
	else if (v->type == jbvString)
	{
		appendStringInfoChar(key, '2');
		appendBinaryStringInfo(key, v->val.string.val, v->val.string.len);
	}
	else if (v->type == jbvBool)
		appendStringInfoString(key, v->val.boolean ? "31" : "30");
	else
		return false;
	return true;
}
