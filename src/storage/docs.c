/*
 * docs.c — documents kept whole beside their rows.
 *
 * A collection may keep each object's jsonb, as Argo gives it back
 * (doc/canonical.c), in a "doc" column of its directory row
 * (argo_keep_documents).  A read of whole objects then takes the jsonb
 * instead of rebuilding it from ~20 rows on several pages, and so does a
 * projection of objects fetched one by one whose paths are object keys
 * (doc/docproject.c cuts the document down); every other read
 * (predicates, projections of every object, aggregates) reads the rows.
 *
 * It is trusted as a map is (rowmap.c): Argo's own writes from C write
 * it with the rows, in the same directory row version; a write through
 * SQL (Argo's own where the tables need SQL, or a role writing the value
 * tables) sets it to NULL (argo_forget_rowmaps), and NULL means "rebuild
 * from the rows".  Unlike a map it holds no address, so it survives
 * VACUUM FULL, CLUSTER and a dump restored.  It is also input: a value
 * that is not a jsonb object is not used.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "parser/parse_relation.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

#include "storage/storage.h"

/* argo.keep_documents: whether collections made from now on keep them */
bool		argo_keep_documents_default = true;

/* The directory's doc column, or 0 where the collection keeps no documents. */
AttrNumber
docs_column(Relation dir)
{
	AttrNumber	att = attnameAttNum(dir, "doc", false);

	return att > 0 && TupleDescAttr(RelationGetDescr(dir), att - 1)->atttypid == JSONBOID ?
		att : 0;
}

/*
 * The kept document in d (detoasted into the current context), or NULL
 * where there is none to use.
 */
Jsonb *
docs_value(Datum d, bool isnull)
{
	Jsonb	   *doc;

	if (isnull)
		return NULL;
	doc = DatumGetJsonbPCopy(d);
	return JB_ROOT_IS_OBJECT(doc) && !JB_ROOT_IS_SCALAR(doc) ? doc : NULL;
}
