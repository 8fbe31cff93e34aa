-- A projection of every object of two keys or more, common ones (in a
-- quarter of the objects or more, by their index entries), takes each kept document and
-- cuts it down in C (allobjects.c, docproject.c); rarer keys are read
-- from their rows (projscan.c).  Both must give what a collection without
-- kept documents gives, in the same order: nested paths, arrays, objects
-- with none of the keys (nothing), an object whose copy is gone (rebuilt).
SET client_min_messages = warning;
SELECT argo_create_collection('pd3', 'argo3'), argo_create_collection('pd1', 'argo1');
SET argo.keep_documents = off;
SELECT argo_create_collection('pn3', 'argo3');
RESET argo.keep_documents;
SELECT count(*) FROM (VALUES ('pd3'), ('pd1'), ('pn3')) c(c),
  LATERAL argo_query(format('INSERT INTO %s OBJECTS $1', c),
    (SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
       'n', CASE WHEN i % 7 <> 0 THEN i END,
       's', 'x' || i,
       'o', jsonb_build_object('a', i % 3, 'b', jsonb_build_array(i, jsonb_build_object('c', i % 2 = 0))),
       'e', CASE WHEN i = 3 THEN '123456789012345678901'::jsonb END,
       'sp', CASE WHEN i % 50 = 0 THEN 'rare' END)) ORDER BY i)
     FROM generate_series(1, 400) i)) x;
ANALYZE argo_data.pd3_obj, argo_data.pd1_obj, argo_data.pn3_obj;
-- a copy gone: its object is rebuilt from its rows
DELETE FROM argo_data.pd3_doc WHERE objid = 5;
CREATE FUNCTION pg_temp.proj(c text, p text) RETURNS jsonb[] LANGUAGE sql AS $$
  SELECT array_agg(x ORDER BY i) FROM argo_query(format('SELECT %s FROM %s', p, c)) WITH ORDINALITY r(x, i)
$$;
SELECT p,
       (SELECT substr(e, 14) FROM argo_explain(format('SELECT %s FROM pd3', p)) e LIMIT 1) AS pd3_strategy,
       (SELECT substr(e, 14) FROM argo_explain(format('SELECT %s FROM pd1', p)) e LIMIT 1) AS pd1_strategy,
       coalesce(array_length(pg_temp.proj('pn3', p), 1), 0) AS objects,
       pg_temp.proj('pd3', p) IS NOT DISTINCT FROM pg_temp.proj('pn3', p) AND
       pg_temp.proj('pd1', p) IS NOT DISTINCT FROM pg_temp.proj('pn3', p) AS same
FROM (VALUES ('n'), ('n, s'), ('o.a'), ('o'), ('o.b'), ('s, o.b'), ('e'), ('n, e'), ('sp'), ('n, sp'),
             ('sp, o.a'), ('nokey')) ps(p);
-- the same streamed a few at a time through a cursor
BEGIN;
DECLARE pc CURSOR FOR SELECT x FROM argo_query('SELECT n, o.a FROM pd3') x;
FETCH 3 FROM pc;
FETCH 2 FROM pc;
COMMIT;
SELECT argo_drop_collection('pd3'), argo_drop_collection('pd1'), argo_drop_collection('pn3');
