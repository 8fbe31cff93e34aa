\set b :b + 1
\set first :base + (:b - 1) * {batch}
SELECT * FROM argo_query('DELETE FROM {ycsb} WHERE key IN $1', (SELECT jsonb_agg(ycsb_key(x)) FROM generate_series(:first::bigint, :first::bigint + {batch} - 1) x));
