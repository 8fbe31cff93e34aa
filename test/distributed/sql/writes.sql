-- Writes run by the shards: UPDATE, DELETE and INSERT leave the
-- distributed collection holding what the same writes leave locally
SELECT c, (SELECT x FROM argo_query(format('UPDATE %s SET age += 1, seen = true WHERE grp = 3', c)) x) AS updated,
          (SELECT x FROM argo_query(format('DELETE FROM %s WHERE age > 45', c)) x) AS deleted,
          (SELECT x FROM argo_query(format('INSERT INTO %s OBJECT {"name": "new", "age": 7, "price": 2.50}', c)) x) AS inserted
  FROM (VALUES ('dist'), ('loc')) v(c) ORDER BY c;
SELECT same('SELECT * EXCEPT (age) FROM @C') AS same_objects, same('SELECT age FROM @C') AS same_ages;
SELECT x FROM argo_query('UPDATE dist SET tags APPEND "new" WHERE name = ''Ada'' RETURNING *') x;
SELECT x FROM argo_query('SELECT name, price FROM dist WHERE name = ''new''') x;
-- the objects' ids stay unique across the shards
SELECT count(*) = count(DISTINCT x->>'_id') AS unique_ids FROM argo_query('SELECT ID() FROM dist') x;
