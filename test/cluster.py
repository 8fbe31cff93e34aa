"""For the tests that need servers of their own (test/distributed.py,
test/feed.py): throwaway PostgreSQL servers (initdb and pg_ctl of this
machine's PostgreSQL 15, run as postgres, on a free loopback port, with
trust authentication for loopback and the socket in the root folder),
an Argo/SQL call, and the tests' ok/FAIL lines."""
import json
import os
import shutil
import socket
import signal
import subprocess
import time

import psycopg

BIN = "/usr/lib/postgresql/15/bin"


def as_postgres(args):
    """Run a server program as postgres (never as root)."""
    if os.geteuid() == 0:
        args = ["runuser", "-u", "postgres", "--"] + args
    return subprocess.run(args, capture_output=True, text=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A throwaway PostgreSQL server of this machine's binaries, on a free loopback port."""

    def __init__(self, name, root, settings=()):
        self.name = name
        self.settings = list(settings)
        self.dir = os.path.join(root, self.name)
        self.port = free_port()
        os.makedirs(self.dir)
        if os.geteuid() == 0:
            shutil.chown(root, "postgres")
            shutil.chown(self.dir, "postgres")
        r = as_postgres([BIN + "/initdb", "-D", self.dir, "-A", "trust", "-U", "postgres"])
        if r.returncode != 0:
            raise RuntimeError("initdb failed: " + r.stderr)

    def start(self):
        r = as_postgres([BIN + "/pg_ctl", "-D", self.dir, "-w", "-l", self.dir + "/log", "-o",
                         " ".join(["-p %d -k %s -c listen_addresses=127.0.0.1 -c shared_buffers=64MB"
                                   % (self.port, os.path.dirname(self.dir))] + ["-c %s" % x for x in self.settings]),
                         "start"])
        if r.returncode != 0:
            raise RuntimeError("pg_ctl start failed: " + r.stderr + open(self.dir + "/log").read())

    def stop(self, mode="fast"):
        as_postgres([BIN + "/pg_ctl", "-D", self.dir, "-w", "-m", mode, "stop"])

    def kill9(self):
        """SIGKILL the postmaster, and wait until its processes are gone."""
        with open(os.path.join(self.dir, "postmaster.pid")) as f:
            pid = int(f.readline())
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            r = subprocess.run(["pgrep", "-f", "-P", str(pid)], capture_output=True)
            if r.returncode != 0:
                break
            time.sleep(0.1)

    def connect(self):
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                               dbname="postgres", autocommit=True)


results = {"passed": 0, "failed": 0}


def check(ok, what):
    """One test's line; counted for summary()."""
    print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
    results["passed" if ok else "failed"] += 1


def summary(name):
    print("%s: %d passed, %d failed" % (name, results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


def outcome(run):
    """("ok", None) when run() succeeds, else the SQLSTATE of its error and the error."""
    try:
        run()
        return "ok", None
    except psycopg.Error as e:
        return e.sqlstate, e


def q(conn, text, *params):
    """argo_query's objects, its parameters given as Python values."""
    return [r[0] for r in conn.execute("SELECT x FROM argo_query(%s, VARIADIC %s::jsonb[]) x",
                                       (text, [json.dumps(p) for p in params])).fetchall()]
