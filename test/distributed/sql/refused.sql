-- What a distributed collection cannot run yet is refused with 0A000
-- naming it, never answered differently (sections 8.1-8.7)
SELECT * FROM argo_query('SELECT * FROM dist WHERE EXISTS items[? qty > 1]');
SELECT * FROM argo_query('SELECT grp, ARRAY_AGG(name) FROM dist GROUP BY grp');
SELECT * FROM argo_query('SELECT * FROM dist WHERE tags[-1] = ''t1''');
SELECT * FROM argo_query('SELECT * FROM dist WHERE name @@ ''ada''');
SELECT argo_validate('dist', '{"required": ["name"]}');
SELECT argo_expire('dist', 'seen', '1 day');
SELECT argo_text('dist', 'name');
SELECT argo_load('dist', $$SELECT '{"_id": 9999}'::jsonb$$, true);
-- nothing changed
SELECT argo_count('dist'), (SELECT schema FROM argo_collections WHERE name = 'dist') AS schema,
       (SELECT expiry FROM argo_collections WHERE name = 'dist') AS expiry;
