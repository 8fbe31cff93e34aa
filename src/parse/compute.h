/*
 * compute.h — the parse tree's expressions (reference.md §9): what a
 * target, a test or a SET computes from an object.
 */
#ifndef ARGO_PARSE_COMPUTE_H
#define ARGO_PARSE_COMPUTE_H

#include "nodes/pg_list.h"

#include "parse/expr.h"

/*
 * An expression (reference.md §9): a literal (a parameter too), a path or
 * ID(), an operator, a function call or a CASE.  It has a value or none.
 */
typedef enum ArgoExprKind
{
	AX_LIT,
	AX_PATH,					/* path: a path, or ID() (path->id) */
	AX_OP,					/* op: + - * / % or '|' for ||; args: two */
	AX_NEG,					/* args: one */
	AX_FUNC,					/* func (lower case), args */
	AX_CASE,					/* whens: of ArgoPred *, thens: of ArgoExpr *, els */
	AX_AGG						/* agg: an aggregate, in a target over aggregates */
} ArgoExprKind;

struct ArgoExpr
{
	ArgoExprKind kind;
	ArgoLiteral *lit;
	ArgoPath   *path;
	char		op;
	char	   *func;
	List	   *args;
	List	   *whens;
	List	   *thens;
	struct ArgoExpr *els;
	struct ArgoTarget *agg;		/* AX_AGG: the aggregate (over aggregates, a hidden target) */
	bool		parens;			/* written in parentheses: -(5) is not a literal */
	int			location;
};

#endif							/* ARGO_PARSE_COMPUTE_H */
