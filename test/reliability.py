#!/usr/bin/env python3
"""Reliability checks against a real server (PG* environment, as in pg_virtualenv).

1. Cancel: a long Argo SELECT, a long join and a long bulk load each stop
   within a second of pg_cancel_backend, with SQLSTATE 57014.
2. Crash: a backend killed with SIGKILL in the middle of a bulk load; after
   the server's crash recovery the collection holds exactly what was
   committed before (no partial objects), and Argo still works.
3. Memory: a SELECT of every object with work_mem = 64kB completes (results
   spill to the tuplestore's temporary file) and returns them all; reads
   of 1,500 documents of 100 kB under work_mem = 4MB (streamed, as the
   function, WHERE, ORDER BY, GROUP BY, DISTINCT, a projection, a
   cursor's FETCH) each grow the backend's private memory (RssAnon, polled
   from /proc) by at most 32 MB.
4. Concurrent drop: sessions inserting, selecting, updating, deleting and
   counting while another drops and re-creates the collection in a loop
   get results or 42P01 / 42P07, never an internal error or a deadlock.

5. Progress: argo_load_file and argo_load of 400,000 objects show in
   pg_stat_progress_copy while they run, with growing counts.

After the cancellations, the crash and the concurrent writes, argo_check
finds nothing wrong with the collection (no orphan or duplicate rows).

Needs to be able to signal the server's processes (run as the cluster's
owner or root).  Bounded: about a minute.
"""
import os
import signal
import sys
import threading
import time

import psycopg

DB = os.environ.get("PGDATABASE", "postgres")
OBJECTS = 60000
failures = []


def connect():
    return psycopg.connect(dbname=DB, autocommit=True)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def wait_running(admin, pid, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        row = admin.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
        if row and row[0] == "active":
            return True
        time.sleep(0.02)
    return False


def cancel_case(admin, name, sql, setup=(), params=None, workers=False):
    """Run sql in a session, cancel it after 0.5 s, time how long it takes to stop."""
    conn = connect()
    pid = conn.info.backend_pid
    result = {}
    for s in setup:
        conn.execute(s)

    def run():
        t0 = time.monotonic()
        try:
            conn.execute(sql, params, prepare=params is not None)
            result["state"] = "finished"
        except psycopg.errors.QueryCanceled:
            result["state"] = "57014"
        except psycopg.Error as e:
            result["state"] = e.sqlstate
        result["end"] = time.monotonic()
        result["start"] = t0

    th = threading.Thread(target=run)
    th.start()
    running = wait_running(admin, pid)
    time.sleep(0.5)
    helpers = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE leader_pid = %s",
                            (pid,)).fetchone()[0]
    if workers:
        check(helpers > 0, "cancel %s: %d parallel workers running when cancelled" % (name, helpers))
    t_cancel = time.monotonic()
    admin.execute("SELECT pg_cancel_backend(%s)", (pid,))
    th.join(30)
    conn.close()
    stopped_after = result.get("end", float("inf")) - t_cancel
    check(running and result.get("state") == "57014" and stopped_after < 1.0,
          "cancel %s: %s, stopped %.3f s after pg_cancel_backend"
          % (name, result.get("state"), stopped_after))


def crash_case(admin):
    admin.execute("SELECT argo_drop_collection('crashy', true)")
    admin.execute("SELECT argo_query('INSERT INTO crashy OBJECT $1', '{\"before\": true}')")
    conn = connect()
    pid = conn.info.backend_pid
    state = {}

    def run():
        try:
            conn.execute("SELECT argo_load('crashy', 'SELECT jsonb_build_object(''i'', i, ''s'', repeat(''x'', 50)) "
                         "FROM generate_series(1, 2000000) i')")
            state["state"] = "finished"
        except psycopg.Error as e:
            state["state"] = "error %s" % type(e).__name__

    th = threading.Thread(target=run)
    th.start()
    wait_running(admin, pid)
    time.sleep(1.5)                       # well into the load
    os.kill(pid, signal.SIGKILL)
    th.join(60)
    # the postmaster restarts every backend; wait for it to accept connections
    admin.close()
    deadline = time.monotonic() + 60
    while True:
        try:
            admin = connect()
            admin.execute("SELECT 1")
            break
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    rows = admin.execute("SELECT x FROM argo_query('SELECT * FROM crashy') x").fetchall()
    check(state.get("state", "").startswith("error") and rows == [({"before": True},)],
          "crash mid-load: load %s; after recovery the collection holds %d object(s), "
          "the committed one" % (state.get("state"), len(rows)))
    n = admin.execute("SELECT count(*) FROM argo_query('INSERT INTO crashy OBJECT {\"after\": 1}')").fetchone()[0]
    check(n == 1, "Argo works after crash recovery")
    consistent(admin, "crashy", "crash recovery")
    admin.execute("SELECT argo_drop_collection('crashy')")
    return admin


def consistent(admin, coll, after):
    """argo_check finds nothing wrong with coll."""
    problems = [r[0] for r in admin.execute("SELECT p FROM argo_collections c, argo_check(c.name) p "
                                            "WHERE c.name = %s", (coll,)).fetchall()]
    check(not problems, "argo_check(%s) after %s: %s" % (coll, after, "; ".join(problems) or "consistent"))


def progress_case(admin):
    """A long load shows its progress in pg_stat_progress_copy, as COPY does."""
    path = "/tmp/argo_progress.jsonl"
    admin.execute("COPY (SELECT jsonb_build_object('i', i, 's', repeat('x', 40)) FROM generate_series(1, 400000) i) "
                  "TO '%s' WITH (FORMAT csv, DELIMITER e'\\x01', QUOTE e'\\x02')" % path)
    size = os.path.getsize(path) if os.path.exists(path) else None
    for kind, call in (("file", "SELECT argo_load_file('prog', '%s')" % path),
                       ("query", "SELECT argo_load('prog', 'SELECT jsonb_build_object(''i'', i) "
                                 "FROM generate_series(1, 400000) i')")):
        admin.execute("SELECT argo_drop_collection('prog', true)")
        conn = connect()
        pid = conn.info.backend_pid
        done = {}
        th = threading.Thread(target=lambda: done.update(n=conn.execute(call).fetchone()[0]))
        th.start()
        seen = []
        while th.is_alive():
            row = admin.execute("SELECT relid::oid::bigint, command, type, bytes_processed, bytes_total, tuples_processed "
                                "FROM pg_stat_progress_copy WHERE pid = %s", (pid,)).fetchone()
            if row:
                seen.append(row)
            time.sleep(0.05)
        th.join()
        conn.close()
        # the collection was made by the load's own transaction: its
        # directory's oid is known to others once that commits
        directory = admin.execute("SELECT 'argo_data.prog_obj'::regclass::oid::bigint").fetchone()[0]
        tuples = [r[5] for r in seen]
        ok = (len(seen) >= 2 and done.get("n") == 400000 and tuples == sorted(tuples) and tuples[-1] > tuples[0] >= 0
              and all(r[0] == directory and r[1] == "COPY FROM" for r in seen)
              and all(r[2] == ("FILE" if kind == "file" else "CALLBACK") for r in seen)
              and seen[-1][3] > 0 and (kind != "file" or seen[-1][4] == size))
        if not ok:
            print("     first %s, last %s, file size %s" % (seen[:1], seen[-1:], size))
        check(ok, "a %s load of 400000 objects reports progress: %d samples, up to %s objects, %s bytes"
              % (kind, len(seen), tuples[-1] if tuples else None, seen[-1][3] if seen else None))
    admin.execute("SELECT argo_drop_collection('prog', true)")


def memory_case(admin):
    conn = connect()
    conn.execute("SET work_mem = '64kB'")
    n = conn.execute("SELECT count(*) FROM argo_query('SELECT * FROM rel')").fetchone()[0]
    check(n == OBJECTS, "SELECT of %d objects with work_mem = 64kB returned %d" % (OBJECTS, n))
    conn.close()


def rss_anon_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def peak_growth_mb(conn, sql):
    """How far the backend's private memory rose above its start while sql ran (polled)."""
    pid = conn.info.backend_pid
    start = rss_anon_kb(pid)
    peak = [start]
    done = threading.Event()

    def poll():
        while not done.is_set():
            peak[0] = max(peak[0], rss_anon_kb(pid))
            time.sleep(0.002)

    t = threading.Thread(target=poll)
    t.start()
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            cur.fetchall()
    finally:
        done.set()
        t.join()
    return (peak[0] - start) / 1024.0


def bounded_memory_case(admin):
    """Reads of 1,500 documents of 100 kB under work_mem = 4MB: each holds
    at most 32 MB more than it started with, whatever the collection
    holds (results streamed a budget at a time, documents freed as they
    go, DISTINCT and GROUP BY spilling or streaming their groups)."""
    admin.execute("SELECT argo_drop_collection('relmem', true)")
    admin.execute("SELECT argo_load('relmem', $$SELECT jsonb_build_object('i', i, 'g', i % 10, 's', "
                  "(SELECT string_agg(md5(i::text || k::text), '') FROM generate_series(1, 3200) k)) "
                  "FROM generate_series(1, 1500) i$$)")
    conn = connect()
    conn.execute("SET work_mem = '4MB'")
    whole = "SELECT sum(length(x::text)) FROM argo_query('%s') x"
    cases = [("SELECT * (streamed)", whole % "SELECT * FROM relmem"),
             ("SELECT * (the function)", "SELECT sum(length(x::text)) FROM (SELECT argo_query('SELECT * FROM relmem') x) s"),
             ("WHERE", whole % "SELECT * FROM relmem WHERE g < 5"),
             ("ORDER BY", whole % "SELECT * FROM relmem ORDER BY i DESC"),
             ("GROUP BY", whole % "SELECT s, COUNT(*) AS n FROM relmem GROUP BY s"),
             ("DISTINCT", whole % "SELECT DISTINCT * FROM relmem"),
             ("a projection", whole % "SELECT s FROM relmem")]
    grown = {}
    for name, sql in cases:
        grown[name] = peak_growth_mb(conn, sql)
    conn.autocommit = False
    conn.execute("DECLARE c CURSOR FOR SELECT x FROM argo_query('SELECT * FROM relmem') x")
    pid = conn.info.backend_pid
    start = peak = rss_anon_kb(pid)
    for _ in range(15):
        conn.execute("FETCH 100 FROM c").fetchall()
        peak = max(peak, rss_anon_kb(pid))
    grown["a cursor's FETCH"] = (peak - start) / 1024.0
    conn.rollback()
    conn.close()
    admin.execute("SELECT argo_drop_collection('relmem')")
    over = {k: round(v, 1) for k, v in grown.items() if v > 32}
    check(not over, "bounded memory: 1,500 documents of 100 kB, work_mem = 4MB, the most a read grew: %.1f MB (%s)"
          % (max(grown.values()), ", ".join("%s +%.1f" % (k, v) for k, v in grown.items())))


def drop_case(seconds=6):
    """Every statement kind against a collection dropped and re-created in a loop."""
    stop = time.monotonic() + seconds
    seen = {}
    statements = {
        "insert": "SELECT count(*) FROM argo_query('INSERT INTO dz OBJECT $1', jsonb_build_object('a', 1))",
        "select": "SELECT count(*) FROM argo_query('SELECT * FROM dz WHERE a > 0')",
        "update": "SELECT count(*) FROM argo_query('UPDATE dz SET c = 1 WHERE a > 0')",
        "delete": "SELECT count(*) FROM argo_query('DELETE FROM dz WHERE a < 0')",
        "count": "SELECT argo_count('dz')",
        "drop": "SELECT argo_drop_collection('dz', true), argo_create_collection('dz', 'argo1')",
    }

    def worker(kind):
        conn = connect()
        while time.monotonic() < stop:
            try:
                conn.execute(statements[kind]).fetchall()
                state = "ok"
            except psycopg.Error as e:
                state = e.sqlstate
            seen[(kind, state)] = seen.get((kind, state), 0) + 1
        conn.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in statements]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = sorted("%s %s" % k for k in seen if k[1] not in ("ok", "42P01", "42P07"))
    check(not bad and seen.get(("select", "ok"), 0) > 0,
          "concurrent drop and re-create: only results, 42P01 and 42P07 (%s)" % (", ".join(bad) or "clean"))
    conn = connect()
    consistent(conn, "dz", "concurrent writes, drops and re-creates")
    conn.execute("SELECT argo_drop_collection('dz', true)")


def main():
    admin = connect()
    admin.execute("CREATE EXTENSION IF NOT EXISTS argo")
    admin.execute("SELECT argo_drop_collection('rel', true)")
    admin.execute("SELECT argo_load('rel', 'SELECT jsonb_build_object(''i'', i, ''g'', i %% 100, "
                  "''tags'', jsonb_build_array(''a'', ''b'', i)) FROM generate_series(1, %d) i')" % OBJECTS)
    cancel_case(admin, "SELECT", "SELECT count(*) FROM argo_query('SELECT * FROM rel AS a INNER JOIN rel AS b "
                "ON (a.g = b.g)')")
    cancel_case(admin, "bulk load", "SELECT argo_load('rel2', 'SELECT jsonb_build_object(''i'', i) "
                "FROM generate_series(1, 5000000) i')")
    cancel_case(admin, "UPDATE", "SELECT count(*) FROM argo_query('UPDATE rel SET x.y = 1')")
    # a generic plan, planned again for its statement when it starts (backend/replan.c)
    admin.execute("VACUUM ANALYZE argo_data.rel_obj")
    cancel_case(admin, "SELECT of a generic plan",
                "SELECT count(*) FROM argo_query(%s) r "
                "WHERE (r->>'i')::int %% 10 <> 0 OR pg_sleep(0.001) IS NOT NULL",
                # (a session's first query is planned before the library is loaded: not that one)
                ("SET plan_cache_mode = force_generic_plan", "SET min_parallel_table_scan_size = 0",
                 "SELECT * FROM argo_query('SELECT COUNT(*) FROM rel')"),
                ("SELECT * FROM rel",), workers=True)
    consistent(admin, "rel", "cancelled statements")
    memory_case(admin)
    bounded_memory_case(admin)
    progress_case(admin)
    admin = crash_case(admin)
    drop_case()
    admin.execute("SELECT argo_drop_collection('rel', true), argo_drop_collection('rel2', true)")
    admin.close()
    total = 15
    print("reliability: %d passed, %d failed" % (total - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
