// shorn in @sqlite.org/sqlite-wasm (sqlite-shorn/wasm) beside JSONB in the
// same sqlite-wasm, and beside the native build in better-sqlite3 with
// JSONB there too: one query over a table of people per operation, so the
// time is SQLite's and the functions', not JavaScript's.  A Markdown table
// of milliseconds, the fastest of five runs after half a second of warming.
//
//   node scripts/bench-wasm.mjs SHORN_WASM EXTENSION SHORN_CODEC_WASM
//
// Run where @sqlite.org/sqlite-wasm is installed (make check-wasm's
// folder), with better-sqlite3 on NODE_PATH (make bench-node's).
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [wasmPath, extension, codecPath] = process.argv.slice(2);
const ROWS = 20000;
const require = createRequire(join(process.cwd(), "package.json"));
const { default: sqlite3InitModule } = await import(pathToFileURL(require.resolve("@sqlite.org/sqlite-wasm")));
const { load } = await import(new URL("../bindings/node/wasm.mjs", import.meta.url));
const { compile } = await import(new URL("../bindings/node/codec.mjs", import.meta.url));
const Database = createRequire(import.meta.url)("better-sqlite3");

const PERSON = JSON.stringify({
  type: "object",
  properties: { name: { type: "string", maxLength: 40 }, age: { type: "integer", minimum: 0, maximum: 150 },
                sex: { enum: ["M", "F", "X"] }, tags: { type: "array", items: { type: "string" } } },
  required: ["name", "age", "sex", "tags"], additionalProperties: false,
});
const people = JSON.stringify(Array.from({ length: ROWS }, (_, i) => (
  { name: `Grace Hopper ${i}`, age: i % 150, sex: "MFX"[i % 3], tags: ["navy", `t${i % 7}`] })));

// The same statements on either database: source holds JSON text, people
// the same values as shorn payloads and as JSONB.
const SETUP = [
  "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry",
  `INSERT INTO shorn_schemas(name, schema) VALUES ('person', '${PERSON}')`,
  "CREATE TABLE source(json TEXT)",
  `INSERT INTO source SELECT value FROM json_each('${people}')`,
  "CREATE TABLE people(payload BLOB, jsonb BLOB)",
  "INSERT INTO people SELECT shorn_encode(json, 'person'), jsonb(json) FROM source",
];
const OPERATIONS = [
  ["encode", "SELECT count(shorn_encode(json, 'person')) FROM source", "SELECT count(jsonb(json)) FROM source"],
  ["decode", "SELECT count(shorn_decode(payload, 'person')) FROM people", "SELECT count(json(jsonb)) FROM people"],
  ["extract $.age", "SELECT sum(shorn_extract(payload, 'person', '$.age')) FROM people",
   "SELECT sum(jsonb ->> '$.age') FROM people"],
  ["extract $.tags[1]", "SELECT count(shorn_extract(payload, 'person', '$.tags[1]')) FROM people",
   "SELECT count(jsonb ->> '$.tags[1]') FROM people"],
];

// WebAssembly starts in V8's baseline compiler and moves to its optimizing
// one in the background as functions run hot, SQLite's large interpreter
// loop last: so each query runs for half a second before it is timed.
function best(run) {
  for (const start = performance.now(); performance.now() - start < 500;) run();
  let fastest = Infinity;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

const sqlite3 = await sqlite3InitModule();
const wasmDb = new sqlite3.oo1.DB(":memory:");
await load(sqlite3, wasmDb, { wasm: pathToFileURL(wasmPath) });
for (const sql of SETUP) wasmDb.exec(sql);
const nativeDb = new Database(":memory:");
nativeDb.loadExtension(extension);
for (const sql of SETUP) nativeDb.exec(sql);

const wasm = (sql) => best(() => wasmDb.selectValue(sql));
const native = (sql) => {
  const statement = nativeDb.prepare(sql).pluck();
  return best(() => statement.get());
};
console.log(`\n### sqlite-shorn/wasm: shorn in sqlite-wasm ${sqlite3.version.libVersion} beside JSONB there and beside ` +
            `the native build (better-sqlite3, SQLite ${nativeDb.prepare("SELECT sqlite_version()").pluck().get()}), ` +
            `${ROWS} rows, ms, fastest of 5 after warming\n`);
console.log("| operation | wasm shorn | wasm JSONB | shorn / JSONB in wasm | native shorn | native JSONB | wasm / native shorn |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const [what, shornSql, jsonbSql] of OPERATIONS) {
  const ws = wasm(shornSql), wj = wasm(jsonbSql), ns = native(shornSql), nj = native(jsonbSql);
  console.log(`| ${what} | ${ws.toFixed(1)} | ${wj.toFixed(1)} | ${(ws / wj).toFixed(2)} | ${ns.toFixed(1)} | ` +
              `${nj.toFixed(1)} | ${(ws / ns).toFixed(2)} |`);
}

// The codec in the process, a call a value, beside the SQL routes.
const values = JSON.parse(people).slice(0, 10000);
const person = await compile(PERSON, { wasm: pathToFileURL(codecPath) });
const encodeOne = nativeDb.prepare("SELECT shorn_encode(?, 'person')").pluck();
const decodeOne = nativeDb.prepare("SELECT shorn_decode(?, 'person')").pluck();
const payloads = values.map((v) => encodeOne.get(JSON.stringify(v)));
nativeDb.exec("CREATE TABLE payloads(payload BLOB)");
const insert = nativeDb.prepare("INSERT INTO payloads VALUES (?)");
for (const p of payloads) insert.run(p);
const decodeTable = nativeDb.prepare("SELECT shorn_decode(payload, 'person') FROM payloads").pluck();
const encodeTable = nativeDb.prepare("SELECT shorn_encode(value, 'person') FROM json_each(?)").pluck();
const valuesText = JSON.stringify(values);
const ROUTES = [
  ["decode", "one SELECT over the table, JSON.parse a row", () => decodeTable.all().map((t) => JSON.parse(t))],
  ["decode", "a SELECT a payload (prepared), JSON.parse", () => payloads.map((p) => JSON.parse(decodeOne.get(p)))],
  ["decode", "sqlite-shorn/codec, a call a payload", () => payloads.map((p) => person.decode(p))],
  ["decode", "sqlite-shorn/codec, decodeMany of them all", () => person.decodeMany(payloads)],
  ["encode", "one SELECT over json_each of them all", () => encodeTable.all(valuesText)],
  ["encode", "a SELECT a value (prepared), JSON.stringify", () => values.map((v) => encodeOne.get(JSON.stringify(v)))],
  ["encode", "sqlite-shorn/codec, a call a value", () => values.map((v) => person.encode(v))],
];
console.log(`\n### sqlite-shorn/codec in Node's process beside SQL with the native extension (better-sqlite3), ` +
            `${values.length} values, ms, fastest of 5 after warming\n`);
console.log("| operation | route | ms | ratio to one SELECT over them all |");
console.log("| --- | --- | ---: | ---: |");
const base = {};
for (const [what, route, run] of ROUTES) {
  const ms = best(run);
  base[what] ??= ms;
  console.log(`| ${what} | ${route} | ${ms.toFixed(1)} | ${(ms / base[what]).toFixed(2)} |`);
}
