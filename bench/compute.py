#!/usr/bin/env python3
"""Computing with documents (reference.md §9): Argo's expressions and exact
sums against the same computation in SQL over jsonb, same server, same run.

Orders {"price": 0.01..999.99 (two decimals), "qty": 1..9, "items": [{"sku":
"s<0..499>", "qty": 1..9, "price": 0.01..99.99}, …]} with 0 to 5 items,
and, for the sums, objects {"v": a number with up to six decimals}.

Cases (each answer fingerprinted; Argo and jsonb must agree exactly):
  computed-target  SELECT price * qty AS t FROM orders
                   jsonb: (doc->>'price')::numeric * (doc->>'qty')::numeric
  revenue-per-sku  SELECT items[*].sku, SUM(items[*].qty * items[*].price) … GROUP BY items[*].sku
                   jsonb: jsonb_array_elements, the same sum in numeric
  exact-sum        SELECT SUM(v) FROM numbers (numeric, exact)
                   jsonb: sum((doc->>'v')::numeric); and, not compared, the
                   SQL 0.10 ran for it (sum(valnum): double precision)

    python3 bench/compute.py --scale N [--sum-scale M] [--runs 5] [--out DIR]

Writes DIR/compute-N.md and .json.
"""
import argparse
import json
import os
import sys
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import FINGERPRINT, describe, log, machine_info, prewarm, trimmed  # noqa: E402

ORDERS = """
CREATE TABLE cp_orders_stage AS
SELECT i AS id, jsonb_build_object(
  'price', round((0.01 + random() * 999.98)::numeric, 2),
  'qty', 1 + floor(random() * 9)::int,
  'items', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                     'sku', 's' || floor(random() * 500)::int,
                     'qty', 1 + floor(random() * 9)::int,
                     'price', round((0.01 + random() * 99.98)::numeric, 2)) ORDER BY k), '[]'::jsonb)
              FROM generate_series(1, (i::bigint * 7919) % 6) k)) AS doc
FROM generate_series(1, {n}) i
"""

NUMBERS = """
CREATE TABLE cp_numbers_stage AS
SELECT i AS id, jsonb_build_object('v', round((random() * 2000 - 1000)::numeric, (i % 7)::int)) AS doc
FROM generate_series(1, {n}) i
"""

CASES = {
    "computed-target": (
        "SELECT price * qty AS t FROM cp_orders",
        "SELECT jsonb_build_object('t', (doc->>'price')::numeric * (doc->>'qty')::numeric) FROM j_orders"),
    "revenue-per-sku": (
        "SELECT items[*].sku, SUM(items[*].qty * items[*].price) AS rev FROM cp_orders GROUP BY items[*].sku",
        "SELECT CASE WHEN g IS NULL THEN jsonb_build_object('rev', s) "
        "ELSE jsonb_build_object('items', jsonb_build_array(jsonb_build_object('sku', g)), 'rev', s) END "
        "FROM (SELECT e->'sku' g, sum((e->>'qty')::numeric * (e->>'price')::numeric) s FROM j_orders "
        "LEFT JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_array_length(doc->'items') > 0 "
        "THEN doc->'items' END) e ON true GROUP BY 1) x"),
    "exact-sum": (
        "SELECT SUM(v) AS s FROM cp_numbers",
        "SELECT jsonb_build_object('s', sum((doc->>'v')::numeric)) FROM j_numbers"),
}


def load(cur, n, sum_n, seed):
    cur.execute("SELECT setseed(%s)", (seed / 1000.0,))
    out = {}
    for name, sql, size in (("orders", ORDERS, n), ("numbers", NUMBERS, sum_n)):
        cur.execute("DROP TABLE IF EXISTS cp_%s_stage" % name)
        cur.execute(sql.format(n=int(size)))
        t0 = time.perf_counter()
        cur.execute("SELECT argo_drop_collection(%s, true)", ("cp_" + name,))
        cur.execute("SELECT argo_load(%s, %s)", ("cp_" + name, "SELECT doc FROM cp_%s_stage ORDER BY id" % name))
        out["argo " + name] = time.perf_counter() - t0
        t0 = time.perf_counter()
        cur.execute("DROP TABLE IF EXISTS j_%s" % name)
        cur.execute("CREATE TABLE j_%s (id bigserial PRIMARY KEY, doc jsonb NOT NULL)" % name)
        cur.execute("INSERT INTO j_%s (doc) SELECT doc FROM cp_%s_stage ORDER BY id" % (name, name))
        cur.execute("CREATE INDEX ON j_%s USING gin (doc)" % name)
        out["jsonb " + name] = time.perf_counter() - t0
        cur.execute("DROP TABLE cp_%s_stage" % name)
    cur.execute("VACUUM ANALYZE")
    cur.execute("CHECKPOINT")
    return out


def double_sum_sql(cur):
    """What 0.10 ran for SUM(v): the double precision sum of the value rows."""
    cur.execute("SELECT keyid FROM argo_data.cp_numbers_keys WHERE keystr = 'v'")
    return ("SELECT jsonb_build_object('s', sum(valnum)) FROM argo_data.cp_numbers_num "
            "WHERE keyid = %d" % cur.fetchone()[0])


def timed(cur, sql, args):
    t0 = time.perf_counter()
    cur.execute(FINGERPRINT % sql, args)
    fp = cur.fetchone()
    return time.perf_counter() - t0, (int(fp[0]), str(fp[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, required=True, help="number of orders")
    ap.add_argument("--sum-scale", type=int, default=1000000, help="numbers summed (default 1M)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    args = ap.parse_args()

    conn = psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS argo")
        info = machine_info(conn)
        log("loading %d orders and %d numbers ..." % (args.scale, args.sum_scale))
        loads = load(cur, args.scale, args.sum_scale, args.seed)
        prewarm(cur)
        double_sql = double_sum_sql(cur)
        times, rows, bad = {}, {}, []
        for case, (argo, sql) in CASES.items():
            systems = {"argo": ("SELECT * FROM argo_query(%s)", [argo]), "jsonb": (sql, [])}
            if case == "exact-sum":
                systems["double (0.10)"] = (double_sql, [])
            times[case] = {s: [] for s in systems}
            prints = {}
            for r in range(args.runs + 1):
                for s, (q, a) in systems.items():
                    t, fp = timed(cur, q, a)
                    if r > 0:
                        times[case][s].append(t)
                    prints[s] = fp
            rows[case] = prints["argo"][0]
            if prints["argo"] != prints["jsonb"]:
                bad.append("%s: argo %s, jsonb %s" % (case, prints["argo"], prints["jsonb"]))
            log("  %-16s %s" % (case, ", ".join("%s %.4f" % (s, min(ts)) for s, ts in times[case].items())))
        for name in ("orders", "numbers"):
            cur.execute("SELECT argo_drop_collection(%s, true)", ("cp_" + name,))
            cur.execute("DROP TABLE IF EXISTS j_%s" % name)
    conn.close()
    if bad:
        log("FAIL: Argo and jsonb disagree: " + "; ".join(bad))
        return 1
    res = {c: {s: trimmed(ts) for s, ts in t.items()} for c, t in times.items()}
    lines = ["# Computing with documents: %s orders, %s numbers" % (format(args.scale, ","),
                                                                    format(args.sum_scale, ",")),
             "", describe(info, args.runs), "",
             "Argo and jsonb returned the same JSON values for every case (fingerprints compared).", "",
             "| case | rows | argo (s) | jsonb (s) | argo vs jsonb | other |", "|---|---:|---:|---:|---:|---|"]
    for c in CASES:
        a, j = res[c]["argo"][0], res[c]["jsonb"][0]
        other = ""
        if "double (0.10)" in res[c]:
            d = res[c]["double (0.10)"][0]
            other = "0.10's double SUM %.4f s: exact / double = %.2f×" % (d, a / d)
        lines.append("| %s | %d | %.4f | %.4f | %.2f× | %s |" % (c, rows[c], a, j, j / a, other))
    lines += ["", "argo vs jsonb = jsonb time / Argo time (above 1: Argo is faster). Loads (s): " +
              ", ".join("%s %.1f" % kv for kv in loads.items()) + "."]
    report = "\n".join(lines) + "\n"
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, "compute-%d" % args.scale)
    with open(base + ".md", "w") as f:
        f.write(report)
    with open(base + ".json", "w") as f:
        json.dump({"scale": args.scale, "sum_scale": args.sum_scale, "info": info, "loads": loads,
                   "times": times, "trimmed": res}, f, indent=1)
    log("")
    log(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
