-- Results that stream (docs/design.md, Results that stream): FROM argo_query(...) is a custom
-- scan that runs the statement as far as the caller reads it.
-- (a collection without kept documents first; it keeps them further down)
SET argo.keep_documents = off;
SELECT argo_create_collection('st', 'argo3');
SELECT * FROM argo_query('INSERT INTO st OBJECTS $1',
  (SELECT jsonb_agg(jsonb_build_object('a', i, 'b', 'x' || i, 'g', i % 3)) FROM generate_series(1, 3000) i));

-- the plan: a custom scan, the statement shown
EXPLAIN (COSTS OFF) SELECT * FROM argo_query('SELECT * FROM st') LIMIT 1;
-- how it ran, after it ran
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM argo_query('SELECT * FROM st WHERE a > 10') LIMIT 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM argo_query('SELECT * FROM st WHERE a > 10 OR g = 1') LIMIT 1;
-- a range finding more ids than work_mem holds (2,048 at 64kB) leaves
-- them to SQL, which streams them
SET work_mem = '64kB';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM argo_query('SELECT * FROM st WHERE a > 10') LIMIT 1;
SELECT count(*) FROM argo_query('SELECT * FROM st WHERE a > 10');
RESET work_mem;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM argo_query('SELECT g, COUNT(*) FROM st GROUP BY g');

-- LIMIT, OFFSET and EXISTS outside give what the statement gives
SELECT * FROM argo_query('SELECT * FROM st') LIMIT 3;
SELECT * FROM argo_query('SELECT * FROM st') LIMIT 2 OFFSET 2998;
SELECT * FROM argo_query('SELECT ID() FROM st WHERE a >= 1500') LIMIT 2;
SELECT * FROM argo_query('SELECT a FROM st ORDER BY a DESC') LIMIT 2;
SELECT * FROM argo_query('SELECT * FROM st WHERE g = 2') LIMIT 2;
SELECT * FROM argo_query('SELECT DISTINCT g FROM st');
SELECT EXISTS (SELECT FROM argo_query('SELECT * FROM st WHERE a > 2999'));
SELECT EXISTS (SELECT FROM argo_query('SELECT * FROM st WHERE a > 3000'));
SELECT count(*), count(DISTINCT r) FROM argo_query('SELECT * FROM st') r;
-- a filter and an expression over the results
SELECT r->'a' FROM argo_query('SELECT * FROM st') r WHERE (r->>'a')::int % 1000 = 0;

-- the same results as the function (argo.stream_results = off)
CREATE TEMP TABLE streamed AS
  SELECT 'every' AS q, r FROM argo_query('SELECT * FROM st') r
  UNION ALL SELECT 'where', r FROM argo_query('SELECT b FROM st WHERE a BETWEEN 5 AND 900') r
  UNION ALL SELECT 'order', r FROM argo_query('SELECT * FROM st ORDER BY b LIMIT 50 OFFSET 7') r
  UNION ALL SELECT 'ids', r FROM argo_query('SELECT ID(), a AS x FROM st WHERE g = 1') r
  UNION ALL SELECT 'proj', r FROM argo_query('SELECT a, g FROM st') r;
SET argo.stream_results = off;
EXPLAIN (COSTS OFF) SELECT * FROM argo_query('SELECT * FROM st') LIMIT 1;
CREATE TEMP TABLE whole AS
  SELECT 'every' AS q, r FROM argo_query('SELECT * FROM st') r
  UNION ALL SELECT 'where', r FROM argo_query('SELECT b FROM st WHERE a BETWEEN 5 AND 900') r
  UNION ALL SELECT 'order', r FROM argo_query('SELECT * FROM st ORDER BY b LIMIT 50 OFFSET 7') r
  UNION ALL SELECT 'ids', r FROM argo_query('SELECT ID(), a AS x FROM st WHERE g = 1') r
  UNION ALL SELECT 'proj', r FROM argo_query('SELECT a, g FROM st') r;
RESET argo.stream_results;
SELECT q, count(*) FROM streamed GROUP BY q ORDER BY q;
SELECT (SELECT count(*) FROM (SELECT * FROM streamed EXCEPT ALL SELECT * FROM whole) d) AS only_streamed,
       (SELECT count(*) FROM (SELECT * FROM whole EXCEPT ALL SELECT * FROM streamed) d) AS only_whole;

-- a cursor pays per FETCH, and reads its statement's snapshot
BEGIN;
DECLARE cur CURSOR FOR SELECT * FROM argo_query('SELECT a FROM st WHERE g = 0');
FETCH 2 FROM cur;
SELECT * FROM argo_query('DELETE FROM st WHERE a = 9');
FETCH 2 FROM cur;
MOVE 990 IN cur;
FETCH 5 FROM cur;
CLOSE cur;
ROLLBACK;
-- backwards, through the Material PostgreSQL puts over a scan that cannot
BEGIN;
DECLARE back SCROLL CURSOR FOR SELECT * FROM argo_query('SELECT a FROM st WHERE a <= 3');
FETCH ALL FROM back;
FETCH BACKWARD 2 FROM back;
COMMIT;
-- a cursor WITH HOLD is made whole at commit, and read after it
BEGIN;
DECLARE held CURSOR WITH HOLD FOR SELECT * FROM argo_query('SELECT a FROM st WHERE a <= 4');
FETCH 1 FROM held;
COMMIT;
FETCH ALL FROM held;
CLOSE held;
-- from PL/pgSQL, whose loop is an SPI cursor over the scan
DO $$
DECLARE r jsonb; n int := 0;
BEGIN
  FOR r IN SELECT * FROM argo_query('SELECT * FROM st WHERE g = 1') LOOP
    n := n + 1;
    -- another Argo statement runs while the first is between rows
    PERFORM * FROM argo_query('SELECT COUNT(*) FROM st WHERE a = $1', r->'a');
    EXIT WHEN n = 500;
  END LOOP;
  RAISE NOTICE 'read % objects', n;
END $$;

-- parameters: bound, NULL, and a prepared statement's
SELECT * FROM argo_query('SELECT a FROM st WHERE a = $1 OR b = $2', '7', '"x8"');
SELECT * FROM argo_query('SELECT a FROM st WHERE a = 1', VARIADIC NULL::jsonb[]);
SELECT * FROM argo_query(NULL) LIMIT 1;
PREPARE p(text, jsonb) AS SELECT * FROM argo_query($1, $2) LIMIT 2;
EXECUTE p('SELECT a FROM st WHERE a > $1', '2990');
EXECUTE p('SELECT b FROM st WHERE a < $1', '3');
DEALLOCATE p;
-- an argument from another FROM item: the function, as before
EXPLAIN (COSTS OFF) SELECT r FROM generate_series(1, 2) s, LATERAL argo_query('SELECT a FROM st WHERE a = ' || s) r;
SELECT r FROM generate_series(1, 2) s, LATERAL argo_query('SELECT a FROM st WHERE a = ' || s) r;
-- WITH ORDINALITY: the function too
SELECT * FROM argo_query('SELECT a FROM st WHERE a < 3') WITH ORDINALITY;

-- a write runs whole however little is read, and once under a rescan
SELECT * FROM argo_query('UPDATE st SET u = 1 WHERE a <= 100 RETURNING ID') LIMIT 0;
SELECT * FROM argo_query('SELECT COUNT(*) FROM st WHERE u = 1');
SELECT * FROM argo_query('UPDATE st SET u = 2 WHERE a <= 200 RETURNING *') LIMIT 1;
SELECT * FROM argo_query('SELECT COUNT(*) FROM st WHERE u = 2');
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
SELECT count(*) FROM generate_series(1, 3) s,
  argo_query('UPDATE st SET u += 1 WHERE a <= 5 RETURNING ID') r;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_material;
SELECT * FROM argo_query('SELECT u FROM st WHERE a <= 6');
-- a read under a nested loop runs again for each outer row
SELECT s, count(*) FROM generate_series(1, 2) s,
  argo_query('SELECT * FROM st WHERE a <= 4') r GROUP BY s ORDER BY s;

-- errors: while the statement runs, and before
SELECT * FROM argo_query('SELECT * FROM nosuch') LIMIT 1;
SELECT * FROM argo_query('SELEC * FROM st') LIMIT 1;
SELECT * FROM argo_query('SELECT * FROM st WHERE a = $1') LIMIT 1;
-- EXPLAIN alone runs nothing
EXPLAIN (COSTS OFF) SELECT * FROM argo_query('UPDATE st SET u = 99');
SELECT * FROM argo_query('SELECT COUNT(*) FROM st WHERE u = 99');

-- EXECUTE on argo_query is checked as calling it would
CREATE ROLE argo_stream_nobody;
REVOKE EXECUTE ON FUNCTION argo_query(text, jsonb[]) FROM PUBLIC;
SET ROLE argo_stream_nobody;
SELECT * FROM argo_query('SELECT * FROM st') LIMIT 1;
RESET ROLE;
GRANT EXECUTE ON FUNCTION argo_query(text, jsonb[]) TO PUBLIC;
DROP ROLE argo_stream_nobody;
-- its SET clauses apply: the caller's search_path does not reach Argo's SQL
CREATE SCHEMA evil;
CREATE FUNCTION evil.argo_object(text, bigint) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{"evil": true}'::jsonb $$;
SET search_path = evil, public;
SELECT * FROM argo_query('SELECT * FROM st') LIMIT 1;
-- and the caller's own come back after it, whether it ends or fails
SET jit = on;
SET work_mem = '4MB';
SELECT count(*) FROM argo_query('SELECT * FROM st WHERE a = 5');
SELECT current_setting('search_path') AS path, current_setting('jit') AS jit;
DO $$
BEGIN
  PERFORM count(*) FROM argo_query('SELECT * FROM st WHERE a = $1 AND b = $2', '1');
EXCEPTION WHEN others THEN
  RAISE NOTICE 'after %: search_path %, first schema %', SQLSTATE,
    current_setting('search_path'), current_schemas(false);
END $$;
-- a clause an administrator adds applies too, beside the pinned path
-- (64kB of work_mem: a range of 2,990 objects goes to SQL)
ALTER FUNCTION argo_query(text, jsonb[]) SET work_mem = '64kB';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM argo_query('SELECT * FROM st WHERE a > 10') LIMIT 1;
SELECT * FROM argo_query('SELECT * FROM st') LIMIT 1;
ALTER FUNCTION argo_query(text, jsonb[]) RESET work_mem;
SELECT current_setting('search_path') AS path, current_setting('work_mem') AS work_mem;
RESET search_path;
RESET jit;
RESET work_mem;
DROP SCHEMA evil CASCADE;

-- every object, shared among a parallel query's processes: a partial
-- scan under PostgreSQL's Gather, each process reading chunks of the
-- directory; the same objects as one process reads
VACUUM ANALYZE argo_data.st_obj;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(hashtext(r::text)) FROM argo_query('SELECT * FROM st') r;
SELECT count(*), count(DISTINCT r), sum((r->>'a')::int) FROM argo_query('SELECT * FROM st') r;
-- … and from kept documents
SELECT argo_keep_documents('st') AS kept;
VACUUM ANALYZE argo_data.st_obj;
EXPLAIN (COSTS OFF) SELECT count(*), sum(hashtext(r::text)) FROM argo_query('SELECT * FROM st') r;
SELECT count(*), count(DISTINCT r), sum((r->>'a')::int) FROM argo_query('SELECT * FROM st') r;
SELECT (SELECT sum(hashtext(r::text)) FROM argo_query('SELECT * FROM st') r) =
       (SELECT sum(hashtext(r::text)) FROM argo_query('SELECT * FROM st WHERE a > 0') r) AS same_objects;
-- a projection of every object that its kept documents give (two keys or
-- more, common) is shared too, each process cutting its documents down:
-- what one process gave (before the documents were kept)
EXPLAIN (COSTS OFF) SELECT count(*), sum(hashtext(r::text)) FROM argo_query('SELECT a, g FROM st') r;
SELECT count(*), count(DISTINCT r),
       sum(hashtext(r::text)) = (SELECT sum(hashtext(r::text)) FROM streamed WHERE q = 'proj') AS same_as_one
  FROM argo_query('SELECT a, g FROM st') r;
-- … not one read from its keys' rows (keys no object has): no workers
-- would have anything to do
EXPLAIN (COSTS OFF) SELECT count(*) FROM argo_query('SELECT x1, x2 FROM st') r;
SELECT count(*) FROM argo_query('SELECT x1, x2 FROM st') r;
-- … and a statement analysis refuses is planned serial, its error the run's
EXPLAIN (COSTS OFF) SELECT count(*) FROM argo_query('SELECT a, b FROM nosuch') r;
SELECT count(*) FROM argo_query('SELECT a, b FROM nosuch') r;
-- the statement as a bound parameter (what a driver sends): a plan made
-- for its value is shared
PREPARE every(text) AS SELECT count(*), sum(hashtext(r::text)) FROM argo_query($1, VARIADIC '{}'::jsonb[]) r;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE every('SELECT * FROM st');
EXECUTE every('SELECT * FROM st');
EXPLAIN (COSTS OFF) EXECUTE every('SELECT * FROM st WHERE a > 5');
-- a generic plan, made for no statement, is planned again when it starts
-- for a statement that reads every object (fn/replan.c); for any other
-- it runs as it is, a write included
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE every('SELECT * FROM st');
EXECUTE every('SELECT * FROM st');
EXPLAIN (COSTS OFF) EXECUTE every('SELECT a, g FROM st');
EXPLAIN (COSTS OFF) EXECUTE every('SELECT x1, x2 FROM st');
EXPLAIN (COSTS OFF) EXECUTE every('SELECT * FROM st WHERE a > 5');
EXECUTE every('SELECT * FROM st WHERE a > 2995');
EXECUTE every('UPDATE st SET w = 1 WHERE a = 1 RETURNING ID');
SELECT * FROM argo_query('SELECT w FROM st WHERE a = 1');
-- … a statement of a collection too small for workers runs as it is
SET min_parallel_table_scan_size = '1GB';
EXPLAIN (COSTS OFF) EXECUTE every('SELECT * FROM st');
SET min_parallel_table_scan_size = 0;
-- … so does a query that could not be parallel whatever its statement
CREATE TEMPORARY SEQUENCE numbers;
PREPARE numbered(text) AS SELECT max(nextval('numbers')), count(*) FROM argo_query($1) r;
EXPLAIN (COSTS OFF) EXECUTE numbered('SELECT * FROM st');
EXECUTE numbered('SELECT * FROM st');
DEALLOCATE numbered;
-- … and a LIMIT outside stops the plan made for the statement
PREPARE firstn(text, int) AS SELECT count(*), count(DISTINCT r) FROM (SELECT r FROM argo_query($1) r LIMIT $2) x;
EXECUTE firstn('SELECT * FROM st', 1000);
DEALLOCATE firstn;
-- in a function, its variable as the statement: the same
CREATE FUNCTION pg_temp.count_of(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN SELECT count(*) INTO n FROM argo_query(q); RETURN n; END $$;
SELECT pg_temp.count_of('SELECT * FROM st'), pg_temp.count_of('SELECT * FROM st WHERE a > 2990'),
  pg_temp.count_of('SELECT a, g FROM st') AS projected;
RESET plan_cache_mode;
DEALLOCATE every;
-- another statement, or a write in the same query, keeps the query serial
EXPLAIN (COSTS OFF) SELECT count(*) FROM argo_query('SELECT * FROM st WHERE a > 5') r;
EXPLAIN (COSTS OFF) SELECT count(*) FROM argo_query('SELECT * FROM st') r,
  argo_query('UPDATE st SET u = 1 WHERE a = 0') w;
-- a statement that does not parse is planned as before (its error is the run's)
EXPLAIN (COSTS OFF) SELECT count(*) FROM argo_query('SELEC * FROM st');
-- argo_query_read called by name is the function it is
SELECT count(*) FROM argo_query_read('SELECT * FROM st WHERE a > 5');
-- argo_query_read, which the planner puts in argo_query's place, reads only,
-- and needs EXECUTE on argo_query
SELECT * FROM argo_query_read('DELETE FROM st');
CREATE ROLE argo_stream_nobody;
REVOKE EXECUTE ON FUNCTION argo_query(text, jsonb[]) FROM PUBLIC;
SET ROLE argo_stream_nobody;
SELECT count(*) FROM argo_query('SELECT * FROM st') r;
SELECT * FROM argo_query_read('SELECT * FROM st') LIMIT 1;
RESET ROLE;
GRANT EXECUTE ON FUNCTION argo_query(text, jsonb[]) TO PUBLIC;
DROP ROLE argo_stream_nobody;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

SELECT argo_drop_collection('st');
