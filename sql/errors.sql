-- Every bad input gets an ERROR with the right SQLSTATE and a message that
-- names the problem, and changes nothing.
SELECT * FROM argo_query('INSERT INTO err OBJECT {"a": 1, "s": "x", "arr": [1, 2]}');

-- err(q): the SQLSTATE and message of running q; the object count after
-- shows that nothing changed.
CREATE FUNCTION err(q text, VARIADIC p jsonb[] DEFAULT '{}') RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM argo_query(q, VARIADIC p);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

SELECT q, err(q) FROM (VALUES
  -- syntax: 42601
  (''), ('SELECT'), ('SELECT * FROM'), ('SELECT * FROM err WHERE'),
  ('SELEC * FROM err'), ('SELECT * FROM err WHERE a = = 1'),
  ('SELECT * FROM err WHERE a ='), ('SELECT * FROM err WHERE (a = 1'),
  ('SELECT * FROM err WHERE a = 1)'), ('SELECT * FROM err LIMIT'),
  ('SELECT * FROM err; SELECT * FROM err'), ('SELECT a. FROM err'),
  ('SELECT a[x] FROM err'), ('SELECT a[-1] AS x FROM err'), ('SELECT a[1.5] FROM err'),
  ('SELECT * FROM err WHERE a @ 1'), ('SELECT * FROM err WHERE a = ''unterminated'),
  ('SELECT * FROM err WHERE a = `unterminated'), ('SELECT * FROM err WHERE ☃ = 1'),
  ('SELECT * FROM err WHERE select = 1'), ('SELECT count FROM err'),
  ('INSERT INTO err {"a": 1}'), ('INSERT INTO err OBJECT'),
  ('DELETE err'), ('SELECT * FROM err WHERE a BETWEEN 1'),
  ('SELECT * FROM err WHERE a IN ()'), ('SELECT * FROM err WHERE ANY a = 1'),
  ('SELECT * FROM err WHERE a = 1 AND'), ('SELECT * FROM 9err'),
  -- unknown collection: 42P01
  ('SELECT * FROM nope'), ('DELETE FROM nope'), ('SELECT a FROM nope WHERE a = 1'),
  -- bad JSON: 22P02
  ('INSERT INTO err OBJECT {"a": }'), ('INSERT INTO err OBJECT {"a": 1'),
  ('INSERT INTO err OBJECT {a: 1}'), ('INSERT INTO err OBJECT {"a": 1}}'),
  ('INSERT INTO err OBJECT {"a": "\x"}'), ('SELECT * FROM err WHERE s = "\q"'),
  ('INSERT INTO err OBJECT {"a": "\u0000"}'),
  -- numbers: 22003
  ('INSERT INTO err OBJECT {"a": 1e-400}'),
  ('INSERT INTO err OBJECT {"a": 1e999}'), ('SELECT * FROM err WHERE a = 1e999'),
  ('SELECT a[99999999999999999999] FROM err'),
  -- type errors: 42804
  ('SELECT * FROM err WHERE a BETWEEN 1 AND ''z'''),
  ('SELECT * FROM err WHERE a = null'), ('SELECT * FROM err WHERE a LIKE 1'),
  ('SELECT * FROM err WHERE null = ANY arr'),
  -- not an object: 22023
  ('INSERT INTO err OBJECT [1]'), ('INSERT INTO err OBJECT 1, {"a": 2}'),
  -- LIMIT / OFFSET
  ('SELECT * FROM err LIMIT -1'), ('SELECT * FROM err LIMIT 1.5'),
  ('SELECT * FROM err OFFSET ''x'''),
  -- parameters: 42P02
  ('SELECT * FROM err WHERE a = $1'), ('SELECT * FROM err WHERE a = $0'),
  ('SELECT * FROM err WHERE a = $99999999999'), ('INSERT INTO err OBJECT $1')
) t(q);
SELECT argo_count('err');

-- parameters are values, never syntax
SELECT err('SELECT * FROM err WHERE a = $1', '[1]');
SELECT err('SELECT * FROM err WHERE a = $1', '{"a": 1}');
SELECT err('INSERT INTO err OBJECT $1', '"x"');
SELECT x FROM argo_query('SELECT a FROM err WHERE s = $1', '"x'' OR 1=1 --"') x;
SELECT x FROM argo_query('SELECT a FROM err WHERE s = $1', '"x"') x;
SELECT argo_query(NULL);
SELECT x FROM argo_query('SELECT a FROM err WHERE a = $1', NULL) x;

-- the error points into the Argo/SQL text
SELECT * FROM argo_query('SELECT * FROM err
  WHERE a = 1 AND AND b = 2');
SELECT * FROM argo_query('SELECT * FROM err WHERE a BETWEEN 1 AND ''z''');

-- 20,000 nested parentheses: a clean error, not a crash
SELECT err('SELECT * FROM err WHERE ' || repeat('(', 20000) || 'a = 1' || repeat(')', 20000));
SELECT err('SELECT * FROM err WHERE ' || repeat('NOT ', 20000) || 'a = 1');
-- 200 levels is fine
SELECT x FROM argo_query('SELECT a FROM err WHERE ' || repeat('(', 200) || 'a = 1' || repeat(')', 200)) x;
-- deeply nested JSON: PostgreSQL's own limits
SELECT left(err('INSERT INTO err OBJECT ' || repeat('{"a":', 100000) || '1' || repeat('}', 100000)), 36);
SELECT argo_count('err');
-- an error raised while a statement runs names its object: the element or
-- object of a multi-object INSERT, the ID() of an object an UPDATE changes;
-- nothing is changed
SELECT argo_create_collection('errplace');
SELECT * FROM argo_query('INSERT INTO errplace OBJECTS [{"a": 1}, {"a": 2}, {"b": 1e400}]');
SELECT * FROM argo_query('INSERT INTO errplace OBJECT {"a": 1}, {"a": 1e-400}');
SELECT * FROM argo_query('INSERT INTO errplace OBJECTS [{"s": 1}, {"s": "two"}, {"s": 3}]');
SELECT * FROM argo_query('UPDATE errplace SET s += 1');
SELECT x FROM argo_query('SELECT ID(), s FROM errplace') x;
SELECT argo_drop_collection('errplace');
