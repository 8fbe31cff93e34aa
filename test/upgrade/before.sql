-- Made with the 0.1 release: collections of both formats, with documents
-- that exercise every corner of the storage, and what they read back as.
\set ON_ERROR_STOP 1
CREATE EXTENSION argo;
SELECT extversion AS installed FROM pg_extension WHERE extname = 'argo';
-- what after.sql's checks of one release's changes need to know
CREATE TABLE upgrade_from AS
  SELECT pg_catalog.string_to_array(extversion, '.')::int[] AS version FROM pg_extension WHERE extname = 'argo';
CREATE TABLE odd_docs (doc jsonb);
INSERT INTO odd_docs VALUES
  ('{}'), ('{"a": {}}'), ('{"a": []}'), ('{"": 1, "b": null}'),
  ('{"a.b": {"c[0]": "x", "{}": [[], [[]], {}]}, "k\\": "é ☃ \u00e9x\"q\n"}'),
  ('{"n": [0.1, -0, 1e300, -2.5e-300, 9007199254740991], "t": true, "f": false}'),
  ('{"deep": {"x": {"y": {"z": [1, {"w": [true, null, "s"]}]}}}}'),
  (('{"long": "' || repeat('long text ', 12000) || '"}')::jsonb),
  ('{"num": 1, "str": "one", "arr": ["a", "b", 3]}'),
  ('{"num": 2, "str": "two", "arr": ["c"], "extra": {"k": "v"}}');
SELECT count(*) FROM odd_docs d,
  LATERAL (SELECT argo_query('INSERT INTO up3 OBJECT $1', d.doc)) i;
SELECT argo_create_collection('up1', 'argo1');
SELECT count(*) FROM odd_docs d,
  LATERAL (SELECT argo_query('INSERT INTO up1 OBJECT $1', d.doc)) i;
-- an empty one
SELECT argo_create_collection('upempty', 'argo1');
-- where the release has expiry: one path that ages up3's objects
DO $$
BEGIN
  IF to_regprocedure('argo_expire(text,text,interval)') IS NOT NULL THEN
    EXECUTE $e$SELECT argo_expire('up3', 'seen', '1 day')$e$;
  END IF;
END $$;
-- a collection someone was given read access to
CREATE ROLE argo_up_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA argo_data TO argo_up_reader;
-- and a role that may add keys to up3's dictionary, granted by hand
-- (where the release has one per collection)
CREATE ROLE argo_up_writer;
DO $$
BEGIN
  IF to_regclass('argo_data.up3_keys') IS NOT NULL THEN
    GRANT SELECT, INSERT ON argo_data.up3_keys TO argo_up_writer;
  END IF;
END $$;
CREATE TABLE before_upgrade AS
  SELECT 'up3' AS coll, x AS doc FROM argo_query('SELECT * FROM up3') x
  UNION ALL SELECT 'up1', x FROM argo_query('SELECT * FROM up1') x;
SELECT coll, count(*) FROM before_upgrade GROUP BY coll ORDER BY coll;
