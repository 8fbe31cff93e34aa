\set rid random(0, :nres - 1)
SELECT jsonb_build_object('comments', doc->'comments') FROM {resources} WHERE @eq(rid, to_jsonb(:rid::int));
