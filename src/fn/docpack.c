/*
 * docpack.c — kept documents that a restore wrote uncompressed, packed
 * again.
 *
 * Argo compresses each kept document itself (store/docs.c): a heap tuple
 * is compressed only past 2 kB, and NoBench's 630-byte documents take
 * half the room compressed.  A restore's COPY writes them as given, so a
 * restored c_doc was up to twice its original's pages, and a range of
 * 5,000 objects read 1.3-1.5x slower than on the original.  When a
 * restore has made a collection whole (restored.c), a sample of its
 * documents says whether they came in uncompressed where compressing
 * would pay, and if so the table is rewritten once, each document
 * through argo_compress_doc, by ALTER TABLE's own rewrite.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/jsonb.h"

#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "store/collection.h"
#include "store/docs.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_compress_doc);

/* Documents sampled, and how many of them must pack for a rewrite. */
#define PACK_SAMPLE 200
#define PACK_SHARE 0.1

/* argo_compress_doc(jsonb) RETURNS jsonb: the document as Argo keeps it (compressed where that saves a quarter) */
Datum
argo_compress_doc(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(docs_stored_form(PG_GETARG_JSONB_P(0)));
}

/* Whether the first documents of c_doc lie uncompressed where compressing would pay. */
static bool
docs_unpacked(ArgoCollection *c)
{
	int			packable = 0;
	uint64		n;

	if (SPI_execute(psprintf("SELECT doc FROM %s LIMIT %d", c->doc_table, PACK_SAMPLE), true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not sample the kept documents of \"%s\"", c->name);
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		CHECK_FOR_INTERRUPTS();
		if (!isnull && !VARATT_IS_EXTENDED(DatumGetPointer(d)) &&
			VARATT_IS_COMPRESSED(DatumGetPointer(docs_stored_form(DatumGetJsonbP(d)))))
			packable++;
	}
	SPI_freetuptable(SPI_tuptable);
	return n > 0 && packable >= n * PACK_SHARE;
}

/*
 * Rewrite c's kept documents compressed, if a restore left them not; the
 * caller may alter the table (its owner).  Whether it did.
 */
bool
argo_pack_restored_docs(ArgoCollection *c)
{
	if (c->doc_table == NULL || !OidIsValid(docs_relid(c)) || !docs_unpacked(c))
		return false;
	run_ddl(psprintf("ALTER TABLE %s ALTER COLUMN doc TYPE pg_catalog.jsonb USING %s(doc)",
					 c->doc_table, argo_function("argo_compress_doc")));
	return true;
}
