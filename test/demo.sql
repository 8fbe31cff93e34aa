-- Argo demo: what `bash run demo` shows on a throwaway cluster.
\pset footer off
\echo '== CREATE EXTENSION argo'
CREATE EXTENSION argo;

\echo '== Insert the paper''s two objects; the collection is created on first use'
SELECT * FROM argo_query($$
  INSERT INTO people OBJECT
    {"name": "George Bluth", "age": 58, "indicted": true,
     "kids": ["Gob", "Lindsay", "Buster",
              {"name": "Michael", "age": 38, "kids": ["George-Michael"]}],
     "rival": "Stan Sitwell"},
    {"name": "Stan Sitwell", "age": "middle-aged",
     "charity_giving": 250120.5, "kids": ["Sally"]}
$$);

\echo '== They are stored in vertical tables (Argo/3: one per value type), keys as ids from the key dictionary'
SELECT objid, keyid, valstr FROM argo_data.people_str ORDER BY objid, keyid;
SELECT objid, keyid, valnum FROM argo_data.people_num ORDER BY objid, keyid;
SELECT keyid, keystr FROM argo_data.people_keys ORDER BY keyid;

\echo '== ... and rebuilt as jsonb inside the server'
SELECT * FROM argo_query('SELECT * FROM people');

\echo '== Projection keeps nesting; age has two types across objects'
SELECT * FROM argo_query('SELECT name, age, kids[3].name FROM people');

\echo '== Predicates pick the table by the literal''s type'
SELECT * FROM argo_query('SELECT name FROM people WHERE charity_giving > 100000');
SELECT * FROM argo_query('SELECT name FROM people WHERE "Lindsay" = ANY kids');
SELECT * FROM argo_query('SELECT name FROM people WHERE age LIKE ''middle%'' OR age >= 50');

\echo '== Three-valued logic: NOT (age > 50) skips the object whose age is a string'
SELECT * FROM argo_query('SELECT name, age FROM people WHERE NOT (age > 50)');

\echo '== Parameters are values, never syntax'
SELECT * FROM argo_query('SELECT name FROM people WHERE name = $1', '"Stan Sitwell"');
SELECT * FROM argo_query('SELECT name FROM people WHERE name = $1', '"x'' OR 1=1 --"');

\echo '== Bulk load, then a query over it'
SELECT argo_load('numbers', $$SELECT jsonb_build_object('n', i, 'even', i % 2 = 0,
                                  'tags', jsonb_build_array('t' || i % 7))
                                FROM generate_series(1, 10000) i$$);
SELECT * FROM argo_query('SELECT * FROM numbers WHERE n BETWEEN 4998 AND 5001 AND even = true');
SELECT name, format, objects FROM argo_collections ORDER BY name;

\echo '== What the collection holds: paths, types, objects'
SELECT * FROM argo_keys('numbers');

\echo '== The SQL Argo runs, and its plan'
SELECT * FROM argo_explain('SELECT * FROM numbers WHERE n = $1', '77');

\echo '== Errors name the problem'
\set ON_ERROR_STOP 0
SELECT * FROM argo_query('SELECT * FROM people WHERE age > > 1');
SELECT * FROM argo_query('SELECT * FROM nobody');
\set ON_ERROR_STOP 1

\echo '== DELETE'
SELECT * FROM argo_query('DELETE FROM people WHERE "Lindsay" = ANY kids');
SELECT * FROM argo_query('SELECT name FROM people');
