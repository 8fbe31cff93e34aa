-- ORDER BY, LIMIT/OFFSET, aggregates, joins, UPDATE, parameters and
-- argo_explain (reference.md §1–§8).  Each query runs on an Argo/3
-- and an Argo/1 copy of the same data ("%s" is the collection, "%1$s" in
-- joins) and the two must give the same results, in the same order.
SELECT argo_create_collection('l1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"id": 1, "g": 1, "v": 10, "s": "b", "mix": 3, "ref": 2, "tags": ["a"]}'),
  ('{"id": 2, "g": 2, "v": 20, "s": "a", "mix": "3", "ref": 3}'),
  ('{"id": 3, "g": 1, "v": 30, "s": "c", "mix": true, "ref": 1, "tags": []}'),
  ('{"id": 4, "g": "1", "v": 40, "mix": null, "ref": 9}'),
  ('{"id": 5, "g": 2, "v": "50", "s": "a", "mix": {"x": 1}}'),
  ('{"id": 6, "v": 60, "s": "d", "mix": false, "ref": 6}'),
  ('{"id": 7, "g": null, "mix": -1.5, "ref": 1}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO l3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO l1 OBJECT $1', doc::jsonb)) i;

CREATE FUNCTION run(coll text, q text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x::text, E'\n' ORDER BY n), '(none)')
    FROM argo_query(format(q, coll)) WITH ORDINALITY AS t(x, n)
$$;
CREATE FUNCTION on_both(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r3 text := run('l3', q);
  r1 text := run('l1', q);
BEGIN
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\nargo3:\n%\nargo1:\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;

-- ORDER BY: numbers < strings < booleans < (missing, null, object, array);
-- DESC reverses it, ties go by object id; LIMIT/OFFSET after ordering
SELECT on_both('SELECT id, mix FROM %s ORDER BY mix');
SELECT on_both('SELECT id, mix FROM %s ORDER BY mix DESC');
SELECT on_both('SELECT id FROM %s ORDER BY g, v DESC');
SELECT on_both('SELECT id, s FROM %s ORDER BY s ASC LIMIT 3');
SELECT on_both('SELECT id FROM %s ORDER BY v DESC LIMIT 2 OFFSET 1');
SELECT on_both('SELECT id FROM %s WHERE v > 15 ORDER BY s DESC, id');
SELECT on_both('SELECT * FROM %s LIMIT 2');
SELECT on_both('SELECT id FROM %s LIMIT 3 OFFSET 5');
SELECT on_both('SELECT id FROM %s LIMIT 0');
SELECT on_both('SELECT s FROM %s ORDER BY id DESC LIMIT 3');
SELECT x FROM argo_query('SELECT id FROM l1 WHERE v > 10 LIMIT $1 OFFSET $2', '2', '1') x;

-- aggregates, with and without GROUP BY; 1 and "1" are different groups,
-- objects without a scalar group value form one group without the key
SELECT on_both('SELECT COUNT(*) FROM %s');
SELECT on_both('SELECT COUNT(*), COUNT(s) AS with_s, COUNT(mix) AS with_mix, SUM(v), AVG(v), MIN(v), MAX(v) FROM %s');
SELECT on_both('SELECT g, COUNT(*) AS n, SUM(v) AS total FROM %s GROUP BY g ORDER BY g');
SELECT on_both('SELECT COUNT(*) FROM %s GROUP BY g ORDER BY g DESC');
SELECT on_both('SELECT MIN(mix) AS lo, MAX(mix) AS hi FROM %s');
SELECT on_both('SELECT MIN(s) AS lo, MAX(s) AS hi, MIN(nothing) AS none FROM %s WHERE v >= 20');
SELECT on_both('SELECT COUNT(*) FROM %s WHERE v BETWEEN 15 AND 45 GROUP BY g ORDER BY g');
SELECT on_both('SELECT SUM(v) FROM %s WHERE v > 1000');
SELECT on_both('SELECT g FROM %s GROUP BY g ORDER BY g LIMIT 2');
-- without WHERE, aggregates are read off the value rows alone; they must
-- equal the general plan's (a WHERE true of every object forces it)
SELECT q, run('l3', q) = run('l3', replace(q, ' FROM %s', ' FROM %s WHERE EXISTS id OR NOT EXISTS id')) AS argo3_same,
          run('l1', q) = run('l1', replace(q, ' FROM %s', ' FROM %s WHERE EXISTS id OR NOT EXISTS id')) AS argo1_same
  FROM (VALUES ('SELECT COUNT(*), COUNT(s) AS cs, COUNT(mix) AS cm, COUNT(tags) AS ct, SUM(v), AVG(mix), MIN(v), MAX(v) FROM %s'),
               ('SELECT MIN(mix), MAX(mix), MIN(s) AS mins, MAX(s) AS maxs, MIN(g) AS ming, MAX(nothing) AS maxn, SUM(nothing) FROM %s'),
               ('SELECT mix, COUNT(*) FROM %s GROUP BY mix ORDER BY mix'),
               ('SELECT g, COUNT(*) AS a, COUNT(*) AS b FROM %s GROUP BY g ORDER BY g DESC'),
               ('SELECT s FROM %s GROUP BY s ORDER BY s LIMIT 3 OFFSET 1'),
               ('SELECT COUNT(*) FROM %s GROUP BY nothing')) t(q);

-- joins: same-typed equality, results ordered by left then right id
SELECT on_both('SELECT a.id, b.id FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id)');
SELECT on_both('SELECT * FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) WHERE a.id = 1');
SELECT on_both('SELECT a.id, b.id FROM %1$s AS a INNER JOIN %1$s AS b ON (a.s = b.s) WHERE a.id <= 2');
SELECT on_both('SELECT a.id, b.tags FROM %1$s AS a INNER JOIN %1$s AS b ON a.ref = b.id WHERE a.v > 15 OR b.s = ''b''');
SELECT on_both('SELECT a.id, b.id FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) WHERE NOT (b.v > 15)');
SELECT on_both('SELECT a.id, b.id, c.id FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) INNER JOIN %1$s AS c ON (b.ref = c.id)');
SELECT on_both('SELECT a.id, b.id FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) ORDER BY b.v DESC LIMIT 2');
SELECT on_both('SELECT a.nothing FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) WHERE a.id <= 2');
-- aggregates over joins: over the join's tuples, as SQL's are; the group
-- path of one side comes out under its alias
SELECT on_both('SELECT COUNT(*) FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id)');
SELECT on_both('SELECT b.g, COUNT(*) AS n, SUM(a.v) AS sa, MIN(b.s), MAX(a.mix) FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) GROUP BY b.g ORDER BY b.g');
SELECT on_both('SELECT COUNT(b.tags) AS tagged, AVG(b.v) FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) WHERE a.v > 15');
SELECT on_both('SELECT a.g FROM %1$s AS a INNER JOIN %1$s AS b ON (a.s = b.s) GROUP BY a.g ORDER BY a.g DESC LIMIT 2');
SELECT on_both('SELECT COUNT(*), MAX(c.v) FROM %1$s AS a INNER JOIN %1$s AS b ON (a.ref = b.id) INNER JOIN %1$s AS c ON (b.ref = c.id)');
SELECT (SELECT count(*) FROM argo_query('SELECT a.id FROM l3 AS a INNER JOIN l1 AS b ON (a.s = b.s)')) =
       (SELECT (x->>'count')::int FROM argo_query('SELECT COUNT(*) FROM l3 AS a INNER JOIN l1 AS b ON (a.s = b.s)') x)
       AS count_is_the_joins_rows;
-- a join of 12,000 tuples reads its projected parts set-wise (the tuples'
-- ids joined with the parts' rows in one query); the same tuples in the
-- same order as probing them, which a LIMIT under 10,000 tuples does
SELECT argo_load('bigj', 'SELECT jsonb_build_object(''k'', i % 3000, ''v'', i, ''s'', ''x'' || i) || CASE WHEN i % 7 = 0 THEN ''{}''::jsonb ELSE jsonb_build_object(''t'', i % 3 = 0) END FROM generate_series(1, 6000) i');
SELECT q, (SELECT count(*) FROM argo_query(q)) AS tuples,
       (SELECT array_agg(x) FROM (SELECT x FROM argo_query(q) x LIMIT 9000) f) =
       (SELECT array_agg(x) FROM argo_query(q || ' LIMIT 9000') x) AS same_as_probed
  FROM (VALUES ('SELECT a.v, b.s, b.t FROM bigj AS a INNER JOIN bigj AS b ON (a.k = b.k)'),
               ('SELECT a.nothing, b.t FROM bigj AS a INNER JOIN bigj AS b ON (a.t = b.t) WHERE a.v <= 20')) t(q);
SELECT argo_drop_collection('bigj');
-- the mixed-format join: Argo/3 on the left, Argo/1 on the right
SELECT x FROM argo_query('SELECT a.id, b.s FROM l3 AS a INNER JOIN l1 AS b ON (a.ref = b.id) WHERE a.id <= 3') x;
-- a single collection may be aliased
SELECT on_both('SELECT t.id FROM %s AS t WHERE t.v = 10');

-- the paper's Figure 4 join
SELECT * FROM argo_query($$INSERT INTO fig OBJECT
  {"name": "George Bluth", "rival": "Stan Sitwell", "kids": ["Gob"]},
  {"name": "Stan Sitwell", "kids": ["Sally"]}$$);
SELECT * FROM argo_query('SELECT left.name, right.kids FROM fig AS left INNER JOIN fig AS right ON (left.rival = right.name)');

-- UPDATE: SET creates what is missing, UNSET removes; atomic per object
SELECT * FROM argo_query($$UPDATE l3 SET s = "z", extra.deep[0] = {"k": true} WHERE id = 1$$);
SELECT * FROM argo_query($$UPDATE l1 SET s = "z", extra.deep[0] = {"k": true} WHERE id = 1$$);
SELECT * FROM argo_query('UPDATE l3 UNSET tags, mix WHERE EXISTS tags');
SELECT * FROM argo_query('UPDATE l1 UNSET tags, mix WHERE EXISTS tags');
SELECT * FROM argo_query('UPDATE l3 SET v = $1 WHERE v = $2', '[1, 2]', '"50"');
SELECT * FROM argo_query('UPDATE l1 SET v = $1 WHERE v = $2', '[1, 2]', '"50"');
SELECT * FROM argo_query('UPDATE l3 SET w = ''quoted'', n = -0.25, t = false, z = null WHERE id = 7');
SELECT * FROM argo_query('UPDATE l1 SET w = ''quoted'', n = -0.25, t = false, z = null WHERE id = 7');
SELECT on_both('SELECT * FROM %s');
SELECT * FROM argo_query('UPDATE l3 SET untouched = 1 WHERE id = 999');
-- UNSET of a path that reaches nothing removes nothing: a key of an
-- array, a key of a number, a position of an object
SELECT * FROM argo_query($$INSERT INTO unset3 OBJECT {"a": [{"b": {"c": 1}}], "k": 5, "o": {"x": 1}}$$);
SELECT * FROM argo_query('UPDATE unset3 UNSET a.b.c, k.b, o[0], o.x.y, missing.z');
SELECT x FROM argo_query('SELECT * FROM unset3') x;
SELECT * FROM argo_query('UPDATE unset3 UNSET a[0].b.c, o.x');
SELECT x FROM argo_query('SELECT * FROM unset3') x;
SELECT argo_drop_collection('unset3');
-- a failing UPDATE changes nothing
SELECT * FROM argo_query('UPDATE l3 SET s.x = 1 WHERE id <= 2');
SELECT * FROM argo_query('UPDATE l3 SET big = 1e400');
SELECT * FROM argo_query('UPDATE l3 SET a = {"unclosed": 1');
SELECT on_both('SELECT id, s FROM %s WHERE id <= 2');

-- errors
SELECT * FROM argo_query('SELECT * FROM l3 AS a INNER JOIN l3 AS b ON (a.ref = c.id)');
SELECT * FROM argo_query('SELECT * FROM l3 INNER JOIN l3 ON (l3.ref = l3.id)');
SELECT * FROM argo_query('SELECT id FROM l3 AS a INNER JOIN l3 AS b ON (a.ref = b.id)');
SELECT * FROM argo_query('SELECT * FROM l3 AS a INNER JOIN l3 AS b ON (b.ref = b.id)');
SELECT * FROM argo_query('SELECT * FROM l3 AS a INNER JOIN nope AS b ON (a.ref = b.id)');
SELECT * FROM argo_query('SELECT id, COUNT(*) FROM l3');
SELECT * FROM argo_query('SELECT id, COUNT(*) FROM l3 GROUP BY g');
SELECT * FROM argo_query('SELECT COUNT(*) FROM l3 GROUP BY g ORDER BY v');
SELECT * FROM argo_query('SELECT a.g, COUNT(*) FROM l3 AS a INNER JOIN l3 AS b ON (a.ref = b.id) GROUP BY b.g');
SELECT * FROM argo_query('SELECT * FROM l3 ORDER BY');
SELECT * FROM argo_query('SELECT * FROM l3 LIMIT $1', '"ten"');
SELECT * FROM argo_query('SELECT * FROM l3 WHERE v = $3', '1');
SELECT * FROM argo_query('UPDATE l3 SET');
SELECT * FROM argo_query('UPDATE l3 WHERE id = 1');

-- argo_explain: the generated SQL, its parameters, PostgreSQL's plan
SELECT count(*) > 3 AS has_plan,
       bool_or(line LIKE 'WITH m AS MATERIALIZED%') AS shows_sql,
       bool_or(line ~ '^-- \$[0-9]+ = 20$') AS shows_params
  FROM argo_explain('SELECT * FROM l3 WHERE v >= 20 OR v = 1 ORDER BY s LIMIT 5') line;
-- an equality is answered from C; explain says so: whole objects are
-- put in order in C, a projection's by the sort SQL it shows
SELECT bool_or(line LIKE '-- strategy: index lookup from C') AS says_lookup,
       bool_or(line LIKE '-- 1 object(s) found from C through the (keyid, value) index, for ''v'', %; each read once for its ORDER BY values and put in order in C, then read again in that order; no SQL runs') AS says_how
  FROM argo_explain('SELECT * FROM l3 WHERE v = 20 ORDER BY s LIMIT 5') line;
SELECT bool_or(line LIKE '-- 1 object(s) found from C through the (keyid, value) index, for ''v'', %; SQL only orders them:') AS says_how
  FROM argo_explain('SELECT s FROM l3 WHERE v = 20 ORDER BY s LIMIT 5') line;
SELECT bool_or(line LIKE '-- 1 object(s) found from C %; OFFSET and LIMIT applied to them in id order; no SQL runs') AS says_how
  FROM argo_explain('SELECT * FROM l3 WHERE v = 20 LIMIT 5') line;
-- the few objects of a lookup ordered in C come in the order SQL gives
-- the same objects found by a range: mixed types, missing values, ties
-- (by id), DESC, array positions, ID(), OFFSET and LIMIT
SELECT argo_create_collection('lo');
SELECT count(*) FROM argo_query('INSERT INTO lo OBJECTS $1', (SELECT jsonb_agg(jsonb_build_object(
  'g', i % 3,
  'n', CASE WHEN i % 7 = 0 THEN to_jsonb('s' || (i % 5)) WHEN i % 11 = 0 THEN to_jsonb(i % 2 = 0)
            WHEN i % 13 = 0 THEN 'null'::jsonb WHEN i % 17 = 0 THEN '{"x": 1}'::jsonb
            ELSE to_jsonb((i * 37) % 10 - 4.5) END,
  'a', jsonb_build_array(i % 4, i))) FROM generate_series(1, 200) i));
WITH q(o) AS (VALUES ('n'), ('n DESC'), ('n, a[0] DESC'), ('a[0] DESC, n'), ('ID() DESC'),
                     ('a[1]'), ('missing DESC, n')),
     lim(l) AS (VALUES (''), (' LIMIT 5'), (' LIMIT 7 OFFSET 3'), (' OFFSET 60'), (' LIMIT 0'))
SELECT count(*) AS statements,
       count(*) FILTER (WHERE
         (SELECT coalesce(jsonb_agg(x), '[]') FROM argo_query('SELECT * FROM lo WHERE g = 1 ORDER BY ' || o || l) x) =
         (SELECT coalesce(jsonb_agg(x), '[]') FROM argo_query('SELECT * FROM lo WHERE g >= 1 AND g <= 1 ORDER BY ' || o || l) x)) AS same
  FROM q, lim;
SELECT (SELECT jsonb_agg(x) FROM argo_query('SELECT * FROM lo WHERE g = 2 LIMIT 4 OFFSET 2') x) =
       (SELECT jsonb_agg(x) FROM argo_query('SELECT * FROM lo WHERE g >= 2 AND g <= 2 LIMIT 4 OFFSET 2') x) AS limit_alone_same,
       (SELECT count(*) FROM argo_query('SELECT * FROM lo WHERE g = 2 LIMIT 4 OFFSET 2')) AS objects;
SELECT argo_drop_collection('lo');
-- the SQL over several lines, clause by clause; the caller's parameters
-- under their own numbers, and what each of the SQL's parameters is
SELECT line FROM argo_explain('SELECT s FROM l3 WHERE s = $1 AND v > $2', '"quoted"', '5') line
 WHERE line LIKE '-- %' OR line ~ '^ *(SELECT|FROM|WHERE)' ORDER BY line COLLATE "C";
SELECT count(*) > 0 FROM argo_explain('SELECT COUNT(*) FROM l1 GROUP BY g');
SELECT count(*) > 0 FROM argo_explain('SELECT * FROM l3 AS a INNER JOIN l1 AS b ON (a.ref = b.id)');
SELECT count(*) > 0 FROM argo_explain('DELETE FROM l3 WHERE v = 1');
SELECT bool_or(line LIKE '-- each locked from C in id order%') AS says_how,
       bool_or(line LIKE '%Scan%') AS has_plan
  FROM argo_explain('UPDATE l3 SET v = 2 WHERE v > 0') line;
SELECT count(*) = 0 AS unchanged FROM argo_query('SELECT * FROM l3 WHERE v = 2');
SELECT * FROM argo_explain('INSERT INTO l3 OBJECT {}');
