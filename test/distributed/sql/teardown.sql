-- Dropping the distributed collection drops the shards' parts
SELECT argo_drop_collection('dist'), argo_drop_collection('loc');
SELECT name FROM argo_collections;
SELECT s.name, (SELECT count(*) FROM dblink(s.name, 'SELECT 1 FROM pg_class WHERE relnamespace = ''argo_data''::regnamespace') AS t(x int)) AS tables_left
  FROM (VALUES ('shard1'), ('shard2'), ('shard3')) s(name);
DROP USER MAPPING FOR CURRENT_USER SERVER shard1;
DROP USER MAPPING FOR CURRENT_USER SERVER shard2;
DROP USER MAPPING FOR CURRENT_USER SERVER shard3;
DROP SERVER shard1, shard2, shard3;
