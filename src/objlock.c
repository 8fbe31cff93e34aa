/*
 * objlock.c — per-object write locks.
 *
 * An UPDATE or DELETE locks the directory rows of the objects it changes,
 * in object id order, and holds them to commit: writers of different
 * objects never wait for each other, writers of one object take turns,
 * and statements that lock several objects take them in one order, so
 * they cannot deadlock with each other.
 *
 * Every write also updates the directory rows it locked (to themselves):
 * a new row version is what PostgreSQL's REPEATABLE READ and SERIALIZABLE
 * check, so a transaction that would overwrite a change it cannot see
 * fails with 40001 instead.  In READ COMMITTED a writer that waited reads
 * the objects again after the lock is granted and keeps only those that
 * still match its WHERE, as PostgreSQL's own UPDATE re-evaluates a row.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"

#include "argo.h"

/* The ids of the objects WHERE selects, locked in id order. */
SqlBuf *
objlock_sql(ArgoCollection *c, ArgoPred *where)
{
	SqlBuf	   *buf = sqlbuf_create();

	appendStringInfo(&buf->sql, "SELECT o.objid FROM %s o", c->obj_table);
	if (where)
	{
		appendStringInfoString(&buf->sql, " WHERE o.objid IN (");
		pred_emit_objids(buf, c, where);
		appendStringInfoChar(&buf->sql, ')');
	}
	appendStringInfoString(&buf->sql, " ORDER BY o.objid FOR UPDATE OF o");
	return buf;
}

Portal
objlock_open(ArgoCollection *c, ArgoPred *where)
{
	/* not read-only: FOR UPDATE, and a snapshot taken now */
	return argo_open_cursor(objlock_sql(c, where), false);
}

/* The next locked ids, at most max; 0 at the end. */
int
objlock_next(Portal portal, int64 *ids, int max)
{
	int			n;

	SPI_cursor_fetch(portal, true, max);
	n = (int) SPI_processed;
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
											 SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
	return n;
}

Datum
objid_array(const int64 *ids, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Int64GetDatum(ids[i]);
	return PointerGetDatum(construct_array(d, n, INT8OID, 8, true, TYPALIGN_DOUBLE));
}

/*
 * READ COMMITTED: of the locked objects, those that still match WHERE
 * now that every earlier writer of them has committed (a new snapshot).
 * Under a transaction snapshot nothing changed them unseen (40001 else).
 * Keeps ids in order; returns their new number.
 */
int
objlock_recheck(ArgoCollection *c, ArgoPred *where, int64 *ids, int n)
{
	SqlBuf	   *buf;
	int			p;
	int			kept = 0;
	int			rc;

	if (where == NULL || n == 0 || IsolationUsesXactSnapshot())
		return n;
	buf = sqlbuf_create();
	appendStringInfoString(&buf->sql, "SELECT DISTINCT objid FROM (");
	pred_emit_objids(buf, c, where);
	p = sqlbuf_param(buf, INT8ARRAYOID, objid_array(ids, n));
	appendStringInfo(&buf->sql, ") m WHERE objid = ANY($%d) ORDER BY objid", p);
	rc = argo_run(buf, false);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "argo: could not re-read locked objects: %s",
			 SPI_result_code_string(rc));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		ids[kept++] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
												  SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_freetuptable(SPI_tuptable);
	return kept;
}
