-- Three shards (throwaway servers the harness started, test/distributed/run.py),
-- as postgres_fdw servers of this coordinator, and the helpers later
-- files use: a local and a distributed collection of the same objects,
-- and same(stmt), which runs an Argo/SQL statement on both (@C standing
-- for the collection) and says whether they gave the same objects.
\getenv p1 ARGO_SHARD1_PORT
\getenv p2 ARGO_SHARD2_PORT
\getenv p3 ARGO_SHARD3_PORT
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port :'p1', dbname 'postgres');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port :'p2', dbname 'postgres');
CREATE SERVER shard3 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port :'p3', dbname 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard3 OPTIONS (user 'postgres');

-- The objects both collections hold: awkward ones first, then 300 of a shape
CREATE TABLE docs AS
SELECT d FROM (VALUES
  ('{"name": "Ada", "age": 36, "tags": ["math", "engines"], "address": {"city": "London"}, "ok": true}'::jsonb),
  ('{"name": "Bob", "age": 25, "tags": ["sql"], "address": {"city": "Paris", "zip": "75001"}}'),
  ('{"name": "Cy", "age": 41, "tags": [], "extra": null, "ok": false}'),
  ('{}'),
  ('{"name": "Dee", "age": 25.5, "big": 123456789012345678901234567890, "price": 1.50}'),
  ('{"name": "Éva", "age": 30, "tags": ["math"], "address": {"city": "Paris"}}'),
  ('{"name": "Ord1", "items": [{"sku": "pen", "qty": 2}, {"sku": "ink"}]}'),
  ('{"name": "Ord2", "items": [{"sku": "ink", "qty": 1}], "address": {"city": "Paris"}}')) v(d)
UNION ALL
SELECT jsonb_build_object('name', 'n' || i, 'age', i % 50, 'grp', i % 7, 'tags', jsonb_build_array('t' || (i % 3)),
                          'items', jsonb_build_array(jsonb_build_object('sku', 's' || (i % 5), 'qty', i % 4)))
  FROM generate_series(1, 300) i;

SELECT argo_create_distributed_collection('dist', ARRAY['shard1', 'shard2', 'shard3']);
SELECT argo_load('dist', 'SELECT d FROM docs');
SELECT argo_load('loc', 'SELECT d FROM docs');
SELECT name, format, objects FROM argo_collections WHERE name IN ('dist', 'loc') ORDER BY name;

-- Whether stmt gives the same objects on both (in the same order where ordered)
CREATE FUNCTION same(stmt text, ordered boolean DEFAULT false, params jsonb[] DEFAULT '{}') RETURNS boolean
LANGUAGE sql AS $$
  SELECT CASE WHEN ordered
    THEN (SELECT array_agg(x ORDER BY n) FROM argo_query(replace(stmt, '@C', 'dist'), VARIADIC params) WITH ORDINALITY t(x, n))
         IS NOT DISTINCT FROM
         (SELECT array_agg(x ORDER BY n) FROM argo_query(replace(stmt, '@C', 'loc'), VARIADIC params) WITH ORDINALITY t(x, n))
    ELSE (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query(replace(stmt, '@C', 'dist'), VARIADIC params) x)
         IS NOT DISTINCT FROM
         (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query(replace(stmt, '@C', 'loc'), VARIADIC params) x)
  END
$$;

-- Every object is on exactly one shard, and each shard holds some
SELECT (SELECT count(*) FROM argo_query('SELECT * FROM dist')) AS objects,
       (SELECT count(DISTINCT x->>'_id') FROM argo_query('SELECT ID() FROM dist') x) AS distinct_ids;
