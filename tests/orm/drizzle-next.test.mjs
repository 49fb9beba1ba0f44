// sqlite-shorn/drizzle with drizzle-orm 1.0's relational queries
// (defineRelations), whose forJsonSelect and fromJson hooks decode a
// related row's payloads in SQL, on the client SHORN_CLIENT names.
import assert from 'node:assert/strict';
import {createRequire} from 'node:module';
import test from 'node:test';
import {defineRelations, sql} from 'drizzle-orm';
import {integer, sqliteTable} from 'drizzle-orm/sqlite-core';
import {setup, shorn} from 'sqlite-shorn/drizzle';
import {z} from 'zod';

const require = createRequire(import.meta.url);
const CLIENT = process.env.SHORN_CLIENT ?? 'better-sqlite3';
const DRIVERS = {
  'better-sqlite3': async () => [(await import('drizzle-orm/better-sqlite3')), new (require('better-sqlite3'))(':memory:')],
  'bun:sqlite': async () => [(await import('drizzle-orm/bun-sqlite')), new (require('bun:sqlite').Database)(':memory:')],
};

const people = sqliteTable('people', {
  id: integer().primaryKey(),
  person: shorn('person', z.object({name: z.string(), age: z.int().nonnegative()})).notNull(),
  nick: shorn('nick', z.string()),
});
const orders = sqliteTable('orders', {
  id: integer().primaryKey(),
  personId: integer('person_id').notNull(),
  order: shorn('order', z.object({item: z.string(), qty: z.int().positive()})).notNull(),
});
const relations = defineRelations({people, orders}, (r) => ({
  people: {orders: r.many.orders()},
  orders: {person: r.one.people({from: r.orders.personId, to: r.people.id})},
}));

test("drizzle-orm 1.0's relational queries: related rows, their columns and relations, decoded", async () => {
  const [driver, client] = await DRIVERS[CLIENT]();
  const db = driver.drizzle({client, relations});
  setup(db, {people, orders});
  db.run(sql`CREATE TABLE people (id INTEGER PRIMARY KEY, person BLOB NOT NULL, nick BLOB)`);
  db.run(sql`CREATE TABLE orders (id INTEGER PRIMARY KEY, person_id INTEGER NOT NULL, "order" BLOB NOT NULL)`);
  db.insert(people).values([{person: {name: 'Grace', age: 45}, nick: 'G'}, {person: {name: 'Ada', age: 36}}]).run();
  db.insert(orders).values([{personId: 1, order: {item: 'tea', qty: 2}}, {personId: 2, order: {item: 'ink', qty: 1}}]).run();
  const GRACE = {id: 1, person: {name: 'Grace', age: 45}, nick: 'G'}, ADA = {id: 2, person: {name: 'Ada', age: 36}, nick: null};
  const TEA = {id: 1, personId: 1, order: {item: 'tea', qty: 2}}, INK = {id: 2, personId: 2, order: {item: 'ink', qty: 1}};
  assert.deepEqual(await db.query.people.findMany({with: {orders: true}, orderBy: {id: 'asc'}}),
                   [{...GRACE, orders: [TEA]}, {...ADA, orders: [INK]}]);
  assert.deepEqual(await db.query.orders.findFirst({where: {id: 2}, with: {person: true}}), {...INK, person: ADA});
  assert.deepEqual(await db.query.orders.findMany({
    columns: {order: true}, orderBy: {id: 'asc'},
    with: {person: {columns: {nick: true}, with: {orders: {columns: {order: true}}}}},
  }), [{order: TEA.order, person: {nick: 'G', orders: [{order: TEA.order}]}},
       {order: INK.order, person: {nick: null, orders: [{order: INK.order}]}}]);
});
