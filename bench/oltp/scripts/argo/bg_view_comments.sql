\set rid random(0, :nres - 1)
SELECT * FROM argo_query('SELECT comments FROM {resources} WHERE rid = $1', to_jsonb(:rid::int));
