-- Collections: lazy creation, explicit creation in either format, the
-- listing view, dropping, and the errors around names.
SELECT * FROM argo_query('INSERT INTO lazy OBJECT {"a": 1}');
SELECT argo_create_collection('explicit3');
SELECT argo_create_collection('explicit1', 'argo1');
SELECT argo_create_collection('Mixed_Case_9', 'ARGO3');
SELECT name, format, objects, size_bytes > 0 AS has_size
  FROM argo_collections ORDER BY name;

-- the tables are ordinary tables in schema argo_data
SELECT c.relname FROM pg_class c
 WHERE c.relnamespace = 'argo_data'::regnamespace AND c.relkind IN ('r', 'S')
 ORDER BY 1;

-- names are case sensitive
SELECT * FROM argo_query('SELECT * FROM mixed_case_9');
SELECT * FROM argo_query('SELECT * FROM Mixed_Case_9');

-- errors
SELECT argo_create_collection('explicit3');
SELECT argo_create_collection('bad name');
SELECT argo_create_collection('x"; DROP TABLE y; --');
SELECT argo_create_collection('');
SELECT argo_create_collection('9lives');
SELECT argo_create_collection(repeat('n', 59));
SELECT argo_create_collection(repeat('n', 58));
SELECT argo_create_collection('fmt', 'argo2');
SELECT argo_create_collection(NULL);
SELECT argo_drop_collection('nope');
SELECT * FROM argo_query('DELETE FROM nope');
SELECT * FROM argo_query('SELECT * FROM nope WHERE a = 1');

-- dropping
SELECT argo_drop_collection('nope', true);
SELECT argo_drop_collection(repeat('n', 58));
SELECT argo_drop_collection('explicit1');
SELECT argo_drop_collection('explicit3');
SELECT argo_drop_collection('Mixed_Case_9');
SELECT argo_drop_collection('lazy');
SELECT name FROM argo_collections;

-- a failed INSERT creates nothing
SELECT * FROM argo_query('INSERT INTO never OBJECT {"a": 1}, [1]');
SELECT * FROM argo_query('INSERT INTO never OBJECT {"a": 1e400}');
SELECT name FROM argo_collections;

-- statements run in the caller's transaction
BEGIN;
SELECT * FROM argo_query('INSERT INTO txn OBJECT {"a": 1}');
SELECT * FROM argo_query('INSERT INTO txn OBJECT {"a": 2}');
ROLLBACK;
SELECT name FROM argo_collections;
BEGIN;
SELECT * FROM argo_query('INSERT INTO txn OBJECT {"a": 1}');
SELECT * FROM argo_query('INSERT INTO txn OBJECT {"a": 2}');
COMMIT;
SELECT * FROM argo_query('SELECT * FROM txn');
SELECT argo_drop_collection('txn');

-- every function says what it does (\df+, \dd)
SELECT p.oid::regprocedure AS undocumented
  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'argo'
 WHERE obj_description(p.oid, 'pg_proc') IS NULL;
