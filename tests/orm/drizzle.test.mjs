// sqlite-shorn/drizzle with drizzle-orm on the client SHORN_CLIENT names
// (better-sqlite3 under node --test, bun:sqlite under bun test): the tables
// of schema.mjs made by drizzle-kit's migration, typed objects in and out,
// a field filtered and ordered through its expression index.
import assert from 'node:assert/strict';
import {execFileSync, spawnSync} from 'node:child_process';
import {mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import test from 'node:test';
import {fileURLToPath} from 'node:url';
import {and, asc, eq, exists, gt, inArray, sql} from 'drizzle-orm';
import {integer, sqliteTable, sqliteView} from 'drizzle-orm/sqlite-core';
import {decoded, extract, migrate, remove, set, setup, shorn} from 'sqlite-shorn/drizzle';
import {z} from 'zod';
import * as schema from './schema.mjs';

const {people, cards, staff, orders} = schema;
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const CLIENT = process.env.SHORN_CLIENT ?? 'better-sqlite3';
const DRIVERS = {
  'better-sqlite3': async (file) => [(await import('drizzle-orm/better-sqlite3')), new (require('better-sqlite3'))(file)],
  'bun:sqlite': async (file) => [(await import('drizzle-orm/bun-sqlite')), new (require('bun:sqlite').Database)(file)],
};
const GRACE = {name: 'Grace', age: 45, sex: 'F'};
const ADA = {name: 'Ada', age: 36, sex: 'F'};
const ALAN = {name: 'Alan', age: 41, sex: 'M'};

// drizzle-kit's migration of schema.mjs, generated once, offline.
const migrations = mkdtempSync(join(tmpdir(), 'shorn-drizzle-'));
execFileSync(process.execPath, [join(dirname(require.resolve('drizzle-kit')), 'bin.cjs'), 'generate', '--dialect', 'sqlite',
  '--schema', join(here, 'schema.mjs'), '--out', migrations], {cwd: here, stdio: 'pipe'});

async function open() {
  const [driver, client] = await DRIVERS[CLIENT](':memory:');
  const db = driver.drizzle({client, schema});
  setup(db, schema);
  migrate(db, {migrationsFolder: migrations});
  return [db, client];
}

test("drizzle-kit's migration has the BLOB columns and a field's index", () => {
  const [file] = readdirSync(migrations).filter((name) => name.endsWith('.sql'));
  const text = readFileSync(join(migrations, file), 'utf8');
  assert.match(text, /`person` blob NOT NULL/);
  assert.match(text, /`badge` blob,/);
  assert.match(text, /`age` integer GENERATED ALWAYS AS \(shorn_extract\("person", 'person', '\$\.age'\)\) VIRTUAL/);
  assert.match(text, /CREATE INDEX `people_by_age` ON `people` \(`age`\);/);
});

test('typed objects in, the same objects out, stored as payloads', async () => {
  const [db, client] = await open();
  db.insert(people).values([{person: GRACE}, {person: ADA}, {person: ALAN}]).run();
  assert.deepEqual(db.select({id: people.id, person: people.person}).from(people).all(),
                   [{id: 1, person: GRACE}, {id: 2, person: ADA}, {id: 3, person: ALAN}]);
  assert.deepEqual(db.select({person: decoded(people.person)}).from(people).where(eq(people.id, 2)).all(), [{person: ADA}]);
  const stored = client.prepare("SELECT typeof(person) AS type, hex(person) AS hex FROM people WHERE id = 1").get();
  // The 4-byte fingerprint of the schema's wire shape, then the values.
  assert.deepEqual({...stored}, {type: 'blob', hex: 'A3B4E3DE2D05477261636500'});
});

// The plan of a drizzle query, as SQLite's EXPLAIN QUERY PLAN details.
function plan(client, query) {
  const {sql: text, params} = query.toSQL();
  return client.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params).map((row) => row.detail);
}

test('a field filtered and ordered through an index: on its generated column, and on the expression', async () => {
  const [db, client] = await open();
  db.insert(people).values([{person: GRACE}, {person: ADA}, {person: ALAN}]).run();
  const byColumn = db.select({id: people.id, name: extract(people.person, '$.name')}).from(people)
    .where(gt(people.age, 40)).orderBy(asc(people.age));
  assert.deepEqual(byColumn.all(), [{id: 3, name: 'Alan'}, {id: 1, name: 'Grace'}]);
  assert.deepEqual(plan(client, byColumn), ['SEARCH people USING INDEX people_by_age (age>?)']);
  // The index drizzle-kit cannot write (its migration spells an expression's
  // arguments as column names), in a migration of one's own.
  db.run(sql.raw("CREATE INDEX people_by_name ON people(shorn_extract(person, 'person', '$.name'))"));
  const name = extract(people.person, '$.name');
  const byExpression = db.select({id: people.id}).from(people).where(gt(name, 'B')).orderBy(asc(name));
  assert.deepEqual(byExpression.all(), [{id: 1}]);
  assert.deepEqual(plan(client, byExpression), ['SEARCH people USING COVERING INDEX people_by_name (<expr>>?)']);
});

test('one field changed with shorn_set; columns typed by Valibot, ArkType, and a name registered already', async () => {
  const [db] = await open();
  db.insert(people).values({person: GRACE}).run();
  db.update(people).set({person: set(people.person, '$.age', 46)}).where(eq(people.id, 1)).run();
  db.update(people).set({person: set(people.person, '$.sex', 'X')}).run();
  assert.deepEqual(db.select().from(people).get(), {id: 1, person: {...GRACE, age: 46, sex: 'X'}, age: 46});
  db.insert(cards).values({badge: {number: 7, colour: 'red'}, point: {x: 1.5, y: -2}}).run();
  db.insert(cards).values({}).run();
  assert.deepEqual(db.select().from(cards).all(),
                   [{id: 1, badge: {colour: 'red', number: 7}, point: {x: 1.5, y: -2}}, {id: 2, badge: null, point: null}]);
  db.insert(staff).values({person: ADA}).run();
  assert.deepEqual(db.select().from(staff).all(), [{id: 1, person: ADA}]);
});

test("a value the schema refuses gives the extension's error", async () => {
  const [db] = await open();
  assert.throws(() => db.insert(people).values({person: {...GRACE, age: 500}}).run(),
                {message: 'shorn_encode: Too big: expected at most 150 at $.age'});
  db.insert(people).values({person: GRACE}).run();
  assert.throws(() => db.update(people).set({person: set(people.person, '$.sex', 'Q')}).run(),
                {message: 'shorn_set: Unknown enum value "Q" at $.sex'});
  assert.equal(db.select({n: sql`count(*)`}).from(people).get().n, 1);
});

// An app's table as one run of it declares it: a schema the app changes
// between runs (version 2 adds email, optional, and lang, with a default,
// and drops nick).
const MemberV1 = z.object({name: z.string(), age: z.int().nonnegative(), nick: z.string()});
const MemberV2 = z.object({name: z.string(), age: z.int().nonnegative(), email: z.string().optional(),
                           lang: z.string().default('en')});
const membersOf = (Member, options) => sqliteTable('members', {
  id: integer().primaryKey(),
  member: shorn('member', Member, options).notNull(),
});

// One run of the app: a new connection to the file, set up with its tables.
async function run(file, members) {
  const [driver, client] = await DRIVERS[CLIENT](file);
  const db = driver.drizzle({client, schema: {members}});
  setup(db, {members});
  return [db, client];
}

test('an app run again with a changed schema: setup() adds its version; old rows query and read in its shape',
     async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'shorn-drizzle-app-')), 'app.db');
  const v1 = membersOf(MemberV1);
  let [db, client] = await run(file, v1);
  db.run(sql`CREATE TABLE members (id INTEGER PRIMARY KEY, member BLOB NOT NULL)`);
  db.insert(v1).values([{member: {name: 'Grace', age: 45, nick: 'Amazing Grace'}},
                        {member: {name: 'Ada', age: 36, nick: 'Enchantress'}}]).run();
  client.close();

  const members = membersOf(MemberV2);
  [db, client] = await run(file, members);
  db.insert(members).values({member: {name: 'Alan', age: 41, email: 'alan@example.org'}}).run();
  const GRACE2 = {name: 'Grace', age: 45, lang: 'en'}, ADA2 = {name: 'Ada', age: 36, lang: 'en'};
  const ALAN2 = {name: 'Alan', age: 41, email: 'alan@example.org', lang: 'en'};
  assert.deepEqual(db.select().from(members).all(), [{id: 1, member: GRACE2}, {id: 2, member: ADA2}, {id: 3, member: ALAN2}]);
  assert.deepEqual(db.select({id: members.id, name: extract(members.member, '$.name')}).from(members)
    .where(and(gt(extract(members.member, '$.age'), 40), eq(extract(members.member, '$.lang'), 'en'))).all(),
                   [{id: 1, name: 'Grace'}, {id: 3, name: 'Alan'}]);
  assert.deepEqual(db.select({member: decoded(members.member)}).from(members).where(eq(members.id, 2)).all(),
                   [{member: ADA2}]);
  assert.deepEqual(await db.query.members.findFirst({where: (table, {eq}) => eq(table.id, 1)}), {id: 1, member: GRACE2});
  const versions = () => client.prepare("SELECT group_concat(shorn_payload_version(member, 'member')) AS v FROM members").get().v;
  assert.equal(versions(), '1,1,2');
  assert.deepEqual({...client.prepare("SELECT group_concat(version || ':' || fp_bytes) AS v FROM shorn_schemas").get()},
                   {v: '1:4,2:4'});
  // shorn_set writes the newest version.
  db.update(members).set({member: set(members.member, '$.age', 46)}).where(eq(members.id, 1)).run();
  assert.equal(versions(), '2,1,2');
  assert.deepEqual(db.select().from(members).where(eq(members.id, 1)).get(), {id: 1, member: {...GRACE2, age: 46}});
  client.close();
});

test("setup() of a change the registry cannot read throws the registry's message", async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'shorn-drizzle-app-')), 'app.db');
  (await run(file, membersOf(MemberV1)))[1].close();
  const [, client] = await DRIVERS[CLIENT](file);
  assert.throws(() => setup(client, {members: membersOf(MemberV1.extend({age: z.string()}))}), {
    message: "shorn_schemas: version 2 of 'member' cannot read what version 1 wrote: #/properties/age: " +
             'an integer cannot be read as a string',
  });
  client.close();
});

test('{fpBytes: 3} on the column: its payloads start with the 3-byte fingerprint', async () => {
  const members = membersOf(MemberV1, {fpBytes: 3});
  const [db, client] = await run(':memory:', members);
  db.run(sql`CREATE TABLE members (id INTEGER PRIMARY KEY, member BLOB NOT NULL)`);
  db.insert(members).values({member: {name: 'Grace', age: 45, nick: 'G'}}).run();
  const row = client.prepare('SELECT hex(substr(member, 1, 3)) AS prefix, upper(shorn_fingerprint(schema, 3)) AS fp ' +
                             'FROM members, shorn_schemas').get();
  assert.equal(row.prefix, row.fp);
  assert.deepEqual(db.select().from(members).get(), {id: 1, member: {name: 'Grace', age: 45, nick: 'G'}});
});

// Grace with two orders, Ada with none, Alan with one that has a note.
async function withOrders() {
  const [db, client] = await open();
  db.insert(people).values([{person: GRACE}, {person: ADA}, {person: ALAN}]).run();
  db.insert(orders).values([{personId: 1, order: {item: 'tea', qty: 2}}, {personId: 1, order: {item: 'cake', qty: 1}},
                            {personId: 3, order: {item: 'pen', qty: 5}, note: 'gift'}]).run();
  return [db, client];
}

test("relational queries: a relation's rows, its columns and its relations, decoded", async () => {
  const [db] = await withOrders();
  const TEA = {id: 1, personId: 1, order: {item: 'tea', qty: 2}, note: null};
  const CAKE = {id: 2, personId: 1, order: {item: 'cake', qty: 1}, note: null};
  const PEN = {id: 3, personId: 3, order: {item: 'pen', qty: 5}, note: 'gift'};
  assert.deepEqual(await db.query.people.findMany({with: {orders: true}}), [
    {id: 1, person: GRACE, age: 45, orders: [TEA, CAKE]}, {id: 2, person: ADA, age: 36, orders: []},
    {id: 3, person: ALAN, age: 41, orders: [PEN]}]);
  assert.deepEqual(await db.query.orders.findFirst({with: {person: true}}), {...TEA, person: {id: 1, person: GRACE, age: 45}});
  assert.deepEqual(await db.query.orders.findMany({
    columns: {order: true, note: true},
    where: (order, {gt}) => gt(order.id, 1),
    with: {person: {columns: {person: true}, with: {orders: {columns: {note: true}, orderBy: (order, {desc}) => desc(order.id)}}}},
  }), [{order: CAKE.order, note: null, person: {person: GRACE, orders: [{note: null}, {note: null}]}},
       {order: PEN.order, note: 'gift', person: {person: ALAN, orders: [{note: 'gift'}]}}]);
  assert.deepEqual(await db.query.people.findFirst({columns: {id: true}, where: (person, {eq}) => eq(person.id, 3),
                                                    with: {orders: {with: {person: {columns: {person: true}}}}}}),
                   {id: 3, orders: [{...PEN, person: {person: ALAN}}]});
});

test('a select decodes its payloads in the statement: a table, a join, a subquery, a CTE, a view, a transaction, returning', async () => {
  const [db] = await withOrders();
  const query = db.select().from(people).where(eq(people.id, 1));
  assert.match(query.toSQL().sql, /shorn_decode\("person", 'person'\)/);
  assert.deepEqual(query.all(), [{id: 1, person: GRACE, age: 45}]);
  assert.deepEqual(db.select({person: people.person, order: orders.order, note: orders.note}).from(people)
    .leftJoin(orders, eq(orders.personId, people.id)).where(gt(people.id, 1)).all(),
                   [{person: ADA, order: null, note: null}, {person: ALAN, order: {item: 'pen', qty: 5}, note: 'gift'}]);
  const older = db.select({id: people.id, person: people.person}).from(people).where(gt(people.age, 40)).as('older');
  assert.deepEqual(db.select().from(older).orderBy(older.id).all(), [{id: 1, person: GRACE}, {id: 3, person: ALAN}]);
  const everyone = db.$with('everyone').as(db.select({id: people.id, person: people.person}).from(people));
  assert.deepEqual(db.with(everyone).select().from(everyone).where(eq(everyone.id, 2)).all(), [{id: 2, person: ADA}]);
  db.run(sql`CREATE VIEW grown AS SELECT id, person FROM people WHERE shorn_extract(person, 'person', '$.age') > 40`);
  const grown = sqliteView('grown', {id: integer(), person: shorn('person')}).existing();
  assert.deepEqual(db.select().from(grown).all(), [{id: 1, person: GRACE}, {id: 3, person: ALAN}]);
  assert.deepEqual(db.transaction((tx) => tx.select({person: people.person}).from(people).where(eq(people.id, 2)).all()),
                   [{person: ADA}]);
  assert.deepEqual(db.insert(orders).values({personId: 2, order: {item: 'ink', qty: 1}, note: 'blue'}).returning().get(),
                   {id: 4, personId: 2, order: {item: 'ink', qty: 1}, note: 'blue'});
});

test('a select inside a condition or an insert meets the payloads as stored; a union decodes both sides', async () => {
  const [db, client] = await withOrders();
  const graces = db.select({person: people.person}).from(people).where(eq(people.id, 1));
  assert.deepEqual(db.select({id: people.id}).from(people).where(inArray(people.person, graces)).all(), [{id: 1}]);
  assert.deepEqual(db.select({id: orders.id}).from(orders).where(exists(db.select().from(people)
    .where(and(eq(people.id, orders.personId), eq(people.person, sql`shorn_encode(${JSON.stringify(ALAN)}, 'person')`))))).all(),
                   [{id: 3}]);
  db.insert(staff).select(db.select({id: people.id, person: people.person}).from(people).where(gt(people.id, 1))).run();
  assert.deepEqual(client.prepare('SELECT group_concat(typeof(person)) AS types FROM staff').get().types, 'blob,blob');
  assert.deepEqual(db.select().from(staff).all(), [{id: 2, person: ADA}, {id: 3, person: ALAN}]);
  assert.deepEqual(db.select({person: people.person}).from(people).where(eq(people.id, 1))
    .union(db.select({person: staff.person}).from(staff).where(eq(staff.id, 2))).all(), [{person: ADA}, {person: GRACE}]);
});

test('remove() takes an optional field out; set() refuses undefined with a TypeError', async () => {
  const [db] = await withOrders();
  const notes = sqliteTable('notes', {id: integer().primaryKey(),
                                      note: shorn('memo', z.object({text: z.string(), tag: z.string().optional()})).notNull()});
  setup(db, {notes});
  db.run(sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, note BLOB NOT NULL)`);
  db.insert(notes).values({note: {text: 'hello', tag: 'x'}}).run();
  db.update(notes).set({note: remove(notes.note, '$.tag')}).run();
  assert.deepEqual(db.select().from(notes).all(), [{id: 1, note: {text: 'hello'}}]);
  assert.throws(() => db.update(notes).set({note: remove(notes.note, '$.text')}).run(),
                {message: 'shorn_remove: Missing required property at $.text'});
  assert.throws(() => set(notes.note, '$.tag', undefined), {
    name: 'TypeError',
    message: 'sqlite-shorn/drizzle: set() takes a value JSON can write, not undefined; remove(column, path) takes a field out',
  });
});

// What the README says of drizzle-kit migrate, and its way round: the
// same database file, migrated by migrate() of sqlite-shorn/drizzle.
test('drizzle-kit migrate fails on a migration calling shorn_extract; migrate() applies it', {skip: CLIENT !== 'better-sqlite3'},
     async () => {
  const folder = mkdtempSync(join(tmpdir(), 'shorn-drizzle-kit-'));
  const file = join(folder, 'app.db');
  writeFileSync(join(folder, 'drizzle.config.mjs'),
                `export default ${JSON.stringify({dialect: 'sqlite', out: migrations, dbCredentials: {url: file}})};`);
  const kit = spawnSync(process.execPath, [join(dirname(require.resolve('drizzle-kit')), 'bin.cjs'), 'migrate',
    '--config', join(folder, 'drizzle.config.mjs')], {cwd: here, encoding: 'utf8'});
  assert.equal(kit.status, 1);
  assert.match(kit.stdout, /applying migrations/);
  const [driver, client] = await DRIVERS[CLIENT](file);
  assert.equal(client.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'people'").get().n, 0);
  const db = driver.drizzle({client, schema});
  setup(db, schema);
  migrate(db, {migrationsFolder: migrations});
  db.insert(people).values({person: GRACE}).run();
  assert.deepEqual(db.select().from(people).all(), [{id: 1, person: GRACE, age: 45}]);
  client.close();
});

test("migrate(): drizzle-kit's migrations on the connection, the extension loaded; a clear error where it cannot be",
     async () => {
  const [driver, client] = await DRIVERS[CLIENT](':memory:');
  const db = driver.drizzle({client});
  migrate(db, {migrationsFolder: migrations});
  assert.ok(client.prepare("SELECT 1 FROM sqlite_master WHERE name = 'people_by_age'").get());
  // A connection that refuses extensions, as node:sqlite's does without allowExtension.
  const [, refusing] = await DRIVERS[CLIENT](':memory:');
  refusing.loadExtension = () => { throw new Error('not authorized'); };
  assert.throws(() => migrate(driver.drizzle({client: refusing}), {migrationsFolder: migrations}), {
    message: 'sqlite-shorn/drizzle: migrate() could not load the extension into this connection (not authorized), ' +
             'and the migrations call shorn_extract, which the extension defines',
  });
  assert.equal(refusing.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'people'").get().n, 0);
});
