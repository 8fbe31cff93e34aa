--@zipf
\set k :n - 1 - :r
SELECT doc FROM {ycsb} WHERE @eq(key, ycsb_key(:k));
