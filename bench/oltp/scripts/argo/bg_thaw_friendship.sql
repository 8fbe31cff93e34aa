--@zipf
\set j random(0, :n - 1)
BEGIN;
SELECT * FROM argo_query('UPDATE {members} SET confirmedFriends REMOVE $1 WHERE userid = $2', to_jsonb(:j::int), to_jsonb(:k::int));
SELECT * FROM argo_query('UPDATE {members} SET confirmedFriends REMOVE $1 WHERE userid = $2', to_jsonb(:k::int), to_jsonb(:j::int));
END;
