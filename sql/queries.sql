-- Whole values (reference.md §7), joins (JOIN, LEFT JOIN: §4), ILIKE and
-- regular expressions, and SQL the language does not have (0A000).
SELECT argo_create_collection('v1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"n": 1, "address": {"city": "Paris", "zip": "75001"}, "kids": ["a", "b"], "items": [{"sku": "pen", "qty": 2}, {"sku": "ink"}]}'),
  ('{"n": 2, "address": {"zip": "75001", "city": "Paris"}, "kids": ["b", "a"], "items": [{"qty": 2.0, "sku": "pen"}]}'),
  ('{"n": 3, "address": {"city": "Paris"}, "kids": [], "items": []}'),
  ('{"n": 4, "address": "Paris", "kids": "a"}'),
  ('{"n": 5}'),
  ('{"n": 6, "address": {}, "kids": [[1], {}], "items": [{}, 5]}'),
  ('{"n": 7, "address": {"city": "Paris", "zip": "75001", "geo": null}}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO v3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO v1 OBJECT $1', doc::jsonb)) i;

CREATE FUNCTION v_run(coll text, q text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x::text, E'\n' ORDER BY n), '(none)')
    FROM argo_query(format(q, coll)) WITH ORDINALITY AS t(x, n)
$$;
CREATE FUNCTION v_on_both(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r3 text := v_run('v3', q);
  r1 text := v_run('v1', q);
BEGIN
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\nargo3:\n%\nargo1:\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;
CREATE FUNCTION v_ns(q text) RETURNS int[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg((x->>'n')::int ORDER BY (x->>'n')::int), '{}')
    FROM jsonb_array_elements(('[' || replace(nullif(v_on_both(q), '(none)'), E'\n', ',') || ']')::jsonb) x
$$;
CREATE FUNCTION v_truth(pred text) RETURNS TABLE (is_true int[], is_false int[])
LANGUAGE sql AS $$
  SELECT v_ns('SELECT n FROM %s WHERE ' || pred), v_ns('SELECT n FROM %s WHERE NOT (' || pred || ')')
$$;

-- p = json compares the whole value as jsonb's = does: keys in any
-- order, arrays in order, numbers by value; TRUE or FALSE where p has a
-- value, UNKNOWN where it has none
SELECT * FROM v_truth('address = {"city": "Paris", "zip": "75001"}');
SELECT * FROM v_truth('address != {"zip": "75001", "city": "Paris"}');
SELECT * FROM v_truth('kids = ["a", "b"]');
SELECT * FROM v_truth('kids = []');
SELECT * FROM v_truth('address = {}');
SELECT * FROM v_truth('kids = [[1], {}]');
SELECT * FROM v_truth('address = {"city": "Paris", "zip": "75001", "geo": null}');
SELECT * FROM v_truth('kids IN (["b", "a"], "a", [])');
SELECT * FROM v_truth('items[0] = {"qty": 2, "sku": "pen"}');
-- on a path with [*], existential: values of the literal's kind (objects)
SELECT * FROM v_truth('items[*] = {"sku": "pen", "qty": 2}');
SELECT * FROM v_truth('items[*] != {"sku": "pen", "qty": 2}');
SELECT * FROM v_truth('{} = ANY items');
-- parameters holding objects and arrays; IN $n with whole values
SELECT x FROM argo_query('SELECT n FROM v3 WHERE address = $1', '{"zip": "75001", "city": "Paris"}') x;
SELECT x FROM argo_query('SELECT n FROM v3 WHERE kids IN $1', '[["b", "a"], "a"]') x;
-- an UPSERT's terms may be whole values
SELECT * FROM argo_query('UPSERT v3 SET hits += 1 WHERE tag = {"t": 1}');
SELECT * FROM argo_query('UPSERT v3 SET hits += 1 WHERE tag = {"t": 1}');
SELECT x FROM argo_query('SELECT tag, hits FROM v3 WHERE tag = {"t": 1}') x;
-- whole values have no order
SELECT * FROM argo_query('SELECT n FROM v3 WHERE address < {"a": 1}');
SELECT * FROM argo_query('SELECT n FROM v3 WHERE address BETWEEN {"a": 1} AND 5');
SELECT * FROM argo_query('SELECT n FROM v3 WHERE address LIKE $1', '[1]');
SELECT * FROM argo_query('SELECT n FROM v3 WHERE ID() = $1', '[1]');

-- ILIKE, ~ and ~* (PostgreSQL's POSIX regular expressions)
SELECT * FROM v_truth('address.city ILIKE ''par%%''');
SELECT * FROM v_truth('address.city ~ ''^P.r''');
SELECT * FROM v_truth('address.city ~* ''^p.r''');
SELECT * FROM v_truth('items[*].sku ~ ''n$''');
SELECT * FROM argo_query('SELECT n FROM v3 WHERE address.city ~ ''(''');
SELECT * FROM argo_query('SELECT n FROM v3 WHERE address.city ILIKE 5');

-- JOIN is INNER JOIN; LEFT [OUTER] JOIN keeps every left object, its
-- right part null without a match: $lookup
SELECT argo_create_collection('cust'), argo_create_collection('ord', 'argo1');
SELECT * FROM argo_query($$INSERT INTO cust OBJECT {"cid": 1, "name": "Ada"}, {"cid": 2, "name": "Bob"}, {"cid": 3, "name": "Cy"}$$);
SELECT * FROM argo_query($$INSERT INTO ord OBJECT {"oid": 10, "cid": 1, "total": 5}, {"oid": 11, "cid": 1, "total": 7}, {"oid": 12, "cid": 2, "total": 1}, {"oid": 13, "cid": 9}$$);
SELECT x FROM argo_query('SELECT c.name, o.total FROM cust AS c JOIN ord AS o ON c.cid = o.cid') x;
-- values pair within one type: a type a key holds none of (Argo/3) gets no branch
SELECT x FROM argo_query('SELECT c.name, d.name FROM cust AS c JOIN cust AS d ON c.cid = d.cid') x;
SELECT count(*) FILTER (WHERE e LIKE '%UNION ALL%') AS unions, count(*) FILTER (WHERE e LIKE '%FROM argo_data.cust_num x%') AS numbers
  FROM argo_explain('SELECT c.name, d.name FROM cust AS c JOIN cust AS d ON c.cid = d.cid') e;
SELECT count(*) AS none FROM argo_query('SELECT * FROM cust AS c JOIN cust AS d ON c.nokey = d.cid') x;
-- one key in two FROM items is two paths: their equalities are not one IN list
SELECT x FROM argo_query('SELECT o.oid, p.oid FROM ord AS o JOIN ord AS p ON o.cid = p.cid WHERE o.oid = 11 OR p.oid = 10') x;
SELECT count(*) AS lefts FROM argo_query('SELECT * FROM cust AS c LEFT JOIN cust AS d ON c.name = d.cid') x;
SELECT x FROM argo_query('SELECT c.name, o.total FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid') x;
SELECT x FROM argo_query('SELECT * FROM cust AS c LEFT OUTER JOIN ord AS o ON (c.cid = o.cid) WHERE NOT EXISTS o') x;
SELECT x FROM argo_query('SELECT c.name FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid WHERE EXISTS o') x;
-- a null part has no values: o.total > 2 is UNKNOWN, EXISTS o.total FALSE
SELECT x FROM argo_query('SELECT c.name, o.total FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid WHERE o.total > 2 OR NOT EXISTS o.total') x;
SELECT x FROM argo_query('SELECT c.name, o.total FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid WHERE c.name != ''Ada''') x;
SELECT x FROM argo_query('SELECT c.name, o.total FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid ORDER BY o.total DESC LIMIT 2') x;
SELECT x FROM argo_query('SELECT o.oid, c.name FROM ord AS o LEFT JOIN cust AS c ON o.cid = c.cid') x;
SELECT x FROM argo_query('SELECT c.name, COUNT(o.oid) AS n, SUM(o.total) AS t FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid GROUP BY c.name ORDER BY c.name') x;
SELECT x FROM argo_query('SELECT COUNT(*) AS tuples FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid') x;
-- three collections: an inner join after a left one drops the nulls, as SQL's
SELECT x FROM argo_query('SELECT c.name, o.oid, p.name FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid JOIN cust AS p ON o.cid = p.cid') x;
SELECT x FROM argo_query('SELECT c.name, o.oid, p.oid FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid LEFT JOIN ord AS p ON o.oid = p.oid') x;
-- the same through SQL (row-level security on a part reads it so)
ALTER TABLE argo_data.ord_data ENABLE ROW LEVEL SECURITY;
CREATE ROLE argo_join_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA argo_data TO argo_join_reader;
CREATE POLICY all_rows ON argo_data.ord_data FOR SELECT USING (true);
SET ROLE argo_join_reader;
SELECT count(*) > 0 AS through_sql FROM argo_explain('SELECT c.name FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid') e WHERE e LIKE '%join, parts through SQL%';
SELECT x FROM argo_query('SELECT c.name, o.total FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid') x;
SELECT x FROM argo_query('SELECT * FROM cust AS c LEFT JOIN ord AS o ON c.cid = o.cid WHERE c.cid > 1') x;
RESET ROLE;
DROP POLICY all_rows ON argo_data.ord_data;
ALTER TABLE argo_data.ord_data DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON ALL TABLES IN SCHEMA argo_data FROM argo_join_reader;
DROP ROLE argo_join_reader;

-- AS may be left out before an alias, as in SQL
SELECT v_run('cust', 'SELECT c.name, o.total FROM %s c JOIN ord o ON c.cid = o.cid WHERE o.total > 4');
-- what the language does not have: 0A000, naming it
\set VERBOSITY terse
SELECT * FROM argo_query('SELECT name FROM cust UNION SELECT name FROM cust');
SELECT * FROM argo_query('SELECT * FROM cust AS c RIGHT JOIN ord AS o ON c.cid = o.cid');
SELECT * FROM argo_query('SELECT * FROM cust AS c FULL JOIN ord AS o ON c.cid = o.cid');
SELECT * FROM argo_query('SELECT * FROM cust CROSS JOIN ord');
SELECT * FROM argo_query('SELECT * FROM cust, ord');
SELECT * FROM argo_query('SELECT lower(name) FROM cust');
SELECT * FROM argo_query('SELECT * FROM cust WHERE cid IN (SELECT cid FROM ord)');
SELECT * FROM argo_query('SELECT * FROM cust WHERE EXISTS (SELECT 1)');
SELECT * FROM argo_query('SELECT cid + 1 FROM cust');
SELECT * FROM argo_query('SELECT cid * 2 FROM cust');
SELECT * FROM argo_query('SELECT c.* FROM cust AS c JOIN ord AS o ON c.cid = o.cid');
SELECT * FROM argo_query('SELECT name::text FROM cust');
SELECT * FROM argo_query('SELECT * FROM cust WHERE name = cid');
SELECT * FROM argo_query('WITH x AS (SELECT 1) SELECT * FROM x');
SELECT * FROM argo_query('SELECT * FROM (SELECT * FROM cust) AS x');
SELECT * FROM argo_query('SELECT * FROM cust AS c JOIN (SELECT * FROM ord) AS o ON c.cid = o.cid');
SELECT * FROM argo_query('SELECT * FROM cust AS c JOIN ord AS o ON c.cid = ID()');
SELECT * FROM argo_query('SELECT * FROM cust AS c JOIN ord AS o ON (ID() = o.cid)');
SELECT * FROM argo_query('INSERT INTO cust VALUES (1)');
SELECT * FROM argo_query('INSERT INTO cust SELECT * FROM ord');
SELECT * FROM argo_query('SELECT * FROM cust LIMIT ALL');
SELECT * FROM argo_query('SELECT * FROM cust WHERE name SIMILAR TO ''a''');
SELECT * FROM argo_query('SELECT COUNT(*) OVER () FROM cust');
SELECT * FROM argo_query('SELECT CASE WHEN cid = 1 THEN 2 END FROM cust');
SELECT * FROM argo_query('SELECT * FROM cust c RIGHT JOIN ord o ON c.cid = o.cid');
SELECT * FROM argo_query('SELECT * FROM cust NATURAL JOIN ord');
SELECT * FROM argo_query('SELECT SUM(DISTINCT cid) FROM cust');
SELECT * FROM argo_query('SELECT * FROM cust c JOIN ord o ON (c.cid = o.cid AND c.name = o.who)');
SELECT * FROM argo_query('SELECT * FROM cust c JOIN ord o ON c.cid < o.cid');
SELECT * FROM argo_query('UPDATE cust SET cid = 1 RETURNING name');
-- a plain mistake is still a syntax error
SELECT * FROM argo_query('SELEC * FROM cust');
SELECT * FROM argo_query('SELECT * FROM cust WHERE name = ''x'' AND');
\set VERBOSITY default

SELECT argo_drop_collection('v3'), argo_drop_collection('v1'), argo_drop_collection('cust'), argo_drop_collection('ord');
DROP FUNCTION v_truth(text), v_ns(text), v_on_both(text), v_run(text, text);
