-- After installing this version: update, and every object must be as it was.
\set ON_ERROR_STOP 1
ALTER EXTENSION argo UPDATE;
SELECT extversion AS updated_to FROM pg_extension WHERE extname = 'argo';
-- 0.6: the update wrote every object's map of where its rows lie
DO $$
BEGIN
  IF EXISTS (SELECT FROM argo_data.up3_obj WHERE rowmap IS NULL) OR
     EXISTS (SELECT FROM argo_data.up1_obj WHERE rowmap IS NULL) THEN
    RAISE EXCEPTION 'an upgraded collection has objects without a map';
  END IF;
END $$;
-- 0.9: a collection that expires has its path's expiry index
DO $$
BEGIN
  IF (SELECT expiry FROM argo_collections WHERE name = 'up3') IS NOT NULL AND NOT EXISTS (
      SELECT FROM pg_index WHERE indrelid = 'argo_data.up3_str'::regclass
         AND pg_get_expr(indexprs, indrelid) LIKE '%argo_expiry_time(valstr)%') THEN
    RAISE EXCEPTION 'an upgraded collection that expires has no expiry index';
  END IF;
END $$;
CREATE TABLE after_upgrade AS
  SELECT 'up3' AS coll, x AS doc FROM argo_query('SELECT * FROM up3') x
  UNION ALL SELECT 'up1', x FROM argo_query('SELECT * FROM up1') x;
DO $$
DECLARE
  missing bigint;
  extra bigint;
BEGIN
  SELECT count(*) INTO missing FROM (SELECT * FROM before_upgrade EXCEPT ALL SELECT * FROM after_upgrade) m;
  SELECT count(*) INTO extra FROM (SELECT * FROM after_upgrade EXCEPT ALL SELECT * FROM before_upgrade) e;
  IF missing > 0 OR extra > 0 OR (SELECT count(*) FROM after_upgrade) <> 20 THEN
    RAISE EXCEPTION 'upgrade changed objects: % missing, % extra', missing, extra;
  END IF;
  -- the collections work as new ones do
  PERFORM argo_query('INSERT INTO up3 OBJECT {"num": 3, "str": "three", "arr": ["a"]}');
  PERFORM argo_query('UPDATE up1 SET str = ''TWO'' WHERE num = 2');
  IF (SELECT string_agg(x->>'num', ',' ORDER BY x->>'num') FROM argo_query('SELECT num FROM up3 WHERE ''a'' = ANY arr') x) <> '1,3' THEN
    RAISE EXCEPTION 'ANY over an upgraded Argo/3 collection is wrong';
  END IF;
  IF (SELECT x->>'str' FROM argo_query('SELECT str FROM up1 WHERE num = 2') x) <> 'TWO' THEN
    RAISE EXCEPTION 'UPDATE of an upgraded Argo/1 collection is wrong';
  END IF;
  IF (SELECT argo_count('up3')) <> 11 OR (SELECT argo_count('up1')) <> 10 THEN
    RAISE EXCEPTION 'object counts after the upgrade are wrong';
  END IF;
  IF (SELECT keys FROM argo_analyze('up3')) = 0 OR (SELECT keys FROM argo_analyze('up1')) = 0 THEN
    RAISE EXCEPTION 'argo_analyze found no keys in an upgraded collection';
  END IF;
  IF argo_count('upempty') <> 0 THEN
    RAISE EXCEPTION 'an empty collection is not empty after the upgrade';
  END IF;
  PERFORM argo_query('INSERT INTO upempty OBJECT {"first": [1, {}]}');
  IF (SELECT x FROM argo_query('SELECT * FROM upempty') x) <> '{"first": [1, {}]}'::jsonb THEN
    RAISE EXCEPTION 'an upgraded empty collection does not store objects';
  END IF;
  PERFORM argo_query('DELETE FROM up3 WHERE EXISTS long');
  IF (SELECT argo_count('up3')) <> 10 THEN
    RAISE EXCEPTION 'DELETE from an upgraded collection is wrong';
  END IF;
END $$;
-- the reader keeps its access (the new tables got the value tables' grants)
SET ROLE argo_up_reader;
DO $$
BEGIN
  IF (SELECT count(*) FROM argo_query('SELECT * FROM up1')) <> 10 THEN
    RAISE EXCEPTION 'the reader does not see every object';
  END IF;
END $$;
RESET ROLE;
-- 0.3's argo_object reads upgraded collections as argo_query does
DO $$
BEGIN
  IF (SELECT array_agg(argo_object('up1', objid) ORDER BY objid) FROM argo_data.up1_obj) IS DISTINCT FROM
     (SELECT array_agg(x) FROM argo_query('SELECT * FROM up1') x) THEN
    RAISE EXCEPTION 'argo_object differs from argo_query on an upgraded collection';
  END IF;
END $$;
-- 0.5: numbers whose double's text differs keep their exact text in
-- upgraded collections too, and argo_check finds them all healthy
DO $$
BEGIN
  PERFORM argo_query('INSERT INTO up3 OBJECT {"exact": [123456789012345678901234567890, -65.613616999999977]}');
  PERFORM argo_query('INSERT INTO up1 OBJECT {"exact": [123456789012345678901234567890, -65.613616999999977]}');
  IF (SELECT array_agg(x::text) FROM argo_query('SELECT exact FROM up3 WHERE EXISTS exact') x) IS DISTINCT FROM
     ARRAY['{"exact": [123456789012345678901234567890, -65.613616999999977]}'] OR
     (SELECT array_agg(x::text) FROM argo_query('SELECT exact FROM up1 WHERE EXISTS exact') x) IS DISTINCT FROM
     ARRAY['{"exact": [123456789012345678901234567890, -65.613616999999977]}'] THEN
    RAISE EXCEPTION 'an upgraded collection does not keep a number''s exact text';
  END IF;
  IF EXISTS (SELECT FROM argo_check('up3')) OR EXISTS (SELECT FROM argo_check('up1')) THEN
    RAISE EXCEPTION 'argo_check finds an upgraded collection damaged';
  END IF;
END $$;
-- 0.6: the maps are right (argo_check compares them with the objid
-- indexes); rows written through SQL make their object's map forgotten
DO $$
BEGIN
  DELETE FROM argo_data.up3_str WHERE objid = (SELECT min(objid) FROM argo_data.up3_str);
  IF NOT EXISTS (SELECT FROM argo_data.up3_obj WHERE rowmap IS NULL) THEN
    RAISE EXCEPTION 'a delete through SQL left its object''s map in an upgraded collection';
  END IF;
  IF EXISTS (SELECT FROM argo_check('up3')) OR EXISTS (SELECT FROM argo_check('up1')) THEN
    RAISE EXCEPTION 'argo_check finds an upgraded collection''s maps wrong';
  END IF;
END $$;
-- every function of the updated extension says what it does
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
             JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'argo'
             WHERE obj_description(p.oid, 'pg_proc') IS NULL) THEN
    RAISE EXCEPTION 'a function has no description after the update';
  END IF;
END $$;
-- 0.8: Argo/3's numeric index covers objid alone (0.7's held doctid, a
-- hint changed in place), and numbers are found through it as in a new
-- collection
DO $$
BEGIN
  IF (SELECT array_agg(pg_get_indexdef(indexrelid, 0, false) ORDER BY 1) FROM pg_index
       WHERE indrelid = 'argo_data.up3_num'::regclass AND indkey[0] <> (SELECT attnum FROM pg_attribute
         WHERE attrelid = 'argo_data.up3_num'::regclass AND attname = 'objid'))
     IS DISTINCT FROM ARRAY[pg_get_indexdef((SELECT indexrelid FROM pg_index WHERE indrelid = 'argo_data.up3_num'::regclass
                                             AND indnkeyatts = 2 AND indnatts = 3), 0, false)] THEN
    RAISE EXCEPTION 'an upgraded Argo/3 collection lacks the covering numeric index';
  END IF;
  IF (SELECT count(*) FROM argo_query('SELECT * FROM up3 WHERE num BETWEEN 1 AND 3')) <>
     (SELECT count(*) FROM argo_query('SELECT * FROM up3') x WHERE (x->>'num')::numeric BETWEEN 1 AND 3) THEN
    RAISE EXCEPTION 'a range over an upgraded collection''s covering index is wrong';
  END IF;
END $$;
-- 0.10: every dictionary has the complete column and its partial index,
-- a role that could add keys may clear it, and argo_analyze sets it
DO $$
BEGIN
  IF (SELECT count(*) FROM pg_attribute WHERE attname = 'complete' AND NOT attisdropped
        AND attrelid IN ('argo_data.up3_keys'::regclass, 'argo_data.up1_keys'::regclass,
                         'argo_data.upempty_keys'::regclass)) <> 3
     OR (SELECT count(*) FROM pg_index WHERE indrelid = 'argo_data.up3_keys'::regclass
           AND indpred IS NOT NULL) <> 1 THEN
    RAISE EXCEPTION 'an upgraded key dictionary lacks its complete column or its index';
  END IF;
  -- (a grant by hand made under 0.10 or later is its maker's to complete)
  IF (SELECT version FROM upgrade_from) < ARRAY[0, 10]
     AND has_table_privilege('argo_up_writer', 'argo_data.up3_keys', 'INSERT')
     AND NOT has_column_privilege('argo_up_writer', 'argo_data.up3_keys', 'complete', 'UPDATE') THEN
    RAISE EXCEPTION 'a role that may add keys may not clear a complete flag after the update';
  END IF;
  PERFORM argo_analyze('up3');
  IF (SELECT count(*) FROM argo_query('SELECT * FROM up3 ORDER BY num DESC LIMIT 3')) <> 3 THEN
    RAISE EXCEPTION 'ORDER BY … DESC LIMIT over an upgraded collection is wrong';
  END IF;
END $$;
-- 0.11: SUM exact (argo_exact) and aggregates over expressions (argo_compute)
-- on the objects an older release wrote, against jsonb's numeric over them
DO $$
BEGIN
  IF (SELECT (x->>'s')::numeric FROM argo_query('SELECT SUM(num) AS s FROM up3') x) IS DISTINCT FROM
       (SELECT sum((x->>'num')::numeric) FROM argo_query('SELECT num FROM up3') x WHERE jsonb_typeof(x->'num') = 'number')
     OR (SELECT (x->>'s')::numeric FROM argo_query('SELECT SUM(num * 2 + 1) AS s FROM up1') x) IS DISTINCT FROM
       (SELECT sum((x->>'num')::numeric * 2 + 1) FROM argo_query('SELECT num FROM up1') x WHERE jsonb_typeof(x->'num') = 'number') THEN
    RAISE EXCEPTION 'SUM over an upgraded collection is not exact';
  END IF;
END $$;
