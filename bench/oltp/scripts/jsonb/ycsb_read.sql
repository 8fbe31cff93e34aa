--@zipf
SELECT doc FROM {ycsb} WHERE @eq(key, ycsb_key(:k));
