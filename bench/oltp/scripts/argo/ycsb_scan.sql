--@zipf
\set len random(1, 100)
SELECT * FROM argo_query('SELECT * FROM {ycsb} WHERE key >= $1 ORDER BY key LIMIT $2', ycsb_key(:k), to_jsonb(:len::int));
