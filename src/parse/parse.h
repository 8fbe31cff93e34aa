/*
 * parse.h — Argo/SQL statements as the scanner and grammar build them
 * (gram.y, scan.l): targets, sources, orders, the changes of a write, the
 * statement itself, and the parser's entry points.
 */
#ifndef ARGO_PARSE_H
#define ARGO_PARSE_H

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "common/errors.h"
#include "parse/aggkind.h"
#include "parse/expr.h"

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
	ArgoExpr   *expr;			/* a computed target (path NULL), named by alias */
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
	int			pair_types;		/* bit t: type t may pair (join_prune_types); 0: all */
} ArgoSource;

typedef struct ArgoOrder
{
	ArgoPath   *path;
	bool		desc;
	bool		nulls_first;	/* objects lacking a scalar there first (default: desc) */
	bool		nulls_given;	/* NULLS FIRST or LAST written */
	struct ArgoTarget *agg;		/* an aggregate query's: the aggregate it names */
	ArgoExpr   *expr;			/* ORDER BY an expression: path is a stand-in */
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
	ArgoExpr   *expr;			/* SET p = expr: computed (value NULL) */
	void	   *compiled;		/* … its DocExpr, once a statement runs (update_ops.c) */
} ArgoSetItem;

/* What a write returns: its count, its objects' ids, or its objects. */
typedef enum ArgoReturning
{
	ARET_COUNT, ARET_IDS /* RETURNING ID */ , ARET_OBJECTS /* RETURNING * */
} ArgoReturning;

/* A write's RETURNING as written: with "*, ID()", the key the id is added under. */
typedef struct ArgoReturningClause
{
	ArgoReturning kind;
	char	   *id_name;
} ArgoReturningClause;

typedef enum ArgoStmtKind
{
	ASTMT_SELECT, ASTMT_INSERT, ASTMT_DELETE, ASTMT_UPDATE
} ArgoStmtKind;

typedef struct ArgoStmt
{
	ArgoStmtKind kind;
	bool		star;			/* SELECT * */
	List	   *targets;		/* of ArgoTarget * */
	List	   *except;			/* SELECT * EXCEPT (…): of ArgoPath * */
	List	   *pick;			/* paths through filters or a[-1]: cut in C (elempick.c) */
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
	ArgoLiteral *distinct_limit;	/* DISTINCT's LIMIT and OFFSET (distinct.c) */
	ArgoLiteral *distinct_offset;
	List	   *objects;		/* INSERT: of ArgoJson * */
	List	   *sets;			/* UPDATE: of ArgoSetItem * */
	List	   *insert_sets;	/* UPSERT … ON INSERT SET: applied only when it inserts */
	bool		upsert;			/* UPSERT: insert when nothing matches */
	ArgoReturning returning;	/* INSERT, UPDATE, DELETE … RETURNING */
	char	   *returning_id;	/* RETURNING *, ID(): each object's id under this key */
	bool		objects_array;	/* INSERT … OBJECTS: objects holds one array */
	bool		select_ids;		/* SELECT ID(): only the ids */
	char	   *id_name;		/* ID() among the targets: its output name */
	bool		renames;		/* some path target has AS */
	List	   *computed;		/* with a computed target: every target (exec/compute.c) */
	bool		computed_star;	/* … and *: each whole object with the computed keys */
	List	   *over;			/* targets computed over aggregates (exec/aggregate.c) */
	ArgoPred   *having_groups;	/* HAVING judged on each group's result, in C */
} ArgoStmt;

/* ---------- parser (gram.y, scan.l) ---------- */

extern ArgoStmt *argo_parse(const char *query);
extern ArgoPath *argo_parse_path(const char *text);
extern bool argo_starts_as_write(const char *query);

#endif							/* ARGO_PARSE_H */
