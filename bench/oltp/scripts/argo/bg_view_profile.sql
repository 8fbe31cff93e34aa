--@zipf
SELECT * FROM argo_query('SELECT * FROM {members} WHERE userid = $1', to_jsonb(:k::int));
