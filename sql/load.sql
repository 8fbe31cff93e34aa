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
