-- PostgreSQL's own corruption checks find nothing wrong with a collection
-- whose documents moved and were read again: a value row's doctid is a
-- hint set again in place, and no index holds it (amcheck's
-- heapallindexed found the numeric index's copy differing from its heap).
CREATE EXTENSION amcheck;
SELECT argo_load('moved', $$SELECT jsonb_build_object('n', i, 's', 'k' || i, 'b', i % 2 = 0, 'pad', '')
                             FROM generate_series(1, 2000) i$$);
SELECT argo_create_collection('moved1', 'argo1');
SELECT argo_load('moved1', $$SELECT jsonb_build_object('n', i, 's', 'k' || i, 'b', i % 2 = 0, 'pad', '')
                              FROM generate_series(1, 2000) i$$);
-- documents grow past their pages (new chains), their other rows stay
SELECT * FROM argo_query('UPDATE moved SET pad = $1 WHERE n <= 300', to_jsonb(repeat('x', 1500)));
SELECT * FROM argo_query('UPDATE moved1 SET pad = $1 WHERE n <= 300', to_jsonb(repeat('x', 1500)));
-- reads through every kind of row, which set the hints again
SELECT count(*) FROM argo_query('SELECT * FROM moved WHERE n BETWEEN 1 AND 400');
SELECT count(*) FROM argo_query('SELECT * FROM moved WHERE s IN (''k1'', ''k2'', ''k250'')');
SELECT count(*) FROM argo_query('SELECT * FROM moved WHERE b = true AND n < 300');
SELECT count(*) FROM argo_query('SELECT * FROM moved1 WHERE n BETWEEN 1 AND 400');
SELECT count(*) FROM argo_query('SELECT * FROM moved1 WHERE s IN (''k1'', ''k2'', ''k250'')');
VACUUM argo_data.moved_num, argo_data.moved_str, argo_data.moved_doc;
SELECT count(*) FROM argo_query('SELECT * FROM moved WHERE n BETWEEN 1 AND 400');
SELECT c.relname AS index, pg_typeof(bt_index_check(c.oid, true)) AS checked
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
 WHERE t.relnamespace = 'argo_data'::regnamespace AND t.relname ~ '^moved1?_' AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'btree')
 ORDER BY 1;
SELECT t.relname AS table, count(v.*) AS problems
  FROM pg_class t LEFT JOIN LATERAL verify_heapam(t.oid) v ON true
 WHERE t.relnamespace = 'argo_data'::regnamespace AND t.relname ~ '^moved1?_' AND t.relkind = 'r'
 GROUP BY 1 ORDER BY 1;
SELECT * FROM argo_check('moved');
SELECT argo_drop_collection('moved');
SELECT argo_drop_collection('moved1');
DROP EXTENSION amcheck;
