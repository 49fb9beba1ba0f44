'use strict';
// sqlite-shorn/drizzle's selects beside the decoded() route, with
// drizzle-orm 0.x on better-sqlite3: 10,000 people with an order each,
// read as db.select().from(people), as people joined with orders, and as a
// relational query with the orders.  A Markdown table of milliseconds and
// each route's ratio to db.select({id, person: decoded(people.person)}).
//   node scripts/bench-drizzle.js EXTENSION [DRIZZLE_JS]   (better-sqlite3,
//   drizzle-orm and zod on NODE_PATH; DRIZZLE_JS: another version of
//   bindings/node/drizzle.js to measure, such as git show main:...'s)
const path = require('node:path');
const Database = require('better-sqlite3');
const {eq, relations, sql} = require('drizzle-orm');
const {drizzle} = require('drizzle-orm/better-sqlite3');
const {integer, sqliteTable} = require('drizzle-orm/sqlite-core');
const {z} = require('zod');
const {decoded, setup, shorn} = require(process.argv[3] ? path.resolve(process.argv[3])
  : path.join(__dirname, '..', 'bindings', 'node', 'drizzle.js'));

const ROWS = 10000;
const people = sqliteTable('people', {
  id: integer().primaryKey(),
  person: shorn('person', z.object({name: z.string(), age: z.int().nonnegative(), sex: z.enum(['M', 'F', 'X'])})).notNull(),
});
const orders = sqliteTable('orders', {
  id: integer().primaryKey(),
  personId: integer().notNull(),
  order: shorn('order', z.object({item: z.string(), qty: z.int()})).notNull(),
});
const schema = {people, orders, peopleRelations: relations(people, ({many}) => ({orders: many(orders)})),
                ordersRelations: relations(orders, ({one}) => ({person: one(people, {fields: [orders.personId],
                                                                                    references: [people.id]})}))};
const client = new Database(':memory:');
client.loadExtension(process.argv[2]);
const db = drizzle({client, schema});
setup(db, schema);
db.run(sql`CREATE TABLE people (id INTEGER PRIMARY KEY, person BLOB NOT NULL)`);
db.run(sql`CREATE TABLE orders (id INTEGER PRIMARY KEY, personId INTEGER NOT NULL, "order" BLOB NOT NULL)`);
db.run(sql`CREATE INDEX orders_by_person ON orders(personId)`);
db.transaction((tx) => {
  for (let i = 0; i < ROWS; i += 500) {
    const batch = Array.from({length: 500}, (_, j) => ({name: `Grace ${i + j}`, age: (i + j) % 150, sex: 'MFX'[(i + j) % 3]}));
    tx.insert(people).values(batch.map((person) => ({person}))).run();
    tx.insert(orders).values(batch.map((_, j) => ({personId: i + j + 1, order: {item: 'tea', qty: j}}))).run();
  }
});

// Each route's fastest of seven runs, after one to warm up; the routes take
// turns, so that a busy moment of the machine falls on all of them alike.
function fastest(routes) {
  const times = routes.map(() => Infinity);
  for (let round = 0; round < 8; round++) {
    routes.forEach(([, fn], i) => {
      const start = process.hrtime.bigint();
      try {
        fn();
      } catch (error) {
        times[i] = error.message;
        return;
      }
      if (round > 0 && typeof times[i] === 'number') times[i] = Math.min(times[i], Number(process.hrtime.bigint() - start) / 1e6);
    });
  }
  return times;
}

const routes = [
  ['db.select({id, person: decoded(people.person)})',
   () => db.select({id: people.id, person: decoded(people.person)}).from(people).all()],
  ['db.select().from(people)', () => db.select().from(people).all()],
  ['db.select({person: people.person, order: orders.order}), people joined with orders',
   () => db.select({person: people.person, order: orders.order}).from(people)
     .innerJoin(orders, eq(orders.personId, people.id)).all()],
  ['db.query.people.findMany({with: {orders: true}})', () => db.query.people.findMany({with: {orders: true}}).sync()],
];
const times = fastest(routes);
console.log(`\n### sqlite-shorn/drizzle's selects beside decoded() (better-sqlite3, ${ROWS} rows, fastest of 7)\n`);
console.log('| what | ms | ratio to decoded() |');
console.log('| --- | ---: | ---: |');
routes.forEach(([what], i) => {
  const ms = times[i];
  console.log(typeof ms === 'number' ? `| ${what} | ${ms.toFixed(1)} | ${(ms / times[0]).toFixed(2)} |` : `| ${what} | fails: ${ms} | |`);
});
