-- argo_grant / argo_revoke: what a reader or a writer of one collection
-- needs, granted in one step; a writer granted too little fails on its
-- first write, naming what it lacks.
SET client_min_messages = warning;
SELECT argo_create_collection('gr');
SELECT * FROM argo_query('INSERT INTO gr OBJECT {"a": 1}');
CREATE ROLE gr_reader;
CREATE ROLE gr_writer;
CREATE ROLE gr_byhand;
SELECT argo_grant('gr', 'gr_reader', 'read'), argo_grant('gr', 'gr_writer', 'write');
SET ROLE gr_reader;
SELECT x FROM argo_query('SELECT * FROM gr') x;
SELECT * FROM argo_query('INSERT INTO gr OBJECT {"b": 2}');
RESET ROLE;
-- a writer adds objects with new keys from the first day, changes and deletes
SET ROLE gr_writer;
SELECT * FROM argo_query('INSERT INTO gr OBJECT {"brand": "new", "a": 7}');
SELECT * FROM argo_query('UPDATE gr SET a = 2, c = true WHERE a = 1');
SELECT * FROM argo_query('DELETE FROM gr WHERE EXISTS brand');
SELECT x FROM argo_query('SELECT * FROM gr') x;
RESET ROLE;
-- the tables granted by hand and the key sequence forgotten: the first
-- write fails, though its document has no new key, naming the sequence
GRANT SELECT, INSERT, UPDATE, DELETE ON argo_data.gr_str, argo_data.gr_num, argo_data.gr_bool, argo_data.gr_obj TO gr_byhand;
GRANT SELECT, INSERT ON argo_data.gr_keys TO gr_byhand;
GRANT USAGE ON SEQUENCE argo_data.gr_seq TO gr_byhand;
SET ROLE gr_byhand;
SELECT * FROM argo_query('INSERT INTO gr OBJECT {"a": 5}');
SELECT * FROM argo_query('UPDATE gr SET a = 3');
RESET ROLE;
SELECT x FROM argo_query('SELECT * FROM gr') x;
-- revoking write leaves read; revoking read takes both
SELECT argo_revoke('gr', 'gr_writer', 'write');
SET ROLE gr_writer;
SELECT count(*) FROM argo_query('SELECT * FROM gr');
SELECT * FROM argo_query('UPDATE gr SET a = 3');
RESET ROLE;
SELECT argo_grant('gr', 'gr_writer', 'write'), argo_revoke('gr', 'gr_writer', 'read');
SELECT c, has_table_privilege('gr_writer', 'argo_data.gr_' || c, 'SELECT') AS sel,
       has_table_privilege('gr_writer', 'argo_data.gr_' || c, 'INSERT') AS ins
  FROM unnest(ARRAY['str', 'num', 'bool', 'keys', 'obj']) c;
SELECT has_sequence_privilege('gr_writer', 'argo_data.gr_kseq', 'USAGE') AS kseq;
SELECT argo_revoke('gr', 'gr_reader', 'read');
SET ROLE gr_reader;
SELECT count(*) FROM argo_query('SELECT * FROM gr');
RESET ROLE;
-- every role is 'public', as written; a role named "Public" is a role of
-- its own, granted and revoked alone, and 'PUBLIC' with no such role is
-- an error saying how every role is written
SELECT argo_grant('gr', 'public', 'READ');
SELECT has_table_privilege('gr_reader', 'argo_data.gr_obj', 'SELECT') AS public_reads;
SELECT argo_revoke('gr', 'public', 'read');
CREATE ROLE "Public";
SELECT argo_grant('gr', 'Public', 'read');
SELECT has_table_privilege('gr_reader', 'argo_data.gr_obj', 'SELECT') AS public_reads,
       has_table_privilege('Public', 'argo_data.gr_obj', 'SELECT') AS role_reads;
SELECT argo_grant('gr', 'public', 'read'), argo_revoke('gr', 'Public', 'read');
SELECT has_table_privilege('gr_reader', 'argo_data.gr_obj', 'SELECT') AS public_reads,
       (SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a
         WHERE c.oid = 'argo_data.gr_obj'::regclass AND a.grantee = '"Public"'::regrole) AS role_grants;
SELECT argo_revoke('gr', 'public', 'read');
SELECT has_table_privilege('gr_reader', 'argo_data.gr_obj', 'SELECT') AS public_reads;
DROP ROLE "Public";
SELECT argo_grant('gr', 'PUBLIC', 'read');
SELECT argo_revoke('gr', 'Public', 'read');
-- errors: an access that is not one, no such role or collection, NULL, a role that may not grant
SELECT argo_grant('gr', 'gr_reader', 'admin');
SELECT argo_grant('gr', 'nobody_at_all', 'read');
SELECT argo_grant('nosuch', 'gr_reader', 'read');
SELECT argo_grant('gr', NULL, 'read');
SET ROLE gr_reader;
SELECT argo_grant('gr', 'gr_reader', 'write');
RESET ROLE;
SELECT argo_drop_collection('gr');
DROP ROLE gr_reader;
DROP ROLE gr_writer;
DROP ROLE gr_byhand;
