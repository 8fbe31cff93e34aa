"""Bulk inserts from one client: documents made beforehand, sent as literal text or as one parameter.

The batch curve (oltp.py's `batch` part) makes its documents inside the
timed statement (ycsb_doc(), a SQL function costing more than an insert),
as the key-value study did; this part times the insert alone, the way an
application sends documents it already has:

  literal  the documents as text in the statement, simple query protocol
           (Argo: INSERT INTO c OBJECTS [...]; jsonb: INSERT ... VALUES)
  param    one jsonb array parameter (Argo: INSERT INTO c OBJECTS $1;
           jsonb: INSERT ... SELECT jsonb_array_elements($1))

each into an empty collection or table and into one holding the 100,000
YCSB records, for Argo/3 — without and with a JSON Schema the documents
satisfy (argo_validate: what validation costs an insert) — and its two
jsonb peers: a table with GIN and a B-tree on the key (Argo indexes every
key) and one with the key B-tree alone.  Every target is made afresh for
each measurement and vacuumed.
"""
import time

import psycopg
from psycopg import pq

from common import prewarm

# documents per statement, statements: 10,000 and 20,000 documents a point
# (100 statements of 100: twenty took 0.1-0.3 s, and runs differed by 2x)
SIZES = [(100, 100), (10000, 2)]
PEERS = ["argo3", "argo3_schema", "gin_key", "key"]
# what a YCSB record is (ycsb_doc): a key and ten string fields, nothing else
SCHEMA = ('{"bsonType": "object", "required": ["key"], "additionalProperties": false, "properties": '
          '{"key": {"bsonType": "string", "minLength": 1}, '
          + ", ".join('"field%d": {"bsonType": "string", "maxLength": 1000}' % i for i in range(10)) + '}}')
SHAPES = ["literal", "param"]
WHERE = ["empty", "100k"]
FIRST_KEY = 3000000000               # keys of the inserted documents: none loaded has them


def documents(cur, n):
    cur.execute("SELECT ycsb_doc(x)::text FROM generate_series(%s::bigint, %s::bigint) x",
                (FIRST_KEY, FIRST_KEY + n - 1))
    return [r[0] for r in cur.fetchall()]


def make_target(cur, peer, name, loaded):
    """An empty target, or one holding the records of bulk_src."""
    if peer.startswith("argo3"):
        cur.execute("SELECT argo_drop_collection(%s, true)", (name,))
        cur.execute("SELECT argo_create_collection(%s, 'argo3')", (name,))
        if loaded:
            cur.execute("SELECT argo_load(%s, 'SELECT doc FROM bulk_src ORDER BY id')", (name,))
        if peer == "argo3_schema":
            cur.execute("SELECT argo_validate(%s, %s::jsonb)", (name, SCHEMA))
        return
    cur.execute("DROP TABLE IF EXISTS %s" % name)
    cur.execute("CREATE TABLE %s (id bigserial PRIMARY KEY, doc jsonb NOT NULL)" % name)
    if loaded:
        cur.execute("INSERT INTO %s (doc) SELECT doc FROM bulk_src ORDER BY id" % name)
    if peer == "gin_key":
        cur.execute("CREATE INDEX ON %s USING gin (doc)" % name)
    cur.execute("CREATE INDEX ON %s ((doc->'key'))" % name)


def drop_target(cur, peer, name):
    if peer.startswith("argo3"):
        cur.execute("SELECT argo_drop_collection(%s, true)", (name,))
    else:
        cur.execute("DROP TABLE IF EXISTS %s" % name)


def statement(peer, name, docs, shape):
    """(SQL, parameters) inserting docs into the target."""
    if shape == "param":
        arr = ("[" + ",".join(docs) + "]").encode()
        if peer.startswith("argo3"):
            return "SELECT * FROM argo_query('INSERT INTO %s OBJECTS $1', $1::jsonb)" % name, [arr]
        return "INSERT INTO %s (doc) SELECT jsonb_array_elements($1::jsonb)" % name, [arr]
    if peer.startswith("argo3"):
        return "SELECT * FROM argo_query($q$INSERT INTO %s OBJECTS [%s]$q$)" % (name, ",".join(docs)), None
    return ("INSERT INTO %s (doc) VALUES %s" % (
        name, ",".join("('%s')" % d.replace("'", "''") for d in docs)), None)


def run(conn, pgconn, docs, peer, name, batch, count, shape):
    """Seconds for count statements of batch documents each."""
    texts = [statement(peer, name, docs[i * batch:(i + 1) * batch], shape) for i in range(count)]
    t0 = time.time()
    for sql, params in texts:
        res = pgconn.exec_(sql.encode()) if params is None else pgconn.exec_params(sql.encode(), params)
        if res.status not in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
            raise RuntimeError("bulk insert failed: %s" % res.error_message.decode(errors="replace"))
    return time.time() - t0


def run_bulk(conninfo, records, log):
    """{"batch/shape/where": {peer: docs/s}}"""
    conn = psycopg.connect(conninfo, autocommit=True)
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS bulk_src")
    cur.execute("CREATE TABLE bulk_src AS SELECT i AS id, ycsb_doc(i) AS doc "
                "FROM generate_series(0, %s) i", (records - 1,))
    docs = documents(cur, max(b * n for b, n in SIZES))
    res = {}
    for batch, count in SIZES:
        for shape in SHAPES:
            for where in WHERE:
                key = "%d/%s/%s" % (batch, shape, where)
                res[key] = {}
                for peer in PEERS:
                    name = "bulk_" + peer
                    make_target(cur, peer, name, where == "100k")
                    for (table,) in cur.execute(
                            "SELECT c.oid::regclass::text FROM pg_class c WHERE c.relkind = 'r' AND "
                            "(c.oid = to_regclass(%s) OR c.relnamespace = 'argo_data'::regnamespace "
                            "AND c.relname LIKE %s)", (name, name + "\\_%")).fetchall():
                        cur.execute("VACUUM ANALYZE " + table)
                    cur.execute("CHECKPOINT")
                    prewarm(cur)
                    secs = run(conn, conn.pgconn, docs, peer, name, batch, count, shape)
                    res[key][peer] = batch * count / secs
                    drop_target(cur, peer, name)
                log("  bulk %-22s " % key + "  ".join("%s %7.0f docs/s" % (p, res[key][p]) for p in PEERS)
                    + "  argo3/gin_key %.2f  argo3/key %.2f  schema %.2f" % (
                        res[key]["argo3"] / res[key]["gin_key"], res[key]["argo3"] / res[key]["key"],
                        res[key]["argo3_schema"] / res[key]["argo3"]))
    cur.execute("DROP TABLE bulk_src")
    conn.close()
    return res


def report(res):
    L = ["\n## Bulk inserts from one client (documents/s; documents made beforehand)\n",
         "Argo/3 against jsonb with GIN and a key B-tree (`gin_key`) and with the key B-tree alone "
         "(`key`); `literal`: the documents as text in the statement, `param`: one jsonb array "
         "parameter; into an empty target and into one holding the 100,000 records. "
         "`Argo/3 schema`: the same collection with a JSON Schema every record satisfies "
         "(`argo_validate`: a type, a length and no other key for each of its eleven fields), "
         "checked on every object; `schema / Argo/3` is what validation leaves of the speed.\n",
         "| documents per statement | shape | into | Argo/3 | Argo/3 schema | gin_key | key "
         "| Argo/3 / gin_key | Argo/3 / key | schema / Argo/3 |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for key, per in res.items():
        batch, shape, where = key.split("/")
        L.append("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f |" % (
            batch, shape, where, per["argo3"], per["argo3_schema"], per["gin_key"], per["key"],
            per["argo3"] / per["gin_key"], per["argo3"] / per["key"], per["argo3_schema"] / per["argo3"]))
    return "\n".join(L) + "\n"
