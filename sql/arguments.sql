-- Bad arguments to the distributed-collection and change-feed functions:
-- each a clean error (its SQLSTATE echoed after it), and nothing left
-- behind.  Plain statements, not a catching function like errors.sql's:
-- argo_create_distributed_collection refuses to run in a subtransaction.
\set VERBOSITY default
\set SHOW_CONTEXT never
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION dblink;
CREATE SERVER ni_fdw FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '1', dbname 'x');
CREATE SERVER ni_other FOREIGN DATA WRAPPER dblink_fdw;
\set VERBOSITY terse
-- distributed collections: every refusal before anything is made
SELECT argo_create_distributed_collection('ni', NULL);
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', '{}');
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', ARRAY[NULL]);
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', ARRAY[['ni_fdw'], ['ni_fdw']]);
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', array_fill('ni_fdw'::text, ARRAY[65]));
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', ARRAY['nosuch']);
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', ARRAY['ni_other']);
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', ARRAY['ni_fdw'], 'argo9');
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', ARRAY['ni_fdw'], NULL);
\echo :SQLSTATE
SELECT argo_create_distributed_collection(NULL, ARRAY['ni_fdw']);
\echo :SQLSTATE
BEGIN;
SELECT argo_create_distributed_collection('ni', ARRAY['ni_fdw']);
\echo :SQLSTATE
ROLLBACK;
-- no user mapping (the message names the role: code only), then bad
-- names, then a server that does not answer
\set VERBOSITY sqlstate
SELECT argo_create_distributed_collection('ni', ARRAY['ni_fdw']);
\echo :SQLSTATE
\set VERBOSITY terse
CREATE USER MAPPING FOR CURRENT_USER SERVER ni_fdw;
SELECT argo_create_distributed_collection('ni', ARRAY['ni_fdw', 'ni_fdw']);
\echo :SQLSTATE
SELECT argo_create_distributed_collection('bad name', ARRAY['ni_fdw']);
\echo :SQLSTATE
SELECT argo_create_distributed_collection(repeat('n', 55), ARRAY['ni_fdw']);
\echo :SQLSTATE
SELECT argo_create_distributed_collection('ni', ARRAY['ni_fdw']);
\echo :SQLSTATE
SELECT count(*) AS left_behind FROM pg_class WHERE relname ~ '^(ni|bad name|n{55})_';
-- the change feed
SELECT * FROM argo_query('INSERT INTO nif OBJECT {"a": 1}');
SELECT argo_feed(NULL);
\echo :SQLSTATE
SELECT argo_feed('nif', NULL);
\echo :SQLSTATE
SELECT argo_feed('nif', true, NULL);
\echo :SQLSTATE
SELECT argo_feed('nif', true, false, NULL);
\echo :SQLSTATE
-- adopting shards: only a distributed collection has them
SELECT argo_adopt_shards('nif');
\echo :SQLSTATE
SELECT argo_adopt_shards(NULL);
\echo :SQLSTATE
SELECT argo_adopt_shards('nosuch');
\echo :SQLSTATE
SELECT argo_feed('nosuch');
\echo :SQLSTATE
-- refused (55000) exactly when wal_level is not logical
DO $$
BEGIN
	PERFORM argo_feed('nif');
	IF current_setting('wal_level') <> 'logical' THEN
		RAISE EXCEPTION 'a feed was turned on at wal_level %', current_setting('wal_level');
	END IF;
EXCEPTION WHEN object_not_in_prerequisite_state THEN
	IF current_setting('wal_level') = 'logical' THEN
		RAISE;
	END IF;
END $$;
SELECT argo_feed('nif', false);
\echo :SQLSTATE
SELECT count(*) AS feed_tables FROM pg_class WHERE relname = 'nif_feed';
SELECT * FROM argo_changes(NULL);
\echo :SQLSTATE
SELECT * FROM argo_changes('s', 'nif', 'not a token');
\echo :SQLSTATE
SELECT * FROM argo_changes('s', 'nif', '0/0:x');
\echo :SQLSTATE
SELECT * FROM argo_changes('s', NULL, NULL, 0);
\echo :SQLSTATE
SELECT * FROM argo_changes('nosuch_slot');
\echo :SQLSTATE
SELECT argo_feed_slot(NULL);
\echo :SQLSTATE
-- a slot that is not Argo's (a physical one: any wal_level makes it)
SELECT 1 FROM pg_create_physical_replication_slot('ni_physical');
SELECT * FROM argo_changes('ni_physical');
\echo :SQLSTATE
SELECT argo_changes_ack('ni_physical', '000000000000000000000000');
\echo :SQLSTATE
SELECT pg_drop_replication_slot('ni_physical');
SELECT argo_changes_ack('s', '0000');
\echo :SQLSTATE
SELECT argo_changes_ack('s', NULL);
\echo :SQLSTATE
SELECT argo_changes_ack(NULL, '0/0:0');
\echo :SQLSTATE
-- who may use slots is asked first (42501), then whether the slot is
-- there (42704), then the token (22023): nothing of a slot is told to a
-- role that may not use it
CREATE ROLE ni_norepl;
SET ROLE ni_norepl;
SELECT argo_changes_ack('nosuch_slot', 'not a token');
\echo :SQLSTATE
SELECT * FROM argo_changes('nosuch_slot', NULL, 'not a token');
\echo :SQLSTATE
RESET ROLE;
DROP ROLE ni_norepl;
SELECT argo_changes_ack('nosuch_slot', 'not a token');
\echo :SQLSTATE
SELECT * FROM argo_changes('nosuch_slot', NULL, 'not a token', 0);
\echo :SQLSTATE
\set VERBOSITY default
SELECT argo_drop_collection('nif');
DROP USER MAPPING FOR CURRENT_USER SERVER ni_fdw;
DROP SERVER ni_fdw;
DROP SERVER ni_other;
DROP EXTENSION postgres_fdw;
DROP EXTENSION dblink;
-- a parameter that is not jsonb: PostgreSQL's parser finds no function,
-- and the hint says how to pass one
\set VERBOSITY default
SELECT * FROM argo_query('SELECT * FROM nosuch WHERE a = $1', 'x'::text);
SELECT * FROM argo_query('SELECT * FROM nosuch WHERE a = $1', 6);
SELECT * FROM public.argo_explain('SELECT * FROM nosuch WHERE a = $1', 6.5);
-- other functions keep PostgreSQL's hint
SELECT * FROM argo_count(6);
\set VERBOSITY terse
\set VERBOSITY default
SELECT * FROM argo_query(6);
\set VERBOSITY terse
-- every parameter jsonb but the function not found (another schema): PostgreSQL's hint
CREATE SCHEMA nohint;
SET search_path = nohint;
\set VERBOSITY default
SELECT * FROM argo_query('SELECT 1', '1'::jsonb);
\set VERBOSITY terse
RESET search_path;
DROP SCHEMA nohint;
-- a shard's functions, called with what no coordinator sends
SELECT argo_create_collection('shardpart', 'argo3');
-- only a shard's part takes ids drawn elsewhere: a collection that numbers
-- its own objects is refused (its sequence would give the ids out again),
-- whoever calls; its owner's first call marks a part never numbered here,
-- as a coordinator marks the parts it makes
SELECT * FROM argo_query('INSERT INTO shardpart OBJECT {"a": 0}');
SELECT argo_shard_insert('shardpart', '{3,4}', ARRAY['{"a": 3}'::jsonb, '{"a": 4}'::jsonb]);
\echo :SQLSTATE
BEGIN;
SELECT argo_shard_load('shardpart', true);
\echo :SQLSTATE
ROLLBACK;
CREATE ROLE shard_writer;
SELECT argo_create_collection('localpart', 'argo3');
SELECT argo_grant('localpart', 'shard_writer', 'write');
SET ROLE shard_writer;
SELECT argo_shard_insert('localpart', '{3,4}', ARRAY['{"a": 3}'::jsonb, '{"a": 4}'::jsonb]);
\echo :SQLSTATE
RESET ROLE;
SELECT * FROM argo_query('INSERT INTO localpart OBJECTS $1 RETURNING ID', '[{"b": 1}, {"b": 2}, {"b": 3}, {"b": 4}]');
SELECT argo_revoke('localpart', 'shard_writer', 'read');
DROP ROLE shard_writer;
SELECT argo_drop_collection('localpart');
SELECT * FROM argo_query('DELETE FROM shardpart');
SELECT argo_drop_collection('shardpart');
SELECT argo_create_collection('shardpart', 'argo3');
SELECT argo_shard_insert('shardpart', '{}', '{}') AS marked;
SELECT obj_description('argo_data.shardpart_obj'::regclass, 'pg_class') AS mark;
SELECT argo_shard_insert('shardpart', '{-7}', ARRAY['{"a": 1}'::jsonb]);
\echo :SQLSTATE
SELECT * FROM argo_shard_rows(NULL, '[]', 0, -1);
\echo :SQLSTATE
SELECT * FROM argo_shard_rows('SELECT * FROM shardpart', NULL, 0, -1);
\echo :SQLSTATE
SELECT * FROM argo_shard_rows('SELECT * FROM shardpart', '{"a": 1}', 0, -1);
\echo :SQLSTATE
SELECT * FROM argo_shard_rows('INSERT INTO shardpart OBJECT {"a": 1}', '[]', 0, -1);
\echo :SQLSTATE
SELECT * FROM argo_shard_rows('SELECT COUNT(DISTINCT a) FROM shardpart', '[]', 0, -1);
\echo :SQLSTATE
-- a dictionary behind the coordinator's newest key: one row of NULLs, nothing run
SELECT * FROM argo_shard_rows('SELECT * FROM shardpart', '[]', 999, -1);
SELECT argo_shard_insert('shardpart', NULL, '{}');
\echo :SQLSTATE
SELECT argo_shard_insert('shardpart', '{1,2}', ARRAY['{"a": 1}'::jsonb]);
\echo :SQLSTATE
SELECT argo_shard_insert('shardpart', '{1}', ARRAY['[1]'::jsonb]);
\echo :SQLSTATE
SELECT argo_shard_insert('shardpart', '{1}', ARRAY[NULL::jsonb]);
\echo :SQLSTATE
SELECT argo_shard_insert('shardpart', '{1}', ARRAY['{"zz": 1}'::jsonb]);
\echo :SQLSTATE
SELECT argo_shard_insert('no_such_collection', '{1}', ARRAY['{"a": 1}'::jsonb]);
\echo :SQLSTATE
SELECT count(*) AS objects, (SELECT count(*) FROM argo_data.shardpart_keys) AS keys FROM argo_data.shardpart_obj;
-- a load's beginning and end: only inside a transaction block, only of a collection that exists,
-- and a transaction that began one and commits without ending it fails (its indexes come back)
SELECT argo_create_collection('shardload', 'argo3');
SELECT argo_shard_insert('shardload', '{}', '{}') AS marked;
SELECT argo_shard_load('shardload', true);
\echo :SQLSTATE
BEGIN;
SELECT argo_shard_load('no_such_collection', true);
\echo :SQLSTATE
ROLLBACK;
BEGIN;
SELECT argo_shard_load('shardload', NULL);
\echo :SQLSTATE
ROLLBACK;
BEGIN;
SELECT argo_shard_load('shardload', true) AS dropped;
COMMIT;
\echo :SQLSTATE
SELECT count(*) AS indexes FROM pg_index WHERE indrelid::regclass::text LIKE 'argo_data.shardload%';
BEGIN;
SELECT argo_shard_load('shardload', true) AS dropped;
SELECT count(*) AS indexes FROM pg_index WHERE indrelid::regclass::text LIKE 'argo_data.shardload%';
SELECT argo_shard_load('shardload', false) AS built;
COMMIT;
SELECT count(*) AS indexes FROM pg_index WHERE indrelid::regclass::text LIKE 'argo_data.shardload%';
-- loads of two collections in one transaction are two loads: ending one
-- does not end the other, whose missing indexes fail the commit; a load
-- begun twice is an error; argo_check names an index a collection lacks
SELECT argo_create_collection('shardload2', 'argo3');
SELECT argo_shard_insert('shardload2', '{}', '{}') AS marked;
BEGIN;
SELECT argo_shard_load('shardload', true) AS dropped, argo_shard_load('shardload2', true) AS dropped2;
SELECT argo_shard_load('shardload2', false) AS built2;
COMMIT;
\echo :SQLSTATE
SELECT count(*) AS indexes FROM pg_index WHERE indrelid::regclass::text LIKE 'argo_data.shardload\_%';
BEGIN;
SELECT argo_shard_load('shardload', true) AS dropped;
SELECT argo_shard_load('shardload', true) AS dropped;
\echo :SQLSTATE
ROLLBACK;
DROP INDEX argo_data.shardload_num_objid_idx;
SELECT * FROM argo_check('shardload');
SELECT argo_drop_collection('shardload2');
SELECT name FROM argo_collections WHERE name LIKE 'no_such%';
SELECT argo_drop_collection('shardload');
-- a join's source: its own conjuncts, each condition's value under a name of its own, the first item's ids
SELECT * FROM argo_query('INSERT INTO shardpart OBJECTS $1', '[{"a": 1, "b": "x"}, {"a": 2}, {"c": 3}]');
SELECT doc OPERATOR(pg_catalog.-) E'\u0001jid' AS doc, doc ? E'\u0001jid' AS with_id
  FROM argo_shard_join_part('SELECT p.b, q.a FROM shardpart AS p LEFT JOIN shardpart AS q ON (p.a = q.a) WHERE p.a < 2 OR p.c = 3', '[]', 0, 0, NULL);
SELECT doc FROM argo_shard_join_part('SELECT * FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a)', '[]', 0, 1, '[2, "x"]');
SELECT doc FROM argo_shard_join_part('SELECT p.b FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a) WHERE q.a > $1', '[0]', 0, 1, '[1, 2]');
SELECT * FROM argo_shard_join_part('SELECT * FROM shardpart', '[]', 0, 0, NULL);
\echo :SQLSTATE
SELECT * FROM argo_shard_join_part('SELECT * FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a)', '[]', 0, 2, NULL);
\echo :SQLSTATE
SELECT * FROM argo_shard_join_part('SELECT * FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a)', '[]', 0, 0, '[1]');
\echo :SQLSTATE
SELECT * FROM argo_shard_join_part('SELECT * FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a)', '[]', 0, NULL, NULL);
\echo :SQLSTATE
SELECT * FROM argo_shard_join_part('SELECT * FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a)', '[]', 0, 1, '{"a": 1}');
\echo :SQLSTATE
SELECT * FROM argo_shard_join_part('SELECT COUNT(*) FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a)', '[]', 0, 1, NULL);
\echo :SQLSTATE
SELECT * FROM argo_shard_join_part('SELECT * FROM shardpart AS p JOIN shardpart AS q ON (p.a = q.a)', '[]', 999, 1, NULL);
-- a shard's part of a write: keys only from its copy of the dictionary
SELECT doc FROM argo_shard_write('UPDATE shardpart SET a += 10 WHERE a = 1 RETURNING ID', '[]', 0);
-- a key its copy lacks: nothing written, the keys named for the coordinator to add
SELECT doc FROM argo_shard_write('UPDATE shardpart SET fresh = 1, b = {"n": [1]} WHERE a = 2', '[]', 0);
SELECT * FROM argo_query('SELECT * FROM shardpart WHERE a = 2');
SELECT doc FROM argo_shard_write('SELECT * FROM shardpart', '[]', 0);
\echo :SQLSTATE
SELECT doc FROM argo_shard_write('UPSERT shardpart SET a = 1 WHERE a = 99', '[]', 0);
\echo :SQLSTATE
-- RETURNING *: each object with its id; where keys lack, none of them, only the keys
SELECT objid > 0 AS with_id, doc FROM argo_shard_write('UPDATE shardpart SET a = 7 WHERE c = 3 RETURNING *', '[]', 0);
SELECT objid > 0 AS with_id, doc FROM argo_shard_write('UPDATE shardpart SET fresh = true WHERE a > 0 RETURNING *', '[]', 0);
SELECT doc FROM argo_shard_write('DELETE FROM shardpart', '[]', 999);
\echo :SQLSTATE
SELECT doc FROM argo_shard_write('DELETE FROM shardpart WHERE a > $1', '[5]', 0);
SELECT * FROM argo_query('SELECT * FROM shardpart');
SELECT argo_drop_collection('shardpart');
