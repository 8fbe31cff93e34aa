-- The predicate language (reference.md §7) with its three-valued
-- semantics.  Every predicate runs on an Argo/3 and an Argo/1 copy of the
-- same objects; the test shows the ids selected and fails loudly if the
-- two formats disagree.
SELECT argo_create_collection('p1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"id": 1, "age": 58, "name": "George", "tags": ["a", "b"], "flag": true, "n": {"x": 1}}'),
  ('{"id": 2, "age": "old", "name": "Stan", "tags": ["c"], "flag": false, "n": {"x": "1"}}'),
  ('{"id": 3, "age": 38, "name": "Michael", "tags": [], "flag": null, "n": {}}'),
  ('{"id": 4, "age": null, "tags": ["a", 1], "n": [1, 2]}'),
  ('{"id": 5, "name": "Lindsay", "tags": "a", "age": [50], "n": {"x": [3]}}'),
  ('{"id": 6, "age": 50, "name": "Gob%_\\", "tags": [["a"]], "flag": true}'),
  ('{"id": 7, "age": 50.5, "name": "", "tags": [1, 2, 3]}'),
  ('{"id": 8}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO p3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO p1 OBJECT $1', doc::jsonb)) i;

CREATE FUNCTION ids(coll text, pred text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x->>'id', ',' ORDER BY (x->>'id')::int), '-')
    FROM argo_query(format('SELECT id FROM %s WHERE %s', coll, pred)) x
$$;
CREATE FUNCTION sel(pred text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a3 text := ids('p3', pred);
  a1 text := ids('p1', pred);
BEGIN
  IF a3 IS DISTINCT FROM a1 THEN
    RAISE EXCEPTION 'formats disagree on %: argo3 %, argo1 %', pred, a3, a1;
  END IF;
  RETURN a3;
END $$;

SELECT pred, sel(pred) FROM (VALUES
  -- comparisons: TRUE/FALSE only where the value has the literal's type
  ('age = 58'), ('age != 58'), ('age <> 58'), ('age < 50'), ('age <= 50'),
  ('age > 50'), ('age >= 50'), ('58 = age'), ('50 < age'), ('50 >= age'),
  ('age = "old"'), ('age = ''old'''), ('age > ''a'''),
  ('name < ''H'''), ('name >= ''Lindsay'''), ('name = '''''),
  ('flag = true'), ('flag = false'), ('flag != true'), ('flag < true'),
  ('n.x = 1'), ('n.x = ''1'''), ('n.x[0] = 3'), ('n[1] = 2'),
  ('tags[0] = ''a'''), ('tags[1] = 1'), ('tags[0][0] = ''a'''),
  -- NOT: UNKNOWN stays UNKNOWN
  ('NOT age > 50'), ('NOT (age = 58)'), ('NOT NOT age = 58'),
  ('NOT (age > 50 AND name = ''George'')'),
  ('NOT (age > 50 OR name = ''Stan'')'),
  -- AND / OR
  ('age >= 50 AND flag = true'), ('age >= 50 OR flag = false'),
  ('age = 58 OR age = ''old'' OR age = 38'),
  ('(age = 58 OR name = ''Stan'') AND flag = false'),
  ('age = 58 OR name = ''Stan'' AND flag = false'),
  -- LIKE (SQL patterns, strings only)
  ('name LIKE ''G%'''), ('name NOT LIKE ''G%'''), ('name LIKE ''_tan'''),
  ('name LIKE ''Gob\%\_\\'''), ('name LIKE ''%'''), ('age LIKE ''o%'''),
  ('NOT name LIKE ''%a%'''),
  -- BETWEEN, inclusive, bounds of one type
  ('age BETWEEN 38 AND 50'), ('age NOT BETWEEN 38 AND 50'),
  ('name BETWEEN ''G'' AND ''M'''), ('NOT age BETWEEN 50 AND 60'),
  ('flag BETWEEN false AND true'),
  -- IN
  ('age IN (58, 38)'), ('age IN (58, ''old'')'), ('age NOT IN (58, 38)'),
  ('age NOT IN (58, ''old'')'), ('name IN (''Stan'')'),
  ('age IN (58, 38, true, ''old'')'), ('flag IN (true, false)'),
  ('name NOT IN (''Stan'', ''George'', 50)'), ('NOT age IN (58, 50)'),
  ('age IN (50.5) OR age IN (38) OR age = 58'),
  ('age != 58 AND age != 38 AND age <> 50'), ('age NOT IN (58) AND age != 38'),
  ('NOT (age = 58 OR age = 38)'), ('age = 58 OR age = ''old'' OR name = ''Stan'''),
  ('age = 58 OR name = ''Stan'' OR age = 38 OR name = ''George'''),
  -- ANY: direct elements of an array
  ('''a'' = ANY tags'), ('1 = ANY tags'), ('2 < ANY tags'),
  ('NOT ''a'' = ANY tags'), ('NOT 1 = ANY tags'), ('''a'' != ANY tags'),
  ('50 = ANY age'), ('1 = ANY n'), ('3 = ANY n.x'),
  -- EXISTS, IS [NOT] NULL: two-valued
  ('EXISTS age'), ('NOT EXISTS age'), ('EXISTS n.x'), ('EXISTS tags[0]'),
  ('EXISTS flag'), ('NOT EXISTS name'),
  ('age IS NULL'), ('flag IS NULL'), ('age IS NOT NULL'),
  ('NOT age IS NULL'), ('NOT age IS NOT NULL'), ('n IS NOT NULL'),
  ('missing IS NULL'), ('missing IS NOT NULL'),
  -- mixed
  ('EXISTS tags AND NOT ''a'' = ANY tags'),
  ('(age > 40 OR age < 40) AND NOT (flag = false)')
) t(pred);

-- long chains: the same answers whatever their length (a chain of more
-- than 16 terms intersects by counting, not by INTERSECT)
SELECT n, op, sel(chain) FROM (VALUES (3), (16), (17), (40)) t(n),
  LATERAL (VALUES
    ('AND', (SELECT string_agg(format('id <= %s', 10 + i), ' AND ') FROM generate_series(1, n) i)),
    ('AND NOT', (SELECT string_agg(format('NOT id > %s', 5 + i), ' AND ') FROM generate_series(1, n) i)),
    ('AND mixed', (SELECT string_agg(CASE i % 3 WHEN 0 THEN 'EXISTS tags' WHEN 1 THEN format('id >= %s', i % 4) ELSE '''a'' = ANY tags' END, ' AND ') FROM generate_series(1, n) i)),
    ('OR', (SELECT string_agg(format('id > %s', 4 + i), ' OR ') FROM generate_series(1, n) i)),
    ('NOT OR', 'NOT (' || (SELECT string_agg(format('age > %s', 40 + i), ' OR ') FROM generate_series(1, n) i) || ')'),
    ('OR =', (SELECT string_agg(format('id = %s', i * 2), ' OR ') FROM generate_series(1, n) i)),
    ('AND !=', (SELECT string_agg(format('id != %s', i * 2), ' AND ') FROM generate_series(1, n) i))
  ) c(op, chain)
ORDER BY op, n;

-- IN lists of any length: one array per value type
SELECT x FROM argo_query('SELECT id FROM p3 WHERE id IN (' ||
  (SELECT string_agg(i::text, ', ') FROM generate_series(-100000, 2) i) || ')') x;
SELECT x FROM argo_query('SELECT id FROM p1 WHERE name IN (' ||
  (SELECT string_agg(format('''n%s''', i), ', ') FROM generate_series(1, 20000) i) || ', ''Stan'')') x;
SELECT count(*) FROM argo_query('SELECT id FROM p3 WHERE id NOT IN (' ||
  (SELECT string_agg(i::text, ', ') FROM generate_series(3, 50000) i) || ')') x;
SELECT x FROM argo_query('SELECT id FROM p3 WHERE age IN ($1, $2, $3)', '38', '"old"', 'true') x;

-- parameters stand for literals
SELECT x FROM argo_query('SELECT id FROM p3 WHERE age = $1 OR name = $2',
                         '38', '"Stan"') x;
SELECT x FROM argo_query('SELECT id FROM p1 WHERE age BETWEEN $1 AND $2 AND $3 = ANY tags',
                         '50', '60', '"a"') x;
SELECT x FROM argo_query('SELECT id FROM p3 WHERE flag = $1', 'true') x;

-- backquoted keys and keywords as keys
SELECT * FROM argo_query($$INSERT INTO p3 OBJECT {"id": 9, "a.b": {"c d": 1}, "select": "kw", "x": {"count": 5}, "`": "bq", "": 0}$$);
SELECT x FROM argo_query('SELECT id FROM p3 WHERE `a.b`.`c d` = 1') x;
SELECT x FROM argo_query('SELECT `select`, x.count FROM p3 WHERE `select` = ''kw'' AND x.count = 5') x;
SELECT x FROM argo_query('SELECT id, ```` FROM p3 WHERE ```` = ''bq''') x;
SELECT x FROM argo_query('SELECT `` FROM p3 WHERE `` = 0') x;

-- case-insensitive keywords, comments, a trailing semicolon
SELECT x FROM argo_query('select id from p3 where age = 58 -- a comment
  ;') x;
-- but keys are case sensitive
SELECT x FROM argo_query('SELECT id FROM p3 WHERE AGE = 58') x;

-- IN lists: alone in WHERE and of at most 1,000 values, looked up value
-- by value from C; in SQL, a few values (at most a tenth of the
-- collection's objects) are probed one by one, more are joined whole; the
-- same objects every way
SELECT count(*) FROM generate_series(0, 299) i,
  LATERAL argo_query('INSERT INTO inl OBJECT $1',
    jsonb_build_object('n', i, 's', 'v' || i, 'l', repeat('x', 300) || i)) x;
-- (the objects are counted from the directory's pages at ANALYZE's density:
-- a directory keeping 300-byte documents holds few per page)
ANALYZE argo_data.inl_obj;
SELECT k, n,
       (SELECT count(*) FROM argo_explain(format('SELECT n FROM inl WHERE %s IN $1', k), v) e
         WHERE e LIKE '%strategy: index lookup from C%') > 0 AS from_c,
       (SELECT count(*) FROM argo_explain(format('SELECT n FROM inl WHERE %s IN $1 AND EXISTS n', k), v) e
         WHERE e LIKE '%CROSS JOIN LATERAL%') > 0 AS probed,
       (SELECT array_agg((x->>'n')::int ORDER BY (x->>'n')::int)
          FROM argo_query(format('SELECT n FROM inl WHERE %s IN $1', k), v) x) =
       (SELECT array_agg(i * 3 ORDER BY i) FROM generate_series(0, n - 1) g(i) WHERE i * 3 < 300) AND
       (SELECT array_agg((x->>'n')::int ORDER BY (x->>'n')::int)
          FROM argo_query(format('SELECT n FROM inl WHERE %s IN $1 AND EXISTS n', k), v) x) =
       (SELECT array_agg(i * 3 ORDER BY i) FROM generate_series(0, n - 1) g(i) WHERE i * 3 < 300) AS right_objects
FROM (VALUES (5), (200)) ns(n), (VALUES ('n'), ('s'), ('l')) ks(k),
     LATERAL (SELECT jsonb_agg(CASE k WHEN 'n' THEN to_jsonb(i * 3)
                                      WHEN 's' THEN to_jsonb('v' || i * 3)
                                      ELSE to_jsonb(repeat('x', 300) || i * 3) END) AS v
              FROM generate_series(0, n - 1) i) vs
ORDER BY k, n;
-- from C and by SQL alike: a value named twice, values of other types
-- than the path's, an unknown key
SELECT w, (SELECT jsonb_agg(x ORDER BY (x->>'n')::int) FROM argo_query(format('SELECT n FROM inl WHERE %s', w)) x) AS from_c,
       (SELECT jsonb_agg(x ORDER BY (x->>'n')::int) FROM argo_query(format('SELECT n FROM inl WHERE %s AND EXISTS n', w)) x) IS NOT DISTINCT FROM
       (SELECT jsonb_agg(x ORDER BY (x->>'n')::int) FROM argo_query(format('SELECT n FROM inl WHERE %s', w)) x) AS same
FROM (VALUES ('n IN (3, 3, ''v6'', 9, true)'), ('s IN (''v6'', 6, ''v6'', ''v7'')'),
             ('nokey IN (1, 2)')) ws(w);
SELECT argo_drop_collection('inl');

-- Ranges (<, <=, >, >=, BETWEEN) and lit op ANY path, alone in WHERE, are
-- read from C off the (keyid, value) index too: strings past the indexed
-- prefix (256 characters) are compared whole, bounds met exactly, values
-- of other types, [*] paths, unknown keys.  The same objects as SQL finds
-- (the predicate beside EXISTS), on both formats.
SELECT argo_create_collection('rg3', 'argo3'), argo_create_collection('rg1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"n": 1, "v": -2.5, "s": "a", "a": [1, "b", 3], "o": [{"x": 1}, {"x": "z"}]}'),
  ('{"n": 2, "v": 0, "s": "ab", "a": [2, 2], "o": [{"x": 5}]}'),
  ('{"n": 3, "v": 7, "s": "b", "a": ["a", "c"], "o": []}'),
  ('{"n": 4, "v": "7", "s": 4, "a": [], "o": {"x": 9}}'),
  ('{"n": 5, "v": 10, "s": "é", "a": [true, 10]}'),
  ('{"n": 6, "v": 1e300, "s": "' || repeat('p', 256) || 'a"}'),
  ('{"n": 7, "v": 7.000001, "s": "' || repeat('p', 256) || 'b"}'),
  ('{"n": 8, "s": "' || repeat('p', 256) || '"}'),
  ('{"n": 9, "v": null, "s": "' || repeat('p', 255) || '"}'),
  ('{"n": 10, "v": [7], "s": ""}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO rg3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO rg1 OBJECT $1', doc::jsonb)) i;
CREATE FUNCTION pg_temp.range_ns(coll text, w text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x->>'n', ',' ORDER BY (x->>'n')::int), '-')
    FROM argo_query(format('SELECT n FROM %s WHERE %s', coll,
                           replace(replace(w, 'P256', repeat('p', 256)), 'P255', repeat('p', 255)))) x
$$;
CREATE TEMP TABLE range_preds AS SELECT w, row_number() OVER () AS i FROM (VALUES ('v < 7'), ('v <= 7'), ('v > 7'), ('v >= 7'), ('v BETWEEN -2.5 AND 7'),
             ('v BETWEEN 7 AND 0'), ('v > -1e308'), ('v < ''8'''), ('v >= ''7'''),
             ('s < ''b'''), ('s <= ''b'''), ('s > ''ab'''), ('s >= ''ab'''), ('s < ''a'''),
             ('s > ''P256'''), ('s >= ''P256'''), ('s < ''P256b'''), ('s <= ''P256b'''),
             ('s BETWEEN ''P255'' AND ''P256a'''), ('s > ''z'''), ('s < ''é'''), ('s >= '''''),
             ('a[*] > 2'), ('a[*] BETWEEN ''a'' AND ''b'''), ('o[*].x >= 5'), ('o.x < 10'),
             ('2 = ANY a'), ('2 < ANY a'), ('''b'' <= ANY a'), ('true = ANY a'),
             ('3 >= ANY a'), ('5 = ANY o'), ('nokey > 1'), ('1 = ANY nokey')) ws(w);
-- (P256 stands for 256 p's, P255 for 255)
SELECT w, pg_temp.range_ns('rg3', w) AS objects,
       (SELECT count(*) FROM argo_explain(format('SELECT n FROM rg3 WHERE %s',
                                                 replace(replace(w, 'P256', repeat('p', 256)), 'P255', repeat('p', 255)))) e
         WHERE e LIKE '%strategy: index lookup from C%') > 0 AS from_c,
       pg_temp.range_ns('rg3', w) = pg_temp.range_ns('rg3', w || ' AND EXISTS n') AND
       pg_temp.range_ns('rg1', w) = pg_temp.range_ns('rg3', w) AND
       pg_temp.range_ns('rg1', w) = pg_temp.range_ns('rg1', w || ' AND EXISTS n') AS same
FROM range_preds ORDER BY i;
-- Argo/3's numeric index covers (objid, doctid): once VACUUM has marked
-- the pages all visible, numbers are found from the index alone, the same
-- objects
CREATE TEMP TABLE range_objects AS SELECT w, pg_temp.range_ns('rg3', w) AS objects FROM range_preds;
VACUUM argo_data.rg3_num;
SELECT w FROM range_objects WHERE pg_temp.range_ns('rg3', w) <> objects;
SELECT count(*) AS index_only_agrees FROM range_objects WHERE pg_temp.range_ns('rg3', w) = objects;
SELECT argo_drop_collection('rg3'), argo_drop_collection('rg1');

-- Many rows of one value: past the first few, a lookup reads its rows in
-- batches whose heap pages it asks for first (lookup.c); strings past the
-- indexed prefix are still compared whole, numbers on pages not yet all
-- visible read from their rows, rows deleted before or in this
-- transaction not seen.  The same counts as SQL's (beside EXISTS).
SELECT argo_create_collection('many3', 'argo3');
SELECT count(*) FROM argo_query('INSERT INTO many3 OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('i', i, 's', repeat('p', 256) || (i % 2)::text, 'n', i % 3))
     FROM generate_series(1, 300) i));
SELECT count(*) FROM argo_query('DELETE FROM many3 WHERE i > 280');
SELECT w, (SELECT count(*) FROM argo_query('SELECT i FROM many3 WHERE ' || w, to_jsonb(repeat('p', 256) || '1'))) AS from_c,
       (SELECT count(*) FROM argo_query('SELECT i FROM many3 WHERE ' || w || ' AND EXISTS i', to_jsonb(repeat('p', 256) || '1'))) AS by_sql
  FROM (VALUES ('s = $1'), ('s >= $1'), ('s < $1'), ('n = 1'), ('n >= 1')) v(w);
BEGIN;
SELECT count(*) FROM argo_query('DELETE FROM many3 WHERE i <= 100');
SELECT count(*) FROM argo_query('SELECT i FROM many3 WHERE s = $1', to_jsonb(repeat('p', 256) || '0'));
ROLLBACK;
SELECT count(*) FROM argo_query('SELECT i FROM many3 WHERE s = $1', to_jsonb(repeat('p', 256) || '0'));
-- argo.prefetch_pages = 0 asks for no page ahead: the same rows; the
-- caller's effective_io_concurrency is its own again after a statement
-- (Argo's SQL runs with argo.prefetch_pages in its place)
SET argo.prefetch_pages = 0;
SELECT count(*) FROM argo_query('SELECT i FROM many3 WHERE s = $1', to_jsonb(repeat('p', 256) || '0'));
RESET argo.prefetch_pages;
SET effective_io_concurrency = 3;
SELECT count(*) FROM argo_query('SELECT i FROM many3 WHERE s >= $1', to_jsonb(repeat('p', 256) || '0'));
SHOW effective_io_concurrency;
RESET effective_io_concurrency;
SET argo.prefetch_pages = 1001;
SET argo.prefetch_pages = -1;
SHOW argo.prefetch_pages;
SELECT argo_drop_collection('many3');

-- ILIKE and ~* fold every letter (the database's collation, or ICU's
-- root where the database's folds ASCII only), not valstr's "C" (which
-- found only 'ZÜRICH' for ILIKE 'ZÜRICH'): both formats, on documents
-- (filters) and on rows; LIKE and ~ still match case
SELECT argo_create_collection('fold1', 'argo1');
SELECT argo_load(c, $$SELECT jsonb_build_object('city', s, 'tags', jsonb_build_array(s, 'x'))
                        FROM unnest(ARRAY['Zürich', 'ZÜRICH', 'zürich', 'Zurich', 'ÉCOLE', 'école', 'Ωmega', 'ωMEGA', 'Straße']) s$$)
  FROM (VALUES ('fold3'), ('fold1')) v(c);
SELECT c, w,
       (SELECT array_agg(x->>'city' ORDER BY x->>'city' COLLATE "C") FROM argo_query(format('SELECT city FROM %s WHERE %s', c, w)) x) AS argo
  FROM (VALUES ('fold3'), ('fold1')) v(c),
       (VALUES ('city ILIKE ''ZÜRICH'''), ('city ILIKE ''%ü%'''), ('NOT city ILIKE ''zü%'''), ('city ~* ''^ÉC'''),
               ('city ~* ''Ω'''), ('NOT city ~* ''Ω'''), ('tags[*] ILIKE ''zürICH'''), ('EXISTS tags[? @ ILIKE ''ÉCOLE'']'),
               ('city LIKE ''Z%'''), ('city ~ ''ü''')) p(w)
 ORDER BY 1, 2;
SELECT argo_drop_collection('fold3'), argo_drop_collection('fold1');
