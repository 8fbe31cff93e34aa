#!/usr/bin/env python3
"""Arrays of objects: orders and their items, Argo's [*] paths against jsonb.

Document i is an order
  {"customer": "c<i % 50000>", "status": <one of four>, "total": i % 1000,
   "items": [{"sku": "s<0..19999>", "qty": 1..10, "price": 0..99999}, …]}
with 0 to 5 items (i * 7919 % 6 of them; skus, quantities and prices from
a seeded random stream), so at a million orders a sku is in about 125.

Systems: Argo/3 and Argo/1, which index every key as always (the key
dictionary maps items[*].sku to the key ids of items[0].sku,
items[1].sku, …); jsonb_gin, a GIN index (jsonb_ops) on the whole
document, which serves both @> and @?; jsonb_tuned, that GIN index plus
what an application team would add for these queries: a GIN index
(jsonb_path_ops) on the expression doc->'items' and a B-tree on
doc->'customer'.  No index of jsonb's can serve a range over array
elements; Argo's value indexes can.

The method is NoBench's (bench/nobench.py): the same seeded parameters
for all systems, every result consumed on the server and fingerprinted,
fingerprints required equal before any time is reported, trimmed means.

    python3 bench/arrays.py --scale N [--runs 5] [--check-only] [--out DIR]

Writes DIR/arrays-N.md, .json and .png.
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
SKUS = 20000
CUSTOMERS = 50000

STAGE = """
CREATE TABLE ar_stage AS
SELECT i AS id, jsonb_build_object(
  'customer', 'c' || (i % {customers}),
  'status', (ARRAY['open', 'paid', 'shipped', 'returned'])[1 + i % 4],
  'total', i % 1000,
  'items', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                     'sku', 's' || floor(random() * {skus})::int,
                     'qty', 1 + floor(random() * 10)::int,
                     'price', floor(random() * 100000)::int) ORDER BY k), '[]'::jsonb)
              FROM generate_series(1, (i::bigint * 7919) % 6) k)) AS doc
FROM generate_series(1, {n}) i
"""


def coll(system):
    return "ar" + system[-1]


def table(system):
    return "ar_" + system[len("jsonb_"):]


# ---------------------------------------------------------------- loading

def stage(cur, n, seed):
    cur.execute("DROP TABLE IF EXISTS ar_stage")
    cur.execute("SELECT setseed(%s)", (seed / 1000.0,))
    cur.execute(STAGE.format(customers=CUSTOMERS, skus=SKUS, n=int(n)))


def load(cur, system):
    t0 = time.perf_counter()
    if system.startswith("argo"):
        cur.execute("SELECT argo_drop_collection(%s, true)", (coll(system),))
        cur.execute("SELECT argo_create_collection(%s, %s)", (coll(system), system))
        cur.execute("SELECT argo_load(%s, 'SELECT doc FROM ar_stage ORDER BY id')", (coll(system),))
        tables = ["argo_data.%s_%s" % (coll(system), t) for t in
                  (["str", "num", "bool"] if system == "argo3" else ["data"]) + ["keys", "obj"]]
    else:
        t = table(system)
        cur.execute("DROP TABLE IF EXISTS %s" % t)
        cur.execute("CREATE TABLE %s (id bigserial PRIMARY KEY, doc jsonb NOT NULL)" % t)
        cur.execute("INSERT INTO %s (doc) SELECT doc FROM ar_stage ORDER BY id" % t)
        cur.execute("CREATE INDEX ON %s USING gin (doc)" % t)
        if system == "jsonb_tuned":
            cur.execute("CREATE INDEX ON %s USING gin ((doc->'items') jsonb_path_ops)" % t)
            cur.execute("CREATE INDEX ON %s ((doc->'customer'))" % t)
        tables = [t]
    elapsed = time.perf_counter() - t0
    for t in tables:
        cur.execute("VACUUM ANALYZE %s" % t)
    cur.execute("SELECT sum(pg_total_relation_size(t::regclass))::bigint FROM unnest(%s::text[]) t",
                (tables,))
    return {"load_s": elapsed, "size_bytes": cur.fetchone()[0]}


# ---------------------------------------------------------------- cases

def make_params(runs, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(runs):
        lo = rng.randrange(0, 99900)
        out.append({"sku": "s%d" % rng.randrange(SKUS), "customer": "c%d" % rng.randrange(CUSTOMERS),
                    "lo": lo, "hi": lo + 20})
    return out


def j(v):
    return json.dumps(v)


def contains(p):
    return j({"items": [{"sku": p["sku"]}]})


def elem_qty(p):
    # a quantity threshold drawn from the sku, so the random stream stays as it was
    return 1 + int(p["sku"][1:]) % 10


def jsonpath(p):
    return '$.items[*] ? (@.sku == %s)' % j(p["sku"])


# the projection of items[*].sku: the array with each element's sku, for
# objects where some element has one
PROJECT = ("SELECT jsonb_build_object('items', s) FROM ("
           "SELECT (SELECT jsonb_agg(jsonb_build_object('sku', e->'sku') ORDER BY o) "
           "FROM jsonb_array_elements(CASE WHEN jsonb_typeof(doc->'items') = 'array' THEN doc->'items' END) "
           "WITH ORDINALITY x(e, o) WHERE e ? 'sku') s FROM t WHERE %s) q WHERE s IS NOT NULL")

# $unwind then $group: each element a row, an object with no elements one row without the key
UNWIND = ("SELECT CASE WHEN g IS NULL THEN jsonb_build_object('sold', s) "
          "ELSE jsonb_build_object('items', jsonb_build_array(jsonb_build_object('sku', g)), 'sold', s) END "
          "FROM (SELECT e->'sku' g, sum((e->>'qty')::numeric) s FROM t LEFT JOIN LATERAL "
          "jsonb_array_elements(CASE WHEN jsonb_typeof(doc->'items') = 'array' THEN doc->'items' END) e "
          "ON true GROUP BY 1) x")


def cases():
    """name -> (argo(p) -> (text, params), jsonb(system, p) -> (sql, params))."""
    tuned = lambda s: s == "jsonb_tuned"  # noqa: E731
    return {
        "find-item (@>)": (
            lambda p: ("SELECT * FROM c WHERE items[*].sku = $1", [j(p["sku"])]),
            lambda s, p: (("SELECT doc FROM t WHERE doc->'items' @> %s::jsonb", [j([{"sku": p["sku"]}])])
                          if tuned(s) else ("SELECT doc FROM t WHERE doc @> %s::jsonb", [contains(p)]))),
        "find-item (@?)": (
            lambda p: ("SELECT * FROM c WHERE items[*].sku = $1", [j(p["sku"])]),
            lambda s, p: (("SELECT doc FROM t WHERE doc->'items' @? %s::jsonpath",
                           ['$[*] ? (@.sku == %s)' % j(p["sku"])])
                          if tuned(s) else ("SELECT doc FROM t WHERE doc @? %s::jsonpath", [jsonpath(p)]))),
        "count-item": (
            lambda p: ("SELECT COUNT(*) FROM c WHERE items[*].sku = $1", [j(p["sku"])]),
            lambda s, p: (("SELECT jsonb_build_object('count', count(*)) FROM t WHERE doc->'items' @> %s::jsonb",
                           [j([{"sku": p["sku"]}])]) if tuned(s) else
                          ("SELECT jsonb_build_object('count', count(*)) FROM t WHERE doc @> %s::jsonb",
                           [contains(p)]))),
        # one item that is this sku with at least this quantity: a filter
        # (MongoDB's $elemMatch) against jsonpath's, GIN-indexed
        "elem-match": (
            lambda p: ("SELECT * FROM c WHERE EXISTS items[? sku = $1 AND qty >= $2]",
                       [j(p["sku"]), j(elem_qty(p))]),
            lambda s, p: (("SELECT doc FROM t WHERE doc->'items' @? %s::jsonpath",
                           ['$[*] ? (@.sku == %s && @.qty >= %d)' % (j(p["sku"]), elem_qty(p))])
                          if tuned(s) else
                          ("SELECT doc FROM t WHERE doc @? %s::jsonpath",
                           ['$.items[*] ? (@.sku == %s && @.qty >= %d)' % (j(p["sku"]), elem_qty(p))]))),
        "item-price-range": (
            lambda p: ("SELECT * FROM c WHERE items[*].price BETWEEN $1 AND $2", [j(p["lo"]), j(p["hi"])]),
            lambda s, p: ("SELECT doc FROM t WHERE doc @? %s::jsonpath",
                          ['$.items[*] ? (@.price >= %d && @.price <= %d)' % (p["lo"], p["hi"])])),
        "project-items": (
            lambda p: ("SELECT items[*].sku FROM c WHERE customer = $1", [j(p["customer"])]),
            lambda s, p: ((PROJECT % "doc->'customer' = %s::jsonb", [j(p["customer"])]) if tuned(s) else
                          (PROJECT % "doc @> %s::jsonb", [j({"customer": p["customer"]})]))),
        "unwind-group": (
            lambda p: ("SELECT items[*].sku, SUM(items[*].qty) AS sold FROM c GROUP BY items[*].sku", []),
            lambda s, p: (UNWIND, [])),
    }


def statement(system, case, p):
    argo, sql = cases()[case]
    if system.startswith("argo"):
        text, params = argo(p)
        return (FINGERPRINT % "SELECT * FROM argo_query(%s, VARIADIC %s::jsonb[])",
                [text.replace("FROM c", "FROM " + coll(system)), params])
    text, params = sql(system, p)
    return FINGERPRINT % text.replace("FROM t ", "FROM %s " % table(system)), params


# ---------------------------------------------------------------- running

def run(conn, systems, params, check_only):
    names = list(cases())
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
            log("  %-20s %.1f s (%s)" % (c, time.perf_counter() - t_start, ", ".join(
                "%s %.4f" % (s, min(times[c][s])) for s in systems if times[c][s])))
    return times, prints, failed


def cross_check(prints, failed):
    bad = []
    for c, runs in prints.items():
        for r, fps in enumerate(runs):
            fps = {s: fp for s, fp in fps.items() if s not in failed.get(c, {})}
            if len(set(fps.values())) > 1:
                bad.append("%s run %d: %s" % (c, r, fps))
    return bad


def build_report(n, runs, loads, times, info, systems, rows):
    names = list(times)
    res = {c: {s: trimmed(times[c][s]) for s in systems if times[c][s]} for c in names}
    vs = [(a, b) for a in systems if a.startswith("argo") for b in systems if b.startswith("jsonb")]
    lines = ["# Arrays of objects, %s orders" % format(n, ","), "", describe(info, runs), "",
             "Every system returned the same multiset of JSON values for every case and parameter set.", "",
             "## Load", "", "| system | load with indexes (s) | size (MB) |", "|---|---:|---:|"]
    for s in systems:
        lines.append("| %s | %.1f | %.0f |" % (s, loads[s]["load_s"], loads[s]["size_bytes"] / 2**20))
    lines += ["", "## Cases (seconds, trimmed mean; CV in parentheses; rows: the first parameter set's)", "",
              "| case | rows | " + " | ".join(systems) + " | " +
              " | ".join("%s vs %s" % (a, b.replace("jsonb_", "")) for a, b in vs) + " |",
              "|---" * (2 + len(systems) + len(vs)) + "|"]
    speedups = {v: [] for v in vs}
    for c in names:
        cells = ["%.4f (%.0f%%)" % (res[c][s][0], 100 * res[c][s][1]) if s in res[c] else "error"
                 for s in systems]
        for a, b in vs:
            su = res[c][b][0] / res[c][a][0] if a in res[c] and b in res[c] and res[c][a][0] > 0 else None
            if su:
                speedups[(a, b)].append(su)
            cells.append("%.2f×" % su if su else "—")
        lines.append("| %s | %d | %s |" % (c, rows[c], " | ".join(cells)))
    lines.append("| geometric mean | | " + " | ".join("" for _ in systems) + " | " +
                 " | ".join("**%.2f×**" % geomean(speedups[v]) for v in vs) + " |")
    lines += ["", "Speedup = jsonb time / Argo time (above 1: Argo is faster). jsonb_tuned answers "
              "find-item and count-item through its GIN index on doc->'items', project-items through "
              "its B-tree on doc->'customer'; no jsonb index serves item-price-range or unwind-group."]
    return "\n".join(lines) + "\n", res, {"%s/%s" % v: geomean(speedups[v]) for v in vs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, required=True, help="number of orders")
    ap.add_argument("--runs", type=int, default=None, help="parameter sets (default 5; 1 with --check-only)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--check-only", action="store_true",
                    help="load and cross-check results; report no times")
    args = ap.parse_args()
    n = args.scale
    systems = parse_systems(ap, args.systems, SYSTEMS)
    runs = args.runs or (1 if args.check_only else 5)

    conn = psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS argo")
        info = machine_info(conn)
        log("generating %d orders ..." % n)
        stage(cur, n, args.seed)
        loads = {}
        for s in systems:
            log("loading %s ..." % s)
            loads[s] = load(cur, s)
            log("  %.1f s, %.0f MB" % (loads[s]["load_s"], loads[s]["size_bytes"] / 2**20))
        cur.execute("DROP TABLE ar_stage")
        cur.execute("CHECKPOINT")
    params = make_params(runs, args.seed)
    log("running %d cases (%d runs each%s) ..." % (len(cases()), runs, "" if args.check_only else " after a warm-up"))
    times, prints, failed = run(conn, systems, params, args.check_only)
    bad = cross_check(prints, failed)
    rows = {c: next(iter(prints[c][0].values()))[0] if prints[c][0] else 0 for c in prints}
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
    log("cross-check: all %d systems returned the same results for %d cases x %d parameter sets (rows: %s)"
        % (len(systems), len(times), runs, ", ".join("%s %d" % kv for kv in rows.items())))
    if args.check_only:
        log("arrays check: %d passed, 0 failed" % len(times))
        return 0
    report, res, gms = build_report(n, runs, loads, times, info, systems, rows)
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, "arrays-%d" % n)
    write_report(base, report, {"scale": n, "info": info, "loads": loads, "times": times,
                                "trimmed": res, "geomeans": gms, "rows": rows},
                 "Arrays of objects, %s orders: Argo vs PostgreSQL jsonb" % format(n, ","),
                 list(times), res, systems)
    return 0


if __name__ == "__main__":
    sys.exit(main())
