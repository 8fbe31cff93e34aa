-- Queries of reference.md §2.4–§2.6, §3.1's grouping by elements and output names: DISTINCT,
-- COUNT(DISTINCT), GROUP BY several paths, GROUP BY p[*] (unwinding),
-- HAVING, ORDER BY an aggregate; on an Argo/3 and an Argo/1 copy of the
-- same documents, which must give the same results.
SELECT argo_create_collection('q1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"city": "Paris", "zip": "75001", "kind": "a", "items": [{"sku": "pen", "qty": 2}, {"sku": "ink", "qty": 1}], "tags": ["x", "y"]}'),
  ('{"city": "Paris", "zip": "75002", "kind": "b", "items": [{"sku": "pen", "qty": 3}]}'),
  ('{"city": "Lyon", "zip": "69001", "kind": "a", "items": []}'),
  ('{"city": "Lyon", "kind": "a", "tags": ["x"]}'),
  ('{"city": 5, "kind": "b", "items": [{"sku": "cap"}, {"qty": 4}]}'),
  ('{"city": "5", "kind": null, "items": "none"}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO q3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO q1 OBJECT $1', doc::jsonb)) i;

CREATE FUNCTION g_run(coll text, q text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x::text, E'\n' ORDER BY n), '(none)')
    FROM argo_query(format(q, coll)) WITH ORDINALITY AS t(x, n)
$$;
CREATE FUNCTION g_on_both(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r3 text := g_run('q3', q);
  r1 text := g_run('q1', q);
BEGIN
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\nargo3:\n%\nargo1:\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;

-- SELECT DISTINCT: each result object once, first occurrence kept;
-- LIMIT and OFFSET count distinct results
SELECT g_on_both('SELECT DISTINCT city FROM %s');
SELECT g_on_both('SELECT DISTINCT kind FROM %s');
SELECT g_on_both('SELECT DISTINCT city, kind FROM %s ORDER BY city DESC, kind');
SELECT g_on_both('SELECT DISTINCT kind FROM %s LIMIT 1 OFFSET 1');
SELECT g_on_both('SELECT DISTINCT items[*].sku FROM %s');
SELECT g_on_both('SELECT DISTINCT COUNT(*) AS n FROM %s GROUP BY city');
-- DISTINCT as a key is still a key
SELECT g_on_both('SELECT distinct FROM %s');

-- DISTINCT past work_mem spills to sorts: the same results, in the same
-- order, streamed or as the function, with LIMIT and OFFSET
SELECT argo_load('dsp', $$SELECT jsonb_build_object('g', (i * 7919) % 300, 'h', repeat('x', 50 + i % 7), 'i', i) FROM generate_series(1, 6000) i$$);
CREATE TEMP TABLE dsp_want AS SELECT n, x FROM argo_query('SELECT DISTINCT g, h FROM dsp') WITH ORDINALITY t(x, n);
SET work_mem = '64kB';
SELECT count(*) AS distinct_results,
       (SELECT array_agg(x ORDER BY n) FROM dsp_want) = (SELECT array_agg(x) FROM argo_query('SELECT DISTINCT g, h FROM dsp') x) AS streamed,
       (SELECT array_agg(x ORDER BY n) FROM dsp_want) = (SELECT array_agg(x) FROM (SELECT argo_query('SELECT DISTINCT g, h FROM dsp') x) s) AS function,
       (SELECT array_agg(x ORDER BY n) FROM dsp_want WHERE n > 1500 AND n <= 1530) = (SELECT array_agg(x) FROM argo_query('SELECT DISTINCT g, h FROM dsp LIMIT 30 OFFSET 1500') x) AS limited
  FROM dsp_want;
RESET work_mem;
SELECT argo_drop_collection('dsp');

-- COUNT(DISTINCT p): distinct scalars (5 and "5" are two; null, objects
-- and arrays left out); over [*], every value reached
SELECT g_on_both('SELECT COUNT(DISTINCT city) AS cities, COUNT(DISTINCT kind) AS kinds, COUNT(DISTINCT items) AS i, COUNT(DISTINCT items[*].sku) AS skus, COUNT(DISTINCT tags[*]) AS tags FROM %s');
SELECT g_on_both('SELECT kind, COUNT(DISTINCT city) AS cities, COUNT(DISTINCT items[*].sku) AS skus FROM %s GROUP BY kind ORDER BY kind');

-- GROUP BY several paths: a group per combination of their scalars;
-- values nest as in the documents
SELECT g_on_both('SELECT city, kind, COUNT(*) AS n FROM %s GROUP BY city, kind ORDER BY city, kind');
SELECT g_on_both('SELECT city, zip, COUNT(*) FROM %s GROUP BY city, zip ORDER BY city DESC, zip');

-- HAVING: aggregates (by output name, or written again, also ones not
-- among the targets) compared with literals, AND, OR, NOT
SELECT g_on_both('SELECT city, COUNT(*) AS n FROM %s GROUP BY city HAVING COUNT(*) > 1 ORDER BY city');
SELECT g_on_both('SELECT city, COUNT(*) AS n FROM %s GROUP BY city HAVING n >= 2 AND NOT MIN(kind) = ''b'' ORDER BY city');
SELECT g_on_both('SELECT city FROM %s GROUP BY city HAVING SUM(items[*].qty) > 3 OR MAX(zip) = ''69001'' ORDER BY city');
-- a comparison of another type than the aggregate's is UNKNOWN
SELECT g_on_both('SELECT city FROM %s GROUP BY city HAVING MIN(kind) = 1 ORDER BY city');
SELECT g_on_both('SELECT city FROM %s GROUP BY city HAVING NOT (MIN(kind) = 1) ORDER BY city');
SELECT g_on_both('SELECT COUNT(*) AS n FROM %s HAVING COUNT(*) > 10');

-- ORDER BY an aggregate's output name
SELECT g_on_both('SELECT city, COUNT(*) AS n FROM %s GROUP BY city ORDER BY n DESC, city LIMIT 2');
SELECT g_on_both('SELECT kind, MAX(city) AS top FROM %s GROUP BY kind ORDER BY top');

-- a renamed group path comes back under its output name, and GROUP BY
-- and ORDER BY may name it (and ORDER BY a renamed path of a projection)
SELECT g_on_both('SELECT city AS c, COUNT(*) AS n FROM %s GROUP BY city ORDER BY c');
SELECT g_on_both('SELECT city AS c, kind AS k, COUNT(*) AS n FROM %s GROUP BY c, k ORDER BY n DESC, c, k DESC');
SELECT g_on_both('SELECT items[*].sku AS s, SUM(items[*].qty) AS q FROM %s GROUP BY s ORDER BY q DESC, s');
SELECT g_on_both('SELECT zip AS z, kind AS k FROM %s ORDER BY k, z DESC');
SELECT * FROM argo_query('SELECT city AS c, COUNT(*) AS c FROM q3 GROUP BY city');

-- GROUP BY p[*]: each element of the array at the first [*] is a row;
-- a [*] path into that array means the row's element; COUNT(*) counts
-- elements; an object whose array is missing, empty or not an array is
-- one row lacking the key
SELECT g_on_both('SELECT items[*].sku, SUM(items[*].qty) AS qty, COUNT(*) AS n FROM %s GROUP BY items[*].sku ORDER BY items[*].sku');
SELECT g_on_both('SELECT items[*].sku, city, COUNT(*) AS n FROM %s GROUP BY items[*].sku, city ORDER BY n DESC, items[*].sku, city');
SELECT g_on_both('SELECT items[*].sku, items[*].qty, COUNT(*) AS n FROM %s GROUP BY items[*].sku, items[*].qty ORDER BY items[*].sku, items[*].qty');
SELECT g_on_both('SELECT items[*].sku, COUNT(DISTINCT city) AS cities, COUNT(DISTINCT items[*].qty) AS qtys, COUNT(tags[*]) AS tags FROM %s GROUP BY items[*].sku ORDER BY items[*].sku');
SELECT g_on_both('SELECT items[*].sku, COUNT(*) AS n FROM %s WHERE city = ''Paris'' GROUP BY items[*].sku HAVING COUNT(*) > 1');
SELECT g_on_both('SELECT tags[*], COUNT(*) AS n FROM %s GROUP BY tags[*] ORDER BY tags[*] DESC');

-- when every path goes into the unwound array, one pass over its rows
-- answers (unwind.c); an aggregate of another path sends the same
-- statement through the general plan: both must agree
CREATE FUNCTION g_passes_agree(coll text, q text) RETURNS boolean LANGUAGE sql AS $$
  SELECT (SELECT array_agg(x ORDER BY x::text) FROM argo_query(format(q, coll, '')) x)
       = (SELECT array_agg(x - 'z' ORDER BY (x - 'z')::text)
            FROM argo_query(format(q, coll, ', COUNT(DISTINCT city) AS z')) x)
$$;
SELECT c, g_passes_agree(c, 'SELECT items[*].sku, SUM(items[*].qty) AS s, AVG(items[*].qty) AS a, MIN(items[*].qty) AS lo,'
                            ' MAX(items[*].sku) AS hi, COUNT(items[*].qty) AS n, COUNT(*) AS k%2$s FROM %1$s GROUP BY items[*].sku')
  FROM unnest(ARRAY['q3', 'q1']) c;
SELECT c, g_passes_agree(c, 'SELECT items[*].sku, items[*].qty, COUNT(*) AS k%2$s FROM %1$s WHERE EXISTS kind GROUP BY items[*].sku, items[*].qty')
  FROM unnest(ARRAY['q3', 'q1']) c;
SELECT c, g_passes_agree(c, 'SELECT tags[*], COUNT(tags[*]) AS n, MIN(tags[*]) AS lo%2$s FROM %1$s GROUP BY tags[*]')
  FROM unnest(ARRAY['q3', 'q1']) c;
-- that pass reads the kept documents where the collection keeps them
-- (unwind.c, unwind_docs: each array's elements from jsonb), else the
-- rows: the two must agree, on odd elements too
SELECT argo_create_collection('gd'), argo_create_collection('gr');
SET argo.keep_documents = off;
SELECT argo_drop_collection('gr'), argo_create_collection('gr');
RESET argo.keep_documents;
CREATE TABLE g_odd AS SELECT doc::jsonb FROM (VALUES
  ('{"city": "Paris", "items": [{"sku": "pen", "qty": 2}, {"sku": "ink", "qty": 1.5}], "tags": ["x", "y"]}'),
  ('{"city": "Paris", "items": [{"sku": "pen", "qty": 3}, {"sku": "pen", "qty": null}]}'),
  ('{"city": "Lyon", "items": []}'),
  ('{"city": "Lyon", "tags": ["x", null, 5]}'),
  ('{"city": 5, "items": [{"sku": "cap"}, {"qty": 4}, null, 7, [1], {"sku": {"a": 1}, "qty": true}]}'),
  ('{"city": "5", "items": "none", "tags": {"a": 1}}'),
  ('{"items": [{"sku": 5, "qty": -1}, {"sku": "5", "qty": 1e300}]}')) v(doc);
SELECT argo_load(c, 'SELECT doc FROM g_odd') FROM unnest(ARRAY['gd', 'gr']) c;
CREATE FUNCTION g_docs_rows(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  d text := (SELECT string_agg(x::text, E'\n' ORDER BY x::text) FROM argo_query(format(q, 'gd')) x);
  r text := (SELECT string_agg(x::text, E'\n' ORDER BY x::text) FROM argo_query(format(q, 'gr')) x);
BEGIN
  IF d IS DISTINCT FROM r THEN
    RAISE EXCEPTION E'documents and rows disagree on %:\ndocuments:\n%\nrows:\n%', q, d, r;
  END IF;
  RETURN true;
END $$;
SELECT g_docs_rows('SELECT items[*].sku, SUM(items[*].qty) AS s, AVG(items[*].qty) AS a, MIN(items[*].qty) AS lo, MAX(items[*].sku) AS hi, COUNT(items[*].qty) AS n, COUNT(*) AS k FROM %s GROUP BY items[*].sku') AS items,
       g_docs_rows('SELECT items[*].sku, COUNT(*) AS k FROM %s WHERE city = ''Paris'' GROUP BY items[*].sku') AS filtered,
       g_docs_rows('SELECT items[*].qty, items[*].sku, COUNT(items[*]) AS n FROM %s GROUP BY items[*].qty, items[*].sku') AS two_paths,
       g_docs_rows('SELECT tags[*], COUNT(tags[*]) AS n, MIN(tags[*]) AS lo, MAX(tags[*]) AS hi, COUNT(*) AS k FROM %s GROUP BY tags[*]') AS elements_themselves;
SELECT (SELECT count(*) FROM argo_explain('SELECT items[*].sku, SUM(items[*].qty) AS s FROM gd GROUP BY items[*].sku') e
         WHERE e LIKE '%jsonb_array_elements%') > 0 AS documents_read,
       (SELECT count(*) FROM argo_explain('SELECT items[*].sku, SUM(items[*].qty) AS s FROM gr GROUP BY items[*].sku') e
         WHERE e LIKE '%LEFT JOIN ((%') > 0 AS rows_read;
DROP FUNCTION g_docs_rows(text);
DROP TABLE g_odd;
SELECT argo_drop_collection('gd'), argo_drop_collection('gr');
DROP FUNCTION g_passes_agree(text, text);

-- what is refused
SELECT * FROM argo_query('SELECT city, COUNT(*) AS n FROM q3 WHERE COUNT(*) > 1 GROUP BY city');
SELECT * FROM argo_query('SELECT city, COUNT(*) AS n FROM q3 GROUP BY city HAVING city = ''Paris''');
SELECT * FROM argo_query('SELECT city, COUNT(*) AS n FROM q3 GROUP BY city HAVING EXISTS city');
SELECT * FROM argo_query('SELECT COUNT(*) FROM q3 GROUP BY items[*].sku, tags[*]');
SELECT * FROM argo_query('SELECT COUNT(*) FROM q3 GROUP BY items[*].tags[*]');
SELECT * FROM argo_query('SELECT zip, COUNT(*) FROM q3 GROUP BY city');
SELECT * FROM argo_query('SELECT city, COUNT(*) FROM q3 GROUP BY city ORDER BY zip');
SELECT * FROM argo_query('SELECT city, COUNT(*) AS city FROM q3 GROUP BY city');
SELECT * FROM argo_query('SELECT a.city, COUNT(*) FROM q3 AS a INNER JOIN q1 AS b ON (a.city = b.city) GROUP BY a.items[*].sku');

SELECT e FROM argo_explain('SELECT items[*].sku, COUNT(*) AS n FROM q3 GROUP BY items[*].sku HAVING n > 1') e LIMIT 3;

SELECT argo_drop_collection('q3'), argo_drop_collection('q1');
DROP FUNCTION g_on_both(text), g_run(text, text);
