/*
 * docexpr.c — an expression of reference.md §9 computed on the document
 * (or array element) in hand: its paths read there, its arithmetic in
 * PostgreSQL's numeric over the numbers' exact values.
 *
 * The spec (docexpr.h) is compiled once into the tree below and kept by
 * the caller for the statement, as docpred.c keeps a predicate's.  A
 * value is a JsonbValue; "none" (a missing path, a wrong type) is a
 * false return, which every operator and function passes on.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "common/numbers.h"
#include "doc/docexpr.h"

typedef struct XStep
{
	bool		is_key;
	JsonbValue	key;
	int64		pos;
} XStep;

struct DocExpr
{
	char		kind;			/* 'v' value, 'p' path, 'o' operator, 'f' function, 'c' CASE */
	JsonbValue	value;
	int			nsteps;
	XStep	   *steps;
	bool		in_elem;		/* a path from an array's element (aggregates' per-element rule) */
	char		op;				/* + - * / % | or 'n' (unary minus) */
	char	   *func;
	int			nargs;
	DocExpr   **args;
	int			nwhens;
	void	  **whens;			/* compiled predicates (hooks) */
	DocExpr   **thens;
	DocExpr    *els;
	const DocPredHooks *hooks;
};

static void
bad_expr(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("malformed expression spec: %s", what)));
}

JsonbValue *
doc_spec_member(JsonbValue *o, const char *key)
{
	JsonbValue	k = {.type = jbvString};

	if (o->type != jbvBinary || !JsonContainerIsObject(o->val.binary.data))
		return NULL;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	return findJsonbValueFromContainer(o->val.binary.data, JB_FOBJECT, &k);
}

static JsonbContainer *
array_of(JsonbValue *v, const char *what)
{
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerIsScalar(v->val.binary.data))
		bad_expr(what);
	return v->val.binary.data;
}

static DocExpr **
compile_list(JsonbContainer *a, int *n, const DocPredHooks *hooks)
{
	DocExpr   **out;

	*n = (int) JsonContainerSize(a);
	out = palloc(sizeof(DocExpr *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		out[i] = doc_expr_compile(getIthJsonbValueFromContainer(a, (uint32) i), hooks);
	return out;
}

static void
compile_steps(DocExpr *e, JsonbContainer *steps)
{
	e->nsteps = (int) JsonContainerSize(steps);
	e->steps = palloc0(sizeof(XStep) * Max(e->nsteps, 1));
	for (int i = 0; i < e->nsteps; i++)
	{
		JsonbValue *s = getIthJsonbValueFromContainer(steps, (uint32) i);

		if (s->type == jbvString)
		{
			e->steps[i].is_key = true;
			e->steps[i].key = *s;
		}
		else if (s->type == jbvNumeric)
			e->steps[i].pos = (int64) argo_number_from_numeric(s->val.numeric, NULL);
		else
			bad_expr("a step is a key or a position");
	}
}

DocExpr *
doc_expr_compile(JsonbValue *spec, const DocPredHooks *hooks)
{
	DocExpr    *e = palloc0(sizeof(DocExpr));
	JsonbValue *m;

	check_stack_depth();
	e->hooks = hooks;
	if ((m = doc_spec_member(spec, "v")) != NULL)
	{
		e->kind = 'v';
		e->value = *m;
	}
	else if ((m = doc_spec_member(spec, "p")) != NULL)
	{
		e->kind = 'p';
		compile_steps(e, array_of(m, "a path is an array of steps"));
		e->in_elem = doc_spec_member(spec, "el") != NULL;
	}
	else if ((m = doc_spec_member(spec, "o")) != NULL)
	{
		e->kind = 'o';
		if (m->type != jbvString || m->val.string.len < 1)
			bad_expr("an operator is a string");
		e->op = m->val.string.len == 3 ? 'n' : m->val.string.val[0];
		e->args = compile_list(array_of(doc_spec_member(spec, "a"), "an operator has its operands"),
							   &e->nargs, hooks);
		if (strchr("+-*/%|n", e->op) == NULL || e->nargs != (e->op == 'n' ? 1 : 2))
			bad_expr("unknown operator");
	}
	else if ((m = doc_spec_member(spec, "f")) != NULL)
	{
		e->kind = 'f';
		if (m->type != jbvString)
			bad_expr("a function's name is a string");
		e->func = pnstrdup(m->val.string.val, m->val.string.len);
		e->args = compile_list(array_of(doc_spec_member(spec, "a"), "a function has its arguments"),
							   &e->nargs, hooks);
		if (!doc_function_arity(e->func, e->nargs))
			bad_expr("unknown function");
	}
	else if ((m = doc_spec_member(spec, "case")) != NULL)
	{
		JsonbContainer *w = array_of(m, "CASE has its predicates");
		int			nthens;

		e->kind = 'c';
		e->nwhens = (int) JsonContainerSize(w);
		e->whens = palloc(sizeof(void *) * Max(e->nwhens, 1));
		for (int i = 0; i < e->nwhens; i++)
			e->whens[i] = hooks->compile(getIthJsonbValueFromContainer(w, (uint32) i));
		e->thens = compile_list(array_of(doc_spec_member(spec, "then"), "CASE has its values"), &nthens, hooks);
		if (nthens != e->nwhens)
			bad_expr("CASE has a value for each predicate");
		if ((m = doc_spec_member(spec, "else")) != NULL)
			e->els = doc_expr_compile(m, hooks);
	}
	else
		bad_expr("an expression is a value, a path, an operator, a function or CASE");
	return e;
}

bool
doc_expr_is_plain(DocExpr *e)
{
	return e->kind == 'p';
}

/* The value a path's steps reach from v. */
static bool
reach(JsonbValue *v, XStep *steps, int n, JsonbValue *out)
{
	JsonbValue	cur = *v;

	for (int i = 0; i < n; i++)
	{
		JsonbValue *next = NULL;

		if (cur.type != jbvBinary)
			return false;
		if (steps[i].is_key)
		{
			if (JsonContainerIsObject(cur.val.binary.data))
				next = findJsonbValueFromContainer(cur.val.binary.data, JB_FOBJECT, &steps[i].key);
		}
		else if (JsonContainerIsArray(cur.val.binary.data) && !JsonContainerIsScalar(cur.val.binary.data))
		{
			int64		size = JsonContainerSize(cur.val.binary.data);
			int64		pos = steps[i].pos < 0 ? steps[i].pos + size : steps[i].pos;

			if (pos >= 0 && pos < size)
				next = getIthJsonbValueFromContainer(cur.val.binary.data, (uint32) pos);
		}
		if (next == NULL)
			return false;
		cur = *next;
	}
	*out = cur;
	return true;
}

static bool
numeric_value(Numeric n, JsonbValue *out)
{
	out->type = jbvNumeric;
	out->val.numeric = n;
	return true;
}

/* a op b on two numbers, exact; '|' on two strings. */
static bool
operate(char op, JsonbValue *a, JsonbValue *b, JsonbValue *out)
{
	static const struct
	{
		char		op;
		PGFunction	fn;
	}			ops[] = {
		{'+', numeric_add}, {'-', numeric_sub}, {'*', numeric_mul}, {'/', numeric_div}, {'%', numeric_mod},
	};

	if (op == '|')
	{
		char	   *s;

		if (a->type != jbvString || b->type != jbvString)
			return false;
		s = palloc(a->val.string.len + b->val.string.len + 1);
		memcpy(s, a->val.string.val, a->val.string.len);
		memcpy(s + a->val.string.len, b->val.string.val, b->val.string.len);
		out->type = jbvString;
		out->val.string.val = s;
		out->val.string.len = a->val.string.len + b->val.string.len;
		return true;
	}
	if (a->type != jbvNumeric || b->type != jbvNumeric)
		return false;
	for (int i = 0; i < lengthof(ops); i++)
		if (ops[i].op == op)
			return numeric_value(DatumGetNumeric(DirectFunctionCall2(ops[i].fn,
																	 NumericGetDatum(a->val.numeric),
																	 NumericGetDatum(b->val.numeric))),
								 out);
	return false;
}

static bool eval(DocExpr *e, JsonbValue *root, JsonbValue *elem, JsonbValue *out);

/*
 * CASE: the value of the first branch whose predicate is TRUE; only that
 * branch is computed.  Its predicates read the object (not an element).
 */
static bool
eval_case(DocExpr *e, JsonbValue *root, JsonbValue *elem, JsonbValue *out)
{
	for (int i = 0; i < e->nwhens; i++)
		if (e->hooks->judge(e->whens[i], root) == 1)
			return eval(e->thens[i], root, elem, out);
	return e->els != NULL && eval(e->els, root, elem, out);
}

/* A function's arguments computed, then the function; COALESCE stops at its first value. */
static bool
eval_function(DocExpr *e, JsonbValue *root, JsonbValue *elem, JsonbValue *out)
{
	JsonbValue *args = palloc(sizeof(JsonbValue) * Max(e->nargs, 1));
	bool	   *has = palloc(sizeof(bool) * Max(e->nargs, 1));

	if (strcmp(e->func, "coalesce") == 0)
	{
		for (int i = 0; i < e->nargs; i++)
			if (eval(e->args[i], root, elem, out) && out->type != jbvNull)
				return true;
		return false;
	}
	for (int i = 0; i < e->nargs; i++)
		has[i] = eval(e->args[i], root, elem, &args[i]);
	return doc_function_call(e->func, args, has, e->nargs, out);
}

static bool
eval(DocExpr *e, JsonbValue *root, JsonbValue *elem, JsonbValue *out)
{
	JsonbValue	a,
				b;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	switch (e->kind)
	{
		case 'v':
			*out = e->value;
			return true;
		case 'p':
			if (e->in_elem)
				return elem != NULL && reach(elem, e->steps, e->nsteps, out);
			return reach(root, e->steps, e->nsteps, out);
		case 'o':
			if (!eval(e->args[0], root, elem, &a))
				return false;
			if (e->op == 'n')
				return a.type == jbvNumeric &&
					numeric_value(DatumGetNumeric(DirectFunctionCall1(numeric_uminus,
																	  NumericGetDatum(a.val.numeric))),
								  out);
			return eval(e->args[1], root, elem, &b) && operate(e->op, &a, &b, out);
		case 'f':
			return eval_function(e, root, elem, out);
		default:
			return eval_case(e, root, elem, out);
	}
}

bool
doc_expr_eval(DocExpr *e, JsonbValue *ctx, JsonbValue *out)
{
	return eval(e, ctx, NULL, out);
}

bool
doc_expr_eval_elem(DocExpr *e, JsonbValue *root, JsonbValue *elem, JsonbValue *out)
{
	return eval(e, root, elem, out);
}

bool
doc_value_compare(JsonbValue *a, JsonbValue *b, bool exact, int *cmp)
{
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case jbvString:
			*cmp = memcmp(a->val.string.val, b->val.string.val,
						  Min(a->val.string.len, b->val.string.len));
			if (*cmp == 0)
				*cmp = (a->val.string.len > b->val.string.len) - (a->val.string.len < b->val.string.len);
			return true;
		case jbvNumeric:
			if (exact)
				*cmp = DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(a->val.numeric),
														 NumericGetDatum(b->val.numeric)));
			else
			{
				double		x = argo_number_from_numeric(a->val.numeric, NULL);
				double		y = argo_number_from_numeric(b->val.numeric, NULL);

				*cmp = (x > y) - (x < y);
			}
			return true;
		case jbvBool:
			*cmp = (int) a->val.boolean - (int) b->val.boolean;
			return true;
		default:
			return false;
	}
}
