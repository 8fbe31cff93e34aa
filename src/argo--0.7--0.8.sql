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

-- argo_collections shows each collection's expiry (argo_expire), as it
-- shows its schema: {"path": …, "after": …}, or NULL.
CREATE OR REPLACE VIEW @extschema@.argo_collections AS
SELECT c.name,
       CASE WHEN d.oid IS NULL THEN 'argo3' ELSE 'argo1' END AS format,
       CASE WHEN (SELECT pg_catalog.bool_and(pg_catalog.has_table_privilege(t.oid, 'SELECT'))
                    FROM pg_catalog.pg_class t
                   WHERE t.relnamespace OPERATOR(pg_catalog.=) c.nsp
                     AND t.relowner OPERATOR(pg_catalog.=) c.owner
                     AND t.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog."char"[])
                     AND t.relname OPERATOR(pg_catalog.=) ANY (c.tables))
            THEN @extschema@.argo_count(c.name) END AS objects,
       CASE WHEN o.relkind OPERATOR(pg_catalog.=) 'p'
            THEN @extschema@.argo_collection_size(c.name)
            ELSE (SELECT pg_catalog.sum(pg_catalog.pg_total_relation_size(t.oid))
                    FROM pg_catalog.pg_class t
                   WHERE t.relnamespace OPERATOR(pg_catalog.=) c.nsp
                     AND t.relowner OPERATOR(pg_catalog.=) c.owner
                     AND t.relkind OPERATOR(pg_catalog.=) 'r'
                     AND t.relname OPERATOR(pg_catalog.=) ANY (c.tables OPERATOR(pg_catalog.||) (c.name OPERATOR(pg_catalog.||) '_doc')::pg_catalog.name))::bigint
       END AS size_bytes,
       (SELECT CASE WHEN pg_catalog.obj_description(k.oid, 'pg_class') OPERATOR(pg_catalog.~~) 'argo schema: %'
                    THEN pg_catalog.substr(pg_catalog.obj_description(k.oid, 'pg_class'), 14)::pg_catalog.jsonb END
          FROM pg_catalog.pg_class k
         WHERE k.relnamespace OPERATOR(pg_catalog.=) c.nsp
           AND k.relname OPERATOR(pg_catalog.=) (c.name OPERATOR(pg_catalog.||) '_keys')::pg_catalog.name) AS schema,
       CASE WHEN pg_catalog.obj_description(c.seq, 'pg_class') OPERATOR(pg_catalog.~~) 'argo expire: %'
            THEN pg_catalog.substr(pg_catalog.obj_description(c.seq, 'pg_class'), 14)::pg_catalog.jsonb END AS expiry
  FROM (SELECT n.name, s.oid AS seq, s.relnamespace AS nsp, s.relowner AS owner,
               ARRAY[n.name OPERATOR(pg_catalog.||) '_str', n.name OPERATOR(pg_catalog.||) '_num',
                     n.name OPERATOR(pg_catalog.||) '_bool', n.name OPERATOR(pg_catalog.||) '_data',
                     n.name OPERATOR(pg_catalog.||) '_keys', n.name OPERATOR(pg_catalog.||) '_obj']::pg_catalog.name[] AS tables
          FROM pg_catalog.pg_class s,
               LATERAL (SELECT pg_catalog.left(s.relname::pg_catalog.text, -4) AS name) n
         WHERE s.relnamespace OPERATOR(pg_catalog.=) 'argo_data'::pg_catalog.regnamespace
           AND s.relkind OPERATOR(pg_catalog.=) 'S'
           AND s.relname OPERATOR(pg_catalog.~~) '%\_seq') c
  LEFT JOIN pg_catalog.pg_class d
         ON d.relnamespace OPERATOR(pg_catalog.=) c.nsp
        AND d.relowner OPERATOR(pg_catalog.=) c.owner
        AND d.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog."char"[])
        AND d.relname OPERATOR(pg_catalog.=) (c.name OPERATOR(pg_catalog.||) '_data')::pg_catalog.name
  LEFT JOIN pg_catalog.pg_class o
         ON o.relnamespace OPERATOR(pg_catalog.=) c.nsp
        AND o.relowner OPERATOR(pg_catalog.=) c.owner
        AND o.relname OPERATOR(pg_catalog.=) (c.name OPERATOR(pg_catalog.||) '_obj')::pg_catalog.name;

-- A document as Argo keeps it, compressed where that saves a quarter: a
-- restore writes kept documents as given, and argo_restored packs them
-- again through this (src/fn/docpack.c).
CREATE FUNCTION @extschema@.argo_compress_doc(doc jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_compress_doc'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION @extschema@.argo_compress_doc(jsonb) IS
'The document as Argo keeps it in c_doc: compressed where that saves a quarter (what a restore''s kept documents are rewritten through)';
