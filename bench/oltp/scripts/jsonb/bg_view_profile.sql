--@zipf
SELECT doc FROM {members} WHERE @eq(userid, to_jsonb(:k::int));
