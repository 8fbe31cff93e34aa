-- Negative indices (a[-1] is the last element) and bounded arrays
-- (APPEND … KEEP LAST n / KEEP FIRST n, APPEND/ADD/REMOVE EACH): reference.md §5.4,
-- MongoDB's $pop, and $push with $each and $slice.  Every statement runs
-- on both formats and must answer the same.
SELECT argo_create_collection('el3', 'argo3'), argo_create_collection('el1', 'argo1');
CREATE FUNCTION el(q text, VARIADIC params jsonb[] DEFAULT '{}') RETURNS text LANGUAGE plpgsql AS $$
DECLARE r3 text; r1 text;
BEGIN
  SELECT coalesce(string_agg(x::text, E'\n'), '(none)') INTO r3 FROM argo_query(replace(q, '@C', 'el3'), VARIADIC params) x;
  SELECT coalesce(string_agg(x::text, E'\n'), '(none)') INTO r1 FROM argo_query(replace(q, '@C', 'el1'), VARIADIC params) x;
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\n%\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;
SELECT el($$INSERT INTO @C OBJECTS [{"n": 1, "a": [1, 2, 3]}, {"n": 2, "a": [9]}, {"n": 3, "a": []},
  {"n": 4}, {"n": 5, "a": [[1, 5], [2]]}, {"n": 6, "a": "x"}, {"n": 7, "a": [{"v": 1}, {"v": 2}]}]$$);

-- reads: a[-1] is the last element; past the front, nothing (UNKNOWN)
SELECT el($$SELECT n FROM @C WHERE a[-1] = 3$$);
SELECT el($$SELECT n FROM @C WHERE NOT a[-1] = 3$$);
SELECT el($$SELECT n FROM @C WHERE a[-2] = 1 OR a[-1] > 5$$);
SELECT el($$SELECT n FROM @C WHERE EXISTS a[-3]$$);
SELECT el($$SELECT n FROM @C WHERE NOT EXISTS a[-1] AND EXISTS a$$);
SELECT el($$SELECT n FROM @C WHERE 5 = ANY a[-2]$$);
SELECT el($$SELECT n FROM @C WHERE a[-1].v = 2$$);
SELECT el($$SELECT n FROM @C WHERE a[-1] IN (9, 3) ORDER BY n DESC$$);
-- projected: the element, in its array (as a[0]); past the front, the path is absent
SELECT el($$SELECT n, a[-1], a[-2] FROM @C ORDER BY n$$);
SELECT el($$SELECT a[-1].v FROM @C$$);
-- ordered by: one value per object, from its document (3's order; none: as null)
SELECT el($$SELECT n FROM @C ORDER BY a[-1], n$$);
SELECT el($$SELECT n FROM @C ORDER BY a[-1] DESC NULLS LAST, n LIMIT 4 OFFSET 1$$);
SELECT el($$SELECT * FROM @C WHERE n IN (1, 2, 7) ORDER BY a[-1] DESC$$);
SELECT el($$SELECT * FROM @C ORDER BY a[-2].v DESC, ID()$$);
-- the same rebuilt, where the collection keeps no documents
SET argo.keep_documents = off;
SELECT argo_create_collection('el0', 'argo3');
RESET argo.keep_documents;
SELECT count(*) FROM argo_query('SELECT * FROM el3') x, argo_query('INSERT INTO el0 OBJECT $1', x);
SELECT (SELECT string_agg(x::text, ' ') FROM argo_query($$SELECT n FROM el0 ORDER BY a[-1] DESC, n$$) x) =
       (SELECT string_agg(x::text, ' ') FROM argo_query($$SELECT n FROM el3 ORDER BY a[-1] DESC, n$$) x) AS same_order;
SELECT (SELECT string_agg(x::text, ' ') FROM argo_query($$SELECT a[-1], COUNT(*) AS n FROM el0 GROUP BY a[-1] ORDER BY a[-1]$$) x) =
       (SELECT string_agg(x::text, ' ') FROM argo_query($$SELECT a[-1], COUNT(*) AS n FROM el3 GROUP BY a[-1] ORDER BY a[-1]$$) x) AS same_groups;
SELECT argo_drop_collection('el0');
-- grouped by: each object's scalar there (none, or not a scalar: one group without it)
SELECT el($$SELECT a[-1], COUNT(*) AS n FROM @C GROUP BY a[-1] ORDER BY a[-1]$$);
SELECT el($$SELECT a[-1] AS last, MIN(n) AS first FROM @C WHERE EXISTS a GROUP BY last HAVING COUNT(*) >= 1 ORDER BY first$$);
SELECT el($$SELECT a[-2].v AS x, a[-1].v AS y, COUNT(*) AS n FROM @C GROUP BY x, y ORDER BY n$$);
-- aggregated: each object's value there
SELECT el($$SELECT SUM(a[-1]) AS s, COUNT(a[-1]) AS c, MIN(a[-1]) AS lo, MAX(a[-2].v) AS hi, ARRAY_AGG(a[-1]) AS all FROM @C$$);
-- counted apart, compared in HAVING, and beside an unwound array: each unit's object's value
SELECT el($$SELECT COUNT(DISTINCT a[-1]) AS d, COUNT(DISTINCT a[0]) AS f FROM @C HAVING SUM(a[-1]) > 1$$);
SELECT el($$SELECT a[*] AS e, COUNT(DISTINCT a[-1]) AS d, SUM(a[-1]) AS s FROM @C WHERE n < 3 GROUP BY e ORDER BY e$$);

-- writes: UNSET a[-1] pops the last (MongoDB's $pop: 1), UNSET a[0] the first
SELECT el($$UPDATE @C UNSET a[-1] WHERE n < 4 RETURNING *$$);
SELECT el($$UPDATE @C SET a[-1] = {"v": 0}, a[-1].v += 5 WHERE n = 1 RETURNING *$$);
SELECT el($$UPDATE @C SET a[-1].v += 10 WHERE n = 7 RETURNING *$$);
SELECT el($$UPDATE @C UNSET a[0] WHERE n = 5 RETURNING *$$);
-- a SET past the front: 22023, nothing changed; an UNSET there: nothing
SELECT * FROM argo_query('UPDATE el3 SET a[-5] = 0 WHERE n = 1');
SELECT * FROM argo_query('UPDATE el3 SET a[-1] = 0 WHERE n = 3');
SELECT el($$UPDATE @C UNSET a[-9]$$);

-- bounded arrays: append, then keep the last (first) n
SELECT el($$INSERT INTO @C OBJECT {"n": 8, "log": [1, 2, 3]}$$);
SELECT el($$UPDATE @C SET log APPEND 4 KEEP LAST 3 WHERE n = 8 RETURNING *$$);
SELECT el($$UPDATE @C SET log APPEND EACH [5, 6] KEEP LAST 4 WHERE n = 8 RETURNING *$$);
SELECT el($$UPDATE @C SET log APPEND EACH $1 KEEP FIRST $2 WHERE n = 8 RETURNING *$$, '[7, [8]]', '5');
SELECT el($$UPDATE @C SET log APPEND [1, 2] WHERE n = 8 RETURNING *$$);
SELECT el($$UPDATE @C SET fresh APPEND EACH $1, empty APPEND EACH [] WHERE n = 8 RETURNING *$$, '["a", "b"]');
SELECT el($$UPDATE @C SET log APPEND 0 KEEP LAST 0 WHERE n = 8 RETURNING *$$);
SELECT el($$UPDATE @C SET a[? v > 1].hist APPEND 1 KEEP LAST 2 WHERE n = 7 RETURNING *$$);
SELECT el($$UPDATE @C SET a[? v > 1].hist APPEND EACH [2, 3] KEEP LAST 2 WHERE n = 7 RETURNING *$$);
-- sets: ADD EACH adds each value the array lacks, once ($addToSet with
-- $each; 1.0 is 1), REMOVE EACH every element equal to one ($pullAll)
SELECT el($$UPDATE @C SET tags ADD EACH [1, 2, 2, 1.0, {"a": 1}] WHERE n = 8 RETURNING *$$);
SELECT el($$UPDATE @C SET tags ADD EACH $1 WHERE n = 8 RETURNING *$$, '[{"a": 1}, 3, "3"]');
SELECT el($$UPDATE @C SET tags REMOVE EACH [1, {"a": 1}, 9], none ADD EACH [] WHERE n = 8 RETURNING *$$);
SELECT el($$UPDATE @C SET a[*].hist ADD EACH [3, 4] WHERE n = 7 RETURNING *$$);
SELECT argo_check('el3'), argo_check('el1');

-- errors
SELECT * FROM argo_query('UPDATE el3 SET tags ADD EACH {"a": 1}');
SELECT * FROM argo_query('UPDATE el3 SET tags REMOVE EACH $1', '"x"');
SELECT * FROM argo_query('UPDATE el3 SET log APPEND EACH 5');
SELECT * FROM argo_query('UPDATE el3 SET log APPEND 5 KEEP LAST -1');
SELECT * FROM argo_query('UPDATE el3 SET log APPEND 5 KEEP FIRST 1.5');
SELECT * FROM argo_query('UPDATE el3 SET log APPEND 5 KEEP LAST $1', '"3"');
SELECT * FROM argo_query('SELECT COUNT(*) FROM el3 GROUP BY a[? @ > 1]');
SELECT * FROM argo_query('SELECT COUNT(*) FROM el3 GROUP BY a[*].v[-1]');
SELECT * FROM argo_query('SELECT a[-2].v, a[-1].v, COUNT(*) FROM el3 GROUP BY a[-2].v, a[-1].v');
SELECT * FROM argo_query('SELECT * FROM el3 WHERE a[-0] = 1');
SELECT * FROM argo_query('UPSERT el3 SET x = 1 WHERE a[-1] = 1');
-- the words stay keys
SELECT el($$INSERT INTO @C OBJECT {"each": [1], "keep": [2]}$$);
SELECT el($$SELECT each[0], keep FROM @C WHERE each[0] = 1$$);
SELECT argo_drop_collection('el3'), argo_drop_collection('el1');
