// sqlite-shorn/kysely with Kysely's SqliteDialect on better-sqlite3: a
// table and an expression index made by Kysely's schema builder, typed
// objects in and out, a field filtered and ordered through the index.
import assert from 'node:assert/strict';
import test from 'node:test';
import Database from 'better-sqlite3';
import {Kysely, SqliteDialect} from 'kysely';
import {setup, shorn, ShornPlugin} from 'sqlite-shorn/kysely';
import {Person} from './schema.mjs';

const person = shorn('person', Person);
const GRACE = {name: 'Grace', age: 45, sex: 'F'};
const ADA = {name: 'Ada', age: 36, sex: 'F'};
const ALAN = {name: 'Alan', age: 41, sex: 'M'};

async function open() {
  const client = new Database(':memory:');
  setup(client, person);
  const db = new Kysely({dialect: new SqliteDialect({database: client}), plugins: [new ShornPlugin()]});
  await db.schema.createTable('people').addColumn('id', 'integer', (column) => column.primaryKey())
    .addColumn('person', 'blob', (column) => column.notNull()).execute();
  await db.schema.createIndex('people_by_age').on('people').expression(person.extract('person', '$.age')).execute();
  await db.insertInto('people').values([GRACE, ADA, ALAN].map((value) => ({person: person.encode(value)}))).execute();
  return [db, client];
}

test('typed objects in, the same objects out, stored as payloads', async () => {
  const [db, client] = await open();
  assert.deepEqual(await db.selectFrom('people').select(['id', person.decode('person').as('person')]).execute(),
                   [{id: 1, person: GRACE}, {id: 2, person: ADA}, {id: 3, person: ALAN}]);
  assert.deepEqual(await db.insertInto('people').values({person: person.encode({name: 'Edsger', age: 72, sex: 'M'})})
    .returning(['id', person.decode('person').as('person')]).executeTakeFirst(),
                   {id: 4, person: {name: 'Edsger', age: 72, sex: 'M'}});
  assert.deepEqual({...client.prepare('SELECT typeof(person) AS type, hex(person) AS hex FROM people WHERE id = 1').get()},
                   {type: 'blob', hex: '2D05477261636500'});
});

test('a field filtered and ordered through its expression index', async () => {
  const [db, client] = await open();
  const age = person.extract('person', '$.age');
  const query = db.selectFrom('people').select(['id', person.extract('person', '$.name').as('name')])
    .where(age, '>', 40).orderBy(age);
  assert.deepEqual(await query.execute(), [{id: 3, name: 'Alan'}, {id: 1, name: 'Grace'}]);
  const {sql, parameters} = query.compile();
  assert.deepEqual(client.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters).map((row) => row.detail),
                   ['SEARCH people USING INDEX people_by_age (<expr>>?)']);
});

test("one field changed with shorn_set; a refused value gives the extension's error", async () => {
  const [db] = await open();
  await db.updateTable('people').set({person: person.set('person', '$.age', 46)}).where('id', '=', 1).execute();
  assert.deepEqual(await db.selectFrom('people').select(person.decode('person').as('p')).where('id', '=', 1).execute(),
                   [{p: {...GRACE, age: 46}}]);
  await assert.rejects(db.insertInto('people').values({person: person.encode({...GRACE, age: 500})}).execute(),
                       {message: 'shorn_encode: Too big: expected at most 150 at $.age'});
  await assert.rejects(db.updateTable('people').set({person: person.set('person', '$.sex', 'Q')}).execute(),
                       {message: 'shorn_set: Unknown enum value "Q" at $.sex'});
});
