-- ORDER BY one path with LIMIT reads the typed indexes in order instead of
-- sorting every object.  Whatever the path, direction, WHERE, projection,
-- LIMIT and OFFSET, it must return exactly the slice that the full sort
-- (no LIMIT) gives.
SELECT argo_create_collection('ord1', 'argo1');
-- values of every kind at "k", ties, long strings sharing a 256-char
-- prefix, and objects where k is null, a container or missing
CREATE TABLE ord_docs AS
SELECT i, jsonb_build_object('i', i, 'g', i % 3) ||
       CASE i % 9
         WHEN 0 THEN jsonb_build_object('k', (i % 7) - 3)
         WHEN 1 THEN jsonb_build_object('k', ((i % 5) * 1.5))
         WHEN 2 THEN jsonb_build_object('k', 'w' || (i % 4))
         WHEN 3 THEN jsonb_build_object('k', repeat('x', 256) || (i % 3))
         WHEN 4 THEN jsonb_build_object('k', (i % 2 = 0))
         WHEN 5 THEN '{"k": null}'::jsonb
         WHEN 6 THEN '{"k": {"a": 1}}'::jsonb
         WHEN 7 THEN '{"k": [1, 2]}'::jsonb
         ELSE '{}'::jsonb
       END AS doc
FROM generate_series(1, 200) i;
SELECT count(*) FROM ord_docs d, argo_query('INSERT INTO ord3 OBJECT $1', d.doc);
SELECT argo_load('ord1', 'SELECT doc FROM ord_docs ORDER BY i');

-- mismatches between q LIMIT l OFFSET o and the slice of q's full result
CREATE FUNCTION topn_mismatches(q text, l int, o int) RETURNS bigint
LANGUAGE sql AS $$
  WITH full_ AS (SELECT row_number() OVER () AS n, x FROM argo_query(q) x),
       want AS (SELECT n - o AS n, x FROM full_ WHERE n > o AND n <= o + l),
       got AS (SELECT row_number() OVER () AS n, x
                 FROM argo_query(format('%s LIMIT %s OFFSET %s', q, l, o)) x)
  SELECT count(*) FROM want FULL JOIN got USING (n)
   WHERE want.x IS DISTINCT FROM got.x
$$;

SELECT c, q, sum(topn_mismatches(replace(q, 'COLL', c), l, o)) AS mismatches
FROM (VALUES ('ord3'), ('ord1')) cs(c),
     (VALUES ('SELECT * FROM COLL ORDER BY k'),
             ('SELECT * FROM COLL ORDER BY k DESC'),
             ('SELECT i, k FROM COLL ORDER BY k'),
             ('SELECT k FROM COLL ORDER BY k DESC'),
             ('SELECT * FROM COLL WHERE g = 1 ORDER BY k'),
             ('SELECT * FROM COLL WHERE g <> 1 ORDER BY k DESC'),
             ('SELECT i FROM COLL WHERE i > 150 ORDER BY k'),
             ('SELECT * FROM COLL ORDER BY nothing'),
             ('SELECT * FROM COLL ORDER BY nothing DESC'),
             ('SELECT * FROM COLL ORDER BY g DESC'),
             -- WHERE bounding the ORDER BY path only: a range scan
             ('SELECT * FROM COLL WHERE k >= ''w1'' ORDER BY k'),
             ('SELECT i, k FROM COLL WHERE k > 0 AND k <= 3 ORDER BY k DESC'),
             ('SELECT * FROM COLL WHERE k BETWEEN ''w'' AND ''y'' ORDER BY k DESC'),
             ('SELECT k FROM COLL WHERE k < ''xxxx'' ORDER BY k'),
             ('SELECT * FROM COLL WHERE k = true ORDER BY k'),
             ('SELECT * FROM COLL WHERE k > -10 AND k < ''z'' ORDER BY k')) qs(q),
     (VALUES (1, 0), (5, 0), (10, 3), (40, 20), (300, 0), (7, 195), (0, 0)) ls(l, o)
GROUP BY c, q ORDER BY c, q;

-- every object sorted without LIMIT is rebuilt per directory row and sorted by
-- its keys in SQL: the same sequence as the probing plan (forced by a WHERE true of
-- every object)
SELECT c, d, (SELECT array_agg(x) FROM argo_query(format('SELECT * FROM %s ORDER BY k %s, g', c, d)) x) =
             (SELECT array_agg(x) FROM argo_query(format('SELECT * FROM %s WHERE EXISTS i OR NOT EXISTS i ORDER BY k %s, g', c, d)) x)
       AS same_order
FROM (VALUES ('ord3'), ('ord1')) cs(c), (VALUES (''), ('DESC')) ds(d);
SELECT count(*) > 0 AS says_sorted_stream
FROM argo_explain('SELECT * FROM ord3 ORDER BY k') e WHERE e = '-- strategy: every object';

-- the fast path is what runs: the plan reads the (keyid, value) index
SELECT count(*) > 0 AS uses_value_index
FROM argo_explain('SELECT * FROM ord3 ORDER BY k LIMIT 3') e
WHERE e LIKE '%Index%Scan%ord3_num_keyid_valnum%';

-- across types: numbers, then strings, then booleans, then the rest
SELECT x FROM argo_query('SELECT i, k FROM ord3 ORDER BY k LIMIT 3 OFFSET 44') x;
SELECT x FROM argo_query('SELECT i, k FROM ord3 ORDER BY k LIMIT 3 OFFSET 110') x;
SELECT x FROM argo_query('SELECT i, k FROM ord1 ORDER BY k DESC LIMIT 3 OFFSET 87') x;

-- a projection of every object reads each table's rows in heap order and
-- merges them by object id; once updates have put rows out of object
-- order it withdraws what it emitted and sorts instead: the same objects
-- in the same order either way (the probing plan, forced by a WHERE true
-- of every object, is the reference)
SELECT argo_load('heapord', 'SELECT jsonb_build_object(''i'', i, ''s'', ''v'' || i, ''b'', i % 2 = 0) FROM generate_series(1, 3000) i');
CREATE FUNCTION proj_same(q text) RETURNS boolean LANGUAGE sql AS $$
  SELECT (SELECT array_agg(x) FROM argo_query(q) x) =
         (SELECT array_agg(x) FROM argo_query(replace(q, 'FROM heapord', 'FROM heapord WHERE EXISTS i OR NOT EXISTS i')) x)
$$;
SELECT proj_same('SELECT i, s FROM heapord') AS in_order, proj_same('SELECT b, s FROM heapord') AS two_tables;
SELECT x FROM argo_query('UPDATE heapord SET s = "moved", i = 0 WHERE i <= 2') x;
SELECT proj_same('SELECT i, s FROM heapord') AS after_update,
       proj_same('SELECT i, s FROM heapord') AS again,
       (SELECT count(*) FROM argo_query('SELECT s FROM heapord')) AS objects;
SELECT x FROM argo_query('SELECT i, s FROM heapord') x LIMIT 3;
SELECT argo_drop_collection('heapord');
