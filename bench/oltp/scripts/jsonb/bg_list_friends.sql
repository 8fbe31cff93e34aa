--@zipf
SELECT jsonb_build_object('userid', f.doc->'userid', 'username', f.doc->'username', 'fname', f.doc->'fname', 'lname', f.doc->'lname')
  FROM {members} m CROSS JOIN LATERAL jsonb_array_elements(m.doc->'confirmedFriends') e(x)
  JOIN {members} f ON @eq(f.userid, e.x)
 WHERE @eq(m.userid, to_jsonb(:k::int));
