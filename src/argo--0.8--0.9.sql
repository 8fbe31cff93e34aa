-- Argo 0.8 -> 0.9.
\echo Use "ALTER EXTENSION argo UPDATE TO '0.9'" to load this file. \quit

-- An ISO 8601 timestamp with its zone is the same instant whatever the
-- session's settings (a string without a zone gives NULL): immutable,
-- so that an expiry path's strings can be indexed by it.
ALTER FUNCTION @extschema@.argo_expiry_time(text) IMMUTABLE;

-- Each collection that expires gets the index argo_expire now makes
-- (argo_expiry_time of its path's strings): argo_expire set again.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT pg_catalog.substr(s.relname, 1, pg_catalog.length(s.relname) OPERATOR(pg_catalog.-) 4) AS coll,
           pg_catalog.substr(pg_catalog.obj_description(s.oid, 'pg_class'), 14)::pg_catalog.jsonb AS e
      FROM pg_catalog.pg_class s
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) s.relnamespace
     WHERE n.nspname OPERATOR(pg_catalog.=) 'argo_data' AND s.relkind OPERATOR(pg_catalog.=) 'S'
       AND s.relname OPERATOR(pg_catalog.~~) '%\_seq'
       AND pg_catalog.obj_description(s.oid, 'pg_class') OPERATOR(pg_catalog.~~) 'argo expire: %'
  LOOP
    PERFORM @extschema@.argo_expire(r.coll, r.e OPERATOR(pg_catalog.->>) 'path',
                                    (r.e OPERATOR(pg_catalog.->>) 'after')::pg_catalog.interval);
  END LOOP;
END
$$;
