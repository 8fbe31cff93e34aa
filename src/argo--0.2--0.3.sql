-- Argo 0.2 -> 0.3: argo_object(collection, id), one object by its id,
-- STABLE and PARALLEL SAFE: whole-collection reads call it per directory
-- row so that PostgreSQL can rebuild objects in parallel workers.  No
-- table changes.
\echo Use "ALTER EXTENSION argo UPDATE TO '0.3'" to load this file. \quit

CREATE FUNCTION argo_object(collection text, id bigint)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_object'
LANGUAGE C STABLE STRICT PARALLEL SAFE SECURITY INVOKER
COST 100;

COMMENT ON FUNCTION argo_object(text, bigint) IS
'The object with this id, or NULL; read-only and parallel safe, so that large reads can rebuild objects in parallel workers';
