// The tables tests/orm/drizzle.test.mjs queries and drizzle-kit generates
// its migration from: a payload column typed by each validator, an index on
// a field inside one, and relations between two tables of payloads.
import {type} from 'arktype';
import {relations} from 'drizzle-orm';
import {index, integer, sqliteTable} from 'drizzle-orm/sqlite-core';
import {extract, shorn} from 'sqlite-shorn/drizzle';
import * as v from 'valibot';
import {z} from 'zod';

export const Person = z.object({name: z.string().max(40), age: z.int().nonnegative().max(150), sex: z.enum(['M', 'F', 'X'])});

export const people = sqliteTable('people', {
  id: integer().primaryKey(),
  person: shorn('person', Person).notNull(),
  // A field as a virtual generated column, indexed: drizzle-kit writes an
  // expression index with commas in it as column names, so the index goes here.
  age: integer().generatedAlwaysAs(() => extract(people.person, '$.age'), {mode: 'virtual'}),
}, (table) => [index('people_by_age').on(table.age)]);

export const cards = sqliteTable('cards', {
  id: integer().primaryKey(),
  badge: shorn('badge', v.object({number: v.pipe(v.number(), v.integer(), v.minValue(0)), colour: v.picklist(['red', 'blue'])})),
  point: shorn('point', type({x: 'number', y: 'number'})),
});

// A schema registered by name only: here, people's.
export const staff = sqliteTable('staff', {id: integer().primaryKey(), person: shorn('person')});

// A person's orders, for the relational queries: a payload whose schema is
// an object, and one whose schema is a string.
export const orders = sqliteTable('orders', {
  id: integer().primaryKey(),
  personId: integer('person_id').notNull().references(() => people.id),
  order: shorn('order', z.object({item: z.string(), qty: z.int().positive()})).notNull(),
  note: shorn('note', z.string()),
});

export const peopleRelations = relations(people, ({many}) => ({orders: many(orders)}));
export const ordersRelations = relations(orders, ({one}) => ({
  person: one(people, {fields: [orders.personId], references: [people.id]}),
}));
