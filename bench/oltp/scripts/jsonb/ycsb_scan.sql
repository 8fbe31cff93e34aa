--@zipf
\set len random(1, 100)
SELECT doc FROM {ycsb} WHERE doc->'key' >= ycsb_key(:k) ORDER BY doc->'key' LIMIT :len;
