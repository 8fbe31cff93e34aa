-- Who may read and write a collection's kept documents (storage/docs.c):
-- the copy lives in a table of its own (c_doc), which only Argo writes;
-- a role that may read only some rows of an object never reads its copy;
-- SELECT on the directory (what counting needs) shows no document; a
-- writer's SQL cannot forge one, and rows written through SQL make their
-- copies forgotten.
SET client_min_messages = warning;
CREATE ROLE kt_reader;
CREATE ROLE kt_writer;
CREATE ROLE kt_counter;
SELECT argo_create_collection('kt');
SELECT * FROM argo_query('INSERT INTO kt OBJECTS $1',
  '[{"name": "x", "secret": "s1", "balance": 100}, {"name": "y", "secret": "s2", "balance": 200}]');
SELECT argo_grant('kt', 'kt_reader', 'read'), argo_grant('kt', 'kt_writer', 'write');
GRANT SELECT ON argo_data.kt_obj TO kt_counter;

-- 1. Row-level security on a value table hiding a key from the reader:
-- neither Argo's reads nor the copy's table show it to that reader
ALTER TABLE argo_data.kt_str ENABLE ROW LEVEL SECURITY;
CREATE POLICY kt_hide ON argo_data.kt_str TO kt_reader
  USING (keyid <> (SELECT keyid FROM argo_data.kt_keys WHERE keystr = 'secret'));
CREATE POLICY kt_all ON argo_data.kt_str TO kt_writer USING (true);
SELECT relrowsecurity AS docs_under_rls FROM pg_class WHERE oid = 'argo_data.kt_doc'::regclass;
SET ROLE kt_reader;
SELECT x FROM argo_query('SELECT * FROM kt') x ORDER BY x::text;
SELECT x FROM argo_query('SELECT * FROM kt WHERE ID() = 1') x;
SELECT doc FROM argo_data.kt_doc;
RESET ROLE;
-- the owner's writes and argo_repair keep the copies meanwhile: still unseen
SELECT * FROM argo_query('UPDATE kt SET balance += 1 WHERE name = ''x''');
SELECT argo_repair('kt') >= 0 AS repaired;
SET ROLE kt_reader;
SELECT doc FROM argo_data.kt_doc;
SELECT x FROM argo_query('SELECT * FROM kt WHERE name = ''x''') x;
RESET ROLE;
-- the policy gone (and row-level security off), readers take the copies again
DROP POLICY kt_hide ON argo_data.kt_str;
DROP POLICY kt_all ON argo_data.kt_str;
ALTER TABLE argo_data.kt_str DISABLE ROW LEVEL SECURITY;
SELECT relrowsecurity AS docs_under_rls FROM pg_class WHERE oid = 'argo_data.kt_doc'::regclass;
SET ROLE kt_reader;
SELECT count(*) AS documents FROM argo_data.kt_doc;
RESET ROLE;

-- 2. SELECT on the directory alone counts objects and reads ids, and
-- shows no document
SET ROLE kt_counter;
SELECT argo_count('kt');
SELECT * FROM argo_data.kt_obj LIMIT 0;
SELECT doc FROM argo_data.kt_doc;
RESET ROLE;

-- 3. A writer cannot write a copy through SQL: not into the directory
-- (which holds none), not into the copies' table; deleting one only has
-- the object rebuilt; rows written through SQL forget their copies
SET ROLE kt_writer;
UPDATE argo_data.kt_obj SET doc = '{"balance": 1000000}' WHERE objid = 1;
UPDATE argo_data.kt_doc SET doc = '{"balance": 1000000}' WHERE objid = 1;
INSERT INTO argo_data.kt_doc VALUES (3, '{"balance": 1000000}');
DELETE FROM argo_data.kt_doc WHERE objid = 1;
UPDATE argo_data.kt_num SET valnum = 5 WHERE objid = 2;
RESET ROLE;
SELECT objid FROM argo_data.kt_doc ORDER BY objid;
SET ROLE kt_reader;
SELECT x FROM argo_query('SELECT * FROM kt WHERE balance = 101') x;
SELECT x FROM argo_query('SELECT * FROM kt WHERE balance = 5') x;
SELECT x FROM argo_query('SELECT SUM(balance) AS total FROM kt') x;
RESET ROLE;
SELECT * FROM argo_check('kt');
SELECT argo_repair('kt') AS written;
SELECT objid FROM argo_data.kt_doc ORDER BY objid;
SELECT * FROM argo_check('kt');

SELECT argo_revoke('kt', 'kt_reader', 'read'), argo_revoke('kt', 'kt_writer', 'read');
REVOKE ALL ON argo_data.kt_obj FROM kt_counter;
SELECT argo_drop_collection('kt');
DROP ROLE kt_reader, kt_writer, kt_counter;
