// The WebAssembly build beside the native one: every golden vector of
// tests/vectors (fingerprints and signatures of each schema, the bytes or
// the refusal of each encode, the JSON or the refusal of each decode) and
// every statement of a sample of tests/sql, run through shorn.wasm inside
// @sqlite.org/sqlite-wasm and through the loadable extension in Python's
// sqlite3 (tests/wasm/native.py); each statement's rows, or its error
// message, must be the same.  The vectors' encodes, decodes and
// fingerprints go through sqlite-shorn/codec too, which must agree.
//
//   node vectors.mjs SHORN_WASM EXTENSION PYTHON SHORN_CODEC_WASM
//
// Run from a folder where @sqlite.org/sqlite-wasm is installed (make
// check-wasm installs it in build/wasm-test).
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const [wasmPath, extension, python, codecPath] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(join(process.cwd(), "package.json"));
const { default: sqlite3InitModule } = await import(pathToFileURL(require.resolve("@sqlite.org/sqlite-wasm")));
const { load } = await import(pathToFileURL(join(root, "bindings/node/wasm.mjs")));

// The tests/sql files whose statements run here: those of functions,
// the registry, versions, queries, edits and paths.  The rest print what
// the shell or the process has (cache counts), or, as bigint_limit.sql,
// spend most of a minute at the BigInt conversion's limits, which make
// check-platforms runs on wasm32 under WASI.
const SQL_FILES = ["functions", "registry", "registry_refusals", "versions", "query", "edit", "paths", "dispatch",
                   "validation", "json_versions"];

const lines = (file) => readFileSync(join(root, "tests/vectors", file), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

const SCHEMA_SQL = "SELECT shorn_fingerprint(?1, 1), shorn_fingerprint(?1, 2), shorn_fingerprint(?1), shorn_fingerprint(?1, 4), shorn_signature(?1)";
const ENCODE_SQL = "SELECT hex(shorn_encode(?1, ?2))";
const CHECK_SQL = "SELECT shorn_check(?1, ?2)";
const DECODE_SQL = "SELECT hex(shorn_decode(?1, ?2))";
const ERROR_SQL = "SELECT shorn_error(?1, ?2)";

// Each vector's statements.  Whether the native build's answers are the
// vectors' is tests/vectors.c's to check (where this build's layout goes
// further than the library's, it says so); here they must be the same.
const vectors = [];
const schemas = new Map();
const encode = (json, schema) => vectors.push([ENCODE_SQL, [json, schema]], [CHECK_SQL, [json, schema]]);
const decode = (hex, schema) => vectors.push([DECODE_SQL, [{ blob: hex }, schema]], [ERROR_SQL, [{ blob: hex }, schema]]);
for (const v of lines("schemas.jsonl")) {
  schemas.set(v.id, JSON.stringify(v.schema));
  vectors.push([SCHEMA_SQL, [JSON.stringify(v.schema)]]);
}
for (const v of lines("encode.jsonl")) encode(v.json, schemas.get(v.schema_id));
for (const v of lines("decode.jsonl")) decode(v.hex, schemas.get(v.schema_id));
for (const v of lines("datetime-0.4.0.jsonl")) {
  if (v.kind === "schema") {
    schemas.set(v.id, JSON.stringify(v.schema));
    vectors.push([SCHEMA_SQL, [JSON.stringify(v.schema)]]);
  } else encode(v.json, schemas.get(v.schema_id));
}
for (const v of lines("seed-examples.jsonl")) {
  const schema = JSON.stringify(v.schema);
  if (v.op === "compile") vectors.push([SCHEMA_SQL, [schema]]);
  else if (v.op === "encode") encode(v.json, schema);
  else decode(v.hex, schema);
}

const sqlite3 = await sqlite3InitModule();

// A tests/sql file's statements, whole as sqlite3_complete tells them,
// without the shell's dot commands.
function statements(file) {
  const out = [];
  let pending = "";
  for (const line of readFileSync(join(root, "tests/sql", file + ".sql"), "utf8").split("\n")) {
    if (!pending && line.startsWith(".")) continue;
    pending += line + "\n";
    if (sqlite3.capi.sqlite3_complete(pending)) {
      if (pending.replace(/--[^\n]*/g, "").trim()) out.push([pending.trim(), []]);
      pending = "";
    }
  }
  return out;
}
const sessions = [vectors, ...SQL_FILES.map(statements)];

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
function value(v) {
  if (v instanceof Uint8Array) return { blob: hex(v) };
  if (typeof v === "bigint") return v > 2n ** 53n || v < -(2n ** 53n) ? { int: v.toString() } : Number(v);
  if (typeof v === "number" && !Number.isFinite(v)) return { float: Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf" };
  return v;
}
const argument = (a) => (typeof a === "object" ? Uint8Array.from(Buffer.from(a.blob, "hex")) : a);

// The native side runs meanwhile, on the other core, its answers into a
// file.
const work = mkdtempSync(join(tmpdir(), "shorn-wasm-"));
writeFileSync(join(work, "cases.json"), JSON.stringify(sessions));
const nativeOut = openSync(join(work, "native.jsonl"), "w"), nativeErr = openSync(join(work, "native.err"), "w");
const nativeDone = new Promise((resolve) => {
  spawn(python, [join(here, "native.py"), extension, join(work, "cases.json")],
        { stdio: ["ignore", nativeOut, nativeErr], env: process.env }).on("close", resolve);
});

// sqlite-wasm warns on the console of every statement that fails, and
// here thousands fail as they should.
sqlite3.config.warn = () => {};
const started = performance.now();
const wasmResults = [];
for (const list of sessions) {
  const db = new sqlite3.oo1.DB(":memory:");
  await load(sqlite3, db, { wasm: pathToFileURL(wasmPath) });
  // The vectors' few statements prepared once each.
  const prepared = new Map();
  for (const [sql, args] of list) {
    try {
      const rows = [];
      if (args.length) {
        let stmt = prepared.get(sql);
        if (!stmt) prepared.set(sql, (stmt = db.prepare(sql)));
        try {
          stmt.bind(args.map(argument));
          while (stmt.step()) rows.push(stmt.get([]).map(value));
        } finally {
          stmt.reset(true);
        }
      } else {
        for (const row of db.exec({ sql, rowMode: "array", returnValue: "resultRows" })) rows.push(row.map(value));
      }
      wasmResults.push(JSON.stringify({ rows }));
    } catch (e) {
      wasmResults.push(JSON.stringify({ error: sqlite3.capi.sqlite3_errmsg(db.pointer) }));
    }
  }
  for (const stmt of prepared.values()) stmt.finalize();
  db.close();
}
const wasmSeconds = (performance.now() - started) / 1000;

let native;
try {
  const status = await nativeDone;
  if (status !== 0) throw new Error(`native.py: ${readFileSync(join(work, "native.err"), "utf8")}`);
  native = readFileSync(join(work, "native.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.stringify(JSON.parse(l)));
} finally {
  closeSync(nativeOut);
  closeSync(nativeErr);
  rmSync(work, { recursive: true, force: true });
}

let passed = 0, failed = 0, shown = 0;
const flat = sessions.flat();
if (native.length !== flat.length) {
  console.log(`native.py answered ${native.length} statements of ${flat.length}`);
  failed++;
}
for (let i = 0; i < flat.length; i++) {
  if (wasmResults[i] === native[i]) passed++;
  else {
    failed++;
    if (shown++ < 20) console.log(`differs: ${flat[i][0]} ${JSON.stringify(flat[i][1]).slice(0, 200)}\n  wasm:   ${wasmResults[i].slice(0, 300)}\n  native: ${native[i]?.slice(0, 300)}`);
  }
}
// The codec alone (sqlite-shorn/codec, shorn-codec.wasm) on the vectors'
// encodes, decodes and fingerprints: the bytes, text and messages the
// native build's SQL gives.
const { compile } = await import(pathToFileURL(join(root, "bindings/node/codec.mjs")));
const codecs = new Map();
async function codecFor(schema) {
  if (!codecs.has(schema)) {
    codecs.set(schema, await compile(schema, { wasm: pathToFileURL(codecPath) }).catch((e) => e));
  }
  return codecs.get(schema);
}
const utf8 = new TextDecoder();
let codecChecked = 0;
for (let i = 0; i < vectors.length; i++) {
  const [sql, args] = vectors[i];
  const fn = sql === ENCODE_SQL ? "shorn_encode" : sql === DECODE_SQL ? "shorn_decode" : sql === SCHEMA_SQL ? "shorn_fingerprint" : null;
  if (!fn) continue;
  const want = JSON.parse(native[i]);
  const codec = await codecFor(args[sql === SCHEMA_SQL ? 0 : 1]);
  let got;
  try {
    if (codec instanceof Error) throw new Error(codec.message.replace(/^shorn: /, `${fn}: `));
    if (sql === ENCODE_SQL) got = [[hex(codec.encodeJSON(args[0])).toUpperCase()]];
    else if (sql === DECODE_SQL) got = [[codec.decodeJSON(argument(args[0]))]];
    else got = [[1, 2, 3, 4].map((w) => codec.fingerprint(w))];
    got = { rows: got };
  } catch (e) {
    got = { error: e.message };
  }
  if (sql === DECODE_SQL && want.rows) want.rows = [[utf8.decode(Buffer.from(want.rows[0][0], "hex"))]];
  if (sql === SCHEMA_SQL && want.rows) want.rows = [want.rows[0].slice(0, 4)];
  codecChecked++;
  if (JSON.stringify(got) === JSON.stringify(want)) passed++;
  else {
    failed++;
    if (shown++ < 20) console.log(`codec differs: ${sql} ${JSON.stringify(args).slice(0, 200)}\n  codec:  ${JSON.stringify(got).slice(0, 300)}\n  native: ${JSON.stringify(want).slice(0, 300)}`);
  }
}

// decodeMany over each schema's payloads that decode: what decode() gives
// each, in one array.
const decodable = new Map();
for (let i = 0; i < vectors.length; i++) {
  const [sql, args] = vectors[i];
  if (sql !== DECODE_SQL || !JSON.parse(native[i]).rows) continue;
  if (!decodable.has(args[1])) decodable.set(args[1], []);
  decodable.get(args[1]).push(argument(args[0]));
}
for (const [schema, payloads] of decodable) {
  const codec = await codecFor(schema);
  let many, one;
  try {
    many = JSON.stringify(codec.decodeMany(payloads));
    one = JSON.stringify(payloads.map((p) => codec.decode(p)));
  } catch (e) {
    many = e.message;
  }
  codecChecked++;
  if (many === one) passed++;
  else {
    failed++;
    if (shown++ < 20) console.log(`decodeMany differs for ${schema.slice(0, 100)}: ${many.slice(0, 200)}`);
  }
}

// encodeMany over each schema's values that encode: the bytes encode()
// gives each, and for a refused value, encode()'s error with its index.
const encodable = new Map();
for (let i = 0; i < vectors.length; i++) {
  const [sql, args] = vectors[i];
  if (sql !== ENCODE_SQL) continue;
  if (!encodable.has(args[1])) encodable.set(args[1], []);
  encodable.get(args[1]).push(JSON.parse(args[0]));
}
const hexes = (payloads) => payloads.map(hex).join(" ");
for (const [schema, values] of encodable) {
  const codec = await codecFor(schema);
  let many, one;
  try {
    many = hexes(codec.encodeMany(values));
  } catch (e) {
    many = e.message;
  }
  try {
    one = hexes(values.map((v) => codec.encode(v)));
  } catch (e) {
    const at = values.findIndex((v) => { try { codec.encode(v); return false; } catch { return true; } });
    one = `${e.message} (value ${at})`;
  }
  codecChecked++;
  if (many === one) passed++;
  else {
    failed++;
    if (shown++ < 20) console.log(`encodeMany differs for ${schema.slice(0, 100)}: ${many.slice(0, 200)} / ${one.slice(0, 200)}`);
  }
}

console.log(`wasm: ${flat.length} statements (${vectors.length} of the golden vectors, ${flat.length - vectors.length} of ` +
            `tests/sql) in ${wasmSeconds.toFixed(1)} s, each answered as the native build answers it; ` +
            `sqlite-shorn/codec: ${codecChecked} of the vectors' encodes, decodes (one at a time, and encodeMany and decodeMany of each ` +
            "schema's) and fingerprints, the same");
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
