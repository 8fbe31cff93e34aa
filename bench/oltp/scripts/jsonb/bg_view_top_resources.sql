--@zipf
SELECT doc FROM {resources} WHERE @eq(walluserid, to_jsonb(:k::int)) ORDER BY doc->'rid' DESC LIMIT 5;
