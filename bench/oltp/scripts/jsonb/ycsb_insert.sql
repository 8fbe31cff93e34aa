\set ins :ins + 1
\set key :base + :client_id * 10000000 + :ins
INSERT INTO {ycsb} (doc) VALUES (ycsb_doc(:key));
