-- Lossless storage: every object comes back from SELECT * equal (as jsonb)
-- to what went in, on both formats.
CREATE TABLE docs (id serial PRIMARY KEY, doc jsonb NOT NULL);
INSERT INTO docs (doc) VALUES
  ('{}'),
  ('{"a": null}'),
  ('{"a": {}, "b": [], "c": [{}, [], null, [[]], {"d": {}}]}'),
  ('{"nested": {"deeper": {"deepest": [1, [2, [3, [4, {}]]]]}}}'),
  ('{"arr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 100, 1000]}'),
  ('{"mixed": ["s", 1, true, false, null, {"k": "v"}, [1, "2"]]}'),
  ('{"": "empty key", "a": {"": {"": []}}}'),
  ('{"a.b": 1, "a[0]": 2, "a]": 3, "a\\b": 4, "`q`": 5, "\"dq\"": 6, "''sq''": 7, "{}": 8, "[]": 9, "x{": {"}": {"[": []}}}'),
  ('{"a.b": {"c.d": [{"e[1]": {}}]}}'),
  ('{"unicode": "héllo wörld ☃ 😀 日本語", "ключ": "значение", "😀": ["😀"]}'),
  ('{"escapes": "tab\tnewline\nquote\"backslash\\ unit\u0001sep"}'),
  ('{"n": [0, -0, 0.1, 0.2, 1.5, -2.25, 1e-300, 5e-324, 1.7976931348623157e308, 9007199254740992, 123456.789e3, 1e21, 12345678901234568, 4.35, 100.0]}'),
  ('{"b": [true, false], "t": true, "f": false}'),
  ('{"select": 1, "count": 2, "FROM": 3, "where": {"and": [1]}}'),
  (('{"a": "' || repeat('long ', 30000) || '"}')::jsonb),
  (('{"a": "' || repeat('ü☃', 60000) || '", "b": ["' || repeat('z', 200000) || '"]}')::jsonb),
  ('{"k0": 0, "k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5, "k6": 6, "k7": 7, "k8": 8, "k9": 9, "k10": 10, "k11": 11}');
-- 100 levels of nesting, objects and arrays alternating
INSERT INTO docs (doc)
SELECT ('{"deep": ' || repeat('{"x": [', 50) || '"bottom"' || repeat(']}', 50) || '}')::jsonb;
-- a wide object
INSERT INTO docs (doc)
SELECT jsonb_object_agg('key' || i, i) FROM generate_series(1, 3000) i;

SELECT argo_create_collection('rt1', 'argo1');
SELECT count(*) FROM docs d, argo_query('INSERT INTO rt3 OBJECT $1', d.doc);
SELECT argo_load('rt1', 'SELECT doc FROM docs ORDER BY id');

-- object ids follow insertion order, and results come in object id order
CREATE FUNCTION roundtrip_failures(coll text, tail text DEFAULT '')
RETURNS TABLE (id int, got jsonb)
LANGUAGE sql AS $$
  WITH r AS (SELECT row_number() OVER () AS id, x AS doc
               FROM argo_query(format('SELECT * FROM %s %s', coll, tail)) x)
  SELECT d.id, r.doc FROM docs d FULL JOIN r USING (id)
   WHERE d.doc IS DISTINCT FROM r.doc
$$;
SELECT * FROM roundtrip_failures('rt3');
SELECT * FROM roundtrip_failures('rt1');
-- the same through the paths that fetch selected objects one by one
SELECT * FROM roundtrip_failures('rt3', 'LIMIT 1000');
SELECT * FROM roundtrip_failures('rt1', 'LIMIT 1000 OFFSET 0');
SELECT count(*) AS objects_back FROM argo_query('SELECT * FROM rt3');

-- numbers come back as jsonb gives them back: the shortest text of the
-- same double where that is the number's own text, trailing zeros kept
-- (100.0) (leaving out 1e-300, 5e-324 and the largest double, which print long)
SELECT (x->'n') - 8 - 7 - 6 FROM argo_query('SELECT n FROM rt3') x;
SELECT (x->'n') - 8 - 7 - 6 FROM argo_query('SELECT n FROM rt1') x;
SELECT (x->'n'->6)::text::float8, (x->'n'->7)::text::float8, (x->'n'->8)::text::float8
  FROM argo_query('SELECT n FROM rt1') x;

-- long strings went through the index (prefix) and come back whole
SELECT length(x->>'a') FROM argo_query('SELECT a FROM rt3 WHERE a LIKE ''long long%''') x;
SELECT x->'a' = to_jsonb(repeat('long ', 30000)) FROM argo_query($$SELECT a FROM rt3 WHERE a = $1$$, to_jsonb(repeat('long ', 30000))) x;
SELECT x->'a' = to_jsonb(repeat('long ', 30000)) FROM argo_query($$SELECT a FROM rt1 WHERE a = $1$$, to_jsonb(repeat('long ', 30000))) x;

-- numbers outside double's range are refused (others: numbers.sql)
SELECT * FROM argo_query('INSERT INTO rt1 OBJECT {"n": 1e400}');
SELECT * FROM argo_query('INSERT INTO rt3 OBJECT {"deep": [[["x"]]], "n": -1e-400}');
SELECT argo_count('rt3'), argo_count('rt1');

-- keys too long for the index are refused with a clear error
SELECT * FROM argo_query('INSERT INTO rt3 OBJECT $1', jsonb_build_object(repeat('k', 2000), 1));
SELECT * FROM argo_query('INSERT INTO rt3 OBJECT $1',
  (repeat('{"abcdefghij": ', 100) || '1' || repeat('}', 100))::jsonb);

-- only objects go into a collection
SELECT * FROM argo_query('INSERT INTO rt3 OBJECT [1, 2]');
SELECT * FROM argo_query('INSERT INTO rt3 OBJECT "s"');
SELECT * FROM argo_query('INSERT INTO rt3 OBJECT $1', '5');
SELECT argo_count('rt3'), argo_count('rt1');
