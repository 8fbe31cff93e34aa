-- Argo 0.3 -> 0.4: nothing Argo runs resolves a name through the
-- caller's search_path (every function but argo_load is pinned to
-- pg_catalog, pg_temp; the view names everything by schema), and a
-- collection's tables are the ones its owner owns; argo_check(collection)
-- says what is wrong with a collection's rows.  No table changes.
\echo Use "ALTER EXTENSION argo UPDATE TO '0.4'" to load this file. \quit

ALTER FUNCTION @extschema@.argo_query(text, jsonb[]) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.argo_explain(text, jsonb[]) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.argo_create_collection(text, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.argo_drop_collection(text, boolean) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.argo_load_file(text, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.argo_count(text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.argo_keys(text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.argo_analyze(text) SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION @extschema@.argo_check(collection text)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'argo_check'
LANGUAGE C STABLE STRICT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_check(text) IS
'What is wrong with a collection''s rows (orphans, unknown keys, two rows for one key, broken markers); nothing when healthy';

CREATE OR REPLACE VIEW argo_collections AS
SELECT c.name,
       CASE WHEN d.oid IS NULL THEN 'argo3' ELSE 'argo1' END AS format,
       CASE WHEN (SELECT pg_catalog.bool_and(pg_catalog.has_table_privilege(t.oid, 'SELECT'))
                    FROM pg_catalog.pg_class t
                   WHERE t.relnamespace OPERATOR(pg_catalog.=) c.nsp
                     AND t.relowner OPERATOR(pg_catalog.=) c.owner
                     AND t.relkind OPERATOR(pg_catalog.=) 'r'
                     AND t.relname OPERATOR(pg_catalog.=) ANY (c.tables))
            THEN @extschema@.argo_count(c.name) END AS objects,
       (SELECT pg_catalog.sum(pg_catalog.pg_total_relation_size(t.oid))
          FROM pg_catalog.pg_class t
         WHERE t.relnamespace OPERATOR(pg_catalog.=) c.nsp
           AND t.relowner OPERATOR(pg_catalog.=) c.owner
           AND t.relkind OPERATOR(pg_catalog.=) 'r'
           AND t.relname OPERATOR(pg_catalog.=) ANY (c.tables))::bigint
         AS size_bytes
  FROM (SELECT n.name, s.relnamespace AS nsp, s.relowner AS owner,
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
        AND d.relkind OPERATOR(pg_catalog.=) 'r'
        AND d.relname OPERATOR(pg_catalog.=) (c.name OPERATOR(pg_catalog.||) '_data')::pg_catalog.name;

