/*
 * compute.c — a SELECT with computed targets (reference.md §9.2): the
 * statement reads whole objects, and each result is made here from its
 * object, every target in order — a path's value nested under its keys
 * (or under its AS name), a computed one under its AS name, or, with *,
 * the whole object and the computed keys beside it.
 *
 * A result holds a key only where its target has a value, and an object
 * none of whose targets has one is not returned (3's rule), so LIMIT and
 * OFFSET are counted here, as elempick.c counts them.
 */
#include "postgres.h"

#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "common/numbers.h"
#include "doc/doc.h"
#include "doc/docexpr.h"
#include "parse/compute.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/results.h"

/* One target: a path nested (pick), an id, or a value under name (expr). */
typedef struct Computed
{
	const char *name;
	bool		is_id;
	DocExpr    *expr;
} Computed;

struct Computing
{
	result_emit emit;
	void	   *arg;
	int			n;
	Computed   *targets;
	Jsonb	  **paths;			/* unnamed paths' specs, for doc_pick */
	int			npaths;
	bool		star;
	const char *id_name;
	RowWindow	window;
};

/* A path's value as an expression: the path alone. */
static DocExpr *
path_expr(ArgoPath *path)
{
	ArgoExpr	e = {.kind = AX_PATH, .path = path};

	return doc_compute_compile(sql_expr_spec(&e));
}

Computing *
compute_begin(ArgoStmt *s, result_emit emit, void *arg)
{
	Computing  *c = palloc0(sizeof(Computing));
	ListCell   *lc;

	c->emit = emit;
	c->arg = arg;
	c->n = list_length(s->computed);
	c->targets = palloc0(sizeof(Computed) * Max(c->n, 1));
	c->paths = palloc(sizeof(Jsonb *) * Max(c->n, 1));
	foreach(lc, s->computed)
	{
		ArgoTarget *t = lfirst(lc);
		Computed   *ct = &c->targets[foreach_current_index(lc)];

		ct->name = t->alias;
		if (t->expr != NULL)
			ct->expr = doc_compute_compile(sql_expr_spec(t->expr));
		else if (t->path->id)
			ct->is_id = true;
		else if (t->alias != NULL)
			ct->expr = path_expr(t->path);
		else
			c->paths[c->npaths++] = DatumGetJsonbP(sql_path_spec(t->path));
	}
	c->star = s->computed_star;
	c->id_name = s->id_name;
	c->window = argo_row_window(s);
	return c;
}

/* Whether doc holds the key name at its top. */
static bool
holds_key(Jsonb *doc, const char *name)
{
	return getKeyJsonValueFromContainer(&doc->root, name, strlen(name), NULL) != NULL;
}

/* Each top-level member of base pushed into the object being built. */
static void
push_members(JsonbParseState **st, Jsonb *base)
{
	JsonbIterator *it = JsonbIteratorInit(&base->root);
	JsonbIteratorToken tok;
	JsonbValue	v;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY || tok == WJB_VALUE)
			pushJsonbValue(st, tok, &v);
}

static void
push_member(JsonbParseState **st, const char *name, JsonbValue *v)
{
	JsonbValue	k = {.type = jbvString};

	k.val.string.val = (char *) name;
	k.val.string.len = strlen(name);
	pushJsonbValue(st, WJB_KEY, &k);
	pushJsonbValue(st, WJB_VALUE, v);
}

/*
 * One object's result, written once: the whole object or its paths, then
 * the ids and computed values (each member pushed, not the object copied
 * for each: 100,000 orders' price * qty took a third longer so).
 */
void
compute_emit(void *arg, int64 objid, Jsonb *doc)
{
	Computing  *c = arg;
	JsonbValue	root = {.type = jbvBinary, .val.binary = {.data = &doc->root, .len = VARSIZE(doc)}};
	Jsonb	   *base = c->star ? doc : c->npaths > 0 ? doc_pick(doc, c->paths, c->npaths) : NULL;
	JsonbValue *id = c->id_name ?
		getKeyJsonValueFromContainer(&doc->root, c->id_name, strlen(c->id_name), NULL) : NULL;
	JsonbParseState *st = NULL;
	bool		any = base != NULL;
	Jsonb	   *out;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (base != NULL)
		push_members(&st, base);
	for (int i = 0; i < c->n; i++)
	{
		Computed   *t = &c->targets[i];
		JsonbValue	v;

		/* ID(): the read added it under its name; with * it is there already */
		if (t->is_id && !c->star && id != NULL)
		{
			push_member(&st, c->id_name, id);
			any = true;
		}
		if (t->expr == NULL)
			continue;
		if (c->star && holds_key(doc, t->name))
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_ALIAS),
					 errmsg("object " INT64_FORMAT " already holds the key \"%s\"", objid, t->name),
					 errhint("Name the computed target otherwise with AS.")));
		if (!doc_expr_eval(t->expr, &root, &v))
			continue;
		/* a number given out must be one a document could hold (22003) */
		if (v.type == jbvNumeric)
			(void) argo_number_from_numeric(v.val.numeric, NULL);
		push_member(&st, t->name, &v);
		any = true;
	}
	if (!any)
		return;
	out = JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
	if (argo_row_window_take(&c->window))
		c->emit(c->arg, objid, out);
}
