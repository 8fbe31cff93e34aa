-- An AND where one term finds few objects and the others many: the few
-- objects are judged on themselves for the other terms (exec/plan.c,
-- plan_and_driver), instead of every term's objects found and
-- intersected. The answers must be what the terms select together.
CREATE TABLE dv_docs AS
  SELECT i, jsonb_build_object('s', (ARRAY['new', 'paid', 'shipped'])[1 + i % 3], 'n', i,
                               't', 'd' || lpad((i % 500)::text, 3, '0'),
                               'items', jsonb_build_array(jsonb_build_object('q', i % 7), jsonb_build_object('q', i % 5)))
         || CASE WHEN i % 11 = 0 THEN '{"x": null}'::jsonb WHEN i % 13 = 0 THEN '{"x": 1}'::jsonb ELSE '{}'::jsonb END AS doc
    FROM generate_series(1, 6000) i;
SELECT argo_create_collection('dv3', 'argo3'), argo_create_collection('dv1', 'argo1');
SELECT argo_load(c, 'SELECT doc FROM dv_docs ORDER BY i') FROM unnest(ARRAY['dv3', 'dv1']) c;
-- what Argo returns, and what the same condition over the documents keeps
CREATE FUNCTION dv_same(coll text, argo_where text, sql_where text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  a int[];
  b int[];
BEGIN
  SELECT array_agg((x->>'n')::int ORDER BY (x->>'n')::int) INTO a
    FROM argo_query(format('SELECT n FROM %s WHERE %s', coll, argo_where)) x;
  EXECUTE format('SELECT array_agg(i ORDER BY i) FROM dv_docs d WHERE %s', sql_where) INTO b;
  RETURN a IS NOT DISTINCT FROM b AND coalesce(array_length(a, 1), 0) > 0;
END $$;
-- whether the plan judges objects one by one
CREATE FUNCTION dv_driven(coll text, argo_where text) RETURNS boolean LANGUAGE sql AS $$
  SELECT count(*) > 0 FROM argo_explain(format('SELECT n FROM %s WHERE %s', coll, argo_where)) e
   WHERE e LIKE '%argo_filter_test%'
$$;
SELECT c,
  dv_driven(c, $$s = 'paid' AND n BETWEEN 100 AND 400$$) AS driven,
  dv_same(c, $$s = 'paid' AND n BETWEEN 100 AND 400$$,
             $$doc->>'s' = 'paid' AND i BETWEEN 100 AND 400$$) AS range_and_equality,
  dv_same(c, $$n < 50 AND s = 'paid' AND t LIKE 'd0%'$$,
             $$i < 50 AND doc->>'s' = 'paid' AND doc->>'t' LIKE 'd0%'$$) AS three_terms,
  dv_same(c, $$n BETWEEN 10 AND 200 AND NOT s = 'new'$$,
             $$i BETWEEN 10 AND 200 AND doc->>'s' <> 'new'$$) AS with_not,
  dv_same(c, $$n <= 300 AND (s = 'new' OR EXISTS x)$$,
             $$i <= 300 AND (doc->>'s' = 'new' OR doc ? 'x')$$) AS with_or,
  dv_same(c, $$n >= 5800 AND s IN ('new', 'shipped') AND x IS NULL$$,
             $$i >= 5800 AND doc->>'s' IN ('new', 'shipped') AND doc->'x' = 'null'$$) AS in_and_null,
  dv_same(c, $$n >= 5800 AND t >= 'd250' AND NOT EXISTS x$$,
             $$i >= 5800 AND doc->>'t' >= 'd250' AND NOT doc ? 'x'$$) AS not_exists,
  dv_same(c, $$t = 'd007' AND s = 'paid'$$,
             $$doc->>'t' = 'd007' AND doc->>'s' = 'paid'$$) AS string_driver
  FROM unnest(ARRAY['dv3', 'dv1']) c;
-- with a filter [? …] among the other terms (Argo/3; filters are judged the same way either side)
SELECT dv_driven('dv3', $$n < 300 AND EXISTS items[? q >= 6]$$) AS driven,
       dv_same('dv3', $$n < 300 AND EXISTS items[? q >= 6]$$,
               $$i < 300 AND EXISTS (SELECT FROM jsonb_array_elements(doc->'items') e WHERE (e->>'q')::int >= 6)$$) AS filter_term;
-- an alias of the one collection, before each path (filters too)
SELECT count(*) = (SELECT count(*) FROM dv_docs WHERE i < 400 AND doc->>'s' = 'new' AND i % 7 = 6) AS alias_paths
  FROM argo_query($$SELECT * FROM dv3 AS d WHERE d.n < 400 AND d.s = 'new' AND EXISTS d.items[? q = 6]$$);
-- in a join, among each FROM item's own terms
SELECT (SELECT count(*) FROM argo_explain($$SELECT a.t, b.n FROM dv3 AS a INNER JOIN dv3 AS b ON (a.t = b.t) WHERE b.s = 'paid' AND b.n < 100$$) e
         WHERE e LIKE '%argo_filter_test%') > 0 AS join_driven,
       (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query(
          $$SELECT a.n, b.n FROM dv3 AS a INNER JOIN dv3 AS b ON (a.t = b.t) WHERE b.s = 'paid' AND b.n < 100$$) x)
     = (SELECT array_agg(x::text ORDER BY x::text) FROM (
          SELECT jsonb_build_object('a', jsonb_build_object('n', a.i), 'b', jsonb_build_object('n', b.i)) AS x
            FROM dv_docs a JOIN dv_docs b ON a.doc->'t' = b.doc->'t'
           WHERE b.doc->>'s' = 'paid' AND b.i < 100) j) AS join_same;
-- an aggregate and a write take the same objects
SELECT x->>'count' = (SELECT count(*)::text FROM dv_docs WHERE doc->>'s' = 'shipped' AND i BETWEEN 1000 AND 1600) AS counted
  FROM argo_query($$SELECT COUNT(*) FROM dv3 WHERE s = 'shipped' AND n BETWEEN 1000 AND 1600$$) x;
SELECT x->>'updated' = (SELECT count(*)::text FROM dv_docs WHERE doc->>'s' = 'shipped' AND i BETWEEN 1000 AND 1600) AS updated
  FROM argo_query($$UPDATE dv3 SET seen = true WHERE s = 'shipped' AND n BETWEEN 1000 AND 1600$$) x;
SELECT count(*) = (SELECT count(*) FROM dv_docs WHERE doc->>'s' = 'shipped' AND i BETWEEN 1000 AND 1600) AS seen
  FROM argo_query('SELECT n FROM dv3 WHERE seen = true') x;
-- the updated objects' documents moved: the value rows' hints (doctid)
-- are stale for them, and their documents are found by key instead
SELECT c, dv_driven(c, $$n BETWEEN 900 AND 1700 AND s = 'shipped' AND NOT EXISTS seen$$) AS driven,
       dv_same(c, $$n BETWEEN 900 AND 1700 AND s = 'shipped' AND NOT EXISTS seen$$,
                  $$i BETWEEN 900 AND 1700 AND doc->>'s' = 'shipped' AND NOT (i BETWEEN 1000 AND 1600)$$) AS after_update
  FROM unnest(ARRAY['dv3']) c;
-- an aggregate whose WHERE finds a sixteenth of the objects or more reads
-- its keys' rows whole (exec/plan.c, plan_values_setwise): the same groups
CREATE FUNCTION dv_groups(coll text) RETURNS boolean LANGUAGE sql AS $$
  SELECT (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query(format(
            'SELECT s, COUNT(*) AS n, SUM(n) AS total, MIN(t) AS lo, MAX(x) AS hi, COUNT(DISTINCT t) AS ts FROM %s WHERE n > 500 GROUP BY s', coll)) x)
       = (SELECT array_agg(x::text ORDER BY x::text) FROM (
            SELECT jsonb_build_object('s', doc->'s', 'n', count(*), 'total', sum(i), 'lo', min(doc->>'t'),
                                      'hi', max((doc->>'x')::int), 'ts', count(DISTINCT doc->>'t')) AS x
              FROM dv_docs WHERE i > 500 GROUP BY doc->'s') g)
$$;
SELECT c, dv_groups(c) AS setwise_groups,
       (SELECT count(*) > 0 FROM argo_explain(format('SELECT s, COUNT(*) FROM %s WHERE n > 500 GROUP BY s', c)) e
         WHERE e LIKE '%OFFSET 0)%') AS rows_whole
  FROM unnest(ARRAY['dv3', 'dv1']) c;
DROP FUNCTION dv_groups(text);
-- a join's aggregate whose one side finds more objects than the other's
-- collection holds: the other's rows read whole, its keys' values too
SELECT argo_create_collection('dvs');
SELECT argo_load('dvs', $$SELECT jsonb_build_object('t', 'd' || lpad(i::text, 3, '0'), 'k', 'k' || (i % 4)) FROM generate_series(0, 499) i$$);
SELECT (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query(
          $$SELECT b.k, COUNT(*) AS n, SUM(a.n) AS total FROM dv3 AS a INNER JOIN dvs AS b ON (a.t = b.t) WHERE a.n < 3000 GROUP BY b.k$$) x)
     = (SELECT array_agg(x::text ORDER BY x::text) FROM (
          SELECT jsonb_build_object('b', jsonb_build_object('k', 'k' || (substr(a.doc->>'t', 2)::int % 4)), 'n', count(*), 'total', sum(a.i)) AS x
            FROM dv_docs a WHERE a.i < 3000 GROUP BY substr(a.doc->>'t', 2)::int % 4) j) AS join_groups,
       (SELECT count(*) FROM argo_explain($$SELECT b.k, COUNT(*) AS n FROM dv3 AS a INNER JOIN dvs AS b ON (a.t = b.t) WHERE a.n < 3000 GROUP BY b.k$$) e
         WHERE e LIKE '%OFFSET 0)%') >= 2 AS rows_whole;
SELECT argo_drop_collection('dvs');
-- terms that are all common, or all rare: intersected as before
SELECT dv_driven('dv3', $$t >= 'd010' AND n > 100$$) AS all_common,
       dv_driven('dv3', $$n < 20 AND t < 'd010'$$) AS all_rare;
DROP FUNCTION dv_same(text, text, text);
DROP FUNCTION dv_driven(text, text);
SELECT argo_drop_collection('dv3'), argo_drop_collection('dv1');
DROP TABLE dv_docs;
