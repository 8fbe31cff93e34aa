/*
 * docexpr.h — expressions (reference.md §9) computed on a document
 * (docexpr.c, its functions in docfunc.c).
 *
 * sql/filter.c writes an expression as jsonb, a spec:
 *   {"v": value}  {"p": [step, …]}  {"o": op, "a": [e, e]}  ("neg": one)
 *   {"p": [step, …], "el": true}: a path from an array's element
 *   {"f": name, "a": [e, …]}  {"case": [pred, …], "then": [e, …], "else": e}
 * op is one of + - * / % and | (for ||); a step is a key or a position
 * (negative from the end); pred is a predicate spec (docpred.c), which
 * the caller compiles and judges through DocPredHooks, so that neither
 * file calls the other in a ring.
 */
#ifndef ARGO_DOCEXPR_H
#define ARGO_DOCEXPR_H

#include "utils/jsonb.h"

typedef struct DocExpr DocExpr;

typedef struct DocPredHooks
{
	void	   *(*compile) (JsonbValue *spec);
	int			(*judge) (void *pred, JsonbValue *ctx);	/* 1 TRUE, 0 FALSE, -1 UNKNOWN */
} DocPredHooks;

extern DocExpr *doc_expr_compile(JsonbValue *spec, const DocPredHooks *hooks);

/* The member key of a spec's object o, or NULL (docpred.c's specs too). */
extern JsonbValue *doc_spec_member(JsonbValue *o, const char *key);

/* e's value on the document or element ctx into *out; false where it has none. */
extern bool doc_expr_eval(DocExpr *e, JsonbValue *ctx, JsonbValue *out);

/* The same with elem, an array's element, where paths marked "el" start. */
extern bool doc_expr_eval_elem(DocExpr *e, JsonbValue *root, JsonbValue *elem, JsonbValue *out);

/* Whether e is a path alone (two paths compare as doubles, reference.md §9.4). */
extern bool doc_expr_is_plain(DocExpr *e);

/*
 * a against b where both are numbers, strings or booleans of one type:
 * *cmp < 0 when a is less; false where they cannot be compared.  exact:
 * numbers by their exact values, else by their nearest doubles.
 */
extern bool doc_value_compare(JsonbValue *a, JsonbValue *b, bool exact, int *cmp);

/* docfunc.c: the function table */
extern bool doc_function_known(const char *name);
extern bool doc_function_arity(const char *name, int nargs);
extern bool doc_function_call(const char *name, JsonbValue *args, bool *has, int nargs,
							  JsonbValue *out);

#endif							/* ARGO_DOCEXPR_H */
