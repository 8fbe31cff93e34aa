/*
 * canonical.c — an object as Argo gives it back, made from the object
 * given rather than from its rows.
 *
 * A collection that keeps its documents (storage/docs.c) stores each
 * object's jsonb beside its rows, and a read returns that jsonb as it
 * would return the object rebuilt: so what is stored must be exactly the
 * rebuild.  jsonb already orders keys and keeps the last of duplicate
 * ones as the rows do; what differs is numbers, which come back as their
 * double's shortest text where that is the same number (numbers.c):
 * "1.0" is stored as 1.  Most objects hold no such number and are kept
 * as given, without a copy.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/jsonb.h"

#include "common/common.h"
#include "doc/doc.h"

/* Whether every number in obj is already as Argo gives it back. */
static bool
numbers_canonical(Jsonb *obj)
{
	JsonbIterator *it = JsonbIteratorInit(&obj->root);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if ((tok == WJB_VALUE || tok == WJB_ELEM) && v.type == jbvNumeric &&
			argo_number_canonical(v.val.numeric) != v.val.numeric)
			return false;
	}
	return true;
}

/*
 * The object obj (a jsonb object) with each number as Argo gives it back;
 * obj itself when nothing changes.  A number outside double's range is
 * 22003, as writing it would be.
 */
Jsonb *
argo_canonical_doc(Jsonb *obj)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	JsonbParseState *state = NULL;
	JsonbValue *res = NULL;

	if (numbers_canonical(obj))
		return obj;
	it = JsonbIteratorInit(&obj->root);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if ((tok == WJB_VALUE || tok == WJB_ELEM) && v.type == jbvNumeric)
			v.val.numeric = argo_number_canonical(v.val.numeric);
		res = pushJsonbValue(&state, tok, tok < WJB_BEGIN_ARRAY ? &v : NULL);
	}
	return JsonbValueToJsonb(res);
}
