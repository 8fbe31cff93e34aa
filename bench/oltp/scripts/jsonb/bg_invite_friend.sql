--@zipf
\set j random(0, :n - 1)
UPDATE {members} SET doc = jsonb_set(doc, '{pendingFriends}', bg_add(doc->'pendingFriends', to_jsonb(:k::int))) WHERE @eq(userid, to_jsonb(:j::int));
