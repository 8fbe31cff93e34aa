-- Objects that expire (reference.md §5.8; MongoDB's TTL index):
-- argo_expire(collection, path, after) and argo_expire_now, which
-- deletes through Argo's DELETE the objects whose timestamp at the path
-- (an ISO 8601 string with its zone, or seconds since 1970) is older than
-- now() - after.  The background worker that calls it once a minute is
-- tested on a server of its own (test/expiry.py).
SELECT argo_create_collection('xp3', 'argo3'), argo_create_collection('xp1', 'argo1');
CREATE FUNCTION xp_fill(coll text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM argo_query(format('INSERT INTO %s OBJECTS $1', coll), jsonb_build_array(
    jsonb_build_object('n', 1, 'at', to_char(now() - interval '2 hours', 'YYYY-MM-DD"T"HH24:MI:SSOF')),
    jsonb_build_object('n', 2, 'at', to_char(now() AT TIME ZONE 'UTC' - interval '3 hours', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
    jsonb_build_object('n', 3, 'at', to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SSOF')),
    jsonb_build_object('n', 4, 'at', to_char(now() - interval '2 hours', 'YYYY-MM-DD"T"HH24:MI:SS')),
    jsonb_build_object('n', 5, 'at', extract(epoch FROM now() - interval '5 hours')::bigint),
    jsonb_build_object('n', 6, 'at', extract(epoch FROM now())::bigint),
    jsonb_build_object('n', 7),
    jsonb_build_object('n', 8, 'at', jsonb_build_array(0)),
    jsonb_build_object('n', 9, 'at', 'yesterday'),
    jsonb_build_object('n', 10, 'at', '2020-02-30T00:00:00Z'),
    jsonb_build_object('n', 11, 'at', '2001-01-01 00:00:00.5+05:30'))) x
$$;
SELECT xp_fill('xp3'), xp_fill('xp1');
-- nothing expires without argo_expire
SELECT argo_expire_now('xp3');
SELECT argo_expire('xp3', 'at', '1 hour'), argo_expire('xp1', 'at', '1 hour');
-- argo_collections shows it, as it shows the schema
SELECT name, expiry FROM argo_collections WHERE name IN ('xp3', 'xp1') ORDER BY name;
-- 1, 2 (ISO with a zone), 5 (seconds), 11 expired; 4 (no zone), 9, 10 (not a date) never do
SELECT argo_expire_now('xp3') AS xp3, argo_expire_now('xp1') AS xp1;
SELECT string_agg(x->>'n', ' ') AS xp3_left FROM argo_query('SELECT n FROM xp3 ORDER BY n') x;
SELECT string_agg(x->>'n', ' ') AS xp1_left FROM argo_query('SELECT n FROM xp1 ORDER BY n') x;
SELECT argo_expire_now('xp3') AS again;
-- the path's strings are found through an index of their timestamps (one
-- per collection, the path's key only): set again, it is made again
CREATE FUNCTION xp_indexes(t text) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(regexp_replace(pg_get_indexdef(indexrelid), 'keyid = \d+', 'keyid = K'), '; '), 'none')
    FROM pg_index WHERE indrelid = t::regclass AND pg_get_indexdef(indexrelid) LIKE '%argo_expiry_time%'
$$;
SELECT xp_indexes('argo_data.xp3_str') AS xp3, xp_indexes('argo_data.xp1_data') AS xp1;
SELECT argo_expire('xp3', 'at', '2 hours');
SELECT xp_indexes('argo_data.xp3_str') AS xp3_again;
-- removed: nothing expires, and the index goes
SELECT argo_expire('xp3', 'at', NULL);
SELECT name, expiry FROM argo_collections WHERE name IN ('xp3', 'xp1') ORDER BY name;
SELECT count(*) FROM argo_query($$INSERT INTO xp3 OBJECT {"n": 12, "at": 0}$$);
SELECT argo_expire_now('xp3') AS after_removal;
SELECT xp_indexes('argo_data.xp3_str') AS xp3_removed;
DROP FUNCTION xp_indexes(text);
-- what counts as a timestamp
SELECT v, argo_expiry_time(v) IS NOT NULL AS is_one
FROM (VALUES ('2026-01-02T03:04:05Z'), ('2026-01-02 03:04:05.123+02'), ('2026-01-02T03:04-0330'),
             ('2026-01-02T03:04:05'), ('2026-02-29T00:00:00Z'), ('2024-02-29T00:00:00Z'),
             ('2026-01-02'), ('now'), ('2026-01-02T25:00:00Z'), ('2026-01-02T03:04:05+2'), ('')) vs(v);
-- errors
SELECT argo_expire('xp3', 'a[*].at', '1 hour');
SELECT argo_expire('xp3', 'at', '-1 hour');
SELECT argo_expire('nosuch', 'at', '1 hour');
SELECT argo_expire_now('nosuch');
SELECT argo_drop_collection('xp3'), argo_drop_collection('xp1');
