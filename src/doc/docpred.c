/*
 * docpred.c — a predicate through a filter [? pred] or a negative index,
 * or a text search, judged on the object itself.
 *
 * Which elements a filter keeps depends on the values of one element
 * together (an order line with sku 'pen' and qty >= 10), which rows of
 * separate keys cannot tell apart.  SQL finds the candidates through the
 * value indexes (sql/filter.c); this judges each on its document, under
 * the three-valued rules of predicates (reference.md §7 and §3.1):
 * argo_filter_test(doc, spec) is TRUE, FALSE or NULL.
 *
 * spec is the predicate as jsonb (sql/filter.c writes it):
 *   {"and": [p, …]}  {"or": [p, …]}  {"not": p}
 *   {"k": kind, "p": [step, …], "op": n, "l": lit, "l2": lit, "ls": [lit, …], "like": n}
 * kind: cmp, like, between, in, any, exists, null, notnull, text (with
 * "cfg", a text search configuration's OID); a step is a
 * key, a position, {"*": true} or {"?": p} (p about one element); op
 * 0-5 is = <> < <= > >=; like 0-3 is LIKE, ILIKE, ~, ~*; a literal is a
 * JSON scalar, or {"j": value} for a whole value.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "common/fold.h"
#include "common/numbers.h"
#include "doc/doc.h"

PG_FUNCTION_INFO_V1(argo_filter_test);
PG_FUNCTION_INFO_V1(argo_text_vector);
PG_FUNCTION_INFO_V1(argo_values_at);

typedef enum Truth
{
	T_FALSE,
	T_TRUE,
	T_UNKNOWN
} Truth;

/* The values a path reaches, and what the first [*] or filter met. */
typedef struct Reach
{
	JsonbValue *vals;
	int			n;
	int			max;
	bool		first_array;	/* the first [*] or filter met an array */
	bool		first_empty;	/* … which kept no element */
} Reach;

static Truth eval(JsonbValue *pred, JsonbValue *ctx);

/* The member key of spec object o, or NULL. */
static JsonbValue *
pred_member(JsonbValue *o, const char *key)
{
	JsonbValue	k = {.type = jbvString};

	if (o->type != jbvBinary || !JsonContainerIsObject(o->val.binary.data))
		return NULL;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	return findJsonbValueFromContainer(o->val.binary.data, JB_FOBJECT, &k);
}

static bool
is_container(JsonbValue *v, bool array)
{
	return v->type == jbvBinary &&
		(array ? JsonContainerIsArray(v->val.binary.data) : JsonContainerIsObject(v->val.binary.data));
}

static void
pred_add_value(Reach *r, JsonbValue *v)
{
	if (r->n == r->max)
	{
		r->max = r->max ? r->max * 2 : 8;
		r->vals = r->vals ? repalloc(r->vals, sizeof(JsonbValue) * r->max) :
			palloc(sizeof(JsonbValue) * r->max);
	}
	r->vals[r->n++] = *v;
}

static void reach(JsonbValue *v, JsonbContainer *steps, int i, Reach *r);

/* A [*] or filter step at the array v: the elements it keeps, on. */
static void
reach_elements(JsonbValue *v, JsonbValue *filter, JsonbContainer *steps, int i,
			   Reach *r, bool first)
{
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	e;
	int			kept = 0;

	if (!is_container(v, true))
		return;
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		JsonbValue	elem;

		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		elem = e;
		if (filter != NULL && eval(filter, &elem) != T_TRUE)
			continue;
		kept++;
		reach(&elem, steps, i + 1, r);
	}
	if (first)
	{
		r->first_array = true;
		r->first_empty = kept == 0;
	}
}

/* The values steps[i…] reach from v, into r. */
static void
reach(JsonbValue *v, JsonbContainer *steps, int i, Reach *r)
{
	JsonbValue *step;
	JsonbValue *next = NULL;

	check_stack_depth();
	if (i == (int) JsonContainerSize(steps))
	{
		pred_add_value(r, v);
		return;
	}
	step = getIthJsonbValueFromContainer(steps, i);
	if (step->type == jbvString)
	{
		if (is_container(v, false))
			next = findJsonbValueFromContainer(v->val.binary.data, JB_FOBJECT, step);
	}
	else if (step->type == jbvNumeric)
	{
		double		pos = argo_number_from_numeric(step->val.numeric, NULL);

		/* a[-1]: the last element */
		if (is_container(v, true) && pos < 0)
			pos += JsonContainerSize(v->val.binary.data);
		if (is_container(v, true) && pos >= 0 && pos < JsonContainerSize(v->val.binary.data))
			next = getIthJsonbValueFromContainer(v->val.binary.data, (uint32) pos);
	}
	else
	{
		bool		first = !r->first_array;

		/* only the first wild step's array decides "an empty array" */
		for (int k = 0; k < i && first; k++)
			first = getIthJsonbValueFromContainer(steps, k)->type != jbvBinary;
		reach_elements(v, pred_member(step, "?"), steps, i, r, first);
		return;
	}
	if (next != NULL)
		reach(next, steps, i + 1, r);
}

/* a op b for a comparison c of two ordered values (c < 0: a < b) */
static bool
op_holds(int op, int c)
{
	switch (op)
	{
		case 0:
			return c == 0;
		case 1:
			return c != 0;
		case 2:
			return c < 0;
		case 3:
			return c <= 0;
		case 4:
			return c > 0;
		default:
			return c >= 0;
	}
}

/* v compared with the literal lit (cmp > 0: v greater); false where the types differ. */
static bool
compare_scalar(JsonbValue *v, JsonbValue *lit, int *cmp)
{
	if (v->type != lit->type)
		return false;
	switch (v->type)
	{
		case jbvString:
			*cmp = memcmp(v->val.string.val, lit->val.string.val,
						  Min(v->val.string.len, lit->val.string.len));
			if (*cmp == 0)
				*cmp = (v->val.string.len > lit->val.string.len) - (v->val.string.len < lit->val.string.len);
			return true;
		case jbvNumeric:
			{
				/* predicates compare numbers as their nearest doubles */
				double		a = argo_number_from_numeric(v->val.numeric, NULL);
				double		b = argo_number_from_numeric(lit->val.numeric, NULL);

				*cmp = (a > b) - (a < b);
				return true;
			}
		case jbvBool:
			*cmp = (int) v->val.boolean - (int) lit->val.boolean;
			return true;
		default:
			return false;
	}
}

/* A whole value (a literal {"j": value}) against v: jsonb's equality. */
static Truth
compare_whole(JsonbValue *v, JsonbValue *whole, int op)
{
	Jsonb	   *a = JsonbValueToJsonb(v);
	Jsonb	   *b = JsonbValueToJsonb(whole);
	bool		eq = compareJsonbContainers(&a->root, &b->root) == 0;

	return (op == 0 ? eq : !eq) ? T_TRUE : T_FALSE;
}

/* What a comparison, LIKE or BETWEEN asks of each value. */
typedef struct Test
{
	char		kind;			/* 'c'mp, 'l'ike, 'b'etween */
	int			op;				/* cmp: 0-5; like: its kind 0-3 */
	JsonbValue *lit;
	JsonbValue *lit2;			/* between's upper bound */
} Test;

static int
spec_int(JsonbValue *leaf, const char *key)
{
	JsonbValue *v = pred_member(leaf, key);

	return v && v->type == jbvNumeric ? (int) argo_number_from_numeric(v->val.numeric, NULL) : 0;
}

/* One value against a test. */
static Truth
pred_value_test(const Test *t, JsonbValue *v)
{
	JsonbValue *whole = t->lit ? pred_member(t->lit, "j") : NULL;
	int			c;

	if (t->kind == 'c')
	{
		if (whole != NULL)
			return compare_whole(v, whole, t->op);
		if (!compare_scalar(v, t->lit, &c))
			return T_UNKNOWN;
		return op_holds(t->op, c) ? T_TRUE : T_FALSE;
	}
	if (t->kind == 'b')
	{
		int			hi;

		if (!compare_scalar(v, t->lit, &c) || !compare_scalar(v, t->lit2, &hi))
			return T_UNKNOWN;
		return c >= 0 && hi <= 0 ? T_TRUE : T_FALSE;
	}
	/* LIKE: strings only, matched as SQL matches valstr (common/fold.c) */
	if (v->type != jbvString)
		return T_UNKNOWN;
	{
		static PGFunction const fns[] = {textlike, texticlike, textregexeq, texticregexeq};
		text	   *value = cstring_to_text_with_len(v->val.string.val, v->val.string.len);
		text	   *pattern = cstring_to_text_with_len(t->lit->val.string.val, t->lit->val.string.len);

		return DatumGetBool(DirectFunctionCall2Coll(fns[t->op],
													t->op == 1 || t->op == 3 ?
													argo_fold_collation() : C_COLLATION_OID,
													PointerGetDatum(value), PointerGetDatum(pattern))) ?
			T_TRUE : T_FALSE;
	}
}

/*
 * A test over the values reached: one value decides alone; with [*] or
 * a filter, TRUE if some value passes, FALSE if every value is of the
 * literal's type and none passes or the first array kept nothing, else
 * UNKNOWN (reference.md §3.1).
 */
static Truth
values_test(const Test *t, Reach *r, bool many)
{
	bool		all_false = true;

	if (!many)
		return r->n == 0 ? T_UNKNOWN : pred_value_test(t, &r->vals[0]);
	for (int i = 0; i < r->n; i++)
	{
		Truth		v = pred_value_test(t, &r->vals[i]);

		if (v == T_TRUE)
			return T_TRUE;
		all_false &= v == T_FALSE;
	}
	if (r->n > 0)
		return all_false ? T_FALSE : T_UNKNOWN;
	return r->first_array && r->first_empty ? T_FALSE : T_UNKNOWN;
}

/* lit op ANY p: the elements of the array at p, the literal on the left. */
static Truth
any_test(JsonbValue *leaf, Reach *r)
{
	static const int commuted[] = {0, 1, 4, 5, 2, 3};
	int			op = spec_int(leaf, "op");
	JsonbValue *lit = pred_member(leaf, "l");
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	e;
	bool		all_false = true;

	if (r->n == 0 || !is_container(&r->vals[0], true))
		return T_UNKNOWN;
	it = JsonbIteratorInit(r->vals[0].val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		int			c;

		if (tok != WJB_ELEM)
			continue;
		if (!compare_scalar(&e, lit, &c))
		{
			all_false = false;
			continue;
		}
		if (op_holds(commuted[op], c))
			return T_TRUE;
	}
	return all_false ? T_FALSE : T_UNKNOWN;
}

static Truth
or3(Truth a, Truth b)
{
	return a == T_TRUE || b == T_TRUE ? T_TRUE :
		a == T_UNKNOWN || b == T_UNKNOWN ? T_UNKNOWN : T_FALSE;
}

static Truth
and3(Truth a, Truth b)
{
	return a == T_FALSE || b == T_FALSE ? T_FALSE :
		a == T_UNKNOWN || b == T_UNKNOWN ? T_UNKNOWN : T_TRUE;
}

/* Whether a path has a [*] or a filter (reaches many values). */
static bool
many_values(JsonbContainer *steps)
{
	for (uint32 i = 0; i < JsonContainerSize(steps); i++)
		if (getIthJsonbValueFromContainer(steps, i)->type == jbvBinary)
			return true;
	return false;
}

/*
 * The text of the strings r holds: each string reached, and the strings
 * of each array reached (MongoDB indexes an array of strings alike), one
 * text separated by spaces; false where there is none.
 */
static bool
strings_text(Reach *r, StringInfo out)
{
	bool		any = false;

	for (int i = 0; i < r->n; i++)
	{
		JsonbValue *v = &r->vals[i];

		if (v->type == jbvString)
		{
			appendBinaryStringInfo(out, v->val.string.val, v->val.string.len);
			appendStringInfoChar(out, ' ');
			any = true;
		}
		else if (is_container(v, true))
		{
			JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
			JsonbIteratorToken tok;
			JsonbValue	e;

			while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
				if (tok == WJB_ELEM && e.type == jbvString)
				{
					appendBinaryStringInfo(out, e.val.string.val, e.val.string.len);
					appendStringInfoChar(out, ' ');
					any = true;
				}
		}
	}
	return any;
}

static Datum
text_vector(Oid config, StringInfo text)
{
	return DirectFunctionCall2(to_tsvector_byid, ObjectIdGetDatum(config),
							   PointerGetDatum(cstring_to_text_with_len(text->data, text->len)));
}

/*
 * p @@ 'query' (reference.md §7): TRUE when p's strings match the query in
 * websearch_to_tsquery's syntax under the configuration, FALSE when p
 * has strings that do not, UNKNOWN when it has none.
 */
static Truth
text_test(JsonbValue *leaf, Reach *r)
{
	JsonbValue *q = pred_member(leaf, "l");
	Oid			config = (Oid) spec_int(leaf, "cfg");
	StringInfoData text;
	Datum		query;

	initStringInfo(&text);
	if (!strings_text(r, &text))
		return T_UNKNOWN;
	query = DirectFunctionCall2(websearch_to_tsquery_byid, ObjectIdGetDatum(config),
								PointerGetDatum(cstring_to_text_with_len(q->val.string.val, q->val.string.len)));
	return DatumGetBool(DirectFunctionCall2(ts_match_vq, text_vector(config, &text), query)) ?
		T_TRUE : T_FALSE;
}

static Truth
eval_leaf(JsonbValue *leaf, JsonbValue *ctx)
{
	JsonbValue *k = pred_member(leaf, "k");
	char	   *kind = pnstrdup(k->val.string.val, k->val.string.len);
	JsonbContainer *steps = pred_member(leaf, "p")->val.binary.data;
	bool		many = many_values(steps);
	Reach		r = {0};
	Truth		t = T_FALSE;
	Test		test;

	reach(ctx, steps, 0, &r);
	if (strcmp(kind, "exists") == 0)
		return r.n > 0 ? T_TRUE : T_FALSE;
	if (strcmp(kind, "null") == 0 || strcmp(kind, "notnull") == 0)
	{
		for (int i = 0; i < r.n; i++)
			if ((r.vals[i].type == jbvNull) == (kind[0] == 'n' && kind[1] == 'u'))
				return T_TRUE;
		return T_FALSE;
	}
	if (strcmp(kind, "any") == 0)
		return any_test(leaf, &r);
	if (strcmp(kind, "text") == 0)
		return text_test(leaf, &r);
	if (strcmp(kind, "in") == 0)
	{
		JsonbContainer *lits = pred_member(leaf, "ls")->val.binary.data;
		Test		eq = {'c', 0, NULL, NULL};

		/* p IN (a, b) is p = a OR p = b, each literal with its own type */
		for (uint32 i = 0; i < JsonContainerSize(lits); i++)
		{
			eq.lit = getIthJsonbValueFromContainer(lits, i);
			t = or3(t, values_test(&eq, &r, many));
		}
		return t;
	}
	test.kind = kind[0];
	test.op = spec_int(leaf, test.kind == 'l' ? "like" : "op");
	test.lit = pred_member(leaf, "l");
	test.lit2 = pred_member(leaf, "l2");
	return values_test(&test, &r, many);
}

static Truth
eval(JsonbValue *pred, JsonbValue *ctx)
{
	JsonbValue *sub;

	check_stack_depth();
	if ((sub = pred_member(pred, "not")) != NULL)
	{
		Truth		t = eval(sub, ctx);

		return t == T_UNKNOWN ? T_UNKNOWN : t == T_TRUE ? T_FALSE : T_TRUE;
	}
	if ((sub = pred_member(pred, "and")) != NULL || (sub = pred_member(pred, "or")) != NULL)
	{
		bool		is_and = pred_member(pred, "and") != NULL;
		Truth		t = is_and ? T_TRUE : T_FALSE;

		for (uint32 i = 0; i < JsonContainerSize(sub->val.binary.data); i++)
		{
			JsonbValue *arg = getIthJsonbValueFromContainer(sub->val.binary.data, i);

			t = is_and ? and3(t, eval(arg, ctx)) : or3(t, eval(arg, ctx));
		}
		return t;
	}
	return eval_leaf(pred, ctx);
}

/* Whether a filter whose predicate is spec keeps the element elem (TRUE). */
bool
doc_filter_keeps(JsonbValue *elem, Jsonb *spec)
{
	JsonbValue	pred = {.type = jbvBinary, .val.binary = {.data = &spec->root, .len = VARSIZE(spec)}};

	return eval(&pred, elem) == T_TRUE;
}

/*
 * argo_text_vector(doc jsonb, path jsonb, config regconfig) RETURNS
 * tsvector: the text of the strings at path (a spec's steps), what an
 * argo_text index holds.
 */
Datum
argo_text_vector(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_GETARG_JSONB_P(0);
	Jsonb	   *path = PG_GETARG_JSONB_P(1);
	Oid			config = PG_GETARG_OID(2);
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	Reach		r = {0};
	StringInfoData text;

	if (!JB_ROOT_IS_ARRAY(path) || JB_ROOT_IS_SCALAR(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a path of argo_text_vector is a JSON array of steps")));
	reach(&root, &path->root, 0, &r);
	initStringInfo(&text);
	strings_text(&r, &text);
	PG_RETURN_DATUM(text_vector(config, &text));
}

/*
 * argo_values_at(doc jsonb, path jsonb) RETURNS jsonb: the values a path
 * (a spec's steps, [*] included) reaches in doc, as an array in document
 * order; NULL where it reaches none (ARRAY_AGG of a [*] path).
 */
Datum
argo_values_at(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_GETARG_JSONB_P(0);
	Jsonb	   *path = PG_GETARG_JSONB_P(1);
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	Reach		r = {0};
	JsonbParseState *st = NULL;

	if (!JB_ROOT_IS_ARRAY(path) || JB_ROOT_IS_SCALAR(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a path of argo_values_at is a JSON array of steps")));
	reach(&root, &path->root, 0, &r);
	if (r.n == 0)
		PG_RETURN_NULL();
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < r.n; i++)
		pushJsonbValue(&st, WJB_ELEM, &r.vals[i]);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL)));
}

/* argo_filter_test(doc jsonb, spec jsonb) RETURNS boolean: TRUE, FALSE or NULL */
Datum
argo_filter_test(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_GETARG_JSONB_P(0);
	Jsonb	   *spec = PG_GETARG_JSONB_P(1);
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	JsonbValue	pred = {.type = jbvBinary, .val.binary = {.data = &spec->root, .len = VARSIZE(spec)}};

	switch (eval(&pred, &root))
	{
		case T_TRUE:
			PG_RETURN_BOOL(true);
		case T_FALSE:
			PG_RETURN_BOOL(false);
		default:
			PG_RETURN_NULL();
	}
}
