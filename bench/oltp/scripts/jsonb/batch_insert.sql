\set b :b + 1
\set first :base + (:b - 1) * {batch}
INSERT INTO {ycsb} (doc) SELECT ycsb_doc(x) FROM generate_series(:first::bigint, :first::bigint + {batch} - 1) x;
