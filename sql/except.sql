-- SELECT * EXCEPT (p, …): each object without the values at those paths
-- (reference.md §2.2; MongoDB's {password: 0}), through [*], filters and
-- negative indices too.  Checked against the same
-- documents cut down by jsonb's own #- in every way a SELECT * reads:
-- kept documents (xc3), rows (xc0 keeps none), Argo/1 (xc1), a lookup,
-- an order, a LIMIT, DISTINCT and a stream taken a few rows at a time.
SET argo.keep_documents = off;
SELECT argo_create_collection('xc0', 'argo3');
RESET argo.keep_documents;
SELECT argo_create_collection('xc3', 'argo3'), argo_create_collection('xc1', 'argo1');
CREATE TABLE ex_docs AS
SELECT i, jsonb_strip_nulls(jsonb_build_object(
         'i', i, 'g', i % 4,
         'password', CASE WHEN i % 5 <> 0 THEN 'pw' || i END,
         'profile', CASE WHEN i % 3 = 0 THEN jsonb_build_object('ssn', i * 11, 'age', i)
                         WHEN i % 3 = 1 THEN to_jsonb('flat'::text) END,
         'items', CASE WHEN i % 2 = 0 THEN jsonb_build_array(
                         jsonb_build_object('sku', 'a' || i, 'price', i),
                         jsonb_build_object('sku', 'b' || i),
                         i, jsonb_build_object('price', 1, 'tags', '["x"]'::jsonb)) END)) AS doc
FROM generate_series(1, 60) i;
SELECT count(*) FROM ex_docs d, argo_query('INSERT INTO xc0 OBJECT $1', d.doc);
SELECT count(*) FROM ex_docs d, argo_query('INSERT INTO xc3 OBJECT $1', d.doc);
SELECT count(*) FROM ex_docs d, argo_query('INSERT INTO xc1 OBJECT $1', d.doc);

-- each object's items with price taken out of every element that is an object
CREATE FUNCTION ex_no_price(d jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT CASE WHEN jsonb_typeof(d->'items') = 'array' THEN
           jsonb_set(d, '{items}', (SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(e) = 'object' THEN e - 'price' ELSE e END ORDER BY n), '[]')
                                    FROM jsonb_array_elements(d->'items') WITH ORDINALITY AS x(e, n)))
         ELSE d END
$$;

-- each object's items without the elements whose price is a number above 5
CREATE FUNCTION ex_cheap(d jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT CASE WHEN jsonb_typeof(d->'items') = 'array' THEN
           jsonb_set(d, '{items}', (SELECT coalesce(jsonb_agg(e ORDER BY n), '[]')
                                    FROM jsonb_array_elements(d->'items') WITH ORDINALITY AS x(e, n)
                                    WHERE NOT coalesce(jsonb_typeof(e->'price') = 'number' AND (e->>'price')::numeric > 5, false)))
         ELSE d END
$$;

-- "mismatches of objects returned": Argo's answer against the expected
-- objects, by i (the statements' own WHERE and LIMIT choose which)
CREATE FUNCTION ex_mismatches(q text, expected text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE format($f$
    WITH got AS (SELECT (x->>'i')::int AS i, x FROM argo_query(%L) x),
         want AS (SELECT i, %s AS x FROM ex_docs WHERE i IN (SELECT i FROM got))
    SELECT count(*) FILTER (WHERE got.x IS DISTINCT FROM want.x) || ' of ' || count(got.i)
    FROM got FULL JOIN want USING (i)$f$,
    q, expected) INTO r;
  RETURN r;
END $$;

SELECT c, q, ex_mismatches(replace(q, '@C', c), e) AS mismatches
FROM (VALUES ('xc0'), ('xc3'), ('xc1')) cs(c),
     (VALUES ('SELECT * EXCEPT (password) FROM @C', $$doc #- '{password}'$$),
             ('SELECT * EXCEPT (password, profile.ssn, nothing, profile.age.deeper) FROM @C',
              $$doc #- '{password}' #- '{profile,ssn}'$$),
             ('SELECT * EXCEPT (items[*].price) FROM @C', 'ex_no_price(doc)'),
             ('SELECT * EXCEPT (items[0], g) FROM @C WHERE g = 2', $$doc #- '{items,0}' #- '{g}'$$),
             ('SELECT * EXCEPT (items[3].tags[0]) FROM @C WHERE i > 40 ORDER BY password DESC LIMIT 7',
              $$doc #- '{items,3,tags,0}'$$),
             ('SELECT * EXCEPT (items, profile, password, g) FROM @C', $$jsonb_build_object('i', doc->'i')$$),
             -- through negative indices (from the original array's end) and filters
             ('SELECT * EXCEPT (items[-1], items[-4].sku) FROM @C', $$doc #- '{items,0,sku}' #- '{items,-1}'$$),
             ('SELECT * EXCEPT (items[? price > 5]) FROM @C', 'ex_cheap(doc)'),
             ('SELECT * EXCEPT (items[? EXISTS tags].tags, items[? @ > 0]) FROM @C WHERE g = 0',
              $$doc #- '{items,3,tags}' #- '{items,2}'$$)) qs(q, e)
ORDER BY 1, 2;

-- what it looks like; ID() stays, ORDER BY may name a path taken out
SELECT x FROM argo_query('SELECT *, ID() AS id EXCEPT (items[*].price, password) FROM xc3 WHERE i IN (5, 6) ORDER BY password') x;
-- DISTINCT compares what is returned
SELECT x FROM argo_query('SELECT DISTINCT * EXCEPT (i, password, profile, items) FROM xc1 ORDER BY g') x;
-- a stream taken a few rows at a time
BEGIN;
DECLARE exc CURSOR FOR SELECT x FROM argo_query('SELECT * EXCEPT (items, profile) FROM xc0 WHERE i <= 4') x;
FETCH 2 FROM exc;
FETCH ALL FROM exc;
COMMIT;
-- the word stays free as a key
SELECT x FROM argo_query('INSERT INTO xc3 OBJECT {"except": 1, "i": 0} RETURNING *') x;
SELECT x FROM argo_query('SELECT except FROM xc3 WHERE except = 1') x;
SELECT x FROM argo_query('SELECT DISTINCT except FROM xc3') x;
SELECT x FROM argo_query('SELECT * EXCEPT (except) FROM xc3 WHERE i = 0') x;
-- errors: 0A000 naming what is not there, 42601 for the rest
SELECT * FROM argo_query('SELECT i EXCEPT (password) FROM xc3');
SELECT * FROM argo_query('SELECT COUNT(*) EXCEPT (password) FROM xc3');
SELECT * FROM argo_query('SELECT * EXCEPT (ID()) FROM xc3');
SELECT * FROM argo_query('SELECT * EXCEPT (a.password) FROM xc3 AS a JOIN xc1 AS b ON a.i = b.i');
SELECT * FROM argo_query('SELECT * FROM xc3 EXCEPT SELECT * FROM xc1');
SELECT * FROM argo_query('SELECT * EXCEPT () FROM xc3');
SELECT * FROM argo_query('SELECT * EXCEPT password FROM xc3');
SELECT argo_drop_collection('xc0'), argo_drop_collection('xc3'), argo_drop_collection('xc1');
