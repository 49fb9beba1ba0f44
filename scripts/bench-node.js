'use strict';
// The Node helpers beside the SQL route they wrap, with better-sqlite3:
// 10,000 people encoded and decoded one call each, in one call, and by a
// prepared statement of the caller's own (JSON.stringify and JSON.parse
// included, as a user would write it).  A Markdown table of milliseconds
// and each helper's ratio to the SQL route.
//   node scripts/bench-node.js EXTENSION   (better-sqlite3 on NODE_PATH)
const path = require('node:path');
const Database = require('better-sqlite3');
const shorn = require(path.join(__dirname, '..', 'bindings', 'node', 'index.js'));

const ROWS = 10000;
const db = new Database(':memory:');
db.loadExtension(process.argv[2]);
shorn.register(db, 'person', {type: 'object', properties: {name: {type: 'string', maxLength: 40},
  age: {type: 'integer', minimum: 0, maximum: 150}, sex: {enum: ['M', 'F', 'X']}},
  required: ['name', 'age', 'sex'], additionalProperties: false});
const people = Array.from({length: ROWS}, (_, i) => ({name: `Grace ${i}`, age: i % 150, sex: 'MFX'[i % 3]}));

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

const encodeSql = db.prepare("SELECT shorn_encode(?, 'person')").pluck();
const decodeSql = db.prepare("SELECT shorn_decode(?, 'person')").pluck();
const payloads = people.map((p) => encodeSql.get(JSON.stringify(p)));
const sql = {
  encode: best(() => people.map((p) => encodeSql.get(JSON.stringify(p)))),
  decode: best(() => payloads.map((p) => JSON.parse(decodeSql.get(p)))),
};
const rows = [
  ['encode', 'shorn.encode, a call a value', best(() => people.map((p) => shorn.encode(db, 'person', p)))],
  ['encode', 'shorn.encodeMany, one call', best(() => shorn.encodeMany(db, 'person', people))],
  ['decode', 'shorn.decode, a call a payload', best(() => payloads.map((p) => shorn.decode(db, 'person', p)))],
  ['decode', 'shorn.decodeMany, one call', best(() => shorn.decodeMany(db, 'person', payloads))],
];
console.log(`\n### The Node helpers beside the SQL route (better-sqlite3, ${ROWS} rows, fastest of 5)\n`);
console.log('| what | SQL route, ms | helper, ms | ratio |');
console.log('| --- | ---: | ---: | ---: |');
for (const [kind, what, ms] of rows) {
  console.log(`| ${what} | ${sql[kind].toFixed(1)} | ${ms.toFixed(1)} | ${(ms / sql[kind]).toFixed(2)} |`);
}
