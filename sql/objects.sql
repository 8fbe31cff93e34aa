-- argo_object(collection, id): one object by its id, read-only and
-- parallel safe; SELECT * of every object (sorted or not) calls it per
-- directory row, so PostgreSQL may rebuild objects in parallel workers.
-- Whatever the order of the ids asked for, the plan, or what aborts in
-- between, each call returns exactly the object argo_query returns.
SELECT count(*) FROM argo_query('INSERT INTO ob3 OBJECT {"n": 3, "s": "c", "a": [1, {"x": true}], "o": {"p": null}},
  {}, {"n": 1, "s": "a"}, {"s": "b", "e": [], "f": {}}, {"n": 2}, {"b": false, "n": 2.5}');
SELECT argo_create_collection('ob1', 'argo1');
SELECT count(*) FROM argo_query('INSERT INTO ob1 OBJECT {"n": 3, "s": "c", "a": [1, {"x": true}], "o": {"p": null}},
  {}, {"n": 1, "s": "a"}, {"s": "b", "e": [], "f": {}}, {"n": 2}, {"b": false, "n": 2.5}');
-- a hole in the ids, and rows out of heap order
SELECT * FROM argo_query('DELETE FROM ob3 WHERE n = 1');
SELECT * FROM argo_query('DELETE FROM ob1 WHERE n = 1');
SELECT * FROM argo_query('UPDATE ob3 SET n = 0, t = [7, 8] WHERE n = 3');
SELECT * FROM argo_query('UPDATE ob1 SET n = 0, t = [7, 8] WHERE n = 3');
SELECT count(*) FROM argo_query('INSERT INTO ob3 OBJECT {"n": 9, "z": {"y": [[]]}}');
SELECT count(*) FROM argo_query('INSERT INTO ob1 OBJECT {"n": 9, "z": {"y": [[]]}}');

-- every id in increasing, decreasing and scattered order, and ids of no object
CREATE TEMP TABLE asked AS
  SELECT c, id, row_number() OVER (PARTITION BY c ORDER BY o, id) AS pos
  FROM (VALUES ('ob3'), ('ob1')) cs(c),
       LATERAL (SELECT g AS id, o FROM generate_series(0, 9) g,
                (VALUES (1), (2), (3)) os(o)) x;
UPDATE asked SET id = 9 - id WHERE pos BETWEEN 11 AND 20;
UPDATE asked SET id = (id * 7) % 10 WHERE pos > 20;
SELECT c, count(*) AS calls,
       count(*) FILTER (WHERE got IS NOT DISTINCT FROM want) AS equal,
       count(got) AS objects
FROM (SELECT a.c, a.pos, argo_object(a.c, a.id) AS got,
             (SELECT x FROM argo_query(format('SELECT * FROM %s WHERE ID() = %s', a.c, a.id)) x) AS want
        FROM (SELECT * FROM asked ORDER BY c, pos) a) r
GROUP BY c ORDER BY c;
SELECT argo_object('ob3', 2) AS empty_object, argo_object('ob3', 3) AS deleted,
       argo_object('ob3', -1) AS negative, argo_object(NULL, 1) AS no_collection,
       argo_object('ob3', NULL) AS no_id;
\set VERBOSITY terse
SELECT argo_object('nope', 1);
SELECT argo_object('bad name', 1);
\set VERBOSITY default

-- the plan for every object; forced parallel, the same results in the same order
SELECT e FROM argo_explain('SELECT * FROM ob3') e WHERE e LIKE '--%';
CREATE TEMP TABLE serial AS
  SELECT c, q, array_agg(x ORDER BY n) AS xs
  FROM (VALUES ('ob3'), ('ob1')) cs(c),
       (VALUES (''), (' ORDER BY n'), (' ORDER BY s DESC, n'), (' ORDER BY a[0]')) qs(q),
       LATERAL argo_query('SELECT * FROM ' || c || q) WITH ORDINALITY r(x, n)
  GROUP BY c, q;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*) > 0 AS plans_parallel
FROM argo_explain('SELECT * FROM ob3 ORDER BY n') e WHERE e LIKE '%Gather Merge%';
SELECT s.c, s.q, s.xs = p.xs AS same
FROM serial s,
     LATERAL (SELECT array_agg(x ORDER BY n) AS xs
              FROM argo_query('SELECT * FROM ' || s.c || s.q) WITH ORDINALITY r(x, n)) p
ORDER BY 1, 2;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET min_parallel_index_scan_size;
RESET max_parallel_workers_per_gather;
SELECT c, q, array_length(xs, 1) AS objects FROM serial ORDER BY 1, 2;
SELECT xs FROM serial WHERE c = 'ob3' AND q = ' ORDER BY n';

-- an error while the scans are open, then in a savepoint: nothing leaks
-- (a leak would be a WARNING at commit), and the function still works
SELECT argo_object('ob3', objid), 1 / (objid - 4) FROM argo_data.ob3_obj ORDER BY objid;
BEGIN;
SELECT argo_object('ob3', 1) ->> 'n' AS n;
SAVEPOINT s;
SELECT argo_object('ob3', objid), 1 / (objid - 4) FROM argo_data.ob3_obj ORDER BY objid;
ROLLBACK TO s;
SELECT argo_object('ob3', objid) ->> 'n' AS n FROM argo_data.ob3_obj ORDER BY objid;
COMMIT;

-- PL/pgSQL keeps an expression's call site for the whole transaction:
-- each statement still sees its own snapshot, and an aborted
-- subtransaction (the exception block) does not break the site
DO $$
DECLARE
  seen text := '';
BEGIN
  FOR i IN 1..3 LOOP
    PERFORM argo_query(format('UPDATE ob3 SET n = %s WHERE ID() = 5', i * 10));
    seen := seen || (argo_object('ob3', 5) ->> 'n') || ' ';
    BEGIN
      seen := seen || (argo_object('ob3', 1) ->> 'n') || ' ';
      PERFORM 1 / (i - i);
    EXCEPTION WHEN division_by_zero THEN
      seen := seen || '/ ';
    END;
  END LOOP;
  RAISE NOTICE 'seen: %', seen;
END
$$;

SELECT argo_drop_collection('ob3');
SELECT argo_drop_collection('ob1');
