#!/usr/bin/env python3
"""search_path hijacking (CVE-2018-1058 class) against every statement kind.

A role that owns a schema first in a superuser's search_path plants, there,
an overload of every function, aggregate and operator Argo's SQL uses and
a domain for every type name it casts to: each raises SQLSTATE P0666 when
called.  The list is taken from the code: every identifier followed by "("
and every operator in the C string literals of src/ and in the extension's
SQL scripts that pg_catalog has a function or operator of, plus the
operators that SQL keywords stand for (LIKE is ~~, IN is =).  Each is
planted with pg_catalog's own signatures (so it wins with the path
"evil, pg_catalog") and, where pg_catalog's takes a polymorphic or "any"
argument, with the concrete types Argo uses (an exact match wins even
behind pg_catalog: the attack of issue 20).

Then, as the superuser with search_path = evil, pg_catalog, public, every
statement kind and function runs on both formats, three times:
  1. with the usual path, for the expected results;
  2. with the hostile path: the results must be the same, no plant may run;
  3. the same with every function's pinned search_path removed (in a
     transaction rolled back afterwards): the schema-qualified SQL alone
     must hold.
Last, no stored expression of a collection (index, default, check) may
depend on anything outside pg_catalog.
"""
import glob
import os
import re
import sys
import tempfile

import psycopg

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DB = "argo_hijack"
CONCRETE = ["bigint", "integer", "text", "double precision", "boolean",
            "numeric", "jsonb", "bigint[]", "integer[]", "text[]",
            "double precision[]", "boolean[]"]
SKIP_TYPES = {"internal", "cstring", "any", "\"any\"", "trigger",
              "event_trigger", "language_handler", "fdw_handler",
              "index_am_handler", "tsm_handler", "table_am_handler"}
KEYWORD_OPS = {"LIKE": ["~~", "!~~"], "IN": ["="], "BETWEEN": [">=", "<="],
               "DISTINCT": ["="]}
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def code_literals():
    """The text of every C string literal in src/ and of the SQL scripts."""
    out = []
    for f in sorted(glob.glob(os.path.join(ROOT, "src", "*", "*.[cyl]"))):
        if f.endswith(("gram.c", "scan.c")):
            continue
        src = re.sub(r"/\*.*?\*/", "", open(f).read(), flags=re.S)
        out += re.findall(r'"((?:[^"\\\n]|\\.)*)"', src)
    for f in glob.glob(os.path.join(ROOT, "src", "*.sql")):
        out.append(re.sub(r"--[^\n]*", "", open(f).read()))
    return out


def names_in_code(conn):
    lits = code_literals()
    words, ops = set(), set()
    for s in lits:
        words.update(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", s))
        ops.update(re.findall(r"OPERATOR\(pg_catalog\.([^)\s]+)\)", s))
        ops.update(re.findall(r"(?<![A-Za-z0-9_%(.])\s(=|<>|!=|<=|>=|<|>|\|\||\+|-|\*|/|~~)\s", s))
        for kw, kwops in KEYWORD_OPS.items():
            if re.search(r"\b%s\b" % kw, s):
                ops.update(kwops)
    ops.discard("!=")
    ops.add("<>")
    fns = {r[0] for r in conn.execute(
        "SELECT DISTINCT proname FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace"
        " AND proname = ANY(%s)", (sorted(words),))}
    # every base type named anywhere in the code's strings, cast to or a
    # column's type ("doc jsonb" once was unqualified): a domain planted
    # for a word no statement uses as a type costs nothing
    casts = set(re.findall(r"(?<![.\w])([a-z][a-z0-9_]*)\b", "\n".join(lits)))
    types = {r[0] for r in conn.execute(
        "SELECT typname FROM pg_type WHERE typnamespace = 'pg_catalog'::regnamespace"
        " AND typname = ANY(%s) AND typtype = 'b'", (sorted(casts),))}
    return sorted(fns), sorted(ops), sorted(types)


def plant(conn, fns, ops, types):
    """Create the plants as role mallory in schema evil; returns their count."""
    stmts = ["""CREATE FUNCTION evil.hj(what text) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'argo hijacked: %', what USING ERRCODE = 'P0666'; END $$"""]
    n = 0
    rows = conn.execute(
        """SELECT p.oid, p.proname, p.prokind, pg_get_function_identity_arguments(p.oid),
                  pg_get_function_result(p.oid), p.proretset,
                  (SELECT array_agg(format_type(t, NULL) ORDER BY o) FROM unnest(p.proargtypes) WITH ORDINALITY a(t, o))
             FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY(%s)
              AND p.prokind IN ('f', 'a')""", (fns,)).fetchall()
    seen = set()
    for oid, name, kind, ident, result, retset, argtypes in rows:
        argtypes = argtypes or []
        if any(t in SKIP_TYPES for t in argtypes) and not any(t == '"any"' for t in argtypes):
            continue
        sigs = []
        if not any(t in SKIP_TYPES or t == '"any"' for t in argtypes):
            sigs.append(argtypes)
        if any(t.startswith("any") or t == '"any"' for t in argtypes):
            for c in CONCRETE:
                sigs.append([c if (t.startswith("any") or t == '"any"') else t for t in argtypes])
        for sig in sigs:
            key = (name, kind, tuple(sig))
            if key in seen:
                continue
            seen.add(key)
            args = ", ".join(sig)
            n += 1
            if kind == "a":
                sfn = "evil.hj_s%d" % n
                stmts.append("CREATE FUNCTION %s(bigint%s) RETURNS bigint LANGUAGE plpgsql AS "
                             "$$ BEGIN PERFORM evil.hj(%s); RETURN 0; END $$"
                             % (sfn, "".join(", " + t for t in sig), quote(name)))
                stmts.append("CREATE AGGREGATE evil.%s(%s) (sfunc = %s, stype = bigint)"
                             % (qi(name), args or "*", sfn))
            else:
                ret = result if not any(t.startswith("any") for t in sig) or result.find("any") < 0 else result
                if not any(t.startswith("any") for t in sig) and "any" in result:
                    ret = ("SETOF " if retset else "") + "text"
                body = "BEGIN PERFORM evil.hj(%s); %s END" % (
                    quote(name), "RETURN;" if retset else "RETURN NULL;")
                stmts.append("CREATE FUNCTION evil.%s(%s) RETURNS %s LANGUAGE plpgsql AS $$ %s $$"
                             % (qi(name), args, ret, body))
    orows = conn.execute(
        """SELECT oprname, format_type(oprleft, NULL), format_type(oprright, NULL), format_type(oprresult, NULL)
             FROM pg_operator WHERE oprnamespace = 'pg_catalog'::regnamespace AND oprname = ANY(%s)
              AND oprkind = 'b'""", (ops,)).fetchall()
    for i, (op, left, right, res) in enumerate(orows):
        if left in SKIP_TYPES or right in SKIP_TYPES or res in SKIP_TYPES:
            continue
        if "any" in res and not ("any" in left or "any" in right):
            res = "text"
        n += 1
        stmts.append("CREATE FUNCTION evil.hj_op%d(%s, %s) RETURNS %s LANGUAGE plpgsql AS "
                     "$$ BEGIN PERFORM evil.hj(%s); RETURN NULL; END $$" % (i, left, right, res, quote(op)))
        stmts.append("CREATE OPERATOR evil.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = evil.hj_op%d)"
                     % (op, left, right, i))
    for t in types:
        n += 1
        stmts.append("CREATE FUNCTION evil.hj_check_%s(pg_catalog.%s) RETURNS boolean LANGUAGE plpgsql AS "
                     "$$ BEGIN PERFORM evil.hj(%s); RETURN true; END $$" % (t, t, quote("::" + t)))
        stmts.append("CREATE DOMAIN evil.%s AS pg_catalog.%s CHECK (evil.hj_check_%s(VALUE))" % (t, t, t))
    conn.execute("SET ROLE mallory")
    failed = 0
    for s in stmts:
        try:
            conn.execute(s)
        except psycopg.Error as e:
            failed += 1
            print("     (not planted: %s: %s)" % (s[:90], str(e).splitlines()[0]))
    conn.execute("RESET ROLE")
    return n - failed


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def qi(s):
    return '"' + s + '"'


def workload(conn, tag):
    """Every statement kind and function on both formats; returns the results."""
    out = []

    def q(sql, *params):
        rows = conn.execute("SELECT x::pg_catalog.text FROM argo_query(%s" + ", %s::pg_catalog.jsonb" * len(params) + ") x",
                            (sql,) + params).fetchall()
        out.append((sql, [r[0] for r in rows]))

    def f(sql, *params):
        rows = conn.execute(sql, params).fetchall()
        out.append((sql, [tuple(map(str, r)) for r in rows]))

    path = tempfile.mktemp(suffix=".jsonl", dir="/tmp")
    with open(path, "w") as fh:
        for i in range(50):
            fh.write('{"f": %d, "s": "line %d"}\n' % (i, i))
    os.chmod(path, 0o644)
    for fmt in ("argo3", "argo1"):
        c = "h%s_%s" % (fmt[-1], tag)
        j = c + "_j"
        f("SELECT argo_create_collection(%s, %s)::pg_catalog.text", c, fmt)
        q("INSERT INTO %s OBJECT {\"n\": 1, \"s\": \"a\", \"b\": true, \"arr\": [1, \"x\", {\"k\": null}], \"o\": {\"p\": 2.5}},"
          " {\"n\": 2, \"s\": \"bb\", \"b\": false, \"arr\": [], \"e\": {}}, {\"n\": 3, \"s\": \"ccc\", \"z\": null} RETURNING ID" % c)
        q("INSERT INTO %s OBJECT $1, $2" % c, '{"n": 4, "s": "dd", "tags": ["t1"]}', '{"n": 5, "s": "e%"}')
        f("SELECT argo_load(%s, %s)", c, "SELECT pg_catalog.jsonb_build_object('n', g, 's', 'g' OPERATOR(pg_catalog.||) g::pg_catalog.text)"
          " FROM pg_catalog.generate_series(10, 60) g")
        f("SELECT argo_load_file(%s, %s)", c, path)
        # exported and loaded back (the file written by the server)
        f("SELECT argo_export_file(%s, %s)", c, path + "." + c)
        f("SELECT argo_load_file(%s, %s)", c + "_x", path + "." + c)
        f("SELECT argo_drop_collection(%s)::pg_catalog.text", c + "_x")
        # into an empty collection: Argo's indexes dropped and built again
        f("SELECT argo_create_collection(%s, %s)::pg_catalog.text", c + "_e", fmt)
        f("SELECT argo_load(%s, %s)", c + "_e",
          "SELECT pg_catalog.jsonb_build_object('k', 1, 'i', g) FROM pg_catalog.generate_series(1, 101) g")
        # a join of 10,201 tuples: its parts are read set-wise
        f("SELECT pg_catalog.count(*), pg_catalog.sum((x OPERATOR(pg_catalog.->) 'b' OPERATOR(pg_catalog.->>) 'i')::pg_catalog.int4)"
          " FROM argo_query(%s) x", "SELECT a.i, b.i FROM %s AS a INNER JOIN %s AS b ON (a.k = b.k)" % (c + "_e", c + "_e"))
        f("SELECT argo_drop_collection(%s)::pg_catalog.text", c + "_e")
        for w in ["n = 1", "n <> 1", "n < 3", "n >= 3", "s = 'bb'", "s > 'b'", "s LIKE 'c%'", "s NOT LIKE 'c%'",
                  "n BETWEEN 2 AND 4", "n NOT BETWEEN 2 AND 4", "n IN (1, 3, 'x')", "n NOT IN (1, 3)",
                  "1 = ANY arr", "'x' = ANY arr", "EXISTS o.p", "z IS NULL", "s IS NOT NULL",
                  "NOT (n > 2)", "n = 1 OR s = 'bb' OR b = true", "b = false AND n > 0",
                  "ID() = 2", "ID() IN (1, 2, 3)", "ID() > 3 AND n < 20",
                  " OR ".join("n = %d" % i for i in range(20)),
                  " AND ".join("n <> %d" % i for i in range(20))]:
            q("SELECT * FROM %s WHERE %s" % (c, w))
        q("SELECT * FROM %s WHERE n IN $1" % c, "[1, 2, \"x\"]")
        q("SELECT * FROM %s WHERE s = $1" % c, '"ccc"')
        q("SELECT * FROM %s" % c)
        q("SELECT n, o.p, arr[1] FROM %s" % c)
        q("SELECT s FROM %s WHERE n < 5" % c)
        q("SELECT * FROM %s ORDER BY s DESC LIMIT 3" % c)
        q("SELECT * FROM %s ORDER BY n LIMIT 2 OFFSET 1" % c)
        q("SELECT * FROM %s WHERE n > 2 ORDER BY s, n" % c)
        q("SELECT * FROM %s ORDER BY s" % c)
        q("SELECT * FROM %s WHERE n > 10 AND n < 20 ORDER BY n LIMIT 3" % c)
        q("SELECT ID() FROM %s WHERE n < 3" % c)
        q("SELECT COUNT(*), SUM(n), AVG(n), MIN(s), MAX(s), MIN(b) AS minb, MAX(n) AS maxn FROM %s" % c)
        q("SELECT COUNT(*) AS k, SUM(n) AS t FROM %s WHERE n < 20" % c)
        q("SELECT COUNT(*) FROM %s GROUP BY b" % c)
        q("SELECT b, COUNT(*), MIN(n) FROM %s WHERE n < 30 GROUP BY b ORDER BY b" % c)
        f("SELECT argo_create_collection(%s, %s)::pg_catalog.text", j, fmt)
        q("INSERT INTO %s OBJECT {\"ref\": 1, \"w\": \"one\"}, {\"ref\": 2, \"w\": \"two\"}, {\"ref\": \"bb\"}" % j)
        q("SELECT * FROM %s AS a INNER JOIN %s AS b ON (a.n = b.ref)" % (c, j))
        q("SELECT a.s, b.w FROM %s AS a INNER JOIN %s AS b ON (a.s = b.ref) WHERE a.n > 0" % (c, j))
        q("SELECT a.b, COUNT(*) FROM %s AS a INNER JOIN %s AS b ON (a.n = b.ref) GROUP BY a.b" % (c, j))
        q("SELECT * FROM %s AS a INNER JOIN %s AS b ON (a.n = b.n) WHERE a.n < 3 ORDER BY b.s" % (c, c))
        q("UPDATE %s SET s = 'new', o.q = [1] UNSET z WHERE n = 3" % c)
        q("UPDATE %s SET n += 10, cnt -= 1 WHERE s = 'bb'" % c)
        q("UPDATE %s SET tags APPEND 't2', tags ADD 't1', tags ADD 't3', arr REMOVE 1 WHERE n < 5" % c)
        q("UPDATE %s SET b = true WHERE ID() = 1" % c)
        q("UPDATE %s SET n = $1 WHERE s = $2" % c, "42", '"dd"')
        q("UPSERT %s SET hits += 1 WHERE kind = 'visit' AND day = 3" % c)
        q("UPSERT %s SET hits += 1 WHERE kind = 'visit' AND day = 3" % c)
        q("SELECT * FROM %s WHERE n > 3 AND n < 50" % c)
        q("DELETE FROM %s WHERE n > 50" % c)
        q("DELETE FROM %s WHERE ID() = 4" % c)
        q("SELECT * FROM %s" % c)
        f("SELECT * FROM argo_keys(%s)", c)
        f("SELECT keys OPERATOR(pg_catalog.>) 0 FROM argo_analyze(%s)", c)
        f("SELECT argo_count(%s)", c)
        f("SELECT argo_object(%s, 1)::pg_catalog.text, argo_object(%s, 2)::pg_catalog.text, argo_object(%s, 99999)", c, c, c)
        f("SELECT argo_object(%s, objid)::pg_catalog.text FROM argo_data.%s_obj ORDER BY objid" % ("%s", c), c)
        f("SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM argo_explain(%s)", "SELECT * FROM %s WHERE n = 1 ORDER BY s LIMIT 2" % c)
        f("SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM argo_explain(%s)", "UPDATE %s SET n = 1 WHERE s = 'x'" % c)
        f("SELECT name, format, objects FROM argo_collections WHERE name OPERATOR(pg_catalog.=) %s", c)
        # reads through SQL: row-level security on the value tables
        for t in (["str", "num", "bool"] if fmt == "argo3" else ["data"]):
            conn.execute("ALTER TABLE argo_data.%s_%s ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY" % (c, t))
            conn.execute("CREATE POLICY p ON argo_data.%s_%s USING (true)" % (c, t))
        conn.execute("SET row_security = on")
        q("SELECT * FROM %s WHERE n < 5" % c)
        q("SELECT * FROM %s" % c)
        f("SELECT argo_object(%s, 1)::pg_catalog.text", c)
        q("DELETE FROM %s" % j)
        f("SELECT argo_drop_collection(%s)::pg_catalog.text", j)
        f("SELECT argo_drop_collection(%s)::pg_catalog.text", c)
        q("INSERT INTO %s OBJECT {\"lazy\": [1, 2]}" % (c + "_lazy"))
        f("SELECT argo_drop_collection(%s, true)::pg_catalog.text", c + "_lazy")
    os.unlink(path)
    return out


def stored_outside_catalog(conn):
    """Stored expressions of collection tables that depend on a non-pg_catalog object."""
    return conn.execute("""
        SELECT DISTINCT d.classid::regclass::text, d.refobjid, d.refclassid::regclass::text
          FROM pg_depend d
          JOIN pg_class t ON t.relnamespace = 'argo_data'::regnamespace
         WHERE ((d.classid = 'pg_class'::regclass AND d.objid IN (SELECT indexrelid FROM pg_index WHERE indrelid = t.oid))
             OR (d.classid = 'pg_attrdef'::regclass AND d.objid IN (SELECT oid FROM pg_attrdef WHERE adrelid = t.oid))
             OR (d.classid = 'pg_constraint'::regclass AND d.objid IN (SELECT oid FROM pg_constraint WHERE conrelid = t.oid)))
           AND ((d.refclassid = 'pg_proc'::regclass AND d.refobjid IN (SELECT oid FROM pg_proc WHERE pronamespace <> 'pg_catalog'::regnamespace))
             OR (d.refclassid = 'pg_operator'::regclass AND d.refobjid IN (SELECT oid FROM pg_operator WHERE oprnamespace <> 'pg_catalog'::regnamespace))
             OR (d.refclassid = 'pg_type'::regclass AND d.refobjid IN (SELECT oid FROM pg_type WHERE typnamespace <> 'pg_catalog'::regnamespace)))
    """).fetchall()


def main():
    admin = psycopg.connect(dbname="postgres", autocommit=True)
    admin.execute("DROP DATABASE IF EXISTS " + DB)
    admin.execute("CREATE DATABASE " + DB)
    admin.execute("DROP ROLE IF EXISTS mallory")
    admin.execute("CREATE ROLE mallory")
    conn = psycopg.connect(dbname=DB, autocommit=True)
    try:
        conn.execute("CREATE EXTENSION argo")
        conn.execute("CREATE SCHEMA evil AUTHORIZATION mallory")
        fns, ops, types = names_in_code(conn)
        print("     names from the code: %d functions, %d operators, %d types" % (len(fns), len(ops), len(types)))
        print("     functions: " + " ".join(fns))
        print("     operators: " + " ".join(ops))
        check(len(fns) >= 15 and "unnest" in fns and "left" in fns and "=" in ops and "~~" in ops,
              "the names Argo's SQL uses are found in the code")
        expected = workload(conn, "base")
        n = plant(conn, fns, ops, types)
        check(n > 200, "planted %d overloads, operators and domains" % n)

        conn.execute("SET search_path = evil, pg_catalog, public")
        for probe in ["SELECT unnest(ARRAY[1::bigint])", "SELECT 1::integer = 1::integer",
                      "SELECT left('abc'::text, 1)", "SELECT 'a'::text"]:
            try:
                conn.execute(probe)
                check(False, "the plant catches %s" % probe)
            except psycopg.Error as e:
                check(e.sqlstate == "P0666", "the plant catches %s" % probe)

        def run(label):
            try:
                got = workload(conn, "base")
            except psycopg.Error as e:
                check(False, "%s: %s [%s]" % (label, str(e).splitlines()[0], e.sqlstate))
                return
            same = [a == b for a, b in zip(expected, got)]
            for (sql, want), (_, have), ok in zip(expected, got, same):
                if not ok:
                    print("     differs: %s\n       want %s\n       have %s" % (sql[:120], want[:3], have[:3]))
            check(len(got) == len(expected) and all(same),
                  "%s: %d statements, same results, no plant ran" % (label, len(got)))

        run("pinned functions, hostile search_path")
        conn.execute("RESET search_path")
        conn.execute("BEGIN")
        pinned = conn.execute(
            """SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
                AND d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
                JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'argo'
               WHERE p.proconfig IS NOT NULL""").fetchall()
        conn.execute("RESET search_path")
        for (fn,) in pinned:
            conn.execute("ALTER FUNCTION %s RESET search_path" % fn)
        conn.execute("SET LOCAL search_path = evil, pg_catalog, public")
        check(len(pinned) >= 8, "%d pinned functions unpinned for the next run" % len(pinned))
        run("unpinned functions, hostile search_path (schema-qualified SQL alone)")
        # collections made under the hostile path keep nothing of it
        conn.execute("SELECT argo_create_collection('hstore3', 'argo3'), argo_create_collection('hstore1', 'argo1')")
        conn.execute("SELECT argo_load('hstore3', 'SELECT ''{\"a\": 1}''::pg_catalog.jsonb')")
        conn.execute("SET LOCAL search_path = pg_catalog, public")
        bad = stored_outside_catalog(conn)
        check(not bad, "no stored expression of a collection depends on a name outside pg_catalog %s" % (bad[:3],))
        conn.execute("ROLLBACK")
    finally:
        conn.close()
        admin.execute("DROP DATABASE IF EXISTS " + DB)
        admin.execute("DROP ROLE IF EXISTS mallory")
    print("hijack: %s" % ("all passed" if not failures else "%d failed" % len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
