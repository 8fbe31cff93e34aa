#!/usr/bin/env python3
"""NoBench driver: Argo/3, Argo/1 and PostgreSQL jsonb, side by side.

Loads the generated data into four systems on one server:
  argo3      an Argo/3 collection (argo_load_file)
  argo1      an Argo/1 collection
  jsonb_gin  a jsonb table with one GIN index on the whole document
             (schema-agnostic, like Argo)
  jsonb_tuned  the same plus B-tree expression indexes for these queries
             (what the paper built for MongoDB)
then runs Q1-Q12: a warm-up, then RUNS timed runs, each with its own
seeded random parameters, the same for every system.  Every result is
consumed in full on the server: its objects are counted and hashed as text,
and the (count, sum of hashes) fingerprint of each run must be equal across
the four systems -- checked before any time is reported.  Times drop the
fastest and slowest run and average the rest (the paper's method).

    python3 bench/nobench.py --scale N [--runs 10] [--check-only] [--out DIR]

Connects with libpq's PG* environment (bash run bench sets it up through
pg_virtualenv).  Writes DIR/report-N.md, DIR/report-N.json, DIR/report-N.png.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import nobench_gen  # noqa: E402
from common import FINGERPRINT, describe, geomean, log, machine_info, parse_systems, trimmed, write_report  # noqa: E402

SYSTEMS = ["argo3", "argo1", "jsonb_gin", "jsonb_tuned"]
QUERIES = ["Q%d" % i for i in range(1, 13)]

# A typed numeric view of a key, the same expression in queries and indexes.
def num_expr(key):
    return ("(CASE WHEN jsonb_typeof(doc->'%s') = 'number' THEN (doc->>'%s')::float8 END)"
            % (key, key))


# ---------------------------------------------------------------- loading

def copy_sql(table, path):
    # CSV with delimiter and quote bytes that never occur: one line, one value,
    # and no backslash processing.
    return ("COPY %s (doc) FROM '%s' WITH (FORMAT csv, DELIMITER e'\\x01', QUOTE e'\\x02')"
            % (table, path))


def load_jsonb(cur, table, path, tuned):
    cur.execute("DROP TABLE IF EXISTS %s" % table)
    cur.execute("CREATE TABLE %s (id bigserial PRIMARY KEY, doc jsonb NOT NULL)" % table)
    t0 = time.perf_counter()
    cur.execute(copy_sql(table, path))
    t_copy = time.perf_counter() - t0
    t0 = time.perf_counter()
    cur.execute("CREATE INDEX ON %s USING gin (doc)" % table)
    if tuned:
        cur.execute("CREATE INDEX ON %s ((doc->'str1'))" % table)
        cur.execute("CREATE INDEX ON %s (%s)" % (table, num_expr("num")))
        cur.execute("CREATE INDEX ON %s (%s)" % (table, num_expr("dyn1")))
    t_index = time.perf_counter() - t0
    return t_copy, t_index


def load_argo(cur, coll, fmt, path, shards=None):
    cur.execute("SELECT argo_drop_collection(%s, true)", (coll,))
    if shards:
        cur.execute("SELECT argo_create_distributed_collection(%s, %s, %s)", (coll, shards, fmt))
    else:
        cur.execute("SELECT argo_create_collection(%s, %s)", (coll, fmt))
    t0 = time.perf_counter()
    cur.execute("SELECT argo_load_file(%s, %s)", (coll, path))
    return time.perf_counter() - t0, 0.0


def tables_of(system):
    if system == "argo3s":
        return ["argo_data.nbs_str", "argo_data.nbs_num", "argo_data.nbs_bool",
                "argo_data.nbs_keys", "argo_data.nbs_obj"]
    if system == "argo3":
        return ["argo_data.nb3_str", "argo_data.nb3_num", "argo_data.nb3_bool",
                "argo_data.nb3_keys", "argo_data.nb3_obj", "argo_data.nb3_doc"]
    if system == "argo1":
        return ["argo_data.nb1_data", "argo_data.nb1_keys", "argo_data.nb1_obj", "argo_data.nb1_doc"]
    return ["nb_" + system[len("jsonb_"):]]


def size_of(cur, system):
    if system.startswith("argo"):
        # every table of the collection, its kept documents too (on its shards: theirs)
        cur.execute("SELECT argo_collection_size(%s)", ("nb" + system[-1],))
    else:
        cur.execute("SELECT sum(pg_total_relation_size(t::regclass))::bigint FROM unnest(%s::text[]) t",
                    (tables_of(system),))
    return cur.fetchone()[0]


def load_all(conn, datadir, systems, shards=None):
    loads = {}
    main = os.path.join(datadir, "main.jsonl")
    with conn.cursor() as cur:
        for system in systems:
            log("loading %s ..." % system)
            if system == "argo3":
                t = load_argo(cur, "nb3", "argo3", main)
            elif system == "argo3s":
                t = load_argo(cur, "nbs", "argo3", main, shards)
            elif system == "argo1":
                t = load_argo(cur, "nb1", "argo1", main)
            else:
                t = load_jsonb(cur, tables_of(system)[0], main, system == "jsonb_tuned")
            for table in tables_of(system):
                # a distributed collection's tables are partitions on other servers
                cur.execute(("ANALYZE %s" if system == "argo3s" else "VACUUM ANALYZE %s") % table)
            loads[system] = {"load_s": t[0], "index_s": t[1],
                             "size_bytes": size_of(cur, system)}
            log("  %s: load %.1f s, index %.1f s, %.0f MB"
                % (system, t[0], t[1], loads[system]["size_bytes"] / 2**20))
        # write back what the loads dirtied, so that no system's queries
        # pay for evicting another's dirty pages
        cur.execute("CHECKPOINT")
    return loads


# ---------------------------------------------------------------- queries

def pick_words(datadir, n, rng, runs):
    """Q8: words in about 0.1% of the objects."""
    with open(os.path.join(datadir, "words.json")) as f:
        freq = json.load(f)
    target = max(1, n / 1000)
    ranked = sorted(freq, key=lambda w: (abs(freq[w] - target), w))
    pool = ranked[:max(runs, 10)]
    return [rng.choice(pool) for _ in range(runs)]


def make_params(n, runs, seed, datadir):
    """Per-run parameters, seeded: the same for every system."""
    rng = random.Random(seed)
    sel = max(1, n // 1000)          # 0.1%
    words = pick_words(datadir, n, rng, runs)
    params = []
    for r in range(runs):
        c1, c2 = rng.sample(range(100), 2)
        x = rng.randrange(0, max(1, n - sel))
        x10 = rng.randrange(0, max(1, n - n // 10))
        s9 = rng.randrange(n)
        params.append({
            "c1": c1, "c2": c2,
            "str1": nobench_gen.enc(rng.randrange(n)),
            "lo": x, "hi": x + sel - 1,
            "lo10": x10, "hi10": x10 + n // 10 - 1,
            "word": words[r],
            "sparse_key": "sparse_%03d" % ((s9 % 100) * 10 + rng.randrange(10)),
            "sparse_val": nobench_gen.enc(s9 % 11),
        })
    return params


def argo_sql(q, p):
    """Argo/SQL text and its parameters."""
    k = lambda c, i: "sparse_%03d" % (c * 10 + i)
    return {
        "Q1": ("SELECT str1, num FROM nb", []),
        "Q2": ("SELECT nested_obj.str, nested_obj.num FROM nb", []),
        "Q3": ("SELECT %s, %s FROM nb" % (k(p["c1"], 0), k(p["c1"], 9)), []),
        "Q4": ("SELECT %s, %s FROM nb" % (k(p["c1"], 0), k(p["c2"], 0)), []),
        "Q5": ("SELECT * FROM nb WHERE str1 = $1", [json.dumps(p["str1"])]),
        "Q6": ("SELECT * FROM nb WHERE num BETWEEN $1 AND $2", [str(p["lo"]), str(p["hi"])]),
        "Q7": ("SELECT * FROM nb WHERE dyn1 BETWEEN $1 AND $2", [str(p["lo"]), str(p["hi"])]),
        "Q8": ("SELECT * FROM nb WHERE $1 = ANY nested_arr", [json.dumps(p["word"])]),
        "Q9": ("SELECT * FROM nb WHERE %s = $1" % p["sparse_key"], [json.dumps(p["sparse_val"])]),
        "Q10": ("SELECT COUNT(*) FROM nb WHERE num BETWEEN $1 AND $2 GROUP BY thousandth",
                [str(p["lo10"]), str(p["hi10"])]),
        "Q11": ("SELECT * FROM nb AS l INNER JOIN nb AS r ON (l.nested_obj.str = r.str1) "
                "WHERE l.num BETWEEN $1 AND $2", [str(p["lo"]), str(p["hi"])]),
    }[q]


def jsonb_sql(q, p, table, tuned):
    """The same query in SQL over a jsonb table, giving the same JSON."""
    k = lambda c, i: "sparse_%03d" % (c * 10 + i)
    two = lambda a, b: ("SELECT jsonb_strip_nulls(jsonb_build_object('%s', doc->'%s', '%s', doc->'%s')) "
                        "FROM %s WHERE doc ? '%s' OR doc ? '%s'" % (a, a, b, b, table, a, b))
    num_between = "%s BETWEEN %%s AND %%s" % num_expr("num")
    return {
        "Q1": (two("str1", "num"), []),
        "Q2": ("SELECT jsonb_build_object('nested_obj', jsonb_strip_nulls(jsonb_build_object("
               "'str', doc->'nested_obj'->'str', 'num', doc->'nested_obj'->'num'))) FROM %s "
               "WHERE doc->'nested_obj' ? 'str' OR doc->'nested_obj' ? 'num'" % table, []),
        "Q3": (two(k(p["c1"], 0), k(p["c1"], 9)), []),
        "Q4": (two(k(p["c1"], 0), k(p["c2"], 0)), []),
        "Q5": (("SELECT doc FROM %s WHERE doc->'str1' = %%s::jsonb" % table, [json.dumps(p["str1"])])
               if tuned else
               ("SELECT doc FROM %s WHERE doc @> %%s::jsonb" % table,
                [json.dumps({"str1": p["str1"]})])),
        "Q6": ("SELECT doc FROM %s WHERE %s" % (table, num_between), [p["lo"], p["hi"]]),
        "Q7": ("SELECT doc FROM %s WHERE %s BETWEEN %%s AND %%s" % (table, num_expr("dyn1")),
               [p["lo"], p["hi"]]),
        "Q8": ("SELECT doc FROM %s WHERE doc @> %%s::jsonb" % table,
               [json.dumps({"nested_arr": [p["word"]]})]),
        "Q9": ("SELECT doc FROM %s WHERE doc @> %%s::jsonb" % table,
               [json.dumps({p["sparse_key"]: p["sparse_val"]})]),
        "Q10": ("SELECT jsonb_build_object('thousandth', doc->'thousandth', 'count', count(*)) "
                "FROM %s WHERE %s GROUP BY doc->'thousandth'" % (table, num_between),
                [p["lo10"], p["hi10"]]),
        "Q11": ("SELECT jsonb_build_object('l', l.doc, 'r', r.doc) FROM %s l JOIN %s r "
                "ON l.doc->'nested_obj'->'str' = r.doc->'str1' WHERE %s"
                % (table, table, num_between.replace("doc->", "l.doc->")), [p["lo"], p["hi"]]),
    }[q]


def statement(system, q, p):
    """The SQL to time for one system, query and parameter set."""
    if system.startswith("argo"):
        text, params = argo_sql(q, p)
        text = text.replace("FROM nb", "FROM nb" + system[-1]).replace("JOIN nb", "JOIN nb" + system[-1])
        return (FINGERPRINT % "SELECT * FROM argo_query(%s, VARIADIC %s::jsonb[])", [text, params])
    table = tables_of(system)[0]
    sql, params = jsonb_sql(q, p, table, system == "jsonb_tuned")
    return FINGERPRINT % sql, params


# ---------------------------------------------------------------- Q12

def q12_insert(cur, system, extra):
    if system.startswith("argo"):
        cur.execute("SELECT argo_load_file(%s, %s)", ("nb" + system[-1], extra))
    else:
        cur.execute(copy_sql(tables_of(system)[0], extra))


def q12_fingerprint_and_cleanup(cur, system, n):
    """Untimed: fingerprint the inserted objects, then remove them."""
    if system.startswith("argo"):
        coll = "nb" + system[-1]
        cur.execute(FINGERPRINT % "SELECT * FROM argo_query(%s, %s::jsonb)",
                    ("SELECT * FROM %s WHERE num >= $1" % coll, str(n)))
        fp = cur.fetchone()
        cur.execute("SELECT * FROM argo_query(%s, %s::jsonb)",
                    ("DELETE FROM %s WHERE num >= $1" % coll, str(n)))
    else:
        table = tables_of(system)[0]
        cur.execute(FINGERPRINT % ("SELECT doc FROM %s WHERE %s >= %%s" % (table, num_expr("num"))), (n,))
        fp = cur.fetchone()
        cur.execute("DELETE FROM %s WHERE %s >= %%s" % (table, num_expr("num")), (n,))
    return fp


# ---------------------------------------------------------------- whole objects

def extract_sql(system):
    """Every object of the collection, consumed as text on the server."""
    if system.startswith("argo"):
        return FINGERPRINT % "SELECT * FROM argo_query('SELECT * FROM nb%s')" % system[-1], []
    return FINGERPRINT % ("SELECT doc FROM %s" % tables_of(system)[0]), []


def q6_count_sql(system, p):
    """Q6's predicate alone: the objects are found and counted, not fetched."""
    if system.startswith("argo"):
        return ("SELECT count(*) FROM argo_query(%s, VARIADIC %s::jsonb[])",
                ["SELECT COUNT(*) FROM nb%s WHERE num BETWEEN $1 AND $2" % system[-1],
                 [str(p["lo"]), str(p["hi"])]])
    return ("SELECT count(*) FROM %s WHERE %s BETWEEN %%s AND %%s"
            % (tables_of(system)[0], num_expr("num")), [p["lo"], p["hi"]])


def run_whole_objects(conn, systems, params, check_only):
    """Extraction of every object (timed, cross-checked), and the cost of
    fetching one object: Q6's time minus the time of finding its objects
    (Q6's predicate with COUNT), per object returned."""
    runs = min(len(params), 5)
    out = {s: {"extract": [], "fetch_us": []} for s in systems}
    prints = {}
    with conn.cursor() as cur:
        for system in systems:
            for r in range(-1, runs):
                sql, args = extract_sql(system)
                t0 = time.perf_counter()
                cur.execute(sql, args)
                fp = cur.fetchone()
                if r >= 0:
                    out[system]["extract"].append(time.perf_counter() - t0)
                prints.setdefault(system, (int(fp[0]), str(fp[1])))
                if check_only:
                    break
            if check_only:
                continue
            for r in range(-1, len(params)):
                p = params[max(r, 0)]
                sql, args = statement(system, "Q6", p)
                t0 = time.perf_counter()
                cur.execute(sql, args)
                rows = cur.fetchone()[0]
                t_all = time.perf_counter() - t0
                sql, args = q6_count_sql(system, p)
                t0 = time.perf_counter()
                cur.execute(sql, args)
                cur.fetchone()
                t_find = time.perf_counter() - t0
                if r >= 0 and rows > 0:
                    out[system]["fetch_us"].append(1e6 * (t_all - t_find) / rows)
    bad = [] if len(set(prints.values())) == 1 else ["whole-collection extraction: %s" % prints]
    return out, bad


def whole_objects_report(whole, systems):
    lines = ["", "## Whole objects", "",
             "Extraction: every object, consumed as text on the server (trimmed mean of 5 runs). "
             "Fetch: Q6's time minus the time of its predicate alone (COUNT), per object returned "
             "(mean over the parameter sets): the cost of fetching and rebuilding one object.", "",
             "| system | extraction (s) | vs jsonb_gin | fetch per object (µs) |", "|---|---:|---:|---:|"]
    base = trimmed(whole["jsonb_gin"]["extract"])[0] if "jsonb_gin" in whole else None
    for s in systems:
        ex = trimmed(whole[s]["extract"])[0]
        fu = statistics.mean(whole[s]["fetch_us"]) if whole[s]["fetch_us"] else float("nan")
        # where the predicate alone costs nearly all of Q6 (GIN: a full
        # scan), the difference is noise, not a fetch cost
        lines.append("| %s | %.3f | %s | %s |" % (s, ex, "%.2f×" % (base / ex) if base else "",
                                                "%.1f" % fu if fu > 0 else "— (below noise)"))
    return lines


# ---------------------------------------------------------------- running

def run_queries(conn, systems, params, n, datadir, check_only):
    """times[q][system] = list of seconds; prints progress."""
    times = {q: {s: [] for s in systems} for q in QUERIES}
    prints = {q: [dict() for _ in params] for q in QUERIES}
    extra = os.path.join(datadir, "extra.jsonl")
    runs = [None] + list(range(len(params)))   # None: the warm-up
    with conn.cursor() as cur:
        for q in QUERIES:
            t_start = time.perf_counter()
            for system in systems:
                for r in runs:
                    if check_only and r is None:
                        continue
                    p = params[0 if r is None else r]
                    t0 = time.perf_counter()
                    if q == "Q12":
                        q12_insert(cur, system, extra)
                        elapsed = time.perf_counter() - t0
                        fp = q12_fingerprint_and_cleanup(cur, system, n)
                    else:
                        sql, args = statement(system, q, p)
                        cur.execute(sql, args)
                        fp = cur.fetchone()
                        elapsed = time.perf_counter() - t0
                    if r is not None:
                        times[q][system].append(elapsed)
                        prints[q][r][system] = (int(fp[0]), str(fp[1]))
            log("  %-4s done in %.1f s" % (q, time.perf_counter() - t_start))
    return times, prints


def cross_check(prints, systems):
    """Every system's fingerprint equal, per query and parameter set."""
    bad = []
    for q in QUERIES:
        for r, fps in enumerate(prints[q]):
            if len(set(fps.values())) != 1:
                bad.append("%s run %d: %s" % (q, r, fps))
    return bad


# ---------------------------------------------------------------- report

def build_report(n, runs, loads, times, info, systems):
    res = {q: {s: trimmed(times[q][s]) for s in systems} for q in QUERIES}
    lines = ["# NoBench, %s objects" % format(n, ","), "",
             describe(info, runs), "",
             "All four systems returned the same multiset of JSON values for every query and parameter set.", "",
             "## Load", "", "| system | load (s) | index build (s) | total (s) | size (MB) |",
             "|---|---:|---:|---:|---:|"]
    for s in systems:
        l = loads[s]
        lines.append("| %s | %.1f | %.1f | %.1f | %.0f |" % (s, l["load_s"], l["index_s"],
                                                            l["load_s"] + l["index_s"], l["size_bytes"] / 2**20))
    lines += ["", "## Queries (seconds, trimmed mean; CV in parentheses)", ""]
    head = "| query | " + " | ".join(systems) + " |"
    vs = [(a, b) for a in systems if a.startswith("argo") for b in systems if b.startswith("jsonb")]
    head += " " + " | ".join("%s vs %s" % (a, b.replace("jsonb_", "")) for a, b in vs) + " |"
    lines += [head, "|---" * (1 + len(systems) + len(vs)) + "|"]
    speedups = {v: [] for v in vs}
    for q in QUERIES:
        row = "| %s | " % q + " | ".join("%.4f (%.0f%%)" % (res[q][s][0], 100 * res[q][s][1]) for s in systems)
        cells = []
        for a, b in vs:
            su = res[q][b][0] / res[q][a][0] if res[q][a][0] > 0 else float("nan")
            speedups[(a, b)].append(su)
            cells.append("%.2f×" % su)
        lines.append(row + " | " + " | ".join(cells) + " |")
    lines.append("| geometric mean | " + " | ".join("" for _ in systems) + " | " +
                 " | ".join("**%.2f×**" % geomean(speedups[v]) for v in vs) + " |")
    lines += ["", "Speedup = jsonb time / Argo time (above 1: Argo is faster)."]
    return "\n".join(lines) + "\n", res, {("%s/%s" % v): geomean(speedups[v]) for v in vs}


# ---------------------------------------------------------------- main

def run_admin(conn, systems, check_only):
    """Argo's admin functions on each loaded collection, each timed once:
    argo_keys and argo_analyze (a sample of 10,000 objects by default)
    and argo_check on a sample of 10,000. Their answers are checked for
    sense: every path and key found, nothing wrong."""
    admin = {}
    with conn.cursor() as cur:
        for system, coll in (("argo3", "nb3"), ("argo1", "nb1")):
            if system not in systems:
                continue
            out = {}
            for name, sql in (("argo_keys", "SELECT count(*) FROM argo_keys(%s)"),
                              ("argo_analyze", "SELECT keys FROM argo_analyze(%s)"),
                              ("argo_check(sample 10,000)", "SELECT count(*) FROM argo_check(%s, 10000)")):
                t0 = time.perf_counter()
                cur.execute(sql, (coll,))
                value = cur.fetchone()[0]
                out[name] = {"s": time.perf_counter() - t0, "value": value}
            admin[system] = out
    bad = ["%s: %s gave %s" % (s, f, r["value"]) for s, o in admin.items() for f, r in o.items()
           if (f.startswith("argo_check") and r["value"] != 0) or (not f.startswith("argo_check") and r["value"] < 1)]
    return ({} if check_only else admin), bad


def admin_report(admin):
    if not admin:
        return []
    names = list(next(iter(admin.values())))
    lines = ["", "## Admin functions (seconds, one call each)", "",
             "| system | " + " | ".join(names) + " |", "|---" * (1 + len(names)) + "|"]
    for s, o in admin.items():
        lines.append("| %s | " % s + " | ".join("%.2f" % o[f]["s"] for f in names) + " |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, required=True, help="number of objects")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", default=None, help="data directory (default /tmp/argo-nobench-N)")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--check-only", action="store_true",
                    help="load and cross-check results; report no times")
    ap.add_argument("--shards", default=None,
                    help="postgres_fdw servers: adds argo3s, Argo/3 distributed over them")
    args = ap.parse_args()
    n = args.scale
    systems = parse_systems(ap, args.systems, SYSTEMS)
    shards = args.shards.split(",") if args.shards else None
    if shards:
        systems.append("argo3s")
    datadir = args.data or "/tmp/argo-nobench-%d" % n

    if not os.path.exists(os.path.join(datadir, "DONE")):
        log("generating %d objects into %s ..." % (n, datadir))
        t0 = time.perf_counter()
        nobench_gen.generate(n, datadir, args.seed)
        log("  generated in %.1f s" % (time.perf_counter() - t0))
    os.chmod(datadir, 0o755)   # the server reads the files

    conn = psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS argo")
    info = machine_info(conn)
    loads = load_all(conn, datadir, systems, shards)
    params = make_params(n, args.runs, args.seed, datadir)
    log("running Q1-Q12 (%d runs each%s) ..." % (args.runs, "" if args.check_only else " after a warm-up"))
    times, prints = run_queries(conn, systems, params, n, datadir, args.check_only)
    bad = cross_check(prints, systems)
    log("whole objects: extraction and per-object fetch ...")
    whole, bad_whole = run_whole_objects(conn, systems, params, args.check_only)
    bad += bad_whole
    log("admin functions ...")
    admin, bad_admin = run_admin(conn, systems, args.check_only)
    bad += bad_admin
    # drop what we loaded: benchmark data is large
    with conn.cursor() as cur:
        cur.execute("SELECT argo_drop_collection('nb3', true), argo_drop_collection('nb1', true)")
        if shards:
            cur.execute("SELECT argo_drop_collection('nbs', true)")
        cur.execute("DROP TABLE IF EXISTS nb_gin, nb_tuned")
    conn.close()
    if bad:
        log("FAIL: the systems disagree:")
        for b in bad:
            log("  " + b)
        return 1
    log("cross-check: all %d systems returned the same results for %d queries x %d parameter sets"
        % (len(systems), len(QUERIES), args.runs))
    log("  rows per run: " + ", ".join(
        "%s %s" % (q, "/".join(str(next(iter(fp.values()))[0]) for fp in prints[q][:4]))
        for q in QUERIES))
    if args.check_only:
        log("nobench check: %d passed, 0 failed" % (len(QUERIES) * args.runs + 1))
        return 0
    report, res, gms = build_report(n, args.runs, loads, times, info, systems)
    report += "\n".join(whole_objects_report(whole, systems) + admin_report(admin)) + "\n"
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, "report-%d" % n)
    write_report(base, report, {"scale": n, "info": info, "loads": loads, "times": times,
                                "trimmed": res, "geomeans": gms, "whole_objects": whole,
                                "admin": admin},
                 "NoBench, %s objects: Argo vs PostgreSQL jsonb" % format(n, ","),
                 QUERIES, res, systems)
    return 0


if __name__ == "__main__":
    sys.exit(main())
