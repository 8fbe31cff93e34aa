-- Privileges and injection: Argo functions are SECURITY INVOKER, so
-- PostgreSQL's privileges on a collection's tables decide access; names,
-- keys and values reach SQL only as quoted identifiers or parameters.
SELECT proname, prosecdef FROM pg_proc
 WHERE proname LIKE 'argo\_%' ORDER BY proname;

SELECT * FROM argo_query('INSERT INTO secret OBJECT {"pin": 1234}');
CREATE ROLE argo_nobody;
CREATE ROLE argo_reader;
GRANT SELECT ON argo_data.secret_str, argo_data.secret_num, argo_data.secret_bool,
  argo_data.secret_keys, argo_data.secret_obj TO argo_reader;

-- (terse: the errors' context would show the generated SQL)
\set VERBOSITY terse
SET ROLE argo_nobody;
SELECT * FROM argo_query('SELECT * FROM secret');
SELECT * FROM argo_query('SELECT * FROM secret WHERE pin = 1234');
SELECT * FROM argo_query('INSERT INTO secret OBJECT {"pin": 0}');
SELECT * FROM argo_query('UPDATE secret SET pin = 0');
SELECT * FROM argo_query('DELETE FROM secret');
SELECT argo_drop_collection('secret');
-- creating a collection needs CREATE on schema argo_data
SELECT * FROM argo_query('INSERT INTO mine OBJECT {"a": 1}');
SELECT argo_count('secret');
SELECT argo_object('secret', 1);
-- the listing still works, without counting what one may not read
SELECT name, format, objects FROM argo_collections WHERE name = 'secret';
RESET ROLE;

SET ROLE argo_reader;
SELECT * FROM argo_query('SELECT * FROM secret');
SELECT * FROM argo_query('DELETE FROM secret');
-- explaining a write needs what the write needs, as EXPLAIN of a DELETE does
SELECT * FROM argo_explain('DELETE FROM secret WHERE pin = 1');
SELECT * FROM argo_explain('UPDATE secret SET pin = 1 WHERE ID() = 1');
SELECT count(*) > 0 AS explains_reads FROM argo_explain('SELECT * FROM secret WHERE pin = 1');
-- argo_repair and argo_feed are refused before they lock anything
SELECT argo_repair('secret');
SELECT argo_feed('secret', false, false);
RESET ROLE;
\set VERBOSITY default
SELECT * FROM argo_query('SELECT * FROM secret');

-- granting CREATE lets a role make (and own) its own collections
GRANT CREATE ON SCHEMA argo_data TO argo_nobody;
SET ROLE argo_nobody;
SELECT * FROM argo_query('INSERT INTO mine OBJECT {"a": 1}');
SELECT * FROM argo_query('SELECT * FROM mine');
RESET ROLE;
SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class
 WHERE relnamespace = 'argo_data'::regnamespace AND relname LIKE 'mine\_%';
SELECT argo_drop_collection('mine');
REVOKE CREATE ON SCHEMA argo_data FROM argo_nobody;

-- row-level security: objects are then read through SQL, which applies
-- the policies (rows hidden from the reader are not in the objects)
SELECT * FROM argo_query('INSERT INTO secret OBJECT {"pin": 99, "note": "public"}');
ALTER TABLE argo_data.secret_num ENABLE ROW LEVEL SECURITY;
CREATE POLICY small_pins ON argo_data.secret_num FOR SELECT USING (valnum < 100);
SET ROLE argo_reader;
SELECT x FROM argo_query('SELECT * FROM secret') x;
SELECT x FROM argo_query('SELECT pin FROM secret') x;
-- argo_object reads through SQL too
SELECT argo_object('secret', objid) FROM argo_data.secret_obj ORDER BY objid;
SELECT count(*) AS direct_fetch FROM argo_explain('SELECT * FROM secret') e WHERE e LIKE '%objid index%';
SELECT x FROM argo_query('SELECT a.note, b.pin FROM secret AS a INNER JOIN secret AS b ON (a.pin = b.pin)') x;
RESET ROLE;
SELECT x FROM argo_query('SELECT a.note, b.pin FROM secret AS a INNER JOIN secret AS b ON (a.pin = b.pin)') x;
SELECT x FROM argo_query('SELECT * FROM secret') x;
SELECT count(*) AS direct_fetch FROM argo_explain('SELECT * FROM secret') e WHERE e LIKE '%objid index%';
DROP POLICY small_pins ON argo_data.secret_num;
ALTER TABLE argo_data.secret_num DISABLE ROW LEVEL SECURITY;
SELECT count(*) AS direct_fetch FROM argo_explain('SELECT * FROM secret') e WHERE e LIKE '%objid index%';
DROP OWNED BY argo_reader;
DROP ROLE argo_nobody, argo_reader;

-- hostile keys and values are data: they round-trip and run nothing
CREATE TABLE canary (x int);
INSERT INTO canary VALUES (1);
SELECT * FROM argo_query('INSERT INTO inj OBJECT $1', jsonb_build_object(
  'x''; DROP TABLE canary; --', 'v''); DROP TABLE canary; --',
  'a"b', '$1 $2 \\ '' " ` ;',
  'select', 'DELETE FROM inj',
  'k', 'a%b_c\d'));
SELECT x FROM argo_query($$SELECT * FROM inj WHERE `x'; DROP TABLE canary; --` = 'v''); DROP TABLE canary; --'$$) x;
SELECT x FROM argo_query('SELECT `a"b` FROM inj WHERE `a"b` = $1', to_jsonb('$1 $2 \\ '' " ` ;'::text)) x;
-- LIKE patterns are parameters too; \ escapes % and _ in them
SELECT x FROM argo_query('SELECT k FROM inj WHERE k LIKE $1', to_jsonb('a\%b\_c\\d'::text)) x;
SELECT x FROM argo_query('SELECT k FROM inj WHERE k LIKE $1', to_jsonb('a\%b\_cd'::text)) x;
SELECT x FROM argo_query('SELECT * FROM inj WHERE `select` = $1', '"x'' OR ''1''=''1"') x;
SELECT * FROM argo_query('SELECT * FROM inj; DROP TABLE canary');
SELECT * FROM argo_query('SELECT * FROM "inj; DROP TABLE canary"');
SELECT argo_count('inj"; DROP TABLE canary; --');
SELECT * FROM canary;

-- a long statement is cancelled by statement_timeout
SELECT argo_load('big', 'SELECT jsonb_build_object(''i'', i) FROM generate_series(1, 20000) i');
-- (terse: whether it lands in SQL or in Argo's loop, the error is the same)
\set VERBOSITY terse
SET statement_timeout = '20ms';
SELECT count(*) FROM argo_query('SELECT * FROM big AS a INNER JOIN big AS b ON (a.i = b.i) INNER JOIN big AS c ON (b.i = c.i) ORDER BY c.i DESC');
RESET statement_timeout;
\set VERBOSITY default
SELECT argo_count('big');
