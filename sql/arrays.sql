-- Paths through arrays, [*] (reference.md §3.1), on an Argo/3 and an Argo/1
-- copy of the same orders: both formats must give the same results.
SELECT argo_create_collection('w1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"n": 1, "items": [{"sku": "pen", "qty": 2}, {"sku": "ink"}]}'),
  ('{"n": 2, "items": [{"sku": "ink", "qty": 1}]}'),
  ('{"n": 3, "items": []}'),
  ('{"n": 4}'),
  ('{"n": 5, "items": [{"qty": 3}]}'),
  ('{"n": 6, "items": [{"sku": 7}, {"sku": "pen"}]}'),
  ('{"n": 7, "items": [{"sku": 7}]}'),
  ('{"n": 8, "items": [{"sku": null}, {"sku": "ink"}]}'),
  ('{"n": 9, "items": [{"sku": {"a": 1}}]}'),
  ('{"n": 10, "items": "not an array"}'),
  ('{"n": 11, "items": [{"sku": "pen", "tags": ["a", "b"]}, {"sku": "cap", "tags": []}]}'),
  ('{"n": 12, "m": [[1, 2], [3], []]}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO w3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO w1 OBJECT $1', doc::jsonb)) i;

CREATE FUNCTION w_run(coll text, q text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x::text, E'\n' ORDER BY n), '(none)')
    FROM argo_query(format(q, coll)) WITH ORDINALITY AS t(x, n)
$$;
CREATE FUNCTION w_on_both(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r3 text := w_run('w3', q);
  r1 text := w_run('w1', q);
BEGIN
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\nargo3:\n%\nargo1:\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;
-- the objects (by n) where a predicate is TRUE, where it is FALSE (its
-- NOT is TRUE), and the rest, where it is UNKNOWN
CREATE FUNCTION w_ns(q text) RETURNS int[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg((x->>'n')::int ORDER BY (x->>'n')::int), '{}')
    FROM jsonb_array_elements(('[' || replace(nullif(w_on_both(q), '(none)'), E'\n', ',') || ']')::jsonb) x
$$;
CREATE FUNCTION w_truth(pred text) RETURNS TABLE (is_true int[], is_false int[], is_unknown int[])
LANGUAGE plpgsql AS $$
DECLARE
  t int[] := w_ns('SELECT n FROM %s WHERE ' || pred);
  f int[] := w_ns('SELECT n FROM %s WHERE NOT (' || pred || ')');
BEGIN
  IF t && f THEN
    RAISE EXCEPTION 'TRUE and FALSE at once for %: % and %', pred, t, f;
  END IF;
  RETURN QUERY SELECT t, f, array(SELECT n FROM unnest(w_ns('SELECT n FROM %s')) n
                                  WHERE n <> ALL (t || f) ORDER BY n);
END $$;

-- a comparison is existential: TRUE if some value reached has the
-- literal's type and satisfies it; FALSE if the values reached are all of
-- that type and none does, or the array at the first [*] is empty;
-- otherwise UNKNOWN (no value, or a value of another type, or null)
SELECT * FROM w_truth('items[*].sku = ''pen''');
SELECT * FROM w_truth('items[*].sku != ''pen''');
SELECT * FROM w_truth('items[*].qty > 1');
SELECT * FROM w_truth('items[*].sku LIKE ''%%n%%''');
SELECT * FROM w_truth('items[*].qty BETWEEN 2 AND 3');
SELECT * FROM w_truth('items[*].sku IN (''pen'', 7)');
SELECT * FROM w_truth('items[*].sku NOT IN (''pen'', ''ink'')');
SELECT * FROM w_truth('items[*].sku NOT LIKE ''p%%''');
SELECT * FROM w_truth('items[*].qty NOT BETWEEN 2 AND 3');
-- "no item is a pen" is NOT (… = …); != is "some item is not a pen"
SELECT * FROM w_truth('NOT items[*].sku = ''pen'' AND EXISTS items');
-- EXISTS, IS NULL, IS NOT NULL are two-valued
SELECT * FROM w_truth('EXISTS items[*].sku');
SELECT * FROM w_truth('items[*].sku IS NULL');
SELECT * FROM w_truth('items[*].sku IS NOT NULL');
-- nested arrays, [*] twice; lit op ANY p is p[*] op' lit
SELECT * FROM w_truth('items[*].tags[*] = ''b''');
SELECT * FROM w_truth('m[*][*] >= 3');
SELECT * FROM w_truth('''b'' = ANY items[*].tags');
SELECT * FROM w_truth('3 > ANY m[0]');
-- a position beside [*]
SELECT * FROM w_truth('items[1].sku = ''pen''');
SELECT * FROM w_truth('m[*][1] = 2');
-- in AND and OR, and many terms in one chain
SELECT * FROM w_truth('items[*].sku = ''pen'' OR items[*].sku = ''cap''');
SELECT * FROM w_truth('items[*].sku != ''pen'' AND items[*].sku != ''ink''');
SELECT * FROM w_truth('n > 0 AND (items[*].sku = ''pen'' OR items[*].qty = 3 OR n = 1 OR n = 2 OR n = 3 OR n = 4 OR n = 5 OR n = 6 OR n = 7 OR n = 8 OR n = 9 OR n = 10 OR n = 11 OR n = 12 OR n = 13 OR n = 14 OR n = 15 OR n = 16 OR n = 17 OR n = 18)');
-- parameters
SELECT x FROM argo_query('SELECT n FROM w3 WHERE items[*].sku = $1', '"ink"') x;
SELECT x FROM argo_query('SELECT n FROM w3 WHERE items[*].sku IN $1', '["cap", 7]') x;

-- found from C through the (keyid, value) index, over every key reached
SELECT e FROM argo_explain('SELECT * FROM w3 WHERE items[*].sku = ''pen''') e LIMIT 3;
SELECT w_on_both('SELECT * FROM %s WHERE items[*].sku = ''pen''');
SELECT w_on_both('SELECT n FROM %s WHERE items[*].sku IN (''cap'', ''ink'') ORDER BY n DESC LIMIT 3');

-- projection: the array, with the elements that have the path, each
-- holding only it, in their order
SELECT w_on_both('SELECT items[*].sku FROM %s');
SELECT w_on_both('SELECT n, items[*].tags[*] FROM %s WHERE n = 11');
SELECT w_on_both('SELECT m[*][0] FROM %s');
SELECT w_on_both('SELECT items[*].qty FROM %s WHERE items[*].sku = ''ink''');

-- aggregates use every value reached; COUNT counts them, null included
SELECT w_on_both('SELECT COUNT(items[*].sku) AS skus, COUNT(*) AS orders, SUM(items[*].qty) AS qty, AVG(items[*].qty) AS avg, MIN(items[*].sku) AS lo, MAX(items[*].sku) AS hi FROM %s');
SELECT w_on_both('SELECT COUNT(items[*].sku) AS skus, SUM(items[*].qty) AS qty, MIN(m[*][*]) AS lo, MAX(m[*][*]) AS hi FROM %s WHERE n > 0');
SELECT w_on_both('SELECT n, COUNT(items[*].sku) AS skus FROM %s WHERE EXISTS items GROUP BY n ORDER BY n');

-- a path with [*] has no single value: refused where one is needed
SELECT * FROM argo_query('SELECT n FROM w3 ORDER BY items[*].sku');
SELECT * FROM argo_query('SELECT * FROM w3 AS a INNER JOIN w1 AS b ON (a.items[*].sku = b.items[*].sku)');
-- (an UPDATE through [*] changes every element: filters.sql)
SELECT * FROM argo_query('UPSERT w3 SET x = 1 WHERE items[*].sku = ''pen''');
-- an UPDATE or DELETE chooses its objects by [*] as a SELECT does
SELECT * FROM argo_query('UPDATE w3 SET flagged = true WHERE items[*].sku = ''cap''');
SELECT * FROM argo_query('UPDATE w1 SET flagged = true WHERE items[*].sku = ''cap''');
SELECT w_on_both('SELECT n FROM %s WHERE flagged = true');
SELECT * FROM argo_query('DELETE FROM w3 WHERE items[*].qty = 3');
SELECT * FROM argo_query('DELETE FROM w1 WHERE items[*].qty = 3');
SELECT w_on_both('SELECT COUNT(*) FROM %s');

SELECT argo_drop_collection('w3'), argo_drop_collection('w1');
DROP FUNCTION w_truth(text), w_ns(text), w_on_both(text), w_run(text, text);
