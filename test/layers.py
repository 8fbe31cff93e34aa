#!/usr/bin/env python3
"""The layers of src/ point one way, and no two files call each other.

Layers, lowest first: common, doc, store, parse, sql, exec, fn.
1. No file includes the header of a layer above its own.
2. No file calls a function of a layer above its own, and no files call
   each other in a ring (from the built objects' symbols: `nm`).
3. No header of ours has the path of one of PostgreSQL's (with -Isrc,
   "storage/x.h" would shadow the server's).
4. A header holds one concern: at most HEADER_LINES lines (the
   generated gram.h aside), and it includes no folder's headers
   wholesale — each file includes the headers it uses.

    python3 test/layers.py      (after make)
"""
import collections
import glob
import os
import re
import subprocess
import sys

LAYERS = ["common", "doc", "store", "parse", "sql", "exec", "fn", "backend"]
HEADER_LINES = 150
# bison's and flex's output, built from gram.y and scan.l
GENERATED = ("parse/gram.c", "parse/scan.c", "parse/gram.h")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
failures = []


def sources(pattern):
    """Files under src/<layer>/ and src/<layer>/<concern>/."""
    return (glob.glob(os.path.join(ROOT, "src", "*", pattern)) +
            glob.glob(os.path.join(ROOT, "src", "*", "*", pattern)))


def layer_of(path):
    return os.path.relpath(path, os.path.join(ROOT, "src")).split(os.sep)[0]


def includes():
    for path in sorted(sources("*.[chyl]")):
        mine = layer_of(path)
        if mine not in LAYERS or os.path.relpath(path, os.path.join(ROOT, "src")) in GENERATED:
            continue
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s+"(\w+)/', line)
            if m and m.group(1) in LAYERS and LAYERS.index(m.group(1)) > LAYERS.index(mine):
                failures.append("%s:%d includes %s, a layer above %s"
                                % (os.path.relpath(path, ROOT), n, line.strip(), mine))


def symbols():
    defs, uses = {}, collections.defaultdict(set)
    objs = sorted(sources("*.o"))
    if not objs:
        failures.append("no objects under src/: run make first")
        return
    for o in objs:
        name = os.path.relpath(o, os.path.join(ROOT, "src"))[:-2]
        for line in subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBR":
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                uses[name].add(p[1])
    graph = collections.defaultdict(set)
    for f, used in uses.items():
        for sym in used:
            g = defs.get(sym)
            if g is None or g == f:
                continue
            graph[f].add(g)
            lf, lg = f.split("/")[0], g.split("/")[0]
            if LAYERS.index(lg) > LAYERS.index(lf):
                failures.append("%s calls %s (%s), a layer above" % (f, sym, g))
    # rings: strongly connected components of more than one file (Tarjan)
    index, low, stack, on, rings = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                rings.append(sorted(comp))

    for v in sorted(set(graph) | set(defs.values())):
        if v not in index:
            visit(v)
    for r in rings:
        failures.append("files call each other in a ring: %s" % ", ".join(r))
    return len(defs), sum(len(v) for v in graph.values())


def shadows():
    server = subprocess.run(["pg_config", "--includedir-server"], capture_output=True, text=True).stdout.strip()
    for h in sources("*.h"):
        rel = os.path.relpath(h, os.path.join(ROOT, "src"))
        if server and os.path.exists(os.path.join(server, rel)):
            failures.append("src/%s has the path of PostgreSQL's own header %s" % (rel, rel))


def header_sizes():
    for h in sorted(sources("*.h")):
        if os.path.basename(h) == "gram.h":
            continue
        n = sum(1 for _ in open(h, encoding="utf-8"))
        if n > HEADER_LINES:
            failures.append("%s has %d lines: more than one concern? (at most %d)"
                            % (os.path.relpath(h, ROOT), n, HEADER_LINES))


# What argo.so may export (Makefile's argo.map): PostgreSQL's lookups by name
ENTRY_POINTS = {"Pg_magic_func", "_PG_init", "_PG_output_plugin_init",
                "argo_expire_launcher", "argo_expire_database"}


def exports():
    """argo.so exports the SQL-callable functions (those of argo.sql, with
    their info functions) and the entry points PostgreSQL looks up by
    name, nothing else: another library's symbol of the same name loaded
    into the backend must not collide with ours."""
    so = os.path.join(ROOT, "argo.so")
    if not os.path.exists(so):
        failures.append("no argo.so: run make first")
        return
    sql = open(os.path.join(ROOT, "src", "argo.sql"), encoding="utf-8").read()
    callable_ = set(re.findall(r"'MODULE_PATHNAME', '([A-Za-z0-9_]+)'", sql))
    allowed = ENTRY_POINTS | callable_ | {"pg_finfo_" + f for f in callable_}
    out = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[2] not in allowed:
            failures.append("argo.so exports %s, which PostgreSQL never looks up by name" % p[2])


def main():
    includes()
    counted = symbols()
    shadows()
    header_sizes()
    exports()
    for f in failures:
        print("FAIL " + f)
    if counted:
        print("layers: %d functions, %d file-to-file calls, %d problems" % (counted[0], counted[1], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
