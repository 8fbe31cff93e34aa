-- Validation (reference.md §5.7; MongoDB's $jsonSchema validator):
-- argo_validate(collection, schema) sets a JSON Schema every object must
-- satisfy — checked at once against what is stored, then on every write
-- (INSERT, OBJECTS, UPSERT, UPDATE as the object would be after, loads),
-- 23514 naming the path and keyword with nothing applied; NULL removes it.
SELECT argo_create_collection('va3', 'argo3'), argo_create_collection('va1', 'argo1');
SELECT count(*) FROM argo_query($$INSERT INTO va3 OBJECTS [{"name": "ada", "age": 36, "tags": ["a"]}, {"name": "bob", "age": 7}]$$);
SELECT count(*) FROM argo_query($$INSERT INTO va1 OBJECTS [{"name": "ada", "age": 36, "tags": ["a"]}, {"name": "bob", "age": 7}]$$);

-- a MongoDB validator loads as it is (bsonType)
SELECT argo_validate('va3', $${
  "bsonType": "object", "required": ["name", "age"], "title": "people",
  "properties": {
    "name": {"bsonType": "string", "minLength": 2, "maxLength": 10, "pattern": "^[a-z]+$"},
    "age": {"bsonType": "int", "minimum": 0, "exclusiveMaximum": 150},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3, "uniqueItems": true},
    "kind": {"enum": ["user", "admin", null]},
    "score": {"type": ["number", "null"], "multipleOf": 0.5},
    "address": {"type": "object", "additionalProperties": false,
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}},
    "pet": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["kind"]}]},
    "level": {"oneOf": [{"type": "integer"}, {"minimum": 5}]},
    "nick": {"not": {"const": "root"}},
    "extra": {"allOf": [{"type": "string"}, {"maxLength": 3}]}
  }}$$);
SELECT schema->'required' AS required FROM argo_collections WHERE name = 'va3';
SELECT argo_validate('va1', (SELECT schema FROM argo_collections WHERE name = 'va3'));

CREATE FUNCTION va_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r3 text; r1 text; e3 text; e1 text;
BEGIN
  BEGIN
    SELECT string_agg(x::text, ' ') INTO r3 FROM argo_query(replace(q, '@C', 'va3')) x;
  EXCEPTION WHEN check_violation THEN
    GET STACKED DIAGNOSTICS e3 = PG_EXCEPTION_DETAIL;
    r3 := '23514 ' || e3;
  END;
  BEGIN
    SELECT string_agg(x::text, ' ') INTO r1 FROM argo_query(replace(q, '@C', 'va1')) x;
  EXCEPTION WHEN check_violation THEN
    GET STACKED DIAGNOSTICS e1 = PG_EXCEPTION_DETAIL;
    r1 := '23514 ' || e1;
  END;
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\n%\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;

-- writes that pass, and each keyword failing once
SELECT q, va_try(q) FROM (VALUES
  ($$INSERT INTO @C OBJECT {"name": "cy", "age": 20, "kind": null, "score": 2.5, "address": {"city": "x"}, "pet": {"kind": "cat"}, "level": 3, "nick": "c", "extra": "ab"}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee"}$$),
  ($$INSERT INTO @C OBJECT {"name": "d", "age": 1}$$),
  ($$INSERT INTO @C OBJECT {"name": "Dee", "age": 1}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1.5}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 150}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": -1}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "tags": ["a", "a"]}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "tags": ["a", 5]}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "kind": "root"}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "score": 0.3}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "address": {"street": "s"}}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "pet": {"legs": 4}}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "level": 6}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "nick": "root"}$$),
  ($$INSERT INTO @C OBJECT {"name": "dee", "age": 1, "extra": "abcd"}$$),
  -- one bad object among many: none is inserted
  ($$INSERT INTO @C OBJECTS [{"name": "eve", "age": 1}, {"name": "fay"}]$$),
  ($$SELECT COUNT(*) FROM @C WHERE name IN ('eve', 'fay')$$),
  -- an update is checked as the object would be after it
  ($$UPDATE @C SET age += 200 WHERE name = 'ada'$$),
  ($$UPDATE @C UNSET age WHERE name = 'bob'$$),
  ($$UPDATE @C SET age = 40 WHERE name = 'ada' RETURNING *$$),
  ($$UPSERT @C SET age = 3 WHERE name = 'gus'$$),
  ($$UPSERT @C SET level = 9.5 WHERE name = 'hal'$$),
  ($$SELECT COUNT(*) FROM @C$$)
) qs(q);
-- the error names the object: its place in OBJECTS or in a load, or its id
SELECT * FROM argo_query($$INSERT INTO va3 OBJECTS [{"name": "eve", "age": 1}, {"name": "fay"}]$$);
SELECT * FROM argo_query($$UPDATE va3 UNSET age WHERE name = 'bob'$$);
-- a load is checked too
SELECT argo_load('va3', $$SELECT '{"name": "ivy", "age": 2}'::jsonb UNION ALL SELECT '{"name": "jo"}'::jsonb$$);
SELECT count(*) FROM argo_query($$SELECT * FROM va3 WHERE name = 'ivy'$$);

-- a schema the stored objects fail: 23514 naming the first, nothing set
SELECT argo_validate('va3', '{"properties": {"age": {"maximum": 30}}}');
SELECT schema->'properties'->'age' AS age FROM argo_collections WHERE name = 'va3';
-- removed: anything goes again
SELECT argo_validate('va3', NULL), argo_validate('va1', NULL);
SELECT schema FROM argo_collections WHERE name IN ('va3', 'va1');
SELECT count(*) FROM argo_query($$INSERT INTO va3 OBJECT {"free": true}$$);

-- schemas Argo cannot use: 22023 naming the keyword
SELECT argo_validate('va3', '{"type": "object", "patternProperties": {}}');
SELECT argo_validate('va3', '{"properties": {"a": {"exclusiveMinimum": true}}}');
SELECT argo_validate('va3', '{"properties": {"a": {"minimum": "1"}}}');
SELECT argo_validate('va3', '{"properties": {"a": {"pattern": "("}}}');
SELECT argo_validate('va3', '{"properties": {"a": {"multipleOf": 0}}}');
SELECT argo_validate('va3', '[]');
SELECT argo_validate('nosuch', '{}');
SELECT argo_drop_collection('va3'), argo_drop_collection('va1');

-- every write path names the object it refuses (contract 8.5): its
-- position for inserts (one alone too), its id for updates and UPSERT
SELECT argo_load('va_where', $$SELECT jsonb_build_object('n', g, 'k', g, 'items', jsonb_build_array(jsonb_build_object('q', 1)))
                               FROM generate_series(1, 300) g$$);
SELECT argo_validate('va_where', '{"required": ["n"], "properties": {"n": {"bsonType": "int"},
  "items": {"bsonType": "array", "maxItems": 1, "items": {"properties": {"q": {"minimum": 0}}}}}}');
SELECT * FROM argo_query('INSERT INTO va_where OBJECT $1', '{"m": 1}');
SELECT * FROM argo_query('INSERT INTO va_where OBJECT {"n": 1}, {"m": 2}');
SELECT * FROM argo_query('INSERT INTO va_where OBJECTS $1 RETURNING ID()', '[{"n": 1}, {"m": 1}]');
SELECT * FROM argo_query('INSERT INTO va_where OBJECTS [{"m": 1}]');
SELECT * FROM argo_query('UPDATE va_where UNSET n WHERE ID() = 7');
SELECT * FROM argo_query('UPDATE va_where UNSET n WHERE k = 250');
SELECT * FROM argo_query('UPDATE va_where SET n = 1.5 WHERE k > 100 RETURNING *');
SELECT * FROM argo_query('UPDATE va_where SET items APPEND {"q": 2}');
SELECT * FROM argo_query('UPDATE va_where SET items[? q = 1].q = -5 WHERE k IN (3, 4)');
SELECT * FROM argo_query('UPSERT va_where SET n = 1.5 WHERE k = 3');
SELECT * FROM argo_query('UPSERT va_where SET n = 1.5 WHERE k = 3000');
SELECT argo_load('va_where', $$SELECT '{"n": 1}'::jsonb UNION ALL SELECT '{"m": 1}'$$);
SELECT argo_count('va_where'), (SELECT count(*) FROM argo_query('SELECT * FROM va_where WHERE n = 1.5 OR NOT EXISTS n')) AS changed;
SELECT argo_drop_collection('va_where');
