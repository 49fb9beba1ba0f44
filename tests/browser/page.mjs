// The page tests/browser/run.mjs opens in headless Chromium: the README's
// walk-through on an in-memory database of @sqlite.org/sqlite-wasm, shorn
// loaded by sqlite-shorn/wasm, then worker.mjs's on an OPFS database.  Each statement's rows (or its error) go into a table
// on the page, for the screenshot, and into window.shornResult, for the
// test to read.
import sqlite3InitModule from "/sqlite-wasm/index.mjs";
import { load } from "/shorn/wasm.mjs";

const PERSON = JSON.stringify({
  type: "object",
  properties: {
    name: { type: "string", maxLength: 40 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    sex: { type: "string", enum: ["M", "F", "X"] },
  },
  required: ["name", "age", "sex"],
  additionalProperties: false,
});

const STEPS = [
  "CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry",
  ["INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('person', ?, 4)", PERSON],
  "SELECT name, version, fingerprint FROM shorn_schemas",
  "DROP TABLE IF EXISTS people",
  "CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB NOT NULL CHECK (shorn_valid(payload, 'person')))",
  `INSERT INTO people(payload) SELECT shorn_encode(value, 'person') FROM json_each('[
    {"name":"Grace","age":45,"sex":"F"}, {"name":"Ada","age":36,"sex":"F"}, {"name":"Alan","age":41,"sex":"M"}]')`,
  "SELECT id, hex(payload) FROM people ORDER BY id",
  `INSERT INTO people(payload) VALUES (shorn_encode('{"name":"Bob","age":500,"sex":"M"}', 'person'))`,
  "CREATE INDEX people_by_name ON people(shorn_extract(payload, 'person', '$.name'))",
  "EXPLAIN QUERY PLAN SELECT id FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Ada'",
  "SELECT id FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Ada'",
  "SELECT shorn_decode(payload, 'person') FROM people ORDER BY id",
  "SELECT group_concat(path, ' ') FROM shorn_paths('person')",
];

const steps = document.getElementById("steps");
function show(sql, answer) {
  const tr = steps.insertRow();
  tr.insertCell().textContent = sql.replace(/\s+/g, " ").slice(0, 90);
  tr.insertCell().textContent = "error" in answer ? `error: ${answer.error}` : answer.rows.map((r) => r.join("|")).join("\n");
}

const result = { steps: [] };
try {
  const sqlite3 = await sqlite3InitModule();
  sqlite3.config.warn = () => {};
  result.sqlite = sqlite3.version.libVersion;
  const db = new sqlite3.oo1.DB(":memory:");
  const started = performance.now();
  await load(sqlite3, db);
  result.loadMs = performance.now() - started;
  for (const step of STEPS) {
    const [sql, ...bind] = Array.isArray(step) ? step : [step];
    let answer;
    try {
      answer = { rows: db.exec({ sql, bind: bind.length ? bind : undefined, rowMode: "array", returnValue: "resultRows" }) };
    } catch (e) {
      answer = { error: sqlite3.capi.sqlite3_errmsg(db.pointer) };
    }
    result.steps.push(answer);
    show(sql, answer);
  }
  db.close();
  // The same in the origin private file system, which only a worker reaches.
  const worker = new Worker("worker.mjs", { type: "module" });
  result.opfs = await new Promise((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => resolve({ failure: event.message });
  });
  show("OPFS, in a worker: 1,000 rows written, the database opened again, an index read",
       "failure" in result.opfs ? { error: result.opfs.failure }
         : { rows: [[result.opfs.vfs, `${result.opfs.rows} rows`], [result.opfs.plan], ...result.opfs.found.map((f) => [f])] });
  document.getElementById("status").textContent = `SQLite ${result.sqlite}, shorn loaded in ${result.loadMs.toFixed(1)} ms`;
} catch (e) {
  result.failure = String(e && e.stack || e);
  document.getElementById("status").textContent = result.failure;
}
window.shornResult = result;
