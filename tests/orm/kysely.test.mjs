// sqlite-shorn/kysely with Kysely's SqliteDialect on better-sqlite3: a
// table and an expression index made by Kysely's schema builder, typed
// objects in and out, a field filtered and ordered through the index.
import assert from 'node:assert/strict';
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import test from 'node:test';
import Database from 'better-sqlite3';
import {Kysely, SqliteDialect} from 'kysely';
import {setup, shorn, ShornPlugin} from 'sqlite-shorn/kysely';
import {z} from 'zod';
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
                   {type: 'blob', hex: 'A3B4E3DE2D05477261636500'});
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

// A schema an app changes between two runs: version 2 adds email
// (optional) and lang (with a default), and drops nick.
const MemberV1 = z.object({name: z.string(), age: z.int().nonnegative(), nick: z.string()});
const MemberV2 = z.object({name: z.string(), age: z.int().nonnegative(), email: z.string().optional(),
                           lang: z.string().default('en')});

// One run of the app: a new connection to the file, set up with its schema.
function run(file, member) {
  const client = new Database(file);
  setup(client, member);
  return [new Kysely({dialect: new SqliteDialect({database: client}), plugins: [new ShornPlugin()]}), client];
}

test('an app run again with a changed schema: setup() adds its version; old rows query and read in its shape',
     async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'shorn-kysely-app-')), 'app.db');
  const v1 = shorn('member', MemberV1);
  let [db, client] = run(file, v1);
  await db.schema.createTable('members').addColumn('id', 'integer', (column) => column.primaryKey())
    .addColumn('member', 'blob', (column) => column.notNull()).execute();
  await db.insertInto('members').values([{name: 'Grace', age: 45, nick: 'Amazing Grace'}, {name: 'Ada', age: 36, nick: 'Enchantress'}]
    .map((value) => ({member: v1.encode(value)}))).execute();
  await db.destroy();

  const member = shorn('member', MemberV2);
  [db, client] = run(file, member);
  await db.insertInto('members').values({member: member.encode({name: 'Alan', age: 41, email: 'alan@example.org'})}).execute();
  const GRACE2 = {name: 'Grace', age: 45, lang: 'en'}, ADA2 = {name: 'Ada', age: 36, lang: 'en'};
  const ALAN2 = {name: 'Alan', age: 41, email: 'alan@example.org', lang: 'en'};
  assert.deepEqual(await db.selectFrom('members').select(['id', member.decode('member').as('member')]).orderBy('id').execute(),
                   [{id: 1, member: GRACE2}, {id: 2, member: ADA2}, {id: 3, member: ALAN2}]);
  assert.deepEqual(await db.selectFrom('members').select(['id', member.extract('member', '$.name').as('name')])
    .where(member.extract('member', '$.age'), '>', 40).where(member.extract('member', '$.lang'), '=', 'en').orderBy('id')
    .execute(), [{id: 1, name: 'Grace'}, {id: 3, name: 'Alan'}]);
  const versions = () => client.prepare("SELECT group_concat(shorn_payload_version(member, 'member')) AS v FROM members").get().v;
  assert.equal(versions(), '1,1,2');
  assert.equal(client.prepare("SELECT group_concat(version || ':' || fp_bytes) AS v FROM shorn_schemas").get().v, '1:4,2:4');
  await db.updateTable('members').set({member: member.set('member', '$.age', 46)}).where('id', '=', 1).execute();
  assert.equal(versions(), '2,1,2');
  assert.deepEqual(await db.selectFrom('members').select(member.decode('member').as('m')).where('id', '=', 1).execute(),
                   [{m: {...GRACE2, age: 46}}]);
  await db.destroy();
});

test("setup() of a change the registry cannot read throws the registry's message", async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'shorn-kysely-app-')), 'app.db');
  run(file, shorn('member', MemberV1))[1].close();
  const client = new Database(file);
  assert.throws(() => setup(client, shorn('member', MemberV1.extend({age: z.string()}))), {
    message: "shorn_schemas: version 2 of 'member' cannot read what version 1 wrote: #/properties/age: " +
             'an integer cannot be read as a string',
  });
  client.close();
});

test('{fpBytes: 3}: payloads start with the 3-byte fingerprint', async () => {
  const member = shorn('member', MemberV1, {fpBytes: 3});
  const [db, client] = run(':memory:', member);
  await db.schema.createTable('members').addColumn('member', 'blob').execute();
  await db.insertInto('members').values({member: member.encode({name: 'Grace', age: 45, nick: 'G'})}).execute();
  const row = client.prepare('SELECT hex(substr(member, 1, 3)) AS prefix, upper(shorn_fingerprint(schema, 3)) AS fp ' +
                             'FROM members, shorn_schemas').get();
  assert.equal(row.prefix, row.fp);
  assert.deepEqual(await db.selectFrom('members').select(member.decode('member').as('m')).execute(),
                   [{m: {name: 'Grace', age: 45, nick: 'G'}}]);
});
