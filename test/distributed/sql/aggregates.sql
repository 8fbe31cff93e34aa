-- Aggregates combined from the shards' groups: the same answers as one
-- server's, groups, HAVING and ORDER BY of aggregates included
SELECT stmt, same(stmt, ordered) AS same
  FROM (VALUES
    ('SELECT COUNT(*) FROM @C', false),
    ('SELECT grp, COUNT(*) FROM @C GROUP BY grp', false),
    ('SELECT grp, SUM(age), MIN(age), MAX(age), AVG(age) FROM @C GROUP BY grp', false),
    ('SELECT grp, COUNT(*) AS n FROM @C GROUP BY grp HAVING COUNT(*) > 42', false),
    ('SELECT tags[0], COUNT(*) FROM @C GROUP BY tags[0]', false),
    ('SELECT COUNT(DISTINCT age) FROM @C', false),
    ('SELECT address.city, COUNT(*) FROM @C GROUP BY address.city', false),
    ('SELECT grp, COUNT(*) AS n FROM @C GROUP BY grp ORDER BY n DESC, grp LIMIT 3', true),
    ('SELECT items[*].sku, SUM(items[*].qty) FROM @C GROUP BY items[*].sku', false)) s(stmt, ordered)
 ORDER BY stmt;
SELECT x FROM argo_query('SELECT grp, COUNT(*) AS n, SUM(age) AS s FROM dist GROUP BY grp ORDER BY grp') x;
