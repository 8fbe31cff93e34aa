\set b :b + 1
\set first :base + (:b - 1) * {batch}
DELETE FROM {ycsb} t USING generate_series(:first::bigint, :first::bigint + {batch} - 1) x WHERE @eq(t.key, ycsb_key(x));
