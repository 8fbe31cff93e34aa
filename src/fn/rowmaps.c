/*
 * rowmaps.c — keeping the objects' maps (store/rowmap.c) honest when
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

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "common/common.h"
#include "common/errors.h"
#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "doc/doc.h"
#include "store/access.h"
#include "store/collection.h"
#include "store/docs.h"
#include "store/objfetch.h"
#include "store/keydict.h"
#include "store/rowmap.h"
#include "store/shard/shard.h"
#include "fn/fn.h"

PG_FUNCTION_INFO_V1(argo_forget_rowmaps);
PG_FUNCTION_INFO_V1(argo_docs_guard);
PG_FUNCTION_INFO_V1(argo_repair);

/*
 * The ids of the statement's rows' objects (objid of the transition
 * tables; of old: the old one, of new: the new one) among those of table
 * of that have cond, as an int8[] ($1 of later statements); *none when
 * there are none.
 */
static Datum
written_objects(TriggerData *td, const char *of, const char *cond, bool with_new, bool with_old,
				bool *none)
{
	char	   *sql;
	int			rc;

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		sql = psprintf("SELECT pg_catalog.array_agg(d.objid) FROM %s d WHERE %s", of, cond);
	else
		sql = psprintf("SELECT pg_catalog.array_agg(d.objid) FROM %s d WHERE %s"
					   " AND d.objid OPERATOR(pg_catalog.=) ANY (SELECT objid FROM %s%s%s)",
					   of, cond,
					   with_new ? quote_identifier(td->tg_trigger->tgnewtable) : "",
					   with_new && with_old ? " UNION ALL SELECT objid FROM " : "",
					   with_old ? quote_identifier(td->tg_trigger->tgoldtable) : "");
	rc = SPI_execute(sql, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not find the objects written: %s", SPI_result_code_string(rc));
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, none);
}

/* Run sql, an UPDATE or DELETE of the objects in ids ($1). */
static void
run_on_objects(const char *sql, Datum ids, int expected)
{
	Oid			type = INT8ARRAYOID;
	int			rc = SPI_execute_with_args(sql, 1, &type, &ids, NULL, false, 0);

	if (rc != expected)
		elog(ERROR, "could not forget what rows written through SQL left wrong: %s",
			 SPI_result_code_string(rc));
}

/* The objids of a transition table (by name), as a C array. */
static int64 *
transition_ids(const char *table, const char *except, int *n)
{
	char	   *sql = except == NULL ? psprintf("SELECT DISTINCT objid FROM %s", quote_identifier(table)) :
		psprintf("SELECT objid FROM %s EXCEPT SELECT objid FROM %s", quote_identifier(table),
				 quote_identifier(except));
	int64	   *ids;

	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the rows written");
	*n = (int) SPI_processed;
	ids = palloc(sizeof(int64) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		ids[i] = isnull ? 0 : DatumGetInt64(d);
	}
	return ids;
}

/*
 * The kept documents of the objects whose rows (or directory rows) a
 * statement wrote through SQL deleted: of both transition tables, or of
 * the old one only, or those that one has and the other lacks
 * (store/docs.c).
 */
static void
forget_docs(TriggerData *td, Oid docs, bool changed_ids_only)
{
	const char *oldt = td->tg_trigger->tgoldtable;
	const char *newt = td->tg_trigger->tgnewtable;
	int			n;
	int64	   *ids;

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		docs_forget_all(docs);
		return;
	}
	if (changed_ids_only && oldt != NULL && newt != NULL)
	{
		ids = transition_ids(oldt, newt, &n);
		docs_forget(docs, ids, n);
		ids = transition_ids(newt, oldt, &n);
		docs_forget(docs, ids, n);
		return;
	}
	if (oldt != NULL)
	{
		ids = transition_ids(oldt, NULL, &n);
		docs_forget(docs, ids, n);
	}
	if (newt != NULL && !changed_ids_only)
	{
		ids = transition_ids(newt, NULL, &n);
		docs_forget(docs, ids, n);
	}
}

/* Rows of a value table written through SQL: the maps of their objects (those that have one) forgotten. */
static void
forget_maps(TriggerData *td, const char *dir)
{
	bool		none;
	Datum		ids = written_objects(td, dir, "d.rowmap IS NOT NULL", td->tg_trigger->tgnewtable != NULL,
									  td->tg_trigger->tgoldtable != NULL, &none);

	if (!none)
		run_on_objects(psprintf("UPDATE %s SET rowmap = NULL WHERE objid OPERATOR(pg_catalog.=) ANY ($1)", dir),
					   ids, SPI_OK_UPDATE);
}

/* The table of collection coll's kept documents (its owner's), or InvalidOid. */
static Oid
docs_table_of(const char *coll, Oid owner)
{
	Oid			relid = get_relname_relid(psprintf("%s_doc", coll),
										  get_namespace_oid(ARGO_SCHEMA, false));

	return OidIsValid(relid) && argo_relation_owner(relid) == owner ? relid : InvalidOid;
}

/*
 * argo_forget_rowmaps() RETURNS trigger, AFTER … FOR EACH STATEMENT on a
 * value table or the directory, with transition tables; its argument is
 * the collection.
 */
Datum
argo_forget_rowmaps(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	const char *coll;
	char	   *dir;
	Oid			docs;
	bool		on_directory;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		td->tg_trigger->tgnargs != 1)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("argo_forget_rowmaps() runs only as a statement trigger with the collection's name")));
	coll = td->tg_trigger->tgargs[0];
	collection_check_name(coll);
	dir = quote_qualified_identifier(ARGO_SCHEMA, psprintf("%s_obj", coll));
	docs = docs_table_of(coll, RelationGetForm(td->tg_relation)->relowner);
	on_directory = strcmp(RelationGetRelationName(td->tg_relation), psprintf("%s_obj", coll)) == 0;
	argo_spi_connect();
	if (SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
		elog(ERROR, "could not register the transition tables");
	if (!on_directory)
		forget_maps(td, dir);
	/* a directory row's map written alone changes no object */
	if (OidIsValid(docs))
		forget_docs(td, docs, on_directory);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * argo_docs_guard() RETURNS trigger, BEFORE INSERT OR UPDATE … FOR EACH
 * ROW on a table of kept documents: only Argo writes them, from C (which
 * fires no trigger), with the rows they copy.  A document written
 * through SQL would stand beside rows that do not hold it, and readers
 * would take it; deleting one only has the object rebuilt.
 */
Datum
argo_docs_guard(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	const char *relname;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("argo_docs_guard() runs only as a row trigger")));
	relname = RelationGetRelationName(td->tg_relation);
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("the kept documents in table \"%s\" are written by Argo only", relname),
			 errdetail("A document is a copy of its object's rows, written with them."),
			 errhint("Change objects with argo_query; deleting a document has its object rebuilt from its rows, and argo_repair writes missing ones again.")));
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
		elog(ERROR, "could not write maps: %s", SPI_result_code_string(rc));
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

/* Kept documents being compared with their objects' rows, and written again. */
typedef struct DocRepair
{
	ObjFetch   *fetch;			/* every object rebuilt from its rows */
	Rebuilder  *rb;
	DocWriter  *writer;
	Jsonb	   *kept;			/* the object's document, or NULL */
	bool		rebuilt;
	int64		written;
} DocRepair;

static void
repair_rebuilt(void *arg, int64 objid, Jsonb *obj)
{
	DocRepair  *r = arg;

	r->rebuilt = true;
	if (r->kept != NULL && VARSIZE(obj) == VARSIZE(r->kept) &&
		memcmp(obj, r->kept, VARSIZE(obj)) == 0)
		return;
	(void) docwriter_put(r->writer, objid, obj, NULL);
	r->written++;
}

/* One object (objid, its kept document or NULL): the document made what its rows say. */
static void
repair_object(DocRepair *r, HeapTuple tup, TupleDesc desc)
{
	bool		isnull;
	int64		objid = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
	Datum		kept = SPI_getbinval(tup, desc, 2, &isnull);

	CHECK_FOR_INTERRUPTS();
	r->kept = isnull ? NULL : DatumGetJsonbP(kept);
	r->rebuilt = false;
	objfetch_object(r->fetch, objid, r->rb);
	rebuilder_finish(r->rb);
}

/*
 * The objects and their documents, a batch at a time from a cursor: the
 * documents are written between fetches, never while a (perhaps
 * parallel) statement runs.
 */
static void
repair_all(ArgoCollection *c, DocRepair *r)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "argo document repair",
											  ALLOCSET_DEFAULT_SIZES);
	Portal		portal;

	portal = SPI_cursor_open_with_args(NULL, psprintf("SELECT o.objid, d.doc FROM %s o LEFT JOIN %s d"
													  " ON d.objid OPERATOR(pg_catalog.=) o.objid ORDER BY o.objid",
													  c->obj_table, c->doc_table),
									   0, NULL, NULL, NULL, true, 0);
	for (;;)
	{
		SPITupleTable *tt;

		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		tt = SPI_tuptable;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			repair_object(r, tt->vals[i], tt->tupdesc);
			MemoryContextSwitchTo(old);
			MemoryContextReset(cxt);
		}
		SPI_freetuptable(tt);
	}
	SPI_cursor_close(portal);
	MemoryContextDelete(cxt);
}

/*
 * Every kept document that is not what its object's rows rebuild (or is
 * missing) written again from the rows, and documents of no object
 * deleted; the number written and deleted.  The caller holds c's tables
 * in ShareRowExclusiveLock and has checked that they can be read
 * directly.
 */
int64
argo_repair_docs(ArgoCollection *c)
{
	DocRepair	r = {0};
	int			rc;

	if (!OidIsValid(docs_relid(c)))
		return 0;
	r.writer = docwriter_open(c, ACL_UPDATE);
	r.fetch = objfetch_open(c, NIL, false, true);
	if (r.fetch == NULL)
		elog(ERROR, "collection \"%s\" cannot be read directly", c->name);
	objfetch_ignore_docs(r.fetch);
	r.rb = rebuilder_create(keydict_of(c), repair_rebuilt, &r);
	repair_all(c, &r);
	objfetch_close(r.fetch);
	docwriter_close(r.writer);
	rc = SPI_execute(psprintf("DELETE FROM %s d WHERE NOT EXISTS (SELECT FROM %s o WHERE o.objid OPERATOR(pg_catalog.=) d.objid)",
							  c->doc_table, c->obj_table), false, 0);
	if (rc != SPI_OK_DELETE)
		elog(ERROR, "could not delete documents of no object: %s", SPI_result_code_string(rc));
	return r.written + (int64) SPI_processed;
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

	argo_spi_connect();
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
	total = argo_repair_maps(c) + argo_repair_docs(c);
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
