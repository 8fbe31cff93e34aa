"""What the benchmark drivers share: result fingerprints, trimmed means,
the machine's description, the report's plot."""
import datetime
import json
import math
import os
import platform
import statistics

# Fingerprint of a result: rows, and the sum of 64-bit hashes of their text.
# Order-insensitive: systems may return a multiset in any order.
FINGERPRINT = ("SELECT count(*), coalesce(sum(hashtextextended(x::text, 0)::numeric), 0) "
               "FROM (%s) r(x)")


def log(msg):
    print(msg, flush=True)


def parse_systems(ap, text, known):
    """--systems as a list; a name that is not a system is the caller's
    error (a typo once ran jsonb_gin twice and called one of them tuned)."""
    systems = [s for s in text.split(",") if s]
    unknown = [s for s in systems if s not in known]
    if unknown or not systems:
        ap.error("--systems: unknown %s (the systems are %s)" % (", ".join(unknown) or "(none given)",
                                                                 ", ".join(known)))
    return systems


def trimmed(ts):
    """Mean of the runs without the fastest and slowest, and its CV."""
    s = sorted(ts)
    core = s[1:-1] if len(s) > 2 else s
    mean = statistics.mean(core)
    cv = statistics.pstdev(core) / mean if mean > 0 and len(core) > 1 else 0.0
    return mean, cv


def geomean(xs):
    xs = [x for x in xs if x > 0 and not math.isnan(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def machine_info(conn):
    with conn.cursor() as cur:
        cur.execute("SHOW server_version")
        version = cur.fetchone()[0]
        cur.execute("SELECT name, current_setting(name) FROM pg_settings WHERE name IN "
                    "('shared_buffers', 'work_mem', 'maintenance_work_mem', 'effective_cache_size', 'jit')")
        settings = dict(cur.fetchall())
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"postgresql": version, "cpu": cpu, "cores": os.cpu_count(),
            "memory_gib": round(mem, 1), "settings": settings,
            "date": datetime.date.today().isoformat()}


def describe(info, runs):
    """The report's line on date, server, machine, settings and method."""
    return ("%s; PostgreSQL %s; %d cores (%s), %.0f GiB; settings %s (the same for all systems; "
            "Argo's functions run with jit off); %d timed runs per query, fastest and slowest dropped."
            % (info["date"], info["postgresql"], info["cores"], info["cpu"], info["memory_gib"],
               ", ".join("%s=%s" % kv for kv in sorted(info["settings"].items())), runs))


def plot(path, title, cases, res, systems):
    """Bars per case and system, log scale; res[case][system] = (mean, cv)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(max(12, len(cases) * 0.45), 5))
    w = 0.8 / len(systems)
    for i, s in enumerate(systems):
        ax.bar([j + i * w for j in range(len(cases))],
               [res[c][s][0] if s in res[c] else 0 for c in cases], w, label=s)
    ax.set_xticks([j + w * (len(systems) - 1) / 2 for j in range(len(cases))])
    ax.set_xticklabels(cases, rotation=60 if len(cases) > 12 else 0, ha="right" if len(cases) > 12 else "center")
    ax.set_yscale("log")
    ax.set_ylabel("seconds (log scale, lower is better)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def write_report(base, report, data, title, cases, res, systems):
    """base.md, base.json and base.png; the report also to stdout."""
    with open(base + ".md", "w") as f:
        f.write(report)
    with open(base + ".json", "w") as f:
        json.dump(data, f, indent=1)
    plot(base + ".png", title, cases, res, systems)
    log("")
    log(report)
    log("report written to %s.md, .json and .png" % base)


def prewarm(cur):
    """Every table and index of the database into shared buffers, all alike.

    A bulk load writes through a small ring of buffers and an index build
    past them, so without this a system's first timed runs read its pages
    from the kernel, the more so the more pages it has (Argo/3's first
    one-field updates ran at half their warm rate).
    """
    cur.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
    cur.execute("SELECT count(pg_prewarm(c.oid)) FROM pg_class c "
                "WHERE c.oid >= 16384 AND c.relkind IN ('r', 'i', 't', 'm') "
                "AND c.relpersistence = 'p'")
