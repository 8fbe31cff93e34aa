-- The dictionary's complete flags (store/keyflags.c): which keys every
-- object holds a scalar at.  Set by argo_analyze and by a load into an
-- empty collection; cleared by the first write through Argo that leaves
-- an object without one.  ORDER BY … DESC skips looking for objects that
-- lack the path when the flag says there are none, and ORDER BY two paths
-- with LIMIT reads the first path's first group (sql/firstgroup.c): each
-- must give exactly the slice of the full sort.
SELECT argo_create_collection('cf3');
SELECT argo_create_collection('cf1', 'argo1');
CREATE TABLE cf_docs AS
SELECT i, jsonb_build_object('i', i, 's', (ARRAY['b', 'a', 'c'])[i % 3 + 1], 'n', (i * 7) % 23,
                             'o', jsonb_build_object('x', i % 5), 'arr', jsonb_build_array(i))
       || CASE WHEN i % 10 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('p', i % 4) END AS doc
FROM generate_series(1, 300) i;
SELECT count(*) FROM cf_docs d, argo_query('INSERT INTO cf3 OBJECT $1', d.doc);
SELECT count(*) FROM cf_docs d, argo_query('INSERT INTO cf1 OBJECT $1', d.doc);

-- the flagged keys, read from the dictionary as any SQL may
CREATE FUNCTION cf_complete(c text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE format('SELECT coalesce(string_agg(keystr, '', '' ORDER BY keystr), ''(none)'') FROM argo_data.%I WHERE complete',
                 c || '_keys') INTO r;
  RETURN r;
END $$;

-- 1 where q LIMIT l OFFSET o is not the slice of q's full result, else 0
CREATE FUNCTION cf_mismatches(q text, l int, o int) RETURNS bigint
LANGUAGE sql AS $$
  SELECT ((SELECT array_agg(x ORDER BY n) FROM argo_query(q) WITH ORDINALITY a(x, n)
            WHERE n > o AND n <= o + l)
          IS DISTINCT FROM
          (SELECT array_agg(x ORDER BY n)
             FROM argo_query(format('%s LIMIT %s OFFSET %s', q, l, o)) WITH ORDINALITY a(x, n)))::int
$$;
CREATE FUNCTION cf_all_mismatches(c text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT sum(cf_mismatches(replace(q, 'COLL', c), l, o))
  FROM (VALUES ('SELECT * FROM COLL ORDER BY n DESC'),
               ('SELECT * FROM COLL ORDER BY p DESC'),
               ('SELECT * FROM COLL ORDER BY s DESC'),
               ('SELECT * FROM COLL ORDER BY s, n DESC'),
               ('SELECT * FROM COLL ORDER BY s DESC, n'),
               ('SELECT * FROM COLL ORDER BY s, n DESC, ID()'),
               ('SELECT * FROM COLL ORDER BY n, s'),
               ('SELECT * FROM COLL ORDER BY o.x DESC, i DESC'),
               ('SELECT * FROM COLL ORDER BY s, p DESC'),
               ('SELECT * FROM COLL ORDER BY p, s DESC'),
               ('SELECT * FROM COLL ORDER BY s, i'),
               ('SELECT * FROM COLL WHERE s = ''a'' ORDER BY n DESC'),
               ('SELECT * FROM COLL WHERE s = ''b'' ORDER BY i'),
               ('SELECT * FROM COLL WHERE n = 5 ORDER BY s DESC, ID()'),
               ('SELECT * FROM COLL WHERE s = ''a'' ORDER BY p DESC'),
               ('SELECT * FROM COLL WHERE s = ''zz'' ORDER BY n DESC')) qs(q),
       (VALUES (5, 0), (20, 7), (150, 0), (40, 290)) lo(l, o)
$$;

-- inserted one by one: nothing is flagged
SELECT cf_complete('cf3') AS cf3, cf_complete('cf1') AS cf1;
SELECT cf_all_mismatches('cf3') AS cf3, cf_all_mismatches('cf1') AS cf1;
-- argo_analyze flags the keys every object holds a scalar at: not p
-- (missing from a tenth), not o (an object), not arr[0] (an array step)
SELECT keys > 0 AS counted FROM argo_analyze('cf3');
SELECT keys > 0 AS counted FROM argo_analyze('cf1');
SELECT cf_complete('cf3') AS cf3, cf_complete('cf1') AS cf1;
SELECT cf_all_mismatches('cf3') AS cf3, cf_all_mismatches('cf1') AS cf1;
-- with a flag, DESC's lacking branch is not looked for; the plan says so
SELECT count(*) > 0 AS gated FROM argo_explain('SELECT * FROM cf3 ORDER BY n DESC LIMIT 3') l
 WHERE l LIKE '%complete%';
SELECT count(*) > 0 AS first_group FROM argo_explain('SELECT * FROM cf3 ORDER BY s, n DESC LIMIT 3') l
 WHERE l LIKE '%WITH f AS MATERIALIZED%';
SELECT count(*) > 0 AS one_path FROM argo_explain('SELECT * FROM cf3 ORDER BY n DESC LIMIT 3 OFFSET 5') l
 WHERE l LIKE '%WITH f AS MATERIALIZED%';


-- a write that leaves an object without n clears n's flag, in its
-- transaction: the object comes first in DESC order
BEGIN;
SELECT argo_query('INSERT INTO cf3 OBJECT {"i": 1000, "s": "a"}');
SELECT cf_complete('cf3');
SELECT x->>'i' AS first FROM argo_query('SELECT * FROM cf3 ORDER BY n DESC LIMIT 1') x;
SELECT cf_mismatches('SELECT * FROM cf3 ORDER BY s, n DESC', 5, 0) AS first_group;
ROLLBACK;
SELECT cf_complete('cf3');
-- a rolled-back savepoint takes its clearing back; the next write clears again
BEGIN;
SAVEPOINT a;
SELECT argo_query('INSERT INTO cf3 OBJECT {"i": 1001, "n": 1}');
SELECT cf_complete('cf3');
ROLLBACK TO SAVEPOINT a;
SELECT cf_complete('cf3');
SELECT argo_query('INSERT INTO cf3 OBJECT {"i": 1002, "n": 2}');
SELECT cf_complete('cf3');
ROLLBACK;
-- updates: UNSET, a null, an object where a scalar was, a bulk insert
SELECT argo_query('UPDATE cf3 UNSET s WHERE i = 4');
SELECT cf_complete('cf3');
SELECT argo_query('UPDATE cf3 SET n = null WHERE i = 5');
SELECT argo_query('UPDATE cf1 SET i = {"deep": 1} WHERE i = 6');
SELECT cf_complete('cf3') AS cf3, cf_complete('cf1') AS cf1;
SELECT argo_query('INSERT INTO cf1 OBJECTS [{"i": 2000, "n": 1, "s": "a"}, {"i": 2001, "s": "a"}]');
SELECT cf_complete('cf1');
-- an update that keeps every flagged key clears nothing
SELECT argo_query('UPDATE cf3 SET n = 9, extra = 1 WHERE i = 7');
SELECT cf_complete('cf3');
-- an upsert inserting an object without the key
SELECT argo_query('UPSERT cf3 SET q = 1 WHERE i = 3000');
SELECT cf_complete('cf3');
-- the slices stay right whatever the flags say now
SELECT cf_all_mismatches('cf3') AS cf3, cf_all_mismatches('cf1') AS cf1;
SELECT x->>'i' AS first FROM argo_query('SELECT * FROM cf3 ORDER BY n DESC LIMIT 1') x;

-- the first path holding two types: the general sort, the same answers
SELECT argo_query('INSERT INTO cf1 OBJECT {"i": 3001, "s": 5, "n": 1}');
SELECT cf_mismatches('SELECT * FROM cf1 ORDER BY s, n DESC', 3, 0) AS two_types;

-- a load into an empty collection flags what every loaded object holds
SELECT argo_create_collection('cfl');
SELECT argo_load('cfl', 'SELECT doc FROM cf_docs ORDER BY i');
SELECT cf_complete('cfl');
SELECT cf_all_mismatches('cfl');
-- a first group too small to fill the LIMIT: the general sort
SELECT argo_query('INSERT INTO cfl OBJECT {"i": 5000, "s": "0", "n": 1, "o": {"x": 1}}');
SELECT cf_complete('cfl');
SELECT cf_mismatches('SELECT * FROM cfl ORDER BY s, n DESC', 3, 0) AS rare_first,
       cf_mismatches('SELECT * FROM cfl ORDER BY s DESC, n', 3, 1) AS desc_first;
SELECT string_agg(x->>'i', ', ') AS first FROM argo_query('SELECT * FROM cfl ORDER BY s, n DESC LIMIT 3') x;
-- a load into a collection that has objects sets nothing
SELECT argo_query('DELETE FROM cfl WHERE i > 1');
SELECT cf_complete('cfl');
SELECT argo_query('UPDATE cfl UNSET n WHERE i = 1');
SELECT argo_load('cfl', 'SELECT doc FROM cf_docs WHERE i > 1 ORDER BY i');
SELECT cf_complete('cfl');

-- WHERE p = x ORDER BY q LIMIT n, x's objects too many to sort in C:
-- walked in q's index order, the same slices
SELECT argo_create_collection('cfw');
SELECT argo_load('cfw', $$SELECT jsonb_build_object('i', i, 'g', (ARRAY['x', 'y'])[i % 2 + 1],
                                                    'n', (i * 37) % 1001, 'h', i % 3)
                            FROM generate_series(1, 3000) i$$);
SELECT cf_complete('cfw');
SELECT count(*) > 0 AS where_group FROM argo_explain('SELECT * FROM cfw WHERE g = ''x'' ORDER BY n DESC LIMIT 3') l
 WHERE l LIKE '%WITH f AS MATERIALIZED%';
SELECT q, l, o, cf_mismatches(q, l, o) AS mismatches
FROM (VALUES ('SELECT * FROM cfw WHERE g = ''x'' ORDER BY n DESC'),
             ('SELECT * FROM cfw WHERE g = ''y'' ORDER BY n, ID()'),
             ('SELECT * FROM cfw WHERE h = 1 ORDER BY g DESC')) qs(q),
     (VALUES (5, 0), (20, 30), (40, 1480)) lo(l, o)
ORDER BY 1, 2;
SELECT string_agg(x->>'i', ', ') AS first FROM argo_query('SELECT * FROM cfw WHERE g = ''x'' ORDER BY n DESC LIMIT 4') x;
-- an object without n clears the flag: the general sort answers, and an
-- object of the group without n comes first
SELECT argo_query('INSERT INTO cfw OBJECT {"i": 9000, "g": "y"}');
SELECT cf_complete('cfw');
SELECT cf_mismatches('SELECT * FROM cfw WHERE g = ''x'' ORDER BY n DESC', 4, 0) AS mismatches;
SELECT argo_query('INSERT INTO cfw OBJECT {"i": 9001, "g": "x"}');
SELECT string_agg(x->>'i', ', ') AS first FROM argo_query('SELECT * FROM cfw WHERE g = ''x'' ORDER BY n DESC LIMIT 4') x;
SELECT argo_drop_collection('cfw');

-- a writer granted by argo_grant may clear a flag
CREATE ROLE cf_writer;
SELECT argo_grant('cf3', 'cf_writer', 'write');
SELECT keys > 0 AS counted FROM argo_analyze('cf3');
SELECT cf_complete('cf3');
SET ROLE cf_writer;
SELECT argo_query('INSERT INTO cf3 OBJECT {"j": 4000}');
RESET ROLE;
SELECT cf_complete('cf3');
SELECT argo_revoke('cf3', 'cf_writer', 'read');
-- one granted by hand without UPDATE (complete) may not write at all, as
-- one without INSERT on the dictionary: 42501 on its first write (not when
-- an object first lacks a flagged key), nothing written
SELECT argo_grant('cf3', 'cf_writer', 'write');
REVOKE UPDATE (complete) ON argo_data.cf3_keys FROM cf_writer;
SELECT argo_query('DELETE FROM cf3 WHERE j = 4000');
SELECT keys > 0 AS counted FROM argo_analyze('cf3');
SELECT cf_complete('cf3');
SET ROLE cf_writer;
SELECT argo_query('INSERT INTO cf3 OBJECT {"j": 4001}');
SELECT argo_query('INSERT INTO cf3 OBJECT {"i": 4002}');
RESET ROLE;
SELECT cf_complete('cf3');
SELECT x->>'j' AS j, x->>'i' AS i FROM argo_query('SELECT j, i FROM cf3 WHERE j >= 4000 OR i >= 4000 ORDER BY ID()') x;
SELECT argo_revoke('cf3', 'cf_writer', 'read');
DROP ROLE cf_writer;

SELECT argo_drop_collection(c) FROM (VALUES ('cf3'), ('cf1'), ('cfl')) v(c);
DROP TABLE cf_docs;
DROP FUNCTION cf_complete(text);
DROP FUNCTION cf_all_mismatches(text);
DROP FUNCTION cf_mismatches(text, int, int);
