-- argo_keys: a collection's schema as its key dictionary knows it, on
-- both formats (they must agree), with array positions collapsed.
SELECT argo_create_collection('k1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"name": "a", "age": 3, "tags": ["x", "y", 1], "addr": {"city": "P", "zip": 75}}'),
  ('{"name": "b", "age": "old", "tags": [], "addr": {}}'),
  ('{"name": null, "kids": [{"n": "c"}, {"n": "d", "k": [true]}], "odd key": 1, "`q`": false}'),
  ('{}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO k3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO k1 OBJECT $1', doc::jsonb)) i;
SELECT * FROM argo_keys('k3');
SELECT count(*) AS formats_disagree
  FROM ((SELECT * FROM argo_keys('k3') EXCEPT SELECT * FROM argo_keys('k1'))
        UNION ALL (SELECT * FROM argo_keys('k1') EXCEPT SELECT * FROM argo_keys('k3'))) d;
-- the paths are Argo/SQL, and EXISTS counts the same objects
SELECT p.path, p.objects,
       (SELECT (x->>'n')::int FROM argo_query(format('SELECT COUNT(*) AS n FROM k3 WHERE EXISTS %s', p.path)) x) AS exists_count
  FROM argo_keys('k3') p WHERE p.path NOT LIKE '%[*]%' ORDER BY 1;
-- keys added by another statement show up; an empty collection has none
SELECT * FROM argo_query('INSERT INTO k3 OBJECT {"new": {"deep": 1.5}}');
SELECT * FROM argo_keys('k3') WHERE path LIKE 'new%';
SELECT argo_create_collection('k0');
SELECT * FROM argo_keys('k0');
-- errors
\set VERBOSITY terse
SELECT * FROM argo_keys('nope');
SELECT * FROM argo_keys(NULL);
SELECT * FROM argo_keys('bad name');
SELECT argo_analyze(NULL);
SELECT argo_analyze('bad name');
-- reading needs SELECT on the dictionary, counting needs UPDATE on it
CREATE ROLE argo_keys_reader;
GRANT SELECT ON argo_data.k3_str, argo_data.k3_num, argo_data.k3_bool, argo_data.k3_obj TO argo_keys_reader;
SET ROLE argo_keys_reader;
SELECT * FROM argo_keys('k3');
SELECT * FROM argo_query('SELECT * FROM k3');
RESET ROLE;
GRANT SELECT ON argo_data.k3_keys TO argo_keys_reader;
SET ROLE argo_keys_reader;
SELECT count(*) AS paths FROM argo_keys('k3');
SELECT argo_analyze('k3');
RESET ROLE;
-- row-level security on the dictionary is refused, not bypassed
ALTER TABLE argo_data.k3_keys ENABLE ROW LEVEL SECURITY;
SET ROLE argo_keys_reader;
SELECT * FROM argo_query('SELECT * FROM k3');
RESET ROLE;
ALTER TABLE argo_data.k3_keys DISABLE ROW LEVEL SECURITY;
DROP OWNED BY argo_keys_reader;
DROP ROLE argo_keys_reader;
\set VERBOSITY default
SELECT argo_drop_collection('k0'), argo_drop_collection('k1'), argo_drop_collection('k3');

-- argo_analyze: rows and distinct values per key and type, in the
-- dictionary, the same on both formats
SELECT argo_create_collection('s1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"v": 1, "w": "a", "t": [true, false, true]}'),
  ('{"v": 1, "w": "b", "t": []}'),
  ('{"v": "1", "w": null, "e": {}}'),
  ('{"v": 2.5}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO s3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO s1 OBJECT $1', doc::jsonb)) i;
SELECT argo_analyze('s3'), argo_analyze('s1');
SELECT keystr, rows_str, distinct_str, rows_num, distinct_num, rows_bool,
       distinct_bool, rows_null, analyzed_at IS NOT NULL AS analyzed
  FROM argo_data.s3_keys ORDER BY keystr;
SELECT count(*) AS formats_disagree FROM (
  (SELECT keystr, rows_str, distinct_str, rows_num, distinct_num, rows_bool, distinct_bool, rows_null FROM argo_data.s3_keys
   EXCEPT SELECT keystr, rows_str, distinct_str, rows_num, distinct_num, rows_bool, distinct_bool, rows_null FROM argo_data.s1_keys)
  UNION ALL
  (SELECT keystr, rows_str, distinct_str, rows_num, distinct_num, rows_bool, distinct_bool, rows_null FROM argo_data.s1_keys
   EXCEPT SELECT keystr, rows_str, distinct_str, rows_num, distinct_num, rows_bool, distinct_bool, rows_null FROM argo_data.s3_keys)) d;
-- a key no object has any more counts zero after the next analyze
SELECT * FROM argo_query('DELETE FROM s3 WHERE EXISTS e');
SELECT argo_analyze('s3');
SELECT keystr, rows_str + rows_num + rows_bool + rows_null AS rows FROM argo_data.s3_keys WHERE keystr LIKE 'e%';
SELECT argo_analyze('nope');
SELECT argo_drop_collection('s1'), argo_drop_collection('s3');
