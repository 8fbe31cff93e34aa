/*
 * aggkind.h — what a SELECT target or a HAVING term aggregates.
 */
#ifndef ARGO_PARSE_AGGKIND_H
#define ARGO_PARSE_AGGKIND_H

/* What a target or HAVING term aggregates. */
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

#endif							/* ARGO_PARSE_AGGKIND_H */
