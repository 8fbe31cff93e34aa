\set b :b + 1
\set first :base + (:b - 1) * {batch}
SELECT * FROM argo_query('INSERT INTO {ycsb} OBJECT {placeholders}', VARIADIC ARRAY(SELECT ycsb_doc(x) FROM generate_series(:first::bigint, :first::bigint + {batch} - 1) x));
