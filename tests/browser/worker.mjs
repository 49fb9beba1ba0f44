// page.mjs's second part, in a worker, where sqlite-wasm's OPFS storage
// runs: rows written to a database in the origin private file system with
// shorn loaded, the database closed, opened again, loaded again, and read
// back through an index on a member.
import sqlite3InitModule from "/sqlite-wasm/index.mjs";
import { load } from "/shorn/wasm.mjs";

const PERSON = '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},' +
  '"required":["name","age"],"additionalProperties":false}';

async function open(sqlite3) {
  const db = new sqlite3.oo1.OpfsDb("/shorn-page.db", "c");
  await load(sqlite3, db);
  return db;
}

const answer = {};
try {
  const sqlite3 = await sqlite3InitModule();
  sqlite3.config.warn = () => {};
  let db = await open(sqlite3);
  answer.vfs = db.dbVfsName();
  db.exec(`DROP TABLE IF EXISTS people; DROP TABLE IF EXISTS shorn_schemas;
    CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry;
    INSERT INTO shorn_schemas(name, schema) VALUES ('person', '${PERSON}');
    CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB NOT NULL CHECK (shorn_valid(payload, 'person')));
    CREATE INDEX people_by_age ON people(shorn_extract(payload, 'person', '$.age'));
    WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 1000)
    INSERT INTO people(payload) SELECT shorn_encode(json_object('name', 'person ' || value, 'age', value % 100), 'person')
      FROM n;`);
  db.close();
  db = await open(sqlite3);
  answer.rows = db.selectValue("SELECT count(*) FROM people");
  answer.plan = db.exec({ sql: "EXPLAIN QUERY PLAN SELECT payload FROM people WHERE shorn_extract(payload, 'person', '$.age') = 42",
                          rowMode: 3, returnValue: "resultRows" }).join(" ");
  answer.found = db.selectValues("SELECT shorn_decode(payload, 'person') FROM people " +
                                 "WHERE shorn_extract(payload, 'person', '$.age') = 42 ORDER BY id LIMIT 2");
  db.close();
} catch (e) {
  answer.failure = String(e && e.stack || e);
}
postMessage(answer);
