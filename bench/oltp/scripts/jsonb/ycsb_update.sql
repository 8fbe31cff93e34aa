--@zipf
\set f random(0, 9)
\set v random(1, 1000000000)
UPDATE {ycsb} SET doc = jsonb_set(doc, ARRAY['field' || :f], ycsb_value(:v)) WHERE @eq(key, ycsb_key(:k));
