--@zipf
SELECT x->'confirmedFriends' AS friends FROM argo_query('SELECT confirmedFriends FROM {members} WHERE userid = $1', to_jsonb(:k::int)) x \gset
SELECT * FROM argo_query('SELECT userid, username, fname, lname FROM {members} WHERE userid IN $1', :friends::jsonb);
