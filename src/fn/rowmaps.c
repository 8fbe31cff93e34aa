/*
 * rowmaps.c — keeping the objects' maps (storage/rowmap.c) honest when
 * rows are written by SQL rather than by Argo from C.
 *
 * argo_forget_rowmaps() is the trigger Argo puts on each value table:
 * after any statement that inserts, updates or deletes rows of the table
 * through SQL (a role writing the table directly, or Argo itself where
 * it must write through SQL), the maps of the objects those rows belong
 * to are set to NULL, so those objects are read through the objid
 * indexes until they are written again.  Argo's own writes from C fire
 * no trigger and keep the maps right themselves.  Only objects that have
 * a map are touched, so a write through SQL of new objects (whose
 * directory rows come after their rows) needs no UPDATE privilege on the
 * directory.
 *
 * argo_repair(collection) writes every object's map again from its rows
 * as the objid indexes find them: after a table was rewritten (VACUUM
 * FULL, CLUSTER, pg_repack, a restored dump, which change the addresses
 * of rows), or for objects whose maps were forgotten.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "access/table.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "exec/exec.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_forget_rowmaps);
PG_FUNCTION_INFO_V1(argo_repair);

/* The ids of the objects with a map among those the statement's rows belong to. */
static Datum
mapped_objects(const char *dir, bool docs, TriggerData *td, bool *none)
{
	bool		with_new = td->tg_trigger->tgnewtable != NULL;
	bool		with_old = td->tg_trigger->tgoldtable != NULL;
	char	   *sql;
	int			rc;
	Datum		ids;

	const char *kept = docs ? "(d.rowmap IS NOT NULL OR d.doc IS NOT NULL)" : "d.rowmap IS NOT NULL";

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		sql = psprintf("SELECT pg_catalog.array_agg(d.objid) FROM %s d WHERE %s", dir, kept);
	else
		sql = psprintf("SELECT pg_catalog.array_agg(d.objid) FROM %s d WHERE %s"
					   " AND d.objid OPERATOR(pg_catalog.=) ANY (SELECT objid FROM %s%s%s)",
					   dir, kept,
					   with_new ? quote_identifier(td->tg_trigger->tgnewtable) : "",
					   with_new && with_old ? " UNION ALL SELECT objid FROM " : "",
					   with_old ? quote_identifier(td->tg_trigger->tgoldtable) : "");
	rc = SPI_execute(sql, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "argo: could not find the objects written: %s", SPI_result_code_string(rc));
	ids = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, none);
	return ids;
}

/* Whether collection coll's directory keeps documents (storage/docs.c). */
static bool
directory_keeps_docs(const char *coll)
{
	Oid			relid = get_relname_relid(psprintf("%s_obj", coll),
										  get_namespace_oid(ARGO_SCHEMA, false));
	AttrNumber	att = OidIsValid(relid) ? get_attnum(relid, "doc") : InvalidAttrNumber;

	return att != InvalidAttrNumber && get_atttype(relid, att) == JSONBOID;
}

/*
 * argo_forget_rowmaps() RETURNS trigger, AFTER … FOR EACH STATEMENT on a
 * value table, with transition tables; its argument is the collection.
 */
Datum
argo_forget_rowmaps(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	const char *coll;
	char	   *dir;
	bool		docs;
	bool		none;
	Datum		ids;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		td->tg_trigger->tgnargs != 1)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("argo_forget_rowmaps() runs only as a statement trigger with the collection's name")));
	coll = td->tg_trigger->tgargs[0];
	collection_check_name(coll);
	dir = quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_obj", coll));
	docs = directory_keeps_docs(coll);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	if (SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
		elog(ERROR, "argo: could not register the transition tables");
	ids = mapped_objects(dir, docs, td, &none);
	if (!none)
	{
		Oid			type = INT8ARRAYOID;
		int			rc = SPI_execute_with_args(psprintf("UPDATE %s SET rowmap = NULL%s WHERE objid OPERATOR(pg_catalog.=) ANY ($1)",
														dir, docs ? ", doc = NULL" : ""),
											   1, &type, &ids, NULL, false, 0);

		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "argo: could not forget maps: %s", SPI_result_code_string(rc));
	}
	SPI_finish();
	return PointerGetDatum(NULL);
}

/* Maps to write, a batch at a time. */
typedef struct Repair
{
	ArgoCollection *c;
	MemoryContext cxt;
	int			n;
	Datum		ids[1000];
	Datum		maps[1000];
	int64		total;
} Repair;

static void
repair_flush(Repair *r)
{
	SqlBuf	   *buf = sqlbuf_create();
	int			rc;

	if (r->n == 0)
		return;
	sqlbuf_param(buf, INT8ARRAYOID,
				 PointerGetDatum(construct_array(r->ids, r->n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE)));
	sqlbuf_param(buf, BYTEAARRAYOID,
				 PointerGetDatum(construct_array(r->maps, r->n, BYTEAOID, -1, false, TYPALIGN_INT)));
	appendStringInfo(&buf->sql,
					 "UPDATE %s o SET rowmap = m.map FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS m(id, map)"
					 " WHERE o.objid OPERATOR(pg_catalog.=) m.id",
					 r->c->obj_table);
	rc = argo_run(buf, false);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "argo: could not write maps: %s", SPI_result_code_string(rc));
	r->total += r->n;
	r->n = 0;
	MemoryContextReset(r->cxt);
}

static void
repair_visit(void *arg, int64 objid, bytea *stored, bytea *actual)
{
	Repair	   *r = arg;
	MemoryContext old;

	if (rowmap_equal(stored, actual))
		return;
	old = MemoryContextSwitchTo(r->cxt);
	r->ids[r->n] = Int64GetDatum(objid);
	r->maps[r->n] = PointerGetDatum(DatumGetByteaPCopy(PointerGetDatum(actual)));
	r->n++;
	MemoryContextSwitchTo(old);
	if (r->n == lengthof(r->ids))
		repair_flush(r);
}

/*
 * The maps are read from C, so they are made from C too: every table
 * must be one C may read (no row-level security for this role), and the
 * directory must have them (a collection updated to 0.6 has).
 */
static void
check_readable(ArgoCollection *c)
{
	int			n;
	const char *const *tables = collection_object_tables(c, &n);

	for (int i = 0; i < n; i++)
	{
		Relation	rel = argo_open_table(c, tables[i]);
		bool		ok = argo_readable_directly(rel) &&
			(i < n - 1 ? OidIsValid(argo_objid_index(rel)) : rowmap_column(rel) > 0);
		char	   *relname = pstrdup(RelationGetRelationName(rel));

		argo_check_privilege(rel, ACL_SELECT);
		table_close(rel, NoLock);
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("argo_repair cannot read table \"%s\" directly", relname),
					 errdetail("The maps of where objects' rows lie are read and written only for plain tables with their objid index, without row-level security for the role.")));
	}
}

/* Documents forgotten by writes through SQL, kept again from the rows. */
static int64
repair_docs(ArgoCollection *c)
{
	Relation	dir = argo_open_table(c, "obj");
	bool		docs = docs_column(dir) > 0;
	SqlBuf	   *buf;
	int			rc;

	table_close(dir, NoLock);
	if (!docs)
		return 0;
	buf = sqlbuf_create();
	appendStringInfo(&buf->sql, "UPDATE %s o SET doc = %s($%d, o.objid) WHERE o.doc IS NULL",
					 c->obj_table, argo_function("argo_object"),
					 sqlbuf_param(buf, TEXTOID, CStringGetTextDatum(c->name)));
	rc = argo_run(buf, false);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "argo: could not write documents: %s", SPI_result_code_string(rc));
	return (int64) SPI_processed;
}

/*
 * argo_repair(collection text) RETURNS bigint: write every object's map
 * again where it is not what the object's rows call for; returns how
 * many were written.  Writers of the collection wait meanwhile.
 */
Datum
argo_repair(PG_FUNCTION_ARGS)
{
	char	   *name = argo_text_arg(fcinfo, 0, "collection name");
	ArgoCollection *c;
	Relation	dir;
	int64		total;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "argo: SPI_connect failed");
	/* a role that will be refused must not queue for the lock first */
	collection_check_lock_privileges(name, ACL_SELECT);
	/* as a writer would lock, and stronger: no object changes meanwhile */
	c = collection_lookup(name, false, ShareRowExclusiveLock);
	dir = argo_open_table(c, "obj");
	argo_check_privilege(dir, ACL_UPDATE);
	table_close(dir, NoLock);
	/* no maps or documents here: the shards' copies of the dictionary */
	if (collection_is_distributed(c))
	{
		total = shardconn_copy_dictionary(c);
		SPI_finish();
		PG_RETURN_INT64(total);
	}
	check_readable(c);
	total = argo_repair_maps(c) + repair_docs(c);
	SPI_finish();
	PG_RETURN_INT64(total);
}

/*
 * Write again every map of c that is not what its rows call for; the
 * number written.  The caller holds c's tables in ShareRowExclusiveLock
 * and has checked that they can be read directly.
 */
int64
argo_repair_maps(ArgoCollection *c)
{
	Repair		r = {0};

	r.c = c;
	r.cxt = AllocSetContextCreate(CurrentMemoryContext, "argo repair", ALLOCSET_DEFAULT_SIZES);

	/*
	 * The rows as they are now, not as the statement's snapshot (taken
	 * before the lock was granted) saw them: a writer that committed
	 * while this waited moved the object's rows, and a map of the old
	 * ones would hide its change.  Under the lock none is moving them.
	 */
	PushActiveSnapshot(GetLatestSnapshot());
	rowmap_walk(c, NULL, -1, repair_visit, &r);
	repair_flush(&r);
	PopActiveSnapshot();
	MemoryContextDelete(r.cxt);
	return r.total;
}
