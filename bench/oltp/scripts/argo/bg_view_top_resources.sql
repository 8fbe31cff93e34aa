--@zipf
SELECT * FROM argo_query('SELECT * FROM {resources} WHERE walluserid = $1 ORDER BY rid DESC LIMIT 5', to_jsonb(:k::int));
