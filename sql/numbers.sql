-- Numbers (reference.md §1, docs/design.md Storage): every number within double's range goes in
-- and comes back numerically equal; where the double's shortest text is
-- not the number given, its exact text is kept and comes back unchanged,
-- while predicates, ordering and aggregates use the double.  Both formats,
-- every write path.
SELECT argo_create_collection('num3', 'argo3'), argo_create_collection('num1', 'argo1');
CREATE TEMP TABLE cases (k text, doc jsonb);
INSERT INTO cases VALUES
 ('tweet', '{"id": 505864942575034400, "media": [{"id": 505864941811257344}]}'),
 ('strict', '{"n": 4.73e21, "m": 9.5e16}'),
 ('geojson', '{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[-65.613616999999977, 18.206389], [-65.613616999999977, 18.222777999999998], [-65.599999999999994, 18.206389], [-65.613616999999977, 18.206389]]]}, "properties": {"name": "Culebra", "area": 30.1}}'),
 ('2^53', '{"a": 9007199254740992, "b": 9007199254740993, "c": -9007199254740993, "d": 9007199254740994}'),
 ('2^63', '{"a": 9223372036854775807, "b": 9223372036854775808, "c": -9223372036854775808, "d": 18446744073709551615}'),
 ('30 digits', '{"a": 123456789012345678901234567890}'),
 ('fractions', '{"a": 0.1000000000000000000001, "b": 3.141592653589793238462643383279, "c": 0.30000000000000004}'),
 ('subnormal', '{"a": 5e-324, "b": 2.2250738585072014e-308, "c": 4.9406564584124654e-324}'),
 ('limits', '{"a": 1e308, "b": 1.7976931348623157e308, "c": -1e308}'),
 ('zeros', '{"a": -0, "b": 0.0, "c": -0.0e5}'),
 ('short', '{"a": 1.0, "b": 0.1, "c": 100, "d": 1e2, "e": 1.5e-7}');
UPDATE cases SET doc = doc || jsonb_build_object('k', k);

-- through a literal, a parameter, a query load and a file load
\set file '/tmp/argo_regress_numbers.jsonl'
COPY (SELECT doc FROM cases) TO :'file' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT count(*) FROM cases c, argo_query('INSERT INTO num3 OBJECT ' || c.doc::text) x;
SELECT count(*) FROM cases c, argo_query('INSERT INTO num1 OBJECT ' || c.doc::text) x;
SELECT count(*) FROM cases c, argo_query('INSERT INTO num3 OBJECT $1', c.doc) x;
SELECT count(*) FROM cases c, argo_query('INSERT INTO num1 OBJECT $1', c.doc) x;
SELECT argo_load('num3', 'SELECT doc FROM pg_temp.cases'), argo_load('num1', 'SELECT doc FROM pg_temp.cases');
SELECT argo_load_file('num3', :'file'), argo_load_file('num1', :'file');

-- every object comes back equal to what went in (jsonb compares numbers exactly)
CREATE FUNCTION pg_temp.back(coll text, stmt text) RETURNS TABLE (k text, copies bigint, equal boolean)
LANGUAGE sql AS $$
  SELECT c.k, count(*), bool_and(x = c.doc)
  FROM argo_query(pg_catalog.replace(stmt, 'COLL', coll)) x JOIN pg_temp.cases c ON x->>'k' = c.k
  GROUP BY c.k ORDER BY c.k $$;
SELECT * FROM pg_temp.back('num3', 'SELECT * FROM COLL');
SELECT * FROM pg_temp.back('num1', 'SELECT * FROM COLL');
-- also when objects are found by a predicate, sorted, or rebuilt by argo_object
SELECT * FROM pg_temp.back('num3', 'SELECT * FROM COLL WHERE k >= ''2'' ORDER BY k LIMIT 100');
SELECT * FROM pg_temp.back('num1', 'SELECT * FROM COLL WHERE k >= ''2'' ORDER BY k LIMIT 100');
SELECT bool_and(argo_object('num3', i) = argo_object('num3', i + 11)) AS same3,
       bool_and(argo_object('num1', i) = argo_object('num1', i + 22)) AS same1
  FROM generate_series(1, 11) i;
-- as text: the exact digits, and the strict shortest text of a double
SELECT x FROM argo_query('SELECT n, m FROM num3 WHERE k = ''strict'' LIMIT 1') x;
SELECT x FROM argo_query('SELECT geometry FROM num1 WHERE k = ''geojson'' LIMIT 1') x;
SELECT x FROM argo_query('SELECT a, b, c, d FROM num3 WHERE k = ''2^63'' LIMIT 1') x;
SELECT x FROM argo_query('SELECT id, media FROM num1 WHERE k = ''tweet'' LIMIT 1') x;
-- a projection of every object (heap-order streams) keeps them too
SELECT x FROM argo_query('SELECT a FROM num3') x WHERE x->'a' IS NOT NULL GROUP BY x ORDER BY x::text;
SELECT x FROM argo_query('SELECT b FROM num1') x WHERE x->'b' IS NOT NULL GROUP BY x ORDER BY x::text;
-- the exact text is stored only where the double would not give it back
SELECT valnum, valexact FROM argo_data.num3_num WHERE objid <= 11 AND valexact IS NOT NULL ORDER BY objid, keyid;
SELECT count(*) FILTER (WHERE valexact IS NOT NULL) AS exact, count(*) AS numbers FROM argo_data.num1_data WHERE valnum IS NOT NULL;

-- predicates, ordering and aggregates use the double
SELECT x FROM argo_query('SELECT k FROM num3 WHERE a = 123456789012345678901234567891 LIMIT 1') x;
SELECT x FROM argo_query('SELECT k FROM num1 WHERE b = $1 LIMIT 1', '9007199254740992') x;
SELECT x FROM argo_query('SELECT COUNT(*) FROM num3 WHERE geometry.coordinates[0][0][0] = -65.61361699999998') x;
SELECT x FROM argo_query('SELECT a FROM num3 WHERE k = ''2^53'' ORDER BY b DESC, a LIMIT 2') x;
SELECT x FROM argo_query('SELECT MAX(a) AS top, SUM(a) AS total FROM num1 WHERE k = ''30 digits''') x;

-- writes: a new text of the same double is a change; += adds the numbers
-- as they are (exactly), and the result is stored by the same rule
SELECT * FROM argo_query('UPDATE num3 SET a = 123456789012345678901234567891 WHERE k = ''30 digits''');
SELECT * FROM argo_query('UPDATE num1 SET a = $1 WHERE k = ''30 digits''', '123456789012345678901234567891');
SELECT x FROM argo_query('SELECT a FROM num3 WHERE k = ''30 digits'' LIMIT 1') x;
SELECT * FROM argo_query('UPDATE num3 SET a += 1, more APPEND 0.1000000000000000000001 WHERE k = ''30 digits''');
SELECT * FROM argo_query('UPDATE num1 SET a += 1, more APPEND 0.1000000000000000000001 WHERE k = ''30 digits''');
SELECT x FROM argo_query('SELECT a, more FROM num3 WHERE k = ''30 digits''') x;
SELECT x FROM argo_query('SELECT a, more FROM num1 WHERE k = ''30 digits''') x;
SELECT * FROM argo_query('UPSERT num3 SET v = 18446744073709551617 WHERE k = ''upsert''');
SELECT * FROM argo_query('UPSERT num1 SET v = 18446744073709551617 WHERE k = ''upsert''');
SELECT x FROM argo_query('SELECT v FROM num3 WHERE k = ''upsert''') x;
SELECT x FROM argo_query('SELECT v FROM num1 WHERE k = ''upsert''') x;
-- a join's parts keep them
SELECT x FROM argo_query('SELECT a.n, b.m FROM num3 AS a INNER JOIN num1 AS b ON (a.n = b.n) WHERE a.k = ''strict'' LIMIT 1') x;
SELECT x FROM argo_query('SELECT a.a, b.b FROM num3 AS a INNER JOIN num1 AS b ON (a.b = b.b) WHERE a.k = ''fractions'' LIMIT 1') x;

-- only numbers outside double's range are refused (22003), everywhere
SELECT * FROM argo_query('INSERT INTO num3 OBJECT {"a": 1e400}');
SELECT * FROM argo_query('INSERT INTO num1 OBJECT $1', '{"a": -1e-400}');
SELECT * FROM argo_query('SELECT * FROM num3 WHERE a = $1', '1e400');
SELECT * FROM argo_query('UPDATE num1 SET a = 2e308');
SELECT argo_load('num3', $$SELECT '{"a": 1e-999}'::jsonb$$);

SELECT * FROM argo_check('num3');
SELECT * FROM argo_check('num1');
-- a kept text that is not its row's number is corruption, and said so
UPDATE argo_data.num3_num SET valexact = '12' WHERE valexact = '123456789012345678901234567892';
SELECT x FROM argo_query('SELECT a FROM num3 WHERE k = ''30 digits''') x;
UPDATE argo_data.num3_num SET valexact = 'x' WHERE valexact = '12';
SELECT * FROM argo_check('num3');
SELECT argo_drop_collection('num3'), argo_drop_collection('num1');

-- every number comes back with the text jsonb keeps (1.50 stays 1.50, 1.0
-- stays 1.0; jsonb writes 1e2 as 100 and -0.0 as 0.0): from kept
-- documents and from rows, whole and projected, both formats
SELECT argo_create_collection('asw1', 'argo1');
SELECT argo_create_collection('asw3n');
SELECT argo_keep_documents('asw3n', false);
CREATE TEMP TABLE written AS
  SELECT i, d FROM (VALUES (1, '{"price": 1.50, "qty": 1.0, "w": [2.000, 1e2, 1E+2, -0.0, 0.10, 1e-7, 0.1, 1.5e3, 12.50e-1], "o": {"x": 100.00}}'::jsonb),
                           (2, '{"price": 19.90, "qty": 3, "w": [], "o": {"x": 0.000}}'),
                           (3, '{"price": 12345678901234567890.50, "qty": -7.250, "w": [9007199254740993.0], "o": {"x": 1}}')) v(i, d);
SELECT argo_load(c, 'SELECT d FROM written ORDER BY i') FROM (VALUES ('asw3'), ('asw1'), ('asw3n')) v(c);
SELECT c, count(*) FILTER (WHERE whole::text = w.d::text) AS whole_as_jsonb,
       count(*) FILTER (WHERE part::text = jsonb_build_object('price', w.d->'price', 'o', w.d->'o')::text) AS projection_as_jsonb
  FROM (VALUES ('asw3'), ('asw1'), ('asw3n')) v(c)
  CROSS JOIN LATERAL (SELECT x AS whole, row_number() OVER () AS i FROM argo_query(format('SELECT * FROM %s ORDER BY ID()', c)) x) a
  JOIN LATERAL (SELECT x AS part, row_number() OVER () AS i FROM argo_query(format('SELECT price, o FROM %s ORDER BY ID()', c)) x) p ON p.i = a.i
  JOIN written w ON w.i = a.i
 GROUP BY c ORDER BY c;
SELECT x FROM argo_query('SELECT * FROM asw1 WHERE ID() = 1') x;
SELECT argo_drop_collection('asw3'), argo_drop_collection('asw1'), argo_drop_collection('asw3n');
