// Compiled by tests/orm's tests with tsc --strict: a column of
// sqlite-shorn/drizzle and the helpers of sqlite-shorn/kysely take and give
// the schema's type, and refuse a value of another type.
import Database = require('better-sqlite3');
import {eq, gt} from 'drizzle-orm';
import {drizzle} from 'drizzle-orm/better-sqlite3';
import {integer, sqliteTable} from 'drizzle-orm/sqlite-core';
import {Generated, Kysely, SqliteDialect} from 'kysely';
import {decoded, extract, migrate, remove, set, setup, shorn} from 'sqlite-shorn/drizzle';
import * as kysely from 'sqlite-shorn/kysely';
import * as v from 'valibot';
import {z} from 'zod';

const Person = z.object({name: z.string(), age: z.int().nonnegative(), sex: z.enum(['M', 'F', 'X'])});
type Person = z.infer<typeof Person>;
const people = sqliteTable('people', {
  id: integer().primaryKey(),
  person: shorn('person', Person).notNull(),
  badge: shorn('badge', v.object({number: v.number()})),
  point: shorn<{x: number; y: number}>('point'),
  narrow: shorn('narrow', Person, {fpBytes: 3}),
});

const db = drizzle({client: new Database(':memory:')});
setup(db, {people});
db.insert(people).values({person: {name: 'Grace', age: 45, sex: 'F'}, badge: {number: 7}, point: {x: 1, y: 2}}).run();
// @ts-expect-error: age is a number
db.insert(people).values({person: {name: 'Grace', age: '45', sex: 'F'}}).run();
// @ts-expect-error: 'Q' is not one of the sex enum's values
db.insert(people).values({person: {name: 'Grace', age: 45, sex: 'Q'}}).run();
// @ts-expect-error: the person column is NOT NULL
db.insert(people).values({badge: {number: 7}}).run();
// @ts-expect-error: badge.number is a number
db.update(people).set({badge: {number: 'seven'}}).run();
db.update(people).set({person: set(people.person, '$.age', 46)}).where(eq(people.id, 1)).run();
db.update(people).set({badge: remove(people.badge, '$.number')}).run();
// @ts-expect-error: remove() takes a path
remove(people.badge);
const migrating: () => void = () => migrate(db, {migrationsFolder: 'drizzle'});

const row = db.select().from(people).where(gt(extract<number>(people.person, '$.age'), 40)).get();
const grace: Person | undefined = row?.person;
const badge: {number: number} | null | undefined = row?.badge;
const narrowed: Person | null | undefined = row?.narrow;
const rows: {person: Person}[] = db.select({person: decoded(people.person)}).from(people).all();
// @ts-expect-error: a selected person is a Person, not a string
const wrong: string | undefined = row?.person;

interface Tables {
  people: {id: Generated<number>; person: kysely.ShornColumn<Person>};
}
const person = kysely.shorn('person', Person);
const narrow: kysely.Shorn<Person> = kysely.shorn('narrow', Person, {fpBytes: 3});
// @ts-expect-error: fpBytes is a number
kysely.shorn('narrow', Person, {fpBytes: '3'});
const client = new Database(':memory:');
kysely.setup(client, person);
const kdb = new Kysely<Tables>({dialect: new SqliteDialect({database: client}), plugins: [new kysely.ShornPlugin()]});

async function kyselyTypes(): Promise<{id: number; person: Person}[]> {
  await kdb.insertInto('people').values({person: person.encode({name: 'Grace', age: 45, sex: 'F'})}).execute();
  // @ts-expect-error: age is a number
  person.encode({name: 'Grace', age: '45', sex: 'F'});
  // @ts-expect-error: a column of payloads takes an encoded value, not the object
  await kdb.insertInto('people').values({person: {name: 'Grace', age: 45, sex: 'F'}}).execute();
  const point = kysely.shorn<{x: number}>('point');
  // @ts-expect-error: a payload of another schema
  await kdb.insertInto('people').values({person: point.encode({x: 1})}).execute();
  await kdb.updateTable('people').set({person: person.set('person', '$.age', 46)}).execute();
  return kdb.selectFrom('people').select(['id', person.decode('person').as('person')])
    .where(person.extract<number>('person', '$.age'), '>', 40).execute();
}
export {grace, badge, narrowed, narrow, rows, wrong, kyselyTypes, migrating};
