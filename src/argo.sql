-- Argo: a JSON document store on PostgreSQL's relational engine.
\echo Use "CREATE EXTENSION argo" to load this file. \quit

-- The functions run with jit = off: Argo's statements are index-driven
-- and short, and the planner's estimates over vertical tables can be far
-- too high, which made JIT compile for longer than the query ran.
--
-- They run with search_path = pg_catalog, pg_temp, so that nothing Argo
-- runs can resolve a name through the caller's path (CVE-2018-1058); the
-- SQL they generate names every function and operator by schema as well.
-- Two exceptions: argo_load runs the caller's own query as written, with
-- the caller's path (README, "Security"); argo_object, called once per
-- object, pins the path itself around the only SQL it may run (under
-- row-level security): a SET clause doubled its cost.

-- Every collection's tables and sequence live here.  Creating a collection
-- needs CREATE on this schema; reading or writing one needs privileges on
-- its tables (see README, "Access control").
CREATE SCHEMA argo_data;
GRANT USAGE ON SCHEMA argo_data TO PUBLIC;

-- argo_query's planner support: loading the library while a query is
-- planned lets FROM argo_query(...) become a scan whose results stream
-- (src/fn/scan.c).
CREATE FUNCTION argo_query_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'argo_query_support'
LANGUAGE C STRICT SECURITY INVOKER;

COMMENT ON FUNCTION argo_query_support(internal) IS
'argo_query''s planner support: lets FROM argo_query(...) be planned as a scan whose results stream';

CREATE FUNCTION argo_query(query text, VARIADIC params jsonb[] DEFAULT '{}')
RETURNS SETOF jsonb
AS 'MODULE_PATHNAME', 'argo_query'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SUPPORT argo_query_support
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_query(text, jsonb[]) IS
'Run one Argo/SQL statement; $1..$n in it stand for the given JSON values';

-- argo_query for a read of every object, which the planner hook
-- (src/fn/scan.c) puts in its place so that the read may be planned in
-- parallel; argo_query, which may write, is PARALLEL UNSAFE.
CREATE FUNCTION argo_query_read(query text, VARIADIC params jsonb[] DEFAULT '{}')
RETURNS SETOF jsonb
AS 'MODULE_PATHNAME', 'argo_query_read'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_query_read(text, jsonb[]) IS
'argo_query for a SELECT, as the planner puts it where a read of every object may run in parallel; needs EXECUTE on argo_query';

CREATE FUNCTION argo_explain(query text, VARIADIC params jsonb[] DEFAULT '{}')
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'argo_explain'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_explain(text, jsonb[]) IS
'The SQL an Argo/SQL statement runs, its parameters and its plan';

CREATE FUNCTION argo_create_collection(name text, format text DEFAULT 'argo3')
RETURNS void
AS 'MODULE_PATHNAME', 'argo_create_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_create_collection(text, text) IS
'Create an empty collection, format argo3 (default) or argo1';

CREATE FUNCTION argo_adopt_shards(collection text)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_adopt_shards'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_adopt_shards(text) IS
'Make this database the coordinator of a distributed collection (a restored copy that replaces the original), its owner only';

CREATE FUNCTION argo_drop_collection(name text, if_exists boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_drop_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_drop_collection(text, boolean) IS
'Drop a collection and its tables (its owner only); with if_exists, no error when it is missing';

CREATE FUNCTION argo_load(collection text, query text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_load(text, text) IS
'Insert every document (jsonb, json or text) a query returns; returns the count';

CREATE FUNCTION argo_load_file(collection text, path text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load_file'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_load_file(text, text) IS
'Insert the objects of a JSON-lines file on the server; returns the count';

-- Every object of a collection into a JSON-lines file on the server, as
-- argo_load_file reads it back (src/fn/export.c).
CREATE FUNCTION argo_export_file(collection text, path text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_export_file'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_export_file(text, text) IS
'Write every object of a collection to a JSON-lines file on the server, one object a line, as argo_load_file reads it; returns the count';

CREATE FUNCTION argo_count(collection text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_count'
LANGUAGE C STABLE STRICT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_count(text) IS
'The number of objects in a collection';

CREATE FUNCTION argo_object(collection text, id bigint)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_object'
LANGUAGE C STABLE STRICT PARALLEL SAFE SECURITY INVOKER
COST 100;

COMMENT ON FUNCTION argo_object(text, bigint) IS
'The object with this id, or NULL; read-only and parallel safe, so that large reads can rebuild objects in parallel workers';

-- The sort key of ORDER BY taken from a kept document (src/doc/sortkey.c):
-- one text that orders as the value tables' valnum, valstr, valbool in turn.
CREATE FUNCTION argo_sort_key(doc jsonb, path jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'argo_sort_key'
LANGUAGE C STABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_sort_key(jsonb, jsonb) IS
'ORDER BY''s key from a document: the value at the path (a jsonb array of keys and positions) as text that sorts in the "C" collation as Argo orders values (numbers, strings, booleans), else NULL';

-- A predicate through a filter [? pred] judged on one object (src/doc/docpred.c):
-- TRUE, FALSE or NULL (unknown), for the candidates the value indexes found.
CREATE FUNCTION argo_filter_test(doc jsonb, spec jsonb)
RETURNS boolean
AS 'MODULE_PATHNAME', 'argo_filter_test'
LANGUAGE C STABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_filter_test(jsonb, jsonb) IS
'Whether an object passes a predicate through a filter [? pred], given as Argo''s jsonb spec: true, false or NULL for unknown';

-- The values a path (with [*]) reaches in a document, as an array: what
-- ARRAY_AGG of a [*] path adds for each object (src/doc/docpred.c).
CREATE FUNCTION argo_values_at(doc jsonb, path jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_values_at'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_values_at(jsonb, jsonb) IS
'The values a path (a JSON array of steps, {"*": true} for [*]) reaches in a document, in document order, as an array; NULL where it reaches none';

-- What an expression computes on a document (src/fn/compute.c): the values
-- an aggregate over an expression adds, one, or one per array element.
CREATE FUNCTION argo_compute(doc jsonb, spec jsonb, elem integer DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_compute'
LANGUAGE C STABLE PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_compute(jsonb, jsonb, integer) IS
'The values an expression ({"x": expression, "each": [steps to an array]}) computes on a document, one per element of that array (or of element elem alone), as an array; NULL where none';

-- A value row's number exactly as written: what SUM and AVG add (src/fn/compute.c).
CREATE FUNCTION argo_exact(valnum float8, valexact text)
RETURNS numeric
AS 'MODULE_PATHNAME', 'argo_exact'
LANGUAGE C IMMUTABLE PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_exact(float8, text) IS
'A number of a value table as written: its exact text where the row keeps one (valexact), else its double''s shortest decimal; NULL for no number';

-- Objects that expire (src/fn/expire.c): the path whose timestamp ages each
-- object and how long it lives after it; the deletion of what has expired,
-- which the background worker runs once a minute where the library is
-- preloaded; and the timestamps an expiry path may hold.
CREATE FUNCTION argo_expire(collection text, path text, after interval)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_expire'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_expire(text, text, interval) IS
'Objects whose timestamp at the path (an ISO 8601 string with its zone, or seconds since 1970) is older than now() - after are deleted (argo_expire_now, and the background worker); after NULL removes it; the owner only';

CREATE FUNCTION argo_expire_now(collection text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_expire_now'
LANGUAGE C VOLATILE STRICT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_expire_now(text) IS
'Delete the collection''s expired objects now, through Argo''s DELETE; how many';

CREATE FUNCTION argo_expire_now(collection text, max_objects bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_expire_now'
LANGUAGE C VOLATILE STRICT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_expire_now(text, bigint) IS
'Delete at most max_objects of the collection''s expired objects now, through Argo''s DELETE; how many (the background worker''s batch)';

CREATE FUNCTION argo_expiry_time(value text)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'argo_expiry_time'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_expiry_time(text) IS
'An ISO 8601 timestamp with its time zone as timestamptz, else NULL: what an expiry path may hold as a string';

-- A JSON Schema every object of a collection satisfies (src/doc/docschema.c),
-- checked now against what is stored and then on every write; NULL removes it.
CREATE FUNCTION argo_validate(collection text, schema jsonb)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_validate'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_validate(text, jsonb) IS
'Set the JSON Schema every object of the collection must satisfy (checked now against the stored objects, then on every write), or remove it with NULL; the owner only';

-- Text search (p @@ 'query', src/doc/docpred.c): the text of the strings at
-- a path, what an argo_text index holds; and that index, by the owner.
CREATE FUNCTION argo_text_vector(doc jsonb, path jsonb, config regconfig)
RETURNS tsvector
AS 'MODULE_PATHNAME', 'argo_text_vector'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_text_vector(jsonb, jsonb, regconfig) IS
'The text search vector of the strings at a path of a document (a JSON array of steps), under the configuration: what an argo_text index holds';

CREATE FUNCTION argo_text(collection text, path text, config regconfig DEFAULT 'pg_catalog.simple')
RETURNS void
AS 'MODULE_PATHNAME', 'argo_text'
LANGUAGE C VOLATILE STRICT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_text(text, text, regconfig) IS
'Index the strings at a path of a collection''s kept documents for text search (p @@ ''query'') under a configuration (simple unless given); the owner only';

-- A shard's part of a SELECT on a distributed collection, called by the
-- coordinator on postgres_fdw's connection (src/exec/shard/shardpart.c): the
-- results of the statement on this server's collection of the name, each
-- with its object id, for the coordinator to merge.
CREATE FUNCTION argo_shard_rows(query text, params jsonb, keys_through integer, row_limit bigint)
RETURNS TABLE (objid bigint, doc jsonb)
AS 'MODULE_PATHNAME', 'argo_shard_rows'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_shard_rows(text, jsonb, integer, bigint) IS
'A shard''s part of a SELECT of a distributed collection: its results with their object ids, its first row_limit (< 0: all), or an aggregate''s groups with partial aggregates; one row of NULLs if this shard''s key dictionary lacks key keys_through';

-- A join's source pulled by the coordinator (src/exec/shard/shardjoin.c): the
-- objects of one FROM item of the join on this server that the WHERE
-- conjuncts naming only it keep, with their join conditions' values.
CREATE FUNCTION argo_shard_join_part(query text, params jsonb, keys_through integer, source integer, keyvals jsonb)
RETURNS TABLE (objid bigint, doc jsonb)
AS 'MODULE_PATHNAME', 'argo_shard_join_part'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_shard_join_part(text, jsonb, integer, integer, jsonb) IS
'A shard''s part of a join of distributed collections: the objects of FROM item source (0 first) that its own WHERE conjuncts keep, whole or as its targets plus each join condition''s value, in object id order; keyvals (a JSON array or NULL) keeps those whose join condition''s value is among them; one row of NULLs if this shard''s key dictionary lacks key keys_through';

-- A result's binary form for the coordinator (src/exec/shard/shardread.c), which
-- checks it rather than parsing its text again (src/doc/jsonbcheck.c).
CREATE FUNCTION argo_jsonb_bytes(doc jsonb)
RETURNS bytea
AS 'MODULE_PATHNAME', 'argo_jsonb_bytes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_jsonb_bytes(jsonb) IS
'A jsonb value''s binary form (its container bytes) as bytea, for a coordinator that reads a shard''s results in binary';

-- A shard's part of an UPDATE or DELETE of a distributed collection
-- (src/exec/shard/shardwrite.c), in the coordinator's remote transaction: run
-- on this server's collection of the name with its copy of the dictionary.
CREATE FUNCTION argo_shard_write(query text, params jsonb, keys_through integer)
RETURNS TABLE (objid bigint, doc jsonb)
AS 'MODULE_PATHNAME', 'argo_shard_write'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_shard_write(text, jsonb, integer) IS
'A shard''s part of an UPDATE or DELETE of a distributed collection: the statement run on this server''s objects, every key from its copy of the dictionary (an error if it lacks key keys_through); its count, with RETURNING ID its ids';

-- New objects of a distributed collection, sent whole by the coordinator
-- with the ids it drew (src/store/shard/shardconn.c): written here as a local
-- insert writes them.
CREATE FUNCTION argo_shard_insert(collection text, ids bigint[], docs jsonb[])
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_shard_insert'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_shard_insert(text, bigint[], jsonb[]) IS
'A shard''s part of an insert into a distributed collection: the objects with the ids the coordinator drew, every key already in this shard''s copy of the dictionary; the number written';

-- A coordinator's load into an empty distributed collection begins or ends
-- (src/fn/load.c): this shard's indexes of it dropped, then built once.
CREATE FUNCTION argo_shard_load(collection text, begin boolean)
RETURNS integer
AS 'MODULE_PATHNAME', 'argo_shard_load'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_shard_load(text, boolean) IS
'A coordinator''s load into an empty distributed collection: at its beginning (begin true) Argo''s indexes of this shard''s part are dropped if it is empty, at its end built again; how many';

CREATE FUNCTION argo_keys(collection text, sample bigint DEFAULT 10000)
RETURNS TABLE (path text, types text[], objects bigint, is_unique boolean, exact boolean)
AS 'MODULE_PATHNAME', 'argo_keys'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_keys(text, bigint) IS
'A collection''s schema: each path (array positions as [*]), the JSON types there, in how many objects (counted in a sample of about that many objects and scaled unless exact; NULL counts all), whether argo_unique made it unique';

-- A unique key (reference.md §5.9): partial unique indexes on the
-- collection's value tables, made or dropped by its owner.
CREATE FUNCTION argo_unique(collection text, path text, enabled boolean DEFAULT true)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_unique'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_unique(text, text, boolean) IS
'Make the values at a path unique in a collection (per type; null and objects lacking it unconstrained), or with false no longer';

CREATE FUNCTION argo_analyze(collection text, sample bigint DEFAULT 10000,
                             OUT keys bigint, OUT objects bigint, OUT sampled bigint)
AS 'MODULE_PATHNAME', 'argo_analyze_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_analyze(text, bigint) IS
'Count rows and distinct values per key and type into the key dictionary, from the rows of about sample objects (NULL: all); returns the keys counted, the objects, and the objects read';

CREATE FUNCTION argo_check(collection text, sample bigint DEFAULT NULL, progress boolean DEFAULT false)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'argo_check'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_check(text, bigint, boolean) IS
'What is wrong with a collection''s rows (orphans, unknown keys, two rows for one key, broken markers, maps, kept documents); nothing when healthy. With a sample, the rows of about that many objects; with progress, a NOTICE as each check ends';

-- A collection may keep each object's jsonb beside its rows, in its
-- directory row, for reads of whole objects (store/docs.c).
CREATE FUNCTION argo_keep_documents(collection text, keep boolean DEFAULT true)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_keep_documents'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_keep_documents(text, boolean) IS
'Keep each object''s jsonb beside its rows (whole-object reads take it instead of rebuilding), or with false no longer; returns the documents written';

-- What a reader or a writer of one collection needs, granted or revoked
-- in one step (src/fn/grant.c), by a role that may grant on its tables.
CREATE FUNCTION argo_grant(collection text, role text, access text)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_grant'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_grant(text, text, text) IS
'Grant a role (or PUBLIC) what reading (''read'') or writing (''write'': adding new keys included) one collection needs';

CREATE FUNCTION argo_revoke(collection text, role text, access text)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_revoke'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_revoke(text, text, text) IS
'Revoke what argo_grant granted: ''read'' takes reading and writing, ''write'' writing only';

-- Where an object's rows lie is kept in its directory row (rowmap) and
-- written by Argo's own writes from C.  This trigger, on every value
-- table, forgets the maps of the objects whose rows a statement wrote
-- through SQL instead; argo_repair writes maps again.
CREATE FUNCTION argo_forget_rowmaps()
RETURNS trigger
AS 'MODULE_PATHNAME', 'argo_forget_rowmaps'
LANGUAGE C VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_forget_rowmaps() IS
'Trigger on a collection''s value tables and directory: rows written through SQL make their objects'' row maps and kept documents forgotten';

-- Only Argo writes a collection's kept documents (src/store/docs.c):
-- this trigger on each c_doc refuses an INSERT or UPDATE through SQL.
CREATE FUNCTION argo_docs_guard()
RETURNS trigger
AS 'MODULE_PATHNAME', 'argo_docs_guard'
LANGUAGE C VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_docs_guard() IS
'Trigger on a collection''s kept documents: refuses to write them through SQL (only Argo writes them, with the rows they copy)';

CREATE FUNCTION argo_repair(collection text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_repair'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_repair(text) IS
'Write again every object''s map of where its rows lie (after VACUUM FULL, CLUSTER or a restore); returns how many were written';

-- A collection exists when its sequence does; its tables are the ones of
-- its name that its sequence's owner owns (a table another role planted
-- beside them is not part of it); Argo/1 has a _data table.  A
-- distributed collection's tables are partitioned ('p'), its rows on its
-- shards, whose size argo_collection_size asks them for.  objects is
-- NULL for a collection the caller may not read.  Every name is
-- schema-qualified: a view is stored as written, and nothing in it may
-- depend on the path of whoever created or reads it.
CREATE FUNCTION argo_collection_size(collection text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_collection_size'
LANGUAGE C VOLATILE STRICT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_collection_size(text) IS
'The bytes of a collection''s tables with their indexes, a distributed collection''s on its shards too; NULL if a shard does not say';

CREATE VIEW argo_collections AS
SELECT c.name,
       CASE WHEN d.oid IS NULL THEN 'argo3' ELSE 'argo1' END AS format,
       CASE WHEN (SELECT pg_catalog.bool_and(pg_catalog.has_table_privilege(t.oid, 'SELECT'))
                    FROM pg_catalog.pg_class t
                   WHERE t.relnamespace OPERATOR(pg_catalog.=) c.nsp
                     AND t.relowner OPERATOR(pg_catalog.=) c.owner
                     AND t.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog."char"[])
                     AND t.relname OPERATOR(pg_catalog.=) ANY (c.tables))
            THEN @extschema@.argo_count(c.name) END AS objects,
       CASE WHEN o.relkind OPERATOR(pg_catalog.=) 'p'
            THEN @extschema@.argo_collection_size(c.name)
            ELSE (SELECT pg_catalog.sum(pg_catalog.pg_total_relation_size(t.oid))
                    FROM pg_catalog.pg_class t
                   WHERE t.relnamespace OPERATOR(pg_catalog.=) c.nsp
                     AND t.relowner OPERATOR(pg_catalog.=) c.owner
                     AND t.relkind OPERATOR(pg_catalog.=) 'r'
                     AND t.relname OPERATOR(pg_catalog.=) ANY (c.tables OPERATOR(pg_catalog.||) (c.name OPERATOR(pg_catalog.||) '_doc')::pg_catalog.name))::bigint
       END AS size_bytes,
       (SELECT CASE WHEN pg_catalog.obj_description(k.oid, 'pg_class') OPERATOR(pg_catalog.~~) 'argo schema: %'
                    THEN pg_catalog.substr(pg_catalog.obj_description(k.oid, 'pg_class'), 14)::pg_catalog.jsonb END
          FROM pg_catalog.pg_class k
         WHERE k.relnamespace OPERATOR(pg_catalog.=) c.nsp
           AND k.relname OPERATOR(pg_catalog.=) (c.name OPERATOR(pg_catalog.||) '_keys')::pg_catalog.name) AS schema,
       CASE WHEN pg_catalog.obj_description(c.seq, 'pg_class') OPERATOR(pg_catalog.~~) 'argo expire: %'
            THEN pg_catalog.substr(pg_catalog.obj_description(c.seq, 'pg_class'), 14)::pg_catalog.jsonb END AS expiry
  FROM (SELECT n.name, s.oid AS seq, s.relnamespace AS nsp, s.relowner AS owner,
               ARRAY[n.name OPERATOR(pg_catalog.||) '_str', n.name OPERATOR(pg_catalog.||) '_num',
                     n.name OPERATOR(pg_catalog.||) '_bool', n.name OPERATOR(pg_catalog.||) '_data',
                     n.name OPERATOR(pg_catalog.||) '_keys', n.name OPERATOR(pg_catalog.||) '_obj']::pg_catalog.name[] AS tables
          FROM pg_catalog.pg_class s,
               LATERAL (SELECT pg_catalog.left(s.relname::pg_catalog.text, -4) AS name) n
         WHERE s.relnamespace OPERATOR(pg_catalog.=) 'argo_data'::pg_catalog.regnamespace
           AND s.relkind OPERATOR(pg_catalog.=) 'S'
           AND s.relname OPERATOR(pg_catalog.~~) '%\_seq') c
  LEFT JOIN pg_catalog.pg_class d
         ON d.relnamespace OPERATOR(pg_catalog.=) c.nsp
        AND d.relowner OPERATOR(pg_catalog.=) c.owner
        AND d.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog."char"[])
        AND d.relname OPERATOR(pg_catalog.=) (c.name OPERATOR(pg_catalog.||) '_data')::pg_catalog.name
  LEFT JOIN pg_catalog.pg_class o
         ON o.relnamespace OPERATOR(pg_catalog.=) c.nsp
        AND o.relowner OPERATOR(pg_catalog.=) c.owner
        AND o.relname OPERATOR(pg_catalog.=) (c.name OPERATOR(pg_catalog.||) '_obj')::pg_catalog.name;

-- Anyone may list collections (pg_class shows them anyway); the objects
-- column is computed with the caller's own privileges.
GRANT SELECT ON argo_collections TO PUBLIC;

-- A collection spread over several PostgreSQL servers (README,
-- "Distributed collections"): its directory and value tables are hash
-- partitions that are postgres_fdw foreign tables; ids and key ids are
-- assigned here.  The shards are made through dblink, so this runs in no
-- transaction block.
CREATE FUNCTION argo_create_distributed_collection(name text, servers text[], format text DEFAULT 'argo3')
RETURNS void
AS 'MODULE_PATHNAME', 'argo_create_distributed_collection'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_create_distributed_collection(text, text[], text) IS
'Create a collection whose objects are spread by id over postgres_fdw servers, each holding whole objects';

-- The change feed (README, "Change feed"): a collection's owner switches
-- it on; a logical replication slot made with plugin 'argo' then gives
-- one event per changed object, which argo_changes reads after a token.
CREATE FUNCTION argo_feed(collection text, enabled boolean DEFAULT true, full_document boolean DEFAULT false,
                          before_change boolean DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_feed'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_feed(text, boolean, boolean, boolean) IS
'Switch a collection''s change feed on or off (its owner only); with full_document, update events carry the whole object; with before_change, update and delete events carry the object before';

CREATE FUNCTION argo_changes(slot name, collection text DEFAULT NULL, after text DEFAULT NULL, max integer DEFAULT 1000)
RETURNS TABLE (token text, event jsonb)
AS 'MODULE_PATHNAME', 'argo_changes'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_changes(name, text, text, integer) IS
'The change events a replication slot (plugin argo) holds for a collection after a token, in commit order';

CREATE FUNCTION argo_feed_slot(slot name)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_feed_slot'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_feed_slot(name) IS
'Make a replication slot of Argo''s output plugin for one consumer of change feeds (a slot serves one reader at a time)';

CREATE FUNCTION argo_changes_ack(slot name, token text)
RETURNS void
AS 'MODULE_PATHNAME', 'argo_changes_ack'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_changes_ack(name, text) IS
'Let a replication slot forget the transactions committed before a token''s';

-- After pg_restore makes a collection's indexes and triggers, the maps of
-- where its objects' rows lie (restored with addresses of the dumped
-- tables) are written again (src/fn/restored.c), so a restored database
-- reads at full speed with nothing to run by hand.
CREATE FUNCTION argo_restored()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'argo_restored'
LANGUAGE C SECURITY INVOKER
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION argo_restored() IS
'Event trigger: a collection made whole by a restore gets its maps written again';

CREATE EVENT TRIGGER argo_restored ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX', 'ALTER TABLE', 'CREATE TRIGGER')
  EXECUTE FUNCTION argo_restored();

-- Loads and exports that keep ids (mongoexport's and mongoimport's "_id"):
-- an export writes each object's id as "_id"; a load with_ids takes each
-- document's "_id" as its object's id (23505 if one is taken, nothing
-- loaded) and moves the id sequence past the largest.
CREATE FUNCTION argo_load(collection text, query text, with_ids boolean)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET jit = off;

COMMENT ON FUNCTION argo_load(text, text, boolean) IS
'Load the documents a query returns, each document''s "_id" its object''s id where with_ids (23505 if an object has it; the id sequence moved past the largest); returns the count';

CREATE FUNCTION argo_load_file(collection text, path text, with_ids boolean)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_load_file'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_load_file(text, text, boolean) IS
'Load a JSON-lines (or JSON array) file on the server, each document''s "_id" its object''s id where with_ids (as argo_export_file writes them with_ids); returns the count';

CREATE FUNCTION argo_export_file(collection text, path text, with_ids boolean)
RETURNS bigint
AS 'MODULE_PATHNAME', 'argo_export_file'
LANGUAGE C VOLATILE CALLED ON NULL INPUT SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET jit = off;

COMMENT ON FUNCTION argo_export_file(text, text, boolean) IS
'Write every object of a collection to a JSON-lines file on the server, with its id as "_id" where with_ids (argo_load_file(c, path, true) loads it back with its ids); returns the count';

-- A document as Argo keeps it, compressed where that saves a quarter: a
-- restore writes kept documents as given, and argo_restored packs them
-- again through this (src/fn/docpack.c).
CREATE FUNCTION argo_compress_doc(doc jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'argo_compress_doc'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SECURITY INVOKER;

COMMENT ON FUNCTION argo_compress_doc(jsonb) IS
'The document as Argo keeps it in c_doc: compressed where that saves a quarter (what a restore''s kept documents are rewritten through)';
