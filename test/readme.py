#!/usr/bin/env python3
"""The README's SQL examples, run as written, in order, on a fresh database.

Every ```sql block of README.md is split into statements (a statement
ends with a line whose code ends in ';').  The `-- ` comment lines right
after a statement are what it prints: its rows as psql prints them
unaligned without headers (`psql -At`, columns separated by ' | ', spaces
around the bars ignored), or `ERROR:  …` for an error.  A statement with
no such lines must simply succeed.  Blocks fenced otherwise (```text,
```python, ```sh) are not run.

    PGDATABASE=… python3 test/readme.py [README.md]

Creates and drops its own database (argo_readme) and the roles the
README creates.
"""
import os
import re
import subprocess
import sys

DB = "argo_readme"
MARK = "@@argo-readme@@"


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


def statements(start, lines):
    """(line number, statement, expected output lines or None)."""
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
            out.append((first, "\n".join(cur), expected or None))
            cur = []
    if cur:
        raise SystemExit("README line %d: a statement without its ';'" % first)
    return out


def normal(row):
    return " | ".join(f.strip() for f in row.split("|")) if not row.startswith("ERROR") else row.strip()


def psql(*args, **kw):
    env = dict(os.environ, PGDATABASE=kw.pop("db", os.environ.get("PGDATABASE", "postgres")))
    return subprocess.run(["psql", "-X", "-q"] + list(args), env=env, text=True,
                          capture_output=True, **kw)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "README.md")
    with open(path) as f:
        stmts = [s for b in blocks(f.read()) for s in statements(*b)]
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
            print("FAIL README line %d: %s" % (line, sql.splitlines()[0][:80]))
            print("     README shows: %s" % (want if want is not None else "(success)"))
            print("     psql printed: %s" % got)
    for c in cleanup:
        psql("-c", c)
    print("readme: %d statements, %d failed" % (len(stmts), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
