-- Aggregates that build arrays or depend on order (reference.md §2.5;
-- MongoDB's $push, $addToSet, $first, $last): ARRAY_AGG(p [ORDER BY q]),
-- ARRAY_AGG(DISTINCT p), FIRST(p [ORDER BY q]), LAST(p [ORDER BY q]).
-- Checked against jsonb's own aggregates over the same documents on
-- Argo/3 with and without kept documents and Argo/1.
SET argo.keep_documents = off;
SELECT argo_create_collection('va0', 'argo3');
RESET argo.keep_documents;
SELECT argo_create_collection('va3', 'argo3'), argo_create_collection('va1', 'argo1');
CREATE TABLE va_docs AS
SELECT i, jsonb_build_object('i', i, 'user', 'u' || (i % 5)) ||
       CASE i % 6 WHEN 0 THEN '{}'::jsonb
                  WHEN 1 THEN jsonb_build_object('tag', 't' || (i % 3))
                  WHEN 2 THEN jsonb_build_object('tag', i % 4)
                  WHEN 3 THEN '{"tag": null}'::jsonb
                  WHEN 4 THEN jsonb_build_object('tag', jsonb_build_object('k', i % 2))
                  ELSE jsonb_build_object('tag', jsonb_build_array(i % 2, 'x')) END ||
       CASE WHEN i % 7 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('at', (i * 37) % 101) END AS doc
FROM generate_series(1, 90) i;
SELECT count(*) FROM va_docs d, argo_query('INSERT INTO va0 OBJECT $1', d.doc);
SELECT count(*) FROM va_docs d, argo_query('INSERT INTO va3 OBJECT $1', d.doc);
SELECT count(*) FROM va_docs d, argo_query('INSERT INTO va1 OBJECT $1', d.doc);

-- per user: what jsonb says each aggregate is (objects lacking the path
-- left out of ARRAY_AGG, JSON null kept; FIRST/LAST of the object first
-- or last by at, ties and missing at as Argo orders: missing last)
CREATE VIEW va_expected AS
SELECT doc->>'user' AS "user",
       jsonb_agg(doc->'tag' ORDER BY i) FILTER (WHERE doc ? 'tag') AS tags,
       jsonb_agg(doc->'tag' ORDER BY (doc->>'at')::int DESC NULLS FIRST, i) FILTER (WHERE doc ? 'tag') AS by_at,
       (array_agg(doc->'tag' ORDER BY (doc->>'at')::int NULLS LAST, i))[1] AS first,
       (array_agg(doc->'tag' ORDER BY (doc->>'at')::int DESC NULLS FIRST, i DESC))[1] AS last
FROM va_docs GROUP BY 1;

CREATE FUNCTION va_got(coll text) RETURNS TABLE ("user" text, tags jsonb, by_at jsonb, first jsonb, last jsonb)
LANGUAGE sql AS $$
  SELECT x->>'user', x->'tags', x->'by_at', x->'first', x->'last'
  FROM argo_query(format('SELECT user, ARRAY_AGG(tag) AS tags, ARRAY_AGG(tag ORDER BY at DESC) AS by_at,
                                 FIRST(tag ORDER BY at) AS first, LAST(tag ORDER BY at) AS last
                          FROM %s GROUP BY user', coll)) x
$$;

SELECT c, count(*) AS groups,
       count(*) FILTER (WHERE g.tags IS DISTINCT FROM e.tags OR g.by_at IS DISTINCT FROM e.by_at OR
                              g.first IS DISTINCT FROM e.first OR g.last IS DISTINCT FROM e.last) AS wrong
FROM (VALUES ('va0'), ('va3'), ('va1')) cs(c), LATERAL va_got(c) g JOIN va_expected e USING ("user")
GROUP BY c ORDER BY c;

-- DISTINCT: each value once, scalars in Argo's order, then null, objects
-- and arrays as first met
SELECT x FROM argo_query('SELECT ARRAY_AGG(DISTINCT tag) AS tags FROM va3') x;
SELECT x FROM argo_query('SELECT ARRAY_AGG(DISTINCT tag) AS tags FROM va1') x;
-- without GROUP BY, with a WHERE, beside other aggregates; a group with nothing
SELECT x FROM argo_query('SELECT COUNT(*), ARRAY_AGG(i ORDER BY at) AS ids, FIRST(at) AS f, LAST(at) AS l FROM va0 WHERE i < 8') x;
SELECT x FROM argo_query('SELECT ARRAY_AGG(nothing) AS a, FIRST(nothing) AS f FROM va3') x;
-- MongoDB's "latest order per customer": LAST(… ORDER BY a date)
SELECT x FROM argo_query('SELECT user, LAST(i ORDER BY at) AS latest, ARRAY_AGG(at ORDER BY at DESC) AS ats FROM va3 WHERE i <= 20 GROUP BY user ORDER BY user') x;

-- ARRAY_AGG of a [*] path adds each value it reaches (7.1), objects in id order
SELECT c, count(*) FILTER (WHERE g.v IS DISTINCT FROM e.v) AS wrong, count(*) AS groups
FROM (VALUES ('va0'), ('va3'), ('va1')) cs(c),
     LATERAL (SELECT x->>'user' AS "user", x->'v' AS v
                FROM argo_query(format('SELECT user, ARRAY_AGG(tag[*]) AS v FROM %s GROUP BY user', c)) x) g
     JOIN (SELECT d.doc->>'user' AS "user",
                  jsonb_agg(el ORDER BY d.i, o) FILTER (WHERE el IS NOT NULL) AS v
             FROM va_docs d LEFT JOIN LATERAL jsonb_array_elements(
                    CASE WHEN jsonb_typeof(d.doc->'tag') = 'array' THEN d.doc->'tag' END) WITH ORDINALITY x(el, o) ON true
            GROUP BY 1) e USING ("user")
GROUP BY 1 ORDER BY 1;
SELECT x FROM argo_query('SELECT ARRAY_AGG(DISTINCT tag[*]) AS v, ARRAY_AGG(tag[1] ORDER BY i DESC) AS w FROM va3 WHERE i < 30') x;

-- ID() inside ARRAY_AGG, FIRST and LAST, and as their order (it was a
-- syntax error): the ids as numbers, compared with the directory's, on
-- both formats
SELECT c, (SELECT jsonb_agg(x ORDER BY x->>'user') FROM argo_query(format(
         'SELECT user, ARRAY_AGG(ID()) AS ids, FIRST(ID()) AS f, LAST(ID()) AS l, ARRAY_AGG(i ORDER BY ID() DESC) AS back,'
         ' FIRST(i ORDER BY ID() DESC) AS newest FROM %s WHERE i < 12 GROUP BY user', c)) x)
          = (SELECT jsonb_agg(jsonb_build_object('user', u, 'ids', ids, 'f', ids->0, 'l', ids->-1, 'back', back, 'newest', back->0) ORDER BY u)
               FROM (SELECT d->>'user' AS u, jsonb_agg(id ORDER BY id) AS ids, jsonb_agg(d->'i' ORDER BY id DESC) AS back
                       FROM (SELECT (x->>'_id')::bigint AS id, x - '_id' AS d
                               FROM argo_query(format('SELECT *, ID() FROM %s WHERE i < 12', c)) x) o
                      GROUP BY 1) g) AS same
  FROM (VALUES ('va3'), ('va1')) v(c);
SELECT * FROM argo_query('SELECT ARRAY_AGG(DISTINCT ID()) AS ids FROM va3 WHERE i < 5');
SELECT * FROM argo_query('SELECT user, ARRAY_AGG(ID() ORDER BY ID() DESC) AS ids FROM va1 WHERE i < 20 GROUP BY user HAVING COUNT(*) > 3');
SELECT * FROM argo_query('SELECT SUM(ID()) FROM va3');

-- errors: 0A000 naming what is not there
SELECT * FROM argo_query('SELECT user, ARRAY_AGG(tag) AS t FROM va3 GROUP BY user HAVING ARRAY_AGG(tag) = 1');
SELECT * FROM argo_query('SELECT user, FIRST(tag) AS f FROM va3 GROUP BY user ORDER BY f');
SELECT * FROM argo_query('SELECT FIRST(tag[*]) FROM va3');
SELECT * FROM argo_query('SELECT tag[*], ARRAY_AGG(tag[*]) FROM va3 GROUP BY tag[*]');
SELECT * FROM argo_query('SELECT ARRAY_AGG(a.tag) FROM va3 AS a JOIN va1 AS b ON a.i = b.i');
SELECT * FROM argo_query('SELECT ARRAY_AGG(DISTINCT tag ORDER BY at) FROM va3');
-- the words stay keys
SELECT x FROM argo_query('INSERT INTO va3 OBJECT {"first": 1, "last": 2, "array_agg": [3]} RETURNING ID') x;
SELECT x FROM argo_query('SELECT first, last, array_agg FROM va3 WHERE first = 1 AND 3 = ANY array_agg') x;
-- a position is a position: an object's key "0" is not o[0] (nothing there, so left out)
SELECT argo_create_collection('va_pos');
SELECT x FROM argo_query($$INSERT INTO va_pos OBJECTS [{"g": 1, "o": {"0": {"x": 5}}}, {"g": 1, "o": [{"x": 7}]}]$$) x;
SELECT x FROM argo_query('SELECT g, ARRAY_AGG(o[0].x) AS xs, FIRST(o[0] ORDER BY g) AS f, LAST(o[0] ORDER BY g) AS l FROM va_pos GROUP BY g') x;
SELECT argo_drop_collection('va_pos');
SELECT argo_drop_collection('va0'), argo_drop_collection('va3'), argo_drop_collection('va1');
