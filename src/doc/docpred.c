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
 *
 * A spec is compiled once (compile_pred) into the tree below, each key
 * and literal found and each number made a double there, and kept for
 * the statement (argo_filter_test's fn_extra; doc_filter_keeps's last
 * spec): looking each member up in the jsonb spec for every element of
 * every candidate was most of a test's time (4.6 us a product's
 * variants, 8 us an order's items).
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "common/fold.h"
#include "common/numbers.h"
#include "doc/doc.h"
#include "doc/docexpr.h"

PG_FUNCTION_INFO_V1(argo_filter_test);
PG_FUNCTION_INFO_V1(argo_text_vector);
PG_FUNCTION_INFO_V1(argo_values_at);

typedef enum Truth
{
	T_FALSE,
	T_TRUE,
	T_UNKNOWN
} Truth;

/* A literal, and its nearest double where it is a number. */
typedef struct Lit
{
	JsonbValue	v;
	double		num;
	bool		whole;			/* {"j": value}: compared whole, as jsonb */
} Lit;

struct Pred;

/* A step: 'k' a key, 'p' a position, '*' every element (kept by filter if set). */
typedef struct Step
{
	char		kind;
	JsonbValue	key;
	double		pos;
	struct Pred *filter;
} Step;

typedef struct Path
{
	int			n;
	Step	   *steps;
	bool		many;			/* some step is '*': it reaches many values */
} Path;

/*
 * '&' AND, '|' OR, '!' NOT (args), or a leaf: 'c' cmp, 'l' like,
 * 'b' between, 'i' in, 'a' any, 'e' exists, 'n' null, 'N' notnull,
 * 't' text.
 */
typedef struct Pred
{
	char		kind;
	int			nargs;
	struct Pred **args;
	Path		path;
	int			op;				/* cmp, any: 0-5; like: its kind 0-3 */
	Oid			cfg;
	Lit		   *lit;
	Lit		   *lit2;
	int			nlits;
	Lit		   *lits;
	/* 'x': a test with a computed side (kind2: c, l, b, i, n, N), its expressions */
	char		kind2;
	DocExpr    *x;
	DocExpr    *y;
	DocExpr    *z;
	int			nys;
	DocExpr   **ys;
	bool		each;			/* 'x' through [*]: judged on each element of path's array */
} Pred;

/* The values a path reaches, and what the first [*] or filter met. */
typedef struct Reach
{
	JsonbValue *vals;
	int			n;
	int			max;
	bool		first_array;	/* the first [*] or filter met an array */
	bool		first_empty;	/* … which kept no element */
} Reach;

static Truth eval(Pred *pred, JsonbValue *ctx);
static Pred *compile_pred(JsonbValue *spec);
static void *hook_compile(JsonbValue *spec);
static int	hook_judge(void *pred, JsonbValue *ctx);

/* How an expression's CASE compiles and judges its predicates. */
static const DocPredHooks hooks = {hook_compile, hook_judge};

static bool
is_container(JsonbValue *v, bool array)
{
	return v->type == jbvBinary &&
		(array ? JsonContainerIsArray(v->val.binary.data) : JsonContainerIsObject(v->val.binary.data));
}

static int
spec_int(JsonbValue *leaf, const char *key)
{
	JsonbValue *v = doc_spec_member(leaf, key);

	return v && v->type == jbvNumeric ? (int) argo_number_from_numeric(v->val.numeric, NULL) : 0;
}

/* ---------- compiling a spec ---------- */

/* A spec is input too (argo_filter_test is anyone's to call): one that is not sql/filter.c's shape is refused. */
static void
bad_spec(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("malformed predicate spec: %s", what)));
}

static Lit *
compile_lit(JsonbValue *v, Lit *out)
{
	JsonbValue *whole;

	if (v == NULL)
		return NULL;
	if (out == NULL)
		out = palloc0(sizeof(Lit));
	whole = doc_spec_member(v, "j");
	out->whole = whole != NULL;
	out->v = whole != NULL ? *whole : *v;
	if (out->v.type == jbvNumeric)
		out->num = argo_number_from_numeric(out->v.val.numeric, NULL);
	return out;
}

static Path
compile_path(JsonbContainer *steps)
{
	Path		p = {(int) JsonContainerSize(steps), NULL, false};

	if (!JsonContainerIsArray(steps) || JsonContainerIsScalar(steps))
		bad_spec("a path is an array of steps");
	p.steps = palloc0(sizeof(Step) * Max(p.n, 1));
	for (int i = 0; i < p.n; i++)
	{
		JsonbValue *step = getIthJsonbValueFromContainer(steps, (uint32) i);
		Step	   *st = &p.steps[i];

		if (step->type != jbvString && step->type != jbvNumeric &&
			doc_spec_member(step, "*") == NULL && doc_spec_member(step, "?") == NULL)
			bad_spec("a step is a key, a position, {\"*\": true} or {\"?\": predicate}");

		if (step->type == jbvString)
		{
			st->kind = 'k';
			st->key = *step;
		}
		else if (step->type == jbvNumeric)
		{
			st->kind = 'p';
			st->pos = argo_number_from_numeric(step->val.numeric, NULL);
		}
		else
		{
			JsonbValue *filter = doc_spec_member(step, "?");

			st->kind = '*';
			st->filter = filter != NULL ? compile_pred(filter) : NULL;
			p.many = true;
		}
	}
	return p;
}

static const struct
{
	const char *name;
	char		kind;
}			kinds[] = {
	{"cmp", 'c'}, {"like", 'l'}, {"between", 'b'}, {"in", 'i'}, {"any", 'a'},
	{"exists", 'e'}, {"null", 'n'}, {"notnull", 'N'}, {"text", 't'},
};

static Pred *
compile_leaf(JsonbValue *leaf)
{
	Pred	   *p = palloc0(sizeof(Pred));
	JsonbValue *k = doc_spec_member(leaf, "k");
	JsonbValue *ls = doc_spec_member(leaf, "ls");
	JsonbValue *steps = doc_spec_member(leaf, "p");
	char	   *kind;

	if (k == NULL || k->type != jbvString || steps == NULL || steps->type != jbvBinary)
		bad_spec("a leaf has a kind \"k\" and a path \"p\"");
	if (ls != NULL && !is_container(ls, true))
		bad_spec("\"ls\" is an array of literals");
	kind = pnstrdup(k->val.string.val, k->val.string.len);
	for (int i = 0; i < lengthof(kinds) && p->kind == 0; i++)
		if (strcmp(kind, kinds[i].name) == 0)
			p->kind = kinds[i].kind;
	if (p->kind == 0 || (p->kind == 'i' && ls == NULL))
		bad_spec("unknown leaf kind");
	p->path = compile_path(steps->val.binary.data);
	p->op = spec_int(leaf, p->kind == 'l' ? "like" : "op");
	p->cfg = (Oid) spec_int(leaf, "cfg");
	p->lit = compile_lit(doc_spec_member(leaf, "l"), NULL);
	p->lit2 = compile_lit(doc_spec_member(leaf, "l2"), NULL);
	if (ls != NULL)
	{
		p->nlits = (int) JsonContainerSize(ls->val.binary.data);
		p->lits = palloc0(sizeof(Lit) * Max(p->nlits, 1));
		for (int i = 0; i < p->nlits; i++)
			compile_lit(getIthJsonbValueFromContainer(ls->val.binary.data, (uint32) i), &p->lits[i]);
	}
	if (strchr("clbat", p->kind) != NULL && p->lit == NULL)
		bad_spec("a comparison has a literal \"l\"");
	if ((p->kind == 'b' && p->lit2 == NULL) || ((p->kind == 'l' || p->kind == 't') && p->lit->v.type != jbvString))
		bad_spec("BETWEEN has \"l2\", LIKE and text search a string");
	if (p->op < 0 || p->op > (p->kind == 'l' ? 3 : 5))
		bad_spec("an operator is out of range");
	return p;
}

/* {"k": "x", "t": test, "op": n, "like": n, "x": e, "y": e, "z": e, "ys": [e, …]} */
static Pred *
compile_expr_leaf(JsonbValue *leaf)
{
	static const char *const tests[] = {"cmp", "like", "between", "in", "null", "notnull"};
	static const char codes[] = "clbinN";
	Pred	   *p = palloc0(sizeof(Pred));
	JsonbValue *t = doc_spec_member(leaf, "t");
	JsonbValue *m;

	p->kind = 'x';
	for (int i = 0; t != NULL && t->type == jbvString && i < lengthof(tests); i++)
		if (t->val.string.len == strlen(tests[i]) &&
			memcmp(t->val.string.val, tests[i], t->val.string.len) == 0)
			p->kind2 = codes[i];
	if (p->kind2 == 0)
		bad_spec("unknown test of an expression");
	p->x = doc_expr_compile(doc_spec_member(leaf, "x"), &hooks);
	p->op = spec_int(leaf, p->kind2 == 'l' ? "like" : "op");
	if ((m = doc_spec_member(leaf, "y")) != NULL)
		p->y = doc_expr_compile(m, &hooks);
	if ((m = doc_spec_member(leaf, "z")) != NULL)
		p->z = doc_expr_compile(m, &hooks);
	if ((m = doc_spec_member(leaf, "each")) != NULL)
	{
		if (!is_container(m, true))
			bad_spec("\"each\" is an array of steps");
		p->path = compile_path(m->val.binary.data);
		p->each = true;
	}
	if ((m = doc_spec_member(leaf, "ys")) != NULL)
	{
		if (!is_container(m, true))
			bad_spec("\"ys\" is an array of expressions");
		p->nys = (int) JsonContainerSize(m->val.binary.data);
		p->ys = palloc(sizeof(DocExpr *) * Max(p->nys, 1));
		for (int i = 0; i < p->nys; i++)
			p->ys[i] = doc_expr_compile(getIthJsonbValueFromContainer(m->val.binary.data, (uint32) i), &hooks);
	}
	if ((strchr("clb", p->kind2) != NULL && p->y == NULL) || (p->kind2 == 'b' && p->z == NULL) ||
		p->op < 0 || p->op > (p->kind2 == 'l' ? 3 : 5))
		bad_spec("a test of an expression lacks an operand");
	return p;
}

static Pred *
compile_pred(JsonbValue *spec)
{
	JsonbValue *sub;
	Pred	   *p;

	check_stack_depth();
	if (spec == NULL || spec->type != jbvBinary || !JsonContainerIsObject(spec->val.binary.data))
		bad_spec("a predicate is an object");
	if (doc_spec_member(spec, "x") != NULL)
		return compile_expr_leaf(spec);
	if ((sub = doc_spec_member(spec, "not")) != NULL)
	{
		p = palloc0(sizeof(Pred));
		p->kind = '!';
		p->nargs = 1;
		p->args = palloc(sizeof(Pred *));
		p->args[0] = compile_pred(sub);
		return p;
	}
	if ((sub = doc_spec_member(spec, "and")) != NULL || (sub = doc_spec_member(spec, "or")) != NULL)
	{
		p = palloc0(sizeof(Pred));
		p->kind = doc_spec_member(spec, "and") != NULL ? '&' : '|';
		if (!is_container(sub, true))
			bad_spec("AND and OR take an array");
		p->nargs = (int) JsonContainerSize(sub->val.binary.data);
		p->args = palloc(sizeof(Pred *) * Max(p->nargs, 1));
		for (int i = 0; i < p->nargs; i++)
			p->args[i] = compile_pred(getIthJsonbValueFromContainer(sub->val.binary.data, (uint32) i));
		return p;
	}
	return compile_leaf(spec);
}

static Pred *
compile_spec(Jsonb *spec)
{
	JsonbValue	v = {.type = jbvBinary, .val.binary = {.data = &spec->root, .len = VARSIZE(spec)}};

	return compile_pred(&v);
}

/* ---------- judging ---------- */

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

static void reach(JsonbValue *v, const Path *path, int i, Reach *r);

/* A [*] or filter step at the array v: the elements it keeps, on. */
static void
reach_elements(JsonbValue *v, Pred *filter, const Path *path, int i, Reach *r, bool first)
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
		reach(&elem, path, i + 1, r);
	}
	if (first)
	{
		r->first_array = true;
		r->first_empty = kept == 0;
	}
}

/* The values path->steps[i…] reach from v, into r. */
static void
reach(JsonbValue *v, const Path *path, int i, Reach *r)
{
	const Step *step;
	JsonbValue *next = NULL;

	check_stack_depth();
	if (i == path->n)
	{
		pred_add_value(r, v);
		return;
	}
	step = &path->steps[i];
	if (step->kind == 'k')
	{
		if (is_container(v, false))
			next = findJsonbValueFromContainer(v->val.binary.data, JB_FOBJECT, (JsonbValue *) &step->key);
	}
	else if (step->kind == 'p')
	{
		double		pos = step->pos;

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
			first = path->steps[k].kind != '*';
		reach_elements(v, step->filter, path, i, r, first);
		return;
	}
	if (next != NULL)
		reach(next, path, i + 1, r);
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
compare_scalar(JsonbValue *v, const Lit *lit, int *cmp)
{
	if (v->type != lit->v.type)
		return false;
	switch (v->type)
	{
		case jbvString:
			*cmp = memcmp(v->val.string.val, lit->v.val.string.val,
						  Min(v->val.string.len, lit->v.val.string.len));
			if (*cmp == 0)
				*cmp = (v->val.string.len > lit->v.val.string.len) - (v->val.string.len < lit->v.val.string.len);
			return true;
		case jbvNumeric:
			{
				/* predicates compare numbers as their nearest doubles */
				double		a = argo_number_from_numeric(v->val.numeric, NULL);

				*cmp = (a > lit->num) - (a < lit->num);
				return true;
			}
		case jbvBool:
			*cmp = (int) v->val.boolean - (int) lit->v.val.boolean;
			return true;
		default:
			return false;
	}
}

/* A whole value (a literal {"j": value}) against v: jsonb's equality. */
static Truth
compare_whole(JsonbValue *v, const JsonbValue *whole, int op)
{
	Jsonb	   *a = JsonbValueToJsonb(v);
	Jsonb	   *b = JsonbValueToJsonb((JsonbValue *) whole);
	bool		eq = compareJsonbContainers(&a->root, &b->root) == 0;

	return (op == 0 ? eq : !eq) ? T_TRUE : T_FALSE;
}

/* LIKE (kind 0-3: LIKE, ILIKE, ~, ~*): strings only, matched as SQL matches valstr (common/fold.c) */
static Truth
like_test(JsonbValue *v, JsonbValue *pat, int kind)
{
	static PGFunction const fns[] = {textlike, texticlike, textregexeq, texticregexeq};
	text	   *value;
	text	   *pattern;

	if (v->type != jbvString || pat->type != jbvString)
		return T_UNKNOWN;
	value = cstring_to_text_with_len(v->val.string.val, v->val.string.len);
	pattern = cstring_to_text_with_len(pat->val.string.val, pat->val.string.len);
	return DatumGetBool(DirectFunctionCall2Coll(fns[kind],
												kind == 1 || kind == 3 ?
												argo_fold_collation() : C_COLLATION_OID,
												PointerGetDatum(value), PointerGetDatum(pattern))) ?
		T_TRUE : T_FALSE;
}

/* What a comparison, LIKE or BETWEEN asks of each value. */
typedef struct Test
{
	char		kind;			/* 'c'mp, 'l'ike, 'b'etween */
	int			op;				/* cmp: 0-5; like: its kind 0-3 */
	const Lit  *lit;
	const Lit  *lit2;			/* between's upper bound */
} Test;

/* One value against a test. */
static Truth
pred_value_test(const Test *t, JsonbValue *v)
{
	int			c;

	if (t->kind == 'c')
	{
		if (t->lit->whole)
			return compare_whole(v, &t->lit->v, t->op);
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
	return like_test(v, (JsonbValue *) &t->lit->v, t->op);
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
any_test(const Pred *leaf, Reach *r)
{
	static const int commuted[] = {0, 1, 4, 5, 2, 3};
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
		if (!compare_scalar(&e, leaf->lit, &c))
		{
			all_false = false;
			continue;
		}
		if (op_holds(commuted[leaf->op], c))
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
text_test(const Pred *leaf, Reach *r)
{
	StringInfoData text;
	Datum		query;

	initStringInfo(&text);
	if (!strings_text(r, &text))
		return T_UNKNOWN;
	query = DirectFunctionCall2(websearch_to_tsquery_byid, ObjectIdGetDatum(leaf->cfg),
								PointerGetDatum(cstring_to_text_with_len(leaf->lit->v.val.string.val,
																		 leaf->lit->v.val.string.len)));
	return DatumGetBool(DirectFunctionCall2(ts_match_vq, text_vector(leaf->cfg, &text), query)) ?
		T_TRUE : T_FALSE;
}

/* a op b of two computed values: exact unless both sides are paths alone (reference.md §9.4) */
static Truth
compare_values(Pred *leaf, JsonbValue *a, JsonbValue *b, DocExpr *bx, int op)
{
	int			c;

	if (!doc_value_compare(a, b, !(doc_expr_is_plain(leaf->x) && doc_expr_is_plain(bx)), &c))
		return T_UNKNOWN;
	return op_holds(op, c) ? T_TRUE : T_FALSE;
}

/*
 * A test with a computed side: UNKNOWN where a side has no value, or
 * values of two types; elem, where not NULL, the array element its [*]
 * paths mean.
 */
static Truth
eval_expr_test(Pred *leaf, JsonbValue *ctx, JsonbValue *elem)
{
	JsonbValue	x,
				y,
				z;
	bool		has = doc_expr_eval_elem(leaf->x, ctx, elem, &x);
	Truth		t = T_FALSE;

	switch (leaf->kind2)
	{
		case 'n':
			return has && x.type == jbvNull ? T_TRUE : T_FALSE;
		case 'N':
			return has && x.type != jbvNull ? T_TRUE : T_FALSE;
		case 'i':
			for (int i = 0; i < leaf->nys; i++)
				t = or3(t, has && doc_expr_eval_elem(leaf->ys[i], ctx, elem, &y) ?
						compare_values(leaf, &x, &y, leaf->ys[i], 0) : T_UNKNOWN);
			return t;
		default:
			break;
	}
	if (!has || !doc_expr_eval_elem(leaf->y, ctx, elem, &y))
		return T_UNKNOWN;
	if (leaf->kind2 == 'l')
		return like_test(&x, &y, leaf->op);
	if (leaf->kind2 == 'c')
		return compare_values(leaf, &x, &y, leaf->y, leaf->op);
	if (!doc_expr_eval_elem(leaf->z, ctx, elem, &z) || y.type != z.type)
		return T_UNKNOWN;
	return and3(compare_values(leaf, &x, &y, leaf->y, 5), compare_values(leaf, &x, &z, leaf->z, 3));
}

/*
 * The test, or through [*] the test on each element of the array, as
 * 7.1 judges [*]: TRUE where one element's is, FALSE where every
 * element's is or the array is empty, else UNKNOWN (no array: UNKNOWN).
 */
static Truth
eval_expr_leaf(Pred *leaf, JsonbValue *ctx)
{
	Reach		r = {0};
	JsonbContainer *a;
	Truth		t = T_FALSE;

	if (!leaf->each)
		return eval_expr_test(leaf, ctx, NULL);
	reach(ctx, &leaf->path, 0, &r);
	if (r.n == 0 || !is_container(&r.vals[0], true))
		return T_UNKNOWN;
	a = r.vals[0].val.binary.data;
	for (uint32 i = 0; i < JsonContainerSize(a) && t != T_TRUE; i++)
	{
		CHECK_FOR_INTERRUPTS();
		t = or3(t, eval_expr_test(leaf, ctx, getIthJsonbValueFromContainer(a, i)));
	}
	return t;
}

static Truth
eval_leaf(Pred *leaf, JsonbValue *ctx)
{
	Reach		r = {0};
	Truth		t = T_FALSE;
	Test		test;

	if (leaf->kind == 'x')
		return eval_expr_leaf(leaf, ctx);
	reach(ctx, &leaf->path, 0, &r);
	switch (leaf->kind)
	{
		case 'e':
			return r.n > 0 ? T_TRUE : T_FALSE;
		case 'n':
		case 'N':
			for (int i = 0; i < r.n; i++)
				if ((r.vals[i].type == jbvNull) == (leaf->kind == 'n'))
					return T_TRUE;
			return T_FALSE;
		case 'a':
			return any_test(leaf, &r);
		case 't':
			return text_test(leaf, &r);
		case 'i':
			/* p IN (a, b) is p = a OR p = b, each literal with its own type */
			for (int i = 0; i < leaf->nlits; i++)
			{
				Test		eq = {'c', 0, &leaf->lits[i], NULL};

				t = or3(t, values_test(&eq, &r, leaf->path.many));
			}
			return t;
		default:
			test.kind = leaf->kind;
			test.op = leaf->op;
			test.lit = leaf->lit;
			test.lit2 = leaf->lit2;
			return values_test(&test, &r, leaf->path.many);
	}
}

static Truth
eval(Pred *pred, JsonbValue *ctx)
{
	Truth		t;

	check_stack_depth();
	switch (pred->kind)
	{
		case '!':
			t = eval(pred->args[0], ctx);
			return t == T_UNKNOWN ? T_UNKNOWN : t == T_TRUE ? T_FALSE : T_TRUE;
		case '&':
		case '|':
			t = pred->kind == '&' ? T_TRUE : T_FALSE;
			for (int i = 0; i < pred->nargs; i++)
				t = pred->kind == '&' ? and3(t, eval(pred->args[i], ctx)) :
					or3(t, eval(pred->args[i], ctx));
			return t;
		default:
			return eval_leaf(pred, ctx);
	}
}

static void *
hook_compile(JsonbValue *spec)
{
	return compile_pred(spec);
}

static int
hook_judge(void *pred, JsonbValue *ctx)
{
	Truth		t = eval(pred, ctx);

	return t == T_TRUE ? 1 : t == T_FALSE ? 0 : -1;
}

/* An expression's spec compiled (into the current memory), its CASEs' predicates judged here. */
DocExpr *
doc_compute_compile(Jsonb *spec)
{
	JsonbValue	v = {.type = jbvBinary, .val.binary = {.data = &spec->root, .len = VARSIZE(spec)}};

	return doc_expr_compile(&v, &hooks);
}

/* A compiled spec kept for as long as the same spec comes (bytes compared). */
typedef struct Compiled
{
	MemoryContext cxt;
	Jsonb	   *spec;
	Pred	   *pred;
} Compiled;

/* spec compiled, kept in *slot (allocated in parent on first use), again only if it changed. */
static Pred *
compiled(Compiled **slot, MemoryContext parent, Jsonb *spec)
{
	Compiled   *c = *slot;
	MemoryContext old;
	Jsonb	   *copy;
	Pred	   *pred;

	if (c != NULL && VARSIZE(c->spec) == VARSIZE(spec) &&
		memcmp(c->spec, spec, VARSIZE(spec)) == 0)
		return c->pred;
	if (c == NULL)
	{
		c = MemoryContextAllocZero(parent, sizeof(Compiled));
		c->cxt = AllocSetContextCreate(parent, "argo compiled filter", ALLOCSET_SMALL_SIZES);
		*slot = c;
	}
	MemoryContextReset(c->cxt);
	c->spec = NULL;
	c->pred = NULL;
	old = MemoryContextSwitchTo(c->cxt);
	/* compiled from the copy kept: the tree points into it (keys, literals) */
	copy = palloc(VARSIZE(spec));
	memcpy(copy, spec, VARSIZE(spec));
	pred = compile_spec(copy);
	MemoryContextSwitchTo(old);
	/* only a spec that compiled is remembered (one that failed is refused again) */
	c->spec = copy;
	c->pred = pred;
	return pred;
}

/* The last spec doc_filter_keeps compiled (the elements of one array come with one spec). */
static Compiled *last_filter = NULL;

/* Whether a filter whose predicate is spec keeps the element elem (TRUE). */
bool
doc_filter_keeps(JsonbValue *elem, Jsonb *spec)
{
	return eval(compiled(&last_filter, TopMemoryContext, spec), elem) == T_TRUE;
}

/* A path of a spec's steps, compiled (into the current memory). */
static Path
spec_path(Jsonb *path, const char *fn)
{
	if (!JB_ROOT_IS_ARRAY(path) || JB_ROOT_IS_SCALAR(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a path of %s is a JSON array of steps", fn)));
	return compile_path(&path->root);
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
	Path		path = spec_path(PG_GETARG_JSONB_P(1), "argo_text_vector");
	Oid			config = PG_GETARG_OID(2);
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	Reach		r = {0};
	StringInfoData text;

	reach(&root, &path, 0, &r);
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
	Path		path = spec_path(PG_GETARG_JSONB_P(1), "argo_values_at");
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	Reach		r = {0};
	JsonbParseState *st = NULL;

	reach(&root, &path, 0, &r);
	if (r.n == 0)
		PG_RETURN_NULL();
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < r.n; i++)
		pushJsonbValue(&st, WJB_ELEM, &r.vals[i]);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL)));
}

/*
 * argo_filter_test(doc jsonb, spec jsonb) RETURNS boolean: TRUE, FALSE or
 * NULL; the spec compiled once for the call site (fn_extra).
 */
Datum
argo_filter_test(PG_FUNCTION_ARGS)
{
	Jsonb	   *doc = PG_GETARG_JSONB_P(0);
	Pred	   *pred = compiled((Compiled **) &fcinfo->flinfo->fn_extra, fcinfo->flinfo->fn_mcxt,
								PG_GETARG_JSONB_P(1));
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};

	switch (eval(pred, &root))
	{
		case T_TRUE:
			PG_RETURN_BOOL(true);
		case T_FALSE:
			PG_RETURN_BOOL(false);
		default:
			PG_RETURN_NULL();
	}
}
