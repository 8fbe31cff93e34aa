-- Text search, p @@ 'query' (reference.md §7; MongoDB's $text): the strings
-- at p (an array's strings, and every string a [*] path reaches, as one
-- text) against a query in websearch_to_tsquery's syntax; TRUE, FALSE
-- where p has strings that do not match, else UNKNOWN.  Checked against
-- PostgreSQL's own to_tsvector over the same documents, without an index
-- (configuration simple) and with argo_text's (english), on both formats.
SET argo.keep_documents = off;
SELECT argo_create_collection('tx0', 'argo3');
RESET argo.keep_documents;
SELECT argo_create_collection('tx3', 'argo3'), argo_create_collection('tx1', 'argo1');
CREATE TABLE tx_docs AS
SELECT i, jsonb_build_object('i', i) ||
       CASE i % 5 WHEN 0 THEN '{}'::jsonb
                  WHEN 1 THEN jsonb_build_object('title', (ARRAY['The quick brown fox', 'Lazy dogs sleep', 'Foxes and hounds', 'A quick nap'])[1 + i % 4])
                  WHEN 2 THEN jsonb_build_object('title', i)
                  WHEN 3 THEN jsonb_build_object('title', jsonb_build_array('fox news', 'slow'))
                  ELSE jsonb_build_object('title', 'dogs of ' || (ARRAY['war', 'summer', 'the quick'])[1 + i % 3]) END AS doc
FROM generate_series(1, 300) i;
SELECT count(*) FROM tx_docs d, argo_query('INSERT INTO tx0 OBJECT $1', d.doc);
SELECT count(*) FROM tx_docs d, argo_query('INSERT INTO tx3 OBJECT $1', d.doc);
SELECT count(*) FROM tx_docs d, argo_query('INSERT INTO tx1 OBJECT $1', d.doc);

-- the text jsonb has at title: a string, or an array's strings
CREATE FUNCTION tx_text(d jsonb) RETURNS text LANGUAGE sql AS $$
  SELECT CASE jsonb_typeof(d->'title') WHEN 'string' THEN d->>'title'
              WHEN 'array' THEN (SELECT string_agg(e, ' ') FROM jsonb_array_elements_text(d->'title') e) END
$$;
-- "wrong of selected": Argo's objects where the predicate is TRUE (or,
-- with NOT, FALSE) against those PostgreSQL's text search gives
CREATE FUNCTION tx_check(coll text, q text, cfg regconfig, negate bool) RETURNS text LANGUAGE sql AS $$
  WITH got AS (SELECT (x->>'i')::int AS i
                 FROM argo_query(format('SELECT i FROM %s WHERE %s title @@ $1', coll, CASE WHEN negate THEN 'NOT' ELSE '' END),
                                 to_jsonb(q)) x),
       want AS (SELECT i FROM tx_docs
                 WHERE (to_tsvector(cfg, tx_text(doc)) @@ websearch_to_tsquery(cfg, q)) = NOT negate)
  SELECT count(*) FILTER (WHERE got.i IS NULL OR want.i IS NULL) || ' of ' || count(want.i)
  FROM got FULL JOIN want USING (i)
$$;

SELECT q, n, tx_check('tx3', q, 'simple', n) AS tx3, tx_check('tx0', q, 'simple', n) AS tx0,
       tx_check('tx1', q, 'simple', n) AS tx1
FROM (VALUES ('fox'), ('quick fox'), ('"quick brown"'), ('dogs -war'), ('fox or sleep'), ('foxes')) qs(q),
     (VALUES (false), (true)) ns(n)
ORDER BY 1, 2;

-- argo_text: an index with its configuration; the same answers, stemmed
SELECT argo_text('tx3', 'title', 'english'), argo_text('tx1', 'title', 'english');
SELECT argo_text('tx3', 'title', 'english') AS again;
SELECT q, n, tx_check('tx3', q, 'english', n) AS tx3, tx_check('tx1', q, 'english', n) AS tx1
FROM (VALUES ('fox'), ('quick fox'), ('"quick brown"'), ('dogs -war'), ('fox or sleep'), ('foxes')) qs(q),
     (VALUES (false), (true)) ns(n)
ORDER BY 1, 2;
-- the index answers (its expression is the predicate's)
SET enable_seqscan = off;
SELECT count(*) FILTER (WHERE line LIKE '%Bitmap Index Scan on tx3_doc_argo_text_vector_idx%') AS index_scans
FROM argo_explain($$SELECT * FROM tx3 WHERE title @@ 'fox'$$) line;
RESET enable_seqscan;
-- an object whose kept copy is gone is judged on its rows
DELETE FROM argo_data.tx3_doc WHERE objid IN (6, 11);
SELECT x FROM argo_query($$SELECT i FROM tx3 WHERE title @@ 'quick' AND i < 17$$) x;

-- a path through a filter (contract 8.1: a filter counts as a [*]): the
-- strings of the elements the filter keeps, as one text; against
-- PostgreSQL's text search over the same strings (NULL where the filter
-- keeps none), on both formats, with and without kept documents, and
-- under the configuration argo_text gave the [*] path (english: "pens"
-- finds "pen")
SELECT argo_create_collection('txf1', 'argo1');
SELECT argo_create_collection('txf0');
SELECT argo_keep_documents('txf0', false);
CREATE TEMP TABLE txf_docs AS
  SELECT i, jsonb_build_object('i', i, 'items', (SELECT coalesce(jsonb_agg(jsonb_build_object('name', n, 'qty', (i + k) % 4)), '[]')
                                                 FROM unnest(ARRAY[(ARRAY['red pen', 'blue pen', 'red cup', 'black pens', 'war and peace'])[1 + i % 5],
                                                                   (ARRAY['green pen', 'red box', 'pen war'])[1 + i % 3]]) WITH ORDINALITY u(n, k)
                                                WHERE i % 7 <> 0)) AS d
    FROM generate_series(1, 40) i;
SELECT argo_load(c, 'SELECT d FROM txf_docs ORDER BY i') FROM (VALUES ('txf3'), ('txf1'), ('txf0')) v(c);
SELECT argo_text('txf3', 'items[*].name', 'english');
SELECT c, q, (SELECT array_agg((x->>'i')::int ORDER BY (x->>'i')::int) FROM argo_query(format('SELECT i FROM %s WHERE %s', c, q)) x)
             IS NOT DISTINCT FROM
             (SELECT array_agg(i ORDER BY i) FROM txf_docs t,
                     LATERAL (SELECT string_agg(e->>'name', ' ' ORDER BY o) AS txt
                                FROM jsonb_array_elements(t.d->'items') WITH ORDINALITY a(e, o)
                               WHERE (e->>'qty')::int >= 2) s
               WHERE (to_tsvector(CASE WHEN c = 'txf3' THEN 'english' ELSE 'simple' END::regconfig, s.txt)
                      @@ websearch_to_tsquery(CASE WHEN c = 'txf3' THEN 'english' ELSE 'simple' END::regconfig, w)) = want) AS same
  FROM (VALUES ('txf3'), ('txf1'), ('txf0')) v(c),
       (VALUES ('items[? qty >= 2].name @@ ''red''', 'red', true), ('NOT items[? qty >= 2].name @@ ''red''', 'red', false),
               ('items[? qty >= 2].name @@ ''-war''', '-war', true), ('items[? qty >= 2].name @@ ''"red pen"''', '"red pen"', true),
               ('items[? qty >= 2].name @@ ''pens or box''', 'pens or box', true)) p(q, w, want)
 ORDER BY 1, 2;
SELECT * FROM argo_query($$SELECT i FROM txf3 WHERE items[? qty >= 2].name @@ 'pens' AND i < 12 ORDER BY i$$);
SELECT argo_drop_collection('txf3'), argo_drop_collection('txf1'), argo_drop_collection('txf0');

-- errors
SELECT * FROM argo_query('SELECT * FROM tx3 WHERE title @@ 5');
SELECT * FROM argo_query('SELECT * FROM tx3 WHERE EXISTS title[? @ @@ ''fox'']');
SELECT argo_text('tx3', 'title', 'simple');
SELECT argo_text('tx0', 'title');
SELECT argo_text('tx3', 'ID()');
SELECT argo_text('nosuch', 'title');
SELECT argo_drop_collection('tx0'), argo_drop_collection('tx3'), argo_drop_collection('tx1');
