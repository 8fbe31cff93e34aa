#!/usr/bin/env python3
"""Distributed collections tested like the rest: pg_regress files with
expected output (test/distributed/sql, expected) run on a scripted
cluster of four servers — the suite's own as the coordinator and three
throwaway shards (initdb and pg_ctl, as the postgres user, on loopback
ports), as Citus's pg_regress_multi does.  The shards' ports reach the
tests through the environment (ARGO_SHARD1_PORT …, read by psql's
\\getenv in setup.sql), so the expected files name none.  Faults and
timing stay in test/distributed.py.

    python3 test/distributed/run.py      (inside pg_virtualenv, PG* set)
    python3 test/distributed/run.py --accept   (results become the expected files)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from cluster import Cluster  # noqa: E402

PG_REGRESS = "/usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress"
# in order: setup makes the servers and the helpers every later file uses
TESTS = ["setup", "reads", "aggregates", "writes", "refused", "teardown"]


def main():
    root = tempfile.mkdtemp(prefix="argo_regress_shards_")
    shards = [Cluster("argo_rshard%d" % i, root) for i in (1, 2, 3)]
    out = os.path.join(root, "out")
    os.makedirs(out)
    if os.geteuid() == 0:
        shutil.chown(out, "postgres")
    env = dict(os.environ)
    try:
        for i, s in enumerate(shards, 1):
            s.start()
            with s.connect() as c:
                c.execute("CREATE EXTENSION argo")
            env["ARGO_SHARD%d_PORT" % i] = str(s.port)
        accept = "--accept" in sys.argv
        if accept:
            # a developer's run that takes the results as the expected files (review the diff)
            for t in TESTS:
                open(os.path.join(HERE, "expected", t + ".out"), "a").close()
        r = subprocess.run([PG_REGRESS, "--inputdir=" + HERE, "--outputdir=" + out,
                            "--dbname=argo_distributed_regress", "--load-extension=argo",
                            "--load-extension=postgres_fdw", "--load-extension=dblink"] + TESTS,
                           env=env, capture_output=True, text=True)
        print(r.stdout, end="")
        if accept:
            for t in TESTS:
                shutil.copy(os.path.join(out, "results", t + ".out"), os.path.join(HERE, "expected", t + ".out"))
        if r.returncode != 0:
            diffs = os.path.join(out, "regression.diffs")
            if os.path.exists(diffs):
                print(open(diffs).read())
            print(r.stderr, end="")
        results = re.findall(r"^(?:test|ok|not ok)?\s*(\w+)\s+\.\.\.\s+(ok|FAILED|failed)", r.stdout, re.M)
        passed = sum(1 for _, res in results if res == "ok")
        failed = len(TESTS) - passed if r.returncode else 0
        print("distributed regress: %d passed, %d failed" % (passed, failed))
        return r.returncode
    finally:
        for s in shards:
            s.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
