#!/usr/bin/env python3
"""Mutation fuzzer for argo_query: the backend must survive every input.

Mutates valid Argo/SQL statements and JSON documents (byte flips, token
splices, truncation, duplication, hostile literals) and sends each to
argo_query through psycopg.  Every input must either succeed or fail with a
clean ERROR whose SQLSTATE is not XX000 (internal error) or a crash class;
the connection must never be lost.  Connects with libpq's PG* environment
(pg_virtualenv sets it).  Bounded in count and time; deterministic per seed.

    python3 test/fuzz.py [--count N] [--seconds S] [--seed K]
"""
import argparse
import random
import sys
import time

import psycopg

SEEDS = [
    "SELECT * FROM fz",
    "SELECT a, b.c, d[1] FROM fz WHERE a = 1",
    "SELECT * FROM fz WHERE a > 1 AND (b.c = 'x' OR NOT d[0] <= 2.5)",
    "SELECT * FROM fz WHERE a BETWEEN 1 AND 5 OR b.c NOT BETWEEN 'a' AND 'z'",
    "SELECT * FROM fz WHERE 'x' = ANY d OR 3 < ANY d",
    "SELECT * FROM fz WHERE EXISTS b AND a IS NOT NULL AND e IS NULL",
    "SELECT * FROM fz WHERE b.c LIKE 'x%' AND a NOT IN (1, 2, 'three')",
    "SELECT `a.b`.`c``d` FROM fz WHERE `select` = true",
    "SELECT * FROM fz WHERE a = $1 OR b.c = $2",
    'INSERT INTO fz OBJECT {"a": 1, "b": {"c": "x"}, "d": [1, "x", null, {}, []]}',
    'INSERT INTO fz OBJECT {"a": 2}, {"b": {"c": "y"}}',
    "DELETE FROM fz WHERE a = 99999",
    "SELECT * FROM fz WHERE \"str\\u00e9\" = b.c -- comment\n;",
    "SELECT a, b.c FROM fz WHERE a > 0 ORDER BY b.c DESC, a LIMIT 5 OFFSET 1",
    "SELECT COUNT(*) AS n, SUM(a), MIN(b.c), MAX(d[0]) FROM fz GROUP BY a ORDER BY a",
    "SELECT x.a, y.d FROM fz AS x INNER JOIN fz AS y ON (x.a = y.a) WHERE x.a = 1 OR y.b.c = 'x'",
    "SELECT * FROM fz AS x INNER JOIN fz AS y ON x.b.c = y.b.c INNER JOIN fz AS z ON (y.a = z.a)",
    'UPDATE fz SET b.c = "y", d[5] = {"k": [1]} UNSET e WHERE a = 1',
    "UPDATE fz UNSET nothing.here WHERE EXISTS a",
    'UPDATE fz SET a += 1, n -= 2.5, d APPEND {"k": 1}, d ADD "x", d REMOVE 1 WHERE ID() = 1',
    "UPSERT fz SET n += 1, t ADD $1 WHERE a = $2 AND b.c = 'x'",
    "INSERT INTO fz OBJECT {\"id\": 1, \"append\": [2]} RETURNING ID",
    "SELECT ID() FROM fz WHERE id IN $1 OR ID() NOT IN $2 ORDER BY append[0] LIMIT 3",
    "SELECT * FROM fz WHERE a >= $1 AND a < 10 ORDER BY a DESC LIMIT 2",
    "DELETE FROM fz WHERE ID() IN (1, 2) AND remove IS NULL",
]

HOSTILE = [
    "(" * 20000, ")" * 500, "NOT " * 5000, "$0", "$99", "$999999999999",
    "[99999999999999999999]", "[-1]", "1e999", "-0", "'", "`", '"', "\\",
    "\x00", "\u2603", "{", "[", "}", "]", "--", ";", "/*",
    "'; DROP TABLE argo_data.fz_str; --", "x" * 100000, "a." * 2000,
    "\"\\u0000\"", "\"\\ud800\"", "9" * 400, "LIMIT 99999999999999999999",
]

TOKENS = ["SELECT", "*", "FROM", "fz", "WHERE", "AND", "OR", "NOT", "(", ")",
          "=", "<>", "<", ">=", "LIKE", "BETWEEN", "IN", "ANY", "EXISTS", "IS",
          "NULL", "true", "false", "1", "2.5", "'s'", '"s"', "a", "b.c", "d[0]",
          ".", "[", "]", ",", "$1", "$2", "INSERT", "INTO", "OBJECT", "{}",
          "DELETE", "GROUP", "BY", "ORDER", "LIMIT", "OFFSET", "COUNT", "AS",
          "INNER", "JOIN", "ON", "UPDATE", "SET", "UNSET", "`k`", "+=", "-=",
          "APPEND", "ADD", "REMOVE", "UPSERT", "RETURNING", "ID", "ID()", "[1, 2]"]

# SQLSTATE classes that mean a bug rather than a rejected input.
BAD_STATES = {"XX000", "XX001", "XX002"}


def mutate(rng, text):
    ops = rng.randint(1, 4)
    for _ in range(ops):
        op = rng.randrange(7)
        pos = rng.randint(0, len(text))
        if op == 0 and text:                       # delete a span
            end = min(len(text), pos + rng.randint(1, 8))
            text = text[:pos] + text[end:]
        elif op == 1:                              # insert a token
            text = text[:pos] + " " + rng.choice(TOKENS) + " " + text[pos:]
        elif op == 2:                              # insert something hostile
            text = text[:pos] + rng.choice(HOSTILE) + text[pos:]
        elif op == 3 and text:                     # flip a character
            c = chr(rng.choice([0x20, 0x27, 0x22, 0x60, 0x5b, 0x5d, 0x7b, 0x7d,
                                0x24, 0x5c, rng.randint(1, 0x7e),
                                rng.randint(0x80, 0x2fff)]))
            text = text[:pos] + c + text[pos + 1:]
        elif op == 4:                              # truncate
            text = text[:pos]
        elif op == 5:                              # duplicate a span
            end = min(len(text), pos + rng.randint(1, 30))
            text = text[:pos] + text[pos:end] * rng.randint(2, 50) + text[pos:]
        else:                                      # splice another seed
            other = rng.choice(SEEDS)
            cut = rng.randint(0, len(other))
            text = text[:pos] + other[cut:]
    return text.replace("\x00", "")


def random_param(rng):
    return rng.choice(['1', '"s"', 'true', 'null', '[1]', '{"a": 1}',
                       '1e308', '"' + "\u00e9" * rng.randint(0, 50) + '"',
                       '"\\u0000"', '{"a": ' * 50 + '1' + '}' * 50])


def run_one(conn, query, params, raw=None):
    """Run a statement (or the raw SQL bytes); None on success, else the SQLSTATE."""
    try:
        with conn.cursor() as cur:
            if raw is not None:
                cur.execute(raw)
            else:
                cur.execute("SELECT count(*) FROM argo_query(%s, VARIADIC %s::jsonb[])",
                            (query, params), prepare=False)
            cur.fetchall()
        conn.commit()
        return None
    except psycopg.errors.DataError as e:       # e.g. \u0000 in our own text
        conn.rollback()
        return e.sqlstate or "22000"
    except psycopg.DatabaseError as e:
        if conn.closed or conn.broken:
            raise
        conn.rollback()
        return e.sqlstate


def fixed_cases():
    """The issue's named hostile inputs, each run once."""
    wide = "{" + ", ".join('"k%d": %d' % (i, i) for i in range(100000)) + "}"
    deep_obj = '{"a": ' * 10000 + "1" + "}" * 10000
    deep_arr = '{"a": ' + "[" * 10000 + "]" * 10000 + "}"
    big = '{"s": "' + "x" * (1 << 20) + '"}'
    return [
        ("INSERT INTO fz OBJECT " + wide, []),
        ("INSERT INTO fz OBJECT $1", [wide]),
        ("INSERT INTO fz OBJECT " + deep_obj, []),
        ("INSERT INTO fz OBJECT " + deep_arr, []),
        ("INSERT INTO fz OBJECT $1", [deep_arr]),
        ("INSERT INTO fz OBJECT " + big, []),
        ("SELECT * FROM fz WHERE s = $1", ['"' + "y" * (1 << 20) + '"']),
        ("SELECT * FROM fz WHERE a = $1", ['"\\u0000"']),
        ("SELECT * FROM fz WHERE " + "(" * 20000 + "a = 1" + ")" * 20000, []),
        ("SELECT * FROM fz WHERE a IN (" + ", ".join(str(i) for i in range(20000)) + ")", []),
        ("SELECT * FROM fz LIMIT 99999999999999999999", []),
        ("SELECT * FROM fz LIMIT 9223372036854775807 OFFSET 9223372036854775807", []),
        ("SELECT a[9223372036854775807] FROM fz", []),
        ("SELECT * FROM fz WHERE a = $0", ['1']),
        ("SELECT * FROM fz WHERE a = $99", ['1']),
        ("UPDATE fz SET a[99999999] = 1 WHERE a = $1", ['1']),
        ("UPDATE fz SET a += $1", ['1e308']),
        ("UPDATE fz SET a += $1", ['"x"']),
        ("UPDATE fz SET d APPEND $1", ['[' * 5000 + ']' * 5000]),
        ("SELECT * FROM fz WHERE ID() = $1", ['9223372036854775807']),
        ("SELECT * FROM fz WHERE ID() IN $1", ['[1e300, -1]']),
        ("SELECT * FROM fz WHERE a IN $1", ['[' + ", ".join(str(i) for i in range(100000)) + ']']),
        ("UPSERT fz SET a = 1 WHERE " + " AND ".join("k%d = %d" % (i, i) for i in range(2000)), []),
    ]


def full_size_cases():
    """Statements a document store takes in its stride: each must succeed
    (within the session's statement_timeout)."""
    nums = ", ".join(str(i) for i in range(-100000, 0))
    strs = ", ".join("'s%d'" % i for i in range(100000))
    return [
        ("SELECT * FROM fz WHERE a IN (" + nums + ")", []),
        ("SELECT * FROM fz WHERE b.c IN (" + strs + ")", []),
        ("SELECT * FROM fz WHERE a NOT IN (" + nums + ", " + strs + ")", []),
        ("DELETE FROM fz WHERE a IN (" + nums + ")", []),
        ("SELECT * FROM fz WHERE a IN (" + ", ".join("$%d" % i for i in range(1, 1001)) + ")",
         [str(i) for i in range(1000)]),
        ("SELECT * FROM fz WHERE " + " AND ".join("a != %d" % i for i in range(10000)), []),
        ("SELECT * FROM fz WHERE " + " AND ".join("k%d != -1" % i for i in range(10000)), []),
        ("SELECT * FROM fz WHERE " + " OR ".join("k%d = %d" % (i, i) for i in range(10000)), []),
        ("SELECT * FROM fz WHERE NOT (" + " OR ".join("a = %d" % i for i in range(10000)) + ")", []),
        ("SELECT " + ", ".join("k%d" % i for i in range(20000)) + ", a FROM fz WHERE a < 10", []),
    ]


def error_size(conn, query):
    """Bytes an error quotes (message, context, statement), or None if no error."""
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM argo_query(%s)", (query,), prepare=False)
        conn.commit()
        return None
    except psycopg.DatabaseError as e:
        conn.rollback()
        d = e.diag
        return sum(len(x or "") for x in (d.message_primary, d.message_detail,
                                           d.context, d.internal_query))


# Invalid UTF-8 in a parameter, sent as raw bytes: must be refused, cleanly.
INVALID_UTF8 = (b"SELECT count(*) FROM argo_query('SELECT * FROM fz WHERE a = $1', "
                b"convert_from('\\x22ff22'::bytea, 'UTF8')::jsonb)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--seconds", type=float, default=90)
    ap.add_argument("--seed", type=int, default=20261122)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    conn = psycopg.connect(dbname="postgres", autocommit=False)
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS argo")
        cur.execute("SET statement_timeout = '5s'")
        cur.execute("SELECT argo_drop_collection('fz', true)")
        cur.execute("""SELECT argo_query('INSERT INTO fz OBJECT $1', d)
                         FROM (VALUES ('{"a": 1, "b": {"c": "x"}, "d": [1, "x"]}'::jsonb),
                                      ('{"a": "s", "d": [], "e": null}')) v(d)""")
    conn.commit()

    states = {}
    failures = []
    start = time.monotonic()
    n = 0
    while n < args.count and time.monotonic() - start < args.seconds:
        query = mutate(rng, rng.choice(SEEDS))
        params = [random_param(rng) for _ in range(rng.randint(0, 3))]
        n += 1
        try:
            state = run_one(conn, query, params)
        except psycopg.OperationalError as e:
            print(f"FAIL connection lost on input {query[:200]!r}: {e}")
            return 1
        states[state or "ok"] = states.get(state or "ok", 0) + 1
        if state in BAD_STATES:
            failures.append((state, query[:200]))
    for query, params in fixed_cases():
        n += 1
        state = run_one(conn, query, params)
        states[state or "ok"] = states.get(state or "ok", 0) + 1
        if state in BAD_STATES:
            failures.append((state, query[:200]))
    for query, params in full_size_cases():
        n += 1
        state = run_one(conn, query, params)
        states[state or "ok"] = states.get(state or "ok", 0) + 1
        if state is not None:
            failures.append((state, "full size: " + query[:200]))
    # what must stay linear in the statement's size answers within a second:
    # a 20,000-path projection of an object fetched by id (its kept
    # document is cut to paths none of which may be inside another)
    paths = ", ".join("k%d" % i for i in range(20000))
    with conn.cursor() as cur:
        cur.execute("SET statement_timeout = '1s'")
    conn.commit()
    for query in ["SELECT count(*) FROM argo_explain('SELECT %s FROM fz WHERE ID() = 1')" % paths,
                  "SELECT count(*) FROM argo_query('SELECT %s FROM fz WHERE ID() = 1')" % paths]:
        n += 1
        state = run_one(conn, None, None, raw=query.encode())
        if state is not None:
            failures.append((state, "within 1 s: " + query[:200]))
    with conn.cursor() as cur:
        cur.execute("SET statement_timeout = '5s'")
    conn.commit()
    # an error in a long statement quotes a few kB of it, not all of it
    in_list = "a IN (" + ", ".join(str(i) for i in range(10000)) + ")"
    for query in ["SELECT * FROM fz WHERE " + in_list + " AND b.c LIKE 5 AND " + in_list,
                  "SELECT * FROM fz WHERE " + in_list + " AND",
                  "SELECT * FROM fz WHERE " + in_list + " AND $7 = a"]:
        n += 1
        size = error_size(conn, query)
        if size is None or size > 4096:
            failures.append(("error size %s" % size, query[:200]))
    n += 1
    state = run_one(conn, None, None, raw=INVALID_UTF8)
    if state in BAD_STATES or state is None:
        failures.append((state or "accepted", "invalid UTF-8 parameter"))
    # the same session still answers (mutated DELETEs may have emptied fz)
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM argo_query('INSERT INTO fz OBJECT {\"a\": 1}')")
        cur.execute("SELECT count(*) FROM argo_query('SELECT * FROM fz WHERE a = 1')")
        alive = cur.fetchone()[0] >= 1
    conn.close()
    if not alive:
        print("FAIL the backend no longer answers Argo queries correctly")

    print("fuzz: %d inputs in %.0f s; outcomes: %s" % (
        n, time.monotonic() - start,
        ", ".join(f"{k} {v}" for k, v in sorted(states.items()))))
    for state, q in failures[:20]:
        print(f"FAIL {state} on input {q!r}")
    ok = not failures and alive
    print(f"fuzz: {n - len(failures)} passed, {len(failures)} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
