--@zipf
\set j random(0, :n - 1)
SELECT * FROM argo_query('UPDATE {members} SET pendingFriends ADD $1 WHERE userid = $2', to_jsonb(:k::int), to_jsonb(:j::int));
