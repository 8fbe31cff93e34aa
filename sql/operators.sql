-- Update operators, UPSERT and object ids, on both storage formats.
SELECT argo_create_collection('op3', 'argo3');
SELECT argo_create_collection('op1', 'argo1');

-- INSERT … RETURNING ID gives the ids it assigned, in order
SELECT * FROM argo_query('INSERT INTO op3 OBJECT {"k": "a", "n": 5, "tags": ["x", "y"], "d": {"f": 0.1}}, {"k": "b"} RETURNING ID');
SELECT * FROM argo_query('INSERT INTO op1 OBJECT {"k": "a", "n": 5, "tags": ["x", "y"], "d": {"f": 0.1}}, {"k": "b"} RETURNING ID');

-- read, update and delete by id
SELECT * FROM argo_query('SELECT * FROM op3 WHERE ID() = $1', '1');
SELECT * FROM argo_query('SELECT ID() FROM op3 ORDER BY k DESC');
SELECT * FROM argo_query('SELECT ID() FROM op1 WHERE k = ''b''');
SELECT * FROM argo_query('SELECT k FROM op3 WHERE ID() IN (1, 2, 99) AND NOT ID() = 1');
SELECT * FROM argo_query('SELECT k FROM op3 WHERE ID() NOT IN (1) OR ID() >= 2');
SELECT * FROM argo_query('SELECT count(*) FROM op3 WHERE ID() < 2');

-- += and -= add as numeric; a missing path is created
SELECT * FROM argo_query('UPDATE op3 SET n += 2, d.f += 0.2, c -= 1, e.g += $1 WHERE ID() = 1', '10');
SELECT * FROM argo_query('UPDATE op1 SET n += 2, d.f += 0.2, c -= 1, e.g += $1 WHERE ID() = 1', '10');
SELECT * FROM argo_query('SELECT * FROM op3 WHERE ID() = 1');
SELECT * FROM argo_query('SELECT * FROM op1 WHERE ID() = 1');

-- APPEND, ADD (if absent), REMOVE (every equal element)
SELECT * FROM argo_query('UPDATE op3 SET tags APPEND "z", tags ADD "x", tags ADD {"o": [1]}, tags APPEND [1, 2], new APPEND 1 WHERE k = ''a''');
SELECT * FROM argo_query('UPDATE op1 SET tags APPEND "z", tags ADD "x", tags ADD {"o": [1]}, tags APPEND [1, 2], new APPEND 1 WHERE k = ''a''');
SELECT * FROM argo_query('SELECT tags, new FROM op3 WHERE k = ''a''');
SELECT * FROM argo_query('SELECT tags, new FROM op1 WHERE k = ''a''');
SELECT * FROM argo_query('UPDATE op3 SET tags APPEND "x", tags REMOVE "x", tags REMOVE {"o": [1]}, gone REMOVE 1 WHERE k = ''a''');
SELECT * FROM argo_query('UPDATE op1 SET tags APPEND "x", tags REMOVE "x", tags REMOVE {"o": [1]}, gone REMOVE 1 WHERE k = ''a''');
SELECT * FROM argo_query('SELECT * FROM op3 WHERE k = ''a''');
SELECT * FROM argo_query('SELECT * FROM op1 WHERE k = ''a''');
-- an element path into the changed array finds the shifted elements
SELECT * FROM argo_query('SELECT k FROM op3 WHERE tags[0] = ''y'' AND tags[1] = ''z''');

-- UPSERT: update what matches, or insert the object of WHERE's terms
SELECT * FROM argo_query('UPSERT op3 SET hits += 1 WHERE k = ''c'' AND v.w = 1');
SELECT * FROM argo_query('UPSERT op3 SET hits += 1 WHERE k = ''c'' AND v.w = 1');
SELECT * FROM argo_query('UPSERT op3 SET hits += 1, seen = true WHERE k = ''b''');
SELECT * FROM argo_query('SELECT * FROM op3 WHERE k IN (''b'', ''c'')');
SELECT * FROM argo_query('UPSERT op_new SET n += 1 WHERE k = $1', '"fresh"');
SELECT * FROM argo_query('SELECT * FROM op_new');
SELECT argo_drop_collection('op_new');

-- a key may be named like the new keywords
SELECT * FROM argo_query('INSERT INTO op3 OBJECT {"id": 7, "append": [1], "add": 2, "remove": 3, "returning": 4, "upsert": 5}');
SELECT * FROM argo_query('SELECT id, append[0], add, remove, returning, upsert FROM op3 WHERE id = 7 AND append[0] = 1');
SELECT * FROM argo_query('UPDATE op3 SET append APPEND [2], id += 1, add = 3 UNSET remove WHERE upsert = 5');
SELECT * FROM argo_query('SELECT * FROM op3 WHERE upsert = 5');

-- an UPDATE rewrites only the rows that change: here the one of n
CREATE TEMP TABLE rows_before AS
  SELECT ctid AS at, objid, keyid FROM argo_data.op3_str
  UNION ALL SELECT ctid, objid, keyid FROM argo_data.op3_num
  UNION ALL SELECT ctid, objid, keyid FROM argo_data.op3_bool;
SELECT * FROM argo_query('UPDATE op3 SET n += 1, k = ''a'', tags = $1 WHERE k = ''a''', '["y", "z", [1, 2]]');
SELECT count(*) AS rows_written FROM (
  SELECT ctid AS at, objid, keyid FROM argo_data.op3_str
  UNION ALL SELECT ctid, objid, keyid FROM argo_data.op3_num
  UNION ALL SELECT ctid, objid, keyid FROM argo_data.op3_bool
  EXCEPT SELECT * FROM rows_before) w;
SELECT * FROM argo_query('UPDATE op1 SET n += 1 WHERE k = ''a''');
-- both formats agree
SELECT (SELECT array_agg(x ORDER BY x::text) FROM argo_query('SELECT * FROM op3 WHERE k = ''a''') x)
     = (SELECT array_agg(x ORDER BY x::text) FROM argo_query('SELECT * FROM op1 WHERE k = ''a''') x) AS same;

-- an index past an array's end appends at the end, whatever follows it
-- in the path: the value is never dropped (on both formats, and through
-- every operator and UPSERT)
CREATE FUNCTION op_past_end(coll text) RETURNS SETOF jsonb LANGUAGE plpgsql AS $$
DECLARE
  stmt text;
BEGIN
  PERFORM argo_query(format('INSERT INTO %s OBJECTS $1', coll), '[{"pe": 1, "a": [{"b": 0}, {"b": 1}]},
    {"pe": 2, "a": [{"b": 0}]}, {"pe": 3, "a": []}, {"pe": 4, "a": []}, {"pe": 5, "a": []},
    {"pe": 6, "a": [0]}, {"pe": 7}]');
  FOREACH stmt IN ARRAY ARRAY[
    'UPDATE %s SET a[3].c += 5 WHERE pe = 1',
    'UPDATE %s SET a[2].c = 5, a[2].d = 6 WHERE pe = 2',
    'UPDATE %s SET a[3].b APPEND 1 WHERE pe = 3',
    'UPDATE %s SET a[1].x ADD 1 WHERE pe = 4',
    'UPDATE %s SET a[2][0] = 9 WHERE pe = 5',
    'UPDATE %s SET a[5] = 2, a[9].z.w[4] = true WHERE pe = 6',
    'UPDATE %s SET a[0][1].q = ''s'' WHERE pe = 7',
    'UPSERT %s SET items[1].qty += 1 WHERE sku = ''x''']
  LOOP
    RETURN QUERY SELECT * FROM argo_query(format(stmt, coll));
  END LOOP;
  RETURN QUERY SELECT x - 'pe' FROM argo_query(format('SELECT * FROM %s WHERE EXISTS pe OR sku = ''x'' ORDER BY pe', coll)) x;
  PERFORM argo_query(format('DELETE FROM %s WHERE EXISTS pe OR sku = ''x''', coll));
END $$;
SELECT * FROM op_past_end('op3');
SELECT (SELECT array_agg(x::text) FROM op_past_end('op1') x) = (SELECT array_agg(x::text) FROM op_past_end('op3') x) AS formats_agree;
DROP FUNCTION op_past_end(text);

-- errors change nothing
SELECT * FROM argo_query('UPDATE op3 SET n += ''x''');
SELECT * FROM argo_query('UPDATE op3 SET n -= $1', '[1]');
SELECT * FROM argo_query('UPDATE op3 SET tags += 1 WHERE k = ''a''');
SELECT * FROM argo_query('UPDATE op3 SET k APPEND 1 WHERE k = ''a''');
SELECT * FROM argo_query('UPDATE op3 SET k REMOVE 1 WHERE k = ''a''');
SELECT * FROM argo_query('UPDATE op3 SET n += 1, k APPEND 1');
-- an index past int4 must not wrap round to arr[0]
SELECT * FROM argo_query('UPDATE op3 SET tags[4294967296] APPEND 7 WHERE k = ''a''');
SELECT * FROM argo_query('UPDATE op1 SET tags[4294967296] += 7 WHERE k = ''a''');
SELECT * FROM argo_query('UPSERT op3 SET n = 1 WHERE tags[4294967296] = 1');
SELECT * FROM argo_query('SELECT tags FROM op3 WHERE k = ''a''');
SELECT * FROM argo_query('SELECT tags FROM op1 WHERE k = ''a''');
SELECT * FROM argo_query('SELECT n FROM op3 WHERE k = ''a''');
SELECT * FROM argo_query('SELECT * FROM op3 WHERE ID() = 1.5');
SELECT * FROM argo_query('SELECT * FROM op3 WHERE ID() IN (1, ''2'')');
SELECT * FROM argo_query('UPSERT op3 SET a = 1 WHERE b > 1');
SELECT * FROM argo_query('UPSERT op3 SET a = 1 WHERE b = 1 OR c = 2');
SELECT * FROM argo_query('SELECT * FROM op3 AS a INNER JOIN op1 AS b ON (a.k = b.k) WHERE ID() = 1');
SELECT * FROM argo_query('INSERT INTO op3 OBJECT {"a": 1} RETURNING k');
SELECT * FROM argo_query('SELECT ID(), k FROM op3');

SELECT argo_drop_collection('op3');
SELECT argo_drop_collection('op1');

-- IN $n: the values as one JSON array parameter (an application's list)
SELECT argo_create_collection('opin', 'argo3');
SELECT * FROM argo_query('INSERT INTO opin OBJECT {"u": 1, "f": [2, 3]}, {"u": 2}, {"u": 3}, {"u": "3"}, {"v": 0}');
SELECT * FROM argo_query('SELECT u FROM opin WHERE u IN $1', '[2, 3, "x"]');
SELECT * FROM argo_query('SELECT u FROM opin WHERE u NOT IN $1', '[1, "3"]');
SELECT * FROM argo_query('SELECT u FROM opin WHERE u IN $1', '[]');
SELECT count(*) FROM argo_query('SELECT * FROM opin WHERE u NOT IN $1', '[]');
SELECT * FROM argo_query('SELECT u FROM opin WHERE ID() IN $1 OR ID() NOT IN $2', '[2, 1]', '[1, 2, 3, 4]');
SELECT * FROM argo_query('SELECT u FROM opin WHERE u IN $1', '[[1]]');
SELECT * FROM argo_query('SELECT u FROM opin WHERE u IN $1', '5');
SELECT * FROM argo_query('SELECT u FROM opin WHERE u IN $1', '[null]');
SELECT * FROM argo_query('SELECT u FROM opin WHERE ID() IN $1', '[1.5]');
SELECT argo_drop_collection('opin');

-- point reads and writes found from C (one equality, or ID() = n) must
-- match what SQL finds: strings sharing their indexed 256-character
-- prefix, multibyte strings, -0 and 0, booleans (Argo/1 has no boolean
-- index and uses SQL), a missing key, projections
CREATE TABLE pt_docs AS
SELECT i, jsonb_build_object('i', i, 's', repeat('é', 256) || (i % 3), 'n', CASE WHEN i = 1 THEN -0.0 ELSE i % 2 END,
                             'b', i % 2 = 0) AS doc
FROM generate_series(1, 6) i;
SELECT argo_create_collection('pt1', 'argo1');
SELECT argo_load('pt3', 'SELECT doc FROM pt_docs ORDER BY i');
SELECT argo_load('pt1', 'SELECT doc FROM pt_docs ORDER BY i');
SELECT c, q, (SELECT array_agg(x->'i' ORDER BY x->'i') FROM argo_query(replace(q, 'COLL', c), p) x) AS found
FROM (VALUES ('pt3'), ('pt1')) cs(c),
     (VALUES ('SELECT * FROM COLL WHERE s = $1', to_jsonb(repeat('é', 256) || '1')),
             ('SELECT i FROM COLL WHERE s = $1', to_jsonb(repeat('é', 256))),
             ('SELECT i, s FROM COLL WHERE n = $1', '0'::jsonb),
             ('SELECT * FROM COLL WHERE b = $1', 'true'::jsonb),
             ('SELECT * FROM COLL WHERE nothing = $1', '1'::jsonb),
             ('SELECT i FROM COLL WHERE ID() = $1', '4'::jsonb),
             ('SELECT i FROM COLL WHERE ID() = $1', '40'::jsonb)) qs(q, p)
ORDER BY c, q, p::text;
SELECT * FROM argo_query('UPDATE pt3 SET t += 1 WHERE s = $1', to_jsonb(repeat('é', 256) || '2'));
SELECT * FROM argo_query('DELETE FROM pt3 WHERE n = $1', '1');
SELECT x->'i' AS i, x->'t' AS t FROM argo_query('SELECT * FROM pt3') x;
SELECT argo_drop_collection('pt3'), argo_drop_collection('pt1');
-- UPDATE … RETURNING ID over several batches (1,000 objects each, whose
-- memory is freed after each): every id, in order
SELECT argo_create_collection('manyids');
SELECT * FROM argo_query('INSERT INTO manyids OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('n', g)) FROM generate_series(1, 3500) g));
SELECT (x->>'updated')::int AS updated,
       x->'ids' = (SELECT jsonb_agg(ID) FROM (SELECT (y->>'_id')::bigint AS ID FROM argo_query('SELECT ID() AS _id FROM manyids') y ORDER BY 1) i) AS every_id_in_order
  FROM argo_query('UPDATE manyids SET n += 1 RETURNING ID') x;
SELECT argo_drop_collection('manyids');
