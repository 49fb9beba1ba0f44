// sqlite-shorn/drizzle with drizzle-orm on the client SHORN_CLIENT names
// (better-sqlite3 under node --test, bun:sqlite under bun test): the tables
// of schema.mjs made by drizzle-kit's migration, typed objects in and out,
// a field filtered and ordered through its expression index.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {mkdtempSync, readdirSync, readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import test from 'node:test';
import {fileURLToPath} from 'node:url';
import {asc, eq, gt, sql} from 'drizzle-orm';
import {decoded, extract, set, setup} from 'sqlite-shorn/drizzle';
import * as schema from './schema.mjs';

const {people, cards, staff} = schema;
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const CLIENT = process.env.SHORN_CLIENT ?? 'better-sqlite3';
const DRIVERS = {
  'better-sqlite3': async () => [(await import('drizzle-orm/better-sqlite3')), new (require('better-sqlite3'))(':memory:')],
  'bun:sqlite': async () => [(await import('drizzle-orm/bun-sqlite')), new (require('bun:sqlite').Database)(':memory:')],
};
const GRACE = {name: 'Grace', age: 45, sex: 'F'};
const ADA = {name: 'Ada', age: 36, sex: 'F'};
const ALAN = {name: 'Alan', age: 41, sex: 'M'};

// drizzle-kit's migration of schema.mjs, generated once, offline.
const migrations = mkdtempSync(join(tmpdir(), 'shorn-drizzle-'));
execFileSync(process.execPath, [join(dirname(require.resolve('drizzle-kit')), 'bin.cjs'), 'generate', '--dialect', 'sqlite',
  '--schema', join(here, 'schema.mjs'), '--out', migrations], {cwd: here, stdio: 'pipe'});

async function open() {
  const [driver, client] = await DRIVERS[CLIENT]();
  const db = driver.drizzle({client});
  setup(db, schema);
  (await import(`drizzle-orm/${CLIENT === 'bun:sqlite' ? 'bun-sqlite' : 'better-sqlite3'}/migrator`))
    .migrate(db, {migrationsFolder: migrations});
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
  assert.deepEqual({...stored}, {type: 'blob', hex: '2D05477261636500'});
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
