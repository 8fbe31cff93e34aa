/*
 * parse.h — Argo/SQL statements: the parse tree the scanner and grammar
 * build, and its analysis (parameters bound, paths flattened, types
 * checked, collections looked up).
 */
#ifndef ARGO_PARSE_H
#define ARGO_PARSE_H

#include "common/common.h"

/* ---------- parse tree ---------- */

typedef enum ArgoLitType
{
	ALIT_NULL,
	ALIT_STRING,
	ALIT_NUMBER,
	ALIT_BOOL,
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
} ArgoLiteral;

struct ArgoPred;

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

/*
 * A path.  One with [*] (wild) reaches every value its pattern matches:
 * the dictionary's keys that have an array position where it has [*].
 */
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
	bool		filtered;		/* some step is a filter [? pred] or a negative index
								 * (a[-1]): judged on each object's document */
} ArgoPath;

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
	APRED_TEXT					/* path @@ 'query': text search (reference.md §7) */
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
} ArgoPred;

/* A AND B (or OR): one n-ary node, however long the chain. */
extern ArgoPred *pred_combine(ArgoPredKind kind, ArgoPred *a, ArgoPred *b);

typedef enum ArgoAggKind
{
	AAGG_NONE,
	AAGG_COUNT_STAR,
	AAGG_COUNT,
	AAGG_SUM,
	AAGG_AVG,
	AAGG_MIN,
	AAGG_MAX,
	AAGG_COUNT_DISTINCT,
	AAGG_COUNT_NUMBERS,			/* not in Argo/SQL: a shard's count of AVG's numbers */
	AAGG_ARRAY,					/* ARRAY_AGG(p): the values, whole (reference.md §2.5) */
	AAGG_FIRST,					/* FIRST(p ORDER BY q): p of the group's first object */
	AAGG_LAST
} ArgoAggKind;

struct ArgoOrder;

/* A SELECT target: a path, or an aggregate over one. */
typedef struct ArgoTarget
{
	ArgoAggKind agg;
	ArgoPath   *path;			/* NULL for COUNT(*) */
	char	   *alias;			/* output name (AS, or an aggregate's default) */
	bool		hidden;			/* only HAVING uses it: not in the result */
	int			location;
	bool		distinct;		/* ARRAY_AGG(DISTINCT p) */
	struct ArgoOrder *order;	/* ARRAY_AGG, FIRST, LAST: ORDER BY inside, or NULL (id order) */
} ArgoTarget;

/* A FROM item; join conditions are on every item after the first. */
typedef struct ArgoSource
{
	char	   *coll;
	char	   *alias;
	int			location;
	bool		left_join;		/* LEFT JOIN: kept, null, without a match */
	ArgoPath   *on_left;
	ArgoPath   *on_right;
} ArgoSource;

typedef struct ArgoOrder
{
	ArgoPath   *path;
	bool		desc;
	bool		nulls_first;	/* objects lacking a scalar there first (default: desc) */
	bool		nulls_given;	/* NULLS FIRST or LAST written */
	struct ArgoTarget *agg;		/* an aggregate query's: the aggregate it names */
} ArgoOrder;

/* A JSON value given inline ({…}, […], a scalar) or as a parameter. */
typedef struct ArgoJson
{
	char	   *text;			/* JSON text, or NULL for a parameter */
	ArgoLiteral *lit;			/* a scalar literal (SET p = 'x') */
	int			paramno;
	int			location;
	Jsonb	   *value;			/* after analysis */
} ArgoJson;

typedef enum ArgoSetKind
{
	ASET_SET,					/* p = v */
	ASET_UNSET,					/* UNSET p */
	ASET_INC,					/* p += n, p -= n */
	ASET_APPEND,				/* p APPEND v */
	ASET_ADD,					/* p ADD v: append unless an equal element is there */
	ASET_REMOVE					/* p REMOVE v: every equal element */
} ArgoSetKind;

typedef struct ArgoSetItem
{
	ArgoSetKind kind;
	ArgoPath   *path;
	ArgoJson   *value;			/* NULL for UNSET */
	bool		negate;			/* -= */
	bool		each;			/* APPEND EACH: the elements of an array value */
	ArgoLiteral *keep;			/* APPEND … KEEP LAST n / FIRST n (keep_first), or NULL */
} ArgoSetItem;

/* What a write returns: its count, its objects' ids, or its objects. */
typedef enum ArgoReturning
{
	ARET_COUNT,
	ARET_IDS,					/* RETURNING ID */
	ARET_OBJECTS				/* RETURNING * */
} ArgoReturning;

/* A write's RETURNING as written: with "*, ID()", the key the id is added under. */
typedef struct ArgoReturningClause
{
	ArgoReturning kind;
	char	   *id_name;
} ArgoReturningClause;

typedef enum ArgoStmtKind
{
	ASTMT_SELECT,
	ASTMT_INSERT,
	ASTMT_DELETE,
	ASTMT_UPDATE
} ArgoStmtKind;

typedef struct ArgoStmt
{
	ArgoStmtKind kind;
	bool		star;			/* SELECT * */
	List	   *targets;		/* of ArgoTarget * */
	List	   *except;			/* SELECT * EXCEPT (…): of ArgoPath * */
	List	   *pick;			/* targets through filters or negative indices: of ArgoPath *,
								 * read as * and cut in C (elempick.c) */
	int			except_location;
	List	   *from;			/* of ArgoSource *; one item for DML */
	ArgoPred   *where;
	List	   *group_by;		/* of ArgoPath * */
	ArgoPath   *unwind;			/* the GROUP BY path whose [*] array is unwound */
	ArgoPred   *having;
	bool		distinct;		/* SELECT DISTINCT */
	List	   *order_by;		/* of ArgoOrder * */
	ArgoLiteral *limit;
	ArgoLiteral *offset;
	ArgoLiteral *distinct_limit;	/* DISTINCT's LIMIT and OFFSET, once it took */
	ArgoLiteral *distinct_offset;	/* them from limit and offset (distinct.c) */
	List	   *objects;		/* INSERT: of ArgoJson * */
	List	   *sets;			/* UPDATE: of ArgoSetItem * */
	bool		upsert;			/* UPSERT: insert when nothing matches */
	ArgoReturning returning;	/* INSERT, UPDATE, DELETE … RETURNING */
	char	   *returning_id;	/* RETURNING *, ID(): each object's id under this key */
	bool		objects_array;	/* INSERT … OBJECTS: objects holds one array */
	bool		select_ids;		/* SELECT ID(): only the ids */
	char	   *id_name;		/* ID() among the targets: its output name */
	bool		renames;		/* some path target has AS */
} ArgoStmt;

/* ---------- parser (gram.y, scan.l) ---------- */

extern ArgoStmt *argo_parse(const char *query);
extern ArgoPath *argo_parse_path(const char *text);
extern bool argo_starts_as_write(const char *query);

/*
 * Raise a 42601 syntax error pointing into the Argo/SQL text; the format
 * stays at the call, where translation finds it.
 */
#define argo_syntax_error(query, location, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_SYNTAX_ERROR), \
			 errmsg(__VA_ARGS__), \
			 argo_errquery((query), (location))))

/* ---------- statement analysis (analyze.c) ---------- */

typedef struct ArgoQuery
{
	ArgoStmt   *stmt;
	List	   *colls;			/* of ArgoCollection *, parallel to stmt->from */
	const char *text;
	Jsonb	  **params;			/* as given: a shard is sent text and these */
	int			nparams;
} ArgoQuery;

extern Jsonb *literal_to_jsonb(ArgoLiteral *lit);
extern ArgoQuery *argo_analyze(ArgoStmt *stmt, const char *text,
							   Jsonb **params, int nparams);

extern bool argo_is_aggregate(ArgoStmt *s);
extern bool argo_value_aggregate(ArgoAggKind agg);
extern void argo_bind_lone_path(ArgoPath *path);
extern char *keypath_from_steps(List *steps);

#endif							/* ARGO_PARSE_H */
