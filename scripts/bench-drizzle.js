'use strict';
// sqlite-shorn/drizzle's selects beside the decoded() route, with
// drizzle-orm 0.x on better-sqlite3: 10,000 rows of people with an order
// each, read as db.select().from(people), as db.select({person:
// decoded(people.person)}), and as a relational query with the orders.
// A Markdown table of milliseconds and each route's ratio to decoded().
//   node scripts/bench-drizzle.js DRIZZLE_JS   (the module to measure, e.g.
//   bindings/node/drizzle.js; better-sqlite3, drizzle-orm and zod on NODE_PATH,
//   and sqlite-shorn, whose extension the module loads)
const path = require('node:path');
const Database = require('better-sqlite3');
const {eq, relations, sql} = require('drizzle-orm');
const {drizzle} = require('drizzle-orm/better-sqlite3');
const {integer, sqliteTable} = require('drizzle-orm/sqlite-core');
const {z} = require('zod');
const {decoded, setup, shorn} = require(path.resolve(process.argv[2]));

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
const db = drizzle({client: new Database(':memory:'), schema});
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

// The fastest of five runs, in ms, after one to warm up.
function best(fn) {
  fn();
  let fastest = Infinity;
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    fn();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return fastest;
}

const base = best(() => db.select({id: people.id, person: decoded(people.person)}).from(people).all());
const rows = [
  ['db.select().from(people)', best(() => db.select().from(people).all())],
  ['db.select({person: people.person}) joined with orders',
   best(() => db.select({person: people.person, order: orders.order}).from(people)
     .innerJoin(orders, eq(orders.personId, people.id)).all())],
];
let relational;
try {
  relational = best(() => db.query.people.findMany({with: {orders: true}}).sync());
} catch (error) {
  relational = error.message;
}
rows.push(['db.query.people.findMany({with: {orders: true}})', relational]);
console.log(`\n### sqlite-shorn/drizzle's selects beside decoded() (better-sqlite3, ${ROWS} rows, fastest of 5)\n`);
console.log(`db.select({id, person: decoded(people.person)}): ${base.toFixed(1)} ms\n`);
console.log('| what | ms | ratio to decoded() |');
console.log('| --- | ---: | ---: |');
for (const [what, ms] of rows) {
  console.log(typeof ms === 'number' ? `| ${what} | ${ms.toFixed(1)} | ${(ms / base).toFixed(2)} |` : `| ${what} | fails: ${ms} | |`);
}
