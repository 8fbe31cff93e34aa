/*
 * docedit.c — a document changed on its way out: its id added under a
 * key (RETURNING *, ID()).
 *
 * A write's RETURNING * hands back each object as written, a jsonb it
 * already holds; the id is added to that value rather than rebuilding
 * the object with it, and refused where the object has the key already,
 * as SELECT *, ID() refuses it (reconstruct.c).
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "doc/doc.h"

/* doc (an object) with "name": id among its keys. */
Jsonb *
doc_with_id(Jsonb *doc, const char *name, int64 objid)
{
	JsonbParseState *state = NULL;
	JsonbIterator *it = JsonbIteratorInit(&doc->root);
	JsonbIteratorToken tok;
	JsonbValue	v;
	JsonbValue *res = NULL;
	int			namelen = strlen(name);

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY && v.val.string.len == namelen &&
			memcmp(v.val.string.val, name, namelen) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_ALIAS),
					 errmsg("object " INT64_FORMAT " already has a key \"%s\"", objid, name),
					 errhint("Name the id otherwise: RETURNING *, ID() AS id.")));
		/* nested containers come whole (skipNested): this ends the object */
		if (tok == WJB_END_OBJECT)
		{
			JsonbValue	key = {.type = jbvString};
			JsonbValue	id = {.type = jbvNumeric};

			key.val.string.val = (char *) name;
			key.val.string.len = namelen;
			id.val.numeric = int64_to_numeric(objid);
			pushJsonbValue(&state, WJB_KEY, &key);
			pushJsonbValue(&state, WJB_VALUE, &id);
		}
		res = pushJsonbValue(&state, tok, tok < WJB_BEGIN_ARRAY ? &v : NULL);
	}
	return JsonbValueToJsonb(res);
}
