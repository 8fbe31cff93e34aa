-- Argo 0.4 -> 0.5: every number within double's range is stored.  Where
-- the double's shortest text is not the number given, the number's exact
-- text goes into a new nullable column valexact beside valnum (Argo/3's
-- number table, Argo/1's one table).  Adding a nullable column rewrites
-- nothing; every existing number was exact, so every row keeps NULL.
-- Every function gets a description (\df+, \dd).
\echo Use "ALTER EXTENSION argo UPDATE TO '0.5'" to load this file. \quit

DO $$
DECLARE
  t pg_catalog.text;
BEGIN
  FOR t IN
    SELECT c.name OPERATOR(pg_catalog.||) CASE c.format WHEN 'argo1' THEN '_data' ELSE '_num' END
      FROM @extschema@.argo_collections c
  LOOP
    EXECUTE pg_catalog.format('ALTER TABLE argo_data.%I ADD COLUMN IF NOT EXISTS valexact pg_catalog.text', t);
  END LOOP;
END $$;

COMMENT ON FUNCTION @extschema@.argo_create_collection(text, text) IS
'Create an empty collection, format argo3 (default) or argo1';

COMMENT ON FUNCTION @extschema@.argo_drop_collection(text, boolean) IS
'Drop a collection and its tables (its owner only); with if_exists, no error when it is missing';

COMMENT ON FUNCTION @extschema@.argo_count(text) IS
'The number of objects in a collection';
