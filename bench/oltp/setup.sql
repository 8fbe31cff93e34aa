-- Documents and helpers the OLTP workloads share, created in the benchmark
-- database (not part of the extension).  Every system is loaded with the
-- same documents, made here.

-- YCSB: a record is a key and ten fields of 100 bytes.  STABLE, as
-- to_jsonb is: PostgreSQL inlines a SQL function only if its body is no
-- more volatile than declared, and a call it cannot inline parses and
-- plans the body again in every statement (a third of jsonb's point read).
CREATE FUNCTION ycsb_key(k bigint) RETURNS jsonb
STABLE PARALLEL SAFE LANGUAGE sql
AS $$ SELECT to_jsonb('user' || lpad(k::text, 10, '0')) $$;

CREATE FUNCTION ycsb_value(v bigint) RETURNS jsonb
STABLE PARALLEL SAFE LANGUAGE sql
AS $$ SELECT to_jsonb(substr(repeat(md5(v::text), 4), 1, 100)) $$;

CREATE FUNCTION ycsb_doc(k bigint) RETURNS jsonb
STABLE PARALLEL SAFE LANGUAGE sql
AS $$ SELECT jsonb_build_object('key', ycsb_key(k),
	'field0', ycsb_value(k * 10), 'field1', ycsb_value(k * 10 + 1),
	'field2', ycsb_value(k * 10 + 2), 'field3', ycsb_value(k * 10 + 3),
	'field4', ycsb_value(k * 10 + 4), 'field5', ycsb_value(k * 10 + 5),
	'field6', ycsb_value(k * 10 + 6), 'field7', ycsb_value(k * 10 + 7),
	'field8', ycsb_value(k * 10 + 8), 'field9', ycsb_value(k * 10 + 9)) $$;

-- BG: a member has a profile, 100 confirmed friends (50 on each side of
-- its id), 10 pending invitations and 10 resources on its wall.
CREATE FUNCTION bg_member(i int, n int) RETURNS jsonb
IMMUTABLE PARALLEL SAFE LANGUAGE sql
AS $$ SELECT jsonb_build_object('userid', i, 'username', 'user' || i,
	'pw', md5(i::text), 'fname', 'first' || i, 'lname', 'last' || i,
	'gender', CASE WHEN i % 2 = 0 THEN 'M' ELSE 'F' END,
	'dob', '1990-01-' || (1 + i % 28), 'jdate', '2020-01-01', 'ldate', '2026-11-01',
	'address', i || ' Main Street', 'email', 'user' || i || '@example.com',
	'tel', '555-' || lpad(i::text, 7, '0'),
	'confirmedFriends', (SELECT jsonb_agg((i + d + n) % n ORDER BY d)
						 FROM generate_series(-50, 50) d WHERE d <> 0),
	'pendingFriends', (SELECT jsonb_agg((i + d) % n ORDER BY d) FROM generate_series(51, 60) d),
	'wallResourceIds', (SELECT jsonb_agg(i * 10 + r ORDER BY r) FROM generate_series(0, 9) r)) $$;

CREATE FUNCTION bg_resource(r int, n int) RETURNS jsonb
IMMUTABLE PARALLEL SAFE LANGUAGE sql
AS $$ SELECT jsonb_build_object('rid', r, 'creatorid', r / 10, 'walluserid', r / 10,
	'type', 'post', 'body', substr(repeat(md5(r::text), 4), 1, 100),
	'comments', jsonb_build_array(
		jsonb_build_object('mid', 2 * r, 'creatorid', (r * 7) % n, 'content', md5((2 * r)::text)),
		jsonb_build_object('mid', 2 * r + 1, 'creatorid', (r * 13) % n, 'content', md5((2 * r + 1)::text)))) $$;

-- What Argo's ADD and REMOVE do to an array, for the jsonb systems.
CREATE FUNCTION bg_add(arr jsonb, x jsonb) RETURNS jsonb
IMMUTABLE PARALLEL SAFE LANGUAGE sql
AS $$ SELECT CASE WHEN arr IS NULL THEN jsonb_build_array(x)
	WHEN EXISTS (SELECT FROM jsonb_array_elements(arr) e WHERE e = x) THEN arr
	ELSE arr || jsonb_build_array(x) END $$;

CREATE FUNCTION bg_remove(arr jsonb, x jsonb) RETURNS jsonb
IMMUTABLE PARALLEL SAFE LANGUAGE sql
AS $$ SELECT coalesce(jsonb_agg(e ORDER BY i), '[]')
	FROM jsonb_array_elements(arr) WITH ORDINALITY a(e, i) WHERE e <> x $$;
