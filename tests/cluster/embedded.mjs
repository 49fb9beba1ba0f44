// libSQL's embedded replica of a sqld primary: a local file that sync()
// brings up to date, writes sent to the primary.  Prints, as one line of
// JSON, what each way of reaching shorn there answered; cluster.py checks it.
//
//   node embedded.mjs PRIMARY_URL EXTENSION FILE EVENT_ID EVENT_JSON
import Database from "libsql";

const [url, extension, file, id, json] = process.argv.slice(2);
const outcome = (run) => {
  try {
    return run();
  } catch (e) {
    return "error: " + (e.message || e.code);
  }
};
const seen = {};

const replica = new Database(file, { syncUrl: url });
replica.sync();
seen.loadExtension = outcome(() => (replica.loadExtension(extension), "loaded"));
seen.replicaDecode = outcome(() => replica.prepare("SELECT shorn_decode(payload, 'event') FROM events").all());
// A write is the primary's to run, with the primary's extension.
seen.write = outcome(() => replica.prepare(
  `INSERT INTO events(id, payload) VALUES (${Number(id)}, shorn_encode(?, 'event'))`).run(json).changes);
replica.sync();

// A second connection to the same file, with the extension, for reads.
// libsql's own `readonly` option does not refuse writes; query_only does.
const reader = new Database(file);
reader.loadExtension(extension);
reader.exec("PRAGMA query_only = ON");
seen.decoded = reader.prepare("SELECT id, shorn_decode(payload, 'event') AS json FROM events ORDER BY id")
  .all().map((row) => [row.id, row.json]);
seen.byUser = reader.prepare(
  "SELECT id FROM events WHERE shorn_extract(payload, 'event', '$.user') = 7 ORDER BY id").all().map((row) => row.id);
seen.plan = reader.prepare(
  "EXPLAIN QUERY PLAN SELECT id FROM events WHERE shorn_extract(payload, 'event', '$.user') = 7")
  .all().map((row) => row.detail).join(" ");
seen.readerWrite = outcome(() => reader.prepare("DELETE FROM events").run().changes);

const careless = new Database(file, { readonly: true });
careless.loadExtension(extension);
seen.readonlyOption = outcome(() => careless.prepare("DELETE FROM events WHERE 0").run() && "writes allowed");
console.log(JSON.stringify(seen));
