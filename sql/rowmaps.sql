-- Where an object's rows lie: each directory row keeps a map of its
-- object's rows, written by Argo's writes from C and read instead of the
-- objid indexes.  Maps that cannot be trusted are never used: rows
-- written through SQL make their objects' maps forgotten, a rewritten
-- table makes every map of the collection stale, a malformed or lying
-- map is checked row by row; argo_check reports, argo_repair rewrites.
-- (collections without kept documents: docs.sql has those)
SET argo.keep_documents = off;
SET client_min_messages = warning;
SELECT argo_create_collection('rm3', 'argo3'), argo_create_collection('rm1', 'argo1');
CREATE TEMP TABLE docs (doc jsonb);
INSERT INTO docs VALUES
  ('{"a": 1, "b": "x", "c": [1, 2, {"d": true}], "e": null, "f": {}, "g": []}'),
  ('{"z": "q"}'), ('{}'),
  ('{"k": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], "s": ["a", "b"], "t": false}');
SELECT argo_load('rm3', 'SELECT doc FROM docs'), argo_load('rm1', 'SELECT doc FROM docs');
-- every object has a map, and reads give the objects back
SELECT count(*) FILTER (WHERE rowmap IS NOT NULL) AS mapped, count(*) FROM argo_data.rm3_obj;
SELECT count(*) FILTER (WHERE rowmap IS NOT NULL) AS mapped, count(*) FROM argo_data.rm1_obj;
SELECT x FROM argo_query('SELECT * FROM rm3') x;
SELECT x FROM argo_query('SELECT * FROM rm1 WHERE ID() = 4') x;
SELECT argo_object('rm3', 1), argo_object('rm3', 3), argo_object('rm3', 99);
-- a row inserted through SQL: its object's map is forgotten, the row read
INSERT INTO argo_data.rm3_num (objid, keyid, valnum)
  SELECT 2, keyid, 7 FROM argo_data.rm3_keys WHERE keystr = 'a';
SELECT objid, rowmap IS NULL AS forgotten FROM argo_data.rm3_obj ORDER BY objid;
SELECT x FROM argo_query('SELECT * FROM rm3 WHERE ID() = 2') x;
-- … and deleted through SQL
DELETE FROM argo_data.rm1_data WHERE objid = 1 AND valbool;
SELECT objid, rowmap IS NULL AS forgotten FROM argo_data.rm1_obj ORDER BY objid;
SELECT x FROM argo_query('SELECT * FROM rm1 WHERE ID() = 1') x;
SELECT * FROM argo_check('rm3');
SELECT argo_repair('rm3') AS rewritten, argo_repair('rm1') AS rewritten1;
SELECT count(*) FILTER (WHERE rowmap IS NULL) AS unmapped FROM argo_data.rm3_obj;
-- a rewritten table: every map is of another epoch, and not used
VACUUM FULL argo_data.rm3_str;
SELECT * FROM argo_check('rm3');
SELECT x FROM argo_query('SELECT * FROM rm3') x;
SELECT x FROM argo_query('SELECT * FROM rm3 WHERE b = ''x''') x;
SELECT argo_repair('rm3') AS rewritten;
SELECT * FROM argo_check('rm3');
-- an index or a constraint made on a collection whose maps are of other
-- tables (what pg_restore does last) writes them again (fn/restored.c);
-- other DDL, and a collection this cannot repair, never fail because of it
VACUUM FULL argo_data.rm3_num;
SET client_min_messages = notice;
CREATE INDEX rm3_num_extra ON argo_data.rm3_num (valnum);
RESET client_min_messages;
SELECT * FROM argo_check('rm3');
DROP INDEX argo_data.rm3_num_extra;
VACUUM FULL argo_data.rm3_num;
ALTER TABLE argo_data.rm3_num ADD CONSTRAINT rm3_num_positive CHECK (objid > 0);
ALTER TABLE argo_data.rm3_num DROP CONSTRAINT rm3_num_positive;
ALTER TABLE argo_data.rm3_num ALTER COLUMN valexact SET STATISTICS 50;
-- a collection Argo refuses (its dictionary given away): the index is made,
-- with a warning naming argo_repair
CREATE ROLE argo_rm_other;
ALTER TABLE argo_data.rm3_keys OWNER TO argo_rm_other;
VACUUM FULL argo_data.rm3_num;
CREATE INDEX rm3_num_extra ON argo_data.rm3_num (valnum);
SELECT count(*) AS made FROM pg_indexes WHERE indexname = 'rm3_num_extra';
ALTER TABLE argo_data.rm3_keys OWNER TO CURRENT_USER;
DROP ROLE argo_rm_other;
DROP INDEX argo_data.rm3_num_extra;
SELECT argo_repair('rm3') AS rewritten;
-- a map that lies about a row (another object's) or is not a map at all
UPDATE argo_data.rm1_obj SET rowmap = (SELECT rowmap FROM argo_data.rm1_obj WHERE objid = 4) WHERE objid = 2;
UPDATE argo_data.rm1_obj SET rowmap = '\x01ffff'::bytea WHERE objid = 1;
SELECT x FROM argo_query('SELECT * FROM rm1') x;
SELECT argo_object('rm1', 2);
SELECT * FROM argo_check('rm1');
SELECT argo_repair('rm1') AS rewritten;
-- Argo's own writes keep every object readable
SELECT x FROM argo_query('UPDATE rm3 SET k[0] = 100, s APPEND ''c'' WHERE ID() = 4') x;
SELECT x FROM argo_query('UPDATE rm1 SET z = ''r'', n = 5 WHERE EXISTS z') x;
SELECT x FROM argo_query('SELECT * FROM rm3 WHERE ID() = 4') x;
SELECT x FROM argo_query('SELECT * FROM rm1 WHERE EXISTS z') x;
SELECT x FROM argo_query('DELETE FROM rm3 WHERE ID() = 1') x;
SELECT * FROM argo_check('rm3');
SELECT * FROM argo_check('rm1');
-- TRUNCATE of a value table forgets every map
TRUNCATE argo_data.rm3_bool;
SELECT count(*) FILTER (WHERE rowmap IS NOT NULL) AS mapped FROM argo_data.rm3_obj;
SELECT x FROM argo_query('SELECT * FROM rm3') x;
-- a user's trigger on a value table: Argo writes through SQL, and the
-- objects it writes so have no map (and still come back whole)
CREATE FUNCTION rm_count() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NULL; END$$;
CREATE TRIGGER mine AFTER INSERT ON argo_data.rm1_data FOR EACH STATEMENT EXECUTE FUNCTION rm_count();
SELECT x FROM argo_query('INSERT INTO rm1 OBJECT {"via": "sql", "n": [1, 2]}') x;
SELECT rowmap IS NULL AS unmapped FROM argo_data.rm1_obj WHERE objid = (SELECT max(objid) FROM argo_data.rm1_obj);
SELECT x FROM argo_query('SELECT * FROM rm1 WHERE via = ''sql''') x;
-- … and its UPDATE and DELETE go through SQL statements too
SELECT x FROM argo_query('UPDATE rm1 SET n[1] = 20, via = ''sql2'' WHERE via = ''sql''') x;
SELECT x FROM argo_query('SELECT * FROM rm1 WHERE via = ''sql2''') x;
SELECT count(*) AS locks_by_sql FROM argo_explain('UPDATE rm1 SET n = 1 WHERE ID() = 1') e WHERE e LIKE '%FOR UPDATE%';
SELECT x FROM argo_query('DELETE FROM rm1 WHERE via = ''sql2''') x;
SELECT * FROM argo_check('rm1');
DROP TRIGGER mine ON argo_data.rm1_data;
-- the trigger function is Argo's own, for statement triggers only
SELECT argo_forget_rowmaps();
SELECT argo_repair('nope');
SELECT argo_repair(NULL);
-- pages VACUUM made all-visible are read without a visibility check of
-- each row: the same objects, whole or projected; a lying map still
-- caught; a row updated through SQL read from its HOT chain's start
SELECT argo_create_collection('rmv');
SELECT argo_load('rmv', 'SELECT jsonb_build_object(''i'', i, ''s'', ''v'' || i, ''l'', jsonb_build_array(i, i + 1)) FROM generate_series(1, 200) i');
VACUUM argo_data.rmv_str, argo_data.rmv_num, argo_data.rmv_obj;
SELECT relname, relallvisible > 0 AS all_visible FROM pg_class
 WHERE oid IN ('argo_data.rmv_str'::regclass, 'argo_data.rmv_num'::regclass) ORDER BY 1;
SELECT count(*) AS same FROM argo_query('SELECT * FROM rmv') x
  JOIN generate_series(1, 200) i ON x = jsonb_build_object('i', i, 's', 'v' || i, 'l', jsonb_build_array(i, i + 1));
SELECT x FROM argo_query('SELECT s, l FROM rmv WHERE i IN (5, 150)') x;
CREATE TEMP TABLE saved AS SELECT objid, rowmap FROM argo_data.rmv_obj WHERE objid IN (7, 8);
UPDATE argo_data.rmv_obj SET rowmap = (SELECT rowmap FROM saved WHERE objid = 8) WHERE objid = 7;
SELECT argo_object('rmv', 7);
UPDATE argo_data.rmv_str SET valstr = 'changed'
 WHERE objid = 8 AND keyid = (SELECT keyid FROM argo_data.rmv_keys WHERE keystr = 's');
UPDATE argo_data.rmv_obj o SET rowmap = s.rowmap FROM saved s WHERE o.objid = s.objid;
VACUUM argo_data.rmv_str;
SELECT argo_object('rmv', 7), argo_object('rmv', 8);
SELECT x FROM argo_query('SELECT s FROM rmv WHERE ID() IN (7, 8)') x;
SELECT argo_drop_collection('rmv');
-- a value table its owner replaced by one whose rows predate keyid (fewer
-- columns than the table has): maps rebuilt for it are read safely
SELECT argo_create_collection('hx');
SELECT argo_load('hx', 'SELECT jsonb_build_object(''i'', i, ''b'', i % 2 = 0) FROM generate_series(1, 3) i');
DROP TABLE argo_data.hx_bool;
CREATE TABLE argo_data.hx_bool (objid bigint NOT NULL);
INSERT INTO argo_data.hx_bool VALUES (1), (2), (3);
ALTER TABLE argo_data.hx_bool ADD COLUMN keyid integer, ADD COLUMN valbool boolean;
CREATE INDEX ON argo_data.hx_bool (objid);
SELECT argo_repair('hx') AS rewritten;
VACUUM argo_data.hx_bool;
\set VERBOSITY sqlstate
SELECT x FROM argo_query('SELECT * FROM hx') x;
SELECT argo_object('hx', 3);
\set VERBOSITY default
SELECT x FROM argo_query('SELECT i FROM hx WHERE ID() = 2') x;
SELECT * FROM argo_check('hx');
SELECT argo_drop_collection('hx');
SELECT argo_drop_collection('rm3'), argo_drop_collection('rm1');
DROP FUNCTION rm_count();
