// Compiled by node.test.js with tsc --strict: index.d.ts types the code of a
// better-sqlite3, a libsql, a node-sqlite3 and an @libsql/client user, and refuses what is not
// a connection or would await nothing.
import Database = require('better-sqlite3');
import Libsql = require('libsql');
import sqlite3 = require('sqlite3');
import {createClient} from '@libsql/client';
import {z} from 'zod';
import {decode, decodeMany, encode, encodeMany, getLoadablePath, load, loadLibsql, register} from 'sqlite-shorn';

const Person = z.object({name: z.string(), age: z.int().nonnegative()});
type Person = z.infer<typeof Person>;

const db = new Database(':memory:');
load(db);
const file: string = getLoadablePath();
db.loadExtension(file);
const fingerprint: string = register(db, 'person', Person);
const payload: Uint8Array = encode(db, 'person', {name: 'Grace', age: 45});
const grace: Person = decode<Person>(db, 'person', payload);
const enveloped: Uint8Array = encode(db, 'person', {name: 'Grace', age: 45}, {fpBytes: 3});
const dispatched: Person = decode<Person>(db, null, enveloped, {fpBytes: 3});
const people: Person[] = decodeMany<Person>(db, 'person', encodeMany(db, 'person', [grace, dispatched]));
register(db, 'text', '{"type":"string"}');
register(db, 'object', {type: 'string'});
const versioned: string = register(db, 'versioned', Person, {fpBytes: 4});
const turso = new Libsql(':memory:');
load(turso);
const fromTurso: Uint8Array = encode(turso, 'person', {name: 'Grace', age: 45});
const fromArrayBuffer: Person = decode<Person>(turso, 'person', new Uint8Array(fromTurso).buffer);
// @ts-expect-error: load() takes a connection
load({});
// @ts-expect-error: a synchronous client's register() returns the fingerprint, not a Promise
register(db, 'person', Person).then(() => {});

async function withCallbacks(): Promise<Person> {
  const callbacks = new sqlite3.Database(':memory:');
  await load(callbacks);
  const registered: Promise<string> = register(callbacks, 'person', Person);
  await registered;
  return decode<Person>(callbacks, 'person', await encode(callbacks, 'person', {name: 'Ada', age: 36}));
}

async function withLibsqlClient(): Promise<Person[]> {
  loadLibsql();
  const client = createClient({url: 'file:app.db'});
  await load(client);
  const registered: Promise<string> = register(client, 'person', Person);
  await registered;
  const payloads: Uint8Array[] = await encodeMany(client, 'person', [{name: 'Ada', age: 36}]);
  return decodeMany<Person>(client, 'person', payloads);
}
export {fingerprint, versioned, grace, people, fromArrayBuffer, withCallbacks, withLibsqlClient};
