#!/usr/bin/env python3
"""Real documents through every write path, compared with jsonb.

The corpus is what Debian's iso-codes package (4.15, LGPL-2.1; `bash run`
installs it) ships as JSON: the ISO 3166-1 countries (flags as Unicode
regional indicators, optional keys), 3166-2 subdivisions, 3166-3 former
countries, 4217 currencies, 639-2 and 639-5 languages, 15924 scripts, each
entry a document; each small file (under 50 kB) also as one document (an
array of hundreds of objects); and the JSON Schemas describing them
(nested, "$"-keys, regular expressions with backslashes and astral
characters).  About 6,400 documents, 640 kB of JSON, read from
/usr/share/iso-codes/json.

Each document set goes into an Argo/3 and an Argo/1 collection through
argo_load (a query), argo_load_file (JSON lines), INSERT with a $n per
document, and INSERT with the JSON text in the statement; every
collection must give back exactly the documents a jsonb table holds
(jsonb equality: numbers compare numerically, keys unordered).  Then a
handful of queries are checked against jsonb SQL written by hand.

    PG* environment; needs superuser (pg_read_server_files) for the file load.
"""
import json
import os
import sys

import psycopg
from psycopg.types.json import Jsonb

DIR = "/usr/share/iso-codes/json"
SETS = ["3166-1", "3166-2", "3166-3", "4217", "639-2", "639-5", "15924"]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def corpus():
    docs = []
    for s in SETS:
        with open(os.path.join(DIR, "iso_%s.json" % s), encoding="utf-8") as f:
            whole = json.load(f)
        docs.extend(dict(d, _set=s) for d in whole[s])
        if os.path.getsize(os.path.join(DIR, "iso_%s.json" % s)) < 50000:
            docs.append({"_set": "file", "name": s, "file": whole})
        with open(os.path.join(DIR, "schema-%s.json" % s), encoding="utf-8") as f:
            docs.append(dict(json.load(f), _set="schema"))
    return docs


def load_all(conn, coll, fmt, docs, path):
    """Four paths, a quarter of the documents each."""
    conn.execute("SELECT argo_drop_collection(%s, true)", (coll,))
    conn.execute("SELECT argo_create_collection(%s, %s)", (coll, fmt))
    q = len(docs) // 4
    parts = [docs[:q], docs[q:2 * q], docs[2 * q:3 * q], docs[3 * q:]]
    # 1. argo_load from a query
    conn.execute("SELECT argo_load(%s, 'SELECT doc FROM realdata_src WHERE part = 0')", (coll,))
    # 2. argo_load_file: the server writes the lines, then loads them
    conn.execute("COPY (SELECT doc FROM realdata_src WHERE part = 1 ORDER BY n) TO '%s' "
                 "WITH (FORMAT csv, DELIMITER e'\\x01', QUOTE e'\\x02')" % path)
    conn.execute("SELECT argo_load_file(%s, %s)", (coll, path))
    # 3. INSERT with the documents as parameters, 50 per statement
    for i in range(0, len(parts[2]), 50):
        chunk = parts[2][i:i + 50]
        holes = ", ".join("$%d" % (j + 1) for j in range(len(chunk)))
        conn.execute("SELECT count(*) FROM argo_query(%s" + ", %s" * len(chunk) + ")",
                     ["INSERT INTO %s OBJECT %s" % (coll, holes)] + [Jsonb(d) for d in chunk])
    # 4. INSERT with the JSON text in the statement itself
    for d in parts[3]:
        conn.execute("SELECT count(*) FROM argo_query(%s)",
                     ("INSERT INTO %s OBJECT %s" % (coll, json.dumps(d, ensure_ascii=False)),))


def same(conn, argo_sql, jsonb_sql, what, params=()):
    a = conn.execute("SELECT x FROM argo_query(%s" + ", %s" * len(params) + ") x",
                     [argo_sql] + [Jsonb(p) for p in params]).fetchall()
    b = conn.execute(jsonb_sql).fetchall()
    key = lambda r: json.dumps(r[0], sort_keys=True)
    check(sorted(a, key=key) == sorted(b, key=key) and len(a) > 0,
          "%s: Argo %d, jsonb %d results" % (what, len(a), len(b)))


def main():
    docs = corpus()
    size = sum(len(json.dumps(d)) for d in docs)
    with psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS argo")
        conn.execute("DROP TABLE IF EXISTS realdata_src")
        conn.execute("CREATE TABLE realdata_src (n int, part int, doc jsonb)")
        q = len(docs) // 4
        with conn.cursor().copy("COPY realdata_src (n, part, doc) FROM STDIN") as cp:
            for i, d in enumerate(docs):
                cp.write_row((i, min(i // q, 3), json.dumps(d, ensure_ascii=False)))
        for coll, fmt in (("real3", "argo3"), ("real1", "argo1")):
            load_all(conn, coll, fmt, docs, "/tmp/argo_realdata_%s.jsonl" % coll)
            missing, extra = conn.execute(
                "SELECT (SELECT count(*) FROM (SELECT doc FROM realdata_src EXCEPT ALL "
                "        SELECT x FROM argo_query(%s) x) m),"
                "       (SELECT count(*) FROM (SELECT x FROM argo_query(%s) x EXCEPT ALL "
                "        SELECT doc FROM realdata_src) e)",
                ("SELECT * FROM %s" % coll, "SELECT * FROM %s" % coll)).fetchone()
            check(missing == 0 and extra == 0,
                  "%s (%s): %d real documents (%d kB) through four write paths come back as jsonb has them "
                  "(%d missing, %d extra)" % (coll, fmt, len(docs), size // 1024, missing, extra))
            problems = conn.execute("SELECT count(*) FROM argo_check(%s)", (coll,)).fetchone()[0]
            check(problems == 0, "%s: argo_check finds nothing wrong" % coll)
            same(conn, "SELECT alpha_2, name FROM %s WHERE _set = '3166-1' AND name LIKE 'United%%'" % coll,
                 "SELECT jsonb_build_object('alpha_2', doc->'alpha_2', 'name', doc->'name') FROM realdata_src "
                 "WHERE doc->>'_set' = '3166-1' AND doc->>'name' LIKE 'United%'",
                 "%s: countries named United…" % coll)
            same(conn, "SELECT flag FROM %s WHERE alpha_2 = $1 AND _set = '3166-1'" % coll,
                 "SELECT jsonb_build_object('flag', doc->'flag') FROM realdata_src "
                 "WHERE doc->>'alpha_2' = 'NO' AND doc->>'_set' = '3166-1'",
                 "%s: a flag (astral characters) by a parameter" % coll, params=("NO",))
            same(conn, "SELECT type, COUNT(*) AS n FROM %s WHERE _set = '3166-2' GROUP BY type" % coll,
                 "SELECT jsonb_build_object('type', doc->'type', 'n', count(*)) FROM realdata_src "
                 "WHERE doc->>'_set' = '3166-2' GROUP BY doc->'type'",
                 "%s: subdivisions per type" % coll)
            same(conn, "SELECT name FROM %s WHERE _set = '3166-1' ORDER BY name DESC LIMIT 5" % coll,
                 "SELECT jsonb_build_object('name', doc->'name') FROM realdata_src WHERE doc->>'_set' = '3166-1' "
                 "ORDER BY doc->>'name' COLLATE \"C\" DESC LIMIT 5",
                 "%s: the last five country names" % coll)
            same(conn, "SELECT COUNT(*) AS n FROM %s WHERE _set = '639-2' AND EXISTS alpha_2" % coll,
                 "SELECT jsonb_build_object('n', count(*)) FROM realdata_src "
                 "WHERE doc->>'_set' = '639-2' AND doc ? 'alpha_2'",
                 "%s: languages with a two-letter code" % coll)
            same(conn, "SELECT c.name, m.name FROM %s AS c INNER JOIN %s AS m ON (c.numeric = m.numeric) "
                       "WHERE c._set = '3166-1' AND m._set = '4217'" % (coll, coll),
                 "SELECT jsonb_build_object('c', jsonb_build_object('name', c.doc->'name'), "
                 "                          'm', jsonb_build_object('name', m.doc->'name')) "
                 "FROM realdata_src c JOIN realdata_src m ON c.doc->'numeric' = m.doc->'numeric' "
                 "WHERE c.doc->>'_set' = '3166-1' AND m.doc->>'_set' = '4217'",
                 "%s: countries and currencies sharing a numeric code (a join)" % coll)
            same(conn, "SELECT properties FROM %s WHERE _set = 'schema' AND title = 'ISO 3166-1'" % coll,
                 "SELECT jsonb_build_object('properties', doc->'properties') FROM realdata_src "
                 "WHERE doc->>'_set' = 'schema' AND doc->>'title' = 'ISO 3166-1'",
                 "%s: a nested schema's part" % coll)
            conn.execute("SELECT argo_drop_collection(%s)", (coll,))
        conn.execute("DROP TABLE realdata_src")
    print("realdata: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
