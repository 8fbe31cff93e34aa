-- argo_explain names the strategy that runs: the one argo_plan chose for
-- execution too.  One statement per strategy, on both formats; each
-- statement's result is also run, so a strategy that explain names but
-- execution cannot take would show here.
SELECT argo_create_collection('ex3', 'argo3'), argo_create_collection('ex1', 'argo1');
SELECT count(*) FROM argo_query('INSERT INTO ex3 OBJECT {"k": 1, "s": "a", "t": ["x"]}, {"k": 2, "s": "b"}, {"k": 3, "s": "c", "t": ["y"]}') x;
SELECT count(*) FROM argo_query('INSERT INTO ex1 OBJECT {"k": 1, "s": "a", "t": ["x"]}, {"k": 2, "s": "b"}, {"k": 3, "s": "c", "t": ["y"]}') x;

CREATE TEMP TABLE stmts (s text);
INSERT INTO stmts VALUES
  ('SELECT COUNT(*) FROM @C'),
  ('SELECT COUNT(*) AS n FROM @C WHERE k > 1 GROUP BY s'),
  ('SELECT a.s, b.k FROM @C AS a INNER JOIN @C AS b ON (a.k = b.k)'),
  ('SELECT ID() FROM @C WHERE k > 1'),
  ('SELECT * FROM @C'),
  ('SELECT s FROM @C'),
  ('SELECT * FROM @C WHERE k = 2'),
  ('SELECT * FROM @C WHERE ID() = 2'),
  ('SELECT s FROM @C WHERE s = ''b'' ORDER BY k LIMIT 1'),
  ('SELECT * FROM @C WHERE k > 1'),
  ('SELECT * FROM @C WHERE k > 1 ORDER BY s DESC'),
  ('SELECT * FROM @C WHERE k > 1 OR s = ''a'''),
  ('SELECT * FROM @C WHERE ''x'' = ANY t'),
  ('DELETE FROM @C WHERE k = 99'),
  ('UPDATE @C SET n = 1 WHERE k > 5'),
  ('UPSERT @C SET n += 1 WHERE k = 9');

CREATE FUNCTION pg_temp.strategy(stmt text) RETURNS text LANGUAGE sql AS
$$ SELECT pg_catalog.substr(e, 14) FROM argo_explain(stmt) e WHERE e LIKE '-- strategy: %' $$;

SELECT c, s AS statement, pg_temp.strategy(pg_catalog.replace(s, '@C', c)) AS strategy
FROM (VALUES ('ex3'), ('ex1')) cs(c),
     stmts
ORDER BY c, s;

-- a point write says it finds its objects from C
SELECT e FROM argo_explain('UPDATE ex3 SET n = 1 WHERE k = 2') e WHERE e LIKE '-- the objects (%';
SELECT e FROM argo_explain('DELETE FROM ex1 WHERE ID() = 3') e WHERE e LIKE '-- the object %';
-- and locks and writes them from C: no SQL runs for a point write
SELECT e FROM argo_explain('UPDATE ex3 SET n = 1 WHERE k = 2') e WHERE e LIKE '-- each %';
SELECT count(*) AS lines FROM argo_explain('DELETE FROM ex1 WHERE ID() = 3');
-- a lookup with nothing to sort runs no SQL, and explain shows none
SELECT count(*) AS lines FROM argo_explain('SELECT * FROM ex3 WHERE k = 2');

-- the plan shown is the one the statement runs with: a read that streams
-- is a cursor's, never parallel (even where PostgreSQL would share a
-- whole run out), every object in id order planned for its first rows
-- (the directory and the documents merged); a sorted read runs whole
BEGIN;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL min_parallel_index_scan_size = 0;
SELECT s AS statement,
       (SELECT count(*) FROM argo_explain(s) e WHERE e LIKE '%Gather%') AS gathers,
       (SELECT count(*) FROM argo_explain(s) e WHERE e LIKE '%Merge Left Join%') AS merges
FROM (VALUES ('SELECT * FROM ex3'), ('SELECT s FROM ex3'), ('SELECT * FROM ex3 ORDER BY k')) ss(s);
SHOW max_parallel_workers_per_gather;
ROLLBACK;

-- under row-level security the rows go through SQL, and explain says so
CREATE ROLE argo_ex_reader;
GRANT USAGE ON SCHEMA argo_data TO argo_ex_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA argo_data TO argo_ex_reader;
ALTER TABLE argo_data.ex3_str ENABLE ROW LEVEL SECURITY;
CREATE POLICY ex_all ON argo_data.ex3_str USING (true);
SET ROLE argo_ex_reader;
SELECT s AS statement, pg_temp.strategy(s) AS strategy,
       (SELECT count(*) FROM argo_query(s)) AS results
FROM (VALUES ('SELECT * FROM ex3'),
             ('SELECT * FROM ex3 WHERE k > 1'),
             ('SELECT a.s, b.k FROM ex3 AS a INNER JOIN ex3 AS b ON (a.k = b.k)')) ss(s);
RESET ROLE;

-- and every strategy's statement runs and agrees across the formats
SELECT s AS statement,
       (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query(pg_catalog.replace(s, '@C', 'ex3')) x) =
       (SELECT array_agg(x::text ORDER BY x::text) FROM argo_query(pg_catalog.replace(s, '@C', 'ex1')) x) AS same
FROM stmts WHERE s LIKE 'SELECT%' AND s NOT LIKE 'SELECT ID()%'
ORDER BY s;

-- a value index dropped, or its drop rolled back, is seen by the next
-- statement (what a backend remembers of a table is forgotten with it)
RESET ROLE;
SELECT pg_temp.strategy('SELECT * FROM ex1 WHERE s = ''b''') AS before;
BEGIN;
DROP INDEX argo_data.ex1_data_keyid_left_idx;
SELECT pg_temp.strategy('SELECT * FROM ex1 WHERE s = ''b''') AS dropped,
       (SELECT count(*) FROM argo_query('SELECT * FROM ex1 WHERE s = ''b''')) AS results;
ROLLBACK;
SELECT pg_temp.strategy('SELECT * FROM ex1 WHERE s = ''b''') AS after;

DROP POLICY ex_all ON argo_data.ex3_str;
REVOKE ALL ON ALL TABLES IN SCHEMA argo_data FROM argo_ex_reader;
REVOKE USAGE ON SCHEMA argo_data FROM argo_ex_reader;
DROP ROLE argo_ex_reader;
SELECT argo_drop_collection('ex3'), argo_drop_collection('ex1');
