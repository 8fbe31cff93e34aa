#!/usr/bin/env python3
"""Objects that expire, deleted by Argo's background worker (argo_expire):
on a server of its own with shared_preload_libraries = 'argo' and a
one-second round (argo.expire_naptime), the worker deletes the expired
objects of a collection owned by an ordinary role, in every database that
has Argo, through Argo's DELETE; without the library preloaded nothing
expires by itself."""
import os
import shutil
import sys
import tempfile
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, check, q, summary  # noqa: E402

DOCS = """[{"n": 1, "at": "2001-01-01T00:00:00Z"}, {"n": 2, "at": 978307200},
           {"n": 3, "at": "2999-01-01T00:00:00+02:00"}, {"n": 4, "at": "2001-01-01T00:00:00"},
           {"n": 5}]"""


def connect(server, db="postgres"):
    return psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", dbname=db, autocommit=True)


def fill(server, db):
    with connect(server) as admin:
        admin.execute("CREATE DATABASE %s" % db)
    with connect(server, db) as conn:
        conn.execute("CREATE EXTENSION argo")
        conn.execute("CREATE ROLE expiry_owner_%s LOGIN" % db)
        conn.execute("GRANT CREATE ON SCHEMA argo_data TO expiry_owner_%s" % db)
        conn.execute("SET ROLE expiry_owner_%s" % db)
        conn.execute("SELECT argo_create_collection('events')")
        q(conn, "INSERT INTO events OBJECTS %s" % DOCS)
        conn.execute("SELECT argo_expire('events', 'at', '1 day')")


def left(server, db):
    with connect(server, db) as conn:
        return sorted(r["n"] for r in q(conn, "SELECT n FROM events"))


def wait_for(server, db, want, seconds=30):
    got = None
    for _ in range(seconds * 4):
        got = left(server, db)
        if got == want:
            break
        time.sleep(0.25)
    return got


def many(server, db, name, n):
    """n objects of name that expired long ago (and one that never does)."""
    with connect(server, db) as conn:
        conn.execute("SELECT argo_load(%s, 'SELECT jsonb_build_object(''seen'', ''2001-01-01T00:00:00Z'', ''i'', g)"
                     " FROM pg_catalog.generate_series(1, " + str(n) + ") g')", (name,))
        q(conn, "INSERT INTO %s OBJECT {\"i\": 0, \"seen\": \"2999-01-01T00:00:00Z\"}" % name)
        conn.execute("SELECT argo_expire(%s, 'seen', '30 minutes')", (name,))


def count(server, db, name):
    with connect(server, db) as conn:
        return conn.execute("SELECT argo_count(%s)", (name,)).fetchone()[0]


def worker_batches(server):
    """The worker deletes 1,000, 1,500 and 20,000 expired objects, each
    batch committed: a reader sees the count fall between rounds."""
    with connect(server) as admin:
        admin.execute("CREATE DATABASE busy")
    with connect(server, "busy") as conn:
        conn.execute("CREATE EXTENSION argo")
    for n in (1000, 1500, 20000):
        name = "sessions_%d" % n
        many(server, "busy", name, n)
        seen = set()
        deadline = time.time() + 60
        while time.time() < deadline:
            c = count(server, "busy", name)
            seen.add(c)
            if c == 1:
                break
            time.sleep(0.02)
        between = sorted(c for c in seen if 1 < c < n + 1)
        check(count(server, "busy", name) == 1,
              "the worker deletes %d expired objects and keeps the one that has not expired" % n)
        if n == 20000:
            check(len(between) > 0,
                  "the worker commits a batch at a time: counts seen between %d and 1 (%s)" % (n + 1, between[:5]))


def function_batches(server):
    """argo_expire_now deletes 1,000, 1,500, 20,000 and 100,000 at once
    (it found the same thousand again, forever, past 999)."""
    with connect(server) as admin:
        admin.execute("CREATE DATABASE busy")
    with connect(server, "busy") as conn:
        conn.execute("CREATE EXTENSION argo")
    for n in (999, 1000, 1500, 20000, 100000):
        name = "sessions_%d" % n
        many(server, "busy", name, n)
        with connect(server, "busy") as conn:
            conn.execute("SET statement_timeout = '60s'")
            start = time.time()
            deleted = conn.execute("SELECT argo_expire_now(%s)", (name,)).fetchone()[0]
            took = time.time() - start
        check(deleted == n and count(server, "busy", name) == 1,
              "argo_expire_now deletes %d expired objects (%d, %.1f s)" % (n, deleted, took))
    name = "sessions_bounded"
    many(server, "busy", name, 2500)
    with connect(server, "busy") as conn:
        got = [conn.execute("SELECT argo_expire_now(%s, 1000)", (name,)).fetchone()[0] for _ in range(4)]
    check(got == [1000, 1000, 500, 0], "argo_expire_now(c, max_objects) deletes at most that many (%s)" % got)


def main():
    root = tempfile.mkdtemp(prefix="argo-expiry-")
    preloaded = Cluster("preloaded", root, ["shared_preload_libraries=argo", "argo.expire_naptime=1"])
    preloaded.start()
    try:
        fill(preloaded, "one")
        fill(preloaded, "two")
        got = [wait_for(preloaded, "one", [3, 4, 5]), wait_for(preloaded, "two", [3, 4, 5])]
        check(got == [[3, 4, 5], [3, 4, 5]],
              "the worker deletes the expired objects in every database, as the owner; "
              "a timestamp without a zone and an object without one stay (%s)" % got)
        with connect(preloaded, "one") as conn:
            workers = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'argo expiry'").fetchone()[0]
            q(conn, "INSERT INTO events OBJECT {\"n\": 6, \"at\": 0}")
        got = wait_for(preloaded, "one", [3, 4, 5])
        check(workers >= 1 and got == [3, 4, 5],
              "the launcher keeps running (%d) and a new expired object goes within a round (%s)" % (workers, got))
        worker_batches(preloaded)
    finally:
        preloaded.stop()
    plain = Cluster("plain", root)
    plain.start()
    try:
        fill(plain, "three")
        time.sleep(3)
        before = left(plain, "three")
        with connect(plain, "three") as conn:
            deleted = conn.execute("SELECT argo_expire_now('events')").fetchone()[0]
        check(before == [1, 2, 3, 4, 5] and deleted == 2 and left(plain, "three") == [3, 4, 5],
              "without the library preloaded nothing expires by itself (%s), argo_expire_now deletes (%d)"
              % (before, deleted))
        function_batches(plain)
    finally:
        plain.stop()
        shutil.rmtree(root, ignore_errors=True)
    return summary("expiry")


if __name__ == "__main__":
    sys.exit(main())
