/*
 * filter.c — the check a leaf through a filter [? pred] puts on its
 * candidates: the object itself judged by argo_filter_test (doc/docpred.c).
 *
 * predicate.c finds the candidates with the value indexes (the leaf with
 * its filters as [*], and the filter's own plain conditions: analysis
 * wrote them into the leaf); here the leaf becomes the jsonb spec the
 * test reads, and the candidates are joined to their kept documents (or
 * rebuilt where there is none, or where the role may not read them).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "parse/compute.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"

static void write_pred(StringInfo out, ArgoPred *p, Oid config);

/* A literal as the spec has it: a JSON scalar, or {"j": value}. */
static void
write_literal(StringInfo out, ArgoLiteral *lit)
{
	switch (lit->type)
	{
		case ALIT_STRING:
			escape_json(out, lit->str);
			break;
		case ALIT_NUMBER:
			/* the shortest text that reads back as the same double */
			appendStringInfoString(out, float8out_internal(lit->num));
			break;
		case ALIT_BOOL:
			appendStringInfoString(out, lit->b ? "true" : "false");
			break;
		case ALIT_JSON:
			appendStringInfoString(out, "{\"j\": ");
			appendStringInfoString(out, JsonbToCString(NULL, &lit->json->root, VARSIZE(lit->json)));
			appendStringInfoChar(out, '}');
			break;
		default:
			elog(ERROR, "null literal in a filter");
	}
}

/* A path's steps: keys, positions, {"*": true}, {"?": pred}. */
static void
write_steps(StringInfo out, ArgoPath *path)
{
	int			skip = sql_alias_steps(path);
	ListCell   *lc;

	appendStringInfoChar(out, '[');
	foreach(lc, path->steps)
	{
		ArgoStep   *step = lfirst(lc);

		if (foreach_current_index(lc) < skip)
			continue;
		if (foreach_current_index(lc) > skip)
			appendStringInfoChar(out, ',');
		if (step->filter != NULL)
		{
			appendStringInfoString(out, "{\"?\": ");
			write_pred(out, step->filter, InvalidOid);
			appendStringInfoChar(out, '}');
		}
		else if (step->is_wild)
			appendStringInfoString(out, "{\"*\": true}");
		else if (step->is_index)
			appendStringInfo(out, INT64_FORMAT, step->index);
		else
			escape_json(out, step->key);
	}
	appendStringInfoChar(out, ']');
}

/* A path's steps as the document functions' path (argo_sort_key, argo_text_vector): a jsonb array of keys and positions. */
Datum
sql_path_steps(ArgoPath *path)
{
	StringInfoData json;
	int			skip = sql_alias_steps(path);
	ListCell   *lc;

	initStringInfo(&json);
	appendStringInfoChar(&json, '[');
	foreach(lc, path->steps)
	{
		ArgoStep   *step = lfirst(lc);

		if (foreach_current_index(lc) < skip)
			continue;
		if (foreach_current_index(lc) > skip)
			appendStringInfoChar(&json, ',');
		if (step->is_index)
			appendStringInfo(&json, INT64_FORMAT, step->index);
		else
			escape_json(&json, step->key);
	}
	appendStringInfoChar(&json, ']');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(json.data));
}

static const char *
leaf_kind(ArgoPredKind kind)
{
	switch (kind)
	{
		case APRED_CMP:
			return "cmp";
		case APRED_LIKE:
			return "like";
		case APRED_BETWEEN:
			return "between";
		case APRED_IN:
			return "in";
		case APRED_ANY:
			return "any";
		case APRED_EXISTS:
			return "exists";
		case APRED_ISNULL:
			return "null";
		case APRED_ISNOTNULL:
			return "notnull";
		case APRED_TEXT:
			return "text";
		default:
			elog(ERROR, "predicate kind %d in a filter", (int) kind);
	}
	return NULL;
}

/* An expression's literal: {"v": scalar or value}, a number as written. */
static void
write_value(StringInfo out, ArgoLiteral *lit)
{
	appendStringInfoString(out, "{\"v\": ");
	switch (lit->type)
	{
		case ALIT_NUMBER:
			if (lit->str != NULL)
				appendStringInfoString(out, lit->str[0] == '+' ? lit->str + 1 : lit->str);
			else
				appendStringInfoString(out, lit->numtext ? lit->numtext : float8out_internal(lit->num));
			break;
		case ALIT_NULL:
			appendStringInfoString(out, "null");
			break;
		case ALIT_JSON:
			appendStringInfoString(out, JsonbToCString(NULL, &lit->json->root, VARSIZE(lit->json)));
			break;
		default:
			write_literal(out, lit);
	}
	appendStringInfoChar(out, '}');
}

static void write_expr(StringInfo out, ArgoExpr *e);

static void
write_exprs(StringInfo out, List *exprs)
{
	ListCell   *lc;

	appendStringInfoChar(out, '[');
	foreach(lc, exprs)
	{
		if (foreach_current_index(lc) > 0)
			appendStringInfoChar(out, ',');
		write_expr(out, lfirst(lc));
	}
	appendStringInfoChar(out, ']');
}

/* An expression as docexpr.h reads it. */
static void
write_expr(StringInfo out, ArgoExpr *e)
{
	ListCell   *lc;

	check_stack_depth();
	switch (e->kind)
	{
		case AX_LIT:
			write_value(out, e->lit);
			return;
		case AX_PATH:
			appendStringInfoString(out, "{\"p\": ");
			if (e->path->wild)
			{
				/* in an aggregate, from each element of its array: the steps after [*] */
				ArgoPath	tail = *e->path;

				foreach(lc, e->path->steps)
					if (((ArgoStep *) lfirst(lc))->is_wild)
					{
						tail.steps = list_copy_tail(e->path->steps, foreach_current_index(lc) + 1);
						break;
					}
				write_steps(out, &tail);
				appendStringInfoString(out, ", \"el\": true");
			}
			else
				write_steps(out, e->path);
			break;
		case AX_OP:
		case AX_NEG:
			appendStringInfo(out, "{\"o\": \"%s\", \"a\": ",
							 e->kind == AX_NEG ? "neg" : psprintf("%c", e->op));
			write_exprs(out, e->args);
			break;
		case AX_FUNC:
			appendStringInfoString(out, "{\"f\": ");
			escape_json(out, e->func);
			appendStringInfoString(out, ", \"a\": ");
			write_exprs(out, e->args);
			break;
		case AX_AGG:
			/* over aggregates: the group's result holds it under its reserved name */
			appendStringInfoString(out, "{\"p\": [");
			escape_json(out, e->agg->alias);
			appendStringInfoChar(out, ']');
			break;
		case AX_CASE:
			appendStringInfoString(out, "{\"case\": [");
			foreach(lc, e->whens)
			{
				if (foreach_current_index(lc) > 0)
					appendStringInfoChar(out, ',');
				write_pred(out, lfirst(lc), InvalidOid);
			}
			appendStringInfoString(out, "], \"then\": ");
			write_exprs(out, e->thens);
			if (e->els != NULL)
			{
				appendStringInfoString(out, ", \"else\": ");
				write_expr(out, e->els);
			}
			break;
	}
	appendStringInfoChar(out, '}');
}

/* A test with a computed side: {"k": "x", "t": test, "op": n, "like": n, "x": e, "y": e, "z": e, "ys": [e, …]} */
static void
write_expr_leaf(StringInfo out, ArgoPred *p)
{
	static const char *const tests[] = {[APRED_CMP] = "cmp", [APRED_LIKE] = "like",
	[APRED_BETWEEN] = "between", [APRED_IN] = "in", [APRED_ISNULL] = "null", [APRED_ISNOTNULL] = "notnull"};

	appendStringInfo(out, "{\"k\": \"x\", \"t\": \"%s\", \"op\": %d, \"like\": %d, \"x\": ",
					 tests[p->expr_test], (int) p->op, (int) p->like);
	write_expr(out, p->x);
	if (p->y != NULL)
	{
		appendStringInfoString(out, ", \"y\": ");
		write_expr(out, p->y);
	}
	if (p->z != NULL)
	{
		appendStringInfoString(out, ", \"z\": ");
		write_expr(out, p->z);
	}
	if (p->expr_test == APRED_IN)
	{
		appendStringInfoString(out, ", \"ys\": ");
		write_exprs(out, p->ys);
	}
	/* through [*]: the steps to the array whose elements it is judged on */
	if (p->path != NULL && p->path->steps != NIL)
	{
		appendStringInfoString(out, ", \"each\": ");
		write_steps(out, p->path);
	}
	appendStringInfoChar(out, '}');
}

/* An expression's spec (exec/compute.c, SET p = expr). */
Jsonb *
sql_expr_spec(ArgoExpr *e)
{
	StringInfoData spec;

	initStringInfo(&spec);
	write_expr(&spec, e);
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(spec.data)));
}

/*
 * {"x": expression[, "each": steps]} as argo_compute takes it, as a jsonb
 * parameter: each, a stand-in path, holds the steps to the array the
 * expression's [*] paths pass through (none: NIL).
 */
int
sql_compute_spec(SqlBuf *buf, ArgoExpr *e, ArgoPath *each, bool aligned)
{
	StringInfoData spec;

	initStringInfo(&spec);
	appendStringInfoString(&spec, "{\"x\": ");
	write_expr(&spec, e);
	if (each != NULL && each->steps != NIL)
	{
		appendStringInfoString(&spec, ", \"each\": ");
		write_steps(&spec, each);
		if (aligned)
			appendStringInfoString(&spec, ", \"aligned\": true");
	}
	appendStringInfoChar(&spec, '}');
	return sqlbuf_param(buf, JSONBOID, DirectFunctionCall1(jsonb_in, CStringGetDatum(spec.data)));
}

/* A leaf: {"k": …, "p": […], "op": n, "l": …, "l2": …, "ls": […], "like": n} */
static void
write_leaf(StringInfo out, ArgoPred *p, Oid config)
{
	ListCell   *lc;

	if (p->kind == APRED_EXPR)
	{
		write_expr_leaf(out, p);
		return;
	}
	/* ArgoCmpOp and ArgoLikeKind are in the spec's order (docpred.c) */
	appendStringInfo(out, "{\"k\": \"%s\", \"op\": %d, \"like\": %d, \"cfg\": %u, \"p\": ",
					 leaf_kind(p->kind), (int) p->op, (int) p->like, config);
	write_steps(out, p->path);
	if (p->lit != NULL)
	{
		appendStringInfoString(out, ", \"l\": ");
		write_literal(out, p->lit);
	}
	if (p->lit2 != NULL)
	{
		appendStringInfoString(out, ", \"l2\": ");
		write_literal(out, p->lit2);
	}
	if (p->kind == APRED_IN)
	{
		appendStringInfoString(out, ", \"ls\": [");
		foreach(lc, p->lits)
		{
			if (foreach_current_index(lc) > 0)
				appendStringInfoChar(out, ',');
			write_literal(out, lfirst(lc));
		}
		appendStringInfoChar(out, ']');
	}
	appendStringInfoChar(out, '}');
}

/* config: a text search's configuration (p @@ 'query'), else InvalidOid */
static void
write_pred(StringInfo out, ArgoPred *p, Oid config)
{
	ListCell   *lc;

	check_stack_depth();
	if (p->kind == APRED_NOT)
	{
		appendStringInfoString(out, "{\"not\": ");
		write_pred(out, p->left, config);
		appendStringInfoChar(out, '}');
		return;
	}
	if (p->kind != APRED_AND && p->kind != APRED_OR)
	{
		write_leaf(out, p, config);
		return;
	}
	appendStringInfo(out, "{\"%s\": [", p->kind == APRED_AND ? "and" : "or");
	foreach(lc, p->args)
	{
		if (foreach_current_index(lc) > 0)
			appendStringInfoChar(out, ',');
		write_pred(out, lfirst(lc), config);
	}
	appendStringInfoString(out, "]}");
}

static Jsonb *
text_spec(ArgoPred *p, Oid config)
{
	StringInfoData spec;

	initStringInfo(&spec);
	write_pred(&spec, p, config);
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(spec.data)));
}

/* A path's steps as the document functions read them, [*] as {"*": true}. */
Datum
sql_path_spec(ArgoPath *path)
{
	StringInfoData out;

	initStringInfo(&out);
	write_steps(&out, path);
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data));
}

/* A filter's predicate as doc_filter_keeps reads it (a positional update's). */
Jsonb *
sql_pred_spec(ArgoPred *p)
{
	return text_spec(p, InvalidOid);
}

/*
 * After "SELECT f.objid FROM (candidates) f": keep the candidates where
 * the leaf p is TRUE (truth) or FALSE on the object itself.
 */
void
sql_filter_check(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, bool truth)
{
	sql_text_check(buf, c, p, InvalidOid, truth, false);
}

/*
 * Whether argo_filter_test judges p on an object exactly as the SQL of
 * predicate.c would select it: its comparisons, ranges, LIKE, IN lists,
 * ANY, EXISTS and IS [NOT] NULL (with or without filters), and AND, OR,
 * NOT of them — not ID(), a parameter's IN list, text search (whose
 * configuration is the index's) or a join's part.
 */
bool
sql_doc_judges(ArgoPred *p)
{
	ListCell   *lc;

	check_stack_depth();
	switch (p->kind)
	{
		case APRED_AND:
		case APRED_OR:
			foreach(lc, p->args)
				if (!sql_doc_judges(lfirst(lc)))
					return false;
			return true;
		case APRED_NOT:
			return sql_doc_judges(p->left);
		case APRED_CMP:
		case APRED_LIKE:
		case APRED_BETWEEN:
		case APRED_ANY:
			return p->agg == NULL && p->path != NULL && !p->path->id &&
				p->lit != NULL && p->lit->type != ALIT_NULL &&
				(p->lit2 == NULL || p->lit2->type != ALIT_NULL);
		case APRED_IN:
			foreach(lc, p->lits)
				if (((ArgoLiteral *) lfirst(lc))->type == ALIT_NULL)
					return false;
			return p->list_param == NULL && p->path != NULL && !p->path->id;
		case APRED_EXISTS:
		case APRED_ISNULL:
		case APRED_ISNOTNULL:
			return p->path != NULL && !p->path->id;
		case APRED_EXPR:
			return true;
		default:
			return false;
	}
}

/*
 * After "SELECT f.objid FROM (candidates) f": keep the candidates where
 * every leaf of preds is TRUE, judged on one read of the object; with
 * hinted, the candidates also give f.doctid.
 */
void
sql_filter_checks(SqlBuf *buf, ArgoCollection *c, List *preds, bool hinted)
{
	bool		docs = docs_readable(c);
	int			name = sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name));
	const char *object;
	ListCell   *lc;

	if (docs && hinted)
	{
		/*
		 * f.doctid, where the candidate's value row last saw its document:
		 * a TID scan, checked to hold that object, before a descent of
		 * c_doc's key where it moved (a week's 1,933 orders: 3.6 -> 2.3 ms).
		 */
		appendStringInfo(&buf->sql,
						 " LEFT JOIN %s h ON h.ctid OPERATOR(pg_catalog.=) f.doctid AND h.objid OPERATOR(pg_catalog.=) f.objid",
						 c->doc_table);
		object = psprintf("COALESCE(h.doc, (SELECT d.doc FROM %s d WHERE d.objid OPERATOR(pg_catalog.=) f.objid), %s($%d, f.objid))",
						  c->doc_table, argo_function("argo_object"), name);
	}
	else
	{
		if (docs)
			appendStringInfo(&buf->sql, " LEFT JOIN %s d ON d.objid OPERATOR(pg_catalog.=) f.objid",
							 c->doc_table);
		object = psprintf("%s%s($%d, f.objid)%s", docs ? "COALESCE(d.doc, " : "",
						  argo_function("argo_object"), name, docs ? ")" : "");
	}
	foreach(lc, preds)
		appendStringInfo(&buf->sql, " %s %s(%s, $%d) IS TRUE",
						 foreach_current_index(lc) == 0 ? "WHERE" : "AND",
						 argo_function("argo_filter_test"), object,
						 sqlbuf_param(buf, JSONBOID, JsonbPGetDatum(text_spec(lfirst(lc), InvalidOid))));
}

/*
 * The same with a text search's configuration; only_undocumented keeps
 * to the candidates without a kept document (an argo_text index answers
 * for the others).
 */
void
sql_text_check(SqlBuf *buf, ArgoCollection *c, ArgoPred *p, Oid config, bool truth,
			   bool only_undocumented)
{
	bool		docs = docs_readable(c);
	int			name = sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name));
	int			specp = sqlbuf_param(buf, JSONBOID, JsonbPGetDatum(text_spec(p, config)));

	if (docs)
		appendStringInfo(&buf->sql, " LEFT JOIN %s d ON d.objid OPERATOR(pg_catalog.=) f.objid",
						 c->doc_table);
	appendStringInfo(&buf->sql, " WHERE %s(%s%s($%d, f.objid)%s, $%d) IS %s",
					 argo_function("argo_filter_test"), docs ? "COALESCE(d.doc, " : "",
					 argo_function("argo_object"), name, docs ? ")" : "", specp,
					 truth ? "TRUE" : "FALSE");
	if (docs && only_undocumented)
	{
		/*
		 * Looked for only where the directory counts more objects than
		 * the kept documents (a one-time filter): two index counts cost
		 * less than the anti-join of every object having the path (5,000
		 * titled products: 3.3 ms) that finds none where every object
		 * keeps its document.
		 */
		appendStringInfo(&buf->sql,
						 " AND d.objid IS NULL AND (SELECT pg_catalog.count(*) FROM %s) OPERATOR(pg_catalog.>) (SELECT pg_catalog.count(*) FROM %s)",
						 c->obj_table, c->doc_table);
	}
}
