-- Kept documents: a collection may keep each object's jsonb beside its
-- rows, in a table of its own (c_doc; argo_keep_documents), read for
-- whole objects instead of a rebuild.  What is kept must be exactly the
-- rebuild (numbers as Argo gives them back); writes from C keep it,
-- writes through SQL forget it, SQL cannot write it, argo_check
-- compares, argo_repair writes missing and wrong ones again.
SET client_min_messages = warning;
-- kept from the start by default (kd3), or filled later (kd1; kdplain never)
SELECT argo_create_collection('kd3', 'argo3');
SET argo.keep_documents = off;
SELECT argo_create_collection('kd1', 'argo1'), argo_create_collection('kdplain', 'argo3');
RESET argo.keep_documents;
SELECT argo_keep_documents('kd3') AS written;
CREATE TEMP TABLE src (doc jsonb);
INSERT INTO src VALUES
  ('{"a": 1.0, "b": [1e2, {"c": 0.10}, [], {}], "e": {}, "f": [], "g": "x", "h": 123456789012345678901234567890, "i": -65.613616999999977}'),
  ('{"k": true, "n": null, "`": {"a.b": "dotted"}}'), ('{}'),
  (('{"num": 5, "s": "long' || repeat('x', 3000) || '", "t": [false, 2.50, -0.0, 1E-7]}')::jsonb);
SELECT argo_load('kd3', 'SELECT doc FROM src'), argo_load('kd1', 'SELECT doc FROM src'),
       argo_load('kdplain', 'SELECT doc FROM src');
SELECT argo_keep_documents('kd1') AS written, argo_keep_documents('kd1') AS again;
-- the table of kept documents leaves room for an update's new version on
-- its page (HOT); a collection that keeps none has no such table
SELECT c.relname, c.reloptions FROM pg_class c
  WHERE c.relname IN ('kd3_doc', 'kd1_doc', 'kdplain_doc') AND c.relnamespace = 'argo_data'::regnamespace
  ORDER BY c.relname;
-- each kept document is the object as a read without them gives it back
SELECT o.objid, d.doc IS NOT NULL AS kept, d.doc::text = argo_object('kdplain', o.objid)::text AS same
  FROM argo_data.kd3_obj o LEFT JOIN argo_data.kd3_doc d USING (objid) ORDER BY o.objid;
SELECT o.objid, d.doc::text = argo_object('kdplain', o.objid)::text AS same
  FROM argo_data.kd1_obj o LEFT JOIN argo_data.kd1_doc d USING (objid) ORDER BY o.objid;
SELECT left(doc::text, 140) FROM argo_data.kd3_doc ORDER BY objid;
-- reads of whole objects, one by one, by id, all, sorted, as the plain collection
SELECT (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query('SELECT * FROM kd3') x) =
       (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query('SELECT * FROM kdplain') x) AS all_same;
SELECT x FROM argo_query('SELECT * FROM kd3 WHERE k = true') x;
-- projections of a few objects are cut from the kept documents (paths of
-- object keys, none inside another) and are what the rows give; the
-- others (array positions, a path inside another, AS) read the rows
SELECT p, (SELECT coalesce(array_agg(x::text ORDER BY x::text), '{}') FROM argo_query('SELECT ' || p || ' FROM kd3 WHERE ID() >= 1') x) =
          (SELECT coalesce(array_agg(x::text ORDER BY x::text), '{}') FROM argo_query('SELECT ' || p || ' FROM kdplain WHERE ID() >= 1') x) AS same,
          (SELECT count(*) FROM argo_query('SELECT ' || p || ' FROM kd3 WHERE ID() >= 1')) AS objects
  FROM unnest(ARRAY['a', 'b', 'e, f', 'g, h, i', 'n, k', 's, num', 't', 'missing', 'a, missing',
                    'b[1].c', 'b, b[1]', 'a AS z, g', 'num, t, s', 'g, e, b[11111111111]']) p;
SELECT x FROM argo_query('SELECT g, h, b FROM kd3 WHERE g = ''x''') x;
SELECT x FROM argo_query('SELECT d.g, d.e FROM kd3 AS d WHERE d.g = ''x''') x;
SELECT x FROM argo_query('SELECT * FROM kd1 WHERE ID() = 2') x;
SELECT x FROM argo_query('SELECT *, ID() AS id FROM kd3 WHERE ID() = 2') x;
SELECT left(x::text, 60) FROM argo_query('SELECT * FROM kd3 ORDER BY num DESC') x;
-- writes from C keep them: an update (with a number to make canonical), an insert, a delete
SELECT * FROM argo_query('UPDATE kd3 SET q = 1.0, a = 7, b[1].c = 2.50 WHERE a = 1');
SELECT * FROM argo_query('UPDATE kdplain SET q = 1.0, a = 7, b[1].c = 2.50 WHERE a = 1');
SELECT * FROM argo_query('INSERT INTO kd3 OBJECT {"new": 1.50}');
SELECT * FROM argo_query('INSERT INTO kdplain OBJECT {"new": 1.50}');
SELECT * FROM argo_query('DELETE FROM kd3 WHERE ID() = 3');
SELECT * FROM argo_query('DELETE FROM kdplain WHERE ID() = 3');
SELECT o.objid, d.doc::text = argo_object('kdplain', o.objid)::text AS same
  FROM argo_data.kd3_obj o LEFT JOIN argo_data.kd3_doc d USING (objid) ORDER BY o.objid;
SELECT doc FROM argo_data.kd3_doc WHERE objid = 1;
SELECT count(*) AS documents_of_no_object FROM argo_data.kd3_doc WHERE objid = 3;
SELECT * FROM argo_check('kd3');
-- an update compares only the rows of the members its SET list touches,
-- except where the object has no member before or after (its row says
-- so): the rows written must still rebuild the kept document, whatever
-- the change (argo_check compares them), and read as the documents say
SELECT argo_create_collection('kdu', 'argo3');
SELECT count(*) FROM argo_query('INSERT INTO kdu OBJECTS [{"k": 1, "a": {"b": 1, "c": [1, 2]}, "z": "keep"},
  {"k": 1, "only": 1}, {"k": 1}, {"k": 1, "arr": [], "o": {}}]');
SELECT * FROM argo_query('UPDATE kdu SET a.b = 2, a.d = {"e": [true]}, n.m = 1.50 WHERE k = 1');
SELECT * FROM argo_query('UPDATE kdu SET arr APPEND 3, a.c ADD 9, a.c REMOVE 1, o = [] WHERE k = 1');
SELECT * FROM argo_query('UPDATE kdu SET arr[3] = "x", z += 1 WHERE k = 1 AND only = 1');
SELECT * FROM argo_query('UPDATE kdu UNSET k, only, a, n, arr, o, z WHERE ID() = 2');
SELECT * FROM argo_query('UPDATE kdu SET fresh = {} WHERE ID() = 2');
SELECT * FROM argo_query('UPDATE kdu SET a = 5, z = null WHERE ID() = 1');
SELECT * FROM argo_check('kdu');
SELECT x FROM argo_query('SELECT * FROM kdu') x ORDER BY x::text;
SELECT argo_keep_documents('kdu', false) >= 0 AS dropped;
SELECT x FROM argo_query('SELECT * FROM kdu') x ORDER BY x::text;
SELECT argo_drop_collection('kdu');
-- a row written through SQL: the document is forgotten, the rows read
INSERT INTO argo_data.kd3_num (objid, keyid, valnum)
  SELECT 2, keyid, 9 FROM argo_data.kd3_keys WHERE keystr = 'a';
SELECT o.objid, d.objid IS NULL AS forgotten FROM argo_data.kd3_obj o LEFT JOIN argo_data.kd3_doc d USING (objid) ORDER BY o.objid;
SELECT x FROM argo_query('SELECT * FROM kd3 WHERE ID() = 2') x;
SELECT argo_repair('kd3') >= 1 AS repaired;
SELECT o.objid, d.objid IS NULL AS forgotten FROM argo_data.kd3_obj o LEFT JOIN argo_data.kd3_doc d USING (objid) ORDER BY o.objid;
SELECT x FROM argo_query('SELECT * FROM kd3 WHERE ID() = 2') x;
-- directory rows written through SQL: a changed or deleted id forgets its
-- document (a map written alone does not)
UPDATE argo_data.kd3_obj SET rowmap = rowmap WHERE objid = 4;
SELECT count(*) AS kept_4 FROM argo_data.kd3_doc WHERE objid = 4;
BEGIN;
DELETE FROM argo_data.kd3_obj WHERE objid = 4;
SELECT count(*) AS kept_4 FROM argo_data.kd3_doc WHERE objid = 4;
ROLLBACK;
BEGIN;
TRUNCATE argo_data.kd3_obj;
SELECT count(*) AS kept FROM argo_data.kd3_doc;
ROLLBACK;
-- rows that go through SQL (a trigger of the owner's on a value table, which
-- changes them) are not known to be the object given: nothing is kept
CREATE FUNCTION kd_upper() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN NEW.valstr := upper(NEW.valstr); RETURN NEW; END $$;
CREATE TRIGGER kd_upper BEFORE INSERT ON argo_data.kd3_str FOR EACH ROW EXECUTE FUNCTION kd_upper();
SELECT * FROM argo_query('INSERT INTO kd3 OBJECT {"shout": "quiet"}');
SELECT count(*) = 0 AS not_kept FROM argo_data.kd3_doc WHERE objid = 6;
SELECT x FROM argo_query('SELECT * FROM kd3 WHERE ID() = 6') x;
DROP TRIGGER kd_upper ON argo_data.kd3_str;
DROP FUNCTION kd_upper();
-- a document cannot be written through SQL, even by the owner
UPDATE argo_data.kd1_doc SET doc = '{"forged": true}' WHERE objid = 2;
INSERT INTO argo_data.kd1_doc VALUES (99, '{"forged": true}');
-- one that lies (the owner's trigger switched off to write it) is
-- reported, and argo_repair writes it again from the rows
ALTER TABLE argo_data.kd1_doc DISABLE TRIGGER argo_docs_guard;
UPDATE argo_data.kd1_doc SET doc = '{"forged": true}' WHERE objid = 2;
INSERT INTO argo_data.kd1_doc VALUES (99, '{"forged": true}');
ALTER TABLE argo_data.kd1_doc ENABLE TRIGGER argo_docs_guard;
SELECT * FROM argo_check('kd1');
-- (until then a read takes it as it is, a projection too: the kept
-- document is what both read)
SELECT x FROM argo_query('SELECT forged FROM kd1 WHERE ID() >= 2 AND ID() <= 2') x;
SELECT argo_repair('kd1') AS repaired;
SELECT * FROM argo_check('kd1');
SELECT x FROM argo_query('SELECT * FROM kd1 WHERE ID() = 2') x;
-- one that is not an object is not used: the rows are read
ALTER TABLE argo_data.kd1_doc DISABLE TRIGGER argo_docs_guard;
UPDATE argo_data.kd1_doc SET doc = '[1, 2]' WHERE objid = 2;
ALTER TABLE argo_data.kd1_doc ENABLE TRIGGER argo_docs_guard;
SELECT x FROM argo_query('SELECT * FROM kd1 WHERE ID() = 2') x;
-- no longer kept: the table goes, reads are the same
SELECT argo_keep_documents('kd1', false) AS written;
SELECT count(*) FROM pg_class WHERE relname = 'kd1_doc';
SELECT x FROM argo_query('SELECT * FROM kd1 WHERE ID() = 2') x;
-- errors: NULL, a collection that does not exist, not the owner, row-level security
SELECT argo_keep_documents('kd1', NULL);
SELECT argo_keep_documents('nosuch');
CREATE ROLE kd_other;
GRANT SELECT ON ALL TABLES IN SCHEMA argo_data TO kd_other;
SET ROLE kd_other;
SELECT argo_keep_documents('kd1');
SELECT x FROM argo_query('SELECT * FROM kd3 WHERE ID() = 1') x;
RESET ROLE;
-- made by the owner, whom no policy filters, under row-level security;
-- its table of documents has row-level security as its other tables do
ALTER TABLE argo_data.kd1_data ENABLE ROW LEVEL SECURITY;
SELECT argo_keep_documents('kd1') AS written;
SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = 'argo_data.kd1_doc'::regclass;
ALTER TABLE argo_data.kd1_data DISABLE ROW LEVEL SECURITY;
SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = 'argo_data.kd1_doc'::regclass;
-- a reader subject to a policy on a value table reads the rows, not the document
ALTER TABLE argo_data.kd3_str ENABLE ROW LEVEL SECURITY;
CREATE POLICY kd_hide ON argo_data.kd3_str TO kd_other USING (keyid <> (SELECT keyid FROM argo_data.kd3_keys WHERE keystr = 'g'));
SET ROLE kd_other;
SELECT x FROM argo_query('SELECT * FROM kd3 WHERE ID() = 1') x;
RESET ROLE;
DROP POLICY kd_hide ON argo_data.kd3_str;
ALTER TABLE argo_data.kd3_str DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON ALL TABLES IN SCHEMA argo_data FROM kd_other;
DROP ROLE kd_other;
SELECT argo_drop_collection('kd3'), argo_drop_collection('kd1'), argo_drop_collection('kdplain');
-- every object sorted, from kept documents: the sort keys come from each
-- document (argo_sort_num/str/bool) instead of rows joined to the
-- directory, in exactly the order the rows give: numbers, strings,
-- booleans, then nulls, objects, arrays and objects without the path;
-- a position never reaches an object's key "1"
SELECT argo_create_collection('ks');
SELECT * FROM argo_query('INSERT INTO ks OBJECTS [
  {"v": 3, "n": {"m": "b"}, "arr": [1, "x"]}, {"v": "b", "n": {"m": 2}}, {"v": true},
  {"v": false, "arr": {"1": 9}}, {"v": null}, {"v": {"x": 1}}, {"v": [1, 2]}, {"w": 1},
  {"v": 2.5, "arr": [0, 7]}, {"v": "a", "n": {"m": true}}, {"v": 1e30}, {"v": ""},
  {"v": -0.1, "n": "m"}, {"v": "B", "arr": [0, 7]}, {"v": 3, "arr": [2, false]},
  {"v": 100000000000000000001}, {"v": 100000000000000000000}, {"v": -0}, {"v": 0},
  {"v": -1e30}, {"v": -3}]');
SELECT argo_keep_documents('ks') AS kept;
SELECT line FROM argo_explain('SELECT * FROM ks ORDER BY v') line WHERE line LIKE '%ORDER BY%';
CREATE TEMP TABLE sorted_docs AS
  SELECT 'v' AS ord, r.* FROM argo_query('SELECT * FROM ks ORDER BY v') WITH ORDINALITY r(x, i)
  UNION ALL SELECT 'v desc', r.* FROM argo_query('SELECT * FROM ks ORDER BY v DESC') WITH ORDINALITY r(x, i)
  UNION ALL SELECT 'n.m, arr[1] desc, v', r.* FROM argo_query('SELECT * FROM ks ORDER BY n.m, arr[1] DESC, v') WITH ORDINALITY r(x, i)
  UNION ALL SELECT 'arr[1], ID() desc', r.* FROM argo_query('SELECT * FROM ks ORDER BY arr[1], ID() DESC') WITH ORDINALITY r(x, i);
SELECT i, x FROM sorted_docs WHERE ord = 'v' ORDER BY i;
SELECT i, x FROM sorted_docs WHERE ord = 'n.m, arr[1] desc, v' ORDER BY i;
-- an object whose document is not kept is rebuilt and sorted among them
DELETE FROM argo_data.ks_doc WHERE objid IN (1, 2, 9);
SELECT count(*) AS same_place FROM argo_query('SELECT * FROM ks ORDER BY v DESC') WITH ORDINALITY r(x, i)
  JOIN sorted_docs s USING (i, x) WHERE s.ord = 'v desc';
-- the same orders from the rows alone
SELECT argo_keep_documents('ks', false) AS dropped;
SELECT line FROM argo_explain('SELECT * FROM ks ORDER BY v') line WHERE line LIKE '%ORDER BY%';
SELECT s.ord, count(*) AS same_place, (SELECT count(*) FROM argo_query('SELECT * FROM ks')) AS objects
  FROM sorted_docs s
  JOIN (SELECT 'v' AS ord, r.* FROM argo_query('SELECT * FROM ks ORDER BY v') WITH ORDINALITY r(x, i)
        UNION ALL SELECT 'v desc', r.* FROM argo_query('SELECT * FROM ks ORDER BY v DESC') WITH ORDINALITY r(x, i)
        UNION ALL SELECT 'n.m, arr[1] desc, v', r.* FROM argo_query('SELECT * FROM ks ORDER BY n.m, arr[1] DESC, v') WITH ORDINALITY r(x, i)
        UNION ALL SELECT 'arr[1], ID() desc', r.* FROM argo_query('SELECT * FROM ks ORDER BY arr[1], ID() DESC') WITH ORDINALITY r(x, i)) rows
    USING (ord, i, x)
  GROUP BY s.ord ORDER BY s.ord;
SELECT argo_drop_collection('ks');

-- A value row leads to its object's document (doctid); a document that
-- grew too large for its page moves, and the rows an update left alone
-- still name the old place: the next read by one of them finds the
-- document by its key and names the new place in that row, and an
-- update found through a row names it at once.  (The numeric index's copy
-- of doctid is not set again: the function reads the row's.)
SELECT argo_create_collection('dh');
SELECT count(*) FROM argo_query('INSERT INTO dh OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('k', i)) FROM generate_series(1, 300) i)) x;
CREATE FUNCTION pg_temp.row_names_doc_page(k int) RETURNS boolean LANGUAGE sql
SET enable_indexonlyscan = off AS $$
  SELECT (s.doctid::text::point)[0] = (d.ctid::text::point)[0]
    FROM argo_data.dh_num s JOIN argo_data.dh_doc d USING (objid)
   WHERE s.keyid = (SELECT keyid FROM argo_data.dh_keys WHERE keystr = 'k') AND s.valnum = k
$$;
SELECT pg_temp.row_names_doc_page(1) AS before, pg_temp.row_names_doc_page(2) AS before_2;
-- grown by id: the row of k is not rewritten, and names the old page
SELECT count(*) FROM argo_query('UPDATE dh SET q = $1 WHERE ID() = 1',
  (SELECT to_jsonb(string_agg(md5(j::text), '')) FROM generate_series(1, 56) j));
SELECT (SELECT (ctid::text::point)[0] FROM argo_data.dh_doc WHERE objid = 1) > 0 AS moved,
       pg_temp.row_names_doc_page(1) AS after_update;
SELECT x->'k' AS k, length(x->>'q') AS q FROM argo_query('SELECT * FROM dh WHERE k = 1') x;
SELECT pg_temp.row_names_doc_page(1) AS after_read;
-- grown through k: the update names the new place in the row it found
SELECT count(*) FROM argo_query('UPDATE dh SET q = $1 WHERE k = 2',
  (SELECT to_jsonb(string_agg(md5(j::text), '')) FROM generate_series(1, 56) j));
SELECT (SELECT (ctid::text::point)[0] FROM argo_data.dh_doc WHERE objid = 2) > 0 AS moved,
       pg_temp.row_names_doc_page(2) AS after_update_by_k;
SELECT x->'k' AS k, length(x->>'q') AS q FROM argo_query('SELECT * FROM dh WHERE k = 2') x;
-- found from the covering numeric index alone (pages all visible), whose
-- entries still name the old places: the documents by their key
VACUUM argo_data.dh_num, argo_data.dh_doc;
SELECT x->'k' AS k, length(x->>'q') AS q FROM argo_query('SELECT * FROM dh WHERE k IN (1, 2, 3)') x ORDER BY 1;
SELECT count(*) FROM argo_query('SELECT * FROM dh WHERE k BETWEEN 1 AND 300') x;
SELECT argo_drop_collection('dh');
