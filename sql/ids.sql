-- Object ids wherever a path may stand, and paths renamed with AS
-- (reference.md §6.1, §2), on both formats.
SELECT argo_create_collection('i1', 'argo1');
SELECT count(*) FROM (VALUES
  ('{"name": "Ada", "age": 36, "address": {"city": "London", "zip": "N1"}, "kids": ["Byron", "Lovelace"]}'),
  ('{"name": "Bob", "age": 25, "address": {"city": "Paris"}}'),
  ('{"age": 41}'),
  ('{}'),
  ('{"name": "Dee", "items": [{"sku": "pen"}, {"sku": "ink", "qty": 2}]}')) v(doc),
  LATERAL (SELECT argo_query('INSERT INTO i3 OBJECT $1', doc::jsonb)
           UNION ALL SELECT argo_query('INSERT INTO i1 OBJECT $1', doc::jsonb)) i;

CREATE FUNCTION i_run(coll text, q text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(x::text, E'\n' ORDER BY n), '(none)')
    FROM argo_query(format(q, coll)) WITH ORDINALITY AS t(x, n)
$$;
CREATE FUNCTION i_on_both(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r3 text := i_run('i3', q);
  r1 text := i_run('i1', q);
BEGIN
  IF r3 IS DISTINCT FROM r1 THEN
    RAISE EXCEPTION E'formats disagree on %:\nargo3:\n%\nargo1:\n%', q, r3, r1;
  END IF;
  RETURN r3;
END $$;

-- ID() in WHERE, with every operator, either side
SELECT i_on_both('SELECT name FROM %s WHERE ID() > 1 AND ID() <= 3');
SELECT i_on_both('SELECT name FROM %s WHERE 2 < ID()');
SELECT i_on_both('SELECT name FROM %s WHERE ID() BETWEEN 2 AND 4');
SELECT i_on_both('SELECT name FROM %s WHERE ID() NOT BETWEEN 2 AND 4');
SELECT i_on_both('SELECT name FROM %s WHERE ID() != 1 AND ID() IN (1, 2, 5)');
SELECT x FROM argo_query('SELECT name FROM i3 WHERE ID() > $1 AND ID() <= $2', '1', '2') x;
-- in ORDER BY and in MIN and MAX
SELECT i_on_both('SELECT name FROM %s ORDER BY ID() DESC LIMIT 3');
SELECT i_on_both('SELECT name FROM %s WHERE EXISTS name ORDER BY ID() DESC');
SELECT i_on_both('SELECT MIN(ID()) AS first, MAX(ID()) AS last, COUNT(ID()) AS n FROM %s');
SELECT i_on_both('SELECT MIN(ID()) AS first, MAX(ID()) AS last FROM %s WHERE age > 30');

-- in the targets: every selected object is returned, with its id
SELECT i_on_both('SELECT ID() FROM %s');
SELECT i_on_both('SELECT ID(), name FROM %s');
SELECT i_on_both('SELECT ID() AS id, age FROM %s WHERE age > 30 ORDER BY age DESC');
SELECT i_on_both('SELECT *, ID() FROM %s WHERE ID() <= 3');
SELECT i_on_both('SELECT *, ID() AS oid FROM %s ORDER BY ID() DESC LIMIT 2');
SELECT i_on_both('SELECT ID() AS oid, * FROM %s WHERE ID() = 2');
SELECT i_on_both('SELECT name, * FROM %s WHERE ID() = 2');
SELECT i_on_both('SELECT ID() AS n FROM %s WHERE name LIKE ''%%e%%''');
-- the same through every plan: found from C, by SQL, every object
SELECT i_on_both('SELECT ID(), age FROM %s WHERE name = ''Bob''');
SELECT i_on_both('SELECT ID(), kids FROM %s WHERE ID() = 1');
SELECT i_on_both('SELECT ID(), address.city FROM %s WHERE age IN (25, 41) ORDER BY age');

-- AS renames a projected path: flat keys; what lies below comes along;
-- a path with [*] becomes the array of the values it reaches
SELECT i_on_both('SELECT name AS n, address.city AS city FROM %s');
SELECT i_on_both('SELECT address AS a, address.city AS c, name FROM %s WHERE EXISTS address');
SELECT i_on_both('SELECT kids[1] AS second, items[*].sku AS skus, items[*] AS all FROM %s');
SELECT i_on_both('SELECT ID() AS id, name AS who FROM %s WHERE ID() = 5');
SELECT i_on_both('SELECT DISTINCT address.city AS city FROM %s');

-- names in one result are unique: 42712
SELECT * FROM argo_query('SELECT ID(), name AS _id FROM i3');
SELECT * FROM argo_query('SELECT ID(), _id FROM i3');
SELECT * FROM argo_query('SELECT name AS n, age AS n FROM i3');
SELECT * FROM argo_query('SELECT name, age AS name FROM i3');
SELECT * FROM argo_query('INSERT INTO i3 OBJECT {"_id": "mine", "v": 1}');
SELECT * FROM argo_query('SELECT *, ID() FROM i3 WHERE v = 1');
SELECT * FROM argo_query('SELECT *, ID() AS id FROM i3 WHERE v = 1');
-- a returned object counts, one not returned does not
SELECT * FROM argo_query('SELECT *, ID() FROM i3 WHERE age = 25');
-- what is refused
SELECT * FROM argo_query('SELECT *, name FROM i3');
SELECT * FROM argo_query('SELECT ID(), ID() AS x FROM i3');
SELECT * FROM argo_query('SELECT a.name, ID() FROM i3 AS a INNER JOIN i1 AS b ON (a.name = b.name)');
SELECT * FROM argo_query('SELECT a.name FROM i3 AS a INNER JOIN i1 AS b ON (a.name = b.name) ORDER BY ID()');
SELECT * FROM argo_query('SELECT a.name AS n FROM i3 AS a INNER JOIN i1 AS b ON (a.name = b.name)');
SELECT * FROM argo_query('SELECT SUM(ID()) FROM i3');
SELECT * FROM argo_query('SELECT COUNT(*) FROM i3 GROUP BY ID()');
SELECT * FROM argo_query('UPDATE i3 SET x = 1 WHERE ID() BETWEEN 1 AND ''2''');

SELECT argo_drop_collection('i3'), argo_drop_collection('i1');
DROP FUNCTION i_on_both(text), i_run(text, text);
