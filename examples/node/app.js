// Argo from Node.js with node-postgres (pg): create, read, update and
// delete documents, every value passed as a parameter.
//
//   npm install && PGDATABASE=mydb node app.js
//
// argo_query's parameters are jsonb, and node-postgres sends every
// parameter as untyped text, which PostgreSQL then parses as JSON. So a
// value goes as its JSON text, JSON.stringify(value): the bare string 'Ada'
// is not JSON (22P02), and the string '6' would arrive as the number 6.
'use strict';
const assert = require('node:assert/strict');
const { Client } = require('pg');

// The statement's results, one JavaScript value per document.
async function query(client, statement, ...params) {
  const holes = params.map((_, i) => `, $${i + 2}`).join('');
  const res = await client.query(`SELECT * FROM argo_query($1${holes})`,
    [statement, ...params.map((p) => JSON.stringify(p))]);
  return res.rows.map((r) => r.argo_query); // jsonb arrives parsed
}

async function main() {
  const client = new Client(); // PGHOST, PGPORT, PGDATABASE, PGUSER from the environment
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS argo');
    await client.query("SELECT argo_drop_collection('node_users', true)");

    // create
    const [{ ids: [ada, bob] }] = await query(client,
      'INSERT INTO node_users OBJECT $1, $2 RETURNING ID',
      { name: 'Ada', email: 'ada@example.com', tags: ['admin'] },
      { name: 'Bob', email: 'bob@example.com', logins: 0, zip: '06510' });

    // read by id, and by any key; user input is a parameter, never SQL
    const [first] = await query(client, 'SELECT * FROM node_users WHERE ID() = $1', ada);
    assert.equal(first.name, 'Ada');
    assert.deepEqual(await query(client, 'SELECT * FROM node_users WHERE name = $1', "Bob' OR 1 = 1 --"), []);
    // a string that looks like a number stays a string
    assert.equal((await query(client, 'SELECT name FROM node_users WHERE zip = $1', '06510')).length, 1);
    assert.equal((await query(client, 'SELECT name FROM node_users WHERE zip = $1', 6510)).length, 0);

    // update in place
    await query(client, 'UPDATE node_users SET logins += 1, tags ADD $1 WHERE ID() = $2', 'beta', bob);
    const [b] = await query(client, 'SELECT logins, tags FROM node_users WHERE ID() = $1', bob);
    assert.deepEqual(b, { logins: 1, tags: ['beta'] });

    // upsert: one object per (kind, day), counted
    for (let i = 0; i < 3; i++) {
      await query(client, 'UPSERT node_users SET hits += 1 WHERE kind = $1 AND day = $2', 'visit', '2026-11-23');
    }
    const [v] = await query(client, 'SELECT hits FROM node_users WHERE kind = $1', 'visit');
    assert.equal(v.hits, 3);

    // a list parameter: a JSON array
    const named = await query(client, 'SELECT name FROM node_users WHERE ID() IN $1 ORDER BY name', [ada, bob]);
    assert.deepEqual(named.map((o) => o.name), ['Ada', 'Bob']);

    // a unique key: a second user with Bob's email is refused (23505)
    await client.query("SELECT argo_unique('node_users', 'email')");
    await assert.rejects(query(client, 'INSERT INTO node_users OBJECT $1', { name: 'Bobby', email: 'bob@example.com' }),
      (e) => e.code === '23505');

    // find one and update it, getting the object as updated
    const [after] = await query(client, 'UPDATE node_users SET logins += 1 WHERE email = $1 RETURNING *', 'bob@example.com');
    assert.equal(after.logins, 2);

    // 10,000 documents in one statement, as one parameter: a JSON array
    // (PostgreSQL allows a function 100 arguments)
    const events = Array.from({ length: 10000 }, (_, n) => ({ kind: 'event', n }));
    const [{ ids }] = await query(client, 'INSERT INTO node_users OBJECTS $1 RETURNING ID', events);
    assert.equal(ids.length, 10000);
    const [total] = await query(client, "SELECT COUNT(*) AS n, SUM(n) AS s FROM node_users WHERE kind = 'event'");
    assert.deepEqual(total, { n: 10000, s: 49995000 });
    await query(client, "DELETE FROM node_users WHERE kind = 'event'");

    // delete
    const [{ deleted }] = await query(client, 'DELETE FROM node_users WHERE ID() = $1', ada);
    assert.equal(deleted, 1);
    await client.query("SELECT argo_drop_collection('node_users')");
    console.log('node example: ok');
  } finally {
    await client.end();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
