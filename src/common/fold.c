/*
 * fold.c — the collation ILIKE and ~* fold case under.
 *
 * String values are stored under "C", whose folding knows ASCII only:
 * 'Zürich' ILIKE 'ZÜRICH' was false in Argo and true in SQL.  The
 * contract folds every letter in the database's collation; a database
 * whose character classes are C's or POSIX's folds ASCII only too, so
 * there ICU's root locale ("und-x-icu") folds instead, where PostgreSQL
 * was built with ICU and the database is UTF-8.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"

#include "common/fold.h"

/* Per backend: a database's collation never changes under it. */
static Oid	fold_collation = InvalidOid;

Oid
argo_fold_collation(void)
{
	if (OidIsValid(fold_collation))
		return fold_collation;
	fold_collation = DEFAULT_COLLATION_OID;
	if (lc_ctype_is_c(DEFAULT_COLLATION_OID) && GetDatabaseEncoding() == PG_UTF8)
	{
		Oid			icu = get_collation_oid(list_make2(makeString("pg_catalog"),
													   makeString("und-x-icu")), true);

		if (OidIsValid(icu))
			fold_collation = icu;
	}
	return fold_collation;
}

/* " COLLATE pg_catalog.\"…\"" for generated SQL. */
const char *
argo_fold_collate_sql(void)
{
	Oid			coll = argo_fold_collation();

	if (coll == DEFAULT_COLLATION_OID)
		return " COLLATE pg_catalog.\"default\"";
	return psprintf(" COLLATE pg_catalog.%s", quote_identifier(get_collation_name(coll)));
}
