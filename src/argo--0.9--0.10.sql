-- Argo 0.9 -> 0.10.
\echo Use "ALTER EXTENSION argo UPDATE TO '0.10'" to load this file. \quit

-- Each collection's key dictionary says which keys every object holds a
-- scalar at (set by argo_analyze and by a load into an empty collection,
-- cleared by the first write that leaves an object without one): the
-- column, its partial index, and the right to clear it for every role
-- that may add keys (a writer, as argo_grant makes one).
DO $$
DECLARE
  r record;
  g record;
BEGIN
  FOR r IN
    SELECT k.oid, k.oid::pg_catalog.regclass AS t
      FROM pg_catalog.pg_class k
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) k.relnamespace
     WHERE n.nspname OPERATOR(pg_catalog.=) 'argo_data' AND k.relkind OPERATOR(pg_catalog.=) 'r'
       AND k.relname OPERATOR(pg_catalog.~~) '%\_keys'
       AND EXISTS (SELECT FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid OPERATOR(pg_catalog.=) k.oid AND a.attname OPERATOR(pg_catalog.=) 'keystr'
                      AND NOT a.attisdropped)
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
                        WHERE a.attrelid OPERATOR(pg_catalog.=) k.oid AND a.attname OPERATOR(pg_catalog.=) 'complete'
                          AND NOT a.attisdropped)
  LOOP
    EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN complete boolean', r.t);
    EXECUTE pg_catalog.format('CREATE INDEX ON %s (keyid) WHERE complete', r.t);
    FOR g IN
      SELECT DISTINCT a.grantee
        FROM pg_catalog.pg_class k2, pg_catalog.aclexplode(k2.relacl) a
       WHERE k2.oid OPERATOR(pg_catalog.=) r.oid AND a.privilege_type OPERATOR(pg_catalog.=) 'INSERT'
         AND a.grantee OPERATOR(pg_catalog.<>) k2.relowner
    LOOP
      EXECUTE pg_catalog.format('GRANT UPDATE (complete) ON %s TO %s', r.t,
        CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
             ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(g.grantee)) END);
    END LOOP;
  END LOOP;
END
$$;
