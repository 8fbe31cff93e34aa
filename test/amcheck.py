#!/usr/bin/env python3
"""PostgreSQL's own corruption checks over everything the suite's tests
left behind: in every database of the throwaway cluster that has Argo
(the regression, isolation and crash tests' among them), amcheck's
bt_index_check with heapallindexed on every B-tree of argo_data, and
verify_heapam on every table.  Operators run these (and pg_amcheck) to
find corruption; a healthy collection must show none."""
import sys

import psycopg


def connect(db):
    return psycopg.connect(dbname=db, autocommit=True)


def main():
    passed = failed = 0
    with connect("postgres") as conn:
        dbs = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datallowconn ORDER BY 1")]
    for db in dbs:
        with connect(db) as conn:
            if conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'argo'").fetchone()[0] == 0:
                continue
            conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
            indexes = conn.execute(
                "SELECT c.oid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                " JOIN pg_class t ON t.oid = i.indrelid"
                " WHERE t.relnamespace = 'argo_data'::regnamespace AND t.relkind = 'r' AND i.indisvalid"
                " AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'btree') ORDER BY 1").fetchall()
            bad = []
            for (index,) in indexes:
                try:
                    conn.execute("SELECT bt_index_check(%s::regclass, true)", (index,))
                except psycopg.Error as e:
                    bad.append("%s: %s" % (index, str(e).strip()))
            tables = conn.execute(
                "SELECT t.oid::regclass::text, (SELECT count(*) FROM verify_heapam(t.oid))"
                " FROM pg_class t WHERE t.relnamespace = 'argo_data'::regnamespace AND t.relkind = 'r'"
                " ORDER BY 1").fetchall()
            bad += ["%s: %d heap problems" % (t, n) for t, n in tables if n]
            ok = not bad
            print("%s database %s: %d indexes (heapallindexed) and %d tables checked%s"
                  % ("ok  " if ok else "FAIL", db, len(indexes), len(tables),
                     "" if ok else "; " + "; ".join(bad[:5])), flush=True)
            passed += ok
            failed += not ok
    print("amcheck: %d passed, %d failed" % (passed, failed))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
