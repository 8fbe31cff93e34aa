--@zipf
SELECT * FROM argo_query('SELECT * FROM {ycsb} WHERE key = $1', ycsb_key(:k));
