--@zipf
\set f random(0, 9)
\set v random(1, 1000000000)
SELECT * FROM argo_query('UPDATE {ycsb} SET field' || :f || ' = $1 WHERE key = $2', ycsb_value(:v), ycsb_key(:k));
