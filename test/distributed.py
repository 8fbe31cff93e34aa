#!/usr/bin/env python3
"""Distributed collections on three local PostgreSQL servers.

Starts three throwaway clusters on loopback ports (initdb and pg_ctl, as
the postgres user), installs Argo on each, defines them on the suite's
server as postgres_fdw servers, and checks that a collection spread over
them behaves as one on a single server: every statement kind gives the
same results as on a local collection of the same documents; the
SELECTs the shards run themselves are merged in one server's order
(ORDER BY across types, LIMIT/OFFSET, DISTINCT, empty shards); every
shard's dictionary is the coordinator's, and one that is behind is not
asked; a shard failing or cancelled while it runs its part; every
object lives whole on one shard; NoBench and the AQL cases at 10k give
the same results distributed as locally; concurrent writers of one
object lose no update; the OLTP write scripts leave the same documents;
a shard that is down or stops mid-statement
gives an error naming it and leaves nothing behind; a commit that fails
on one shard after another committed leaves the other's part (there is
no two-phase commit); dropping the collection drops the shards'.

    python3 test/distributed.py

Connects to the coordinator with libpq's PG* environment.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, outcome, q, summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
def connect():
    return psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True)


def canon(rows, ordered):
    texts = [json.dumps(r, sort_keys=True) for r in rows]
    return texts if ordered else sorted(texts)


DOCS = [
    {"name": "Ada", "age": 36, "tags": ["math", "engines"], "address": {"city": "London"}, "ok": True},
    {"name": "Bob", "age": 25, "tags": ["sql"], "address": {"city": "Paris", "zip": "75001"}},
    {"name": "Cy", "age": 41, "tags": [], "extra": None, "ok": False},
    {},
    {"name": "Dee", "age": 25.5, "big": 123456789012345678901234567890, "nested": {"a": [{"b": {}}]}},
    {"name": "Éva", "age": 30, "tags": ["math"], "address": {"city": "Paris"}},
    {"name": "Ord1", "items": [{"sku": "pen", "qty": 2}, {"sku": "ink"}]},
    {"name": "Ord2", "items": [{"sku": "ink", "qty": 1}], "address": {"city": "Paris"}},
] + [{"name": "n%d" % i, "age": i % 50, "grp": i % 7, "tags": ["t%d" % (i % 3)]} for i in range(200)]

# (statement, params, ordered): each runs on the local and the distributed
# collection ("C" replaced) and must give the same results
STATEMENTS = [
    ("SELECT * FROM @C", [], False),
    ("SELECT * FROM @C WHERE age = 25", [], False),
    ("SELECT * FROM @C WHERE age > $1 AND age <= 40", [30], False),
    ("SELECT * FROM @C WHERE age BETWEEN 20 AND 30 OR name = 'Ada'", [], False),
    ("SELECT name FROM @C WHERE name LIKE 'n1%'", [], False),
    ("SELECT * FROM @C WHERE 'math' = ANY tags", [], False),
    ("SELECT * FROM @C WHERE EXISTS address.zip", [], False),
    ("SELECT * EXCEPT (address.zip, tags[0]) FROM @C WHERE age > 30 ORDER BY name", [], True),
    ("SELECT * FROM @C WHERE NOT age < 45", [], False),
    ("SELECT * FROM @C WHERE age IN (25, 36, 41)", [], False),
    ("SELECT * FROM @C WHERE name IN $1", [["Ada", "Cy", "n7"]], False),
    ("SELECT name, address.city FROM @C WHERE EXISTS address", [], False),
    ("SELECT * FROM @C WHERE ID() = 2", [], False),
    ("SELECT name, age FROM @C WHERE age > 10 ORDER BY age DESC, name LIMIT 7", [], True),
    ("SELECT name FROM @C ORDER BY name LIMIT 5 OFFSET 3", [], True),
    ("SELECT * FROM @C ORDER BY age, name LIMIT 4", [], True),
    ("SELECT ID() FROM @C WHERE age = 25 ORDER BY name", [], True),
    ("SELECT COUNT(*) FROM @C", [], False),
    ("SELECT COUNT(*) AS n, SUM(age) AS s, MIN(age) AS lo, MAX(name) AS hi FROM @C WHERE age > 5", [], False),
    ("SELECT grp, COUNT(*) AS n, AVG(age) AS a FROM @C GROUP BY grp", [], False),
    ("SELECT a.name, b.name FROM @C AS a INNER JOIN @C AS b ON (a.age = b.age) WHERE a.age < 3", [], False),
    ("SELECT a.name, b.name FROM @C AS a INNER JOIN @L AS b ON (a.name = b.name) WHERE a.age > 35", [], False),
    ("SELECT * FROM @C AS a INNER JOIN @C AS b ON (a.grp = b.age) WHERE b.age = 3", [], False),
    # arrays, whole values, ids (reference.md §3, §6, §7)
    ("SELECT name FROM @C WHERE items[*].sku = 'pen'", [], False),
    ("SELECT name FROM @C WHERE NOT items[*].sku = 'pen'", [], False),
    ("SELECT name, items[*].sku FROM @C WHERE EXISTS items", [], False),
    ("SELECT items[*].sku AS sku, COUNT(*) AS n FROM @C GROUP BY items[*].sku", [], False),
    ("SELECT SUM(items[*].qty) AS q FROM @C", [], False),
    ("SELECT ID(), name FROM @C WHERE age = 25 ORDER BY ID()", [], True),
    ("SELECT name FROM @C WHERE ID() > 200 ORDER BY ID() DESC", [], True),
    ("SELECT DISTINCT age FROM @C WHERE age < 5", [], False),
    ("SELECT COUNT(DISTINCT grp) AS g FROM @C", [], False),
    ("SELECT grp, age, COUNT(*) AS n FROM @C WHERE grp < 2 GROUP BY grp, age HAVING COUNT(*) > 1", [], False),
    ("SELECT name AS who, address.city AS city FROM @C WHERE EXISTS address", [], False),
    ("SELECT name FROM @C WHERE address = {\"city\": \"Paris\"}", [], False),
    ("SELECT name FROM @C WHERE tags = [\"math\"]", [], False),
    ("SELECT name FROM @C WHERE name ILIKE 'ÉV%'", [], False),
    ("SELECT name FROM @C WHERE name ~ '^n1[0-3]$'", [], False),
    ("SELECT a.name, b.name FROM @C AS a LEFT JOIN @C AS b ON (a.age = b.grp) WHERE a.age > 45", [], False),
    ("SELECT a.name, b.name FROM @C AS a JOIN @L AS b ON (a.name = b.name) WHERE a.age > 35", [], False),
]

# writes run in order on both; the collections must stay equal
WRITES = [
    ("INSERT INTO @C OBJECT {\"name\": \"Zed\", \"age\": 99, \"tags\": [\"new\"]}", []),
    ("INSERT INTO @C OBJECT $1, $2", [{"name": "P1", "age": 1}, {"name": "P2", "age": 2, "x": {"y": [1, 2]}}]),
    ("UPDATE @C SET age = 37, address.country = 'UK' WHERE name = 'Ada'", []),
    ("UPDATE @C SET age += 1, tags APPEND 'x' WHERE grp = 3", []),
    ("UPDATE @C SET tags REMOVE 'math' UNSET address WHERE 'math' = ANY tags", []),
    ("UPDATE @C SET tags ADD 'sql' WHERE ID() = 2", []),
    ("UPSERT @C SET hits += 1 WHERE name = 'Counter'", []),
    ("UPSERT @C SET hits += 1 WHERE name = 'Counter'", []),
    ("DELETE FROM @C WHERE age > 45 AND age < 99", []),
    ("DELETE FROM @C WHERE ID() = 4", []),
    ("INSERT INTO @C OBJECTS $1", [[{"name": "M%d" % i, "age": 60 + i % 3} for i in range(300)]]),
    ("UPDATE @C SET age = 50 WHERE name = 'P1' RETURNING *", []),
    ("UPDATE @C SET seen = true WHERE age = 61 RETURNING ID", []),
    ("DELETE FROM @C WHERE name = 'P2' RETURNING *", []),
    ("DELETE FROM @C WHERE age = 62 RETURNING ID", []),
    ("UPSERT @C SET hits += 1 WHERE name = 'Counter' RETURNING *", []),
]


def statements_case(admin, servers):
    admin.execute("SELECT argo_drop_collection('dloc', true)")
    admin.execute("SELECT argo_drop_collection('ddis', true)")
    admin.execute("SELECT argo_create_distributed_collection('ddis', %s)", (servers,))
    for coll in ("dloc", "ddis"):
        q(admin, "INSERT INTO %s OBJECT $1" % coll, DOCS[0])
        admin.execute("SELECT argo_load(%s, %s)",
                      (coll, "SELECT d FROM jsonb_array_elements('%s'::jsonb) d"
                       % json.dumps(DOCS[1:]).replace("'", "''")))
    bad = []
    for text, params, ordered in STATEMENTS:
        local = q(admin, text.replace("@C", "dloc").replace("@L", "dloc"), *params)
        dist = q(admin, text.replace("@C", "ddis").replace("@L", "dloc"), *params)
        if canon(local, ordered) != canon(dist, ordered):
            bad.append(text)
    check(not bad, "%d reading statements give the same results distributed (%s)"
          % (len(STATEMENTS), "; ".join(bad) or "all equal"))
    bad = []
    for text, params in WRITES:
        a = q(admin, text.replace("@C", "dloc"), *params)
        b = q(admin, text.replace("@C", "ddis"), *params)
        if a != b:
            bad.append("%s: %s vs %s" % (text, a, b))
    same = canon(q(admin, "SELECT * FROM dloc"), False) == canon(q(admin, "SELECT * FROM ddis"), False)
    check(not bad and same, "%d writes (INSERT, UPDATE with operators, UPSERT, DELETE) leave the same objects (%s)"
          % (len(WRITES), "; ".join(bad) or ("equal" if same else "objects differ")))
    ids = q(admin, "INSERT INTO ddis OBJECT {\"r\": 1}, {\"r\": 2} RETURNING ID")
    objs = [admin.execute("SELECT argo_object('ddis', %s)", (i,)).fetchone()[0]
            for i in (ids[0]["ids"] if ids and "ids" in ids[0] else [])]
    check(objs == [{"r": 1}, {"r": 2}], "INSERT … RETURNING ID and argo_object: %s" % objs)
    keys = admin.execute("SELECT count(*) FROM argo_keys('ddis')").fetchone()[0]
    count = admin.execute("SELECT argo_count('ddis'), argo_count('dloc')").fetchone()
    check(keys > 0 and count[0] == count[1] + 2, "argo_keys (%d paths) and argo_count (%s)" % (keys, count))
    plan = "\n".join(r[0] for r in admin.execute("SELECT * FROM argo_explain('SELECT * FROM ddis WHERE age > 30')"))
    parts = sum(('-- shard "%s" runs' % s) in plan for s in servers)
    check("run by the shards, merged" in plan and parts == len(servers) and "--   -- strategy:" in plan,
          "argo_explain shows the merge and what each of the %d shards runs, with its own plan" % parts)
    plan = "\n".join(r[0] for r in admin.execute(
        "SELECT * FROM argo_explain('SELECT COUNT(DISTINCT grp) AS n FROM ddis')"))
    check("Foreign Scan" in plan and "Remote SQL" in plan,
          "argo_explain of a statement the shards do not run shows each shard's scan and the SQL it runs")
    state, err = outcome(lambda: q(admin, "UPDATE ddis SET r = 3 WHERE r = 1 RETURNING *, ID()"))
    check(state == "0A000", "UPDATE … RETURNING *, ID() of a distributed collection: 0A000 (%s %s)" % (state, err))
    got = q(admin, "INSERT INTO ddis OBJECT {\"r\": 9} RETURNING *, ID()")
    check(len(got) == 1 and got[0].get("r") == 9 and
          admin.execute("SELECT argo_object('ddis', %s)", (got[0].get("_id"),)).fetchone()[0] == {"r": 9},
          "INSERT … RETURNING *, ID() into a distributed collection gives the object's id: %s" % got)
    state, err = outcome(lambda: admin.execute("SELECT argo_unique('ddis', 'name')"))
    check(state == "0A000", "argo_unique on a distributed collection: 0A000 (%s %s)" % (state, err))
    for text in ("SELECT * FROM ddis WHERE EXISTS tags[? @ = 'x']", "SELECT tags[-1] FROM ddis",
                 "SELECT ARRAY_AGG(name) FROM ddis", "SELECT * FROM ddis WHERE name @@ 'ann'"):
        state, err = outcome(lambda: q(admin, text))
        check(state == "0A000" and "distributed" in str(err),
              "%s on a distributed collection: 0A000 naming it (%s %s)" % (text, state, err))
    problems = admin.execute("SELECT * FROM argo_check('ddis')").fetchall()
    check(not problems, "argo_check finds nothing wrong: %s" % problems)


def placement_case(admin, shards):
    """Every object whole on one shard: its directory row and all its rows."""
    total = 0
    strays = 0
    ids = set()
    for s in shards:
        with s.connect() as c:
            objs = {r[0] for r in c.execute("SELECT objid FROM argo_data.ddis_obj")}
            rows = {r[0] for r in c.execute("SELECT objid FROM argo_data.ddis_str UNION SELECT objid FROM argo_data.ddis_num "
                                            "UNION SELECT objid FROM argo_data.ddis_bool")}
        strays += len(rows - objs)
        total += len(objs)
        overlap = ids & objs
        strays += len(overlap)
        ids |= objs
    n = admin.execute("SELECT argo_count('ddis')").fetchone()[0]
    # written straight to the shards: each on the one PostgreSQL's hash routing names
    misplaced = admin.execute(
        "SELECT count(*) FROM (SELECT tableoid, objid FROM argo_data.ddis_obj UNION ALL "
        "SELECT tableoid, objid FROM argo_data.ddis_str UNION ALL SELECT tableoid, objid FROM argo_data.ddis_num "
        "UNION ALL SELECT tableoid, objid FROM argo_data.ddis_bool) r JOIN pg_class c ON c.oid = r.tableoid "
        "WHERE NOT satisfies_hash_partition((SELECT inhparent FROM pg_inherits WHERE inhrelid = c.oid), %s, "
        "(regexp_match(pg_get_expr(c.relpartbound, c.oid), 'remainder (\\d+)'))[1]::int, r.objid)",
        (len(shards),)).fetchone()[0]
    check(strays == 0 and misplaced == 0 and total == n,
          "each of %d objects lies whole on one of %d shards, the one hash routing names (%d rows elsewhere)"
          % (n, len(shards), misplaced))


def bench_case(servers):
    env = dict(os.environ)
    runs = [("nobench.py", ["--scale", "10000", "--systems", "argo3,jsonb_gin"]),
            ("aql.py", ["--scale", "10000", "--systems", "argo3,jsonb_gin"]),
            ("oltp/oltp.py", ["--systems", "argo3,tuned"])]
    for script, args in runs:
        r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", script), "--check-only"] + args
                           + ["--shards", ",".join(servers)], capture_output=True, text=True, env=env)
        tail = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
        check(r.returncode == 0, "%s: distributed, local and jsonb agree (%s)" % (script, tail))
        if r.returncode != 0:
            print(r.stdout[-3000:], r.stderr[-3000:])


def concurrency_case(admin):
    """Writers of one object across servers: none lost, the loser told to retry."""
    q(admin, "UPSERT ddis SET n = 0 WHERE name = 'race'")
    a = connect()
    b = connect()
    a.execute("BEGIN")
    q(a, "UPDATE ddis SET n += 1 WHERE name = 'race'")
    result = {}

    def second():
        result["b"], _ = outcome(lambda: q(b, "UPDATE ddis SET n += 1 WHERE name = 'race'"))

    t = threading.Thread(target=second)
    t.start()
    time.sleep(1.0)
    waited = t.is_alive()
    a.execute("COMMIT")
    t.join()
    n = q(admin, "SELECT n FROM ddis WHERE name = 'race'")[0]["n"]
    expect = 2 if result.get("b") == "ok" else 1
    check(waited and result.get("b") in ("ok", "40001") and n == expect,
          "a second writer of one object waits for the first, then fails with 40001 or adds: %s, n = %s"
          % (result.get("b"), n))
    b.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    q(b, "SELECT * FROM ddis WHERE name = 'race'")
    q(a, "UPDATE ddis SET n += 1 WHERE name = 'race'")
    state, _ = outcome(lambda: q(b, "UPDATE ddis SET n += 1 WHERE name = 'race'"))
    b.execute("ROLLBACK")
    check(state == "40001", "REPEATABLE READ: a change the snapshot cannot see is 40001 (%s)" % state)
    a.close()
    b.close()


def consistency_case(admin, servers):
    """What a reader may see of a write that spans shards (the decision in
    docs/distributed.md, measured): each shard's part of a write whole or
    not at all, never half of it; across shards, parts of it. A local
    collection under the same load never shows two values."""
    admin.execute("SELECT argo_create_distributed_collection('dsnap', %s)", (servers,))
    admin.execute("SELECT argo_create_collection('lsnap')")
    for coll in ("dsnap", "lsnap"):
        q(admin, "INSERT INTO %s OBJECTS $1" % coll, [{"i": i, "n": 0} for i in range(12)])
    shard_of = dict(admin.execute("SELECT objid, tableoid::regclass::text FROM argo_data.dsnap_obj").fetchall())
    seen = {"dsnap": [0, 0, 0], "lsnap": [0, 0, 0]}     # reads, torn within a shard, mixed across
    stop = [False]

    def writer(coll):
        w = connect()
        while not stop[0]:
            q(w, "UPDATE %s SET n += 1" % coll)
        w.close()

    def reader(coll):
        r = connect()
        while not stop[0]:
            rows = r.execute("SELECT (x->>'id')::bigint, (x->>'n')::int FROM argo_query("
                             "'SELECT ID() AS id, n FROM %s') x" % coll).fetchall()
            parts = {}
            for oid, n in rows:
                parts.setdefault(shard_of.get(oid, "local") if coll == "dsnap" else "local", set()).add(n)
            seen[coll][0] += 1
            seen[coll][1] += any(len(v) > 1 for v in parts.values())
            seen[coll][2] += len(set().union(*parts.values())) > 1
        r.close()

    threads = [threading.Thread(target=f, args=(c,)) for c in ("dsnap", "lsnap") for f in (writer, reader)]
    for t in threads:
        t.start()
    time.sleep(4)
    stop[0] = True
    for t in threads:
        t.join()
    admin.execute("SELECT argo_drop_collection('dsnap')")
    admin.execute("SELECT argo_drop_collection('lsnap')")
    d, lc = seen["dsnap"], seen["lsnap"]
    check(d[0] > 10 and lc[0] > 10 and d[1] == 0 and lc[2] == 0,
          "a reader never sees part of one shard's part of a write (%d of %d reads torn within a shard), "
          "a local collection's never two values (%d of %d); across shards %d of %d reads saw a write "
          "on some shards and not others, as documented" % (d[1], d[0], lc[2], lc[0], d[2], d[0]))


def failure_case(admin, shards, servers):
    victim = shards[1]
    before = admin.execute("SELECT argo_count('ddis')").fetchone()[0]
    victim.stop("immediate")
    state, err = outcome(lambda: q(admin, "SELECT * FROM ddis"))
    msg = str(err or "")
    check(state is not None and state.startswith("08") and victim.name in msg,
          "a shard that is down: %s naming it (%s)" % (state, msg.splitlines()[0] if msg else ""))
    victim.start()

    def stop_soon():
        time.sleep(1.0)
        victim.stop("immediate")

    # a server no collection uses, down too: the detail names only the collection's
    admin.execute("CREATE SERVER argo_unrelated FOREIGN DATA WRAPPER postgres_fdw "
                  "OPTIONS (host '127.0.0.1', port '1', dbname 'none')")
    t = threading.Thread(target=stop_soon)
    t.start()
    try:
        admin.execute("SELECT argo_load('ddis', 'SELECT jsonb_build_object(''i'', i, ''s'', repeat(''x'', 40)) "
                      "FROM generate_series(1, 400000) i')")
        state, msg = "ok", ""
    except psycopg.Error as e:
        state, msg = e.sqlstate, str(e) + " " + (e.diag.message_detail or "")
    t.join()
    victim.start()
    after = admin.execute("SELECT argo_count('ddis')").fetchone()[0]
    admin.execute("DROP SERVER argo_unrelated")
    check(state != "ok" and victim.name in msg and "argo_unrelated" not in msg and after == before,
          "a shard stopped mid-load: %s naming it and no server the collection does not use, "
          "and nothing of the load stays (%d objects before, %d after)" % (state, before, after))


def no_2pc_case(admin, shards, servers):
    """A commit that fails on one shard after another committed: no 2PC.

    postgres_fdw commits the shards one after another, in an order of its
    own; the shard that refuses at commit is tried as either, and one of
    the two must show the other's part committed."""
    outcomes = []
    for bad in (1, 0):
        admin.execute("SELECT argo_drop_collection('dtwo', true)")
        admin.execute("SELECT argo_create_distributed_collection('dtwo', %s)", (servers[:2],))
        with shards[bad].connect() as c:
            c.execute("CREATE OR REPLACE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS "
                      "$$BEGIN RAISE EXCEPTION 'refused at commit'; END$$")
            c.execute("CREATE CONSTRAINT TRIGGER at_commit AFTER INSERT ON argo_data.dtwo_obj "
                      "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit()")
        state, _ = outcome(lambda: q(admin, "INSERT INTO dtwo OBJECT " +
                                     ", ".join('{"i": %d}' % i for i in range(10))))
        counts = []
        for s in shards[:2]:
            with s.connect() as c:
                counts.append(c.execute("SELECT count(*) FROM argo_data.dtwo_obj").fetchone()[0])
        with shards[bad].connect() as c:
            c.execute("DROP TRIGGER at_commit ON argo_data.dtwo_obj")
        outcomes.append((bad, state, counts))
        admin.execute("SELECT argo_drop_collection('dtwo')")
    partial = [o for o in outcomes if o[1] != "ok" and o[2][1 - o[0]] > 0 and o[2][o[0]] == 0]
    check(all(o[1] != "ok" for o in outcomes) and partial,
          "no two-phase commit: the statement fails, and when the refusing shard commits second the "
          "first shard's objects stay committed (shard refusing, error, objects per shard: %s)" % outcomes)


def drop_case(admin, shards):
    admin.execute("SELECT argo_drop_collection('ddis')")
    left = 0
    for s in shards:
        with s.connect() as c:
            left += c.execute("SELECT count(*) FROM pg_class WHERE relname LIKE 'ddis\\_%'").fetchone()[0]
    check(left == 0, "dropping the collection drops every shard's (%d tables left)" % left)
    admin.execute("SELECT argo_drop_collection('dloc')")


def hijack_case(admin, shards, servers):
    """What Argo sends a shard resolves nothing through the mapped user's
    path: a role with CREATE there plants, in a schema named after the
    mapped user (first in its default search_path), functions of the
    names the coordinator calls; none of them runs."""
    s1 = shards[0]
    with s1.connect() as c:
        c.execute("DROP ROLE IF EXISTS hijacker")
        c.execute("CREATE ROLE hijacker LOGIN")
        c.execute("GRANT CREATE ON DATABASE postgres TO hijacker")
    with psycopg.connect(host="127.0.0.1", port=s1.port, user="hijacker", dbname="postgres",
                         autocommit=True) as c:
        c.execute("CREATE SCHEMA postgres")
        c.execute("CREATE TABLE postgres.ran (who text, fn text)")
        c.execute("GRANT INSERT ON postgres.ran TO PUBLIC")
        for fn, args, ret in (("argo_create_collection", "a text, b text", "void"),
                              ("argo_drop_collection", "a text, b boolean", "void"),
                              ("current_database", "", "name")):
            body = "INSERT INTO postgres.ran VALUES (current_user, '%s')" % fn
            if ret == "name":
                body += "; SELECT 'x'::name"
            c.execute("CREATE FUNCTION postgres.%s(%s) RETURNS %s LANGUAGE sql AS $$%s$$"
                      % (fn, args, ret, body))
    admin.execute("SELECT argo_create_distributed_collection('dhij', %s)", (servers,))
    q(admin, "INSERT INTO dhij OBJECT {\"a\": 1}")
    admin.execute("SELECT argo_drop_collection('dhij')")
    with s1.connect() as c:
        ran = c.execute("SELECT who, fn FROM postgres.ran").fetchall()
        su = c.execute("SELECT rolsuper FROM pg_roles WHERE rolname = 'hijacker'").fetchone()[0]
        c.execute("DROP SCHEMA postgres CASCADE")
        c.execute("REVOKE CREATE ON DATABASE postgres FROM hijacker")
        c.execute("DROP ROLE hijacker")
    check(not ran and not su, "functions planted on a shard in the mapped user's schema never run when "
          "the coordinator creates and drops a collection (ran: %s)" % ran)


FORGE_DOCS = [
    {"name": "Ada", "age": 36, "tags": ["math", "engines"], "address": {"city": "London", "zip": "N1"}},
    {"n": 1.5, "big": 123456789012345678901234567890, "neg": -0.000123, "t": True, "f": False, "z": None},
    {"ab": "x", "ba": "y", "deep": {"a": [1, {"b": [True, "ü€𝄞"]}, []], "c": {}}},
    {"list": list(range(40)), "s": "é" * 10},
]


def mutations(real, rng, n):
    """n byte strings made from real documents' binary forms: bits flipped,
    bytes and words overwritten, cut short, words swapped; and whole other
    documents (valid, so they must be taken)."""
    for i in range(n):
        b = bytearray(real[i % len(real)])
        kind = i % 6
        if kind == 0:
            k = rng.randrange(len(b) * 8)
            b[k // 8] ^= 1 << (k % 8)
        elif kind == 1:
            for _ in range(rng.randrange(1, 4)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif kind == 2:
            b = b[:rng.randrange(len(b))]
        elif kind == 3:
            k = rng.randrange(len(b) // 4) * 4
            b[k:k + 4] = rng.choice([0, 0xFFFFFFFF, len(b), 0x80000000 | rng.randrange(64),
                                     0x50000000 | rng.randrange(64), 0x10000000 | rng.randrange(64),
                                     0x20000001, 0x40000002, 0x70000000]).to_bytes(4, "little")
        elif kind == 4:
            j, k = rng.randrange(len(b) // 4) * 4, rng.randrange(len(b) // 4) * 4
            b[j:j + 4], b[k:k + 4] = b[k:k + 4], b[j:j + 4]
        else:
            b = bytearray(real[(i + 1) % len(real)])
        yield bytes(b)


def forged_bytes_case(admin, shards, servers):
    """A shard's results come to the coordinator in jsonb's binary form,
    checked (src/doc/jsonbcheck.c): a shard whose argo_jsonb_bytes sends
    mutated bytes makes a statement fail with XX001 or give a value
    that is valid jsonb (its text parses back to the same text); never a
    crash.  Keys out of order, the one mutation a check of lengths alone
    would let through, are refused."""
    import random
    admin.execute("SELECT argo_create_distributed_collection('dforge', %s)", (servers,))
    q(admin, "INSERT INTO dforge OBJECTS $1", FORGE_DOCS)
    for s in shards:
        with s.connect() as c:
            schema = c.execute("SELECT extnamespace::regnamespace::text FROM pg_extension "
                               "WHERE extname = 'argo'").fetchone()[0]
            c.execute("CREATE TABLE public.forged (bytes bytea)")
            c.execute("CREATE FUNCTION public.real_bytes(jsonb) RETURNS bytea LANGUAGE c STRICT "
                      "AS '$libdir/argo', 'argo_jsonb_bytes'")
            c.execute("CREATE OR REPLACE FUNCTION %s.argo_jsonb_bytes(doc jsonb) RETURNS bytea LANGUAGE sql "
                      "STABLE AS $$SELECT coalesce((SELECT bytes FROM public.forged), "
                      "public.real_bytes(doc))$$" % schema)
    with shards[0].connect() as c:
        real = [c.execute("SELECT public.real_bytes(%s::jsonb)", (json.dumps(d),)).fetchone()[0]
                for d in FORGE_DOCS]
        # the same document with two keys of one length swapped: every length fits
        swapped = bytes(real[2]).replace(b"abba", b"baab", 1)
    plain = q(admin, "SELECT * FROM dforge")
    rng = random.Random(7)
    states = {}
    bad = []
    c = connect()
    conns = [s.connect() for s in shards]

    def forge(b):
        for sc in conns:
            sc.execute("DELETE FROM public.forged")
            if b is not None:
                sc.execute("INSERT INTO public.forged VALUES (%s)", (b,))
    for forged in mutations(real, rng, 1200):
        forge(forged)
        try:
            rows = c.execute("SELECT x::text, x::text::jsonb::text FROM "
                             "argo_query('SELECT * FROM dforge') x").fetchall()
            state = "ok" if all(a == b for a, b in rows) else "not jsonb"
        except psycopg.Error as e:
            state = e.sqlstate
        states[state] = states.get(state, 0) + 1
        if state not in ("ok", "XX001"):
            bad.append((forged.hex(), state))
    forge(swapped)
    swapped_state, _ = outcome(lambda: q(c, "SELECT * FROM dforge"))
    forge(None)
    for sc in conns:
        sc.close()
    after = q(c, "SELECT * FROM dforge")
    c.close()
    for s in shards:
        with s.connect() as sc:
            schema = sc.execute("SELECT extnamespace::regnamespace::text FROM pg_extension "
                                "WHERE extname = 'argo'").fetchone()[0]
            sc.execute("CREATE OR REPLACE FUNCTION %s.argo_jsonb_bytes(doc jsonb) RETURNS bytea LANGUAGE c "
                       "IMMUTABLE STRICT PARALLEL SAFE AS '$libdir/argo', 'argo_jsonb_bytes'" % schema)
            sc.execute("DROP FUNCTION public.real_bytes(jsonb)")
            sc.execute("DROP TABLE public.forged")
    admin.execute("SELECT argo_drop_collection('dforge')")
    check(not bad and states.get("XX001", 0) > 0 and states.get("ok", 0) > 0 and swapped_state == "XX001"
          and sorted(json.dumps(x, sort_keys=True) for x in after)
          == sorted(json.dumps(x, sort_keys=True) for x in plain),
          "1,200 forged binary results from a shard: refused as corrupt (XX001) or valid jsonb, the server "
          "up after them (%s; keys out of order: %s; other outcomes: %s)"
          % (", ".join("%s %d" % kv for kv in sorted(states.items())), swapped_state, bad[:3]))


def left_on_shards(shards, name):
    """How many tables of collection name each shard holds."""
    counts = []
    for s in shards:
        with s.connect() as c:
            counts.append(c.execute("SELECT count(*) FROM pg_class WHERE relnamespace = 'argo_data'::regnamespace "
                                    "AND relname LIKE %s", (name + "\\_%",)).fetchone()[0])
    return counts


def create_failures_case(admin, shards, servers):
    """A creation that fails leaves nothing on any shard."""
    results = []
    # the name is taken on the second shard
    with shards[1].connect() as c:
        c.execute("SELECT argo_create_collection('dfail')")
    state, _ = outcome(lambda: admin.execute("SELECT argo_create_distributed_collection('dfail', %s)", (servers,)))
    with shards[1].connect() as c:
        c.execute("SELECT argo_drop_collection('dfail')")
    results.append(("taken on shard 2", state, left_on_shards(shards, "dfail")))
    # a server without Argo
    with shards[0].connect() as c:
        c.execute("DROP DATABASE IF EXISTS noargo")
        c.execute("CREATE DATABASE noargo")
    admin.execute("DROP SERVER IF EXISTS noargo CASCADE")
    admin.execute("CREATE SERVER noargo FOREIGN DATA WRAPPER postgres_fdw OPTIONS "
                  "(host '127.0.0.1', port '%d', dbname 'noargo')" % shards[0].port)
    admin.execute("CREATE USER MAPPING FOR CURRENT_USER SERVER noargo OPTIONS (user 'postgres')")
    state, _ = outcome(lambda: admin.execute("SELECT argo_create_distributed_collection('dfail', %s)",
                                             (servers[:2] + ["noargo"],)))
    results.append(("a server without Argo", state, left_on_shards(shards, "dfail")))
    # two server names for one database
    admin.execute("DROP SERVER IF EXISTS again CASCADE")
    admin.execute("CREATE SERVER again FOREIGN DATA WRAPPER postgres_fdw OPTIONS "
                  "(host '127.0.0.1', port '%d', dbname 'postgres')" % shards[0].port)
    admin.execute("CREATE USER MAPPING FOR CURRENT_USER SERVER again OPTIONS (user 'postgres')")
    state, _ = outcome(lambda: admin.execute("SELECT argo_create_distributed_collection('dfail', %s)",
                                             (servers + ["again"],)))
    results.append(("one database twice", state, left_on_shards(shards, "dfail")))
    # a shard down
    shards[2].stop("immediate")
    state, _ = outcome(lambda: admin.execute("SELECT argo_create_distributed_collection('dfail', %s)", (servers,)))
    shards[2].start()
    results.append(("shard 3 down", state, left_on_shards(shards, "dfail")))
    # the coordinator's own part fails after the shards' were made
    admin.execute("CREATE TABLE argo_data.dfail_num_p1 (x int)")
    state, _ = outcome(lambda: admin.execute("SELECT argo_create_distributed_collection('dfail', %s)", (servers,)))
    admin.execute("DROP TABLE argo_data.dfail_num_p1")
    results.append(("the coordinator's part fails", state, left_on_shards(shards, "dfail")))
    admin.execute("DROP SERVER noargo CASCADE")
    admin.execute("DROP SERVER again CASCADE")
    with shards[0].connect() as c:
        c.execute("DROP DATABASE noargo")
    want = ["42P07", "42704", "22023", "08001", "42P07"]
    listed = admin.execute("SELECT count(*) FROM argo_collections WHERE name = 'dfail'").fetchone()[0]
    check([r[1] for r in results] == want and all(sum(r[2]) == 0 for r in results) and listed == 0,
          "a failed creation leaves nothing on any shard: %s" % results)


def drop_failures_case(admin, shards, servers):
    """A drop checks every shard answers before it drops anything; a shard
    that fails in the middle keeps its part, named in a warning, and the
    collection is gone from the coordinator, never half there."""
    admin.execute("SELECT argo_create_distributed_collection('ddrop', %s)", (servers,))
    q(admin, "INSERT INTO ddrop OBJECT " + ", ".join('{"i": %d}' % i for i in range(30)))
    shards[2].stop("immediate")
    state, _ = outcome(lambda: admin.execute("SELECT argo_drop_collection('ddrop')"))
    shards[2].start()
    kept = left_on_shards(shards, "ddrop")
    count = admin.execute("SELECT argo_count('ddrop')").fetchone()[0]
    check(state == "08001" and all(n > 0 for n in kept) and count == 30,
          "a drop with a shard down: %s before anything is dropped (tables per shard %s, %d objects readable)"
          % (state, kept, count))
    with shards[2].connect() as c:
        c.execute("CREATE FUNCTION refuse() RETURNS event_trigger LANGUAGE plpgsql AS "
                  "$$BEGIN RAISE EXCEPTION 'drops refused here'; END$$")
        c.execute("CREATE EVENT TRIGGER refuse_drops ON ddl_command_start WHEN TAG IN ('DROP TABLE') "
                  "EXECUTE FUNCTION refuse()")
    warnings = []
    admin.add_notice_handler(lambda d: warnings.append(d.message_primary or ""))
    state, _ = outcome(lambda: admin.execute("SELECT argo_drop_collection('ddrop')"))
    admin._notice_handlers.clear()
    left = left_on_shards(shards, "ddrop")
    listed = admin.execute("SELECT count(*) FROM argo_collections WHERE name = 'ddrop'").fetchone()[0]
    with shards[2].connect() as c:
        c.execute("DROP EVENT TRIGGER refuse_drops")
        c.execute("DROP FUNCTION refuse()")
        c.execute("SELECT argo_drop_collection('ddrop')")
    check(state == "ok" and listed == 0 and left[:2] == [0, 0] and left[2] > 0 and
          any(shards[2].name in w for w in warnings),
          "a shard failing mid-drop keeps its part, named in a warning (%s); the collection is gone from "
          "the coordinator (tables per shard %s)" % (warnings, left))


def committing_case(admin, shards, servers):
    """A reader meets a shard's committed rows whose key id the
    coordinator's dictionary has not committed yet (postgres_fdw commits
    the shards first, so this is every writer's commit, for a moment):
    it waits for that writer instead of calling the data corrupt.  The
    moment is held open here: the key added in a transaction left open
    on the coordinator, its row written on the shard and committed."""
    admin.execute("SELECT argo_create_distributed_collection('dkeys', %s)", (servers,))
    q(admin, "INSERT INTO dkeys OBJECT {\"n\": 1}")
    holder = connect()
    holder.execute("BEGIN")
    keyid = holder.execute("INSERT INTO argo_data.dkeys_keys (keystr) VALUES ('late') RETURNING keyid").fetchone()[0]
    # as a writer does: the key's copy and the rows committed together on each shard
    for s in shards:
        with s.connect() as c:
            c.execute("INSERT INTO argo_data.dkeys_keys (keyid, keystr) VALUES (%s, 'late')", (keyid,))
            c.execute("INSERT INTO argo_data.dkeys_num (objid, keyid, valnum) "
                      "SELECT objid, %s, 7 FROM argo_data.dkeys_obj", (keyid,))
    # run by the shards, with their copies of the key: no wait
    direct = q(admin, "SELECT * FROM dkeys")
    result = {}

    def reader():
        c = connect()
        # a join judged per tuple: its parts are rebuilt here, through the coordinator's dictionary
        result["state"], err = outcome(lambda: result.setdefault(
            "rows", q(c, "SELECT * FROM dkeys AS a INNER JOIN dkeys AS b ON (a.n = b.n) WHERE a.n = 1 OR b.n = 1")))
        result["error"] = str(err).splitlines()[0] if err else ""
        c.close()

    t = threading.Thread(target=reader)
    t.start()
    time.sleep(1.0)
    waited = t.is_alive()
    holder.execute("COMMIT")
    holder.close()
    t.join()
    admin.execute("SELECT argo_drop_collection('dkeys')")
    check(direct == [{"n": 1, "late": 7}] and waited and result["state"] == "ok" and
          result.get("rows") == [{"a": {"n": 1, "late": 7}, "b": {"n": 1, "late": 7}}],
          "a key whose writer is committing: the shards read it from their copies (%s); a reader "
          "through the coordinator's dictionary waits for the writer, then reads it (waited: %s, %s %s)"
          % (direct, waited, result["state"], result.get("rows") or result["error"]))


# values of every type at "v" (and none), so the merge orders across types as one server does
MERGE_DOCS = [dict({"i": i, "g": i % 4, "v": [i % 9, "s%d" % (i % 5), i % 2 == 0, None, {"o": 1}][i % 5]},
                   **({"arr": [i % 3, "x%d" % (i % 2)]} if i % 7 == 0 else {}))
              for i in range(60)] + [{"i": 100}, {"i": 101, "v": -2.5}, {"i": 102, "v": "S"}]

# (statement, ordered, run by the shards)
MERGE_AGGREGATES = [
    ("SELECT COUNT(*) FROM @C", True, True),
    ("SELECT COUNT(*), COUNT(v) AS cv, SUM(i), MIN(v), MAX(v) FROM @C", True, True),
    ("SELECT g, COUNT(*) AS n FROM @C GROUP BY g", False, True),
    ("SELECT v, COUNT(*) AS n FROM @C GROUP BY v", False, True),
    ("SELECT g, MIN(v) AS lo, MAX(v) AS hi, SUM(v) AS s FROM @C GROUP BY g ORDER BY g DESC", True, True),
    ("SELECT g, COUNT(*) AS n FROM @C WHERE i > 10 GROUP BY g ORDER BY n DESC LIMIT 2 OFFSET 1", True, True),
    ("SELECT v FROM @C GROUP BY v ORDER BY v", True, True),
    ("SELECT g, MAX(v) AS m FROM @C GROUP BY g ORDER BY m, g DESC", True, True),
    ("SELECT v, COUNT(*) AS n FROM @C GROUP BY v ORDER BY v NULLS FIRST", True, True),
    ("SELECT v, COUNT(*) AS n FROM @C GROUP BY v ORDER BY v DESC NULLS LAST", True, True),
    ("SELECT MIN(ID()), MAX(ID()) FROM @C WHERE g = 3", True, True),
    ("SELECT arr[*], COUNT(*) AS n FROM @C GROUP BY arr[*]", False, True),
    ("SELECT COUNT(*), SUM(v), MIN(v) FROM @C WHERE i > 1000", True, True),
    ("SELECT g, COUNT(*) FROM @C WHERE i > 1000 GROUP BY g", True, True),
    ("SELECT AVG(i) FROM @C", True, True),
    ("SELECT AVG(arr[*]) AS a, AVG(v) AS b FROM @C WHERE g < 3", True, True),
    ("SELECT g, AVG(i) AS a, AVG(v) AS av FROM @C GROUP BY g ORDER BY a DESC", True, True),
    ("SELECT arr[*], AVG(arr[*]) AS a FROM @C GROUP BY arr[*]", False, True),
    ("SELECT AVG(v) FROM @C WHERE i > 1000", True, True),
    ("SELECT g, COUNT(*) AS n FROM @C GROUP BY g HAVING COUNT(*) > 14", False, True),
    ("SELECT g FROM @C GROUP BY g HAVING SUM(i) >= 400 AND NOT MAX(v) = true", False, True),
    ("SELECT v, COUNT(*) AS n FROM @C GROUP BY v HAVING MIN(i) < 10 OR COUNT(*) = 1 ORDER BY n DESC, v", True, True),
    ("SELECT COUNT(*) AS n FROM @C HAVING MAX(v) > 'r'", True, True),
    ("SELECT COUNT(DISTINCT g) FROM @C", True, False),
    ("SELECT g AS k, COUNT(*) AS n FROM @C GROUP BY k ORDER BY k DESC", True, True),
    ("SELECT v AS w, COUNT(*) AS n FROM @C GROUP BY v ORDER BY n DESC, w LIMIT 4", True, True),
]

MERGE_STATEMENTS = [
    "SELECT * FROM @C",
    "SELECT * FROM @C ORDER BY v",
    "SELECT * FROM @C ORDER BY v DESC",
    "SELECT * FROM @C ORDER BY v LIMIT 7",
    "SELECT * FROM @C ORDER BY v DESC LIMIT 5 OFFSET 11",
    "SELECT * FROM @C ORDER BY v NULLS FIRST",
    "SELECT * FROM @C ORDER BY v DESC NULLS LAST LIMIT 9 OFFSET 2",
    "SELECT i, v FROM @C WHERE g = 1 ORDER BY v NULLS FIRST, i DESC",
    "SELECT * FROM @C ORDER BY g DESC, v, i DESC LIMIT 10 OFFSET 3",
    "SELECT i, v FROM @C WHERE g = 1 ORDER BY v DESC, i",
    "SELECT * FROM @C LIMIT 4 OFFSET 9",
    "SELECT * FROM @C OFFSET 58",
    "SELECT * FROM @C LIMIT 0",
    "SELECT ID() FROM @C WHERE g = 2 LIMIT 6",
    "SELECT *, ID() AS id FROM @C ORDER BY ID() DESC LIMIT 5",
    "SELECT DISTINCT g FROM @C",
    "SELECT DISTINCT v FROM @C ORDER BY v",
    "SELECT DISTINCT g FROM @C ORDER BY g DESC LIMIT 2 OFFSET 1",
    "SELECT v AS w FROM @C WHERE i < 10",
    "SELECT * FROM @C WHERE ID() = 7",
    "SELECT * FROM @C WHERE i > 1000",
]

# a second collection to join with: keys of every type, 1 and 1.0, 0 and -0.0, none
JOIN_PARTNERS = [{"k": 1, "w": "one"}, {"k": 1.0, "w": "one again"}, {"k": "s1", "w": "str"},
                 {"k": True, "w": "t"}, {"k": False}, {"k": None, "w": "null"}, {"k": {"o": 1}, "w": "obj"},
                 {"w": "no key"}, {"k": "x1", "w": "arr"}, {"k": -0.0, "w": "zero"}, {"k": 4},
                 {"k": 1, "w": "one thrice"}]

# (statement, run by the shards): @C the merge collection, @D the partners
MERGE_JOINS = [
    ("SELECT * FROM @C AS a JOIN @D AS b ON (a.v = b.k)", True),
    ("SELECT a.i, b.w FROM @C AS a LEFT JOIN @D AS b ON (a.v = b.k) WHERE a.i < 30", True),
    ("SELECT b.w, a.i FROM @D AS b JOIN @C AS a ON (b.k = a.v) WHERE a.g = 2", True),
    ("SELECT a.i FROM @C AS a JOIN @C AS b ON (a.g = b.i) WHERE b.i < 3 LIMIT 7 OFFSET 2", True),
    ("SELECT * FROM @C AS a JOIN @C AS b ON (a.i = b.g) JOIN @D AS c ON (b.v = c.k)", True),
    ("SELECT a.i, c.w FROM @C AS a LEFT JOIN @C AS b ON (a.i = b.v) LEFT JOIN @D AS c ON (b.v = c.k)", True),
    ("SELECT a.arr, b.w FROM @C AS a LEFT JOIN @D AS b ON (a.arr[1] = b.k) WHERE a.g = 0", True),
    ("SELECT * FROM @C AS a JOIN @D AS b ON (a.v = b.k) WHERE a.i > 1000", True),
    ("SELECT a.i FROM @C AS a LEFT JOIN @D AS b ON (a.v = b.k) WHERE a.i > 50 OR a.g = 1 LIMIT 0", True),
    # judged per tuple, or aggregates: the foreign tables, the same answers
    ("SELECT a.i, b.w FROM @C AS a LEFT JOIN @D AS b ON (a.v = b.k) WHERE b.w IS NULL", False),
    ("SELECT a.i FROM @C AS a JOIN @D AS b ON (a.v = b.k) WHERE a.i < 20 OR b.w = 'str'", False),
    ("SELECT a.i, b.w FROM @C AS a JOIN @D AS b ON (a.v = b.k) ORDER BY b.w, a.i", True),
    ("SELECT * FROM @C AS a LEFT JOIN @D AS b ON (a.v = b.k) ORDER BY b.w DESC LIMIT 9 OFFSET 4", True),
    ("SELECT a.i, b.w FROM @C AS a LEFT JOIN @D AS b ON (a.v = b.k) ORDER BY b.w NULLS FIRST, a.i", True),
    ("SELECT a.i FROM @C AS a JOIN @C AS b ON (a.g = b.g) WHERE b.i < 8 ORDER BY a.v, b.v DESC, b.arr LIMIT 40", True),
    ("SELECT COUNT(*) FROM @C AS a JOIN @D AS b ON (a.v = b.k)", False),
]


def merge_case(admin, servers):
    """Every statement the shards run is merged into what one server
    gives, in its order: by ORDER BY values across types, then id; OFFSET
    and LIMIT counted after the merge; DISTINCT over all shards; and with
    shards that hold nothing."""
    admin.execute("SELECT argo_create_distributed_collection('dmerge', %s)", (servers,))
    admin.execute("SELECT argo_create_collection('lmerge')")
    for name in ("dmerge", "lmerge"):
        q(admin, "INSERT INTO %s OBJECTS $1" % name, MERGE_DOCS)
    bad, local_run = [], []
    for text in MERGE_STATEMENTS:
        plan = admin.execute("SELECT * FROM argo_explain(%s)", (text.replace("@C", "dmerge"),)).fetchall()
        if not any("run by the shards" in r[0] for r in plan):
            local_run.append(text)
        if q(admin, text.replace("@C", "dmerge")) != q(admin, text.replace("@C", "lmerge")):
            bad.append(text)
    check(not bad and not local_run,
          "%d statements run by the shards and merged give what one server gives, in its order (%s)"
          % (len(MERGE_STATEMENTS), "; ".join(bad + ["not run by the shards: " + t for t in local_run])
             or "all equal"))
    pinned_merge(admin)
    bad, wrong_way = [], []
    for text, ordered, by_shards in MERGE_AGGREGATES:
        plan = admin.execute("SELECT * FROM argo_explain(%s)", (text.replace("@C", "dmerge"),)).fetchall()
        if any("run by the shards" in r[0] for r in plan) != by_shards:
            wrong_way.append(text)
        d, l = q(admin, text.replace("@C", "dmerge")), q(admin, text.replace("@C", "lmerge"))
        if canon(d, ordered) != canon(l, ordered):
            bad.append("%s: %s vs %s" % (text, d[:3], l[:3]))
    check(not bad and not wrong_way,
          "%d aggregates: counts, sums, averages, MIN and MAX across types combined from the shards' groups, "
          "HAVING, ORDER BY and LIMIT after; COUNT(DISTINCT) through the foreign tables (%s)"
          % (len(MERGE_AGGREGATES), "; ".join(bad + ["ran the wrong way: " + t for t in wrong_way])
             or "all equal"))
    admin.execute("SELECT argo_create_distributed_collection('dpartner', %s)", (servers,))
    admin.execute("SELECT argo_create_collection('lpartner')")
    for name in ("dpartner", "lpartner"):
        q(admin, "INSERT INTO %s OBJECTS $1" % name, JOIN_PARTNERS)
    bad, wrong_way, rows = join_mismatches(admin)
    check(not bad and not wrong_way and rows > 100,
          "%d joins of distributed collections: each FROM item pulled from its shards and joined here "
          "(across types, LEFT, three items, ORDER BY, LIMIT/OFFSET, nothing on the left) give what one server gives, "
          "in its order, %d tuples; the rest through the foreign tables (%s)"
          % (len(MERGE_JOINS), rows, "; ".join(bad + ["ran the wrong way: " + t for t in wrong_way]) or "all equal"))
    # ID() = n: only the shard that holds it is asked
    plans = [[r[0] for r in admin.execute("SELECT * FROM argo_explain(%s)", (text,))]
             for text in ("SELECT * FROM dmerge WHERE ID() = 7", "SELECT i FROM dmerge WHERE ID() = 9 AND i > 0")]
    asked = [sum(line.startswith('-- shard "') for line in p) for p in plans]
    got = [q(admin, "SELECT i FROM @C WHERE ID() = 7".replace("@C", c)) for c in ("dmerge", "lmerge")]
    check(asked == [1, 1] and got[0] == got[1] and len(got[0]) == 1,
          "a read by ID() asks only the shard that holds the object (shards asked: %s; %s)" % (asked, got[0]))
    # one object: two shards hold nothing
    for name in ("dmerge", "lmerge"):
        q(admin, "DELETE FROM %s WHERE i != 5" % name)
    bad = [t for t in MERGE_STATEMENTS
           if q(admin, t.replace("@C", "dmerge")) != q(admin, t.replace("@C", "lmerge"))]
    bad += [t for t, ordered, _ in MERGE_AGGREGATES
            if canon(q(admin, t.replace("@C", "dmerge")), ordered) !=
            canon(q(admin, t.replace("@C", "lmerge")), ordered)]
    bad += join_mismatches(admin)[0]
    check(not bad, "with empty shards too (%s)" % ("; ".join(bad) or "all equal"))
    for name in ("dmerge", "lmerge", "dpartner", "lpartner"):
        admin.execute("SELECT argo_drop_collection(%s)", (name,))


MERGE_EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected", "distributed_merge.json")


def pinned_merge(admin):
    """What the shards' merge gives, compared with test/expected/distributed_merge.json
    (a local collection could go wrong the same way): each statement's results in
    their order, an unordered aggregate's sorted."""
    got = {t: [json.loads(r) for r in canon(q(admin, t.replace("@C", "dmerge")), True)] for t in MERGE_STATEMENTS}
    got.update({t: [json.loads(r) for r in canon(q(admin, t.replace("@C", "dmerge")), ordered)]
                for t, ordered, _ in MERGE_AGGREGATES})
    with open(MERGE_EXPECTED, encoding="utf-8") as f:
        want = json.load(f)
    differ = sorted(t for t in set(got) | set(want) if got.get(t) != want.get(t))
    if differ:
        with open(os.path.join(tempfile.gettempdir(), "distributed_merge.got.json"), "w", encoding="utf-8") as f:
            json.dump(got, f, indent=1, sort_keys=True)
    check(not differ, "%d merged statements give what %s pins (%s)"
          % (len(got), os.path.relpath(MERGE_EXPECTED), "; ".join(differ) or "all equal"))


def join_mismatches(admin):
    """MERGE_JOINS on the distributed and the local collections: the ones
    whose answers differ, the ones that ran the wrong way, tuples seen."""
    bad, wrong_way, rows = [], [], 0
    for text, by_shards in MERGE_JOINS:
        dist = text.replace("@C", "dmerge").replace("@D", "dpartner")
        plan = admin.execute("SELECT * FROM argo_explain(%s)", (dist,)).fetchall()
        if any("run by the shards" in r[0] for r in plan) != by_shards:
            wrong_way.append(text)
        d, l = q(admin, dist), q(admin, text.replace("@C", "lmerge").replace("@D", "lpartner"))
        rows += len(l)
        if d != l:
            bad.append("%s: %s vs %s" % (text, d[:3], l[:3]))
    return bad, wrong_way, rows


# (statement, run by the shards): each runs on both collections, whose objects must stay equal
SHARD_WRITES = [
    ("UPDATE @C SET w = 1 WHERE g = 1", True),
    ("UPDATE @C SET n.deep = {\"x\": [1, {}, {\"y\": null}], \"e\": []} WHERE i < 5", True),
    ("UPDATE @C SET i += 1, t.u = 'new' WHERE v = 's1' RETURNING ID", True),
    ("UPDATE @C UNSET n.deep WHERE i = 2", True),
    ("UPDATE @C SET c = $1 WHERE ID() = 7", True),
    ("UPDATE @C SET c = 1 WHERE i > 1000 RETURNING ID", True),
    ("DELETE FROM @C WHERE g = 3 AND i < 30 RETURNING ID", True),
    ("DELETE FROM @C WHERE ID() = 9", True),
    ("DELETE FROM @C WHERE i > 1000", True),
    # keys only a shard meets (past the longest array so far): it asks for them, then writes
    ("UPDATE @C SET arr APPEND 5 WHERE g = 0", True),
    ("UPDATE @C SET arr[3] = 9 WHERE g = 0 AND i < 20", True),
    ("UPDATE @C SET list APPEND {\"q\": [1, {}]}, arr ADD 'x1' WHERE g = 1 RETURNING ID", True),
    ("UPDATE @C SET list APPEND {\"q\": [2]} WHERE g = 1 AND i < 20", True),
    ("UPDATE @C SET arr REMOVE 0, list REMOVE {\"q\": [1, {}]} WHERE ID() = 29", True),
    # objects returned, merged in id order; keys asked for on the way
    ("UPDATE @C SET z = 1, arr APPEND 'r' WHERE i < 25 RETURNING *", True),
    ("DELETE FROM @C WHERE g = 2 AND i < 40 RETURNING *", True),
    # UPSERT: the older way
    ("UPSERT @C SET u = 1 WHERE i = 2000", False),
]


def write_case(admin, servers):
    """UPDATE and DELETE run by the shards: the same objects and results
    as one server's, new keys (nested, empty containers, a parent left
    empty) copied first; a rolled-back write leaves nothing."""
    admin.execute("SELECT argo_create_distributed_collection('dwrite', %s)", (servers,))
    admin.execute("SELECT argo_create_collection('lwrite')")
    for name in ("dwrite", "lwrite"):
        q(admin, "INSERT INTO %s OBJECTS $1" % name, MERGE_DOCS)
    bad, wrong_way = [], []
    for text, by_shards in SHARD_WRITES:
        params = [{"k": 1}] if "$1" in text else []
        plan = admin.execute("SELECT * FROM argo_explain(%s, VARIADIC %s::jsonb[])",
                             (text.replace("@C", "dwrite"), [json.dumps(p) for p in params])).fetchall()
        if any("run by the shards" in r[0] for r in plan) != by_shards:
            wrong_way.append(text)
        d = q(admin, text.replace("@C", "dwrite"), *params)
        l = q(admin, text.replace("@C", "lwrite"), *params)
        if d != l:
            bad.append("%s: %s vs %s" % (text, d, l))
        every = "SELECT *, ID() AS id FROM @C"
        if q(admin, every.replace("@C", "dwrite")) != q(admin, every.replace("@C", "lwrite")):
            bad.append("objects differ after " + text)
    # argo_explain of a write by ID(): the one shard that holds it, with its own plan
    plan = [r[0] for r in admin.execute("SELECT * FROM argo_explain('UPDATE dwrite SET c = 2 WHERE ID() = 7')")]
    if sum(line.startswith('-- shard "') for line in plan) != 1 or not any("strategy: update" in l for l in plan):
        bad.append("explain of a write by ID(): %s" % plan)
    with connect() as c:
        c.execute("BEGIN")
        q(c, "UPDATE dwrite SET rolled = 'back' WHERE g = 1")
        inside = q(c, "SELECT COUNT(*) AS n FROM dwrite WHERE rolled = 'back'")
        c.execute("ROLLBACK")
    after = q(admin, "SELECT COUNT(*) AS n FROM dwrite WHERE rolled = 'back'")
    for name in ("dwrite", "lwrite"):
        admin.execute("SELECT argo_drop_collection(%s)", (name,))
    check(not bad and not wrong_way and inside == [{"n": 15}] and after == [{"n": 0}],
          "%d UPDATEs and DELETEs run by their shards (keys they add copied first, or asked for by a shard that "
          "meets them; objects RETURNING * gives in id order; UPSERT the older way) "
          "leave what one server leaves and return what it returns; a write read back in its transaction "
          "(%s), gone after ROLLBACK (%s) (%s)"
          % (len(SHARD_WRITES), inside, after,
             "; ".join(bad + ["ran the wrong way: " + t for t in wrong_way]) or "all equal"))


def dictionary_case(admin, shards, servers):
    """New keys are copied to every shard's dictionary with the write; a
    shard whose copy is behind is not asked to run a statement (it would
    quietly match nothing) until argo_repair copies the dictionary."""
    admin.execute("SELECT argo_create_distributed_collection('ddict', %s)", (servers,))
    q(admin, "INSERT INTO ddict OBJECT {\"a\": 1}, {\"b\": {\"c\": 2}}, {\"a\": 3}")
    coord = sorted(admin.execute("SELECT keyid, keystr FROM argo_data.ddict_keys").fetchall())
    copies = []
    for s in shards:
        with s.connect() as c:
            copies.append(sorted(c.execute("SELECT keyid, keystr FROM argo_data.ddict_keys").fetchall()))
    # as a collection made before 0.7 has it: the shard's copy empty
    with shards[2].connect() as c:
        c.execute("DELETE FROM argo_data.ddict_keys")
    rows = q(admin, "SELECT a FROM ddict WHERE a > 0")
    plan = [r[0] for r in admin.execute("SELECT * FROM argo_explain('SELECT a FROM ddict WHERE a > 0')")]
    repaired = admin.execute("SELECT argo_repair('ddict')").fetchone()[0]
    again = q(admin, "SELECT a FROM ddict WHERE a > 0")
    # emptied again: a writer's first insert copies the whole dictionary first
    with shards[2].connect() as c:
        c.execute("DELETE FROM argo_data.ddict_keys")
    writer = connect()
    state, err = outcome(lambda: q(writer, "INSERT INTO ddict OBJECTS $1", [{"a": i, "b": {"c": i}} for i in range(4, 10)]))
    writer.close()
    after = q(admin, "SELECT a FROM ddict WHERE a > 5")
    admin.execute("SELECT argo_drop_collection('ddict')")
    check(all(cp == coord for cp in copies) and rows == [{"a": 1}, {"a": 3}] and
          any("Foreign Scan" in line for line in plan) and repaired == len(coord) and again == rows and
          state == "ok" and after == [{"a": 6}, {"a": 7}, {"a": 8}, {"a": 9}],
          "every shard's dictionary is the coordinator's (%d keys); one behind: read through the foreign "
          "tables (%s), argo_repair copies %s key(s), then the same %s; emptied, a writer's first insert "
          "copies it (%s %s, %s)" % (len(coord), rows, repaired, again, state, err or "", after))


def pushed_failure_case(admin, shards, servers):
    """A shard that fails while it runs its part: the statement fails
    naming it, a cancel reaches the shards, and the next statement runs."""
    admin.execute("SELECT argo_create_distributed_collection('dfail', %s)", (servers,))
    q(admin, "INSERT INTO dfail OBJECTS $1", [{"i": i} for i in range(30)])
    victim = shards[0]
    locker = victim.connect()
    locker.execute("BEGIN")
    locker.execute("LOCK TABLE argo_data.dfail_obj IN ACCESS EXCLUSIVE MODE")
    c = connect()
    c.execute("SET statement_timeout = '1500ms'")
    state, _ = outcome(lambda: q(c, "SELECT * FROM dfail WHERE i >= 0"))
    c.execute("RESET statement_timeout")
    with victim.connect() as v:
        waiting = v.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            "AND query LIKE '%argo_shard_rows%'").fetchone()[0]

    def kill_soon():
        time.sleep(1.0)
        with victim.connect() as v:
            v.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE query LIKE '%argo_shard_rows%' AND pid != pg_backend_pid()")

    t = threading.Thread(target=kill_soon)
    t.start()
    killed, err = outcome(lambda: q(c, "SELECT * FROM dfail WHERE i >= 0"))
    t.join()
    locker.execute("ROLLBACK")
    locker.close()
    after = q(c, "SELECT ID() FROM dfail WHERE i >= 0")
    c.close()
    admin.execute("SELECT argo_drop_collection('dfail')")
    check(state == "57014" and waiting == 0 and killed not in (None, "ok") and
          victim.name in str(err) and len(after) == 30,
          "a pushed-down statement: a timeout cancels it on the shards (%s, %d left waiting there); a shard "
          "failing while it runs its part: %s, naming it; then the next statement runs (%d objects)"
          % (state, waiting, killed, len(after)))


def home_case(admin, shards, servers):
    """A restored copy of a coordinator's database (another database here)
    refuses writes to the original's shards until it adopts them; reads
    work; the original writes on."""
    admin.execute("DROP DATABASE IF EXISTS argo_home_copy")
    admin.execute("DROP DATABASE IF EXISTS argo_home")
    admin.execute("CREATE DATABASE argo_home")
    home = psycopg.connect(dbname="argo_home", autocommit=True)
    for ext in ("argo", "postgres_fdw", "dblink"):
        home.execute("CREATE EXTENSION %s" % ext)
    for s in shards:
        home.execute("CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS "
                     "(host '127.0.0.1', port '%d', dbname 'postgres')" % (s.name, s.port))
        home.execute("CREATE USER MAPPING FOR CURRENT_USER SERVER %s OPTIONS (user 'postgres')" % s.name)
    home.execute("SELECT argo_create_distributed_collection('dhome', %s)", (servers,))
    q(home, "INSERT INTO dhome OBJECT {\"n\": 1}, {\"n\": 2}, {\"n\": 3}")
    path = tempfile.mktemp(prefix="argo_home_", suffix=".dump")
    subprocess.run(["pg_dump", "-Fc", "-d", "argo_home", "-f", path], check=True)
    admin.execute("CREATE DATABASE argo_home_copy")
    subprocess.run(["pg_restore", "-d", "argo_home_copy", path], check=True)
    os.unlink(path)
    copy = psycopg.connect(dbname="argo_home_copy", autocommit=True)
    read = sorted(d["n"] for d in q(copy, "SELECT n FROM dhome"))
    refused = [outcome(lambda: q(copy, w))[0] for w in
               ("INSERT INTO dhome OBJECT {\"n\": 4}", "UPDATE dhome SET n += 10 WHERE n = 1", "DELETE FROM dhome WHERE n = 2")]
    hint = outcome(lambda: q(copy, "INSERT INTO dhome OBJECT {\"n\": 4}"))[1].diag.message_hint or ""
    q(home, "UPDATE dhome SET n += 100 WHERE n = 3")
    after = sorted(d["n"] for d in q(home, "SELECT n FROM dhome"))
    check(read == [1, 2, 3] and refused == ["55000"] * 3 and "argo_adopt_shards" in hint and after == [1, 2, 103],
          "a restored coordinator reads (%s) and refuses writes to the original's shards %s until told (%s); "
          "the original writes on (%s)" % (read, refused, hint, after))
    home.close()
    copy.execute("SELECT argo_adopt_shards('dhome')")
    q(copy, "INSERT INTO dhome OBJECT {\"n\": 4}")
    q(copy, "UPDATE dhome SET n += 10 WHERE n = 1")
    now = sorted(d["n"] for d in q(copy, "SELECT n FROM dhome"))
    state, _ = outcome(lambda: admin.execute("SELECT argo_adopt_shards('nosuch')"))
    copy.execute("SELECT argo_drop_collection('dhome')")
    copy.close()
    admin.execute("DROP DATABASE argo_home_copy")
    admin.execute("DROP DATABASE argo_home")
    check(now == [2, 4, 11, 103] and state == "42P01",
          "after argo_adopt_shards the copy writes (%s); of a missing collection: %s" % (now, state))


def privileges_case(admin, servers):
    """A role's missing privilege is named before its missing user
    mapping; a missing mapping is named with the server and what to
    create; argo_grant says which mappings a grantee still lacks."""
    admin.execute("SELECT argo_create_distributed_collection('dpriv', %s)", (servers,))
    q(admin, 'INSERT INTO dpriv OBJECTS [{"a": 1}, {"a": 2}, {"a": 3}]')
    admin.execute("DROP ROLE IF EXISTS dreader")
    admin.execute("CREATE ROLE dreader")
    admin.execute("GRANT USAGE ON SCHEMA argo_data TO dreader")
    notices = []
    # a notice's fields are read while its handler runs
    handler = lambda d: notices.append(d.message_primary or "")  # noqa: E731
    admin.add_notice_handler(handler)

    def as_reader(stmt, rows=None):
        admin.execute("SET ROLE dreader")
        try:
            return outcome(lambda: (rows if rows is not None else []).extend(q(admin, stmt)))
        finally:
            admin.execute("RESET ROLE")

    bare, _ = as_reader("SELECT a FROM dpriv")
    admin.execute("SELECT argo_grant('dpriv', 'dreader', 'read')")
    told = [n for n in notices if "user mapping" in n]
    unmapped, err = as_reader("SELECT a FROM dpriv")
    msg = "%s %s" % (err.diag.message_primary, err.diag.message_hint) if err else ""
    for srv in servers:
        admin.execute("CREATE USER MAPPING FOR dreader SERVER %s "
                      "OPTIONS (user 'postgres', password_required 'false')" % srv)
    del notices[:]
    admin.execute("SELECT argo_grant('dpriv', 'dreader', 'read')")
    told_after = [n for n in notices if "user mapping" in n]
    rows = []
    state, _ = as_reader("SELECT a FROM dpriv ORDER BY a", rows)
    write, _ = as_reader('INSERT INTO dpriv OBJECT {"a": 4}')
    for srv in servers:
        admin.execute("DROP USER MAPPING FOR dreader SERVER %s" % srv)
    admin.execute("SELECT argo_drop_collection('dpriv')")
    admin.execute("REVOKE USAGE ON SCHEMA argo_data FROM dreader")
    admin.execute("DROP ROLE dreader")
    admin.remove_notice_handler(handler)
    check(bare == "42501", "a role with neither privilege nor user mapping hears of the privilege: %s" % bare)
    check(len(told) == 1 and all(srv in told[0] for srv in servers) and not told_after,
          "argo_grant names the servers the grantee has no user mapping for (%s), and none once it has"
          % (told[0] if told else None))
    check(unmapped == "42704" and "no user mapping for server" in msg and "CREATE USER MAPPING" in msg,
          "a granted role without a mapping: %s naming the server and what to create" % unmapped)
    check(state == "ok" and rows == [{"a": 1}, {"a": 2}, {"a": 3}] and write == "42501",
          "with the grant and mappings it reads (%s) and, granted read only, may not write (%s)"
          % (rows, write))


def shard_indexes(shards, name):
    """Each shard's indexes of collection name's tables: (name, oid, valid)."""
    out = []
    for s in shards:
        with s.connect() as c:
            out.append(sorted(c.execute(
                "SELECT indexrelid::regclass::text, indexrelid::oid::int, indisvalid FROM pg_index "
                "WHERE indrelid::regclass::text LIKE %s", ("argo_data." + name + "\\_%",)).fetchall()))
    return out


def load_case(admin, shards, servers):
    """A load into an empty distributed collection has each shard drop its
    indexes of it and build them once at the end, as a local load does; a
    load into a collection with objects, or one that fails, leaves them."""
    make = "SELECT jsonb_build_object('i', i, 's', 'v' || (i %% 10)) FROM generate_series(%d, %d) i"
    admin.execute("SELECT argo_create_distributed_collection('dload', %s)", (servers,))
    admin.execute("SELECT argo_create_collection('lload')")
    before = shard_indexes(shards, "dload")
    for coll in ("dload", "lload"):
        admin.execute("SELECT argo_load(%s, %s)", (coll, make % (1, 3000)))
    first = shard_indexes(shards, "dload")
    for coll in ("dload", "lload"):
        admin.execute("SELECT argo_load(%s, %s)", (coll, make % (3001, 4000)))
    second = shard_indexes(shards, "dload")
    failed, _ = outcome(lambda: admin.execute(
        "SELECT argo_load('dload', 'SELECT CASE WHEN i = 500 THEN ''[1]''::jsonb ELSE jsonb_build_object(''i'', i) END "
        "FROM generate_series(1, 900) i')"))
    third = shard_indexes(shards, "dload")
    same = canon(q(admin, "SELECT i, s FROM dload WHERE s = 'v3' AND i > 100"), False) == \
        canon(q(admin, "SELECT i, s FROM lload WHERE s = 'v3' AND i > 100"), False)
    admin.execute("SELECT argo_drop_collection('dload')")
    admin.execute("SELECT argo_drop_collection('lload')")
    names = [[n for n, _, _ in s] for s in before]
    rebuilt = all([n for n, _, _ in f] == n0 and all(v for _, _, v in f) and
                  len({o for _, o, _ in f} - {o for _, o, _ in b}) == 6
                  for f, b, n0 in zip(first, before, names))
    check(rebuilt and second == first and third == first and failed == "22023" and same,
          "a load into an empty distributed collection rebuilds each shard's 6 value-table indexes once "
          "(%s); a load into one with objects and a failed load (%s) leave them; reads agree with a local "
          "copy (%s)" % (rebuilt, failed, same))


def listing_case(admin, shards, servers):
    """argo_collections: a distributed Argo/1 collection's format and size."""
    admin.execute("SELECT argo_create_distributed_collection('dlist', %s, 'argo1')", (servers,))
    admin.execute("SELECT argo_load('dlist', 'SELECT jsonb_build_object(''i'', i, ''s'', repeat(''x'', 100)) "
                  "FROM generate_series(1, 3000) i')")
    row = admin.execute("SELECT format, objects, size_bytes FROM argo_collections WHERE name = 'dlist'").fetchone()
    on_shards = 0
    for s in shards:
        with s.connect() as c:
            on_shards += c.execute("SELECT size_bytes FROM argo_collections WHERE name = 'dlist'").fetchone()[0]
    admin.execute("SELECT argo_drop_collection('dlist')")
    check(row[0] == "argo1" and row[1] == 3000 and row[2] >= on_shards > 0,
          "argo_collections lists a distributed Argo/1 collection as argo1, %d objects, %s bytes "
          "(its shards hold %d)" % (row[1], row[2], on_shards))


def admin_functions_case(admin, servers):
    """argo_keys, argo_analyze, argo_check and argo_repair on a distributed
    collection answer as on a local copy of the same objects (read
    through the coordinator, every shard's rows merged)."""
    docs = [{"i": i, "s": "v%d" % (i % 7), "t": [i, {"u": i % 3 == 0}]} for i in range(300)]
    admin.execute("SELECT argo_create_distributed_collection('dadm', %s)", (servers,))
    admin.execute("SELECT argo_create_collection('ladm')")
    got = {}
    for coll in ("dadm", "ladm"):
        q(admin, "INSERT INTO %s OBJECTS $1" % coll, docs)
        got[coll] = (
            admin.execute("SELECT path, types, objects FROM argo_keys(%s, sample => NULL) ORDER BY path",
                          (coll,)).fetchall(),
            admin.execute("SELECT keys, objects FROM argo_analyze(%s, sample => NULL)", (coll,)).fetchall(),
            admin.execute("SELECT count(*) FROM argo_check(%s)", (coll,)).fetchone()[0],
            admin.execute("SELECT argo_repair(%s)", (coll,)).fetchone()[0])
    admin.execute("SELECT argo_drop_collection('dadm')")
    admin.execute("SELECT argo_drop_collection('ladm')")
    d, lo = got["dadm"], got["ladm"]
    check(d[0] == lo[0] and len(d[0]) == 5 and d[1] == lo[1] and d[2] == 0 and d[3] == 0,
          "argo_keys (%d paths), argo_analyze (%s), argo_check (%d problems) and argo_repair (%d written) "
          "on a distributed collection agree with a local copy" % (len(d[0]), d[1], d[2], d[3]))


def main():
    root = tempfile.mkdtemp(prefix="argo_shards_")
    shards = [Cluster("argo_shard%d" % i, root) for i in (1, 2, 3)]
    try:
        for s in shards:
            s.start()
            with s.connect() as c:
                c.execute("CREATE EXTENSION argo")
        admin = connect()
        admin.execute("CREATE EXTENSION IF NOT EXISTS argo")
        admin.execute("CREATE EXTENSION IF NOT EXISTS postgres_fdw")
        admin.execute("CREATE EXTENSION IF NOT EXISTS dblink")
        for s in shards:
            admin.execute("DROP SERVER IF EXISTS %s CASCADE" % s.name)
            admin.execute("CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS "
                          "(host '127.0.0.1', port '%d', dbname 'postgres')" % (s.name, s.port))
            admin.execute("CREATE USER MAPPING FOR CURRENT_USER SERVER %s OPTIONS (user 'postgres')" % s.name)
        servers = [s.name for s in shards]
        statements_case(admin, servers)
        placement_case(admin, shards)
        concurrency_case(admin)
        consistency_case(admin, servers)
        failure_case(admin, shards, servers)
        no_2pc_case(admin, shards, servers)
        hijack_case(admin, shards, servers)
        forged_bytes_case(admin, shards, servers)
        create_failures_case(admin, shards, servers)
        drop_failures_case(admin, shards, servers)
        committing_case(admin, shards, servers)
        merge_case(admin, servers)
        write_case(admin, servers)
        dictionary_case(admin, shards, servers)
        pushed_failure_case(admin, shards, servers)
        listing_case(admin, shards, servers)
        load_case(admin, shards, servers)
        privileges_case(admin, servers)
        admin_functions_case(admin, servers)
        home_case(admin, shards, servers)
        drop_case(admin, shards)
        bench_case(servers)
        for s in shards:
            admin.execute("DROP SERVER %s CASCADE" % s.name)
        admin.close()
    finally:
        for s in shards:
            s.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)
    return summary("distributed")


if __name__ == "__main__":
    sys.exit(main())
