/*
 * results.c — what a write statement returns: {"inserted": n} and the
 * like; LIMIT and OFFSET where results are counted in C.
 */
#include "postgres.h"

#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "exec/results.h"

static void
push_count(JsonbParseState **st, const char *key, int64 n)
{
	JsonbValue	k,
				v;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(n);
	pushJsonbValue(st, WJB_KEY, &k);
	pushJsonbValue(st, WJB_VALUE, &v);
}

Jsonb *
argo_count_result(const char *key, int64 n)
{
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_count(&st, key, n);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

Jsonb *
argo_counts_result(const char *key1, int64 n1, const char *key2, int64 n2)
{
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_count(&st, key1, n1);
	push_count(&st, key2, n2);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/* {"inserted": n, "ids": [...]}: INSERT … RETURNING ID */
Jsonb *
argo_inserted_ids_result(const int64 *ids, int n)
{
	return argo_write_ids_result("inserted", ids, n);
}

/* {"<what>": n, "ids": [...]}: a write … RETURNING ID, ids in id order */
Jsonb *
argo_write_ids_result(const char *what, const int64 *ids, int n)
{
	JsonbParseState *st = NULL;
	JsonbValue	k,
				v;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_count(&st, what, n);
	k.type = jbvString;
	k.val.string.val = "ids";
	k.val.string.len = 3;
	pushJsonbValue(&st, WJB_KEY, &k);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		v.type = jbvNumeric;
		v.val.numeric = int64_to_numeric(ids[i]);
		pushJsonbValue(&st, WJB_ELEM, &v);
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/*
 * UPDATE (UPSERT) … RETURNING ID: {"ids": [...], "updated": n} and, for
 * an UPSERT (inserted >= 0), "inserted".
 */
Jsonb *
argo_upsert_ids_result(const int64 *ids, int n, int64 updated, int64 inserted)
{
	JsonbParseState *st = NULL;
	JsonbValue	k,
				v;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_count(&st, "updated", updated);
	if (inserted >= 0)
		push_count(&st, "inserted", inserted);
	k.type = jbvString;
	k.val.string.val = "ids";
	k.val.string.len = 3;
	pushJsonbValue(&st, WJB_KEY, &k);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		v.type = jbvNumeric;
		v.val.numeric = int64_to_numeric(ids[i]);
		pushJsonbValue(&st, WJB_ELEM, &v);
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

RowWindow
argo_row_window(ArgoStmt *s)
{
	RowWindow	w = {s->offset ? (int64) s->offset->num : 0, s->limit ? (int64) s->limit->num : -1};

	s->limit = s->offset = NULL;
	return w;
}

bool
argo_row_window_take(RowWindow *w)
{
	if (w->offset > 0)
	{
		w->offset--;
		return false;
	}
	if (w->limit == 0)
		return false;
	if (w->limit > 0)
		w->limit--;
	return true;
}
