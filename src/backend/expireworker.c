/*
 * expireworker.c — the background worker that deletes expired objects
 * (argo_expire) once a minute (argo.expire_naptime) in every database
 * that has Argo, where shared_preload_libraries includes argo; without
 * it nothing expires but by argo_expire_now.
 *
 * A launcher connected to no database lists the databases each round
 * and starts a worker in each, one at a time; that worker calls
 * argo_expire_now for each collection with an expiry, as the
 * collection's owner, one transaction each (a failure is logged and the
 * others go on).
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/plancache.h"
#include "common/sqlbuf.h"
#include "backend/hooks.h"

PGDLLEXPORT void argo_expire_launcher(Datum arg);
PGDLLEXPORT void argo_expire_database(Datum arg);

static int	expire_naptime = 60;

/* The setting, and the launcher where the library is preloaded. */
void
argo_expire_init(void)
{
	BackgroundWorker w;

	DefineCustomIntVariable("argo.expire_naptime",
							"Seconds between the rounds of the worker that deletes expired objects.",
							"It runs only where shared_preload_libraries includes argo.",
							&expire_naptime, 60, 1, 86400, PGC_SIGHUP, GUC_UNIT_S,
							NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = 60;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "argo");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "argo_expire_launcher");
	snprintf(w.bgw_name, BGW_MAXLEN, "argo expiry launcher");
	snprintf(w.bgw_type, BGW_MAXLEN, "argo expiry");
	RegisterBackgroundWorker(&w);
}

/* The databases a worker may connect to, allocated in cxt. */
static List *
databases(MemoryContext cxt)
{
	List	   *out = NIL;
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);
		MemoryContext old;

		if (!db->datallowconn || db->datistemplate)
			continue;
		old = MemoryContextSwitchTo(cxt);
		out = lappend_oid(out, db->oid);
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	return out;
}

/* A worker in database db, waited for. */
static void
run_in(Oid db)
{
	BackgroundWorker w;
	BackgroundWorkerHandle *h;
	pid_t		pid;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "argo");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "argo_expire_database");
	snprintf(w.bgw_name, BGW_MAXLEN, "argo expiry worker");
	snprintf(w.bgw_type, BGW_MAXLEN, "argo expiry");
	w.bgw_main_arg = ObjectIdGetDatum(db);
	w.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&w, &h))
		return;					/* no slot now: the next round */
	if (WaitForBackgroundWorkerStartup(h, &pid) == BGWH_STARTED)
		WaitForBackgroundWorkerShutdown(h);
}

void
argo_expire_launcher(Datum arg)
{
	MemoryContext round = AllocSetContextCreate(TopMemoryContext, "argo expiry round",
												ALLOCSET_DEFAULT_SIZES);

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	for (;;)
	{
		ListCell   *lc;
		List	   *dbs = databases(round);

		foreach(lc, dbs)
		{
			CHECK_FOR_INTERRUPTS();
			run_in(lfirst_oid(lc));
		}
		MemoryContextReset(round);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 expire_naptime * 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}
}

typedef struct Expiring
{
	char	   *name;
	Oid			owner;
} Expiring;

/* The collections here with an expiry, and their owners. */
static List *
expiring(MemoryContext cxt)
{
	List	   *out = NIL;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (OidIsValid(get_extension_oid("argo", true)))
	{
		argo_spi_connect();
		if (SPI_execute("SELECT pg_catalog.left(s.relname::pg_catalog.text, -4), s.relowner"
						" FROM pg_catalog.pg_class s"
						" WHERE s.relnamespace OPERATOR(pg_catalog.=) 'argo_data'::pg_catalog.regnamespace"
						" AND s.relkind OPERATOR(pg_catalog.=) 'S'"
						" AND pg_catalog.obj_description(s.oid, 'pg_class') OPERATOR(pg_catalog.~~) 'argo expire: %'",
						true, 0) != SPI_OK_SELECT)
			elog(ERROR, "could not list the collections that expire");
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);
			Expiring   *e = palloc(sizeof(Expiring));
			bool		isnull;

			e->name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
			e->owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
			out = lappend(out, e);
			MemoryContextSwitchTo(old);
		}
		SPI_finish();
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	return out;
}

/* Objects a transaction of the worker deletes: each batch commits. */
#define EXPIRE_WORKER_BATCH 1000

/*
 * One batch of argo_expire_now(name, batch) as the collection's owner, in
 * a transaction of its own: how many it deleted, -1 on an error (logged).
 */
static int64
expire_batch(Expiring *e)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile int64 n = -1;

	StartTransactionCommand();
	PG_TRY();
	{
		Oid			user;
		int			sec;
		Oid			types[2] = {TEXTOID, INT8OID};
		Datum		values[2] = {CStringGetTextDatum(e->name), Int64GetDatum(EXPIRE_WORKER_BATCH)};
		bool		isnull;

		GetUserIdAndSecContext(&user, &sec);
		SetUserIdAndSecContext(e->owner, sec | SECURITY_LOCAL_USERID_CHANGE);
		PushActiveSnapshot(GetTransactionSnapshot());
		argo_spi_connect();
		if (SPI_execute_with_args(psprintf("SELECT %s($1, $2)", argo_function("argo_expire_now")),
								  2, types, values, NULL, false, 0) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "could not expire the objects of \"%s\"", e->name);
		n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		SPI_finish();
		PopActiveSnapshot();
		SetUserIdAndSecContext(user, sec);
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		/* logged; the other collections go on */
		MemoryContextSwitchTo(cxt);
		EmitErrorReport();
		FlushErrorState();
		AbortCurrentTransaction();
		n = -1;
	}
	PG_END_TRY();
	return n;
}

/*
 * A collection's expired objects, a committed batch at a time: a busy
 * day's thousands never wait in one transaction holding every lock.
 */
static void
expire_one(Expiring *e)
{
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (expire_batch(e) < EXPIRE_WORKER_BATCH)
			break;
	}
}

void
argo_expire_database(Datum arg)
{
	ListCell   *lc;
	List	   *todo;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(DatumGetObjectId(arg), InvalidOid, 0);
	pgstat_report_activity(STATE_RUNNING, "argo: deleting expired objects");
	todo = expiring(TopMemoryContext);
	foreach(lc, todo)
	{
		CHECK_FOR_INTERRUPTS();
		expire_one(lfirst(lc));
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
