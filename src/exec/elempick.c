/*
 * elempick.c — a SELECT whose targets go through filters [? pred] or
 * negative indices: the statement reads whole objects, and each is cut
 * down here to what its paths reach (doc_pick), on its way out.
 *
 * An object none of whose paths reaches anything is not returned, so
 * LIMIT and OFFSET are counted here rather than by SQL (DISTINCT, where
 * there is one, takes them after this).  ID() among the targets is read
 * off the object the read gave (it added it) and put back.
 */
#include "postgres.h"

#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "doc/doc.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/results.h"

struct Picking
{
	result_emit emit;
	void	   *arg;
	Jsonb	  **paths;
	int			npaths;
	const char *id_name;
	RowWindow	window;
};

Picking *
pick_begin(ArgoStmt *s, result_emit emit, void *arg)
{
	Picking    *p = palloc0(sizeof(Picking));
	ListCell   *lc;

	p->emit = emit;
	p->arg = arg;
	p->npaths = list_length(s->pick);
	p->paths = palloc(sizeof(Jsonb *) * Max(p->npaths, 1));
	foreach(lc, s->pick)
		p->paths[foreach_current_index(lc)] = DatumGetJsonbP(sql_path_spec(lfirst(lc)));
	p->id_name = s->id_name;
	p->window = argo_row_window(s);
	return p;
}

void
pick_emit(void *arg, int64 objid, Jsonb *doc)
{
	Picking    *p = arg;
	Jsonb	   *out = doc_pick(doc, p->paths, p->npaths);
	JsonbValue *id = p->id_name ?
		getKeyJsonValueFromContainer(&doc->root, p->id_name, strlen(p->id_name), NULL) : NULL;

	/* with ID(), every object has a result: its id */
	if (out == NULL && id == NULL)
		return;
	if (id != NULL)
		out = doc_with_member(out ? out : DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"))),
							  p->id_name, JsonbValueToJsonb(id));
	if (argo_row_window_take(&p->window))
		p->emit(p->arg, objid, out);
}
