-- Argo: a JSON document store on PostgreSQL's relational engine.
\echo Use "CREATE EXTENSION argo" to load this file. \quit

-- The functions run with jit = off: Argo's statements are index-driven
-- and short, and the planner's estimates over vertical tables can be far
-- too high, which made JIT compile for longer than the query ran.

-- Every collection's tables and sequence live here.  Creating a collection
-- needs CREATE on this schema; reading or writing one needs privileges on
-- its tables (see README, "Access control").
CREATE SCHEMA argo_data;
GRANT USAGE ON SCHEMA argo_data TO PUBLIC;

CREATE FUNCTION argo_query(query text, VARIADIC params jsonb[] DEFAULT '{}')
RETURNS SETOF jsonb
AS 'MODULE_PATHNAME', 'argo_query'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_query(text, jsonb[]) IS
'Run one Argo/SQL statement; $1..$n in it stand for the given JSON values';

CREATE FUNCTION argo_explain(query text, VARIADIC params jsonb[] DEFAULT '{}')
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'argo_explain'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_explain(text, jsonb[]) IS
'The SQL an Argo/SQL statement runs, its parameters and its plan';

CREATE FUNCTION argo_create_collection(name text, format text DEFAULT 'argo3')
RETURNS void
AS 'MODULE_PATHNAME', 'argo_create_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

CREATE FUNCTION argo_drop_collection(name text, if_exists boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_drop_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

CREATE FUNCTION argo_load(collection text, query text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_load(text, text) IS
'Insert every document (jsonb, json or text) a query returns; returns the count';

CREATE FUNCTION argo_load_file(collection text, path text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load_file'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_load_file(text, text) IS
'Insert the objects of a JSON-lines file on the server; returns the count';

CREATE FUNCTION argo_count(collection text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_count'
LANGUAGE C STABLE STRICT SECURITY INVOKER;

CREATE FUNCTION argo_object(collection text, id bigint)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_object'
LANGUAGE C STABLE STRICT PARALLEL SAFE SECURITY INVOKER
COST 100;

COMMENT ON FUNCTION argo_object(text, bigint) IS
'The object with this id, or NULL; read-only and parallel safe, so that large reads can rebuild objects in parallel workers';

CREATE FUNCTION argo_keys(collection text)
RETURNS TABLE (path text, types text[], objects bigint)
AS 'MODULE_PATHNAME', 'argo_keys'
LANGUAGE C STABLE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_keys(text) IS
'A collection''s schema: each path (array positions as [*]), the JSON types there, in how many objects';

CREATE FUNCTION argo_analyze(collection text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_analyze_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_analyze(text) IS
'Count rows and distinct values per key and type into the key dictionary; returns the keys counted';

-- A collection exists when its sequence does; Argo/1 has a _data table.
-- objects is NULL for a collection the caller may not read.
CREATE VIEW argo_collections AS
SELECT c.name,
       CASE WHEN d.oid IS NULL THEN 'argo3' ELSE 'argo1' END AS format,
       CASE WHEN (SELECT bool_and(has_table_privilege(t.oid, 'SELECT'))
                    FROM pg_class t
                   WHERE t.relnamespace = c.nsp AND t.relkind = 'r'
                     AND t.relname IN (c.name || '_str', c.name || '_num',
                                       c.name || '_bool', c.name || '_data',
                                       c.name || '_keys', c.name || '_obj'))
            THEN argo_count(c.name) END AS objects,
       (SELECT sum(pg_total_relation_size(t.oid))
          FROM pg_class t
         WHERE t.relnamespace = c.nsp AND t.relkind = 'r'
           AND t.relname IN (c.name || '_str', c.name || '_num',
                             c.name || '_bool', c.name || '_data',
                             c.name || '_keys', c.name || '_obj'))::bigint
         AS size_bytes
  FROM (SELECT left(s.relname, -4) AS name, s.relnamespace AS nsp
          FROM pg_class s
         WHERE s.relnamespace = 'argo_data'::regnamespace
           AND s.relkind = 'S' AND s.relname LIKE '%\_seq') c
  LEFT JOIN pg_class d
         ON d.relnamespace = c.nsp AND d.relname = c.name || '_data';

-- Anyone may list collections (pg_class shows them anyway); the objects
-- column is computed with the caller's own privileges.
GRANT SELECT ON argo_collections TO PUBLIC;
