--@zipf
SELECT x->'pendingFriends' AS pending FROM argo_query('SELECT pendingFriends FROM {members} WHERE userid = $1', to_jsonb(:k::int)) x \gset
SELECT * FROM argo_query('SELECT userid, username, fname, lname FROM {members} WHERE userid IN $1', :pending::jsonb);
