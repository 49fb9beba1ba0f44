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
// connections of its pool itself and keeps them private, so nothing can
// load an extension into them: say so, and what works, rather than fail on
// a missing method further in.
function refuseLibsqlClient(db) {
  if (db === null || typeof db !== 'object' || typeof db.execute !== 'function' || typeof db.batch !== 'function' ||
      typeof db.prepare === 'function') return;
  throw new TypeError("sqlite-shorn cannot use @libsql/client's Client: it opens the connections of its " +
                      'pool itself and keeps them private, and has no loadExtension(), so no extension can be loaded ' +
                      "into them (and SQL's load_extension() is not authorized there). Open the file with the libsql " +
                      "package's Database instead (new (require('libsql'))(path)), the same engine, synchronous, " +
                      `which load() takes (the README's "libsql")`);
}

function load(db) {
  refuseLibsqlClient(db);
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
// answered with the first column of the first row ('get') or nothing
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

function* encoding(name, value, options) {
  return yield encodeStep(name, value, options);
}

function* decoding(name, payload, options) {
  return JSON.parse(yield decodeStep(name, payload, options));
}

function* encodingMany(name, values, options) {
  const payloads = [];
  for (const value of values) payloads.push(yield encodeStep(name, value, options));
  return payloads;
}

function* decodingMany(name, payloads, options) {
  const values = [];
  for (const payload of payloads) values.push(JSON.parse(yield decodeStep(name, payload, options)));
  return values;
}

const encode = (db, name, value, options) => run(db, encoding(name, value, options));
const decode = (db, name, payload, options) => run(db, decoding(name, payload, options));
const encodeMany = (db, name, values, options) => run(db, encodingMany(name, values, options));
const decodeMany = (db, name, payloads, options) => run(db, decodingMany(name, payloads, options));

function run(db, steps) {
  refuseLibsqlClient(db);
  if (takesCallbacks(db)) return runWithCallbacks(db, steps);
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
        db[method](sql, parameters, (error, row) => (error ? reject(unloaded(error)) : advance(firstColumn(row))));
      } catch (error) {
        reject(error);
      }
    };
    advance();
  });
}

// Statements prepared once per connection (a WeakMap: they go with it),
// each with how it answers: better-sqlite3's pluck() gives the first column
// without building a row object.  libsql's Statement has pluck() too, but
// its get() still answers a row (only its all() plucks), so a row that
// comes back is taken apart: a plucked value is never a plain object.
const statements = new WeakMap();
function answer(db, [method, sql, ...parameters]) {
  let prepared = statements.get(db);
  if (prepared === undefined) statements.set(db, (prepared = new Map()));
  let statement = prepared.get(sql);
  if (statement === undefined) prepared.set(sql, (statement = prepare(db, sql)));
  return statement[method](...parameters);
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

module.exports = {getLoadablePath, load, register, encode, decode, encodeMany, decodeMany};
