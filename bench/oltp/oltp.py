"""OLTP workloads under many clients: YCSB A-F, BG's social-network actions and the key-value batch curve, on Argo/3, Argo/1, jsonb+GIN and jsonb with expression indexes.

Every workload is a set of pgbench custom scripts (scripts/argo for both
Argo formats, scripts/jsonb for both jsonb systems) run by pgbench itself
(-M prepared) with the same settings for every system.  This driver only
loads the data, fills in the scripts' placeholders, runs pgbench and
reads its per-transaction logs for the percentiles.

Placeholders in the scripts:
  {ycsb} {members} {resources}  the system's collection or table
  --@zipf                       YCSB's Zipfian generator (theta 0.99) as
                                pgbench expressions, scrambled with permute()
  @eq(field, expr)              jsonb only: the document's field equals the
                                jsonb expr; GIN: doc @> {field: expr},
                                tuned: doc->'field' = expr (B-tree index)
  {batch} {placeholders}        batch scripts: documents per statement

Before timing, a deterministic write script (one client, fixed seed) runs
on a small copy in every system, and the final documents must be equal.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import FINGERPRINT, log, machine_info, prewarm  # noqa: E402
import bulk  # noqa: E402

SYSTEMS = ["argo3", "argo1", "gin", "tuned"]
SHARDS = None   # --shards: the servers argo3s is distributed over

# pgbench reads the zipfian rank r (0 = most popular) and the key k.
ZIPF = "\n".join([
    r"\set u random(0, 999999999) / 1000000000.0",
    r"\set r least(:n - 1, case when :u * :zetan < 1.0 then 0 when :u * :zetan < :zeta2 then 1"
    r" else int(:n * pow(:eta * :u - :eta + 1.0, :alpha)) end)",
    r"\set k permute(:r, :n, 7)",
])

YCSB = {
    "ycsb-a": [("ycsb_read", 50), ("ycsb_update", 50)],
    "ycsb-b": [("ycsb_read", 95), ("ycsb_update", 5)],
    "ycsb-c": [("ycsb_read", 100)],
    "ycsb-d": [("ycsb_read_latest", 95), ("ycsb_insert", 5)],
    "ycsb-e": [("ycsb_scan", 95), ("ycsb_insert", 5)],
    "ycsb-f": [("ycsb_read", 50), ("ycsb_rmw", 50)],
    "update": [("ycsb_update", 100)],
}

# BG's mixes, weights per 10,000 actions.
BG_ACTIONS = ["bg_view_profile", "bg_list_friends", "bg_view_friend_requests",
              "bg_invite_friend", "bg_accept_friend", "bg_reject_friend",
              "bg_thaw_friendship", "bg_view_top_resources", "bg_view_comments"]
BG = {
    "bg-0.1%": [4000, 500, 500, 4, 2, 3, 1, 4000, 990],
    "bg-1%": [4000, 500, 500, 40, 20, 30, 10, 4000, 900],
    "bg-10%": [3500, 500, 500, 400, 200, 300, 100, 3500, 1000],
}
SLA_MS = 100.0

BATCHES = [1, 10, 100, 1000, 10000]


def zipf_defines(n, theta=0.99):
    """YCSB's ZipfianGenerator constants for n items."""
    zetan = sum(1.0 / (i ** theta) for i in range(1, n + 1))
    zeta2 = 1.0 + 0.5 ** theta
    eta = (1.0 - (2.0 / n) ** (1.0 - theta)) / (1.0 - zeta2 / zetan)
    return {"n": n, "zetan": repr(zetan), "zeta2": repr(zeta2), "eta": repr(eta),
            "alpha": repr(1.0 / (1.0 - theta))}


def names(system, prefix=""):
    if system.startswith("argo"):
        f = system[-1]
        return {"ycsb": prefix + "ycsb" + f, "members": prefix + "bgm" + f,
                "resources": prefix + "bgr" + f}
    return {"ycsb": prefix + "ycsb_" + system, "members": prefix + "bgm_" + system,
            "resources": prefix + "bgr_" + system}


def kind(system):
    return "argo" if system.startswith("argo") else "jsonb"


def expand_eq(text, system):
    """@eq(field, expr) -> the system's way of matching a field."""
    out = []
    while True:
        i = text.find("@eq(")
        if i < 0:
            return "".join(out) + text
        out.append(text[:i])
        depth, j = 1, i + 4
        while depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        field, expr = (s.strip() for s in text[i + 4:j - 1].split(",", 1))
        alias = ""
        if "." in field:
            alias, field = field.split(".")
            alias += "."
        if system == "gin":
            out.append("%sdoc @> jsonb_build_object('%s', %s)" % (alias, field, expr))
        else:
            out.append("%sdoc->'%s' = %s" % (alias, field, expr))
        text = text[j:]


def script(tmp, system, name, tables, batch=None):
    """The system's copy of a script, placeholders filled in; its path."""
    with open(os.path.join(HERE, "scripts", kind(system), name + ".sql")) as f:
        text = f.read()
    text = text.replace("--@zipf", ZIPF)
    for k, v in tables.items():
        text = text.replace("{%s}" % k, v)
    if batch is not None:
        text = text.replace("{batch}", str(batch)).replace(
            "{placeholders}", ", ".join("$%d" % i for i in range(1, batch + 1)))
    if kind(system) == "jsonb":
        text = expand_eq(text, system)
    path = os.path.join(tmp, "%s-%s%s.sql" % (system, name, "" if batch is None else "-%d" % batch))
    with open(path, "w") as f:
        f.write(text)
    return path


# ---------- loading ----------

def load(cur, system, tables, records, members, per_member):
    """Load YCSB records and BG members and resources; seconds taken."""
    n_res = members * per_member
    gens = {
        "ycsb": "SELECT ycsb_doc(i) FROM generate_series(0, %d) i" % (records - 1),
        "members": "SELECT bg_member(i, %d) FROM generate_series(0, %d) i" % (members, members - 1),
        "resources": "SELECT bg_resource(r, %d) FROM generate_series(0, %d) r" % (members, n_res - 1),
    }
    t0 = time.time()
    for what, gen in gens.items():
        name = tables[what]
        if system == "argo3s":
            cur.execute("SELECT argo_drop_collection(%s, true)", (name,))
            cur.execute("SELECT argo_create_distributed_collection(%s, %s, 'argo3')", (name, SHARDS))
            cur.execute("SELECT argo_load(%s, %s)", (name, gen))
            continue
        if system.startswith("argo"):
            cur.execute("SELECT argo_drop_collection(%s, true)", (name,))
            cur.execute("SELECT argo_create_collection(%s, %s)", (name, system))
            cur.execute("SELECT argo_load(%s, %s)", (name, gen))
            cur.execute("SELECT argo_analyze(%s)", (name,))
            continue
        cur.execute("DROP TABLE IF EXISTS %s" % name)
        cur.execute("CREATE TABLE %s (id bigserial PRIMARY KEY, doc jsonb NOT NULL)" % name)
        cur.execute("INSERT INTO %s (doc) %s" % (name, gen))
        if system == "gin":
            cur.execute("CREATE INDEX ON %s USING gin (doc)" % name)
        else:
            for cols in {"ycsb": ["doc->'key'"], "members": ["doc->'userid'"],
                         "resources": ["doc->'rid'", "(doc->'walluserid'), (doc->'rid')"]}[what]:
                cur.execute("CREATE INDEX ON %s ((%s))" % (name, cols) if "," not in cols
                            else "CREATE INDEX ON %s (%s)" % (name, cols))
        cur.execute("VACUUM ANALYZE %s" % name)
    return time.time() - t0


def drop(cur, system, tables):
    for name in tables.values():
        if system.startswith("argo"):
            cur.execute("SELECT argo_drop_collection(%s, true)", (name,))
        else:
            cur.execute("DROP TABLE IF EXISTS %s" % name)


def documents_sql(system, name):
    if system.startswith("argo"):
        return "SELECT x FROM argo_query('SELECT * FROM %s') x" % name
    return "SELECT doc FROM %s" % name


# ---------- pgbench ----------

def pgbench(scripts, clients, defines, seconds=None, transactions=None, seed=1):
    """Run pgbench; tps, latency percentiles (ms), failures and retries."""
    tmp = tempfile.mkdtemp(prefix="argo-oltp-log-")
    cmd = ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(clients, 8)),
           "--random-seed", str(seed), "--max-tries", "10",
           "--log", "--log-prefix", os.path.join(tmp, "tx")]
    cmd += ["-T", str(seconds)] if seconds else ["-t", str(transactions)]
    for path, weight in scripts:
        cmd += ["-f", "%s@%d" % (path, weight)]
    for k, v in defines.items():
        cmd += ["-D", "%s=%s" % (k, v)]
    cmd.append(os.environ.get("PGDATABASE", "postgres"))
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        shutil.rmtree(tmp)
        raise RuntimeError("pgbench failed:\n" + p.stdout[-2000:] + p.stderr[-2000:])
    lat = []
    for f in glob.glob(os.path.join(tmp, "tx*")):
        with open(f) as fh:
            for line in fh:
                parts = line.split()
                if len(parts) > 2 and parts[2].isdigit():
                    lat.append(int(parts[2]) / 1000.0)
    shutil.rmtree(tmp)
    lat.sort()

    def pct(q):
        return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")

    def count(label):
        m = re.search(r"%s: (\d+)" % label, p.stdout)
        return int(m.group(1)) if m else 0

    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", p.stdout)
    return {"tps": float(m.group(1)) if m else float("nan"), "p50": pct(0.50), "p95": pct(0.95),
            "p99": pct(0.99), "transactions": len(lat),
            "failed": count("number of failed transactions"),
            "retried": count("number of transactions retried")}


# ---------- the deterministic write check ----------

def check(cur, systems, tmp, seed):
    """The same writes (one client, fixed seed) must leave equal documents."""
    records, members = 1000, 200
    prints = {}
    for s in systems:
        t = names(s, "chk_")
        load(cur, s, t, records, members, 2)
        ycsb = [(script(tmp, s, "ycsb_update", t), 60), (script(tmp, s, "ycsb_insert", t), 20),
                (script(tmp, s, "ycsb_rmw", t), 20)]
        pgbench(ycsb, 1, dict(zipf_defines(records), base=1000000000, ins=0), transactions=400, seed=seed)
        bg = [(script(tmp, s, a, t), 1) for a in BG_ACTIONS[3:7]]
        pgbench(bg, 1, dict(zipf_defines(members), nres=members * 2), transactions=400, seed=seed)
        prints[s] = []
        for what in ("ycsb", "members"):
            cur.execute(FINGERPRINT % documents_sql(s, t[what]))
            prints[s].append(tuple(str(v) for v in cur.fetchone()))
        drop(cur, s, t)
    first = systems[0]
    bad = [s for s in systems if prints[s] != prints[first]]
    for s in systems:
        log("  %-6s documents after the write script: %s" % (s, prints[s]))
    return bad


# ---------- timed runs ----------

def run_ycsb(tables, tmp, systems, records, clients, seconds, seed):
    res = {}
    run_no = 0
    for w, mix in YCSB.items():
        res[w] = {}
        for c in clients:
            res[w][c] = {}
            for s in systems:
                run_no += 1
                scripts = [(script(tmp, s, name, tables[s]), weight) for name, weight in mix]
                d = dict(zipf_defines(records), base=1000000000 + run_no * 10000000, ins=0)
                r = pgbench(scripts, c, d, seconds=seconds, seed=seed)
                res[w][c][s] = r
                log("  %-8s %3d clients %-6s %9.0f tps  p95 %7.2f ms" % (w, c, s, r["tps"], r["p95"]))
    return res


def run_bg(tables, tmp, systems, members, per_member, clients, seconds, seed):
    res = {}
    for mix, weights in BG.items():
        res[mix] = {}
        for s in systems:
            res[mix][s] = {}
            scripts = [(script(tmp, s, a, tables[s]), w) for a, w in zip(BG_ACTIONS, weights) if w]
            for c in clients:
                d = dict(zipf_defines(members), nres=members * per_member)
                r = pgbench(scripts, c, d, seconds=seconds, seed=seed)
                res[mix][s][c] = r
                log("  %-8s %3d clients %-6s %9.0f actions/s  p95 %7.2f ms  failed %d  retried %d"
                    % (mix, c, s, r["tps"], r["p95"], r["failed"], r["retried"]))
                if r["p95"] > SLA_MS:
                    break
    return res


def soar(runs):
    """Highest actions/s at which 95% of actions finish within 100 ms."""
    ok = [r["tps"] for r in runs.values() if r["p95"] <= SLA_MS]
    return max(ok) if ok else 0.0


def run_batches(tables, tmp, systems, seed):
    res = {}
    for i, b in enumerate(BATCHES):
        res[b] = {}
        n_tx = max(2, min(2000, 20000 // b))
        for s in systems:
            d = {"base": 9000000000 + i * 100000000, "b": 0}
            ins = pgbench([(script(tmp, s, "batch_insert", tables[s], b), 1)], 1, d,
                          transactions=n_tx, seed=seed)
            dele = pgbench([(script(tmp, s, "batch_delete", tables[s], b), 1)], 1, d,
                           transactions=n_tx, seed=seed)
            res[b][s] = {"insert_docs_s": ins["tps"] * b, "delete_docs_s": dele["tps"] * b,
                         "insert_p95_ms": ins["p95"], "delete_p95_ms": dele["p95"]}
            log("  batch %5d %-6s insert %9.0f docs/s  delete %9.0f docs/s"
                % (b, s, ins["tps"] * b, dele["tps"] * b))
    return res


# ---------- report ----------

def ratio(a, b):
    return a / b if b else float("nan")


def report(info, args, systems, loads, ycsb, bg, batches, bulks):
    L = []
    L.append("# OLTP workloads: %d YCSB records, %d BG members (%s)\n"
             % (args.records, args.members, info["date"]))
    L.append("PostgreSQL %s; %d cores (%s), %.0f GiB; settings %s, the same for every system; "
             "pgbench -M prepared, %d s per point, per-transaction logs for the percentiles. "
             "Zipfian keys: YCSB's generator (theta 0.99) written as pgbench expressions and "
             "scrambled with permute().\n"
             % (info["postgresql"], info["cores"], info["cpu"], info["memory_gib"],
                ", ".join("%s=%s" % kv for kv in sorted(info["settings"].items())), args.time))
    L.append("Load (YCSB + BG, seconds): " + ", ".join("%s %.1f" % (s, loads[s]) for s in systems) + "\n")
    L.append("## YCSB and point operations (tps; p95 ms)\n")
    head = "| workload | clients | " + " | ".join(systems)
    head += " | Argo/3 / tuned | Argo/3 / GIN |" if {"argo3", "tuned", "gin"} <= set(systems) else " |"
    L.append(head)
    L.append("|" + "---|" * (head.count("|") - 1))
    for w, per_c in ycsb.items():
        for c, per_s in per_c.items():
            row = "| %s | %d | " % (w, c) + " | ".join(
                "%.0f (%.1f)" % (per_s[s]["tps"], per_s[s]["p95"]) for s in systems)
            if {"argo3", "tuned", "gin"} <= set(systems):
                row += " | %.2f | %.2f |" % (ratio(per_s["argo3"]["tps"], per_s["tuned"]["tps"]),
                                            ratio(per_s["argo3"]["tps"], per_s["gin"]["tps"]))
            else:
                row += " |"
            L.append(row)
    L.append("\n`update` is YCSB's update alone (one field of one record); `ycsb-c` the point read.\n")
    L.append("## BG (actions/s and p95 ms per client count; SoAR: the most actions/s with p95 <= %d ms)\n" % SLA_MS)
    L.append("| mix | system | " + " | ".join("%d clients" % c for c in args.bg_clients) + " | SoAR | failed | retried |")
    L.append("|" + "---|" * (len(args.bg_clients) + 5))
    for mix, per_s in bg.items():
        for s in systems:
            runs = per_s[s]
            cells = ["%.0f (%.1f)" % (runs[c]["tps"], runs[c]["p95"]) if c in runs else "-"
                     for c in args.bg_clients]
            L.append("| %s | %s | %s | %.0f | %d | %d |" % (
                mix, s, " | ".join(cells), soar(runs),
                sum(r["failed"] for r in runs.values()), sum(r["retried"] for r in runs.values())))
    L.append("\n## Batches from one client (documents per second)\n")
    L.append("| batch | " + " | ".join("%s insert | %s delete" % (s, s) for s in systems) + " |")
    L.append("|" + "---|" * (2 * len(systems) + 1))
    for b, per_s in batches.items():
        L.append("| %d | " % b + " | ".join("%.0f | %.0f" % (per_s[s]["insert_docs_s"], per_s[s]["delete_docs_s"])
                                            for s in systems) + " |")
    if bulks:
        L.append(bulk.report(bulks))
    return "\n".join(L) + "\n"


def plot(path, ycsb, bg, batches, systems):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = list(ycsb) + list(bg) + (["batch insert"] if batches else [])
    if not panels:
        return              # --parts bulk alone: its table is the report
    cols = 4
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows))
    for ax, p in zip(axes.flat, panels):
        for s in systems:
            if p in ycsb:
                xs = list(ycsb[p])
                ys = [ycsb[p][c][s]["tps"] for c in xs]
            elif p in bg:
                xs = list(bg[p][s])
                ys = [bg[p][s][c]["tps"] for c in xs]
            else:
                xs = list(batches)
                ys = [batches[b][s]["insert_docs_s"] for b in xs]
            ax.plot(xs, ys, marker="o", label=s)
        ax.set_xscale("log", base=10 if p == "batch insert" else 2)
        ax.set_title(p)
        ax.set_xlabel("documents per statement" if p == "batch insert" else "clients")
        ax.set_ylabel("documents/s" if p == "batch insert" else "tps")
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    axes.flat[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=100000, help="YCSB records")
    ap.add_argument("--members", type=int, default=10000, help="BG members")
    ap.add_argument("--resources-per-member", type=int, default=10)
    ap.add_argument("--time", type=int, default=10, help="seconds per pgbench run")
    ap.add_argument("--clients", default="1,8,32")
    ap.add_argument("--bg-clients", default="1,4,16,64")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "results"))
    ap.add_argument("--parts", default="ycsb,bg,batch,bulk", help="which workloads to time")
    ap.add_argument("--shards", default=None,
                    help="postgres_fdw servers: adds argo3s, Argo/3 distributed over them")
    ap.add_argument("--check-only", action="store_true",
                    help="only the deterministic write check (as CI runs it)")
    args = ap.parse_args()
    systems = args.systems.split(",")
    if args.shards:
        global SHARDS
        SHARDS = args.shards.split(",")
        systems.append("argo3s")
    unknown = [s for s in systems if s not in SYSTEMS + ["argo3s"]]
    if unknown:
        ap.error("unknown system(s) %s; the systems are %s" % (", ".join(unknown), ",".join(SYSTEMS)))
    args.clients = [int(c) for c in args.clients.split(",")]
    args.bg_clients = [int(c) for c in args.bg_clients.split(",")]
    tmp = tempfile.mkdtemp(prefix="argo-oltp-")
    conn = psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS argo")
        cur.execute("SELECT to_regprocedure('ycsb_doc(bigint)') IS NULL")
        if cur.fetchone()[0]:
            with open(os.path.join(HERE, "setup.sql")) as f:
                cur.execute(f.read())
        info = machine_info(conn)
        log("deterministic write check ...")
        bad = check(cur, systems, tmp, args.seed)
        if bad:
            log("FAIL: documents differ after the same writes: " + ", ".join(bad))
            return 1
        log("oltp check: the %d systems' documents are equal after the write script" % len(systems))
        if args.check_only:
            return 0
        tables = {s: names(s) for s in systems}
        loads = {}
        for s in systems:
            log("loading %s ..." % s)
            loads[s] = load(cur, s, tables[s], args.records, args.members, args.resources_per_member)
        # every system's tables vacuumed alike: no autovacuum of a fresh
        # load in the middle of a timed run
        cur.execute("VACUUM ANALYZE")
        cur.execute("CHECKPOINT")
        prewarm(cur)
    parts = args.parts.split(",")
    log("YCSB ...")
    ycsb = run_ycsb(tables, tmp, systems, args.records, args.clients, args.time, args.seed) \
        if "ycsb" in parts else {}
    log("BG ...")
    bg = run_bg(tables, tmp, systems, args.members, args.resources_per_member,
                args.bg_clients, args.time, args.seed) if "bg" in parts else {}
    log("batches ...")
    batches = run_batches(tables, tmp, systems, args.seed) if "batch" in parts else {}
    log("bulk inserts ...")
    bulks = bulk.run_bulk("dbname=" + os.environ.get("PGDATABASE", "postgres"), args.records, log) \
        if "bulk" in parts else {}
    with conn.cursor() as cur:
        for s in systems:
            drop(cur, s, tables[s])
    conn.close()
    shutil.rmtree(tmp)
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, "oltp-%d" % args.records)
    text = report(info, args, systems, loads, ycsb, bg, batches, bulks)
    with open(base + ".md", "w") as f:
        f.write(text)
    with open(base + ".json", "w") as f:
        json.dump({"info": info, "args": vars(args), "loads": loads, "ycsb": ycsb, "bg": bg,
                   "batches": batches, "bulk": bulks}, f, indent=1)
    plot(base + ".png", ycsb, bg, batches, systems)
    log("")
    log(text)
    log("report written to %s.md, .json and .png" % base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
