#!/usr/bin/env python3
"""The AQL shootout: ArangoDB's AQL performance cases, Argo against jsonb.

Documents as published: document i is
  {"_key": "test<i>", "value1": i, "value2": "test<i>", "value3": i,
   "value4": "test<i>", "value5": i, "value6": "test<i>", "value7": i % 100,
   "value8": "test<i % 100>"}
value1..value6 unique, value7/value8 in 100 groups.  In the original,
value1/value2 have hash indexes and value3/value4 skiplists; here
jsonb_tuned has a hash index on value1/value2 and B-trees on _key,
value3/value4, jsonb_gin only a GIN index on the whole document (the
schema-agnostic peer), and Argo indexes every key as it always does.

The method is NoBench's (bench/nobench.py): four systems on one server,
seeded parameters shared by all, every result consumed on the server and
fingerprinted, the fingerprints required equal across systems before any
time is reported, trimmed means.

    python3 bench/aql.py --scale N [--runs 5] [--check-only] [--out DIR]

Writes DIR/aql-N.md, .json and .png.
"""
import argparse
import json
import os
import random
import sys
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import FINGERPRINT, describe, geomean, log, machine_info, parse_systems, trimmed, write_report  # noqa: E402

SYSTEMS = ["argo3", "argo1", "jsonb_gin", "jsonb_tuned"]
LOOKUPS = 10000

DOC = ("jsonb_build_object('_key', 'test' || i, 'value1', i, 'value2', 'test' || i, "
       "'value3', i, 'value4', 'test' || i, 'value5', i, 'value6', 'test' || i, "
       "'value7', i %% 100, 'value8', 'test' || (i %% 100)) FROM generate_series(0, %d) i")

# Cases of the original suite that Argo/SQL cannot say.
NOT_APPLICABLE = [
    ("subquery", "a subquery per document"),
    ("concat", "CONCAT of attributes into a new value"),
    ("merge", "MERGE of a document with new attributes"),
    ("unset", "a projection that leaves attributes out (UNSET)"),
]


def coll(system):
    return "aq" + system[-1]


def table(system):
    return "aq_" + system[len("jsonb_"):]


# ---------------------------------------------------------------- loading

def load(cur, system, n, shards=None):
    t0 = time.perf_counter()
    if system == "argo3s":
        cur.execute("SELECT argo_drop_collection(%s, true)", (coll(system),))
        cur.execute("SELECT argo_create_distributed_collection(%s, %s, 'argo3')", (coll(system), shards))
        cur.execute("SELECT argo_load(%s, %s)", (coll(system), "SELECT " + DOC % (n - 1)))
        tables = ["argo_data.%s_%s" % (coll(system), t) for t in ["str", "num", "bool", "keys", "obj"]]
    elif system.startswith("argo"):
        cur.execute("SELECT argo_drop_collection(%s, true)", (coll(system),))
        cur.execute("SELECT argo_create_collection(%s, %s)", (coll(system), system))
        cur.execute("SELECT argo_load(%s, %s)", (coll(system), "SELECT " + DOC % (n - 1)))
        tables = ["argo_data.%s_%s" % (coll(system), t) for t in
                  (["str", "num", "bool"] if system == "argo3" else ["data"]) + ["keys", "obj", "doc"]]
    else:
        t = table(system)
        cur.execute("DROP TABLE IF EXISTS %s" % t)
        cur.execute("CREATE TABLE %s (id bigserial PRIMARY KEY, doc jsonb NOT NULL)" % t)
        cur.execute("INSERT INTO %s (doc) SELECT %s" % (t, DOC % (n - 1)))
        cur.execute("CREATE INDEX ON %s USING gin (doc)" % t)
        if system == "jsonb_tuned":
            cur.execute("CREATE INDEX ON %s ((doc->'_key'))" % t)
            cur.execute("CREATE INDEX ON %s USING hash ((doc->'value1'))" % t)
            cur.execute("CREATE INDEX ON %s USING hash ((doc->'value2'))" % t)
            cur.execute("CREATE INDEX ON %s ((doc->'value3'))" % t)
            cur.execute("CREATE INDEX ON %s ((doc->'value4'))" % t)
        tables = [t]
    elapsed = time.perf_counter() - t0
    for t in tables:
        # a distributed collection's tables are partitions on other servers
        cur.execute(("ANALYZE %s" if system == "argo3s" else "VACUUM ANALYZE %s") % t)
    if system.startswith("argo"):
        # every table of the collection, its kept documents too (on its shards: theirs)
        cur.execute("SELECT argo_collection_size(%s)", (coll(system),))
    else:
        cur.execute("SELECT sum(pg_total_relation_size(t::regclass))::bigint FROM unnest(%s::text[]) t",
                    (tables,))
    return {"load_s": elapsed, "size_bytes": cur.fetchone()[0]}


# ---------------------------------------------------------------- cases

def make_params(n, runs, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(runs):
        lo = rng.randrange(0, max(1, n - n // 10))
        out.append({
            "x": rng.randrange(n),
            "lo": lo, "hi": lo + n // 10 - 1,
            "slo": "test%d" % rng.randrange(1, 9),
            "ids": rng.sample(range(n), min(LOOKUPS, n)),
        })
    for p in out:
        p["shi"] = p["slo"][:-1] + chr(ord(p["slo"][-1]) + 1)
    return out


def j(v):
    return json.dumps(v)


def obj(pairs, prefix=""):
    """jsonb_build_object('k', <prefix>doc->'k', …) of the named keys."""
    return "jsonb_build_object(%s)" % ", ".join("'%s', %sdoc->'%s'" % (k, prefix, k) for k in pairs)


def in_list(p, key, strings):
    vals = ["test%d" % i for i in p["ids"]] if strings else p["ids"]
    return (", ".join(("'%s'" % v) if strings else str(v) for v in vals),
            [j(v) for v in vals])


def join_cases(name, key):
    argo = "FROM c AS a INNER JOIN c AS b ON (a.%s = b.%s)" % (key, key)
    sql = "FROM t a JOIN t b ON a.doc->'%s' = b.doc->'%s'" % (key, key)
    return {
        name: (lambda p: ("SELECT a._key, b.value1 " + argo, []),
               lambda p: ("SELECT jsonb_build_object('a', jsonb_build_object('_key', a.doc->'_key'), "
                          "'b', jsonb_build_object('value1', b.doc->'value1')) " + sql, [])),
    }


def cases():
    """name -> (argo(p) -> (text, params), jsonb(p) -> (sql, params)); in
    the SQL, t stands for the table; in Argo/SQL, c for the collection."""
    cs = {
        "collect-number": (lambda p: ("SELECT value7 FROM c GROUP BY value7", []),
                           lambda p: ("SELECT %s FROM t GROUP BY doc->'value7'" % obj(["value7"]), [])),
        "collect-string": (lambda p: ("SELECT value8 FROM c GROUP BY value8", []),
                           lambda p: ("SELECT %s FROM t GROUP BY doc->'value8'" % obj(["value8"]), [])),
        "collect-count-number": (lambda p: ("SELECT value7, COUNT(*) FROM c GROUP BY value7", []),
                                 lambda p: ("SELECT jsonb_build_object('value7', doc->'value7', 'count', count(*)) "
                                            "FROM t GROUP BY doc->'value7'", [])),
        "collect-count-string": (lambda p: ("SELECT value8, COUNT(*) FROM c GROUP BY value8", []),
                                 lambda p: ("SELECT jsonb_build_object('value8', doc->'value8', 'count', count(*)) "
                                            "FROM t GROUP BY doc->'value8'", [])),
        "min-number": (lambda p: ("SELECT MIN(value5) FROM c", []),
                       lambda p: ("SELECT jsonb_build_object('min', min((doc->>'value5')::numeric)) FROM t", [])),
        "max-number": (lambda p: ("SELECT MAX(value5) FROM c", []),
                       lambda p: ("SELECT jsonb_build_object('max', max((doc->>'value5')::numeric)) FROM t", [])),
        "min-string": (lambda p: ("SELECT MIN(value6) FROM c", []),
                       lambda p: ("SELECT jsonb_build_object('min', min(doc->>'value6' COLLATE \"C\")) FROM t", [])),
        "max-string": (lambda p: ("SELECT MAX(value6) FROM c", []),
                       lambda p: ("SELECT jsonb_build_object('max', max(doc->>'value6' COLLATE \"C\")) FROM t", [])),
        "sort-number": (lambda p: ("SELECT * FROM c ORDER BY value5", []),
                        lambda p: ("SELECT doc FROM t ORDER BY doc->'value5'", [])),
        "sort-string": (lambda p: ("SELECT * FROM c ORDER BY value6", []),
                        lambda p: ("SELECT doc FROM t ORDER BY doc->>'value6' COLLATE \"C\"", [])),
        "filter-number": (lambda p: ("SELECT * FROM c WHERE value5 = $1", [j(p["x"])]),
                          lambda p: ("SELECT doc FROM t WHERE doc->'value5' = %s::jsonb", [j(p["x"])])),
        "filter-string": (lambda p: ("SELECT * FROM c WHERE value6 = $1", [j("test%d" % p["x"])]),
                          lambda p: ("SELECT doc FROM t WHERE doc->'value6' = %s::jsonb", [j("test%d" % p["x"])])),
        "range-number": (lambda p: ("SELECT * FROM c WHERE value5 BETWEEN $1 AND $2", [j(p["lo"]), j(p["hi"])]),
                         lambda p: ("SELECT doc FROM t WHERE jsonb_typeof(doc->'value5') = 'number' AND "
                                    "(doc->>'value5')::numeric BETWEEN %s AND %s", [p["lo"], p["hi"]])),
        "range-string": (lambda p: ("SELECT * FROM c WHERE value6 BETWEEN $1 AND $2", [j(p["slo"]), j(p["shi"])]),
                         lambda p: ("SELECT doc FROM t WHERE jsonb_typeof(doc->'value6') = 'string' AND "
                                    "doc->>'value6' COLLATE \"C\" BETWEEN %s AND %s", [p["slo"], p["shi"]])),
        "extract-doc": (lambda p: ("SELECT * FROM c", []),
                        lambda p: ("SELECT doc FROM t", [])),
        "extract-key": (lambda p: ("SELECT _key FROM c", []),
                        lambda p: ("SELECT %s FROM t" % obj(["_key"]), [])),
        "extract-number": (lambda p: ("SELECT value1 FROM c", []),
                           lambda p: ("SELECT %s FROM t" % obj(["value1"]), [])),
        "extract-string": (lambda p: ("SELECT value2 FROM c", []),
                           lambda p: ("SELECT %s FROM t" % obj(["value2"]), [])),
        "keep": (lambda p: ("SELECT _key, value1, value2 FROM c", []),
                 lambda p: ("SELECT %s FROM t" % obj(["_key", "value1", "value2"]), [])),
    }
    for name, key in [("join-key", "_key"), ("join-hash-number", "value1"), ("join-hash-string", "value2"),
                      ("join-skiplist-number", "value3"), ("join-skiplist-string", "value4")]:
        cs.update(join_cases(name, key))
    for name, key, strings in [("lookup-key", "_key", True), ("lookup-hash-number", "value1", False),
                               ("lookup-hash-string", "value2", True),
                               ("lookup-skiplist-number", "value3", False),
                               ("lookup-skiplist-string", "value4", True)]:
        cs[name] = ((lambda key, strings: lambda p: ("SELECT * FROM c WHERE %s IN (%s)"
                                                     % (key, in_list(p, key, strings)[0]), []))(key, strings),
                    (lambda key, strings: lambda p: ("SELECT doc FROM t WHERE doc->'%s' = ANY(%%s::jsonb[])" % key,
                                                     [in_list(p, key, strings)[1]]))(key, strings))
    join_sql = "FROM t a JOIN t b ON a.doc->'value1' = b.doc->'value1'"
    cs.update({
        "join-count": (lambda p: ("SELECT COUNT(*) FROM c AS a INNER JOIN c AS b ON (a.value1 = b.value1)", []),
                       lambda p: ("SELECT jsonb_build_object('count', count(*)) " + join_sql, [])),
        "join-min-max": (lambda p: ("SELECT MIN(a.value3), MAX(b.value4) FROM c AS a INNER JOIN c AS b "
                                    "ON (a.value1 = b.value1)", []),
                         lambda p: ("SELECT jsonb_build_object('min', min((a.doc->>'value3')::numeric), "
                                    "'max', max(b.doc->>'value4' COLLATE \"C\")) " + join_sql, [])),
        "join-group-count": (lambda p: ("SELECT a.value7, COUNT(*) FROM c AS a INNER JOIN c AS b "
                                        "ON (a.value1 = b.value1) GROUP BY a.value7", []),
                             lambda p: ("SELECT jsonb_build_object('a', jsonb_build_object('value7', a.doc->'value7'), "
                                        "'count', count(*)) " + join_sql + " GROUP BY a.doc->'value7'", [])),
    })
    return cs


def statement(system, case, p):
    argo, sql = cases()[case]
    if system.startswith("argo"):
        text, params = argo(p)
        text = text.replace("FROM c", "FROM " + coll(system)).replace("JOIN c ", "JOIN %s " % coll(system))
        return FINGERPRINT % "SELECT * FROM argo_query(%s, VARIADIC %s::jsonb[])", [text, params]
    text, params = sql(p)
    return FINGERPRINT % text.replace("FROM t", "FROM " + table(system)).replace(
        "JOIN t ", "JOIN %s " % table(system)), params


# ---------------------------------------------------------------- running

def run(conn, systems, params, check_only, only=None):
    names = [c for c in cases() if not only or c in only]
    times = {c: {s: [] for s in systems} for c in names}
    prints = {c: [dict() for _ in params] for c in names}
    failed = {}
    with conn.cursor() as cur:
        for c in names:
            t_start = time.perf_counter()
            for s in systems:
                for r in ([] if check_only else [None]) + list(range(len(params))):
                    sql, args = statement(s, c, params[r or 0])
                    t0 = time.perf_counter()
                    try:
                        cur.execute(sql, args)
                        fp = cur.fetchone()
                    except psycopg.Error as e:
                        failed.setdefault(c, {})[s] = "%s %s" % (e.sqlstate, str(e).splitlines()[0])
                        break
                    elapsed = time.perf_counter() - t0
                    if r is not None:
                        times[c][s].append(elapsed)
                        prints[c][r][s] = (int(fp[0]), str(fp[1]))
            log("  %-24s %.1f s" % (c, time.perf_counter() - t_start))
    return times, prints, failed


def cross_check(prints, failed):
    bad = []
    for c, runs in prints.items():
        for r, fps in enumerate(runs):
            fps = {s: fp for s, fp in fps.items() if s not in failed.get(c, {})}
            if len(set(fps.values())) > 1:
                bad.append("%s run %d: %s" % (c, r, fps))
    return bad


def build_report(n, runs, loads, times, failed, info, systems):
    names = list(times)
    res = {c: {s: trimmed(times[c][s]) for s in systems if times[c][s]} for c in names}
    vs = [(a, b) for a in systems if a.startswith("argo") for b in systems if b.startswith("jsonb")]
    lines = ["# AQL shootout, %s documents" % format(n, ","), "", describe(info, runs), "",
             "Every system returned the same multiset of JSON values for every case it ran and "
             "every parameter set.", "",
             "## Load", "", "| system | load with indexes (s) | size (MB) |", "|---|---:|---:|"]
    for s in systems:
        lines.append("| %s | %.1f | %.0f |" % (s, loads[s]["load_s"], loads[s]["size_bytes"] / 2**20))
    lines += ["", "## Cases (seconds, trimmed mean; CV in parentheses)", "",
              "| case | " + " | ".join(systems) + " | " +
              " | ".join("%s vs %s" % (a, b.replace("jsonb_", "")) for a, b in vs) + " |",
              "|---" * (1 + len(systems) + len(vs)) + "|"]
    speedups = {v: [] for v in vs}
    for c in names:
        cells = ["%.4f (%.0f%%)" % (res[c][s][0], 100 * res[c][s][1]) if s in res[c] else "error"
                 for s in systems]
        for a, b in vs:
            if a in res[c] and b in res[c] and res[c][a][0] > 0:
                su = res[c][b][0] / res[c][a][0]
                speedups[(a, b)].append(su)
                cells.append("%.2f×" % su)
            else:
                cells.append("—")
        lines.append("| %s | %s |" % (c, " | ".join(cells)))
    lines.append("| geometric mean | " + " | ".join("" for _ in systems) + " | " +
                 " | ".join("**%.2f×**" % geomean(speedups[v]) for v in vs) + " |")
    lines += ["", "Speedup = jsonb time / Argo time (above 1: Argo is faster)."]
    if failed:
        lines += ["", "Failed: " + "; ".join("%s on %s: %s" % (c, s, e) for c, fs in failed.items()
                                             for s, e in fs.items())]
    lines += ["", "Not applicable (Argo/SQL cannot say it): " +
              "; ".join("%s (%s)" % na for na in NOT_APPLICABLE) + "."]
    return "\n".join(lines) + "\n", res, {"%s/%s" % v: geomean(speedups[v]) for v in vs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, required=True, help="number of documents")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--check-only", action="store_true",
                    help="load and cross-check results; report no times")
    ap.add_argument("--cases", default=None,
                    help="comma-separated cases to run (default: every case)")
    ap.add_argument("--shards", default=None,
                    help="postgres_fdw servers: adds argo3s, Argo/3 distributed over them")
    args = ap.parse_args()
    n = args.scale
    systems = parse_systems(ap, args.systems, SYSTEMS)
    shards = args.shards.split(",") if args.shards else None
    if shards:
        systems.append("argo3s")
    runs = 1 if args.check_only else args.runs
    only = args.cases.split(",") if args.cases else None
    unknown = [c for c in (only or []) if c not in cases()]
    if unknown:
        ap.error("unknown cases: " + ", ".join(unknown))

    conn = psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS argo")
        info = machine_info(conn)
        loads = {}
        for s in systems:
            log("loading %s ..." % s)
            loads[s] = load(cur, s, n, shards)
            log("  %.1f s, %.0f MB" % (loads[s]["load_s"], loads[s]["size_bytes"] / 2**20))
        cur.execute("CHECKPOINT")
    params = make_params(n, runs, args.seed)
    log("running %d cases (%d runs each%s) ..." % (len(only or cases()), runs, "" if args.check_only else " after a warm-up"))
    times, prints, failed = run(conn, systems, params, args.check_only, only)
    bad = cross_check(prints, failed)
    with conn.cursor() as cur:
        for s in systems:
            if s.startswith("argo"):
                cur.execute("SELECT argo_drop_collection(%s, true)", (coll(s),))
            else:
                cur.execute("DROP TABLE IF EXISTS %s" % table(s))
    conn.close()
    if bad or failed:
        log("FAIL:")
        for b in bad:
            log("  systems disagree: " + b)
        for c, fs in failed.items():
            for s, e in fs.items():
                log("  %s on %s: %s" % (c, s, e))
        return 1
    log("cross-check: all %d systems returned the same results for %d cases x %d parameter sets"
        % (len(systems), len(times), runs))
    if args.check_only:
        log("aql check: %d passed, 0 failed" % len(times))
        return 0
    report, res, gms = build_report(n, runs, loads, times, failed, info, systems)
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, "aql-%d" % n)
    write_report(base, report, {"scale": n, "info": info, "loads": loads, "times": times,
                                "trimmed": res, "geomeans": gms, "failed": failed},
                 "AQL shootout, %s documents: Argo vs PostgreSQL jsonb" % format(n, ","),
                 list(times), res, systems)
    return 0


if __name__ == "__main__":
    sys.exit(main())
