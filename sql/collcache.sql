-- A backend remembers the collections it found (storage/collcache.c); any
-- change to their tables, by this session or rolled back, makes it look
-- again, so every statement here answers as a first lookup would.
SELECT * FROM argo_query('INSERT INTO cc OBJECT {"a": 1}');
SELECT * FROM argo_query('SELECT * FROM cc');
-- dropped and re-created in the other format
SELECT argo_drop_collection('cc');
SELECT * FROM argo_query('SELECT * FROM cc');
SELECT argo_create_collection('cc', 'argo1');
SELECT * FROM argo_query('INSERT INTO cc OBJECT {"b": 2}');
SELECT * FROM argo_query('SELECT * FROM cc');
SELECT format FROM argo_collections WHERE name = 'cc';
-- a table renamed away, then back
ALTER TABLE argo_data.cc_data RENAME TO cc_moved;
SELECT * FROM argo_query('SELECT * FROM cc');
ALTER TABLE argo_data.cc_moved RENAME TO cc_data;
SELECT * FROM argo_query('SELECT * FROM cc');
-- a table given to another role, or losing a column, is not the collection's
CREATE ROLE argo_cc_other;
ALTER TABLE argo_data.cc_keys OWNER TO argo_cc_other;
SELECT * FROM argo_query('SELECT * FROM cc');
ALTER TABLE argo_data.cc_keys OWNER TO CURRENT_USER;
SELECT * FROM argo_query('SELECT * FROM cc');
BEGIN;
ALTER TABLE argo_data.cc_data DROP COLUMN valexact;
SELECT * FROM argo_query('SELECT * FROM cc');
ROLLBACK;
SELECT * FROM argo_query('SELECT * FROM cc');
-- made in a transaction that rolls back: gone again
BEGIN;
SELECT * FROM argo_query('INSERT INTO cc_tmp OBJECT {"t": 1}');
SELECT * FROM argo_query('SELECT * FROM cc_tmp');
ROLLBACK;
SELECT * FROM argo_query('SELECT * FROM cc_tmp');
-- dropped in a subtransaction that rolls back: there again
BEGIN;
SAVEPOINT s;
SELECT argo_drop_collection('cc');
SELECT * FROM argo_query('SELECT * FROM cc');
ROLLBACK TO SAVEPOINT s;
SELECT * FROM argo_query('SELECT * FROM cc');
COMMIT;
SELECT argo_drop_collection('cc');
DROP ROLE argo_cc_other;
