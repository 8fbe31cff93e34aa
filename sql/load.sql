-- Bulk loading: from a query (jsonb, json or text) and from a JSON-lines
-- file on the server; a failure loads nothing.
-- The server writes the JSON-lines files itself (COPY as CSV with quote
-- and delimiter bytes that never occur writes each value raw), so the test
-- does not depend on the server being able to read this checkout.
\set family '/tmp/argo_regress_family.jsonl'
\set broken '/tmp/argo_regress_broken.jsonl'
COPY (VALUES ('{"name": "Gob", "tricks": ["illusion", "chicken"]}'), (' '),
             ('{"name": "Buster", "hand": null, "age": 32}'), ('   '),
             ('{"name": "Lucille", "drinks": {"martini": 3, "wine": []}}'))
  TO :'family' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
COPY (VALUES ('{"ok": 1}'), ('{"ok": 2}'), ('{"broken": '))
  TO :'broken' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');

SELECT argo_load_file('family', :'family');
SELECT * FROM argo_query('SELECT * FROM family');

SELECT argo_load('family', $$SELECT '{"name": "Maeby"}'::json$$);
SELECT argo_load('family', $$SELECT '{"name": "George Michael"}'::text$$);
SELECT argo_load('family', $$SELECT jsonb_build_object('n', i) FROM generate_series(1, 5000) i$$);
SELECT argo_count('family');
-- several batches of many-valued objects, each object whole and in order
SELECT argo_load('batches', $$SELECT jsonb_build_object('i', i, 'g', i % 7, 'tags', jsonb_build_array('a', i), 's', 'x' || i)
                              FROM generate_series(1, 3500) i$$);
SELECT count(*), min((x->>'i')::int), max((x->>'i')::int),
       bool_and(x = jsonb_build_object('i', n, 'g', n % 7, 'tags', jsonb_build_array('a', n), 's', 'x' || n))
  FROM argo_query('SELECT * FROM batches') WITH ORDINALITY AS t(x, n);
-- a (keyid, value) index of numbers or strings is built 70% full, after a
-- load as at creation (its next inserts would split packed leaves); the
-- objid and boolean indexes, growing at their ends, keep the default
SELECT argo_create_collection('load1', 'argo1');
SELECT argo_load('load1', $$SELECT jsonb_build_object('i', i, 's', 'x' || i, 'b', i % 2 = 0) FROM generate_series(1, 3500) i$$);
SELECT c.relname AS index, c.reloptions FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid::regclass::text ~ '^argo_data\.(batches|family|load1)_(str|num|bool|data)$' ORDER BY 1;
SELECT argo_drop_collection('load1');
SELECT * FROM argo_query('SELECT name FROM family WHERE EXISTS name');
SELECT * FROM argo_query('SELECT * FROM family WHERE n BETWEEN 2499 AND 2501');

-- errors, and nothing loaded by a failed call
-- (terse: the message's context names this checkout's path)
\set VERBOSITY terse
SELECT argo_load_file('family', :'broken');
\set VERBOSITY default
SELECT argo_load_file('family', '/nonexistent/file.jsonl');
SELECT argo_load('family', 'SELECT 1');
SELECT argo_load('family', 'SELECT ''{}''::jsonb, 2');
SELECT argo_load('family', $$SELECT '[1]'::jsonb$$);
SELECT argo_load('family', $$SELECT NULL::jsonb$$);
SELECT argo_load('family', $$SELECT 'not json'::text$$);
SELECT argo_load('family', 'SELEC 1');
SELECT argo_count('family');

-- a file holding one JSON array of the documents (mongoimport's
-- --jsonArray), read an element at a time; commas, brackets and escapes
-- inside strings do not end an element
\set arr '/tmp/argo_regress_array.json'
COPY (VALUES ('  ['), ('{"name": "Lindsay", "s": "a,]}\"["},'), (' {"nested": [1, {"b": "]"}]}'),
             (' , {"n": 3}'), (']'))
  TO :'arr' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('fromarray', :'arr');
SELECT * FROM argo_query('SELECT * FROM fromarray ORDER BY ID()');
COPY (VALUES ('[]')) TO :'arr' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('fromarray', :'arr');
-- each malformed array is refused whole, naming the element
COPY (VALUES ('[{"a": 1},'), (']')) TO :'arr' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('fromarray', :'arr');
COPY (VALUES ('[{"a": 1}, {"a": "]"}')) TO :'arr' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('fromarray', :'arr');
COPY (VALUES ('[{"a": 1}]'), ('{"a": 2}')) TO :'arr' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('fromarray', :'arr');
COPY (VALUES ('[{"a": 1},'), ('{"a": tru}]')) TO :'arr' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('fromarray', :'arr');
COPY (VALUES ('[{"a": 1}, [1]]')) TO :'arr' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('fromarray', :'arr');
SELECT argo_count('fromarray');

-- a document refused when its batch is written is named by its own line
-- (or element), not the batch's last
\set lined '/tmp/argo_regress_lined.jsonl'
SELECT argo_create_collection('lined');
SELECT argo_validate('lined', '{"required": ["n"]}');
COPY (SELECT CASE WHEN i = 11 THEN '{"m": 11}' ELSE '{"n": ' || i || '}' END FROM generate_series(1, 1500) i)
  TO :'lined' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('lined', :'lined');
COPY (SELECT CASE WHEN i = 1490 THEN '{"m": 1490}' ELSE '{"n": ' || i || '}' END FROM generate_series(1, 1500) i)
  TO :'lined' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('lined', :'lined');
COPY (SELECT '[' UNION ALL SELECT * FROM (SELECT CASE WHEN i = 7 THEN '{"m": 7},' ELSE '{"n": ' || i || '},' END
        FROM generate_series(1, 1200) i ORDER BY i) e UNION ALL SELECT '{"n": 0}]')
  TO :'lined' WITH (FORMAT csv, DELIMITER e'\x01', QUOTE e'\x02');
SELECT argo_load_file('lined', :'lined');
SELECT argo_count('lined');
SELECT argo_drop_collection('lined');

-- exports and loads that keep ids (mongoexport's and mongoimport's "_id"):
-- an id stored in another document as a reference still names its object
\set exp '/tmp/argo_regress_ids.jsonl'
SELECT argo_load('withids', $$SELECT jsonb_build_object('n', i, 'ref', i * 7 % 10) FROM generate_series(1, 10) i$$);
SELECT * FROM argo_query('DELETE FROM withids WHERE n IN (2, 5)');
SELECT argo_export_file('withids', :'exp', true);
-- a new collection, ids kept (3 and 6 are gaps); the sequence moves past the largest
SELECT argo_load_file('back', :'exp', true);
SELECT x FROM argo_query('SELECT ID(), n, ref FROM back ORDER BY ID()') x;
SELECT * FROM argo_query('INSERT INTO back OBJECT {"n": 11} RETURNING ID()');
-- a load that would reuse an id loads nothing: 23505
SELECT argo_load('back', $$SELECT '{"_id": 20, "n": 20}'::jsonb UNION ALL SELECT '{"_id": 4, "n": 4}'$$, true);
SELECT argo_load('back', $$SELECT '{"_id": 30, "n": 30}'::jsonb UNION ALL SELECT '{"_id": 30, "n": 31}'$$, true);
SELECT argo_load('back', $$SELECT '{"n": 30}'::jsonb$$, true);
SELECT argo_load('back', $$SELECT '{"_id": 1.5}'::jsonb$$, true);
SELECT argo_load('back', $$SELECT '{"_id": "7"}'::jsonb$$, true);
SELECT argo_load('back', $$SELECT '{"_id": 0}'::jsonb$$, true);
SELECT argo_load('back', $$SELECT '{"n": 1}'::jsonb$$, NULL);
SELECT argo_count('back');
-- without with_ids, "_id" is data as before
SELECT argo_load('plain', $$SELECT '{"_id": 99, "n": 1}'::jsonb$$);
SELECT x FROM argo_query('SELECT ID() AS id, _id FROM plain') x;
-- a nested "_id" stays
SELECT argo_load('back', $$SELECT '{"_id": 40, "o": {"_id": 1}}'::jsonb$$, true);
SELECT x FROM argo_query('SELECT * FROM back WHERE ID() = 40') x;
-- with_ids false writes no ids
SELECT argo_export_file('plain', :'exp', false);
SELECT argo_drop_collection('withids'), argo_drop_collection('back'), argo_drop_collection('plain');

-- a load that grows a collection by a tenth or more analyses its tables
-- (argo.analyze_after_load): the planner knows them before anyone runs
-- ANALYZE; a smaller one, or with the setting off, leaves them (ANALYZE's
-- own count, which autovacuum's does not move)
SELECT argo_load('analysed', $$SELECT jsonb_build_object('i', g) FROM generate_series(1, 5000) g$$);
SELECT relname, analyze_count FROM pg_stat_user_tables WHERE relname IN ('analysed_obj', 'analysed_num') ORDER BY 1;
SET argo.analyze_after_load = off;
SELECT argo_load('analysed', $$SELECT jsonb_build_object('i', g) FROM generate_series(1, 5000) g$$);
SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'analysed_obj';
RESET argo.analyze_after_load;
SELECT argo_load('analysed', $$SELECT jsonb_build_object('i', g) FROM generate_series(1, 500) g$$);
SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'analysed_obj';
SELECT argo_load('analysed', $$SELECT jsonb_build_object('i', g) FROM generate_series(1, 1000) g$$);
SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'analysed_obj';
SELECT argo_drop_collection('analysed');

-- loading files needs the privileges of pg_read_server_files, as COPY does
CREATE ROLE argo_loader;
GRANT ALL ON ALL TABLES IN SCHEMA argo_data TO argo_loader;
GRANT ALL ON ALL SEQUENCES IN SCHEMA argo_data TO argo_loader;
SET ROLE argo_loader;
SELECT argo_load_file('family', :'family');
SELECT argo_load('family', $$SELECT '{"by": "argo_loader"}'::jsonb$$);
RESET ROLE;
SELECT argo_count('family');
DROP OWNED BY argo_loader;
DROP ROLE argo_loader;

-- loads write rows directly only where SQL would do nothing more: a
-- trigger, row-level security or a column privilege sends them through
-- INSERT, which honours it
CREATE TABLE str_rows_seen (n int);
CREATE FUNCTION note_str_row() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN INSERT INTO str_rows_seen VALUES (1); RETURN NEW; END$$;
CREATE TRIGGER noted AFTER INSERT ON argo_data.family_str
  FOR EACH ROW EXECUTE FUNCTION note_str_row();
SELECT argo_load('family', $$SELECT '{"a": "x", "b": ["y", "z"], "n": 1}'::jsonb FROM generate_series(1, 5)$$);
SELECT count(*) AS string_rows_seen_by_trigger FROM str_rows_seen;
DROP TRIGGER noted ON argo_data.family_str;
ALTER TABLE argo_data.family_num ENABLE ROW LEVEL SECURITY;
CREATE POLICY small_numbers ON argo_data.family_num FOR INSERT WITH CHECK (valnum < 100);
CREATE ROLE argo_rls;
GRANT USAGE ON SCHEMA argo_data TO argo_rls;
GRANT ALL ON ALL TABLES IN SCHEMA argo_data TO argo_rls;
GRANT ALL ON ALL SEQUENCES IN SCHEMA argo_data TO argo_rls;
SET ROLE argo_rls;
SELECT argo_load('family', $$SELECT '{"rls_n": 5}'::jsonb$$);
SELECT argo_load('family', $$SELECT '{"rls_n": 500}'::jsonb$$);
RESET ROLE;
SELECT array_agg(valnum) AS rls_numbers FROM argo_data.family_num JOIN argo_data.family_keys USING (keyid) WHERE keystr = 'rls_n';
DROP POLICY small_numbers ON argo_data.family_num;
ALTER TABLE argo_data.family_num DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON argo_data.family_bool FROM argo_rls;
GRANT SELECT, INSERT (objid, keyid, valbool) ON argo_data.family_bool TO argo_rls;
SET ROLE argo_rls;
SELECT argo_load('family', $$SELECT '{"flag": true}'::jsonb$$);
RESET ROLE;
SELECT count(*) AS flags FROM argo_data.family_bool JOIN argo_data.family_keys USING (keyid) WHERE keystr = 'flag';
DROP OWNED BY argo_rls;
DROP ROLE argo_rls;
-- constraints hold on the direct path too
ALTER TABLE argo_data.family_str ADD CONSTRAINT short_strings CHECK (length(valstr) < 100) NOT VALID;
SELECT argo_load('family', $$SELECT '{"s": "this one is too long, longer than a hundred characters: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}'::jsonb$$);
ALTER TABLE argo_data.family_str DROP CONSTRAINT short_strings;
-- the string index's entries written by the direct path (sorted, their
-- prefixes formed in C) are the ones PostgreSQL would form: amcheck
-- compares every heap row with the index; strings around the prefix's
-- 256 characters, in one- and two-byte characters
CREATE EXTENSION amcheck;
SELECT argo_create_collection('prefixes');
SELECT count(*) FROM argo_query('INSERT INTO prefixes OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('e', repeat('é', 250 + i % 12), 'x', repeat('x', 250 + i % 12), 'i', i))
     FROM generate_series(1, 600) i)) x;
SELECT i.indexrelid::regclass AS index, bt_index_check(i.indexrelid, true) AS checked
  FROM pg_index i WHERE i.indrelid = 'argo_data.prefixes_str'::regclass ORDER BY 1;
SELECT count(*) FROM argo_query('SELECT * FROM prefixes WHERE e = $1', to_jsonb(repeat('é', 257))) x;
SELECT count(*) FROM argo_query('SELECT * FROM prefixes WHERE x >= $1', to_jsonb(repeat('x', 256))) x;
SELECT argo_drop_collection('prefixes');
DROP EXTENSION amcheck;
