'use strict';
// The shorn SQLite extension for Node: the binary for this machine (from the
// platform package npm picked, compiled into lib/, or else compiled from
// src/ into the user's cache on first use), loaded into any of
// Node's SQLite clients, and schemas registered from the validators.
const fs = require('node:fs');
const path = require('node:path');
const {version, optionalDependencies} = require('./package.json');

const SUFFIX = {darwin: 'dylib', win32: 'dll'};
const PREBUILT = Object.keys(optionalDependencies || {}).map((name) => name.replace('sqlite-shorn-', ''));

// glibc states its version in Node's (and Bun's) diagnostic report; musl
// has none. Asked once: the report takes milliseconds.
let musl;
function isMusl() {
  if (musl === undefined) musl = !process.report.getReport().header.glibcVersionRuntime;
  return musl;
}

// The platform as the packages name it: linux-x64, linux-x64-musl, win32-x64...
function platformKey() {
  const key = `${process.platform}-${process.arch}`;
  return process.platform === 'linux' && isMusl() ? `${key}-musl` : key;
}

function getLoadablePath() {
  const key = platformKey();
  const file = `shorn.${SUFFIX[process.platform] || 'so'}`;
  try {
    return require.resolve(`sqlite-shorn-${key}/${file}`);
  } catch {
    // No platform package: a binary compiled into this package, or the way to make one.
  }
  const compiled = path.join(__dirname, 'lib', key, file);
  if (fs.existsSync(compiled)) return compiled;
  const skipped = PREBUILT.includes(key)
    ? ` (npm skipped its optional dependency: npm install sqlite-shorn-${key}@${version})` : '';
  const missing = `sqlite-shorn has no loadable extension for ${key} (prebuilt for ${PREBUILT.join(', ') || 'none'})${skipped}`;
  return require('./build.js').build(path.join(__dirname, 'src', 'shorn.c'), version, key, file, missing);
}

// node-sqlite3's Database (the client with each()) answers through
// callbacks: for it every function below returns a Promise.
function takesCallbacks(db) {
  return typeof db.each === 'function';
}

// Where the package README says what to do about a SQLite that cannot load
// extensions, which the errors below name so that a user finds it.
const MACOS_SECTION = `"Apple's SQLite" in ${path.join(__dirname, 'README.md')}`;

// @libsql/client's Client (execute() and batch(), no prepare()) opens the
// connections of its pool itself and keeps them private: load() registers
// the extension for every connection that client's SQLite opens from then
// on, and its helpers answer through execute(), each a Promise.
function isLibsqlClient(db) {
  return db !== null && typeof db === 'object' && typeof db.execute === 'function' &&
         typeof db.batch === 'function' && typeof db.prepare !== 'function';
}

// Whether every function below answers with a Promise on this connection.
const answersLater = (db) => takesCallbacks(db) || isLibsqlClient(db);

function load(db) {
  if (isLibsqlClient(db)) return loadEveryConnection(db);
  if (db === null || typeof db !== 'object' || typeof db.loadExtension !== 'function') {
    throw new TypeError('sqlite-shorn: load() takes a connection with loadExtension() (better-sqlite3, libsql, ' +
                        `node:sqlite, bun:sqlite, node-sqlite3), not ${db}`);
  }
  const file = getLoadablePath();
  if (takesCallbacks(db)) {
    return new Promise((resolve, reject) => db.loadExtension(file, (error) => (error ? reject(error) : resolve())));
  }
  try {
    db.loadExtension(file);
  } catch (error) {
    throw loadError(db, error);
  }
}

// @libsql/client opens the connections of its pool itself, the first as
// createClient() returns, on the libsql package's SQLite: loaded once into
// a connection of that SQLite under the name shorn_auto, SQLite calls
// sqlite3_shornauto_init, which registers the extension on every connection
// opened after, and keeps it loaded.
let libsqlLoaded = false;
function loadLibsql() {
  if (libsqlLoaded) return;
  let Database;
  try {
    Database = require('libsql');
  } catch (error) {
    throw new Error('sqlite-shorn: loadLibsql() needs the libsql package, which @libsql/client runs on', {cause: error});
  }
  const file = getLoadablePath();
  const folder = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'sqlite-shorn-'));
  const link = path.join(folder, `shorn_auto${path.extname(file)}`);
  try {
    try {
      fs.symlinkSync(file, link);
    } catch {
      fs.copyFileSync(file, link); // Windows, without the right to make a link
    }
    const connection = new Database(':memory:');
    try {
      connection.loadExtension(link);
    } finally {
      connection.close();
    }
  } finally {
    fs.rmSync(folder, {recursive: true, force: true});
  }
  libsqlLoaded = true;
}

// load() of an @libsql/client Client: its connections have the extension
// when loadLibsql() ran before createClient(); say so where they have not.
async function loadEveryConnection(client) {
  try {
    await client.execute('SELECT shorn_version()');
  } catch (error) {
    if (!/no such function/.test(error.message)) throw error;
    throw new Error('sqlite-shorn: an @libsql/client Client opens its connections itself, the first in ' +
                    "createClient(): call loadLibsql() before createClient(), and every connection libsql opens " +
                    'after has the extension', {cause: error});
  }
}

// A refusal to load, with what to do about it.
function loadError(db, error) {
  // node:sqlite (the client with enableLoadExtension) refuses unless the connection was opened allowing it.
  if (typeof db.enableLoadExtension === 'function' && error.code === 'ERR_INVALID_STATE') {
    return new Error(`${error.message}: open the connection as new DatabaseSync(path, {allowExtension: true})`,
                     {cause: error});
  }
  // Bun's words when its SQLite is built without extension loading, as
  // Apple's SQLite is, which Bun uses on macOS.
  if (/does not support dynamic extension loading/.test(error.message)) {
    return new Error(`${error.message}: this SQLite cannot load extensions (on macOS, Bun's SQLite is Apple's). ` +
                     'Before opening the first Database, name one that can, such as Homebrew\'s (brew install sqlite): ' +
                     'Database.setCustomSQLite("/opt/homebrew/opt/sqlite/lib/libsqlite3.dylib") (/usr/local/opt/... ' +
                     `on an Intel Mac); see ${MACOS_SECTION}`, {cause: error});
  }
  return error;
}

// The JSON Schema a validator derives from its schema, by the route it offers.
function jsonSchema(schema) {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) {
    throw new TypeError('sqlite-shorn: register() takes a Zod, Valibot or ArkType schema, a JSON Schema object ' +
                        `or its text, not ${schema}`);
  }
  const standard = schema['~standard'];
  if (standard === undefined) return schema;
  if (standard.jsonSchema) return standard.jsonSchema.output({target: 'draft-2020-12'});
  switch (standard.vendor) {
    case 'valibot':
      return peer('@valibot/to-json-schema', 'toJsonSchema', 'a Valibot')(schema, {target: 'draft-2020-12'});
    case 'zod':
      return peer('zod', 'toJSONSchema', 'a Zod')(schema);
    case 'arktype':
      return schema.toJsonSchema();
    default:
      throw new TypeError(`sqlite-shorn: register() knows no JSON Schema converter for ${standard.vendor}; ` +
                          'pass the JSON Schema instead');
  }
}

// A converter from the user's project: sqlite-shorn depends on no validator.
function peer(module, name, what) {
  let converter;
  try {
    converter = require(module)[name];
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
  }
  if (typeof converter !== 'function') {
    throw new TypeError(`sqlite-shorn: register() with ${what} schema needs ${module}'s ${name}() ` +
                        `in your project: npm install ${module}`);
  }
  return converter;
}

const register = (db, name, schema, options) => run(db, registration(name, schema, options));

// The newest version of a name, as one JSON object (a step answers one column).
const NEWEST = "SELECT json_object('version', version, 'schema', schema, 'signature', signature, 'fp_bytes', fp_bytes) " +
               'FROM shorn_schemas WHERE name = ? ORDER BY version DESC LIMIT 1';

// Each operation is a generator of [method, sql, ...parameters] steps, each
// answered with the first column of the first row ('get'; 'probe', which
// answers undefined where the statement fails; 'stamp', below) or nothing
// ('run'), so one definition serves synchronous and callback clients.
// Each statement commits itself, or joins the transaction the caller has
// open; registering the same schema again changes nothing.  A number is
// bound as a REAL by some clients: the registry's integers are CAST.
function* registration(name, schema, options) {
  const text = typeof schema === 'string' ? schema : JSON.stringify(jsonSchema(schema));
  const width = registeredWidth(options);
  yield ['run', 'CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry'];
  const stored = yield ['get', NEWEST, name];
  if (stored === undefined) {
    yield ['run', 'INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES (?, ?, CAST(? AS INTEGER))', name, text,
           width ?? 0];
  } else {
    const newest = JSON.parse(stored);
    const storedWidth = newest.fp_bytes ?? 0;
    if (width !== undefined && width !== storedWidth) {
      throw new Error(`sqlite-shorn: '${name}' is registered with fpBytes ${storedWidth}` +
                      `${storedWidth === 0 ? ' (payloads without a fingerprint)' : ''}, not ${width}: a name keeps the ` +
                      `width of its first version, so pass fpBytes ${storedWidth}`);
    }
    if (newest.schema !== text) {
      const signature = yield ['get', 'SELECT shorn_signature(?)', text];
      if (signature === newest.signature) {
        // The same wire shape: the newest version takes the new text (a bound, a description).
        yield ['run', 'UPDATE shorn_schemas SET schema = ? WHERE name = ? AND version = CAST(? AS INTEGER)', text, name,
               newest.version];
      } else {
        const older = yield ['get', 'SELECT version FROM shorn_schemas WHERE name = ? AND signature = ? ' +
                                    'ORDER BY version DESC LIMIT 1', name, signature];
        if (older !== undefined) {
          throw new Error(`sqlite-shorn: this schema has the wire shape of version ${older} of '${name}', older than ` +
                          `its newest, version ${newest.version}: register the newest schema of '${name}'`);
        }
        // Another wire shape: the next version, which the registry refuses
        // (saying which members) unless it reads what every earlier one wrote.
        yield ['run', 'INSERT INTO shorn_schemas(name, schema, version) VALUES (?, ?, CAST(? AS INTEGER))', name, text,
               newest.version + 1];
      }
    }
  }
  return yield ['get', 'SELECT fingerprint FROM shorn_schemas WHERE name = ? ORDER BY version DESC LIMIT 1', name];
}

// register()'s fpBytes: 0 (payloads without a fingerprint) to 4, or undefined.
function registeredWidth(options) {
  const width = fpBytes(options);
  if (width !== undefined && !(Number.isInteger(width) && width >= 0 && width <= 4)) {
    throw new TypeError(`sqlite-shorn: register()'s fpBytes is 0 (no fingerprint) or 1-4, not ${width}`);
  }
  return width;
}

// The statement and parameters of one encode or decode; the SQL is one of
// a few texts, so each is prepared once per connection.
function encodeStep(name, value, options) {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new TypeError(`sqlite-shorn: encode() takes a value JSON can write, not ${String(value)}`);
  }
  const width = fpBytes(options);
  return width === undefined ? ['get', 'SELECT shorn_encode(?, ?)', json, name]
                             : ['get', 'SELECT shorn_encode(?, ?, ?)', json, name, width];
}

function decodeStep(name, payload, options) {
  // better-sqlite3 binds a Buffer as a BLOB, not another Uint8Array; @libsql/client reads a BLOB as an ArrayBuffer.
  const blob = Buffer.isBuffer(payload) ? payload
    : payload instanceof Uint8Array ? Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
    : payload instanceof ArrayBuffer ? Buffer.from(payload)
    : undefined;
  if (blob === undefined) {
    throw new TypeError('sqlite-shorn: decode() takes the payload as a Uint8Array, Buffer or ArrayBuffer, not ' +
                        (typeof payload === 'string' ? 'a string (Buffer.from(hex, "hex") reads hex)' : String(payload)));
  }
  const width = fpBytes(options);
  if (name === null || name === undefined) {
    if (width === undefined) throw new TypeError('sqlite-shorn: decode() with no name needs {fpBytes}, the payload\'s fingerprint width');
    return ['get', 'SELECT shorn_decode(?, ?)', blob, width];
  }
  return width === undefined ? ['get', 'SELECT shorn_decode(?, ?)', blob, name]
                             : ['get', 'SELECT shorn_decode(?, ?, ?)', blob, name, width];
}

function fpBytes(options) {
  return options === undefined || options.fpBytes === undefined ? undefined : options.fpBytes;
}

// ---- the codec in this process ----------------------------------------------

// A statement a value costs more than shorn's codec does, so encode and
// decode run the codec in this process (codec.mjs over shorn-codec.wasm,
// the extension's C) wherever it answers as SQL would: a registered name's
// newest version, compiled once per connection and name, writing and
// reading the width the SQL functions would.  Everything else goes through
// SQL, so that the bytes, values and errors are always the SQL route's: a
// payload of an older version (whose fingerprint the codec refuses), any
// value or payload the codec refuses, a schema given inline, a decode by
// fingerprint alone, a width SQL would refuse.

// The codec module, started on first use and once a process: null where
// this host cannot require an ES module (Node before 20.19 and 22.12) or
// shorn-codec.wasm is missing, and then SQL answers everything.
let codecModule;
function inProcessCodecs() {
  if (codecModule === undefined) {
    try {
      codecModule = require('./codec.mjs');
      codecModule.compileSync('{}').free();
    } catch {
      codecModule = null;
    }
  }
  return codecModule;
}

// A name's newest version as the cache keys it, its fp_bytes and its text,
// read from the registry's own table: a scan of the virtual table costs
// more than the codec.  shorn_version() makes it fail where the extension
// is not loaded, so that SQL says to load it.
const NEWEST_TEXT = "SELECT fp_bytes || ' ' || schema FROM main.shorn_schemas_data " +
                    'WHERE name = ? AND shorn_version() IS NOT NULL ORDER BY version DESC LIMIT 1';

// Reading the registry a call costs as much as the codec, so a call asks
// shorn_registry_version() instead, and reads the registry only when it
// has moved since: it counts commits to main by every connection, and this
// connection's writes to the registry and rollbacks.  It answers only in a
// statement that reads main, hence the FROM; an extension too old to have
// it leaves a single call to SQL and many to read the registry.
const STAMP = 'SELECT shorn_registry_version() FROM main.sqlite_schema LIMIT 1';

function stamp(db) {
  try {
    const version = call(db, 'get', STAMP, []);
    return version === null ? undefined : version;
  } catch {
    return undefined;
  }
}

// SQL reads a schema argument that starts with '{' as inline JSON Schema, not a name.
const INLINE = /^[ \t\n\r]*\{/;

// Each connection's codecs by name (a WeakMap: they go with it), each with
// the newest version it was compiled from; null where that text does not compile.
const compiled = new WeakMap();

function codecOf(db, name, newest) {
  let names = compiled.get(db);
  if (names === undefined) compiled.set(db, (names = new Map()));
  let entry = names.get(name);
  if (entry === undefined || entry.newest !== newest) {
    if (entry !== undefined && entry.codec !== null) entry.codec.free();
    entry = {newest, width: parseInt(newest, 10), codec: null};
    try {
      entry.codec = inProcessCodecs().compileSync(newest.slice(newest.indexOf(' ') + 1));
    } catch {
      // A text only a registry written around the virtual table holds: SQL words its error.
    }
    names.set(name, entry);
  }
  return entry;
}

// The codec for a call and the width SQL would use (a name with fp_bytes
// writes its own, and refuses another; a bare name takes the one given),
// or undefined where SQL answers: a generator of steps for any client, and
// the same without one for a synchronous client's single calls.  A single
// value where the counters say nothing (inside a transaction that has
// written, on node-sqlite3) is SQL's: a read of the registry and the codec
// cost more than the one statement, for which SQLite keeps the registry it
// read for the length of the transaction.
function* inProcess(db, name, options, single) {
  if (!eligible(name, options)) return undefined;
  const stamped = yield ['stamp'];
  if (single && stamped === undefined) return undefined;
  const entry = cached(db, name, stamped) ?? refreshed(db, name, yield ['probe', NEWEST_TEXT, name], stamped);
  return local(entry, options);
}

function inProcessNow(db, name, options) {
  if (!eligible(name, options)) return undefined;
  const stamped = stamp(db);
  if (stamped === undefined) return undefined;
  return local(cached(db, name, stamped) ?? refreshed(db, name, answer(db, ['probe', NEWEST_TEXT, name]), stamped),
               options);
}

function eligible(name, options) {
  const given = fpBytes(options);
  return typeof name === 'string' && !INLINE.test(name) && inProcessCodecs() !== null &&
         (given === undefined || (Number.isInteger(given) && given >= 1 && given <= 4));
}

// The entry compiled before, when no counter has moved since.
function cached(db, name, stamped) {
  const entry = stamped === undefined ? undefined : compiled.get(db)?.get(name);
  return entry !== undefined && entry.stamp === stamped ? entry : undefined;
}

// The entry for the newest version just read (read after the counters: a
// commit between the two has the next call read again).
function refreshed(db, name, newest, stamped) {
  if (typeof newest !== 'string') return undefined;
  const entry = codecOf(db, name, newest);
  entry.stamp = stamped;
  return entry;
}

function local(entry, options) {
  if (entry === undefined || entry.codec === null) return undefined;
  const given = fpBytes(options);
  if (entry.width !== 0 && given !== undefined && given !== entry.width) return undefined;
  return {codec: entry.codec, width: entry.width || given || 0};
}

// A value's payload from the codec (a Buffer); undefined where SQL is to answer.
function encodedHere(local, value) {
  if (local === undefined) return undefined;
  try {
    const json = JSON.stringify(value);
    return json === undefined ? undefined : local.codec.encodeJSON(json, {fpBytes: local.width});
  } catch {
    return undefined;
  }
}

// Either route's payload is a Buffer, whatever the client answers SQL's in.
function* encodeOne(local, name, value, options) {
  const payload = encodedHere(local, value) ?? (yield encodeStep(name, value, options));
  return payload instanceof Uint8Array && !Buffer.isBuffer(payload)
    ? Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength) : payload;
}

// decodeStep() checks the payload's type and gives its bytes (parameter 2,
// after the SQL text) before either route reads it.
function* decodeOne(local, name, payload, options) {
  const step = decodeStep(name, payload, options);
  const value = decodedHere(local, step);
  return value !== ELSEWHERE ? value : JSON.parse(yield step);
}

// A payload's value from the codec; ELSEWHERE where SQL is to answer (an
// older version's payload, or one SQL is to refuse in its own words).
const ELSEWHERE = Symbol('elsewhere');
function decodedHere(local, step) {
  if (local === undefined) return ELSEWHERE;
  try {
    return local.codec.decode(step[2], {fpBytes: local.width});
  } catch {
    return ELSEWHERE;
  }
}

function* encoding(db, name, value, options) {
  return yield* encodeOne(yield* inProcess(db, name, options, true), name, value, options);
}

function* decoding(db, name, payload, options) {
  return yield* decodeOne(yield* inProcess(db, name, options, true), name, payload, options);
}

// Many values with one read of the registry and, when the codec takes
// them all, one call into it; else each is encoded by itself.
function* encodingMany(db, name, values, options) {
  const local = yield* inProcess(db, name, options);
  const list = Array.isArray(values) ? values : [...values];
  if (local !== undefined) {
    try {
      return local.codec.encodeMany(list, {fpBytes: local.width});
    } catch {
      // One value at least is for SQL: below.
    }
  }
  const payloads = [];
  for (const value of list) payloads.push(yield* encodeOne(local, name, value, options));
  return payloads;
}

// Many payloads with one read of the registry and, when the codec takes
// them all, one call into it; else each is decoded by itself.
function* decodingMany(db, name, payloads, options) {
  const local = yield* inProcess(db, name, options);
  const list = Array.isArray(payloads) ? payloads : [...payloads];
  if (local !== undefined) {
    const blobs = list.map((payload) => decodeStep(name, payload, options)[2]);
    try {
      return local.codec.decodeMany(blobs, {fpBytes: local.width});
    } catch {
      // One payload at least is for SQL: below.
    }
  }
  const values = [];
  for (const payload of list) values.push(yield* decodeOne(local, name, payload, options));
  return values;
}

// A synchronous client's single call runs no generator unless SQL answers.
function encode(db, name, value, options) {
  if (answersLater(db)) return run(db, encoding(db, name, value, options));
  return encodedHere(inProcessNow(db, name, options), value) ?? run(db, encodeOne(undefined, name, value, options));
}

function decode(db, name, payload, options) {
  if (answersLater(db)) return run(db, decoding(db, name, payload, options));
  const step = decodeStep(name, payload, options);
  const value = decodedHere(inProcessNow(db, name, options), step);
  return value !== ELSEWHERE ? value : run(db, decodeOne(undefined, name, payload, options));
}

const encodeMany = (db, name, values, options) => run(db, encodingMany(db, name, values, options));
const decodeMany = (db, name, payloads, options) => run(db, decodingMany(db, name, payloads, options));

function run(db, steps) {
  if (takesCallbacks(db)) return runWithCallbacks(db, steps);
  if (isLibsqlClient(db)) return runWithExecute(db, steps);
  let step = steps.next();
  try {
    while (!step.done) step = steps.next(answer(db, step.value));
  } catch (error) {
    throw unloaded(error);
  }
  return step.value;
}

// SQLite's "no such function: shorn_encode", with what to do about it.
function unloaded(error) {
  if (!/no such (function|module): shorn_/.test(error.message)) return error;
  return new Error(`${error.message}: call load(db) first`, {cause: error});
}

function runWithCallbacks(db, steps) {
  return new Promise((resolve, reject) => {
    const advance = (value) => {
      try {
        const step = steps.next(value);
        if (step.done) return resolve(step.value);
        const [method, sql, ...parameters] = step.value;
        // node-sqlite3 does not say whether a transaction is open: no stamp.
        if (method === 'stamp') return advance(undefined);
        const probe = method === 'probe';
        db[probe ? 'get' : method](sql, parameters, (error, row) => {
          if (!error) advance(firstColumn(row));
          else if (probe) advance(undefined);
          else reject(unloaded(error));
        });
      } catch (error) {
        reject(error);
      }
    };
    advance();
  });
}

// @libsql/client answers a BLOB as an ArrayBuffer; its rows are arrays too.
// As on node-sqlite3, no stamp: a statement is a round trip to a Promise.
async function runWithExecute(db, steps) {
  let step = steps.next();
  while (!step.done) {
    const [method, sql, ...args] = step.value;
    let value;
    if (method !== 'stamp') {
      try {
        const row = (await db.execute({sql, args})).rows[0];
        value = row === undefined ? undefined : row[0] instanceof ArrayBuffer ? Buffer.from(row[0]) : row[0];
      } catch (error) {
        if (method !== 'probe') throw unloaded(error);
      }
    }
    step = steps.next(value);
  }
  return step.value;
}

// Statements prepared once per connection (a WeakMap: they go with it),
// each with how it answers: better-sqlite3's pluck() gives the first column
// without building a row object.  libsql's Statement has pluck() too, but
// its get() still answers a row (only its all() plucks), so a row that
// comes back is taken apart: a plucked value is never a plain object.
// A 'probe' is a 'get' whose failure answers undefined; a 'stamp', stamp().
const statements = new WeakMap();
function answer(db, [method, sql, ...parameters]) {
  if (method === 'stamp') return stamp(db);
  if (method !== 'probe') return call(db, method, sql, parameters);
  try {
    return call(db, 'get', sql, parameters);
  } catch {
    return undefined;
  }
}

function call(db, method, sql, parameters) {
  let prepared = statements.get(db);
  if (prepared === undefined) statements.set(db, (prepared = new Map()));
  let statement = prepared.get(sql);
  if (statement === undefined) prepared.set(sql, (statement = prepare(db, sql)));
  try {
    return statement[method](...parameters);
  } catch (error) {
    // libsql's statement, once a call of it has failed, throws that error
    // again at every later call: one that failed is prepared again.
    prepared.delete(sql);
    throw error;
  }
}

function prepare(db, sql) {
  const statement = db.prepare(sql);
  if (statement.reader && typeof statement.pluck === 'function') {
    const plucked = statement.pluck();
    return {get: (...parameters) => pluckedValue(plucked.get(...parameters)),
            run: (...parameters) => plucked.run(...parameters)};
  }
  return {get: (...parameters) => firstColumn(statement.get(...parameters)),
          run: (...parameters) => statement.run(...parameters)};
}

// What a plucking get() answers: the value, or else (libsql) the row.
function pluckedValue(value) {
  return value !== null && typeof value === 'object' && !(value instanceof Uint8Array) ? firstColumn(value) : value;
}

// A row as an object (bun:sqlite's is null when there is none).
function firstColumn(row) {
  return row ? Object.values(row)[0] : undefined;
}

module.exports = {getLoadablePath, load, loadLibsql, register, encode, decode, encodeMany, decodeMany};
