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
    finally:
        plain.stop()
        shutil.rmtree(root, ignore_errors=True)
    return summary("expiry")


if __name__ == "__main__":
    sys.exit(main())
