-- Argo 0.5 -> 0.6: an object's directory row says where its rows lie.
-- Each directory gets the nullable column rowmap, each value table the
-- trigger that forgets the maps of objects written through SQL, and
-- argo_repair then writes every object's map (one pass over the objid
-- indexes; collections of other roles' are reached as the superuser
-- running the update).
\echo Use "ALTER EXTENSION argo UPDATE TO '0.6'" to load this file. \quit

CREATE FUNCTION @extschema@.argo_forget_rowmaps()
RETURNS trigger
AS 'MODULE_PATHNAME', 'argo_forget_rowmaps'
LANGUAGE C VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.argo_forget_rowmaps() IS
'Trigger on a collection''s value tables: rows written through SQL make their objects'' row maps forgotten';

CREATE FUNCTION @extschema@.argo_repair(collection text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_repair'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION @extschema@.argo_repair(text) IS
'Write again every object''s map of where its rows lie (after VACUUM FULL, CLUSTER or a restore); returns how many were written';

CREATE FUNCTION @extschema@.argo_create_distributed_collection(name text, servers text[], format text DEFAULT 'argo3')
RETURNS void
AS 'MODULE_PATHNAME', 'argo_create_distributed_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION @extschema@.argo_create_distributed_collection(text, text[], text) IS
'Create a collection whose objects are spread by id over postgres_fdw servers, each holding whole objects';

-- The change feed (README, "Change feed"): a collection's owner switches
-- it on; a logical replication slot made with plugin 'argo' then gives
-- one event per changed object, which argo_changes reads after a token.
CREATE FUNCTION @extschema@.argo_feed(collection text, enabled boolean DEFAULT true, full_document boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_feed'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.argo_feed(text, boolean, boolean) IS
'Switch a collection''s change feed on or off (its owner only); with full_document, update events carry the whole object';

CREATE FUNCTION @extschema@.argo_changes(slot name, collection text DEFAULT NULL, after text DEFAULT NULL, max integer DEFAULT 1000)
RETURNS TABLE (token text, event jsonb)
AS 'MODULE_PATHNAME', 'argo_changes'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.argo_changes(name, text, text, integer) IS
'The change events a replication slot (plugin argo) holds for a collection after a token, in commit order';

CREATE FUNCTION @extschema@.argo_changes_ack(slot name, token text)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_changes_ack'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.argo_changes_ack(name, text) IS
'Let a replication slot forget the transactions committed before a token''s';

DO $$
DECLARE
  c record;
  t pg_catalog.text;
BEGIN
  FOR c IN SELECT name, format FROM @extschema@.argo_collections LOOP
    EXECUTE pg_catalog.format('ALTER TABLE argo_data.%I ADD COLUMN IF NOT EXISTS rowmap pg_catalog.bytea',
                              c.name OPERATOR(pg_catalog.||) '_obj');
    FOREACH t IN ARRAY CASE c.format WHEN 'argo1' THEN ARRAY['_data'] ELSE ARRAY['_str', '_num', '_bool'] END LOOP
      t := c.name OPERATOR(pg_catalog.||) t;
      EXECUTE pg_catalog.format('CREATE TRIGGER argo_rowmaps_insert AFTER INSERT ON argo_data.%I REFERENCING NEW TABLE AS argo_new FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.argo_forget_rowmaps(%L)', t, c.name);
      EXECUTE pg_catalog.format('CREATE TRIGGER argo_rowmaps_update AFTER UPDATE ON argo_data.%I REFERENCING OLD TABLE AS argo_old NEW TABLE AS argo_new FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.argo_forget_rowmaps(%L)', t, c.name);
      EXECUTE pg_catalog.format('CREATE TRIGGER argo_rowmaps_delete AFTER DELETE ON argo_data.%I REFERENCING OLD TABLE AS argo_old FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.argo_forget_rowmaps(%L)', t, c.name);
      EXECUTE pg_catalog.format('CREATE TRIGGER argo_rowmaps_truncate AFTER TRUNCATE ON argo_data.%I FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.argo_forget_rowmaps(%L)', t, c.name);
    END LOOP;
    PERFORM @extschema@.argo_repair(c.name);
  END LOOP;
END $$;
