#!/usr/bin/env python3
"""The documentation's SQL examples, run as written, in order, on a fresh database.

Every ```sql block of README.md and then of docs/*.md (in the order of
DOCS) is split into statements (a statement
ends with a line whose code ends in ';').  The `-- ` comment lines right
after a statement are what it prints: its rows as psql prints them
unaligned without headers (`psql -At`, columns separated by ' | ', spaces
around the bars ignored), or `ERROR:  …` for an error.  A statement with
no such lines must simply succeed.  Blocks fenced otherwise (```text,
```python, ```sh) are not run.

    PGDATABASE=… python3 test/readme.py [file.md …]

Creates and drops its own database (argo_readme) and the roles the
examples create.  A file of docs/ missing from DOCS is an error: every
page's examples run.
"""
import os
import re
import subprocess
import sys

DB = "argo_readme"
MARK = "@@argo-readme@@"
HERE = os.path.dirname(os.path.abspath(__file__))
# the order the examples build on each other: README's collections first
DOCS = ["README.md", "docs/reference.md", "docs/functions.md", "docs/operations.md",
        "docs/distributed.md", "docs/feed.md", "docs/performance.md", "docs/design.md",
        "docs/development.md"]


def blocks(text):
    """The ```sql blocks of a Markdown text, as (first line number, lines)."""
    out, cur, start = [], None, 0
    for n, line in enumerate(text.splitlines(), 1):
        if cur is None and line.strip() == "```sql":
            cur, start = [], n + 1
        elif cur is not None and line.strip() == "```":
            out.append((start, cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def code_part(line):
    """The line without a trailing -- comment (outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif line.startswith("--", i):
            return line[:i]
    return line


def statements(start, lines, path="README.md"):
    """(place, statement, expected output lines or None)."""
    out, cur, first, i = [], [], None, 0
    while i < len(lines):
        line = lines[i]
        if not cur and (not line.strip() or line.lstrip().startswith("--")):
            i += 1
            continue
        if not cur:
            first = start + i
        cur.append(line)
        i += 1
        if code_part(line).rstrip().endswith(";"):
            expected = []
            while i < len(lines) and lines[i].startswith("-- "):
                expected.append(lines[i][3:])
                i += 1
            out.append(("%s line %d" % (path, first), "\n".join(cur), expected or None))
            cur = []
    if cur:
        raise SystemExit("%s line %d: a statement without its ';'" % (path, first))
    return out


def normal(row):
    return " | ".join(f.strip() for f in row.split("|")) if not row.startswith("ERROR") else row.strip()


def psql(*args, **kw):
    env = dict(os.environ, PGDATABASE=kw.pop("db", os.environ.get("PGDATABASE", "postgres")))
    return subprocess.run(["psql", "-X", "-q"] + list(args), env=env, text=True,
                          capture_output=True, **kw)


def main():
    root = os.path.dirname(HERE)
    paths = sys.argv[1:] or DOCS
    if not sys.argv[1:]:
        pages = sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
        missing = [p for p in pages if p not in DOCS]
        if missing:
            raise SystemExit("readme: pages not in test/readme.py's DOCS: %s" % ", ".join(missing))
    stmts = []
    for path in paths:
        with open(os.path.join(root, path) if not os.path.isabs(path) else path) as f:
            stmts += [s for b in blocks(f.read()) for s in statements(*b, path=path)]
    roles = sorted(set(re.findall(r"CREATE ROLE (\w+)", "\n".join(s for _, s, _ in stmts))))
    cleanup = ["DROP DATABASE IF EXISTS %s" % DB] + ["DROP ROLE IF EXISTS %s" % r for r in roles]
    for c in cleanup:
        psql("-c", c)
    psql("-c", "CREATE DATABASE %s" % DB, check=True)
    script = []
    for n, (_, sql, _) in enumerate(stmts):
        script.append("\\echo %s %d" % (MARK, n))
        script.append(sql)
    run = psql("-A", "-t", "-F", " | ", "-v", "VERBOSITY=terse", "-f", "-", db=DB,
               input="\n".join(script) + "\n")
    # stdout and stderr are two streams: split each by the markers on stdout,
    # and give errors to the statement running when they were printed
    outputs = {}
    current = None
    for line in run.stdout.splitlines():
        if line.startswith(MARK):
            current = int(line.split()[1])
            outputs[current] = []
        elif current is not None:
            outputs[current].append(line)
    errors = re.findall(r"psql:<stdin>:(\d+): (ERROR:.*)", run.stderr)
    line_of = []
    n_line = 0
    for n, (_, sql, _) in enumerate(stmts):
        n_line += 1
        line_of.append((n_line + 1, n_line + sql.count("\n") + 1, n))
        n_line += sql.count("\n") + 1
    for at, msg in errors:
        for lo, hi, n in line_of:
            if lo <= int(at) <= hi:
                outputs.setdefault(n, []).append(msg)
    failed = 0
    for n, (line, sql, expected) in enumerate(stmts):
        got = [normal(r) for r in outputs.get(n, [])]
        want = None if expected is None else [normal(r) for r in expected]
        is_error = any(g.startswith("ERROR") for g in got)
        ok = (not is_error) if want is None else got == want
        if not ok:
            failed += 1
            print("FAIL %s: %s" % (line, sql.splitlines()[0][:80]))
            print("     the page shows: %s" % (want if want is not None else "(success)"))
            print("     psql printed: %s" % got)
    for c in cleanup:
        psql("-c", c)
    print("readme: %d statements in %d pages, %d failed" % (len(stmts), len(paths), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
