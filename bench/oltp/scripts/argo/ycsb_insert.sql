\set ins :ins + 1
\set key :base + :client_id * 10000000 + :ins
SELECT * FROM argo_query('INSERT INTO {ycsb} OBJECT $1', ycsb_doc(:key));
