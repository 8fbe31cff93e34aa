-- SELECTs the shards run themselves, merged on the coordinator: every
-- statement gives on the distributed collection the objects it gives on
-- a local one of the same objects (in the same order where it orders)
SELECT stmt, ordered, same(stmt, ordered) AS same
  FROM (VALUES
    ('SELECT * FROM @C', false),
    ('SELECT * FROM @C WHERE age = 25', false),
    ('SELECT * FROM @C WHERE age BETWEEN 20 AND 30 OR name = ''Ada''', false),
    ('SELECT name FROM @C WHERE name LIKE ''n1%''', false),
    ('SELECT name FROM @C WHERE name ILIKE ''ÉVA''', false),
    ('SELECT * FROM @C WHERE ''math'' = ANY tags', false),
    ('SELECT * FROM @C WHERE EXISTS address.zip', false),
    ('SELECT * FROM @C WHERE NOT age < 45', false),
    ('SELECT * FROM @C WHERE age IN (25, 36, 41)', false),
    ('SELECT name, address.city FROM @C WHERE EXISTS address', false),
    ('SELECT * FROM @C WHERE items[*].sku = ''ink''', false),
    ('SELECT * FROM @C WHERE ID() = 2', false),
    ('SELECT name, age FROM @C WHERE age > 10 ORDER BY age DESC, name LIMIT 7', true),
    ('SELECT name FROM @C ORDER BY name LIMIT 5 OFFSET 3', true),
    ('SELECT * FROM @C ORDER BY age, name LIMIT 4', true),
    ('SELECT ID() FROM @C WHERE age = 25 ORDER BY name', true),
    ('SELECT DISTINCT age FROM @C WHERE age < 5', false),
    ('SELECT DISTINCT tags[0] FROM @C ORDER BY tags[0]', true),
    ('SELECT name, price, big FROM @C WHERE EXISTS big', false),
    ('SELECT * FROM @C WHERE age > 1000', false)) s(stmt, ordered)
 ORDER BY stmt;

-- with parameters
SELECT same('SELECT * FROM @C WHERE age > $1 AND age <= 40', false, ARRAY['30'::jsonb]) AS range_param,
       same('SELECT * FROM @C WHERE name IN $1', false, ARRAY['["Ada", "Cy", "n7"]'::jsonb]) AS in_param;

-- what the merge gives, shown: one server's order across types and
-- documents back whole, numbers as written
SELECT x FROM argo_query('SELECT name, age FROM dist WHERE age < 1 OR name IN (''Ada'', ''Dee'', ''Cy'') ORDER BY age, name') x;
SELECT x FROM argo_query('SELECT * FROM dist WHERE name = ''Dee''') x;

-- a join of the distributed collection with a local one, made on the coordinator
SELECT same('SELECT a.name, b.name FROM @C AS a INNER JOIN loc AS b ON (a.age = b.age) WHERE a.age = 36') AS joined;
