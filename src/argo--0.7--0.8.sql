-- Argo 0.7 -> 0.8.
\echo Use "ALTER EXTENSION argo UPDATE TO '0.8'" to load this file. \quit

-- argo_expire_now with a bound: the background worker deletes a batch a
-- transaction, so a busy day's thousands never wait in one transaction.
CREATE FUNCTION @extschema@.argo_expire_now(collection text, max_objects bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_expire_now'
LANGUAGE C VOLATILE STRICT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.argo_expire_now(text, bigint) IS
'Delete at most max_objects of the collection''s expired objects now, through Argo''s DELETE; how many (the background worker''s batch)';

-- Argo/3's numeric index becomes (keyid, valnum) INCLUDE (objid): doctid
-- is a hint set again in place (src/store/dochint.c), and an index that
-- held it no longer matched its heap once a hint changed (amcheck's
-- heapallindexed reported it), nor after a restore. Built beside the old
-- one, which is then dropped; until then the hints are left alone.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT i.indrelid::pg_catalog.regclass AS tab, i.indexrelid::pg_catalog.regclass AS idx
      FROM pg_catalog.pg_index i
      JOIN pg_catalog.pg_class v ON v.oid OPERATOR(pg_catalog.=) i.indrelid
      JOIN pg_catalog.pg_class s
        ON s.relnamespace OPERATOR(pg_catalog.=) v.relnamespace
       AND s.relowner OPERATOR(pg_catalog.=) v.relowner
       AND s.relkind OPERATOR(pg_catalog.=) 'S'
       AND s.relname OPERATOR(pg_catalog.~~) '%\_seq'
       AND v.relname OPERATOR(pg_catalog.=) (pg_catalog.left(s.relname::pg_catalog.text, -4) OPERATOR(pg_catalog.||) '_num')::pg_catalog.name
     WHERE v.relnamespace OPERATOR(pg_catalog.=) 'argo_data'::pg_catalog.regnamespace
       AND v.relkind OPERATOR(pg_catalog.=) 'r'
       AND i.indnkeyatts OPERATOR(pg_catalog.=) 2 AND i.indnatts OPERATOR(pg_catalog.=) 4
       AND NOT i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
       AND i.indkey[3] OPERATOR(pg_catalog.=) (SELECT a.attnum FROM pg_catalog.pg_attribute a
             WHERE a.attrelid OPERATOR(pg_catalog.=) v.oid AND a.attname OPERATOR(pg_catalog.=) 'doctid')
  LOOP
    EXECUTE pg_catalog.format('CREATE INDEX ON %s (keyid, valnum) INCLUDE (objid) WITH (fillfactor = 70)', r.tab);
    EXECUTE pg_catalog.format('DROP INDEX %s', r.idx);
  END LOOP;
END $$;

-- Loads and exports that keep ids (mongoexport's and mongoimport's "_id"):
-- an export writes each object's id as "_id"; a load with_ids takes each
-- document's "_id" as its object's id (23505 if one is taken, nothing
-- loaded) and moves the id sequence past the largest.
CREATE FUNCTION @extschema@.argo_load(collection text, query text, with_ids boolean)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION @extschema@.argo_load(text, text, boolean) IS
'Load the documents a query returns, each document''s "_id" its object''s id where with_ids (23505 if an object has it; the id sequence moved past the largest); returns the count';

CREATE FUNCTION @extschema@.argo_load_file(collection text, path text, with_ids boolean)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load_file'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION @extschema@.argo_load_file(text, text, boolean) IS
'Load a JSON-lines (or JSON array) file on the server, each document''s "_id" its object''s id where with_ids (as argo_export_file writes them with_ids); returns the count';

CREATE FUNCTION @extschema@.argo_export_file(collection text, path text, with_ids boolean)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_export_file'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION @extschema@.argo_export_file(text, text, boolean) IS
'Write every object of a collection to a JSON-lines file on the server, with its id as "_id" where with_ids (argo_load_file(c, path, true) loads it back with its ids); returns the count';
