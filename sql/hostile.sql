-- What a hostile or careless role can do to a collection, and what Argo
-- does about it: row-level security on writes, tables planted beside a
-- collection, a dictionary holding values Argo never writes, loads that
-- must keep the user's indexes, and locks others would wait on.
\set VERBOSITY terse
CREATE ROLE argo_alice;
CREATE ROLE argo_mallory;
GRANT CREATE ON SCHEMA argo_data TO argo_alice, argo_mallory;

-- 1. Row-level security on a value table: UPDATE, UPSERT and DELETE are
-- refused before anything changes (a missing DELETE policy, or a SELECT
-- policy hiding rows, would leave an object with two values for a key or
-- rows of a deleted object behind); reads and INSERT honour the policies.
SET ROLE argo_alice;
SELECT argo_create_collection('rls3', 'argo3'), argo_create_collection('rls1', 'argo1');
SELECT * FROM argo_query('INSERT INTO rls3 OBJECT {"n": 1, "s": "a"}, {"n": 2, "s": "b"}');
SELECT * FROM argo_query('INSERT INTO rls1 OBJECT {"n": 1, "s": "a"}, {"n": 2, "s": "b"}');
GRANT SELECT, INSERT, UPDATE, DELETE ON argo_data.rls3_str, argo_data.rls3_num, argo_data.rls3_bool,
  argo_data.rls3_keys, argo_data.rls3_obj, argo_data.rls1_data, argo_data.rls1_keys, argo_data.rls1_obj TO argo_mallory;
GRANT USAGE ON argo_data.rls3_seq, argo_data.rls3_kseq, argo_data.rls1_seq, argo_data.rls1_kseq TO argo_mallory;
-- SELECT and INSERT policies, no DELETE policy
ALTER TABLE argo_data.rls3_num ENABLE ROW LEVEL SECURITY;
CREATE POLICY r ON argo_data.rls3_num FOR SELECT USING (true);
CREATE POLICY i ON argo_data.rls3_num FOR INSERT WITH CHECK (true);
-- a SELECT policy that hides rows
ALTER TABLE argo_data.rls1_data ENABLE ROW LEVEL SECURITY;
CREATE POLICY r ON argo_data.rls1_data FOR ALL USING (valnum IS NULL OR valnum < 2);
RESET ROLE;
SET ROLE argo_mallory;
SELECT * FROM argo_query('UPDATE rls3 SET n = 5 WHERE s = ''a''');
SELECT * FROM argo_query('UPDATE rls3 UNSET n');
SELECT * FROM argo_query('DELETE FROM rls3 WHERE n = 1');
SELECT * FROM argo_query('UPSERT rls3 SET n += 1 WHERE s = ''a''');
SELECT * FROM argo_query('UPDATE rls1 SET n = 5');
SELECT * FROM argo_query('DELETE FROM rls1');
-- reads apply the policies; INSERT goes through SQL, which applies them
SELECT x FROM argo_query('SELECT * FROM rls1') x;
SELECT * FROM argo_query('INSERT INTO rls3 OBJECT {"n": 3, "s": "c"}');
RESET ROLE;
-- nothing changed, and the collections are whole
SELECT x FROM argo_query('SELECT * FROM rls3') x;
SELECT x FROM argo_query('SELECT * FROM rls1') x;
SELECT * FROM argo_check('rls3');
SELECT * FROM argo_check('rls1');
-- a role the policies do not apply to (the owner) changes objects as ever
SET ROLE argo_alice;
SELECT * FROM argo_query('UPDATE rls3 SET n = 5 WHERE s = ''a''');
RESET ROLE;
SELECT x FROM argo_query('SELECT * FROM rls3 WHERE n = 5') x;

-- 2. A table planted beside someone's collection is not part of it: its
-- format and tables are its owner's, whatever else is in the schema.
SET ROLE argo_mallory;
CREATE TABLE argo_data.rls3_data (objid bigint, keyid integer, valstr text, valnum float8, valbool boolean);
GRANT ALL ON argo_data.rls3_data TO PUBLIC;
RESET ROLE;
SET ROLE argo_alice;
SELECT x FROM argo_query('SELECT * FROM rls3 WHERE n = 2') x;
SELECT * FROM argo_query('INSERT INTO rls3 OBJECT {"n": 4}');
SELECT name, format, objects FROM argo_collections WHERE name = 'rls3';
RESET ROLE;
SELECT count(*) AS rows_in_the_planted_table FROM argo_data.rls3_data;
DROP TABLE argo_data.rls3_data;
-- a table of the collection dropped by hand and planted again by another
-- role is refused, never read or written
SET ROLE argo_alice;
SELECT argo_create_collection('victim');
SELECT * FROM argo_query('INSERT INTO victim OBJECT {"a": 1}');
DROP TABLE argo_data.victim_bool;
RESET ROLE;
SET ROLE argo_mallory;
CREATE TABLE argo_data.victim_bool (objid bigint, keyid integer, valbool boolean);
GRANT ALL ON argo_data.victim_bool TO PUBLIC;
RESET ROLE;
SET ROLE argo_alice;
SELECT * FROM argo_query('INSERT INTO victim OBJECT {"b": true}');
SELECT * FROM argo_query('SELECT * FROM victim');
RESET ROLE;
SELECT count(*) AS rows_in_the_planted_table FROM argo_data.victim_bool;
DROP TABLE argo_data.victim_bool;

-- 3. The dictionary and the value tables are input: a key id of 2^30, a
-- key longer than Argo writes, a malformed key, a NaN: each a clean
-- error, in bounded time and memory.
SELECT * FROM argo_query('INSERT INTO dict3 OBJECT {"a": 1, "b": "x"}');
SELECT argo_create_collection('dict1', 'argo1');
SELECT * FROM argo_query('INSERT INTO dict1 OBJECT {"a": 1, "b": "x"}');
INSERT INTO argo_data.dict3_keys (keyid, keystr) VALUES (1073741824, 'huge');
INSERT INTO argo_data.dict3_num VALUES (1, 1073741824, 7);
INSERT INTO argo_data.dict1_keys (keyid, keystr) VALUES (134217728, 'big');
INSERT INTO argo_data.dict1_data (objid, keyid, valnum) VALUES (1, 134217728, 8);
SET statement_timeout = '10s';
SELECT x FROM argo_query('SELECT * FROM dict3') x;
SELECT x FROM argo_query('SELECT * FROM dict1') x;
SELECT path, types, objects FROM argo_keys('dict3');
SELECT * FROM argo_query('INSERT INTO dict3 OBJECT {"c": 2}');
SELECT * FROM argo_query('INSERT INTO dict1 OBJECT {"c": 2}');
INSERT INTO argo_data.dict3_keys (keyid, keystr) VALUES (7, repeat('k', 100000));
SELECT * FROM argo_keys('dict3');
DELETE FROM argo_data.dict3_keys WHERE keyid = 7;
INSERT INTO argo_data.dict1_keys (keyid, keystr) VALUES (7, 'a[99999999999999999999999]');
INSERT INTO argo_data.dict1_data (objid, keyid, valnum) VALUES (1, 7, 1);
SELECT * FROM argo_query('SELECT * FROM dict1');
DELETE FROM argo_data.dict1_data WHERE keyid = 7;
INSERT INTO argo_data.dict3_num VALUES (1, 1, 'NaN');
SELECT * FROM argo_query('SELECT * FROM dict3');
DELETE FROM argo_data.dict3_num WHERE valnum = 'NaN';
RESET statement_timeout;
SELECT x FROM argo_query('SELECT * FROM dict3') x;
-- argo_check names what a direct write broke
INSERT INTO argo_data.dict3_num SELECT 1, keyid, 9 FROM argo_data.dict3_keys WHERE keystr = 'a';
INSERT INTO argo_data.dict3_num VALUES (99, 1, 1), (2, 555, 1);
INSERT INTO argo_data.dict3_keys (keyid, keystr) VALUES (556, 'e{}');
INSERT INTO argo_data.dict3_str VALUES (2, 556, 'x');
SELECT * FROM argo_check('dict3');
DELETE FROM argo_data.dict3_num WHERE (objid = 1 AND valnum = 9) OR objid = 99 OR keyid = 555;
DELETE FROM argo_data.dict3_str WHERE keyid = 556;
SELECT * FROM argo_check('dict3');

-- 4. argo_load into an emptied collection rebuilds Argo's own indexes
-- and keeps the user's (a UNIQUE one included); a role with INSERT but
-- not ownership may load, with the indexes in place.
SET ROLE argo_alice;
SELECT argo_create_collection('ld3', 'argo3'), argo_create_collection('ld1', 'argo1');
CREATE UNIQUE INDEX ld3_mine ON argo_data.ld3_num (objid, keyid);
CREATE INDEX ld1_mine ON argo_data.ld1_data (valnum) WHERE valnum > 100;
CREATE TEMP TABLE idx_before AS SELECT indexrelid, indexrelid::regclass::text AS name FROM pg_index
 WHERE indrelid IN ('argo_data.ld3_str'::regclass, 'argo_data.ld3_num'::regclass,
                    'argo_data.ld3_bool'::regclass, 'argo_data.ld1_data'::regclass);
SELECT argo_load('ld3', $$SELECT jsonb_build_object('n', g) FROM generate_series(1, 5) g$$);
SELECT argo_load('ld1', $$SELECT jsonb_build_object('n', g) FROM generate_series(1, 5) g$$);
-- Argo's were dropped and built again at the end (every one of them), the user's kept
SELECT name, indexrelid IN (SELECT indexrelid FROM pg_index) AS kept FROM idx_before ORDER BY name;
DROP TABLE idx_before;
SELECT indexrelid::regclass AS index FROM pg_index
 WHERE indrelid IN ('argo_data.ld3_str'::regclass, 'argo_data.ld3_num'::regclass,
                    'argo_data.ld3_bool'::regclass, 'argo_data.ld1_data'::regclass)
 ORDER BY indexrelid::regclass::text;
SELECT * FROM argo_query('INSERT INTO ld3 OBJECT {"n": 1}');
SELECT * FROM argo_query('DELETE FROM ld3');
SELECT * FROM argo_query('DELETE FROM ld1');
GRANT SELECT, INSERT, UPDATE, DELETE ON argo_data.ld3_str, argo_data.ld3_num, argo_data.ld3_bool,
  argo_data.ld3_keys, argo_data.ld3_obj, argo_data.ld3_doc, argo_data.ld1_data, argo_data.ld1_keys, argo_data.ld1_obj,
  argo_data.ld1_doc TO argo_mallory;
GRANT USAGE ON argo_data.ld3_seq, argo_data.ld3_kseq, argo_data.ld1_seq, argo_data.ld1_kseq TO argo_mallory;
RESET ROLE;
SET ROLE argo_mallory;
SELECT argo_load('ld3', $$SELECT jsonb_build_object('m', g) FROM generate_series(1, 3) g$$);
SELECT argo_load('ld1', $$SELECT jsonb_build_object('m', g) FROM generate_series(1, 3) g$$);
RESET ROLE;
SELECT count(*) AS indexes_after FROM pg_index
 WHERE indrelid IN ('argo_data.ld3_str'::regclass, 'argo_data.ld3_num'::regclass,
                    'argo_data.ld3_bool'::regclass, 'argo_data.ld1_data'::regclass);
SELECT x FROM argo_query('SELECT * FROM ld1 WHERE m = 2') x;

-- 5. Only the owner may drop a collection, and a role that may not is
-- told so before it takes a lock others would wait on; NULL is an error,
-- never "drop it anyway".
SET ROLE argo_mallory;
BEGIN;
SELECT argo_drop_collection('ld3', true);
ROLLBACK;
SELECT argo_drop_collection('ld3', NULL);
RESET ROLE;
SELECT argo_drop_collection('ld3', NULL);
SELECT argo_count('ld3');
-- CREATE on the schema is checked before the name is locked
CREATE ROLE argo_nocreate;
SET ROLE argo_nocreate;
SELECT argo_create_collection('squat');
SELECT * FROM argo_query('UPSERT squat SET n += 1 WHERE k = 1');
RESET ROLE;
-- UPSERT's lock is taken only by a role that may update
SET ROLE argo_nocreate;
SELECT * FROM argo_query('UPSERT ld1 SET n += 1 WHERE k = 1');
RESET ROLE;

-- 6. Smaller ones: a parameter too small for a double is 22003, as a
-- literal is.
SELECT * FROM argo_query('SELECT * FROM ld1 WHERE n = 1e-400');
SELECT * FROM argo_query('SELECT * FROM ld1 WHERE n = $1', '1e-400');
SELECT * FROM argo_query('SELECT * FROM ld1 WHERE n = $1', '-1e-400');
-- two outputs of one name are an error (42712), not one silently lost
SELECT * FROM argo_query('SELECT COUNT(*), COUNT(m) FROM ld1');
SELECT * FROM argo_query('SELECT m, COUNT(*) AS m FROM ld1 GROUP BY m');
SELECT * FROM argo_query('SELECT COUNT(*), COUNT(m) AS with_m FROM ld1');

-- The plan cache is not emptied while one of its plans executes: a
-- policy on a collection's table runs argo_query inside the read of it.
-- A collection whose policy prepares a new statement ...
SET ROLE argo_alice;
SELECT * FROM argo_query('INSERT INTO nest OBJECT {"n": 1}, {"n": 2}');
SELECT * FROM argo_query('INSERT INTO nest_in OBJECT {"a": 1, "b": 2}');
ALTER TABLE argo_data.nest_num ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY nested ON argo_data.nest_num USING
  ((SELECT pg_catalog.count(*) FROM argo_query('SELECT a FROM nest_in WHERE a < 0 OR b > 1')) >= 0);
RESET ROLE;
-- ... a cache filled to its limit of 512 ...
CREATE FUNCTION pg_temp.argo_plans() RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM pg_backend_memory_contexts
   WHERE name = 'CachedPlanSource' AND ident LIKE '%argo_data.%' $$;
DO $$
DECLARE q text; n int; t text[] := ARRAY['1', '''x''', 'true'];
BEGIN
  FOR i IN 0..728 LOOP
    EXIT WHEN pg_temp.argo_plans() >= 511;
    q := 'SELECT n FROM ld3 WHERE n > 0';
    n := i;
    FOR j IN 1..6 LOOP
      q := q || ' OR k' || j || ' > ' || t[n % 3 + 1];
      n := n / 3;
    END LOOP;
    PERFORM * FROM argo_query(q);
  END LOOP;
END $$;
SELECT pg_temp.argo_plans();
-- ... and a read of the collection that runs the policy's statement,
-- called as a function (SPI runs the read's plan from the cache):
SET argo.stream_results = off;
SET ROLE argo_alice;
SELECT * FROM argo_query('SELECT n FROM nest WHERE n > 0 ORDER BY n');
RESET ROLE;
RESET argo.stream_results;
-- the read's plan was kept: the cache grew past its limit instead
SELECT pg_temp.argo_plans() > 512 AS grew;
-- streamed, the read holds its plan itself: the cache may start over under it
SET ROLE argo_alice;
SELECT * FROM argo_query('SELECT n FROM nest WHERE n > 0 ORDER BY n');
RESET ROLE;
SELECT argo_drop_collection('nest'), argo_drop_collection('nest_in');
-- and the next new top-level statement starts it over
SELECT * FROM argo_query('SELECT n FROM ld3 WHERE n < 0 OR m > 2 OR z > 3');
SELECT pg_temp.argo_plans() < 10 AS started_over;

-- A table found out of object order is sorted from then on, in this
-- backend; but a table with new storage (a collection made again,
-- CLUSTER) is tried in heap order again.  (Only argo_query called as a
-- function reads projections in heap order: a streamed one sorts.)
SET argo.stream_results = off;
SELECT argo_create_collection('ord3', 'argo3'), argo_create_collection('ord1', 'argo1');
SELECT * FROM argo_query('INSERT INTO ord3 OBJECT {"a": "x1"}, {"a": "x2"}, {"a": "x3"}');
SELECT * FROM argo_query('INSERT INTO ord1 OBJECT {"a": "x1"}, {"a": "x2"}, {"a": "x3"}');
SELECT * FROM argo_query('UPDATE ord3 SET a = ''y'' WHERE a = ''x1''');
SELECT * FROM argo_query('UPDATE ord1 SET a = ''y'' WHERE a = ''x1''');
SET client_min_messages = debug1;
SELECT * FROM argo_query('SELECT a FROM ord3');
SELECT * FROM argo_query('SELECT a FROM ord1');
SELECT * FROM argo_query('SELECT a FROM ord3');
RESET client_min_messages;
CLUSTER argo_data.ord3_str USING ord3_str_objid_idx;
SELECT argo_drop_collection('ord1');
SELECT argo_create_collection('ord1', 'argo1');
SELECT * FROM argo_query('INSERT INTO ord1 OBJECT {"a": "x1"}, {"a": "x2"}, {"a": "x3"}');
SET client_min_messages = debug1;
SELECT * FROM argo_query('SELECT a FROM ord3');
SELECT * FROM argo_query('SELECT a FROM ord1');
RESET client_min_messages;
RESET argo.stream_results;
SELECT argo_drop_collection('ord3'), argo_drop_collection('ord1');

DROP TABLE argo_data.victim_str, argo_data.victim_num, argo_data.victim_keys, argo_data.victim_obj, argo_data.victim_doc;
DROP SEQUENCE argo_data.victim_seq;
SELECT argo_drop_collection(c) FROM unnest(ARRAY['rls3', 'rls1', 'dict3', 'dict1', 'ld3', 'ld1']) c;
REVOKE ALL ON SCHEMA argo_data FROM argo_alice, argo_mallory;
DROP ROLE argo_alice, argo_mallory, argo_nocreate;
