-- Expressions (reference.md §9): computed targets and predicates, each
-- checked against the same computation in SQL over the documents as
-- jsonb (numeric arithmetic, lower/upper under ICU's root collation,
-- jsonb_array_length, timestamps in UTC), on Argo/3 with kept documents
-- (xp3), without them (xp0), and Argo/1 (xp1).
SET argo.keep_documents = off;
SELECT argo_create_collection('xp0', 'argo3');
RESET argo.keep_documents;
SELECT argo_create_collection('xp3', 'argo3'), argo_create_collection('xp1', 'argo1');
SELECT setseed(0.61);
CREATE TABLE xp_docs AS
SELECT i, jsonb_strip_nulls(jsonb_build_object(
         'i', i,
         'price', CASE WHEN i % 17 = 0 THEN NULL WHEN i % 19 = 0 THEN to_jsonb('12.5'::text)
                       ELSE to_jsonb(round((random() * 100)::numeric, (i % 4))) END,
         'qty', CASE WHEN i % 13 = 0 THEN to_jsonb('x'::text) WHEN i % 23 = 0 THEN NULL
                     ELSE to_jsonb(1 + floor(random() * 9)::int) END,
         'name', (ARRAY['Zürich', 'MÁLAGA', 'kraków', 'Oslo', ' pad ', 'a-b-c', 'ÉCOLE'])[1 + i % 7],
         'tags', CASE WHEN i % 3 = 0 THEN jsonb_build_array('x', 'y', i) WHEN i % 3 = 1 THEN '[]'::jsonb
                      ELSE to_jsonb('none'::text) END,
         'code', CASE WHEN i % 5 = 0 THEN to_jsonb((i * 7)::text) WHEN i % 5 = 1 THEN to_jsonb('1e3'::text)
                      WHEN i % 5 = 2 THEN to_jsonb('n/a'::text) ELSE to_jsonb(i * 0.5) END,
         'at', CASE WHEN i % 6 = 0 THEN to_jsonb(1700000000 + i * 86400)
                    WHEN i % 6 = 5 THEN to_jsonb('not a date'::text)
                    ELSE to_jsonb(to_char((timestamptz '2026-01-01 00:00:00+00' + i * interval '37 hours 11 minutes')
                                          AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') ||
                                  (ARRAY['Z', '+02:00', '-05:30'])[1 + i % 3]) END,
         'ordered', i % 11, 'shipped', CASE WHEN i % 4 = 0 THEN to_jsonb(i % 7) END,
         'flag', CASE WHEN i % 8 = 0 THEN 'null'::jsonb END,
         'items', CASE WHEN i % 9 <> 0 THEN (SELECT jsonb_agg(jsonb_build_object('sku', 's' || ((i + e) % 5), 'q', (i * e) % 4,
                                                                      'p', round(((i + e) % 7) * 1.1, 2)) || CASE WHEN e = 2 THEN '{"q": "two"}'::jsonb ELSE '{}' END)
                                               FROM generate_series(1, i % 4) e) END)) ||
       CASE WHEN i % 8 = 0 THEN '{"flag": null}'::jsonb ELSE '{}'::jsonb END AS d
FROM generate_series(1, 300) i;
SELECT count(*) FROM xp_docs, argo_query('INSERT INTO xp0 OBJECT $1', d);
SELECT count(*) FROM xp_docs, argo_query('INSERT INTO xp3 OBJECT $1', d);
SELECT count(*) FROM xp_docs, argo_query('INSERT INTO xp1 OBJECT $1', d);

-- jsonb's number, string, timestamp at a key, or NULL
CREATE FUNCTION xpn(j jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE WHEN jsonb_typeof(j) = 'number' THEN (j #>> '{}')::numeric END $$;
CREATE FUNCTION xps(j jsonb) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE WHEN jsonb_typeof(j) = 'string' THEN j #>> '{}' END $$;
CREATE FUNCTION xpt(j jsonb) RETURNS timestamp LANGUAGE sql STABLE
  AS $$ SELECT CASE WHEN jsonb_typeof(j) = 'number' THEN to_timestamp((j #>> '{}')::float8) AT TIME ZONE 'UTC'
                    WHEN xps(j) ~ '^\d{4}-\d\d-\d\dT' THEN (j #>> '{}')::timestamptz AT TIME ZONE 'UTC' END $$;
CREATE FUNCTION xpiso(t timestamp) RETURNS jsonb LANGUAGE sql IMMUTABLE
  AS $$ SELECT to_jsonb(to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS') || 'Z') $$;

-- Each collection's computed target v against the reference computed from d:
-- objects compared, mismatches (as text: digits and scale too), values given
CREATE FUNCTION xp_check(expr text, ref text)
RETURNS TABLE (coll text, objects bigint, mismatches bigint, valued bigint) LANGUAGE plpgsql AS $$
BEGIN
  FOREACH coll IN ARRAY ARRAY['xp3', 'xp1', 'xp0'] LOOP
    RETURN QUERY EXECUTE format(
      'SELECT %L::text, count(*), count(*) FILTER (WHERE a.v::text IS DISTINCT FROM r.v::text), count(a.v)
         FROM (SELECT i, (%s) AS v FROM xp_docs) r
         LEFT JOIN (SELECT (x->>''i'')::int AS i, x->''v'' AS v FROM argo_query(%L) x) a USING (i)',
      coll, ref, format('SELECT i, %s AS v FROM %s', expr, coll));
  END LOOP;
END $$;

-- The objects where an Argo predicate holds against those of the SQL one
CREATE FUNCTION xp_where(pred text, ref text)
RETURNS TABLE (coll text, selected bigint, mismatches bigint) LANGUAGE plpgsql AS $$
BEGIN
  FOREACH coll IN ARRAY ARRAY['xp3', 'xp1', 'xp0'] LOOP
    RETURN QUERY EXECUTE format(
      'SELECT %L::text, (SELECT count(*) FROM xp_docs WHERE %s),
              count(*) FILTER (WHERE a.i IS NULL OR r.i IS NULL)
         FROM (SELECT i FROM xp_docs WHERE %s) r
         FULL JOIN (SELECT (x->>''i'')::int AS i FROM argo_query(%L) x) a USING (i)',
      coll, ref, ref, format('SELECT i FROM %s WHERE %s', coll, pred));
  END LOOP;
END $$;

-- arithmetic, exact
SELECT * FROM xp_check('price * qty', 'to_jsonb(xpn(d->''price'') * xpn(d->''qty''))');
SELECT * FROM xp_check('price + qty - 1', 'to_jsonb(xpn(d->''price'') + xpn(d->''qty'') - 1)');
SELECT * FROM xp_check('price / qty', 'to_jsonb(xpn(d->''price'') / xpn(d->''qty''))');
SELECT * FROM xp_check('-price % 7', 'to_jsonb(-xpn(d->''price'') % 7)');
SELECT * FROM xp_check('(price - 1) * -2 + qty * qty', 'to_jsonb((xpn(d->''price'') - 1) * -2 + xpn(d->''qty'') * xpn(d->''qty''))');
SELECT * FROM xp_check('ordered-1', 'to_jsonb(xpn(d->''ordered'') - 1)');
SELECT * FROM xp_check('0.1 + 0.2', 'to_jsonb(0.1 + 0.2)');
SELECT * FROM xp_check('1 / 3', 'to_jsonb(1::numeric / 3)');
-- numbers' functions
SELECT * FROM xp_check('ROUND(price, 1)', 'to_jsonb(round(xpn(d->''price''), 1))');
SELECT * FROM xp_check('round(price)', 'to_jsonb(round(xpn(d->''price'')))');
SELECT * FROM xp_check('TRUNC(price, 1)', 'to_jsonb(trunc(xpn(d->''price''), 1))');
SELECT * FROM xp_check('ABS(1 - price)', 'to_jsonb(abs(1 - xpn(d->''price'')))');
SELECT * FROM xp_check('CEIL(price) + FLOOR(price)', 'to_jsonb(ceil(xpn(d->''price'')) + floor(xpn(d->''price'')))');
SELECT * FROM xp_check('SQRT(qty)', 'to_jsonb(sqrt(xpn(d->''qty'')))');
SELECT * FROM xp_check('POWER(qty, 3)', 'to_jsonb(power(xpn(d->''qty''), 3))');
SELECT * FROM xp_check('MOD(qty, 4)', 'to_jsonb(mod(xpn(d->''qty''), 4))');
SELECT * FROM xp_check('LN(qty)', 'to_jsonb(ln(xpn(d->''qty'')))');
SELECT * FROM xp_check('LOG10(qty * 10)', 'to_jsonb(log(xpn(d->''qty'') * 10))');
SELECT * FROM xp_check('EXP(qty)', 'to_jsonb(exp(xpn(d->''qty'')))');
-- strings
SELECT * FROM xp_check('name || ''!''', 'to_jsonb(xps(d->''name'') || ''!'')');
SELECT * FROM xp_check('LOWER(name)', 'to_jsonb(lower(xps(d->''name'') COLLATE "und-x-icu"))');
SELECT * FROM xp_check('UPPER(name)', 'to_jsonb(upper(xps(d->''name'') COLLATE "und-x-icu"))');
SELECT * FROM xp_check('LENGTH(name)', 'to_jsonb(length(xps(d->''name'')))');
SELECT * FROM xp_check('SUBSTR(name, 2, 3)', 'to_jsonb(substr(xps(d->''name''), 2, 3))');
SELECT * FROM xp_check('SUBSTR(name, -1, 3)', 'to_jsonb(substr(xps(d->''name''), -1, 3))');
SELECT * FROM xp_check('substr(name, 3)', 'to_jsonb(substr(xps(d->''name''), 3))');
SELECT * FROM xp_check('TRIM(name)', 'to_jsonb(btrim(xps(d->''name''), E'' \t\r\n''))');
SELECT * FROM xp_check('LTRIM(name) || RTRIM(name)', 'to_jsonb(ltrim(xps(d->''name''), E'' \t\r\n'') || rtrim(xps(d->''name''), E'' \t\r\n''))');
SELECT * FROM xp_check('REPLACE(name, ''a'', ''A'')', 'to_jsonb(replace(xps(d->''name''), ''a'', ''A''))');
SELECT * FROM xp_check('SPLIT(name, ''-'')', 'to_jsonb(string_to_array(xps(d->''name''), ''-''))');
SELECT * FROM xp_check('SPLIT(name, '''')', 'jsonb_build_array(xps(d->''name''))');
SELECT * FROM xp_check('CONCAT(name, ''/'', tags)', 'to_jsonb(xps(d->''name'') || ''/'' || xps(d->''tags''))');
-- arrays, types, defaults
SELECT * FROM xp_check('SIZE(tags)', 'CASE WHEN jsonb_typeof(d->''tags'') = ''array'' THEN to_jsonb(jsonb_array_length(d->''tags'')) END');
SELECT * FROM xp_check('SLICE(tags, 1)', 'CASE WHEN jsonb_typeof(d->''tags'') = ''array'' THEN coalesce((SELECT jsonb_agg(e ORDER BY n) FROM jsonb_array_elements(d->''tags'') WITH ORDINALITY x(e, n) WHERE n > 1), ''[]'') END');
SELECT * FROM xp_check('SLICE(tags, -2, 1)', 'CASE WHEN jsonb_typeof(d->''tags'') = ''array'' THEN coalesce((SELECT jsonb_agg(e ORDER BY n) FROM jsonb_array_elements(d->''tags'') WITH ORDINALITY x(e, n) WHERE n = greatest(jsonb_array_length(d->''tags'') - 1, 1)), ''[]'') END');
SELECT * FROM xp_check('TYPEOF(flag) || TYPEOF(tags)', 'to_jsonb(jsonb_typeof(d->''flag'') || jsonb_typeof(d->''tags''))');
SELECT * FROM xp_check('TO_NUMBER(code)', 'CASE WHEN jsonb_typeof(d->''code'') = ''number'' THEN d->''code'' WHEN xps(d->''code'') ~ ''^-?\d'' THEN to_jsonb(xps(d->''code'')::numeric) END');
SELECT * FROM xp_check('TO_STRING(code)', 'to_jsonb(d->>''code'')');
SELECT * FROM xp_check('COALESCE(flag, shipped, ''none'')', 'coalesce(nullif(d->''flag'', ''null''), d->''shipped'', ''"none"'')');
SELECT * FROM xp_check('CASE WHEN qty > 5 THEN ''many'' WHEN qty >= 1 THEN ''few'' END',
                       'to_jsonb(CASE WHEN xpn(d->''qty'') > 5 THEN ''many'' WHEN xpn(d->''qty'') >= 1 THEN ''few'' END)');
SELECT * FROM xp_check('CASE WHEN qty != 0 THEN price / qty ELSE 0 END', 'to_jsonb(CASE WHEN xpn(d->''qty'') <> 0 THEN xpn(d->''price'') / xpn(d->''qty'') ELSE 0 END)');
-- timestamps, in UTC whatever the session's zone
SET TimeZone = 'America/Lima';
SELECT * FROM xp_check('DATE_PART(''year'', at) * 100 + DATE_PART(''month'', at)',
                       'to_jsonb(extract(year FROM xpt(d->''at'')) * 100 + extract(month FROM xpt(d->''at'')))');
SELECT * FROM xp_check('DATE_PART(''dow'', at) + DATE_PART(''week'', at) * 10 + DATE_PART(''hour'', at) * 1000',
                       'to_jsonb(extract(dow FROM xpt(d->''at'')) + extract(week FROM xpt(d->''at'')) * 10 + extract(hour FROM xpt(d->''at'')) * 1000)');
SELECT * FROM xp_check('DATE_TRUNC(''month'', at)', 'xpiso(date_trunc(''month'', xpt(d->''at'')))');
SELECT * FROM xp_check('DATE_TRUNC(''week'', at)', 'xpiso(date_trunc(''week'', xpt(d->''at'')))');
SELECT * FROM xp_check('DATE_ADD(at, ''-2 hours 30 minutes'')', 'xpiso(xpt(d->''at'') + interval ''-2 hours 30 minutes'')');
RESET TimeZone;
SELECT * FROM argo_query('SELECT DATE_PART(''second'', ''2026-12-07T16:14:28.125+01:00'') AS s, DATE_TRUNC(''minute'', ''2026-12-07T16:14:28.125Z'') AS m, DATE_ADD(86400.5, ''1 day'') AS a FROM xp3 LIMIT 1');
SELECT count(*) FROM argo_query('SELECT NOW() AS t FROM xp3') x
 WHERE x->>'t' = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || 'Z'
    OR x->>'t' LIKE to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '%Z';

-- a key only where the target has a value; an object only where some target has one
SELECT x FROM argo_query('SELECT price * qty AS t, SIZE(tags) AS n FROM xp3 WHERE ID() IN (13, 17, 34, 3)') x;
SELECT x FROM argo_query('SELECT *, qty * 2 AS twice FROM xp1 WHERE ID() = 6') x;
SELECT x FROM argo_query('SELECT ID() AS id, i, 1 AS one FROM xp0 ORDER BY i DESC LIMIT 2 OFFSET 1') x;
SELECT x FROM argo_query('SELECT DISTINCT LOWER(name) AS n FROM xp3 ORDER BY n') x;
SELECT x FROM argo_query('SELECT DISTINCT TYPEOF(qty) AS t FROM xp3') x ORDER BY x::text;

-- predicates: either side computed, three-valued, with and beside indexed terms
SELECT * FROM xp_where('price * qty > 100', 'xpn(d->''price'') * xpn(d->''qty'') > 100');
SELECT * FROM xp_where('NOT (price * qty > 100)', 'xpn(d->''price'') * xpn(d->''qty'') <= 100');
SELECT * FROM xp_where('100 < qty * price', 'xpn(d->''price'') * xpn(d->''qty'') > 100');
SELECT * FROM xp_where('shipped > ordered', 'xpn(d->''shipped'') > xpn(d->''ordered'')');
SELECT * FROM xp_where('LOWER(name) = LOWER(''ZÜRICH'')', 'xps(d->''name'') = ''Zürich''');
SELECT * FROM xp_where('SIZE(tags) >= 2 AND i < 100', 'jsonb_array_length(CASE WHEN jsonb_typeof(d->''tags'') = ''array'' THEN d->''tags'' END) >= 2 AND i < 100');
SELECT * FROM xp_where('i < 50 OR qty * 2 IN (4, 6)', 'i < 50 OR xpn(d->''qty'') * 2 IN (4, 6)');
SELECT * FROM xp_where('price * qty BETWEEN 20 AND 40', 'xpn(d->''price'') * xpn(d->''qty'') BETWEEN 20 AND 40');
SELECT * FROM xp_where('price * qty NOT BETWEEN 20 AND 40', 'xpn(d->''price'') * xpn(d->''qty'') NOT BETWEEN 20 AND 40');
SELECT * FROM xp_where('UPPER(name) LIKE ''%A%''', 'upper(xps(d->''name'') COLLATE "und-x-icu") LIKE ''%A%''');
SELECT * FROM xp_where('name || ''x'' ILIKE ''é%''', 'xps(d->''name'') ILIKE ''é%''');
SELECT * FROM xp_where('COALESCE(flag, 1) IS NULL', 'false');
SELECT * FROM xp_where('(price * 2) IS NOT NULL', 'xpn(d->''price'') IS NOT NULL');
SELECT * FROM xp_where('DATE_PART(''year'', at) = 2026 AND qty = 3', 'extract(year FROM xpt(d->''at'')) = 2026 AND xpn(d->''qty'') = 3');
SELECT * FROM xp_where('TYPEOF(price) = ''string''', 'jsonb_typeof(d->''price'') = ''string''');
SELECT * FROM xp_where('CASE WHEN qty > 5 THEN price ELSE 0 END > 50', 'CASE WHEN xpn(d->''qty'') > 5 THEN xpn(d->''price'') ELSE 0 END > 50');
-- through [*]: each element of the one array, TRUE where one is (7.1);
-- FALSE where every element's test is, or the array is empty
SELECT * FROM xp_where('items[*].q * items[*].p > 15',
  'EXISTS (SELECT FROM jsonb_array_elements(CASE WHEN jsonb_typeof(d->''items'') = ''array'' THEN d->''items'' END) e WHERE xpn(e->''q'') * xpn(e->''p'') > 15)');
SELECT * FROM xp_where('NOT items[*].q * items[*].p > 15',
  'jsonb_typeof(d->''items'') = ''array'' AND NOT EXISTS (SELECT FROM jsonb_array_elements(d->''items'') e
     WHERE xpn(e->''q'') * xpn(e->''p'') > 15 OR xpn(e->''q'') * xpn(e->''p'') IS NULL)');
SELECT * FROM xp_where('items[*].p > ordered AND i < 200', 'EXISTS (SELECT FROM jsonb_array_elements(CASE WHEN jsonb_typeof(d->''items'') = ''array'' THEN d->''items'' END) e WHERE xpn(e->''p'') > xpn(d->''ordered'')) AND i < 200');
SELECT * FROM argo_query('SELECT i FROM xp3 WHERE items[*].q * tags[*] > 1');
-- numbers compare exactly where a side is computed: 0.1 + 0.2 = 0.3
SELECT count(*) FROM argo_query('SELECT i FROM xp3 WHERE 0.1 + 0.2 = 0.3 AND i <= 5');
-- the one-term lookup and the streamed read see them too
SELECT count(*) FROM argo_query('SELECT i FROM xp3 WHERE i = 7 AND price * 0 = 0');
SELECT count(*) FROM argo_query('SELECT * FROM xp1 WHERE LENGTH(name) > 5');

-- ORDER BY an expression, or a computed target's name: each object's key
-- from its document, in the order of 3 (numbers, strings, booleans, then
-- none; NULLS as written), against SQL's order of the same values
CREATE FUNCTION xp_order(targets text, ord text, ref text)
RETURNS TABLE (coll text, same_order boolean) LANGUAGE plpgsql AS $$
BEGIN
  FOREACH coll IN ARRAY ARRAY['xp3', 'xp1', 'xp0'] LOOP
    RETURN QUERY EXECUTE format(
      'SELECT %L::text, (SELECT array_agg((x->>''i'')::int) FROM argo_query(%L) x) =
                        (SELECT array_agg(i) FROM (SELECT i FROM xp_docs ORDER BY %s, i LIMIT 40 OFFSET 5) r)',
      coll, format('SELECT %s FROM %s ORDER BY %s, i LIMIT 40 OFFSET 5', targets, coll, ord), ref);
  END LOOP;
END $$;
SELECT * FROM xp_order('i', 'price * qty DESC', 'xpn(d->''price'') * xpn(d->''qty'') DESC');
SELECT * FROM xp_order('i, price * qty AS t', 't', 'xpn(d->''price'') * xpn(d->''qty'')');
SELECT * FROM xp_order('i', 'LOWER(name) DESC NULLS LAST, -ordered', 'lower(xps(d->''name'') COLLATE "und-x-icu") COLLATE "C" DESC NULLS LAST, -xpn(d->''ordered'')');
SELECT * FROM xp_order('i', 'COALESCE(shipped, ordered) NULLS FIRST', 'xpn(coalesce(d->''shipped'', d->''ordered'')) NULLS FIRST');
SELECT * FROM xp_order('*', 'SIZE(tags)', 'jsonb_array_length(CASE WHEN jsonb_typeof(d->''tags'') = ''array'' THEN d->''tags'' END)');
SELECT * FROM xp_order('i', 'DATE_TRUNC(''month'', at) DESC', 'to_char(date_trunc(''month'', xpt(d->''at'')), ''YYYY-MM-DD"T"HH24:MI:SS"Z"'') COLLATE "C" DESC');
SELECT x FROM argo_query('SELECT i FROM xp3 WHERE i < 30 ORDER BY i % 7, -i LIMIT 6') x;

-- aggregates over expressions (§9.2): on each object, or per element of
-- the one array their [*] paths pass through; SUM and AVG exact (§9.3);
-- compared without the nulls of aggregates that had nothing to use
CREATE FUNCTION xp_agg(argo text, ref text)
RETURNS TABLE (coll text, same boolean) LANGUAGE plpgsql AS $$
BEGIN
  FOREACH coll IN ARRAY ARRAY['xp3', 'xp1', 'xp0'] LOOP
    RETURN QUERY EXECUTE format(
      'SELECT %L::text, (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(x) ORDER BY jsonb_strip_nulls(x)::text), ''[]'') FROM argo_query(%L) x) =
                        (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(r) ORDER BY jsonb_strip_nulls(r)::text), ''[]'') FROM (%s) q(r))',
      coll, format(argo, coll), ref);
  END LOOP;
END $$;
SELECT * FROM xp_agg('SELECT SUM(price * qty) AS s, AVG(price * qty) AS a, MIN(price * qty) AS lo, MAX(price - qty) AS hi, COUNT(price * qty) AS n FROM %s',
  'SELECT jsonb_build_object(''s'', sum(xpn(d->''price'') * xpn(d->''qty'')), ''a'', avg(xpn(d->''price'') * xpn(d->''qty'')),
          ''lo'', min(xpn(d->''price'') * xpn(d->''qty''))::float8, ''hi'', max(xpn(d->''price'') - xpn(d->''qty''))::float8,
          ''n'', count(xpn(d->''price'') * xpn(d->''qty''))) FROM xp_docs');
SELECT * FROM xp_agg('SELECT qty, SUM(price * 2) AS s, COUNT(DISTINCT LOWER(name)) AS names FROM %s GROUP BY qty',
  'SELECT jsonb_build_object(''qty'', d->''qty'', ''s'', sum(xpn(d->''price'') * 2), ''names'', count(DISTINCT lower(xps(d->''name'') COLLATE "und-x-icu")))
     FROM xp_docs GROUP BY d->''qty''');
-- an order's total: each element's q * p, summed, per object and per group
SELECT * FROM xp_agg('SELECT SUM(items[*].q * items[*].p) AS total, COUNT(items[*].q * items[*].p) AS lines, MAX(items[*].p * i) AS m FROM %s',
  'SELECT jsonb_build_object(''total'', sum(xpn(e->''q'') * xpn(e->''p'')), ''lines'', count(xpn(e->''q'') * xpn(e->''p'')),
          ''m'', max(xpn(e->''p'') * i)::float8) FROM xp_docs LEFT JOIN LATERAL jsonb_array_elements(d->''items'') e ON true');
SELECT * FROM xp_agg('SELECT ordered, SUM(items[*].q * items[*].p + ordered) AS t FROM %s GROUP BY ordered',
  'SELECT jsonb_build_object(''ordered'', d->''ordered'', ''t'', sum(xpn(e->''q'') * xpn(e->''p'') + xpn(d->''ordered'')))
     FROM xp_docs LEFT JOIN LATERAL jsonb_array_elements(d->''items'') e ON true GROUP BY d->''ordered''');
-- … and with GROUP BY items[*].sku, each unwound element's (revenue per sku)
SELECT * FROM xp_agg('SELECT items[*].sku, SUM(items[*].q * items[*].p) AS rev, AVG(items[*].p) AS ap, SUM(price) AS sp FROM %s GROUP BY items[*].sku',
  'SELECT jsonb_build_object(''items'', CASE WHEN e->''sku'' IS NOT NULL THEN jsonb_build_array(jsonb_build_object(''sku'', e->''sku'')) END,
          ''rev'', sum(xpn(e->''q'') * xpn(e->''p'')), ''ap'', avg(xpn(e->''p'')), ''sp'', sum(xpn(d->''price'')))
     FROM xp_docs LEFT JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_array_length(d->''items'') > 0 THEN d->''items'' END) e ON true
    GROUP BY e->''sku''');
-- … read from each document once where every aggregate is the element's
SELECT * FROM xp_agg('SELECT items[*].sku, SUM(items[*].q * items[*].p) AS rev, MAX(items[*].p * 2) AS m, COUNT(*) AS n, AVG(items[*].q) AS aq FROM %s GROUP BY items[*].sku',
  'SELECT jsonb_build_object(''items'', CASE WHEN e->''sku'' IS NOT NULL THEN jsonb_build_array(jsonb_build_object(''sku'', e->''sku'')) END,
          ''rev'', sum(xpn(e->''q'') * xpn(e->''p'')), ''m'', max(xpn(e->''p'') * 2)::float8, ''n'', count(*), ''aq'', avg(xpn(e->''q'')))
     FROM xp_docs LEFT JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_array_length(d->''items'') > 0 THEN d->''items'' END) e ON true
    GROUP BY e->''sku''');
SELECT bool_or(l ~ 'argo_compute\(z\.doc') AS from_each_document
  FROM argo_explain('SELECT items[*].sku, SUM(items[*].q * items[*].p) AS rev FROM xp3 GROUP BY items[*].sku') l;
-- ARRAY_AGG, FIRST and LAST of expressions (per element too: one array)
SELECT * FROM xp_agg('SELECT qty, ARRAY_AGG(price * 2 ORDER BY i) AS a, FIRST(LOWER(name) ORDER BY i DESC) AS f, LAST(ordered + 1 ORDER BY i) AS l FROM %s WHERE i < 60 GROUP BY qty',
  'SELECT jsonb_build_object(''qty'', d->''qty'', ''a'', jsonb_agg(to_jsonb(xpn(d->''price'') * 2) ORDER BY i) FILTER (WHERE xpn(d->''price'') IS NOT NULL),
          ''f'', (array_agg(to_jsonb(lower(xps(d->''name'') COLLATE "und-x-icu")) ORDER BY i DESC))[1],
          ''l'', (array_agg(to_jsonb(xpn(d->''ordered'') + 1) ORDER BY i DESC))[1])
     FROM xp_docs WHERE i < 60 GROUP BY d->''qty''');
SELECT * FROM xp_agg('SELECT ARRAY_AGG(items[*].q * 2 ORDER BY i) AS a, ARRAY_AGG(DISTINCT UPPER(name)) AS names FROM %s WHERE i < 30',
  'SELECT jsonb_build_object(''a'', (SELECT jsonb_agg(to_jsonb(xpn(e->''q'') * 2) ORDER BY i, n) FROM xp_docs, jsonb_array_elements(d->''items'') WITH ORDINALITY x(e, n)
                                     WHERE i < 30 AND xpn(e->''q'') IS NOT NULL),
          ''names'', (SELECT jsonb_agg(DISTINCT to_jsonb(upper(xps(d->''name'') COLLATE "und-x-icu")) ORDER BY to_jsonb(upper(xps(d->''name'') COLLATE "und-x-icu"))) FROM xp_docs WHERE i < 30))');
SELECT * FROM argo_query('SELECT FIRST(items[*].q * 2) AS f FROM xp3');

-- exact sums of paths: 0.1 + 0.2 is 0.3, AVG as avg(numeric)
SELECT * FROM xp_agg('SELECT SUM(price) AS s, AVG(price) AS a, SUM(items[*].p) AS ip, AVG(items[-1].p) AS lp FROM %s',
  'SELECT jsonb_build_object(''s'', sum(xpn(d->''price'')), ''a'', avg(xpn(d->''price'')),
          ''ip'', (SELECT sum(xpn(e->''p'')) FROM xp_docs, jsonb_array_elements(d->''items'') e),
          ''lp'', avg(xpn(d->''items''->-1->''p''))) FROM xp_docs');
SELECT * FROM xp_agg('SELECT qty, SUM(price) AS s, AVG(price) AS a FROM %s WHERE i > 20 GROUP BY qty',
  'SELECT jsonb_build_object(''qty'', d->''qty'', ''s'', sum(xpn(d->''price'')), ''a'', avg(xpn(d->''price''))) FROM xp_docs WHERE i > 20 GROUP BY d->''qty''');
SELECT * FROM argo_query('SELECT SUM(items[*].q * other[*].q) AS x FROM xp3');
-- GROUP BY an expression, by its target's name or written again (shown
-- under the name; not shown where no target computes it)
SELECT * FROM xp_agg('SELECT DATE_TRUNC(''month'', at) AS month, SUM(price) AS s, COUNT(*) AS n FROM %s GROUP BY month',
  'SELECT jsonb_build_object(''month'', xpiso(date_trunc(''month'', xpt(d->''at''))), ''s'', sum(xpn(d->''price'')), ''n'', count(*))
     FROM xp_docs GROUP BY date_trunc(''month'', xpt(d->''at''))');
SELECT * FROM xp_agg('SELECT LOWER(name) AS n, MOD(ordered, 3) AS m, COUNT(*) AS c FROM %s GROUP BY MOD(ordered, 3), n HAVING c > 10',
  'SELECT jsonb_build_object(''n'', lower(xps(d->''name'') COLLATE "und-x-icu"), ''m'', mod(xpn(d->''ordered''), 3), ''c'', count(*))
     FROM xp_docs GROUP BY lower(xps(d->''name'') COLLATE "und-x-icu"), mod(xpn(d->''ordered''), 3) HAVING count(*) > 10');
SELECT * FROM xp_agg('SELECT COUNT(*) AS c FROM %s GROUP BY TYPEOF(qty)',
  'SELECT jsonb_build_object(''c'', count(*)) FROM xp_docs GROUP BY jsonb_typeof(d->''qty'')');
SELECT x FROM argo_query('SELECT SIZE(tags) AS n, COUNT(*) AS c FROM xp3 GROUP BY n ORDER BY n DESC NULLS LAST') x;
-- expressions over aggregates, in the targets: each aggregate computed by
-- SQL, the expression on the group's result; none where one has no value
SELECT * FROM xp_agg('SELECT qty, SUM(price) / COUNT(*) AS mean, ROUND(AVG(price), 2) AS ap, MAX(ordered) - MIN(ordered) AS spread,
                             SUM(price * qty) / SUM(qty) AS weighted, COUNT(*) AS n FROM %s GROUP BY qty',
  'SELECT jsonb_build_object(''qty'', d->''qty'', ''mean'', sum(xpn(d->''price'')) / count(*), ''ap'', round(avg(xpn(d->''price'')), 2),
          ''spread'', max(xpn(d->''ordered'')) - min(xpn(d->''ordered'')),
          ''weighted'', sum(xpn(d->''price'') * xpn(d->''qty'')) / nullif(sum(xpn(d->''qty'')), 0), ''n'', count(*))
     FROM xp_docs GROUP BY d->''qty''');
SELECT x FROM argo_query('SELECT COUNT(*) * 2 AS twice, SUM(nope) * 2 AS none, COALESCE(MAX(nope), MIN(i)) AS lo, CONCAT(MIN(name), ''…'', MAX(name)) AS names FROM xp3') x;
SELECT * FROM argo_query('SELECT CASE WHEN COUNT(*) > 100 THEN ''many'' ELSE ''few'' END AS size FROM xp3');
SELECT * FROM argo_query('SELECT qty, SUM(price) / COUNT(*) AS mean FROM xp3 GROUP BY qty ORDER BY mean');
-- … and of group values: GROUP BY paths shown under their own path
SELECT * FROM xp_agg('SELECT name, LOWER(name) AS ln, SUM(price) / qty AS m, COUNT(*) AS n FROM %s GROUP BY name, qty',
  'SELECT jsonb_build_object(''name'', d->''name'', ''ln'', lower(xps(d->''name'') COLLATE "und-x-icu"), ''qty'', d->''qty'',
          ''m'', sum(xpn(d->''price'')) / xpn(d->''qty''), ''n'', count(*)) FROM xp_docs GROUP BY d->''name'', d->''qty''');
-- HAVING over aggregates: judged on each group's result (LIMIT after it)
SELECT * FROM xp_agg('SELECT qty, COUNT(*) AS n FROM %s GROUP BY qty HAVING SUM(price * qty) / COUNT(*) > 150 AND n > 5',
  'SELECT jsonb_build_object(''qty'', d->''qty'', ''n'', count(*)) FROM xp_docs GROUP BY d->''qty''
   HAVING sum(xpn(d->''price'') * xpn(d->''qty'')) / count(*) > 150 AND count(*) > 5');
SELECT * FROM xp_agg('SELECT name, SUM(price) AS s FROM %s GROUP BY name HAVING LOWER(name) LIKE ''%%o%%'' OR MAX(price) - MIN(price) < 50',
  'SELECT jsonb_build_object(''name'', d->''name'', ''s'', sum(xpn(d->''price''))) FROM xp_docs GROUP BY d->''name''
   HAVING lower(xps(d->''name'') COLLATE "und-x-icu") LIKE ''%%o%%'' OR max(xpn(d->''price'')) - min(xpn(d->''price'')) < 50');
SELECT x FROM argo_query('SELECT ordered, COUNT(*) AS n FROM xp3 GROUP BY ordered HAVING COUNT(*) * 2 > 50 ORDER BY ordered DESC LIMIT 3 OFFSET 1') x;
SELECT * FROM argo_query('SELECT qty, COUNT(*) AS n FROM xp3 GROUP BY qty HAVING LENGTH(name) > 1');
SELECT * FROM argo_query('SELECT LOWER(name) AS ln, COUNT(*) AS n FROM xp3 GROUP BY qty');
SELECT * FROM argo_query('SELECT name AS nm, LOWER(name) AS ln, COUNT(*) AS n FROM xp3 GROUP BY name');
SELECT * FROM argo_query('SELECT SUM(SUM(price)) AS s FROM xp3');
SELECT * FROM argo_query('SELECT i FROM xp3 WHERE COUNT(*) > 1');
SELECT * FROM argo_query('SELECT COUNT(*) AS n, COUNT(*) + 1 AS n FROM xp3');

-- SET p = expr: on each object as it was (a = b, b = a swaps), JSON null
-- where it has none, missing parents created; checked against jsonb
CREATE FUNCTION xp_set(sets text, ref text)
RETURNS TABLE (coll text, changed bigint, mismatches bigint) LANGUAGE plpgsql AS $$
BEGIN
  FOREACH coll IN ARRAY ARRAY['xp3', 'xp1', 'xp0'] LOOP
    EXECUTE 'SELECT (x->>''updated'')::bigint FROM argo_query($1) x'
      INTO changed USING format('UPDATE %s SET %s', coll, sets);
    RETURN QUERY EXECUTE format(
      'SELECT %L::text, %s::bigint, count(*) FILTER (WHERE a.x::text IS DISTINCT FROM r.x::text)
         FROM (SELECT i, (%s) AS x FROM xp_docs) r
         FULL JOIN (SELECT (x->>''i'')::int AS i, x - ''i'' AS x FROM argo_query(%L) x) a USING (i)',
      coll, changed, ref, format('SELECT i, s, t, u FROM %s', coll));
  END LOOP;
END $$;
SELECT * FROM xp_set('s = price * qty, t.w = LOWER(name), u = qty',
  'jsonb_strip_nulls(jsonb_build_object(''s'', coalesce(to_jsonb(xpn(d->''price'') * xpn(d->''qty'')), ''null''), ''t'', jsonb_build_object(''w'', coalesce(to_jsonb(lower(xps(d->''name'') COLLATE "und-x-icu")), ''null'')), ''u'', coalesce(d->''qty'', ''null'')))
   || jsonb_build_object(''s'', coalesce(to_jsonb(xpn(d->''price'') * xpn(d->''qty'')), ''null''), ''u'', coalesce(d->''qty'', ''null''))');
SELECT * FROM xp_set('s = u, u = s, t = t.w || ''!''',
  'jsonb_build_object(''s'', coalesce(d->''qty'', ''null''), ''u'', coalesce(to_jsonb(xpn(d->''price'') * xpn(d->''qty'')), ''null''), ''t'', coalesce(to_jsonb(lower(xps(d->''name'') COLLATE "und-x-icu") || ''!''), ''null''))');
SELECT * FROM xp_set('t = s UNSET s, u', 'jsonb_build_object(''t'', coalesce(d->''qty'', ''null''))');
-- UPSERT … ON INSERT SET ($setOnInsert): only when it inserts, and it wins
SELECT * FROM argo_query('UPSERT xp3 SET hits = COALESCE(hits, 0) + 1 ON INSERT SET hits = 100, first = ''yes'' WHERE day = ''d1''');
SELECT * FROM argo_query('UPSERT xp3 SET hits = COALESCE(hits, 0) + 1 ON INSERT SET hits = 100, first = ''yes'' WHERE day = ''d1''');
SELECT x - 'd' FROM argo_query('SELECT day, hits, first FROM xp3 WHERE day = ''d1''') x;
SELECT * FROM argo_query('DELETE FROM xp3 WHERE day = ''d1''');
-- an error leaves every object as it was
SELECT * FROM argo_query('UPDATE xp1 SET marked = 1, s = price / (i - 150) WHERE i BETWEEN 140 AND 160');
SELECT count(*) FROM argo_query('SELECT * FROM xp1 WHERE EXISTS marked');
SELECT * FROM argo_query('UPDATE xp0 SET s = 1e300 * 1e300 WHERE i = 2');
SELECT * FROM argo_query('UPDATE xp3 SET tags[*] = tags[0] WHERE i = 3');
-- validation (reference.md §8.5) judges the object as the SET made it
SELECT argo_validate('xp1', '{"properties": {"ordered": {"type": "number"}}}');
SELECT * FROM argo_query('UPDATE xp1 SET ordered = TO_STRING(ordered) WHERE i = 2');
SELECT * FROM argo_query('UPDATE xp1 SET ordered = ordered * 2 WHERE i = 2');
SELECT x FROM argo_query('SELECT ordered FROM xp1 WHERE i = 2') x;
SELECT argo_validate('xp1', NULL);

-- errors: each names the problem, and the statement does nothing
SELECT * FROM argo_query('SELECT price * qty FROM xp3');
SELECT * FROM argo_query('SELECT NOPE(price) AS x FROM xp3');
SELECT * FROM argo_query('SELECT ROUND() AS x FROM xp3');
SELECT * FROM argo_query('SELECT CONCAT() AS x FROM xp3');
SELECT * FROM argo_query('SELECT COALESCE() AS x FROM xp3');
SELECT * FROM argo_query('SELECT price / (qty - qty) AS x FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT i FROM xp3 WHERE price % 0 = 1');
SELECT * FROM argo_query('SELECT ''x'' / 0 AS x, missing % 0 AS y FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT 1e300 * 1e300 AS x FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT 1e-300 * 1e-300 AS x FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT DATE_PART(''century'', at) AS x FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT SQRT(-1) AS x FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT LN(0) AS x FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT *, i * 2 AS price FROM xp3 WHERE i = 1');
SELECT * FROM argo_query('SELECT i, i AS i2, 1 AS i2 FROM xp3');
SELECT * FROM argo_query('SELECT qty, COUNT(*) FROM xp3 GROUP BY qty ORDER BY qty * 2');
SELECT * FROM argo_query('SELECT tags[*] * 2 AS t FROM xp3');
SELECT * FROM argo_query('SELECT a.i FROM xp3 AS a JOIN xp1 AS b ON a.i = b.i WHERE a.price * 2 > b.price');
-- ID(alias) in ON: an order joins the customer whose id it holds ($lookup on _id)
SELECT count(*) FROM argo_query('SELECT a.i, b.name FROM xp3 AS a JOIN xp1 AS b ON (a.shipped = ID(b))') x
  JOIN (SELECT a.i, b.d->'name' AS name FROM xp_docs a JOIN xp_docs b ON xpn(a.d->'shipped') = b.i) r
    ON (x->'a'->>'i')::int = r.i AND x->'b'->'name' = r.name;
SELECT (SELECT count(*) FROM argo_query('SELECT a.i, b.name FROM xp3 AS a JOIN xp1 AS b ON (a.shipped = ID(b))')) AS argo,
       (SELECT count(*) FROM xp_docs a JOIN xp_docs b ON xpn(a.d->'shipped') = b.i) AS jsonb;
SELECT (SELECT count(*) FROM argo_query('SELECT a.i FROM xp0 AS a LEFT JOIN xp3 AS b ON ID(a) = b.ordered')) AS argo,
       (SELECT count(*) FROM xp_docs a LEFT JOIN xp_docs b ON a.i = xpn(b.d->'ordered')) AS jsonb;
SELECT * FROM argo_query('SELECT a.i FROM xp3 AS a JOIN xp1 AS b ON ID(a) = ID(b)');
SELECT * FROM argo_query('SELECT a.i FROM xp3 AS a JOIN xp1 AS b ON a.i = ID(c)');
SELECT * FROM argo_query('SELECT a ^ 2 AS x FROM xp3');
SELECT count(*) FROM argo_query('SELECT * FROM xp3');

SELECT argo_drop_collection('xp3'), argo_drop_collection('xp1'), argo_drop_collection('xp0');
DROP TABLE xp_docs;
