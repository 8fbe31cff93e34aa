-- The paper's running example (Figure 1 objects, Figure 4 and section 3.2
-- statements), on both storage formats.
SELECT argo_create_collection('people1', 'argo1');

SELECT * FROM argo_query($$
INSERT INTO people OBJECT {
  "name": "George Bluth",
  "age": 58,
  "indicted": true,
  "kids": ["Gob", "Lindsay", "Buster",
           {"name": "Michael", "age": 38, "kids": ["George-Michael"]}],
  "rival": "Stan Sitwell"
}, {
  "name": "Stan Sitwell",
  "age": "middle-aged",
  "charity_giving": 250120.5,
  "kids": ["Sally"]
}$$);
SELECT * FROM argo_load('people1', $$SELECT x FROM argo_query('SELECT * FROM people') x$$);

-- Figure 2/3: how the objects are decomposed (keys are ids from the
-- collection's key dictionary; each object has a directory row)
SELECT objid, keystr, valstr FROM argo_data.people_str JOIN argo_data.people_keys USING (keyid) ORDER BY objid, keystr;
SELECT objid, keystr, valnum FROM argo_data.people_num JOIN argo_data.people_keys USING (keyid) ORDER BY objid, keystr;
SELECT objid, keystr, valbool FROM argo_data.people_bool JOIN argo_data.people_keys USING (keyid) ORDER BY objid, keystr;
SELECT objid, keystr, valstr, valnum, valbool FROM argo_data.people1_data JOIN argo_data.people1_keys USING (keyid) ORDER BY objid, keystr;
SELECT objid FROM argo_data.people_obj ORDER BY objid;

-- Figure 4
SELECT * FROM argo_query('SELECT age FROM people');
SELECT * FROM argo_query('SELECT age FROM people1');
SELECT * FROM argo_query('SELECT * FROM people WHERE charity_giving > 100000');
SELECT * FROM argo_query('SELECT * FROM people1 WHERE charity_giving > 100000');

-- section 3.2.2 predicates
SELECT * FROM argo_query('SELECT name FROM people WHERE age >= 50 AND indicted = true');
SELECT * FROM argo_query('SELECT name FROM people1 WHERE age >= 50 OR indicted = true');
SELECT * FROM argo_query('SELECT name FROM people WHERE charity_giving >= 100000 OR (indicted = True AND age >= 50)');
SELECT * FROM argo_query('SELECT name FROM people1 WHERE "Lindsay" = ANY kids');

-- section 3.2.3 projection of nested values
SELECT * FROM argo_query('SELECT name, kids FROM people');
SELECT * FROM argo_query('SELECT kids[3].name, kids[3].kids[0] FROM people1');

-- section 3.2: DELETE FROM people WHERE "Lindsay" = ANY kids
SELECT * FROM argo_query('DELETE FROM people WHERE "Lindsay" = ANY kids;');
SELECT * FROM argo_query('DELETE FROM people1 WHERE "Lindsay" = ANY kids;');
SELECT * FROM argo_query('SELECT * FROM people');
SELECT * FROM argo_query('SELECT * FROM people1');
