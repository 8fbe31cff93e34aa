-- Writes for applications (reference.md §5.6), on both formats: many
-- objects in one parameter (OBJECTS), RETURNING * and RETURNING ID on
-- every write, unique keys (argo_unique).
SELECT argo_create_collection('wr3', 'argo3'), argo_create_collection('wr1', 'argo1');

CREATE FUNCTION wr_run(coll text, q text, VARIADIC params jsonb[] DEFAULT '{}') RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x::text, E'\n' ORDER BY n), '(none)')
    FROM argo_query(format(q, coll), VARIADIC params) WITH ORDINALITY AS t(x, n)
$$;
-- the statement on each format: the same answer from both, or an error
CREATE FUNCTION wr_on_both(q text, VARIADIC params jsonb[] DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r3 text := wr_run('wr3', q, VARIADIC params);
  r1 text := wr_run('wr1', q, VARIADIC params);
BEGIN
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\nargo3:\n%\nargo1:\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;

-- OBJECTS: a literal array, or one parameter holding one, of any length
SELECT wr_on_both('INSERT INTO %s OBJECTS [{"name": "Ada", "tags": ["x"]}, {"name": "Bob", "age": 25}]');
SELECT wr_on_both('INSERT INTO %s OBJECTS $1 RETURNING ID',
                  jsonb_build_array(jsonb_build_object('name', 'Cy'), '{"name": "Dee", "age": 41}'::jsonb));
SELECT wr_on_both('INSERT INTO %s OBJECTS $1', (SELECT jsonb_agg(jsonb_build_object('n', i, 'sq', i * i)) FROM generate_series(1, 10000) i));
SELECT wr_on_both('SELECT COUNT(*) AS n, SUM(n) AS total, MAX(sq) AS top FROM %s WHERE EXISTS n');
SELECT wr_on_both('INSERT INTO %s OBJECTS []');
SELECT wr_on_both('INSERT INTO %s OBJECTS $1 RETURNING *', '[{"name": "Eve", "pets": {"cat": true}}]');
-- an element that is not an object: 22023 naming it, nothing inserted
SELECT wr_run('wr3', 'INSERT INTO %s OBJECTS [{"name": "Fay"}, 7]');
SELECT wr_run('wr1', 'INSERT INTO %s OBJECTS $1', '[{"name": "Fay"}, {"name": "Gus"}, [1]]');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECTS $1', '{"name": "Fay"}');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECTS $1', 'null');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT $1', '[{"name": "Fay"}]');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT [{"name": "Fay"}]');
SELECT wr_on_both('SELECT COUNT(*) AS n FROM %s WHERE name = ''Fay''');
-- the old spelling, a list of objects, is still there
SELECT wr_on_both('INSERT INTO %s OBJECT $1, $2 RETURNING ID', '{"name": "Hal"}', '{"name": "Ida"}');

-- RETURNING * gives the objects inserted, as updated, as deleted, in id
-- order; RETURNING ID their ids and the count
SELECT wr_on_both('UPDATE %s SET age += 1, seen = true WHERE name IN (''Bob'', ''Dee'') RETURNING *');
SELECT wr_on_both('UPDATE %s SET age = 0 WHERE name = ''Bob'' OR name = ''Ada'' RETURNING ID');
SELECT wr_on_both('UPDATE %s SET age = 0 WHERE name = ''nobody'' RETURNING *');
SELECT wr_on_both('UPDATE %s SET age = 0 WHERE name = ''nobody'' RETURNING ID');
SELECT wr_on_both('UPDATE %s UNSET tags WHERE ID() = 1 RETURNING *');
SELECT wr_on_both('DELETE FROM %s WHERE name = ''Hal'' RETURNING *');
SELECT wr_on_both('DELETE FROM %s WHERE name = ''Ida'' RETURNING ID');
SELECT wr_on_both('DELETE FROM %s WHERE name = ''nobody'' RETURNING *');
SELECT wr_on_both('UPSERT %s SET hits += 1 WHERE kind = ''visit'' RETURNING *');
SELECT wr_on_both('UPSERT %s SET hits += 1 WHERE kind = ''visit'' RETURNING *');
SELECT wr_on_both('UPSERT %s SET hits += 1 WHERE kind = ''visit'' RETURNING ID');
SELECT wr_on_both('DELETE FROM %s WHERE EXISTS n RETURNING ID') ~ '"deleted": 10000' AS deleted_all;
SELECT wr_on_both('SELECT * FROM %s ORDER BY ID()');
-- argo_explain says what a RETURNING gives
SELECT line FROM argo_explain('UPDATE wr3 SET a = 1 WHERE name = ''Ada'' RETURNING *') line WHERE line LIKE '-- RETURNING%';
SELECT line FROM argo_explain('DELETE FROM wr1 WHERE age > 1 RETURNING *') line WHERE line LIKE '-- RETURNING%';
SELECT line FROM argo_explain('UPSERT wr3 SET hits += 1 WHERE kind = ''visit'' RETURNING ID') line WHERE line LIKE '-- RETURNING%';
-- RETURNING *, ID(): each object with its id (under "_id", or AS's name);
-- RETURNING ID() is RETURNING ID
SELECT wr_on_both('INSERT INTO %s OBJECTS [{"name": "Jo"}, {"name": "Kim"}] RETURNING *, ID()');
SELECT wr_on_both('UPDATE %s SET age = 3 WHERE name = ''Jo'' RETURNING *, ID() AS oid');
SELECT wr_on_both('UPSERT %s SET age = 4 WHERE name = ''Lu'' RETURNING *, ID()');
SELECT wr_on_both('UPDATE %s SET age = 5 WHERE name IN (''Kim'', ''Lu'') RETURNING ID()');
SELECT wr_on_both('INSERT INTO %s OBJECT {"name": "Max"} RETURNING ID()');
SELECT line FROM argo_explain('DELETE FROM wr1 WHERE age > 1 RETURNING *, ID()') line WHERE line LIKE '-- RETURNING%';
SELECT wr_on_both('DELETE FROM %s WHERE name IN (''Jo'', ''Kim'', ''Lu'', ''Max'') RETURNING *, ID()');
-- an object holding the key already: 42712, nothing written
SELECT wr_run('wr3', 'INSERT INTO %s OBJECTS [{"name": "Mo"}, {"name": "Ned", "_id": 1}] RETURNING *, ID()');
SELECT wr_run('wr1', 'INSERT INTO %s OBJECTS [{"name": "Mo"}, {"name": "Ned", "_id": 1}] RETURNING *, ID()');
SELECT wr_on_both('SELECT COUNT(*) AS n FROM %s WHERE name IN (''Mo'', ''Ned'')');
SELECT wr_run('wr3', 'DELETE FROM %s RETURNING *, ID(), name');
SELECT wr_run('wr3', 'DELETE FROM %s RETURNING ID(), *');
-- a RETURNING the statement cannot give
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"a": 1} RETURNING name');
SELECT wr_run('wr3', 'DELETE FROM %s RETURNING ID, name');
SELECT wr_run('wr3', 'UPDATE %s SET a = 1 RETURNING');

-- unique keys: per type, JSON null and missing paths unconstrained
SELECT argo_unique('wr3', 'email'), argo_unique('wr1', 'email');
SELECT wr_on_both('INSERT INTO %s OBJECTS [{"email": "a@x"}, {"email": 5}, {"email": "5"}, {"email": true},'
                  ' {"email": null}, {"email": null}, {"other": 1}, {"email": {"not": "a leaf"}}]');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"email": "a@x"}');
SELECT wr_run('wr1', 'INSERT INTO %s OBJECT {"email": "a@x"}');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"email": 5.0}');
SELECT wr_run('wr1', 'INSERT INTO %s OBJECT {"email": true}');
-- a statement of many objects that collides anywhere writes nothing
SELECT wr_run('wr3', 'INSERT INTO %s OBJECTS [{"email": "new@x"}, {"email": "b@x"}, {"email": "b@x"}]');
SELECT wr_run('wr1', 'UPDATE %s SET email = ''a@x'' WHERE email = 5');
SELECT wr_run('wr3', 'UPSERT %s SET email = ''a@x'' WHERE email = ''5''');
SELECT wr_on_both('SELECT COUNT(*) AS n FROM %s WHERE email IN (''new@x'', ''b@x'')');
SELECT wr_on_both('SELECT email FROM %s WHERE EXISTS email ORDER BY ID()');
-- a value freed in a statement can be taken by it
SELECT wr_on_both('UPDATE %s SET email = ''z@x'' WHERE email = ''a@x'' RETURNING *');
SELECT wr_on_both('INSERT INTO %s OBJECT {"email": "a@x", "second": true} RETURNING *');
-- long strings: a value of any length, compared whole
SELECT wr_on_both('INSERT INTO %s OBJECTS $1',
                  jsonb_build_array(jsonb_build_object('email', repeat('é', 3000)),
                                    jsonb_build_object('email', repeat('é', 2999) || 'e')));
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT $1', jsonb_build_object('email', repeat('é', 3000)));
-- argo_keys says which paths are unique
SELECT path, is_unique FROM argo_keys('wr3') WHERE path IN ('email', 'name') ORDER BY path;
SELECT path, is_unique FROM argo_keys('wr1') WHERE path IN ('email', 'name') ORDER BY path;
-- a path below objects, with odd keys
SELECT argo_unique('wr3', 'account.`login name`');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"account": {"login name": "ada"}}');
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"account": {"login name": "ada", "other": 1}}');
-- unique is the path made unique, not the objects above it
SELECT path, is_unique FROM argo_keys('wr3') WHERE path LIKE 'account%' ORDER BY path;
-- duplicates already stored refuse the key, naming one
SELECT argo_unique('wr3', 'age');
SELECT argo_unique('wr1', 'seen');
SELECT path, is_unique FROM argo_keys('wr3') WHERE path = 'age';
-- removed, and made again (idempotent both ways)
SELECT argo_unique('wr3', 'email', false), argo_unique('wr3', 'email', false);
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"email": "a@x"}');
SELECT argo_unique('wr3', 'email');
SELECT wr_run('wr3', 'DELETE FROM %s WHERE email = ''a@x'' AND NOT EXISTS second');
SELECT argo_unique('wr3', 'email'), argo_unique('wr3', 'email');
-- a bulk load checks them too, and loads nothing on a collision
SELECT argo_create_collection('wrload', 'argo3');
SELECT argo_unique('wrload', 'sku');
SELECT argo_load('wrload', $$SELECT jsonb_build_object('sku', i % 999) FROM generate_series(1, 1000) i$$);
SELECT argo_count('wrload');
SELECT argo_load('wrload', $$SELECT jsonb_build_object('sku', i) FROM generate_series(1, 1000) i$$);
-- statements of 256 rows and more sort each index's entries before
-- inserting them: the unique key is checked all the same
SELECT * FROM argo_query('INSERT INTO wrload OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('sku', i, 'n', i)) FROM generate_series(1001, 1300) i) || '[{"sku": 500}]');
SELECT * FROM argo_query('INSERT INTO wrload OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('sku', 2000 + i % 299, 'n', i)) FROM generate_series(1, 300) i));
SELECT argo_count('wrload');
SELECT * FROM argo_query('INSERT INTO wrload OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('sku', i, 'n', -i)) FROM generate_series(1300, 1001, -1) i));
SELECT * FROM argo_query('SELECT sku, n FROM wrload WHERE sku IN (1001, 1150, 1300) OR n = -1200 ORDER BY sku');
SELECT * FROM argo_query('SELECT COUNT(*) FROM wrload WHERE n < -1100 AND sku > 1200');
SELECT * FROM argo_check('wrload');
SELECT argo_drop_collection('wrload');
-- bad arguments
SELECT argo_unique('wr3', 'tags[*]');
SELECT argo_unique('wr3', 'ID()');
SELECT argo_unique('wr3', 'a..b');
SELECT argo_unique('wr3', 'a, b');
SELECT argo_unique('wr3', 'COUNT(a)');
SELECT argo_unique('wr3', 'email', NULL);
SELECT argo_unique('wr3', NULL);
SELECT argo_unique('nowhere', 'email');
-- only the collection's owner makes or removes one
CREATE ROLE wr_writer;
GRANT USAGE ON SCHEMA argo_data TO wr_writer;
GRANT ALL ON ALL TABLES IN SCHEMA argo_data TO wr_writer;
GRANT ALL ON ALL SEQUENCES IN SCHEMA argo_data TO wr_writer;
SET ROLE wr_writer;
SELECT argo_unique('wr3', 'name');
SELECT argo_unique('wr3', 'email', false);
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"email": "a@x"}');
RESET ROLE;
DROP OWNED BY wr_writer;
DROP ROLE wr_writer;
SELECT argo_check('wr3'), argo_check('wr1');

-- a read-only transaction (and so a standby) refuses every write, as
-- SQL's would, and changes nothing; reads go on
SELECT argo_count('wr3') AS before, argo_count('wr1') AS before1;
BEGIN READ ONLY;
SELECT wr_run('wr3', 'INSERT INTO %s OBJECT {"ro": 1}');
ROLLBACK;
BEGIN READ ONLY;
SELECT wr_run('wr1', 'INSERT INTO %s OBJECTS $1', '[{"ro": 1}, {"ro": 2}]');
ROLLBACK;
BEGIN READ ONLY;
SELECT wr_run('wr3', 'UPDATE %s SET ro = 1');
ROLLBACK;
BEGIN READ ONLY;
SELECT wr_run('wr1', 'UPDATE %s SET ro = 1 WHERE ID() = 1');
ROLLBACK;
BEGIN READ ONLY;
SELECT wr_run('wr3', 'DELETE FROM %s');
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM argo_query('DELETE FROM wr1 WHERE ID() = 1') x;
ROLLBACK;
BEGIN READ ONLY;
SELECT argo_load('wr3', 'SELECT ''{"ro": 1}''::jsonb');
ROLLBACK;
BEGIN READ ONLY;
SELECT argo_count('wr3') AS after, argo_count('wr1') AS after1,
       (SELECT count(*) FROM argo_query('SELECT * FROM wr3')) AS read;
ROLLBACK;
-- ... also when the transaction was made read-only by the function's
-- own SET clause (the clauses are read again after ALTER FUNCTION)
SELECT * FROM argo_query('SELECT COUNT(*) FROM wr3') x;
ALTER FUNCTION argo_query(text, VARIADIC jsonb[]) SET transaction_read_only = on;
SELECT * FROM argo_query('DELETE FROM wr3') x;
ALTER FUNCTION argo_query(text, VARIADIC jsonb[]) RESET transaction_read_only;
SELECT * FROM argo_query('SELECT COUNT(*) FROM wr3') x;

SELECT argo_drop_collection('wr3'), argo_drop_collection('wr1');
DROP FUNCTION wr_on_both, wr_run;
