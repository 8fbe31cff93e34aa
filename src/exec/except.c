/*
 * except.c — SELECT * EXCEPT (p, …): each object given on without the
 * values at those paths (MongoDB's {password: 0}).
 *
 * However a SELECT * finds and builds its objects — kept documents,
 * rebuilt rows, a stream, parallel processes — its results pass here on
 * their way out, before DISTINCT (which then compares what is returned)
 * and LIMIT (which counts objects, none of which goes away).
 */
#include "postgres.h"

#include "utils/jsonb.h"

#include "doc/doc.h"
#include "parse/expr.h"
#include "parse/parse.h"
#include "sql/sql.h"
#include "exec/results.h"

struct Excepting
{
	result_emit emit;
	void	   *arg;
	DocCutPath *paths;
	int			npaths;
};

/* A path's steps as the document's: keys, positions, [*] and filters. */
static DocCutPath
cut_path(ArgoPath *path)
{
	DocCutPath	cut = {list_length(path->steps), NULL};
	ListCell   *lc;

	cut.steps = palloc0(sizeof(DocCutStep) * Max(cut.nsteps, 1));
	foreach(lc, path->steps)
	{
		ArgoStep   *step = lfirst(lc);
		DocCutStep *out = &cut.steps[foreach_current_index(lc)];

		if (!step->is_index)
			out->key = step->key;
		else if (step->is_wild)
		{
			out->every = true;
			out->filter = step->filter ? sql_pred_spec(step->filter) : NULL;
		}
		else
			out->index = step->index;
	}
	return cut;
}

Excepting *
except_begin(ArgoStmt *s, result_emit emit, void *arg)
{
	Excepting  *e = palloc(sizeof(Excepting));
	ListCell   *lc;

	e->emit = emit;
	e->arg = arg;
	e->npaths = list_length(s->except);
	e->paths = palloc(sizeof(DocCutPath) * Max(e->npaths, 1));
	foreach(lc, s->except)
		e->paths[foreach_current_index(lc)] = cut_path(lfirst(lc));
	return e;
}

void
except_emit(void *arg, int64 objid, Jsonb *doc)
{
	Excepting  *e = arg;

	e->emit(e->arg, objid, doc_without(doc, e->paths, e->npaths));
}
