-- A join of two collections whose WHERE is one predicate of the left part
-- finds its pairs from C (exec/lookupjoin.c): the left objects through
-- the predicate's index, each one's value at the ON path looked up in the
-- right collection's (keyid, value) index.  It must give what the join's
-- SQL gives (the same WHERE beside EXISTS, which runs it), in the same
-- order: values of each type, long strings, numbers a double cannot tell
-- apart, paths through arrays, values that pair with nothing, a path
-- that meets a scalar before its end (o.p where o is "a").
SET client_min_messages = warning;
SELECT argo_create_collection('lj3', 'argo3'), argo_create_collection('rj3', 'argo3'),
       argo_create_collection('rj1', 'argo1');
SELECT count(*) FROM argo_query('INSERT INTO lj3 OBJECTS $1', $$[
  {"n": 1, "k": 1, "a": [0, "a"], "o": {"p": true}},
  {"n": 2, "k": "1", "a": [0, 1]},
  {"n": 3, "k": "a", "o": {"p": "a"}},
  {"n": 4, "k": "PPPx"},
  {"n": 5, "k": true},
  {"n": 6, "k": null},
  {"n": 7, "k": {"x": 1}},
  {"n": 8, "k": [1]},
  {"n": 9},
  {"n": 10, "k": 123456789012345678901},
  {"n": 11, "k": 1.0},
  {"n": 12, "o": "a", "p": "a"},
  {"n": 30, "k": 1}]$$::jsonb) x;
SELECT count(*) FROM (VALUES ('rj3'), ('rj1')) c(c),
  LATERAL argo_query(format('INSERT INTO %s OBJECTS $1', c), $$[
  {"m": 1, "v": 1},
  {"m": 2, "v": "1"},
  {"m": 3, "v": "a"},
  {"m": 4, "v": "PPPx"},
  {"m": 5, "v": "PPPy"},
  {"m": 6, "v": true},
  {"m": 7, "v": false},
  {"m": 8, "v": null},
  {"m": 9, "v": {"x": 1}},
  {"m": 10, "v": [1]},
  {"m": 11, "v": 123456789012345678902},
  {"m": 12, "v": 1},
  {"m": 13, "v": "a"}]$$::jsonb) x;
CREATE FUNCTION pg_temp.lj(q text) RETURNS jsonb[] LANGUAGE sql AS $$
  SELECT array_agg(x ORDER BY i)
    FROM argo_query(replace(q, 'PPP', repeat('p', 300))) WITH ORDINALITY r(x, i)
$$;
-- (PPP stands for 300 p's)
SELECT r, on_, w,
       (SELECT count(*) FROM argo_explain(replace(format('SELECT * FROM lj3 AS l JOIN %s AS r ON %s WHERE %s', r, on_, w), 'PPP', repeat('p', 300))) e
         WHERE e LIKE '%pairs found from C%') > 0 AS from_c,
       coalesce(array_length(pg_temp.lj(format('SELECT * FROM lj3 AS l JOIN %s AS r ON %s WHERE %s', r, on_, w)), 1), 0) AS pairs,
       pg_temp.lj(format('SELECT * FROM lj3 AS l JOIN %s AS r ON %s WHERE %s', r, on_, w)) IS NOT DISTINCT FROM
       pg_temp.lj(format('SELECT * FROM lj3 AS l JOIN %s AS r ON %s WHERE %s AND EXISTS l.n', r, on_, w)) AS same
FROM (VALUES ('rj3'), ('rj1')) rs(r),
     (VALUES ('l.k = r.v'), ('l.a[1] = r.v'), ('l.o.p = r.v'), ('(l.k = r.v)')) ons(on_),
     (VALUES ('l.n BETWEEN 1 AND 20'), ('l.n >= 1'), ('l.n = 30'), ('l.n IN (3, 4, 10)'), ('l.k = ''PPPx'''),
             ('l.n > 100')) ws(w)
ORDER BY 1, 2, 3;
-- the pairs in full, once
SELECT x FROM argo_query('SELECT * FROM lj3 AS l JOIN rj3 AS r ON l.k = r.v WHERE l.n BETWEEN 1 AND 20') x;
-- not found from C: a filter on the right part, an ORDER BY, a LEFT JOIN
SELECT q, (SELECT count(*) FROM argo_explain(q) e WHERE e LIKE '%pairs found from C%') AS from_c
FROM (VALUES ('SELECT * FROM lj3 AS l JOIN rj3 AS r ON l.k = r.v WHERE r.m > 1'),
             ('SELECT * FROM lj3 AS l JOIN rj3 AS r ON l.k = r.v WHERE l.n > 1 ORDER BY r.m'),
             ('SELECT * FROM lj3 AS l LEFT JOIN rj3 AS r ON l.k = r.v WHERE l.n > 1')) qs(q);
-- a projection's pairs from C too (the left objects read whole to pair
-- them, the parts as projected): the same tuples as the join's SQL gives
-- (an AND in WHERE sends it there), parts lacking the paths included
SELECT r, t, w,
       (SELECT count(*) FROM argo_explain(format('SELECT %s FROM lj3 AS l JOIN %s AS r ON l.k = r.v WHERE %s', t, r, w)) e
         WHERE e LIKE '%pairs found from C%') > 0 AS from_c,
       pg_temp.lj(format('SELECT %s FROM lj3 AS l JOIN %s AS r ON l.k = r.v WHERE %s', t, r, w)) IS NOT DISTINCT FROM
       pg_temp.lj(format('SELECT %s FROM lj3 AS l JOIN %s AS r ON l.k = r.v WHERE %s AND EXISTS l.n', t, r, w)) AS same
FROM (VALUES ('rj3'), ('rj1')) rs(r),
     (VALUES ('l.n, r.m'), ('r.m'), ('l.o, r.v'), ('l.nosuch, r.nosuch')) ts(t),
     (VALUES ('l.n BETWEEN 1 AND 20'), ('l.n IN (3, 4, 10)')) ws(w)
ORDER BY 1, 2, 3;
-- more pairs than work_mem holds: the SQL finds them, the same
SELECT count(*) FROM argo_query('INSERT INTO lj3 OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('n', 1000 + i, 'k', 'many')) FROM generate_series(1, 40) i)) x;
SELECT count(*) FROM argo_query('INSERT INTO rj3 OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('m', 1000 + i, 'v', 'many')) FROM generate_series(1, 40) i)) x;
SET work_mem = 64;
SELECT coalesce(array_length(pg_temp.lj('SELECT * FROM lj3 AS l JOIN rj3 AS r ON l.k = r.v WHERE l.n > 1000'), 1), 0) AS pairs,
       pg_temp.lj('SELECT * FROM lj3 AS l JOIN rj3 AS r ON l.k = r.v WHERE l.n > 1000') =
       pg_temp.lj('SELECT * FROM lj3 AS l JOIN rj3 AS r ON l.k = r.v WHERE l.n > 1000 AND EXISTS l.n') AS same;
RESET work_mem;
SELECT argo_drop_collection('lj3'), argo_drop_collection('rj3'), argo_drop_collection('rj1');
