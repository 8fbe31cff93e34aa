/*
 * expr.h — the parse tree's expressions: literals (a parameter is one
 * whose value is bound later), paths with their steps, and predicates.
 */
#ifndef ARGO_PARSE_EXPR_H
#define ARGO_PARSE_EXPR_H

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "common/keypath.h"

typedef enum ArgoLitType
{
	ALIT_NULL, ALIT_STRING, ALIT_NUMBER, ALIT_BOOL,
	ALIT_JSON					/* an object or array, compared whole (reference.md §7) */
} ArgoLitType;

/* A literal; a parameter ($n) is a literal whose value is bound later. */
typedef struct ArgoLiteral
{
	ArgoLitType type;
	char	   *str;			/* ALIT_STRING */
	double		num;			/* ALIT_NUMBER */
	bool		b;				/* ALIT_BOOL */
	char	   *json_text;		/* ALIT_JSON written inline, parsed by analysis */
	Jsonb	   *json;			/* ALIT_JSON */
	int			paramno;		/* > 0 for $n until bound */
	int			user_param;		/* the $n it was bound from, for argo_explain */
	int			location;
	bool		keep_first;		/* APPEND's KEEP FIRST n (else LAST) */
	char	   *numtext;		/* a parameter's number, exactly as given */
} ArgoLiteral;

struct ArgoPred;

/* An expression of reference.md §9 (parse/compute.h). */
typedef struct ArgoExpr ArgoExpr;

/*
 * One step of a path: an object key, an array index, [*], or a filter
 * [? pred] — the elements for which pred is TRUE, a [*] (is_wild) to
 * everything that only needs where the values may lie.
 */
typedef struct ArgoStep
{
	bool		is_index;
	bool		is_wild;		/* [*]: every element (is_index too) */
	char	   *key;
	int64		index;
	struct ArgoPred *filter;	/* [? pred]: is_wild too; paths in pred start at the element */
	bool		is_self;		/* @: the element itself, first step of a path in a filter */
} ArgoStep;

/* A path; one with [*] (wild) reaches every key its pattern matches. */
typedef struct ArgoPath
{
	List	   *steps;			/* of ArgoStep * */
	int			location;
	int			source;			/* index into the FROM list, after analysis */
	char	   *keystr;			/* flattened key, after analysis ("a[*].b" if wild) */
	bool		wild;			/* some step is [*] */
	bool		id;				/* ID(): the object id, not a path */
	char	   *prefix;			/* wild: the key of the steps before the first [*] */
	KeySeg	   *pattern;		/* wild: the steps as segments, [*] as KSEG_WILD */
	int			nsegs;
	int			first_wild;		/* wild: the segment of the first [*] */
	char	   *out_name;		/* a GROUP BY path a target renames: its name */
	bool		filtered;		/* a filter [? pred] or a[-1]: judged on documents */
	int			value_types;	/* exec/plan.c: VALUE_TYPES_KNOWN | bit t, type t held */
	ArgoExpr   *expr;			/* GROUP BY an expression: this path is its stand-in */
} ArgoPath;
#define VALUE_TYPES_KNOWN 8		/* (t: 0 strings, 1 numbers, 2 booleans) */

typedef enum ArgoCmpOp
{
	ACMP_EQ,
	ACMP_NE,
	ACMP_LT,
	ACMP_LE,
	ACMP_GT,
	ACMP_GE
} ArgoCmpOp;

typedef enum ArgoPredKind
{
	APRED_AND,					/* args: two or more, flattened */
	APRED_OR,
	APRED_NOT,					/* left */
	APRED_CMP,					/* path op lit */
	APRED_LIKE,					/* path LIKE lit */
	APRED_BETWEEN,				/* path BETWEEN lit AND lit2 */
	APRED_ANY,					/* lit op ANY path */
	APRED_IN,					/* path IN (lits) */
	APRED_EXISTS,				/* EXISTS path */
	APRED_ISNULL,				/* path IS NULL */
	APRED_ISNOTNULL,			/* path IS NOT NULL */
	APRED_ID,					/* ID() op lit, ID() IN (lits): no path */
	APRED_PART_EXISTS,			/* EXISTS alias: a LEFT JOIN's part matched */
	APRED_TEXT,					/* path @@ 'query': text search (reference.md §7) */
	APRED_EXPR					/* a test with a computed side (reference.md §9):
								 * expr_test says which; path is a stand-in */
} ArgoPredKind;

struct ArgoTarget;

/* What kind of pattern APRED_LIKE matches. */
typedef enum ArgoLikeKind
{
	ALIKE_LIKE,
	ALIKE_ILIKE,				/* LIKE, ignoring case */
	ALIKE_REGEX,				/* ~: a POSIX regular expression */
	ALIKE_IREGEX				/* ~*: the same, ignoring case */
} ArgoLikeKind;

typedef struct ArgoPred
{
	ArgoPredKind kind;
	struct ArgoPred *left;		/* NOT */
	List	   *args;			/* AND, OR: of ArgoPred *, none of the same kind */
	ArgoPath   *path;
	ArgoCmpOp	op;
	ArgoLiteral *lit;
	ArgoLiteral *lit2;
	List	   *lits;			/* IN: of ArgoLiteral * */
	ArgoLiteral *list_param;	/* IN $n: a JSON array, becomes lits */
	struct ArgoTarget *agg;		/* HAVING: an aggregate compared (APRED_CMP) */
	ArgoLikeKind like;			/* APRED_LIKE */
	int			part;			/* APRED_PART_EXISTS: the FROM item */
	/* a leaf whose path has a filter [? …], outside any filter (analysis): */
	struct ArgoPred *filter_cands;	/* TRUE wherever the leaf is: [*] in place of filters */
	ArgoPath   *filter_array;	/* the path to the first filter or [*]: FALSE needs a value there */
	bool		drives;			/* exec/plan.c: the AND's others judged on its objects */
	/* APRED_EXPR: expr_test (CMP, LIKE, BETWEEN, IN, ISNULL, ISNOTNULL) of x */
	ArgoPredKind expr_test;
	ArgoExpr   *x;
	ArgoExpr   *y;			/* CMP's other side, LIKE's pattern, BETWEEN's low */
	ArgoExpr   *z;			/* BETWEEN's high */
	List	   *ys;				/* IN: of ArgoExpr * */
} ArgoPred;

/* A AND B (or OR): one n-ary node, however long the chain. */
extern ArgoPred *pred_combine(ArgoPredKind kind, ArgoPred *a, ArgoPred *b);

#endif							/* ARGO_PARSE_EXPR_H */
