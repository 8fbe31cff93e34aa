-- Joins through arrays (reference.md §4; MongoDB's $lookup with an array
-- localField): ON (o.items[*].sku = p.sku) pairs an order with each
-- product whose sku is among its items', once however many items match.
-- Checked against the same join written over jsonb, on both formats.
SELECT argo_create_collection('aj_o3', 'argo3'), argo_create_collection('aj_p3', 'argo3'),
       argo_create_collection('aj_o1', 'argo1'), argo_create_collection('aj_p1', 'argo1');
CREATE TABLE aj_orders AS
SELECT i, jsonb_build_object('i', i, 'items', (
         SELECT coalesce(jsonb_agg(jsonb_build_object('sku', CASE WHEN (i + e) % 7 = 0 THEN to_jsonb((i + e) % 4)
                                                                  ELSE to_jsonb('s' || ((i * e) % 6)) END)), '[]'::jsonb)
         FROM generate_series(1, i % 4) e)) AS doc
FROM generate_series(1, 40) i;
CREATE TABLE aj_products AS
SELECT j, jsonb_build_object('j', j, 'sku', CASE WHEN j <= 6 THEN to_jsonb('s' || (j - 1)) ELSE to_jsonb(j - 7) END) AS doc
FROM generate_series(1, 9) j;
SELECT count(*) FROM aj_orders d, argo_query('INSERT INTO aj_o3 OBJECT $1', d.doc);
SELECT count(*) FROM aj_orders d, argo_query('INSERT INTO aj_o1 OBJECT $1', d.doc);
SELECT count(*) FROM aj_products d, argo_query('INSERT INTO aj_p3 OBJECT $1', d.doc);
SELECT count(*) FROM aj_products d, argo_query('INSERT INTO aj_p1 OBJECT $1', d.doc);

-- the pairs jsonb gives: an order and a product whose sku equals some item's
CREATE VIEW aj_expected AS
SELECT o.i, p.j FROM aj_orders o JOIN aj_products p
  ON EXISTS (SELECT 1 FROM jsonb_array_elements(o.doc->'items') e WHERE e->'sku' = p.doc->'sku');

SELECT oc, pc, count(*) AS pairs,
       (SELECT count(*) FROM aj_expected) AS expected,
       count(*) FILTER (WHERE (g.i, g.j) NOT IN (SELECT i, j FROM aj_expected)) AS wrong
FROM (VALUES ('aj_o3', 'aj_p3'), ('aj_o1', 'aj_p1'), ('aj_o3', 'aj_p1')) cs(oc, pc),
     LATERAL (SELECT (x->'o'->>'i')::int AS i, (x->'p'->>'j')::int AS j
                FROM argo_query(format('SELECT o.i, p.j FROM %s AS o JOIN %s AS p ON (o.items[*].sku = p.sku)', oc, pc)) x) g
GROUP BY 1, 2 ORDER BY 1, 2;
-- the other way round, and LEFT JOIN: an order none of whose items matches has p null
SELECT count(*) AS pairs FROM argo_query('SELECT p.j, o.i FROM aj_p3 AS p JOIN aj_o1 AS o ON (p.sku = o.items[*].sku)');
SELECT count(*) FILTER (WHERE x->'p' = 'null') AS unmatched,
       (SELECT count(*) FROM aj_orders o WHERE NOT EXISTS (SELECT 1 FROM aj_expected e WHERE e.i = o.i)) AS expected_unmatched
FROM argo_query('SELECT o.i, p.j FROM aj_o3 AS o LEFT JOIN aj_p3 AS p ON (o.items[*].sku = p.sku)') x;
SELECT x FROM argo_query('SELECT o.i, p.j FROM aj_o3 AS o JOIN aj_p3 AS p ON (o.items[*].sku = p.sku) WHERE o.i < 6 ORDER BY o.i, p.j') x;
-- errors
SELECT * FROM argo_query('SELECT * FROM aj_o3 AS a JOIN aj_o1 AS b ON (a.items[*].sku = b.items[*].sku)');
SELECT * FROM argo_query('SELECT * FROM aj_o3 AS a JOIN aj_p3 AS b ON (a.items[? sku = ''s1''].sku = b.sku)');
SELECT argo_drop_collection('aj_o3'), argo_drop_collection('aj_p3'), argo_drop_collection('aj_o1'), argo_drop_collection('aj_p1');
