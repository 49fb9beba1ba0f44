'use strict';
// The Node helpers beside the SQL route, with better-sqlite3 on a database
// in memory: 10,000 people encoded and decoded by the helpers a call a value
// and in one call, by a prepared statement of the caller's own a value, and
// by one SELECT over a table of them, which the helpers are measured
// against (JSON.stringify and JSON.parse included wherever a user would
// write them; the table holds the JSON text a SELECT encodes, and a SELECT
// over json_each encodes the values from JavaScript in one statement).  A Markdown
// table of milliseconds and each route's ratio to that SELECT.
//   node scripts/bench-node.js EXTENSION PACKAGE   (better-sqlite3 on NODE_PATH;
//   PACKAGE: bindings/node with shorn-codec.wasm beside codec.mjs, as make bench-node copies it)
const fs = require('node:fs');
const path = require('node:path');
const Database = require('better-sqlite3');
const [extension, packageDir] = process.argv.slice(2);
if (!packageDir || !fs.existsSync(path.join(packageDir, 'shorn-codec.wasm'))) {
  throw new Error('bench-node.js: the second argument is a copy of bindings/node with shorn-codec.wasm in it');
}
const shorn = require(path.join(packageDir, 'index.js'));

const ROWS = 10000;
const db = new Database(':memory:');
db.loadExtension(extension);
const person = {type: 'object', properties: {name: {type: 'string', maxLength: 40},
  age: {type: 'integer', minimum: 0, maximum: 150}, sex: {enum: ['M', 'F', 'X']}},
  required: ['name', 'age', 'sex'], additionalProperties: false};
// The first helper call of a process starts the codec (shorn-codec.wasm).
const start = process.hrtime.bigint();
shorn.register(db, 'person', person);
const first = shorn.encode(db, 'person', {name: 'Grace', age: 45, sex: 'F'});
const firstCall = Number(process.hrtime.bigint() - start) / 1e6;
const people = Array.from({length: ROWS}, (_, i) => ({name: `Grace ${i}`, age: i % 150, sex: 'MFX'[i % 3]}));

// Each route's fastest run, in ms of the process's CPU time (user and
// system, every thread), the routes taken in turns ROUNDS times after one
// round to warm up.  CPU time, not wall time: on a shared machine a longer
// run is more often put aside for another process, which wall time counts
// against it.
const ROUNDS = 15;
function fastest(routes) {
  const times = routes.map(() => Infinity);
  for (let round = 0; round <= ROUNDS; round++) {
    routes.forEach(([, , fn], i) => {
      const before = process.cpuUsage();
      fn();
      const {user, system} = process.cpuUsage(before);
      if (round > 0) times[i] = Math.min(times[i], (user + system) / 1e3);
    });
  }
  return routes.map(([kind, what], i) => [kind, what, times[i]]);
}

const encodeSql = db.prepare("SELECT shorn_encode(?, 'person')").pluck();
const decodeSql = db.prepare("SELECT shorn_decode(?, 'person')").pluck();
const payloads = people.map((p) => encodeSql.get(JSON.stringify(p)));
db.exec('CREATE TABLE payloads (payload BLOB); CREATE TABLE texts (json TEXT)');
const insertPayload = db.prepare('INSERT INTO payloads VALUES (?)');
const insertText = db.prepare('INSERT INTO texts VALUES (?)');
db.transaction(() => {
  payloads.forEach((p) => insertPayload.run(p));
  people.forEach((p) => insertText.run(JSON.stringify(p)));
})();
const encodeTable = db.prepare("SELECT shorn_encode(json, 'person') FROM texts").pluck();
const decodeTable = db.prepare("SELECT shorn_decode(payload, 'person') FROM payloads").pluck();
const fromValues = db.prepare("SELECT shorn_encode(value, 'person') FROM json_each(?)").pluck();
// fn inside a transaction that has written a row, which a rollback could
// take back: shorn_registry_version() says when the registry has moved.
db.exec('CREATE TABLE scratch (x)');
function written(fn) {
  db.exec('BEGIN; INSERT INTO scratch VALUES (1)');
  try {
    return fn();
  } finally {
    db.exec('ROLLBACK');
  }
}

// The codec alone, with no check of the registry: the floor of a call a value.
const codec = require(path.join(packageDir, 'codec.mjs')).compileSync(person);
const rows = fastest([
  ['encode', 'one SELECT shorn_encode over the table', () => encodeTable.all()],
  ['encode', 'one SELECT shorn_encode over json_each(JSON.stringify(values))', () => fromValues.all(JSON.stringify(people))],
  ['encode', 'shorn.encode, a call a value', () => people.map((p) => shorn.encode(db, 'person', p))],
  ['encode', 'shorn.encodeMany, one call', () => shorn.encodeMany(db, 'person', people)],
  ['encode', 'a statement of your own a value', () => people.map((p) => encodeSql.get(JSON.stringify(p)))],
  ['encode', 'sqlite-shorn/codec alone, a call a value', () => people.map((p) => codec.encode(p))],
  ['decode', 'one SELECT shorn_decode over the table, JSON.parse a row',
   () => decodeTable.all().map((text) => JSON.parse(text))],
  ['decode', 'shorn.decode, a call a payload', () => payloads.map((p) => shorn.decode(db, 'person', p))],
  ['decode', 'shorn.decodeMany, one call', () => shorn.decodeMany(db, 'person', payloads)],
  ['decode', 'a statement of your own a payload', () => payloads.map((p) => JSON.parse(decodeSql.get(p)))],
  ['decode', 'sqlite-shorn/codec alone, a call a payload', () => payloads.map((p) => codec.decode(p))],
  ['decode', 'shorn.decode, a call a payload, in a transaction that has written',
   () => written(() => payloads.map((p) => shorn.decode(db, 'person', p)))],
  ['decode', 'a statement of your own a payload, in a transaction that has written',
   () => written(() => payloads.map((p) => JSON.parse(decodeSql.get(p))))],
]);
// The first route of each kind is the SELECT over the table.
const table = Object.fromEntries(['encode', 'decode'].map((kind) => [kind, rows.find((row) => row[0] === kind)[2]]));
console.log(`\n### The Node helpers beside one SELECT over a table (better-sqlite3, ${ROWS} rows, CPU time, fastest of ${ROUNDS} in turns)\n`);
console.log('| what | CPU ms | ratio to the SELECT |');
console.log('| --- | ---: | ---: |');
for (const [kind, what, ms] of rows) console.log(`| ${what} | ${ms.toFixed(1)} | ${(ms / table[kind]).toFixed(2)} |`);
console.log(`\nThe process's first call (register, then encode, starting the codec): ${firstCall.toFixed(1)} ms; ` +
            `its payload ${Buffer.from(first).toString('hex')}.`);
