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
SELECT * FROM argo_analyze('s3') UNION ALL SELECT * FROM argo_analyze('s1');
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
SELECT * FROM argo_analyze('s3');
SELECT keystr, rows_str + rows_num + rows_bool + rows_null AS rows FROM argo_data.s3_keys WHERE keystr LIKE 'e%';
SELECT argo_analyze('nope');
SELECT argo_drop_collection('s1'), argo_drop_collection('s3');

-- A large collection is counted in a sample (pages of its directory at
-- random, so only what holds for every sample is shown): a path every
-- object has is in all of them; the paths are those of the exact count,
-- with its types; a path no sampled object has is counted exactly.
SELECT argo_create_collection('big');
SELECT count(*) FROM argo_query('INSERT INTO big OBJECTS $1', (
  SELECT jsonb_agg(jsonb_build_object('id', i, 'mod', i % 3, 'tag', 'x' || (i % 3))
                   || CASE WHEN i = 777 THEN '{"rare": {"deep": true}}'::jsonb ELSE '{}'::jsonb END)
    FROM generate_series(1, 2000) i));
CREATE TEMP TABLE big_exact AS SELECT * FROM argo_keys('big', NULL);
SELECT path, types, objects, exact FROM big_exact ORDER BY path;
CREATE TEMP TABLE big_sampled AS SELECT * FROM argo_keys('big', 1000);
SELECT path, types, objects, exact FROM big_sampled WHERE path IN ('id', 'mod', 'tag') ORDER BY path;
SELECT (SELECT array_agg(path ORDER BY path) FROM big_exact) = (SELECT array_agg(path ORDER BY path) FROM big_sampled) AS same_paths,
       (SELECT array_agg(types ORDER BY path) FROM big_exact) = (SELECT array_agg(types ORDER BY path) FROM big_sampled) AS same_types;
SELECT path, CASE WHEN exact THEN objects = 1 ELSE objects >= 1 END AS counted_right
  FROM big_sampled WHERE path LIKE 'rare%' ORDER BY path;
SELECT keys, objects, sampled > 0 AND sampled < 2000 AS sampled FROM argo_analyze('big', 1000);
-- every object has id (all distinct) and mod (three values, each often)
SELECT keystr, rows_num, distinct_num FROM argo_data.big_keys WHERE keystr IN ('id', 'mod') ORDER BY keystr;
SELECT keys, objects, sampled FROM argo_analyze('big', NULL);
SELECT keystr, rows_str, distinct_str, rows_bool FROM argo_data.big_keys WHERE keystr NOT IN ('id', 'mod') ORDER BY keystr;
-- argo_check on a sample: a healthy collection has no problem in any
-- sample; when every object has one, a sample finds some, not all; the
-- progress is a NOTICE per check (its time in the DETAIL)
\set VERBOSITY terse
SELECT * FROM argo_check('big', 1000, true);
SELECT * FROM argo_check('big', progress => true);
\set VERBOSITY default
UPDATE argo_data.big_num SET keyid = 999
 WHERE keyid = (SELECT keyid FROM argo_data.big_keys WHERE keystr = 'id');
SELECT count(*) AS problems FROM argo_check('big');
SELECT count(*) > 0 AND count(*) < 2000 AS some_found FROM argo_check('big', 1000);
SELECT * FROM argo_keys('big', 0);
SELECT * FROM argo_analyze('big', -1);
SELECT * FROM argo_check('big', 0);
SELECT * FROM argo_check(NULL);
SELECT argo_drop_collection('big');
