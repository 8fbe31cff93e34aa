--@zipf
\set j random(0, :n - 1)
BEGIN;
UPDATE {members} SET doc = jsonb_set(doc, '{confirmedFriends}', bg_remove(doc->'confirmedFriends', to_jsonb(:j::int))) WHERE @eq(userid, to_jsonb(:k::int));
UPDATE {members} SET doc = jsonb_set(doc, '{confirmedFriends}', bg_remove(doc->'confirmedFriends', to_jsonb(:k::int))) WHERE @eq(userid, to_jsonb(:j::int));
END;
