#!/usr/bin/env python3
"""The shop benchmark (../shared/APPBENCH.md): an application's day —
customers, products with variants, orders with items, expiring sessions —
in Argo and in two jsonb systems on one server, one run:

  argo   collections as created by default, loaded with argo_load; the
         title's text index (argo_text), as MongoDB's $text needs one
  gin    one table per collection (id bigserial, doc jsonb) with a
         jsonb_path_ops GIN index: the schema-agnostic peer
  tuned  the same tables with the B-tree expression indexes (and the GIN
         on items) a team builds for exactly these shapes (TUNED_INDEXES)

Each shape is written idiomatically per system, run with parameters
varied per round, the systems interleaved, and its answers compared
(a fingerprint of each result, in order where the shape orders; writes by
what they changed, and every collection's content at the end). The
report gives each shape's median per system, Argo's speedup over each
(> 1: Argo faster), mismatches, sizes and load times, the geometric means
and the shapes below 0.5x tuned.

    bash run appbench N            (N orders, default 200,000)
    python3 bench/app/appbench.py --orders 2000 --check-only
"""
import argparse
import datetime
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import geomean, log, machine_info  # noqa: E402

SYSTEMS = ["argo", "gin", "tuned"]
COLLECTIONS = ["customers", "products", "orders", "sessions"]
CITIES = ["Zürich", "Málaga", "Kraków", "Paris", "London", "Berlin", "Oslo", "Lisboa", "Genève", "Łódź",
          "München", "Sevilla", "Porto", "Dublin", "Wien", "Praha", "Göteborg", "Århus", "Köln", "Brno"] + \
         ["City%03d" % i for i in range(280)]
TIERS = ["bronze"] * 6 + ["silver"] * 3 + ["gold"]
STATUSES = ["new"] * 2 + ["paid"] * 3 + ["shipped"] * 9 + ["returned"]
WORDS = ["red", "blue", "green", "pen", "ink", "cup", "box", "paper", "desk", "lamp", "chair", "black",
         "white", "small", "large", "steel", "wood", "glass", "soft", "round", "square", "classic", "modern",
         "travel", "office", "kitchen", "garden", "linen", "cotton", "leather"]
CATEGORIES = ["cat%02d" % i for i in range(30)]
SIZES = ["XS", "S", "M", "L", "XL"]
COLORS = ["red", "blue", "black", "white", "green"]
START = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
SPAN = 2 * 365 * 86400          # two years of seconds; 313 is prime to it
NOW = datetime.datetime.now(datetime.timezone.utc)

# ---------- data ----------


def dec(x):
    """A decimal with two places, kept as written ("19.90") in the JSON text."""
    return "__D__%.2f__" % x


def text(doc):
    return re.sub(r'"__D__([-0-9.]+)__"', r"\1", json.dumps(doc, ensure_ascii=False, sort_keys=True))


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def generate(n, seed):
    rnd = random.Random(seed)
    ncust, nprod, nsess = max(n // 10, 10), max(n // 40, 10), max(n // 4, 10)
    customers, products, orders, sessions = [], [], [], []
    for c in range(1, ncust + 1):
        d = {"cid": c, "name": "%s %s" % (rnd.choice(WORDS).title(), rnd.choice(WORDS).title()),
             "email": "%s.%s%d@Example.COM" % (rnd.choice(WORDS).title(), rnd.choice(WORDS), c),
             "city": rnd.choice(CITIES), "tier": rnd.choice(TIERS),
             "signup": iso(START + datetime.timedelta(seconds=rnd.randrange(SPAN))),
             "tags": rnd.sample(WORDS, rnd.randrange(5))}
        if rnd.random() < 0.2:
            d["phone"] = "+41 %07d" % rnd.randrange(10 ** 7)
        customers.append(d)
    for p in range(1, nprod + 1):
        sku = "SKU%05d" % p
        price = rnd.randrange(100, 20000) / 100
        products.append({"sku": sku, "title": " ".join(rnd.sample(WORDS, rnd.randrange(3, 7))),
                         "category": rnd.choice(CATEGORIES), "price": dec(price),
                         "variants": [{"sku": "%s-%d" % (sku, v), "size": rnd.choice(SIZES),
                                       "color": rnd.choice(COLORS), "stock": rnd.randrange(0, 20),
                                       "price": dec(price)} for v in range(rnd.randrange(1, 6))]})
    prices = {p["sku"]: float(p["price"][5:-2]) for p in products}
    skus = list(prices)
    for o in range(1, n + 1):
        # a few customers have hundreds of orders
        cust = int(ncust * rnd.random() ** 3) + 1
        items = [{"sku": s, "qty": rnd.randrange(1, 6), "price": dec(prices[s])}
                 for s in rnd.sample(skus[:max(50, len(skus) // 4)] if rnd.random() < 0.7 else skus,
                                     rnd.randrange(1, 7))]
        d = {"oid": o, "cust": cust, "created": iso(START + datetime.timedelta(seconds=(o * 313) % SPAN)),
             "status": rnd.choice(STATUSES), "items": items,
             "total": dec(sum(i["qty"] * float(i["price"][5:-2]) for i in items)),
             "ship": {"city": rnd.choice(CITIES), "zip": "%05d" % rnd.randrange(100000)}}
        if rnd.random() < 0.1:
            d["coupon"] = "C%d" % rnd.randrange(100)
        orders.append(d)
    for s in range(1, nsess + 1):
        age = rnd.randrange(40 * 60, 4 * 3600) if rnd.random() < 0.1 else rnd.randrange(0, 20 * 60)
        sessions.append({"sid": "s%07d" % s, "cust": rnd.randrange(1, ncust + 1),
                         "seen": iso(NOW - datetime.timedelta(seconds=age)),
                         "cart": [rnd.choice(skus) for _ in range(rnd.randrange(0, 5))]})
    return {"customers": customers, "products": products, "orders": orders, "sessions": sessions}


# ---------- systems ----------

TUNED_INDEXES = [
    "CREATE UNIQUE INDEX ON t_customers ((doc->>'email'))",
    "CREATE INDEX ON t_customers ((doc->>'cid'))",
    "CREATE INDEX ON t_customers ((doc->>'city'), (doc->>'tier'))",
    "CREATE INDEX ON t_customers ((doc->>'tier'))",
    "CREATE UNIQUE INDEX ON t_products ((doc->>'sku'))",
    "CREATE INDEX ON t_products USING gin ((doc->'variants') jsonb_path_ops)",
    "CREATE INDEX ON t_products USING gin (to_tsvector('simple', doc->>'title'))",
    "CREATE INDEX ON t_orders (((doc->>'cust')::bigint), (doc->>'created'))",
    "CREATE INDEX ON t_orders ((doc->>'status'), (doc->>'created'))",
    "CREATE INDEX ON t_orders ((doc->>'created'))",
    "CREATE INDEX ON t_orders ((doc->>'status') COLLATE \"C\", ((doc->>'total')::numeric) DESC, id)",
    "CREATE INDEX ON t_orders USING gin ((doc->'items') jsonb_path_ops)",
    "CREATE UNIQUE INDEX ON t_sessions ((doc->>'sid'))",
    "CREATE INDEX ON t_sessions ((doc->>'seen'))",
    "CREATE UNIQUE INDEX ON t_daily ((doc->>'day'), (doc->>'page'))",
]


def tbl(system, coll):
    return ("g_" if system == "gin" else "t_") + coll


def load(conn, data):
    times, sizes = {}, {}
    with conn.cursor() as cur:
        for c in COLLECTIONS:
            cur.execute("DROP TABLE IF EXISTS stage_%s" % c)
            cur.execute("CREATE TABLE stage_%s (i serial, d jsonb)" % c)
            with cur.copy("COPY stage_%s (d) FROM STDIN" % c) as cp:
                for d in data[c]:
                    cp.write_row((text(d),))
        for system in SYSTEMS:
            start = time.time()
            if system == "argo":
                for c in COLLECTIONS:
                    cur.execute("SELECT argo_drop_collection(%s, true)", (c,))
                    cur.execute("SELECT argo_load(%s, %s)", (c, "SELECT d FROM stage_%s ORDER BY i" % c))
                cur.execute("SELECT argo_drop_collection('daily', true)")
                cur.execute("SELECT argo_expire('sessions', 'seen', '30 minutes')")
                # MongoDB's $text needs a text index; argo_text is Argo's (as tuned's tsvector GIN)
                cur.execute("SELECT argo_text('products', 'title', 'simple')")
            else:
                for c in COLLECTIONS + ["daily"]:
                    t = tbl(system, c)
                    cur.execute("DROP TABLE IF EXISTS %s" % t)
                    cur.execute("CREATE TABLE %s (id bigserial PRIMARY KEY, doc jsonb NOT NULL)" % t)
                    if c != "daily":
                        cur.execute("INSERT INTO %s (doc) SELECT d FROM stage_%s ORDER BY i" % (t, c))
                    cur.execute("CREATE INDEX ON %s USING gin (doc jsonb_path_ops)" % t)
                if system == "tuned":
                    for ix in TUNED_INDEXES:
                        cur.execute(ix)
                else:
                    cur.execute("CREATE UNIQUE INDEX ON g_daily ((doc->>'day'), (doc->>'page'))")
            cur.execute("ANALYZE")
            times[system] = time.time() - start
            if system == "argo":
                cur.execute("SELECT sum(size_bytes) FROM argo_collections")
            else:
                cur.execute("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
                            "WHERE c.relkind = 'r' AND c.relname LIKE %s", (tbl(system, "") + "%",))
            sizes[system] = int(cur.fetchone()[0] or 0)
            log("  %s: loaded in %.1f s, %.0f MB" % (system, times[system], sizes[system] / 2**20))
        for c in COLLECTIONS:
            cur.execute("DROP TABLE stage_%s" % c)
    return times, sizes


# ---------- shapes ----------
# (name, ordered, argo text, gin SQL, tuned SQL or None for gin's, params(rnd, n) -> list)
# Argo's statements take jsonb parameters; the jsonb SQL takes the same
# values as text/jsonb: P[i] is the i-th parameter as jsonb, T[i] as text.

def J(v):
    return json.dumps(v)


def month(rnd):
    d = START + datetime.timedelta(days=rnd.randrange(700))
    return [iso(d), iso(d + datetime.timedelta(days=30))]


def day(rnd):
    d = START + datetime.timedelta(days=rnd.randrange(700))
    return [iso(d), iso(d + datetime.timedelta(days=1))]


READS = [
    ("order by id", False,
     "SELECT * FROM orders WHERE ID() = $1",
     "SELECT doc FROM {orders} WHERE id = ($1::jsonb)::bigint", None,
     lambda r, n: [r.randrange(1, n + 1)]),
    ("customer by email", False,
     "SELECT * FROM customers WHERE email = $1",
     "SELECT doc FROM {customers} WHERE doc @> jsonb_build_object('email', $1::jsonb)",
     "SELECT doc FROM {customers} WHERE doc->>'email' = $1::jsonb #>> '{{}}'",
     lambda r, n: ["EMAIL:%d" % r.randrange(1, n // 10 + 1)]),
    ("a customer's 10 latest orders", True,
     "SELECT * FROM orders WHERE cust = $1 ORDER BY created DESC LIMIT 10",
     "SELECT doc FROM {orders} WHERE doc @> jsonb_build_object('cust', $1::jsonb) ORDER BY doc->>'created' DESC LIMIT 10",
     "SELECT doc FROM {orders} WHERE (doc->>'cust')::bigint = ($1::jsonb)::bigint ORDER BY doc->>'created' DESC LIMIT 10",
     lambda r, n: [int(n // 10 * r.random() ** 3) + 1]),
    ("orders of a status in a week, count", False,
     "SELECT COUNT(*) FROM orders WHERE status = $1 AND created BETWEEN $2 AND $3",
     "SELECT jsonb_build_object('count', count(*)) FROM {orders} WHERE doc @> jsonb_build_object('status', $1::jsonb) "
     "AND doc->>'created' BETWEEN $2::jsonb #>> '{{}}' AND $3::jsonb #>> '{{}}'",
     "SELECT jsonb_build_object('count', count(*)) FROM {orders} WHERE doc->>'status' = $1::jsonb #>> '{{}}' "
     "AND doc->>'created' BETWEEN $2::jsonb #>> '{{}}' AND $3::jsonb #>> '{{}}'",
     lambda r, n: [r.choice(["new", "paid", "shipped", "returned"])] +
     [iso(START + datetime.timedelta(days=d)) for d in (lambda d0: (d0, d0 + 7))(r.randrange(700))]),
    ("LIMIT 20 OFFSET 10000 by created", True,
     "SELECT * FROM orders ORDER BY created DESC LIMIT 20 OFFSET $1",
     "SELECT doc FROM {orders} ORDER BY doc->>'created' DESC LIMIT 20 OFFSET ($1::jsonb)::int", None,
     lambda r, n: [min(10000, n // 2) + r.randrange(20)]),
    ("keyset page of 20 by created", True,
     "SELECT * FROM orders WHERE created < $1 ORDER BY created DESC LIMIT 20",
     "SELECT doc FROM {orders} WHERE doc->>'created' < $1::jsonb #>> '{{}}' ORDER BY doc->>'created' DESC LIMIT 20", None,
     lambda r, n: [iso(START + datetime.timedelta(days=r.randrange(30, 700)))]),
    ("ORDER BY status, total DESC LIMIT 20", True,
     "SELECT * FROM orders ORDER BY status, total DESC, ID() LIMIT 20",
     "SELECT doc FROM {orders} ORDER BY (doc->>'status') COLLATE \"C\", (doc->>'total')::numeric DESC, id LIMIT 20", None,
     lambda r, n: []),
    ("orders containing a sku", False,
     "SELECT * FROM orders WHERE items[*].sku = $1",
     "SELECT doc FROM {orders} WHERE doc @> jsonb_build_object('items', jsonb_build_array(jsonb_build_object('sku', $1::jsonb)))",
     "SELECT doc FROM {orders} WHERE doc->'items' @> jsonb_build_array(jsonb_build_object('sku', $1::jsonb))",
     lambda r, n: ["SKU%05d" % r.randrange(1, max(n // 40, 10) + 1)]),
    ("orders with an item of sku X and qty >= 3", False,
     "SELECT * FROM orders WHERE EXISTS items[? sku = $1 AND qty >= 3]",
     "SELECT doc FROM {orders} WHERE doc @> jsonb_build_object('items', jsonb_build_array(jsonb_build_object('sku', $1::jsonb))) "
     "AND EXISTS (SELECT 1 FROM jsonb_array_elements(doc->'items') e WHERE e->'sku' = $1::jsonb AND (e->>'qty')::numeric >= 3)",
     "SELECT doc FROM {orders} WHERE doc->'items' @> jsonb_build_array(jsonb_build_object('sku', $1::jsonb)) "
     "AND EXISTS (SELECT 1 FROM jsonb_array_elements(doc->'items') e WHERE e->'sku' = $1::jsonb AND (e->>'qty')::numeric >= 3)",
     lambda r, n: ["SKU%05d" % r.randrange(1, max(n // 160, 10) + 1)]),
    ("products with a variant of size M in stock", False,
     "SELECT * FROM products WHERE EXISTS variants[? size = 'M' AND stock > 0] AND category = $1",
     "SELECT doc FROM {products} WHERE doc @> jsonb_build_object('category', $1::jsonb, 'variants', '[{{\"size\": \"M\"}}]'::jsonb) "
     "AND EXISTS (SELECT 1 FROM jsonb_array_elements(doc->'variants') e WHERE e->>'size' = 'M' AND (e->>'stock')::numeric > 0)",
     None,
     lambda r, n: [r.choice(CATEGORIES)]),
    ("title search", False,
     "SELECT sku, title FROM products WHERE title @@ $1",
     "SELECT jsonb_build_object('sku', doc->'sku', 'title', doc->'title') FROM {products} "
     "WHERE to_tsvector('simple', doc->>'title') @@ websearch_to_tsquery('simple', $1::jsonb #>> '{{}}')", None,
     lambda r, n: [" ".join(r.sample(WORDS, 2))]),
    ("distinct cities", False,
     "SELECT DISTINCT city FROM customers",
     "SELECT DISTINCT jsonb_build_object('city', doc->'city') FROM {customers}", None,
     lambda r, n: []),
    ("customers per tier", False,
     "SELECT tier, COUNT(*) FROM customers GROUP BY tier",
     "SELECT jsonb_build_object('tier', doc->'tier', 'count', count(*)) FROM {customers} GROUP BY doc->'tier'", None,
     lambda r, n: []),
    ("top 5 customers by spending in a month", True,
     "SELECT cust, SUM(total) AS spent FROM orders WHERE created BETWEEN $1 AND $2 GROUP BY cust ORDER BY spent DESC, cust LIMIT 5",
     "SELECT jsonb_build_object('cust', doc->'cust', 'spent', sum((doc->>'total')::float8)) FROM {orders} "
     "WHERE doc->>'created' BETWEEN $1::jsonb #>> '{{}}' AND $2::jsonb #>> '{{}}' "
     "GROUP BY doc->'cust' ORDER BY sum((doc->>'total')::float8) DESC, (doc->'cust')::bigint LIMIT 5", None,
     lambda r, n: month(r)),
    ("order lines per category in a month (join through items)", False,
     "SELECT p.category, COUNT(*) FROM orders AS o INNER JOIN products AS p ON (o.items[*].sku = p.sku) "
     "WHERE o.created BETWEEN $1 AND $2 GROUP BY p.category",
     "SELECT jsonb_build_object('p', jsonb_build_object('category', pc), 'count', count(*)) FROM ("
     "SELECT DISTINCT o.id, p.id AS pid, p.doc->'category' AS pc FROM {orders} o, jsonb_array_elements(o.doc->'items') e, {products} p "
     "WHERE p.doc @> jsonb_build_object('sku', e->'sku') AND o.doc->>'created' BETWEEN $1::jsonb #>> '{{}}' AND $2::jsonb #>> '{{}}') x GROUP BY pc",
     "SELECT jsonb_build_object('p', jsonb_build_object('category', pc), 'count', count(*)) FROM ("
     "SELECT DISTINCT o.id, p.id AS pid, p.doc->'category' AS pc FROM {orders} o, jsonb_array_elements(o.doc->'items') e, {products} p "
     "WHERE p.doc->>'sku' = e->>'sku' AND o.doc->>'created' BETWEEN $1::jsonb #>> '{{}}' AND $2::jsonb #>> '{{}}') x GROUP BY pc",
     lambda r, n: month(r)),
    ("units per sku in a month (GROUP BY items[*].sku)", False,
     "SELECT items[*].sku, SUM(items[*].qty) FROM orders WHERE created BETWEEN $1 AND $2 GROUP BY items[*].sku",
     "SELECT jsonb_build_object('items', jsonb_build_array(jsonb_build_object('sku', e->'sku')), 'sum', sum((e->>'qty')::float8)) "
     "FROM {orders}, jsonb_array_elements(doc->'items') e WHERE doc->>'created' BETWEEN $1::jsonb #>> '{{}}' AND $2::jsonb #>> '{{}}' "
     "GROUP BY e->'sku'", None,
     lambda r, n: month(r)),
    ("pending orders by shipping city", False,
     "SELECT ship.city, COUNT(*) FROM orders WHERE status = 'new' GROUP BY ship.city",
     "SELECT jsonb_build_object('ship', jsonb_build_object('city', doc->'ship'->'city'), 'count', count(*)) FROM {orders} "
     "WHERE doc @> '{{\"status\": \"new\"}}' GROUP BY doc->'ship'->'city'",
     "SELECT jsonb_build_object('ship', jsonb_build_object('city', doc->'ship'->'city'), 'count', count(*)) FROM {orders} "
     "WHERE doc->>'status' = 'new' GROUP BY doc->'ship'->'city'",
     lambda r, n: []),
    ("a day's orders joined to their customers", False,
     "SELECT o.total, c.name FROM orders AS o INNER JOIN customers AS c ON (o.cust = c.cid) WHERE o.created BETWEEN $1 AND $2",
     "SELECT jsonb_build_object('o', jsonb_build_object('total', o.doc->'total'), 'c', jsonb_build_object('name', c.doc->'name')) "
     "FROM {orders} o JOIN {customers} c ON c.doc @> jsonb_build_object('cid', o.doc->'cust') "
     "WHERE o.doc->>'created' BETWEEN $1::jsonb #>> '{{}}' AND $2::jsonb #>> '{{}}'",
     "SELECT jsonb_build_object('o', jsonb_build_object('total', o.doc->'total'), 'c', jsonb_build_object('name', c.doc->'name')) "
     "FROM {orders} o JOIN {customers} c ON c.doc->>'cid' = o.doc->>'cust' "
     "WHERE o.doc->>'created' BETWEEN $1::jsonb #>> '{{}}' AND $2::jsonb #>> '{{}}'",
     lambda r, n: day(r)),
    ("the orders of gold customers in a city", False,
     "SELECT o.total, c.name FROM orders AS o INNER JOIN customers AS c ON (o.cust = c.cid) WHERE c.tier = 'gold' AND c.city = $1",
     "SELECT jsonb_build_object('o', jsonb_build_object('total', o.doc->'total'), 'c', jsonb_build_object('name', c.doc->'name')) "
     "FROM {customers} c JOIN {orders} o ON o.doc @> jsonb_build_object('cust', c.doc->'cid') "
     "WHERE c.doc @> jsonb_build_object('tier', 'gold', 'city', $1::jsonb)",
     "SELECT jsonb_build_object('o', jsonb_build_object('total', o.doc->'total'), 'c', jsonb_build_object('name', c.doc->'name')) "
     "FROM {customers} c JOIN {orders} o ON (o.doc->>'cust')::bigint = (c.doc->>'cid')::bigint "
     "WHERE c.doc->>'tier' = 'gold' AND c.doc->>'city' = $1::jsonb #>> '{{}}'",
     lambda r, n: [r.choice(CITIES[:20])]),
]

# (name, argo text, jsonb SQL, params(rnd, n, k) -> list); the jsonb SQL
# says how many objects it changed (a CTE's count); Argo's by its result.
WRITES = [
    ("update one field by id",
     "UPDATE orders SET status = $2 WHERE ID() = $1",
     "WITH w AS (UPDATE {orders} SET doc = jsonb_set(doc, '{{status}}', $2::jsonb) WHERE id = ($1::jsonb)::bigint RETURNING 1) "
     "SELECT count(*) FROM w",
     lambda r, n, k: [r.randrange(1, n + 1), r.choice(["paid", "shipped"])]),
    ("decrement a variant's stock through a filter, guarded",
     "UPDATE products SET variants[? sku = $1].stock -= 1 WHERE sku = $2 AND EXISTS variants[? sku = $1 AND stock > 0]",
     "WITH w AS (UPDATE {products} p SET doc = jsonb_set(doc, ARRAY['variants', v.pos::text, 'stock'], "
     "to_jsonb((v.e->>'stock')::numeric - 1)) FROM (SELECT x.id, e, o - 1 AS pos FROM {products} x, "
     "jsonb_array_elements(x.doc->'variants') WITH ORDINALITY a(e, o) WHERE e->'sku' = $1::jsonb AND (e->>'stock')::numeric > 0) v "
     "WHERE p.id = v.id AND p.doc @> jsonb_build_object('sku', $2::jsonb) RETURNING 1) SELECT count(*) FROM w",
     lambda r, n, k: (lambda s: ["%s-0" % s, s])("SKU%05d" % r.randrange(1, max(n // 40, 10) + 1))),
    ("append to a cart, keep the last 10",
     "UPDATE sessions SET cart APPEND $2 KEEP LAST 10 WHERE sid = $1",
     "WITH w AS (UPDATE {sessions} SET doc = jsonb_set(doc, '{{cart}}', (SELECT coalesce(jsonb_agg(e ORDER BY o), '[]') FROM "
     "jsonb_array_elements(doc->'cart' || jsonb_build_array($2::jsonb)) WITH ORDINALITY a(e, o) "
     "WHERE o > jsonb_array_length(doc->'cart') + 1 - 10)) WHERE doc @> jsonb_build_object('sid', $1::jsonb) RETURNING 1) "
     "SELECT count(*) FROM w",
     lambda r, n, k: ["s%07d" % r.randrange(1, max(n // 4, 10) + 1), "SKU%05d" % r.randrange(1, 100)]),
    ("upsert a daily counter",
     "UPSERT daily SET hits += 1 WHERE day = $1 AND page = $2",
     "WITH w AS (INSERT INTO {daily} (doc) VALUES (jsonb_build_object('day', $1::jsonb, 'page', $2::jsonb, 'hits', 1)) "
     "ON CONFLICT ((doc->>'day'), (doc->>'page')) DO UPDATE SET doc = jsonb_set({daily}.doc, '{{hits}}', "
     "to_jsonb(({daily}.doc->>'hits')::numeric + 1)) RETURNING 1) SELECT count(*) FROM w",
     lambda r, n, k: ["2026-12-%02d" % r.randrange(1, 8), r.choice(["/home", "/cart", "/search"])]),
    ("insert one order",
     "INSERT INTO orders OBJECT $1",
     "WITH w AS (INSERT INTO {orders} (doc) VALUES ($1::jsonb) RETURNING 1) SELECT count(*) FROM w",
     lambda r, n, k: [{"oid": 10 ** 7 + k, "cust": 1, "created": iso(NOW), "status": "new",
                       "items": [{"sku": "SKU00001", "qty": 1}], "total": 1.5}]),
    ("insert 1,000 orders in one statement",
     "INSERT INTO orders OBJECTS $1",
     "WITH w AS (INSERT INTO {orders} (doc) SELECT e FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY a(e, o) ORDER BY o "
     "RETURNING 1) SELECT count(*) FROM w",
     lambda r, n, k: [[{"oid": 2 * 10 ** 7 + k * 1000 + i, "cust": r.randrange(1, 50), "created": iso(NOW),
                        "status": "new", "items": [{"sku": "SKU%05d" % r.randrange(1, 50), "qty": 2}], "total": 3}
                       for i in range(1000)]]),
    ("delete by id",
     "DELETE FROM orders WHERE ID() = $1",
     "WITH w AS (DELETE FROM {orders} WHERE id = ($1::jsonb)::bigint RETURNING 1) SELECT count(*) FROM w",
     lambda r, n, k: [r.randrange(1, n + 1)]),
    ("expire sessions",
     None,
     "WITH w AS (DELETE FROM {sessions} WHERE doc->>'seen' < "
     "to_char((now() - interval '30 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') RETURNING 1) "
     "SELECT count(*) FROM w",
     lambda r, n, k: []),
]


def sql_for(shape_sql, system):
    return shape_sql.format(**{c: tbl(system, c) for c in COLLECTIONS + ["daily"]})


# A double's sum depends on the order it adds in (each system scans in its
# own): such results are compared rounded to the cent.
NORMALIZE = {
    "top 5 customers by spending in a month":
        "jsonb_set(x, '{spent}', to_jsonb(round((x->>'spent')::numeric, 2)))",
}


def fingerprint_sql(inner, ordered, norm="x"):
    if ordered:
        # the subquery's order, numbered as it comes
        return ("SELECT count(*), coalesce(sum(hashtextextended((%s)::text || '#' || n, 0)::numeric), 0) "
                "FROM (SELECT x, row_number() OVER () AS n FROM (%s) r(x)) z" % (norm, inner))
    return ("SELECT count(*), coalesce(sum(hashtextextended((%s)::text, 0)::numeric), 0) FROM (%s) r(x)"
            % (norm, inner))


def real_params(params, emails):
    """EMAIL:c stands for customer c's email (as generated)."""
    out = []
    for p in params:
        if isinstance(p, str) and p.startswith("EMAIL:"):
            p = emails[int(p[6:])]
        out.append(p)
    return out


def run_reads(conn, n, rounds, seed, emails, only):
    res, bad = {}, []
    with conn.cursor() as cur:
        for name, ordered, argo, gin, tuned, params in READS:
            if only and only not in name:
                continue
            rnd = random.Random("%s/%s" % (seed, name))
            ts = {s: [] for s in SYSTEMS}
            for k in range(rounds + 1):
                ps = real_params(params(rnd, n), emails)
                prints = {}
                for system in SYSTEMS:
                    if system == "argo":
                        q = "SELECT x FROM argo_query(%%s%s) x" % "".join(", %s" for _ in ps)
                        args = [argo] + [J(p) for p in ps]
                    else:
                        q = sql_for(tuned if system == "tuned" and tuned else gin, system)
                        q = re.sub(r"\$(\d+)", lambda m: "%%(p%s)s" % m.group(1), q)
                        args = {"p%d" % (i + 1): J(p) for i, p in enumerate(ps)}
                    start = time.perf_counter()
                    cur.execute(fingerprint_sql(q, ordered, NORMALIZE.get(name, "x")), args)
                    prints[system] = cur.fetchone()
                    if k > 0:           # the first round warms each
                        ts[system].append((time.perf_counter() - start) * 1000)
                if len(set(prints.values())) != 1:
                    bad.append("%s (round %d, %s): %s" % (name, k, ps, prints))
            res[name] = {s: statistics.median(v) for s, v in ts.items()}
            log("  %-58s %s" % (name, "  ".join("%s %.2f" % (s, res[name][s]) for s in SYSTEMS)))
    return res, bad


def run_writes(conn, n, rounds, seed, only):
    res, bad = {}, []
    with conn.cursor() as cur:
        for name, argo, jsql, params in WRITES:
            if only and only not in name:
                continue
            rnd = random.Random("%s/%s" % (seed, name))
            ts = {s: [] for s in SYSTEMS}
            for k in range(rounds + 1):
                ps = params(rnd, n, k)
                counts = {}
                for system in SYSTEMS:
                    if system == "argo":
                        if argo is None:
                            q, args = "SELECT argo_expire_now('sessions')", []
                        else:
                            q = "SELECT x FROM argo_query(%%s%s) x" % "".join(", %s" for _ in ps)
                            args = [argo] + [J(p) for p in ps]
                    else:
                        q = re.sub(r"\$(\d+)", lambda m: "%%(p%s)s" % m.group(1), sql_for(jsql, system))
                        args = {"p%d" % (i + 1): J(p) for i, p in enumerate(ps)}
                    start = time.perf_counter()
                    cur.execute(q, args)
                    row = cur.fetchone()[0]
                    if k > 0:
                        ts[system].append((time.perf_counter() - start) * 1000)
                    if isinstance(row, dict):
                        row = sum(v for key, v in row.items() if key in ("updated", "inserted", "deleted"))
                    counts[system] = int(row)
                if len(set(counts.values())) != 1:
                    bad.append("%s (round %d): %s" % (name, k, counts))
            res[name] = {s: statistics.median(v) for s, v in ts.items()}
            log("  %-58s %s" % (name, "  ".join("%s %.2f" % (s, res[name][s]) for s in SYSTEMS)))
    return res, bad


def same_state(conn):
    """Every collection's objects, the same in the three systems after the writes."""
    bad = []
    with conn.cursor() as cur:
        for c in COLLECTIONS + ["daily"]:
            prints = {}
            for system in SYSTEMS:
                q = ("SELECT x FROM argo_query('SELECT * FROM %s') x" % c if system == "argo" else
                     "SELECT doc FROM %s" % tbl(system, c))
                cur.execute(fingerprint_sql(q, False))
                prints[system] = cur.fetchone()
            if len(set(prints.values())) != 1:
                bad.append("%s after the writes: %s" % (c, prints))
    return bad


# ---------- under load (pgbench) ----------
# (name, {system: script}); :c a customer, :o an order, :s a status, drawn
# by pgbench; the customer's email from app_emails, a lookup every system pays.
LOAD_SHAPES = [
    ("by-email read", {
        "argo": "SELECT x FROM argo_query('SELECT * FROM customers WHERE email = $1', "
                "(SELECT to_jsonb(email) FROM app_emails WHERE cid = :c::int)) x;",
        "gin": "SELECT doc FROM g_customers WHERE doc @> jsonb_build_object('email', "
               "(SELECT email FROM app_emails WHERE cid = :c::int));",
        "tuned": "SELECT doc FROM t_customers WHERE doc->>'email' = (SELECT email FROM app_emails WHERE cid = :c::int);"}),
    ("one-field update by id", {
        "argo": "SELECT x FROM argo_query('UPDATE orders SET status = $2 WHERE ID() = $1', to_jsonb(:o::bigint), "
                "CASE :s::int WHEN 0 THEN '\"paid\"'::jsonb ELSE '\"shipped\"'::jsonb END) x;",
        "gin": "UPDATE g_orders SET doc = jsonb_set(doc, '{status}', "
               "CASE :s::int WHEN 0 THEN '\"paid\"'::jsonb ELSE '\"shipped\"'::jsonb END) WHERE id = :o::bigint;",
        "tuned": "UPDATE t_orders SET doc = jsonb_set(doc, '{status}', "
                 "CASE :s::int WHEN 0 THEN '\"paid\"'::jsonb ELSE '\"shipped\"'::jsonb END) WHERE id = :o::bigint;"}),
]
LOAD_CLIENTS = [1, 8, 32]


def pgbench(path, clients, defines, seconds=None, transactions=None):
    """tps of one script under pgbench -M prepared."""
    cmd = ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(clients, 8)),
           "--random-seed", "1", "-f", path]
    cmd += ["-T", str(seconds)] if seconds else ["-t", str(transactions)]
    for k, v in defines.items():
        cmd += ["-D", "%s=%s" % (k, v)]
    cmd.append(os.environ.get("PGDATABASE", "postgres"))
    p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", p.stdout)
    if p.returncode != 0 or not m:
        raise RuntimeError("pgbench failed:\n" + p.stdout[-2000:] + p.stderr[-2000:])
    return float(m.group(1))


def run_load(conn, n, emails, seconds):
    """The by-email read and the one-field update at 1, 8 and 32 clients,
    the systems interleaved per point; tps. seconds 0: each script run
    briefly, to check it (the suite)."""
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS app_emails")
        cur.execute("CREATE TABLE app_emails (cid int PRIMARY KEY, email text)")
        with cur.copy("COPY app_emails FROM STDIN") as cp:
            for cid, e in emails.items():
                cp.write_row((cid, e))
        cur.execute("ANALYZE app_emails")
        cur.execute("CHECKPOINT")
    tmp = tempfile.mkdtemp(prefix="argo-appbench-")
    defines = {"ncust": max(n // 10, 10), "norders": n}
    res = {}
    try:
        for name, scripts in LOAD_SHAPES:
            for clients in (LOAD_CLIENTS if seconds else [2]):
                for system in SYSTEMS:
                    path = os.path.join(tmp, "%s.sql" % system)
                    with open(path, "w") as f:
                        f.write("\\set c random(1, :ncust)\n\\set o random(1, :norders)\n"
                                "\\set s random(0, 1)\n" + scripts[system] + "\n")
                    tps = pgbench(path, clients, defines, seconds=seconds or None,
                                  transactions=None if seconds else 50)
                    res.setdefault((name, clients), {})[system] = tps
                log("  %-24s %2d clients  %s" % (name, clients, "  ".join(
                    "%s %.0f" % (s, res[(name, clients)][s]) for s in SYSTEMS)))
    finally:
        shutil.rmtree(tmp)
        with conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS app_emails")
    return res


def report(n, rounds, info, loads, sizes, reads, writes, bad, under_load, seconds):
    lines = ["# The shop benchmark, %d orders" % n, "",
             "%s; PostgreSQL %s; %d cores (%s), %.0f GiB; median of %d rounds after a warm-up, one client; "
             "milliseconds; speedup = jsonb time / Argo time (above 1: Argo is faster)."
             % (info["date"], info["postgresql"], info["cores"], info["cpu"], info["memory_gib"], rounds), "",
             "Mismatches: %d%s" % (len(bad), "" if not bad else " — " + "; ".join(bad[:10])), "",
             "| system | load (s) | size (MB) |", "|---|---:|---:|"]
    for s in SYSTEMS:
        lines.append("| %s | %.1f | %.0f |" % (s, loads[s], sizes[s] / 2**20))
    lines += ["", "| shape | argo | gin | tuned | argo vs gin | argo vs tuned |", "|---|---:|---:|---:|---:|---:|"]
    ratios_gin, ratios_tuned, low = [], [], []
    for name, r in list(reads.items()) + list(writes.items()):
        g, t = r["gin"] / r["argo"], r["tuned"] / r["argo"]
        ratios_gin.append(g)
        ratios_tuned.append(t)
        if t < 0.5:
            low.append(name)
        lines.append("| %s | %.2f | %.2f | %.2f | %.2f× | %.2f× |" % (name, r["argo"], r["gin"], r["tuned"], g, t))
    lines.append("| geometric mean | | | | **%.2f×** | **%.2f×** |" % (geomean(ratios_gin), geomean(ratios_tuned)))
    if under_load:
        lines += ["", "Under load: pgbench -M prepared, %d s a point, the systems interleaved; "
                  "transactions per second (ratio: Argo's tps / jsonb's)." % seconds, "",
                  "| shape | clients | argo | gin | tuned | argo vs gin | argo vs tuned |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for (name, clients), r in under_load.items():
            lines.append("| %s | %d | %.0f | %.0f | %.0f | %.2f× | %.2f× |" % (
                name, clients, r["argo"], r["gin"], r["tuned"], r["argo"] / r["gin"], r["argo"] / r["tuned"]))
    lines += ["", "Shapes below 0.5× tuned: %s." % (", ".join(low) or "none"), "",
              "Tuned's indexes (beside each table's GIN on the document):", ""] + \
             ["- `%s`" % ix for ix in TUNED_INDEXES]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orders", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=None, help="only the shapes whose name contains this")
    ap.add_argument("--load-seconds", type=int, default=8,
                    help="seconds per pgbench point under load (0: none; the check runs each script briefly)")
    ap.add_argument("--check-only", action="store_true", help="2 rounds, answers compared, no report")
    ap.add_argument("--reuse", action="store_true",
                    help="the database already holds this scale's data (a developer's rerun; no report; "
                    "after a run's writes, shapes over the orders they inserted (no ship) and "
                    "sessions expiring meanwhile may differ, as the jsonb SQL writes them)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "out"))
    args = ap.parse_args()
    rounds = 2 if args.check_only else args.rounds
    conn = psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True)
    conn.execute("CREATE EXTENSION IF NOT EXISTS argo")
    log("generating %d orders ..." % args.orders)
    data = generate(args.orders, args.seed)
    emails = {d["cid"]: d["email"] for d in data["customers"]}
    if args.reuse:
        args.check_only = True
        loads, sizes = {}, {}
    else:
        log("loading ...")
        loads, sizes = load(conn, data)
    del data
    log("reads (ms: %s) ..." % ", ".join(SYSTEMS))
    reads, bad = run_reads(conn, args.orders, rounds, args.seed, emails, args.only)
    log("writes ...")
    writes, bad_w = run_writes(conn, args.orders, rounds, args.seed, args.only)
    bad += bad_w + ([] if args.only else same_state(conn))
    under_load = {}
    if not args.only and (args.check_only or args.load_seconds > 0):
        # after the comparison of every collection: these writes differ per system
        log("under load (tps: %s) ..." % ", ".join(SYSTEMS))
        under_load = run_load(conn, args.orders, emails, 0 if args.check_only else args.load_seconds)
    for b in bad:
        log("MISMATCH " + b)
    if not args.check_only:
        text_ = report(args.orders, rounds, machine_info(conn), loads, sizes, reads, writes, bad,
                       under_load, args.load_seconds)
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "appbench-%d.md" % args.orders)
        with open(path, "w") as f:
            f.write(text_)
        log(text_)
        log("report written to %s" % path)
    if args.check_only and not args.reuse:
        # the suite's later tests share this database: leave nothing
        for c in COLLECTIONS + ["daily"]:
            conn.execute("SELECT argo_drop_collection(%s, true)", (c,))
            for system in ("gin", "tuned"):
                conn.execute("DROP TABLE IF EXISTS %s" % tbl(system, c))
    shapes = len(reads) + len(writes)
    print("appbench check: %d passed, %d failed" % (shapes - min(shapes, len(bad)), min(shapes, len(bad))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
