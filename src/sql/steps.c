/*
 * steps.c — a path's steps as the SQL over documents writes them: which
 * of them name the FROM item rather than a key, and a path of keys as
 * jsonb's #> path.  Calls nothing else of sql/, which all may call it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "parse/expr.h"
#include "sql/sql.h"

/*
 * How many of a path's steps name its FROM item (alias.path, analyse.c's
 * bind_path) rather than a key of the object: 0 or 1.
 */
int
sql_alias_steps(ArgoPath *path)
{
	return path->nsegs > 0 && list_length(path->steps) == path->nsegs + 1 ? 1 : 0;
}

/*
 * Steps [from, to) of path, all object keys, as a text[] for jsonb's #>
 * (which would take a position for a key "0", hence keys only); 0 where
 * one is not a key.
 */
Datum
sql_key_steps(ArgoPath *path, int from, int to)
{
	Datum	   *keys = palloc(sizeof(Datum) * Max(to - from, 1));

	for (int i = from; i < to; i++)
	{
		ArgoStep   *st = list_nth(path->steps, i);

		if (st->key == NULL || st->is_index || st->is_wild || st->filter || st->is_self)
			return (Datum) 0;
		keys[i - from] = CStringGetTextDatum(st->key);
	}
	return PointerGetDatum(construct_array(keys, to - from, TEXTOID, -1, false, TYPALIGN_INT));
}
