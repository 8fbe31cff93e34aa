-- Argo 0.1 -> 0.2: storage v2.  Every collection gets a key dictionary
-- (<c>_keys, ids from <c>_kseq) and an object directory (<c>_obj); its
-- value tables trade the key text for the key id and lose the marker row
-- of an empty root object, whose directory row now says it exists.
-- Tables are altered in place, so that grants, policies and triggers on
-- them survive; the new tables get the owner and grants of the value
-- tables.
\echo Use "ALTER EXTENSION argo UPDATE TO '0.2'" to load this file. \quit

DO $upgrade$
DECLARE
  c record;
  t text;
  idx text;
  g record;
  tables text[];
  rows_sql text;
  owner name;
  keys text;
  obj text;
  kseq text;
BEGIN
  FOR c IN
    SELECT left(s.relname, -4) AS name
      FROM pg_class s
     WHERE s.relnamespace = 'argo_data'::regnamespace
       AND s.relkind = 'S' AND s.relname LIKE '%\_seq'
     ORDER BY 1
  LOOP
    IF to_regclass(format('argo_data.%I', c.name || '_data')) IS NOT NULL THEN
      tables := ARRAY[c.name || '_data'];
    ELSE
      tables := ARRAY[c.name || '_str', c.name || '_num', c.name || '_bool'];
    END IF;
    keys := format('argo_data.%I', c.name || '_keys');
    obj := format('argo_data.%I', c.name || '_obj');
    kseq := format('argo_data.%I', c.name || '_kseq');
    SELECT pg_get_userbyid(relowner) INTO owner
      FROM pg_class WHERE oid = format('argo_data.%I', tables[1])::regclass;

    EXECUTE format('CREATE SEQUENCE %s AS integer', kseq);
    -- the statistics columns as catalog.c makes them (ARGO_KEY_STATS_COLUMNS)
    EXECUTE format('CREATE TABLE %s (keyid integer PRIMARY KEY DEFAULT nextval(%L::regclass), keystr text COLLATE "C" NOT NULL UNIQUE, '
                   'rows_str bigint, distinct_str bigint, rows_num bigint, distinct_num bigint, '
                   'rows_bool bigint, distinct_bool bigint, rows_null bigint, analyzed_at timestamptz)',
                   keys, kseq);
    EXECUTE format('ALTER SEQUENCE %s OWNED BY %s.keyid', kseq, keys);
    EXECUTE format('CREATE TABLE %s (objid bigint PRIMARY KEY)', obj);

    SELECT string_agg(format('SELECT objid, keystr FROM argo_data.%I', x), ' UNION ALL ')
      INTO rows_sql FROM unnest(tables) x;
    EXECUTE format('INSERT INTO %s (keystr) SELECT DISTINCT keystr FROM (%s) r WHERE keystr IS NOT NULL ORDER BY 1',
                   keys, rows_sql);
    EXECUTE format('INSERT INTO %s (objid) SELECT DISTINCT objid FROM (%s) r ORDER BY 1',
                   obj, rows_sql);

    FOREACH t IN ARRAY tables LOOP
      FOR idx IN SELECT indexrelid::regclass::text FROM pg_index
                  WHERE indrelid = format('argo_data.%I', t)::regclass
      LOOP
        EXECUTE 'DROP INDEX ' || idx;
      END LOOP;
      -- the root marker of {} (key NULL): the directory row replaces it
      EXECUTE format('DELETE FROM argo_data.%I WHERE keystr IS NULL', t);
      EXECUTE format('ALTER TABLE argo_data.%I ADD COLUMN keyid integer', t);
      EXECUTE format('UPDATE argo_data.%I v SET keyid = k.keyid FROM %s k WHERE k.keystr = v.keystr',
                     t, keys);
      EXECUTE format('ALTER TABLE argo_data.%I DROP COLUMN keystr, ALTER COLUMN keyid SET NOT NULL', t);
    END LOOP;

    -- the indexes 0.2 creates (catalog.c, index_ddl)
    IF array_length(tables, 1) = 1 THEN
      EXECUTE format('CREATE INDEX ON argo_data.%I (keyid, left(valstr, 256))', tables[1]);
      EXECUTE format('CREATE INDEX ON argo_data.%I (keyid, valnum)', tables[1]);
      EXECUTE format('CREATE INDEX ON argo_data.%I (objid, keyid)', tables[1]);
    ELSE
      EXECUTE format('CREATE INDEX ON argo_data.%I (keyid, left(valstr, 256))', tables[1]);
      EXECUTE format('CREATE INDEX ON argo_data.%I (keyid, valnum)', tables[2]);
      EXECUTE format('CREATE INDEX ON argo_data.%I (keyid, valbool)', tables[3]);
      FOREACH t IN ARRAY tables LOOP
        EXECUTE format('CREATE INDEX ON argo_data.%I (objid)', t);
      END LOOP;
    END IF;

    -- who could use the value tables can use the new ones alike
    EXECUTE format('ALTER TABLE %s OWNER TO %I', keys, owner);
    EXECUTE format('ALTER TABLE %s OWNER TO %I', obj, owner);
    FOR g IN
      SELECT a.grantee, a.privilege_type
        FROM pg_class r, aclexplode(r.relacl) a
       WHERE r.oid = format('argo_data.%I', tables[1])::regclass
         AND a.grantee <> r.relowner
    LOOP
      EXECUTE format('GRANT %s ON %s, %s TO %s', g.privilege_type, keys, obj,
                     CASE WHEN g.grantee = 0 THEN 'PUBLIC'
                          ELSE quote_ident(pg_get_userbyid(g.grantee)) END);
      IF g.privilege_type = 'INSERT' THEN
        EXECUTE format('GRANT USAGE ON SEQUENCE %s TO %s', kseq,
                       CASE WHEN g.grantee = 0 THEN 'PUBLIC'
                            ELSE quote_ident(pg_get_userbyid(g.grantee)) END);
      END IF;
    END LOOP;
  END LOOP;
END
$upgrade$;

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

-- the listing counts and sizes the new tables too
CREATE OR REPLACE VIEW argo_collections AS
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
