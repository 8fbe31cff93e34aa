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
