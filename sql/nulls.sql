-- ORDER BY p NULLS FIRST / NULLS LAST: objects lacking a scalar at p
-- (missing, null, an object or an array) first or last whatever the
-- direction; by default last ascending, first descending.  Every form is
-- checked against the order computed here from the documents themselves,
-- through each way Argo sorts: SQL over rows (nn0 keeps no documents),
-- sort keys from kept documents (nn3), Argo/1 (nn1), objects found from C
-- and sorted in C (WHERE g = …), a LIMIT, aggregates' groups.
SET argo.keep_documents = off;
SELECT argo_create_collection('nn0', 'argo3');
RESET argo.keep_documents;
SELECT argo_create_collection('nn3', 'argo3'), argo_create_collection('nn1', 'argo1');
CREATE TABLE nn_docs AS
SELECT i, jsonb_build_object('i', i, 'g', i % 3) ||
       CASE i % 8
         WHEN 0 THEN jsonb_build_object('k', (i % 7) - 3)
         WHEN 1 THEN jsonb_build_object('k', 'w' || (i % 4))
         WHEN 2 THEN jsonb_build_object('k', (i % 2 = 0))
         WHEN 3 THEN '{"k": null}'::jsonb
         WHEN 4 THEN '{"k": {"a": 1}}'::jsonb
         WHEN 5 THEN '{"k": [1, 2]}'::jsonb
         WHEN 6 THEN jsonb_build_object('k', i * 0.5)
         ELSE '{}'::jsonb
       END AS doc
FROM generate_series(1, 120) i;
SELECT count(*) FROM nn_docs d, argo_query('INSERT INTO nn0 OBJECT $1', d.doc);
SELECT count(*) FROM nn_docs d, argo_query('INSERT INTO nn3 OBJECT $1', d.doc);
SELECT count(*) FROM nn_docs d, argo_query('INSERT INTO nn1 OBJECT $1', d.doc);

-- the order reference.md §2.3 gives, with the lacking objects placed by nulls_first:
-- numbers, strings ("C" collation), booleans; ties by object id (= i)
CREATE FUNCTION nn_expected(flt text, descending bool, nulls_first bool, lim int)
RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(i::text, ' ' ORDER BY n)
  FROM (SELECT i, row_number() OVER (ORDER BY
                coalesce(jsonb_typeof(doc->'k'), 'missing') IN ('number', 'string', 'boolean') = nulls_first,
                CASE WHEN descending THEN
                  CASE jsonb_typeof(doc->'k') WHEN 'number' THEN 0 WHEN 'string' THEN 1 WHEN 'boolean' THEN 2 END END DESC,
                CASE WHEN NOT descending THEN
                  CASE jsonb_typeof(doc->'k') WHEN 'number' THEN 0 WHEN 'string' THEN 1 WHEN 'boolean' THEN 2 END END,
                CASE WHEN descending AND jsonb_typeof(doc->'k') = 'number' THEN (doc->>'k')::numeric END DESC,
                CASE WHEN NOT descending AND jsonb_typeof(doc->'k') = 'number' THEN (doc->>'k')::numeric END,
                CASE WHEN descending AND jsonb_typeof(doc->'k') = 'string' THEN doc->>'k' END COLLATE "C" DESC,
                CASE WHEN NOT descending AND jsonb_typeof(doc->'k') = 'string' THEN doc->>'k' END COLLATE "C",
                CASE WHEN descending AND jsonb_typeof(doc->'k') = 'boolean' THEN (doc->>'k')::bool END DESC,
                CASE WHEN NOT descending AND jsonb_typeof(doc->'k') = 'boolean' THEN (doc->>'k')::bool END,
                i) AS n
        FROM nn_docs
        WHERE flt IS NULL OR (doc->>'g')::int = flt::int) s
  WHERE lim IS NULL OR n <= lim
$$;

CREATE FUNCTION nn_got(coll text, flt text, dir text, nulls text, lim int)
RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(x->>'i', ' ' ORDER BY n)
  FROM (SELECT row_number() OVER () AS n, x
        FROM argo_query(format('SELECT * FROM %s%s ORDER BY k %s %s%s', coll,
                               CASE WHEN flt IS NULL THEN '' ELSE ' WHERE g = ' || flt END,
                               dir, nulls,
                               CASE WHEN lim IS NULL THEN '' ELSE ' LIMIT ' || lim END)) x) s
$$;

-- every combination: the number that differ from the expected order (0)
SELECT c, dir, nulls, count(*) FILTER (WHERE nn_got(c, flt, dir, nulls, lim) IS DISTINCT FROM
         nn_expected(flt, dir = 'DESC',
                     CASE nulls WHEN 'NULLS FIRST' THEN true WHEN 'NULLS LAST' THEN false
                                ELSE dir = 'DESC' END, lim)) AS wrong,
       count(*) AS forms
FROM (VALUES ('nn0'), ('nn3'), ('nn1')) cs(c),
     (VALUES ('ASC'), ('DESC')) ds(dir),
     (VALUES ('NULLS FIRST'), ('NULLS LAST'), ('')) ns(nulls),
     (VALUES (NULL), ('1')) fs(flt),
     (VALUES (NULL::int), (5), (30)) ls(lim)
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- what NULLS FIRST changes, to the eye: null, [1, 2] and a missing k before 1
SELECT x FROM argo_query('SELECT i, k FROM nn3 WHERE i IN (3, 5, 7, 8, 9) ORDER BY k NULLS FIRST') x;
SELECT x FROM argo_query('SELECT i, k FROM nn3 WHERE i IN (3, 5, 7, 8, 9) ORDER BY k DESC NULLS LAST') x;
-- two items, each with its own placement
SELECT string_agg(x->>'i', ' ') FROM argo_query('SELECT i FROM nn3 WHERE i < 20 ORDER BY g DESC NULLS LAST, k NULLS FIRST') x;
-- an aggregate's groups: the group of objects lacking k first or last
SELECT x FROM argo_query('SELECT k, COUNT(*) FROM nn1 WHERE g = 0 AND i < 40 GROUP BY k ORDER BY k NULLS FIRST') x;
SELECT x FROM argo_query('SELECT k, COUNT(*) AS n FROM nn3 WHERE g = 0 AND i < 40 GROUP BY k ORDER BY k DESC NULLS LAST') x;
-- a join's order
SELECT string_agg((x->'a'->>'i') || '/' || (x->'b'->>'i'), ' ')
FROM argo_query('SELECT * FROM nn3 AS a JOIN nn1 AS b ON a.i = b.i WHERE a.i < 12 ORDER BY a.k NULLS FIRST') x;
-- ID() is never missing: NULLS changes nothing
SELECT string_agg(x->>'i', ' ') FROM argo_query('SELECT i FROM nn3 WHERE i < 5 ORDER BY ID() DESC NULLS LAST') x;
-- the words stay free as keys
SELECT x FROM argo_query('INSERT INTO nn3 OBJECT {"nulls": 1, "first": 2, "last": 3} RETURNING *') x;
SELECT x FROM argo_query('SELECT nulls, first, last FROM nn3 WHERE first = 2 ORDER BY last NULLS FIRST') x;
-- errors
SELECT * FROM argo_query('SELECT * FROM nn3 ORDER BY k NULLS');
SELECT * FROM argo_query('SELECT * FROM nn3 ORDER BY k NULLS FIRST LAST');
SELECT * FROM argo_query('SELECT * FROM nn3 ORDER BY NULLS FIRST');
