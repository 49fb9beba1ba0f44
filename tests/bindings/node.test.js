'use strict';
// sqlite-shorn as a user has it: installed from dist/'s tarballs into the
// scratch project tests/bindings/node.sh makes, and run with the client
// SHORN_CLIENT names: better-sqlite3, node:sqlite (Node 22), sqlite3
// (node-sqlite3, whose calls return Promises), bun:sqlite (bun test) or
// libsql (Turso's synchronous driver).
const assert = require('node:assert/strict');
const {execFileSync, spawnSync} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');
const shorn = require('sqlite-shorn');
const {z} = require('zod');
const v = require('valibot');
const {toJsonSchema} = require('@valibot/to-json-schema');
const {type} = require('arktype');

// Each client's connection to a new in-memory database, as source text so
// that the README's example can be run with it too.
const CLIENTS = {
  'better-sqlite3': 'require("better-sqlite3")(":memory:")',
  'node:sqlite': 'new (require("node:sqlite").DatabaseSync)(":memory:", { allowExtension: true })',
  'sqlite3': 'new (require("sqlite3").Database)(":memory:")',
  'bun:sqlite': 'new (require("bun:sqlite").Database)(":memory:")',
  'libsql': 'new (require("libsql"))(":memory:")',
};
const CLIENT = process.env.SHORN_CLIENT;
const CONNECTION = CLIENTS[CLIENT];
assert.ok(CONNECTION, `SHORN_CLIENT is one of ${Object.keys(CLIENTS).join(', ')}`);
const ASYNC = CLIENT === 'sqlite3';
const open = new Function('require', `return ${CONNECTION};`).bind(null, require);
const PACKAGE = path.dirname(require.resolve('sqlite-shorn/package.json'));
const {version: VERSION} = require('sqlite-shorn/package.json');

const PERSON = '{"type":"object","properties":{"name":{"type":"string"},' +
    '"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},' +
    '"required":["name","age","sex"],"additionalProperties":false}';
const GRACE = {name: 'Grace', age: 45, sex: 'F'};
const ZodPerson = z.object({name: z.string().max(40), age: z.int().nonnegative().max(150), sex: z.enum(['M', 'F', 'X'])});
const ValibotPerson = v.object({
  name: v.pipe(v.string(), v.maxLength(40)),
  age: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(150)),
  sex: v.picklist(['M', 'F', 'X']),
});
const ArkPerson = type({name: 'string <= 40', age: '0 <= number.integer <= 150', sex: '"M" | "F" | "X"'});

async function connect() {
  const db = open();
  await shorn.load(db);
  return db;
}

// The first column of a query's first row, from either kind of client.
function one(db, sql, ...parameters) {
  if (ASYNC) {
    return new Promise((resolve, reject) => db.get(sql, parameters, (error, row) => (error ? reject(error) : resolve(Object.values(row)[0]))));
  }
  // libsql takes a lone object argument for named parameters (a lone Buffer
  // aborts the process), so its parameters go as one array.
  const statement = db.prepare(sql);
  return Object.values(CLIENT === 'libsql' ? statement.get(parameters) : statement.get(...parameters))[0];
}

// An error of SQLite's as the client words it: node-sqlite3 prefixes the code.
function sqliteError(code, message) {
  return {message: ASYNC ? `${code}: ${message}` : message};
}

// process.arch as another machine's, for the length of fn.
function asArch(arch, fn) {
  const real = Object.getOwnPropertyDescriptor(process, 'arch');
  Object.defineProperty(process, 'arch', {...real, value: arch});
  try {
    return fn();
  } finally {
    Object.defineProperty(process, 'arch', real);
  }
}

test('getLoadablePath is the binary of the platform package npm chose', async (t) => {
  const file = shorn.getLoadablePath();
  assert.equal(file, require.resolve('sqlite-shorn-linux-x64/shorn.so'));
  assert.ok(fs.readFileSync(file).equals(fs.readFileSync(process.env.SHORN_DIST_BINARY)));
  const db = await connect();
  t.diagnostic(`${CLIENT} on SQLite ${await one(db, 'SELECT sqlite_version()')}, ` +
               `${process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.version}`}`);
});

// process.env with the given variables (undefined: unset), for the length of fn.
function withEnv(variables, fn) {
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  const assign = (values) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  assign(variables);
  try {
    return fn();
  } finally {
    assign(saved);
  }
}

// fn with an empty cache and no compiler on PATH.
function withoutCompiler(fn) {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'shorn-empty-'));
  try {
    return withEnv({XDG_CACHE_HOME: empty, PATH: empty, CC: undefined}, fn);
  } finally {
    fs.rmSync(empty, {recursive: true});
  }
}
const SOURCE = path.join(PACKAGE, 'src', 'shorn.c');
const PREBUILT = 'prebuilt for linux-x64, linux-arm64, linux-x64-musl, win32-x64';
// What installs a compiler and SQLite's headers on this machine, Debian.
const INSTALL = 'sudo apt-get install gcc libsqlite3-dev';

test('on a platform whose package npm skipped, with no compiler, the error says how to install either', () => {
  assert.throws(() => withoutCompiler(() => asArch('arm64', shorn.getLoadablePath)), {
    message: `sqlite-shorn has no loadable extension for linux-arm64 (${PREBUILT}) (npm skipped its optional ` +
             `dependency: npm install sqlite-shorn-linux-arm64@${VERSION}) and found no C compiler (cc, clang, gcc) ` +
             `to build one from ${SOURCE}: ${INSTALL}`,
  });
});

test('on a platform with no package and no compiler, the error names the platform and what to install', () => {
  assert.throws(() => withoutCompiler(() => asArch('riscv64', shorn.getLoadablePath)), {
    message: `sqlite-shorn has no loadable extension for linux-riscv64 (${PREBUILT}) and found no C compiler ` +
             `(cc, clang, gcc) to build one from ${SOURCE}: ${INSTALL}`,
  });
});

test("with its platform package hidden, the first load compiles the source once into the user's cache, and says so",
     {skip: CLIENT !== 'better-sqlite3' && 'compiled once, under better-sqlite3'}, () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'shorn-cache-'));
  const platformPackage = path.dirname(require.resolve('sqlite-shorn-linux-x64/package.json'));
  const script = `const db = require("better-sqlite3")(":memory:"); require("sqlite-shorn").load(db);
    console.log(db.prepare("SELECT shorn_version() AS v").get().v);`;
  const firstLoad = () => spawnSync(process.execPath, ['-e', script], {encoding: 'utf8', cwd: __dirname,
                                                                      env: {...process.env, XDG_CACHE_HOME: cache}});
  const compiled = path.join(cache, 'sqlite-shorn', `${VERSION}-linux-x64`, 'shorn.so');
  fs.renameSync(platformPackage, `${platformPackage}.hidden`);
  try {
    const [first, second] = [firstLoad(), firstLoad()];
    assert.deepEqual([first.stdout, first.stderr], [`${VERSION}\n`, `sqlite-shorn: no prebuilt extension for linux-x64; ` +
                     `compiling ${SOURCE} with cc into ${compiled} (once)\n`]);
    assert.deepEqual([second.stdout, second.stderr], [`${VERSION}\n`, '']);
    assert.deepEqual(fs.readdirSync(path.dirname(compiled)), ['shorn.so']);
  } finally {
    fs.renameSync(`${platformPackage}.hidden`, platformPackage);
    fs.rmSync(cache, {recursive: true});
  }
});

test('load(db) gives the connection the SQL functions: a round trip', async () => {
  const db = await connect();
  const payload = await one(db, 'SELECT shorn_encode(?, ?)', JSON.stringify(GRACE), PERSON);
  assert.deepEqual(Buffer.from(payload), Buffer.from('2d05477261636500', 'hex'));
  assert.equal(await one(db, 'SELECT shorn_decode(?, ?)', payload, PERSON), '{"age":45,"name":"Grace","sex":"F"}');
  assert.equal(await one(db, 'SELECT shorn_version()'), VERSION);
});

test('fp_bytes bound as a JavaScript number (a REAL to SQLite) works', async () => {
  const db = await connect();
  const payload = await one(db, 'SELECT shorn_encode(?, ?, ?)', JSON.stringify(GRACE), PERSON, 3);
  assert.deepEqual(Buffer.from(payload), Buffer.from('7236d12d05477261636500', 'hex'));
  assert.equal(await one(db, 'SELECT shorn_extract(?, ?, ?, ?)', payload, PERSON, 3, '$.name'), 'Grace');
  await assert.rejects(async () => one(db, 'SELECT shorn_encode(?, ?, ?)', '{}', '{}', 2.5),
                       sqliteError('SQLITE_ERROR', 'shorn_encode: fingerprint width must be 1, 2, 3 or 4'));
});

// Each route register() takes to JSON Schema, and what the library itself derives there.
const ROUTES = [
  ['a Zod schema (Standard JSON Schema)', ZodPerson, () => z.toJSONSchema(ZodPerson)],
  ['a Valibot schema (@valibot/to-json-schema)', ValibotPerson, () => toJsonSchema(ValibotPerson, {target: 'draft-2020-12'})],
  ['an ArkType schema (Standard JSON Schema)', ArkPerson, () => ArkPerson.toJsonSchema()],
  ['a Zod schema without Standard JSON Schema (z.toJSONSchema)', withoutStandardJsonSchema(ZodPerson),
   () => z.toJSONSchema(ZodPerson)],
  ['an ArkType schema without Standard JSON Schema (toJsonSchema())', withoutStandardJsonSchema(ArkPerson),
   () => ArkPerson.toJsonSchema()],
  ['a JSON Schema object', JSON.parse(PERSON), () => JSON.parse(PERSON)],
];

// The schema as an older release of its library has it: ~standard without jsonSchema.
function withoutStandardJsonSchema(schema) {
  const {jsonSchema, ...standard} = schema['~standard'];
  assert.equal(typeof jsonSchema.output, 'function');
  return new Proxy(schema, {get: (target, key) => (key === '~standard' ? standard : Reflect.get(target, key))});
}

for (const [what, schema, derive] of ROUTES) {
  test(`register() stores ${what} as the JSON Schema the library derives, and encode/decode use it`, async () => {
    const db = await connect();
    const fingerprint = await shorn.register(db, 'person', schema);
    const text = JSON.stringify(derive());
    assert.equal(await one(db, "SELECT schema FROM shorn_schemas WHERE name = 'person'"), text);
    assert.match(fingerprint, /^[0-9a-f]{8}$/);
    assert.equal(fingerprint, await one(db, 'SELECT fingerprint FROM shorn_schemas WHERE schema = ?', text));
    const payload = await shorn.encode(db, 'person', GRACE);
    assert.ok(payload instanceof Uint8Array, `encode() answers a Uint8Array, not ${payload}`);
    assert.deepEqual(Buffer.from(payload), Buffer.from('2d05477261636500', 'hex'));
    assert.deepEqual(await shorn.decode(db, 'person', payload), {age: 45, name: 'Grace', sex: 'F'});
    assert.deepEqual(await shorn.decode(db, 'person', new Uint8Array(payload)), {age: 45, name: 'Grace', sex: 'F'});
    // An ArrayBuffer, as @libsql/client reads a BLOB.
    assert.deepEqual(await shorn.decode(db, 'person', new Uint8Array(payload).buffer), {age: 45, name: 'Grace', sex: 'F'});
  });
}

test("register() of the README's Zod schema gives the README's fingerprint, once or twice", async () => {
  const db = await connect();
  assert.equal(await shorn.register(db, 'person', ZodPerson), 'a3b4e3de');
  assert.equal(await shorn.register(db, 'person', ZodPerson), 'a3b4e3de');
  assert.equal(await shorn.register(db, 'person', JSON.stringify(z.toJSONSchema(ZodPerson))), 'a3b4e3de');
  assert.equal(await one(db, 'SELECT count(*) FROM shorn_schemas'), 1);
});

test('register() takes a new text for a name when the wire shape stays; else the registry refuses', async () => {
  const db = await connect();
  await shorn.register(db, 'person', ZodPerson);
  const wider = ZodPerson.extend({name: z.string().max(50)});
  assert.equal(await shorn.register(db, 'person', wider), 'a3b4e3de');
  assert.equal(await one(db, "SELECT schema FROM shorn_schemas WHERE name = 'person'"), JSON.stringify(z.toJSONSchema(wider)));
  // A name registered without fpBytes writes bare payloads, which cannot say which version wrote them.
  await assert.rejects(async () => shorn.register(db, 'person', ZodPerson.extend({nick: z.string()})), sqliteError(
      'SQLITE_ERROR', "shorn_schemas: 'person' writes bare payloads (fp_bytes 0), so its rows could not tell version 1 " +
      'from version 2: give its payloads a fingerprint first (docs/registry.md, "Moving bare rows")'));
  await assert.rejects(async () => shorn.register(db, 'bad', '{"type":"strin"}'), sqliteError(
      'SQLITE_ERROR', "shorn_schemas: the schema of 'bad' does not compile: Unsupported JSON Schema type \"strin\" at #"));
  await assert.rejects(async () => shorn.register(db, 'other', {'~standard': {vendor: 'yup', version: 1}}), {
    message: 'sqlite-shorn: register() knows no JSON Schema converter for yup; pass the JSON Schema instead',
  });
  await assert.rejects(async () => shorn.register(db, 'other', 42), {
    message: 'sqlite-shorn: register() takes a Zod, Valibot or ArkType schema, a JSON Schema object or its text, not 42',
  });
  assert.equal(await one(db, 'SELECT group_concat(name) FROM shorn_schemas'), 'person');
});

test("encode() refuses a value the schema refuses, with the extension's message", async () => {
  const db = await connect();
  await shorn.register(db, 'person', ZodPerson);
  await assert.rejects(async () => shorn.encode(db, 'person', {...GRACE, age: 500}), (error) => {
    assert.ok(error instanceof Error);
    assert.equal(error.message, sqliteError('SQLITE_ERROR', 'shorn_encode: Too big: expected at most 150 at $.age').message);
    return true;
  });
});

// A statement run for its effect, on either kind of client.
function exec(db, sql) {
  if (ASYNC) return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
  db.exec(sql);
  return undefined;
}

// A connection to a database file, as CONNECTION opens one in memory.
async function connectFile(file) {
  const db = new Function('require', `return ${CONNECTION.replace('":memory:"', JSON.stringify(file))};`)(require);
  await shorn.load(db);
  return db;
}

function close(db) {
  return ASYNC ? new Promise((resolve) => db.close(resolve)) : db.close();
}

test('register() commits, or is part of the transaction the caller has open', async () => {
  const file = path.join(fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'shorn-')), 'app.db');
  let db = await connectFile(file);
  assert.equal(await shorn.register(db, 'person', ZodPerson), 'a3b4e3de');
  await exec(db, 'BEGIN');
  await shorn.register(db, 'other', '{"type":"string"}');
  await exec(db, 'ROLLBACK');
  await close(db);
  db = await connectFile(file);
  assert.equal(await one(db, 'SELECT group_concat(name) FROM shorn_schemas'), 'person');
  await close(db);
  fs.rmSync(path.dirname(file), {recursive: true});
});

// A schema an app changes between two runs: version 2 adds email
// (optional) and lang (with a default), and drops nick.
const PersonV1 = z.object({name: z.string(), age: z.int().nonnegative(), nick: z.string()});
const PersonV2 = z.object({name: z.string(), age: z.int().nonnegative(), email: z.string().optional(),
                           lang: z.string().default('en')});

test('register() follows a changed schema as an app would live: the next version, old rows read in its shape',
     async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'shorn-'));
  const file = path.join(folder, 'app.db');
  // The app's first run, with version 1.
  let db = await connectFile(file);
  await shorn.register(db, 'person', PersonV1, {fpBytes: 4});
  await exec(db, 'CREATE TABLE people (id INTEGER PRIMARY KEY, person BLOB)');
  for (const person of [{name: 'Grace', age: 45, nick: 'Amazing Grace'}, {name: 'Ada', age: 36, nick: 'Enchantress'}]) {
    await one(db, 'INSERT INTO people (person) VALUES (?) RETURNING id', await shorn.encode(db, 'person', person));
  }
  await close(db);
  // Its next run, on a new connection, with version 2.
  db = await connectFile(file);
  const fingerprint = await shorn.register(db, 'person', PersonV2);
  assert.equal(fingerprint, await one(db, "SELECT fingerprint FROM shorn_schemas WHERE name = 'person' AND version = 2"));
  assert.equal(await shorn.register(db, 'person', PersonV2, {fpBytes: 4}), fingerprint);
  assert.equal(await one(db, "SELECT group_concat(version || ':' || fp_bytes) FROM shorn_schemas"), '1:4,2:4');
  const old = [await one(db, 'SELECT person FROM people WHERE id = 1'), await one(db, 'SELECT person FROM people WHERE id = 2')];
  assert.deepEqual(await shorn.decodeMany(db, 'person', old), [{name: 'Grace', age: 45, lang: 'en'}, {name: 'Ada', age: 36, lang: 'en'}]);
  assert.equal(await one(db, "SELECT group_concat(id) FROM people WHERE shorn_extract(person, 'person', '$.age') > 40 " +
                             "AND shorn_extract(person, 'person', '$.lang') = 'en'"), '1');
  const alan = await shorn.encode(db, 'person', {name: 'Alan', age: 41, email: 'alan@example.org'});
  assert.equal(Buffer.from(alan).subarray(0, 4).toString('hex'), fingerprint);
  assert.deepEqual(await shorn.decode(db, 'person', alan), {name: 'Alan', age: 41, email: 'alan@example.org', lang: 'en'});
  assert.equal(await one(db, "SELECT shorn_payload_version(?, 'person')", alan), 2);
  assert.equal(await one(db, "SELECT shorn_payload_version(?, 'person')", Buffer.from(old[0])), 1);
  // Version 1's wire shape again, or another width, is an error of sqlite-shorn's.
  await assert.rejects(async () => shorn.register(db, 'person', PersonV1), {
    message: "sqlite-shorn: this schema has the wire shape of version 1 of 'person', older than its newest, version 2: " +
             "register the newest schema of 'person'",
  });
  await assert.rejects(async () => shorn.register(db, 'person', PersonV2, {fpBytes: 3}), {
    message: "sqlite-shorn: 'person' is registered with fpBytes 4, not 3: a name keeps the width of its first version, " +
             'so pass fpBytes 4',
  });
  assert.equal(await one(db, 'SELECT count(*) FROM shorn_schemas'), 2);
  await close(db);
  fs.rmSync(folder, {recursive: true});
});

test("register() of a change the registry cannot read throws the registry's message", async () => {
  const db = await connect();
  await shorn.register(db, 'person', PersonV1, {fpBytes: 4});
  await assert.rejects(async () => shorn.register(db, 'person', PersonV1.extend({age: z.string()})), sqliteError(
      'SQLITE_ERROR', "shorn_schemas: version 2 of 'person' cannot read what version 1 wrote: #/properties/age: " +
      'an integer cannot be read as a string'));
  assert.equal(await one(db, 'SELECT count(*) FROM shorn_schemas'), 1);
});

test("register() with fpBytes: the name's payloads start with that many bytes of its fingerprint", async () => {
  const db = await connect();
  await shorn.register(db, 'person', ZodPerson, {fpBytes: 3});
  const payload = await shorn.encode(db, 'person', GRACE);
  assert.equal(Buffer.from(payload).toString('hex'), '7236d12d05477261636500');
  assert.deepEqual(await shorn.decode(db, 'person', payload), GRACE);
  await assert.rejects(async () => shorn.register(db, 'other', ZodPerson, {fpBytes: 5}), {
    name: 'TypeError', message: "sqlite-shorn: register()'s fpBytes is 0 (no fingerprint) or 1-4, not 5",
  });
});

test("encode() and decode() read and write the library's fingerprint envelope (fpBytes)", async () => {
  const db = await connect();
  await shorn.register(db, 'person', ZodPerson);
  const enveloped = await shorn.encode(db, 'person', GRACE, {fpBytes: 3});
  assert.equal(Buffer.from(enveloped).toString('hex'), '7236d12d05477261636500');
  const written = Buffer.from('7236d12d05477261636500', 'hex');
  assert.deepEqual(await shorn.decode(db, 'person', written, {fpBytes: 3}), GRACE);
  assert.deepEqual(await shorn.decode(db, null, written, {fpBytes: 3}), GRACE);
  await assert.rejects(async () => shorn.decode(db, 'person', written), sqliteError('SQLITE_ERROR',
      "shorn_decode: Unexpected end of input at byte 2; this payload starts with the 3-byte fingerprint of 'person': " +
      'pass fp_bytes 3'));
});

test('encodeMany() and decodeMany() take arrays', async () => {
  const db = await connect();
  await shorn.register(db, 'person', ZodPerson);
  const people = [GRACE, {name: 'Ada', age: 36, sex: 'F'}];
  const payloads = await shorn.encodeMany(db, 'person', people, {fpBytes: 3});
  assert.equal(Buffer.from(payloads[0]).toString('hex'), '7236d12d05477261636500');
  assert.deepEqual(await shorn.decodeMany(db, null, payloads, {fpBytes: 3}), people);
  assert.deepEqual(await shorn.decodeMany(db, 'person', await shorn.encodeMany(db, 'person', people)), people);
});

// What a helper answers, or the message it throws, for comparing two routes.
async function outcome(fn) {
  try {
    const value = await fn();
    return {value: value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value};
  } catch (error) {
    return {error: error.message};
  }
}

// The SQL route by hand: one statement a value, as the helpers ran before
// they took the codec in this process.
const sqlEncode = (db, name, value, ...width) =>
  outcome(() => one(db, `SELECT shorn_encode(?, ?${width.length ? ', ?' : ''})`, JSON.stringify(value), name, ...width));
const sqlDecode = (db, name, payload, ...width) => outcome(async () =>
  JSON.parse(await one(db, `SELECT shorn_decode(?, ?${width.length ? ', ?' : ''})`, Buffer.from(payload), name, ...width)));

// Each helper, one value and many, against the SQL route: the same bytes,
// values and messages.
async function sameAsSql(db, name, values, payloads, options) {
  const width = options?.fpBytes === undefined ? [] : [options.fpBytes];
  for (const value of values) {
    assert.deepEqual(await outcome(() => shorn.encode(db, name, value, options)), await sqlEncode(db, name, value, ...width),
                     `encode ${JSON.stringify(value)}`);
  }
  for (const payload of payloads) {
    assert.deepEqual(await outcome(() => shorn.decode(db, name, payload, options)), await sqlDecode(db, name, payload, ...width),
                     `decode ${Buffer.from(payload).toString('hex')}`);
  }
  const encoded = [], decoded = [];
  for (const value of values) encoded.push(await sqlEncode(db, name, value, ...width));
  for (const payload of payloads) decoded.push(await sqlDecode(db, name, payload, ...width));
  const whole = (outcomes) => outcomes.find((o) => 'error' in o) ?? {value: outcomes.map((o) => o.value)};
  assert.deepEqual(await outcome(async () => (await shorn.encodeMany(db, name, values, options))
    .map((payload) => Buffer.from(payload).toString('hex'))), whole(encoded));
  assert.deepEqual(await outcome(() => shorn.decodeMany(db, name, payloads, options)), whole(decoded));
}

// A sample of schemas, values (some refused) and payloads (some refused).
const SAMPLE = [
  [PERSON, [GRACE, {name: 'Ada', age: 36, sex: 'F'}, {name: '', age: 0, sex: 'X'}, {...GRACE, age: -1}, {name: 'Grace'},
    {...GRACE, extra: 1}, {name: 'Zoë 漢字 🎉', age: 2 ** 31, sex: 'M'}],
   ['2d05477261636500', '', '2d', '2d054772616365ff', '2d0547726163650000']],
  ['{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"score":{"type":"number"},' +
   '"ok":{"type":"boolean"},"at":{"type":"string","format":"date-time"},"n":{"type":["integer","null"]}},' +
   '"required":["tags"]}',
   [{tags: []}, {tags: ['a', 'bc'], score: 0.1, ok: true}, {tags: ['x'], score: -1e300, n: null}, {tags: ['x'], n: 2 ** 53},
    {tags: ['x'], at: '2024-02-29T12:00:00Z'}, {tags: ['x'], at: 'yesterday'}, {tags: 'x'}, {tags: [], score: 1.5, ok: 'no'}],
   ['00', '0100', 'ff', '01016100']],
  ['{"type":"string","maxLength":3}', ['abc', 'abcd', 7, ''], ['03616263', '00', '0361']],
];

test('encode() and decode() answer as the SQL route does: bytes, values and messages, one value and many',
     async () => {
  const db = await connect();
  for (const [i, [schema, values, payloads]] of SAMPLE.entries()) {
    await shorn.register(db, `sample${i}`, schema);
    const written = [];
    for (const value of values) {
      const payload = await outcome(() => shorn.encode(db, `sample${i}`, value));
      if ('value' in payload) written.push(Buffer.from(payload.value, 'hex'));
    }
    const all = [...written, ...payloads.map((hex) => Buffer.from(hex, 'hex'))];
    await sameAsSql(db, `sample${i}`, values, all);
    // The library's envelope on a bare name, and widths SQL refuses.
    const enveloped = [];
    for (const value of values) {
      const payload = await outcome(() => shorn.encode(db, `sample${i}`, value, {fpBytes: 3}));
      if ('value' in payload) enveloped.push(Buffer.from(payload.value, 'hex'));
    }
    await sameAsSql(db, `sample${i}`, values, [...enveloped, ...all], {fpBytes: 3});
    await sameAsSql(db, `sample${i}`, values.slice(0, 1), all.slice(0, 1), {fpBytes: 0});
    await sameAsSql(db, `sample${i}`, values.slice(0, 1), all.slice(0, 1), {fpBytes: 5});
  }
  // A name the registry does not hold, and inline JSON Schema in its place.
  await sameAsSql(db, 'nobody', [GRACE], [Buffer.from('2d05477261636500', 'hex')]);
  await sameAsSql(db, PERSON, [GRACE], [Buffer.from('2d05477261636500', 'hex')]);
});

// The repository's golden vectors (tests/vectors, beside the README that
// SHORN_README names): each schema registered under a name of its own.
const VECTORS = path.join(path.dirname(process.env.SHORN_README ?? '.'), 'tests', 'vectors');

test('encode(), decode() and decodeMany() answer as the SQL route does over the golden vectors',
     {skip: CLIENT !== 'better-sqlite3' ? 'over the vectors once, under better-sqlite3'
       : !fs.existsSync(VECTORS) && `no ${VECTORS}`}, () => {
  const lines = (file) => fs.readFileSync(path.join(VECTORS, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const db = open();
  shorn.load(db);
  db.exec('CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry');
  const names = new Map();
  for (const v of lines('schemas.jsonl')) {
    // Schemas the registry refuses (one whose wire shape another holds, one that does not compile) are left out.
    try {
      db.prepare('INSERT INTO shorn_schemas(name, schema) VALUES (?, ?)').run(`v${v.id}`, JSON.stringify(v.schema));
      names.set(v.id, `v${v.id}`);
    } catch {}
  }
  const encodeSql = db.prepare('SELECT shorn_encode(?, ?)').pluck();
  const decodeSql = db.prepare('SELECT shorn_decode(?, ?)').pluck();
  const settled = (fn) => {
    try {
      const value = fn();
      return value instanceof Uint8Array ? {hex: Buffer.from(value).toString('hex')} : {value};
    } catch (error) {
      return {error: error.message};
    }
  };
  let compared = 0;
  for (const v of lines('encode.jsonl').filter((v) => names.has(v.schema_id))) {
    let value;
    try {
      value = JSON.parse(v.json);
    } catch {
      continue; // Text JSON.parse refuses is no value a helper can be given.
    }
    const name = names.get(v.schema_id);
    assert.deepEqual(settled(() => shorn.encode(db, name, value)), settled(() => encodeSql.get(JSON.stringify(value), name)), v.id);
    compared++;
  }
  const payloads = new Map();
  for (const v of lines('decode.jsonl').filter((v) => names.has(v.schema_id))) {
    const name = names.get(v.schema_id), payload = Buffer.from(v.hex, 'hex');
    assert.deepEqual(settled(() => shorn.decode(db, name, payload)), settled(() => JSON.parse(decodeSql.get(payload, name))), v.id);
    if (!payloads.has(name)) payloads.set(name, []);
    payloads.get(name).push(payload);
    compared++;
  }
  for (const [name, some] of payloads) {
    const each = some.map((payload) => settled(() => JSON.parse(decodeSql.get(payload, name))));
    assert.deepEqual(settled(() => shorn.decodeMany(db, name, some)),
                     each.find((o) => 'error' in o) ?? {value: each.map((o) => o.value)}, name);
  }
  assert.ok(compared > 20000, `${compared} vectors compared`);
});

test('encode() and decode() follow the registry between calls: versions, texts replaced, rollbacks, other connections',
     async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'shorn-'));
  const file = path.join(folder, 'app.db');
  const db = await connectFile(file);
  const v1 = {name: 'Grace', age: 45, nick: 'Amazing Grace'};
  const v2 = {name: 'Alan', age: 41, email: 'alan@example.org'};
  await shorn.register(db, 'person', PersonV1, {fpBytes: 4});
  const old = [await shorn.encode(db, 'person', v1), await shorn.encode(db, 'person', {...v1, name: 'Ada'})];
  await sameAsSql(db, 'person', [v1, v2], old);
  // A new version through register(): payloads of version 1 read in its shape.
  await shorn.register(db, 'person', PersonV2);
  const current = await shorn.encode(db, 'person', v2);
  await sameAsSql(db, 'person', [v1, v2], [...old, current]);
  await sameAsSql(db, 'person', [v2], [...old, current], {fpBytes: 4});
  await sameAsSql(db, 'person', [v2], [current], {fpBytes: 3});
  // A text replaced in place by SQL of the caller's own: a bound the codec must now check.
  const strict = JSON.parse(await one(db, "SELECT schema FROM shorn_schemas WHERE name = 'person' AND version = 2"));
  strict.properties.name.maxLength = 3;
  await exec(db, `UPDATE shorn_schemas SET schema = '${JSON.stringify(strict).replaceAll("'", "''")}' ` +
                 "WHERE name = 'person' AND version = 2");
  await sameAsSql(db, 'person', [v2, {...v2, name: 'Al'}], [...old, current]);
  // A version 3 inside a transaction, then rolled back; then a savepoint's.
  const V3 = PersonV2.extend({team: z.string().default('none')});
  await exec(db, 'BEGIN');
  await shorn.register(db, 'person', V3);
  await sameAsSql(db, 'person', [v2], [...old, current]);
  await exec(db, 'ROLLBACK');
  await sameAsSql(db, 'person', [v2], [...old, current]);
  await exec(db, 'BEGIN');
  await exec(db, 'SAVEPOINT three');
  await shorn.register(db, 'person', V3);
  await sameAsSql(db, 'person', [v2], [current]);
  await exec(db, 'ROLLBACK TO three');
  await sameAsSql(db, 'person', [v2], [current]);
  await exec(db, 'COMMIT');
  await sameAsSql(db, 'person', [v2], [current]);
  // Another connection registers version 3 and commits; then version 4,
  // between this connection's last call and its next transaction.
  const other = await connectFile(file);
  await shorn.register(other, 'person', V3);
  assert.equal(await one(db, "SELECT max(version) FROM shorn_schemas WHERE name = 'person'"), 3);
  await sameAsSql(db, 'person', [v2], [...old, current]);
  await shorn.register(other, 'person', V3.extend({room: z.int().default(1)}));
  await close(other);
  await exec(db, 'BEGIN');
  await sameAsSql(db, 'person', [v2], [...old, current]);
  await exec(db, 'COMMIT');
  // The name gone, then the registry.
  await exec(db, "DELETE FROM shorn_schemas WHERE name = 'person'");
  await sameAsSql(db, 'person', [v2], [current]);
  await shorn.register(db, 'person', ZodPerson);
  await sameAsSql(db, 'person', [GRACE], [Buffer.from('2d05477261636500', 'hex')]);
  await exec(db, 'DROP TABLE shorn_schemas');
  await sameAsSql(db, 'person', [GRACE], [Buffer.from('2d05477261636500', 'hex')]);
  await close(db);
  fs.rmSync(folder, {recursive: true});
});

test('wrong arguments, and helpers before load(), say what to do', async () => {
  const db = open();
  await assert.rejects(async () => shorn.encode(db, 'person', GRACE),
                       sqliteError('SQLITE_ERROR', 'no such function: shorn_encode: call load(db) first'));
  await shorn.load(db);
  await shorn.register(db, 'person', ZodPerson);
  await assert.rejects(async () => shorn.decode(db, 'person', '7236d12d05477261636500'), {
    name: 'TypeError',
    message: 'sqlite-shorn: decode() takes the payload as a Uint8Array, Buffer or ArrayBuffer, not a string ' +
             '(Buffer.from(hex, "hex") reads hex)',
  });
  await assert.rejects(async () => shorn.encode(db, 'person', undefined), {
    name: 'TypeError', message: 'sqlite-shorn: encode() takes a value JSON can write, not undefined',
  });
});

test('node:sqlite: a connection opened without allowExtension gets an error saying how to open it',
     {skip: CLIENT !== 'node:sqlite' && 'node:sqlite only'}, () => {
  const {DatabaseSync} = require('node:sqlite');
  assert.throws(() => shorn.load(new DatabaseSync(':memory:')), (error) => {
    assert.equal(error.message, `${error.cause.message}: open the connection as new DatabaseSync(path, {allowExtension: true})`);
    assert.equal(error.cause.code, 'ERR_INVALID_STATE');
    return true;
  });
});

test("a SQLite that cannot load extensions (Bun's on macOS, Apple's) gets an error naming what to do, and where",
     {skip: CLIENT !== 'bun:sqlite' && 'bun:sqlite only'}, () => {
  // Bun on Linux links a SQLite of its own that loads extensions (and
  // setCustomSQLite does not replace it there), so Bun's refusal on macOS
  // is spoken by the connection's loadExtension, in Bun's words.
  const db = open();
  const refusal = new Error('This build of sqlite3 does not support dynamic extension loading');
  db.loadExtension = () => {
    throw refusal;
  };
  assert.throws(() => shorn.load(db), (error) => {
    assert.equal(error.message, 'This build of sqlite3 does not support dynamic extension loading: this SQLite cannot ' +
      "load extensions (on macOS, Bun's SQLite is Apple's). Before opening the first Database, name one that can, such " +
      "as Homebrew's (brew install sqlite): Database.setCustomSQLite(\"/opt/homebrew/opt/sqlite/lib/libsqlite3.dylib\") " +
      `(/usr/local/opt/... on an Intel Mac); see "Apple's SQLite" in ${path.join(PACKAGE, 'README.md')}`);
    assert.equal(error.cause, refusal);
    return true;
  });
  assert.match(fs.readFileSync(path.join(PACKAGE, 'README.md'), 'utf8'), /\n## Apple's SQLite\n/);
});

test('load() of something that is no connection says what it takes', () => {
  assert.throws(() => shorn.load({}), {
    name: 'TypeError',
    message: 'sqlite-shorn: load() takes a connection with loadExtension() (better-sqlite3, libsql, node:sqlite, ' +
             'bun:sqlite, node-sqlite3), not [object Object]',
  });
});

test("libsql: register() gives the fingerprint, encode() a Uint8Array, though libsql's get() ignores pluck()",
     {skip: CLIENT !== 'libsql' && 'libsql only'}, async () => {
  const db = await connect();
  // What the helpers work around: a plucked statement's get() answers a row.
  assert.equal(typeof db.prepare('SELECT shorn_version() AS v').pluck().get(), 'object');
  assert.equal(shorn.register(db, 'person', JSON.parse(PERSON)), shorn.register(db, 'person', PERSON));
  assert.match(shorn.register(db, 'person', PERSON), /^[0-9a-f]{8}$/);
  const payloads = shorn.encodeMany(db, 'person', [GRACE, GRACE]);
  assert.ok(payloads.every((payload) => payload instanceof Uint8Array));
  assert.deepEqual(shorn.decodeMany(db, 'person', payloads), [GRACE, GRACE]);
});

// What a process using @libsql/client runs, in a process of its own, since
// loadLibsql() gives the extension to every libsql connection opened after it.
const LIBSQL_CLIENT_APP = `
const {createClient} = require('@libsql/client');
const shorn = require('sqlite-shorn');
const {drizzle} = require('drizzle-orm/libsql');
const {setup, decoded, extract, shorn: column} = require('sqlite-shorn/drizzle');
const {integer, sqliteTable} = require('drizzle-orm/sqlite-core');
const {z} = require('zod');
const [folder, PERSON] = process.argv.slice(1);
const seen = {};
const outcome = (promise) => promise.then((value) => value, (error) => error.message);
(async () => {
  const file = (name) => 'file:' + require('node:path').join(folder, name);
  const early = createClient({url: file('early.db')});
  seen.early = await outcome(shorn.load(early));
  shorn.loadLibsql();
  shorn.loadLibsql();
  const client = createClient({url: file('app.db')});
  seen.load = (await outcome(shorn.load(client))) ?? 'loaded';
  seen.fingerprint = await shorn.register(client, 'person', PERSON, {fpBytes: 3});
  const payload = await shorn.encode(client, 'person', {name: 'Grace', age: 45, sex: 'F'});
  seen.payload = [Buffer.isBuffer(payload), payload.toString('hex')];
  seen.decoded = await shorn.decode(client, 'person', payload);
  const many = await shorn.encodeMany(client, 'person', [{name: 'Ada', age: 36, sex: 'F'}, {name: 'Alan', age: 41, sex: 'M'}]);
  seen.many = await shorn.decodeMany(client, 'person', many);
  await client.execute('CREATE TABLE people (id INTEGER PRIMARY KEY, person BLOB)');
  await client.execute({sql: 'INSERT INTO people(person) VALUES (?)', args: [payload]});
  const [row] = (await client.execute('SELECT person FROM people')).rows;
  seen.read = [row.person instanceof ArrayBuffer, await shorn.decode(client, 'person', row.person)];
  seen.refused = await outcome(shorn.encode(client, 'person', {name: 'Grace', age: -1, sex: 'F'}));
  // drizzle-orm/libsql: the column writes in SQL; decoded() and extract() read.
  const Person = z.object({name: z.string(), age: z.int().nonnegative(), sex: z.enum(['M', 'F', 'X'])});
  const people = sqliteTable('people', {id: integer().primaryKey(), person: column('person', Person, {fpBytes: 3})});
  const db = drizzle({client});
  seen.setup = (() => { try { setup(db, {people}); } catch (error) { return error.message; } })();
  await db.insert(people).values({person: {name: 'Ada', age: 36, sex: 'F'}});
  seen.drizzle = await db.select({id: people.id, person: decoded(people.person), age: extract(people.person, '$.age')})
    .from(people).orderBy(people.id);
  const other = createClient({url: file('app.db')});
  seen.other = await shorn.decode(other, 'person', payload);
  console.log(JSON.stringify(seen));
})().catch((error) => { console.error(error); process.exit(1); });
`;

test("libsql: @libsql/client's Client, after loadLibsql(): register(), the helpers, and drizzle-orm/libsql with decoded()",
     {skip: CLIENT !== 'libsql' && 'libsql only'}, () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'shorn-libsql-'));
  const run = spawnSync(process.execPath, ['-e', LIBSQL_CLIENT_APP, folder, PERSON], {encoding: 'utf8', cwd: __dirname});
  fs.rmSync(folder, {recursive: true});
  assert.equal(run.stderr, '');
  const grace = {name: 'Grace', age: 45, sex: 'F'};
  assert.deepEqual(JSON.parse(run.stdout), {
    early: 'sqlite-shorn: an @libsql/client Client opens its connections itself, the first in createClient(): call ' +
           'loadLibsql() before createClient(), and every connection libsql opens after has the extension',
    load: 'loaded',
    fingerprint: 'a3b4e3de',
    payload: [true, '7236d12d05477261636500'],
    decoded: grace,
    many: [{name: 'Ada', age: 36, sex: 'F'}, {name: 'Alan', age: 41, sex: 'M'}],
    read: [true, grace],
    refused: 'SQLITE_ERROR: shorn_encode: Too small: expected at least 0 at $.age', // as the client words it
    setup: 'sqlite-shorn/drizzle: setup() needs a synchronous client (better-sqlite3, libsql, bun:sqlite); with ' +
           'another, load and register with sqlite-shorn and select decoded(column)',
    drizzle: [{id: 1, person: grace, age: 45}, {id: 2, person: {name: 'Ada', age: 36, sex: 'F'}, age: 36}],
    other: grace,
  });
});

test("libsql: sqlite-shorn/drizzle's column through drizzle-orm/better-sqlite3's driver, which runs on libsql",
     {skip: CLIENT !== 'libsql' && 'libsql only'}, async () => {
  const {drizzle} = require('drizzle-orm/better-sqlite3');
  const {gt, sql} = require('drizzle-orm');
  const {integer, sqliteTable} = require('drizzle-orm/sqlite-core');
  const {decoded, extract, set, setup, shorn: column} = require('sqlite-shorn/drizzle');
  const people = sqliteTable('people', {id: integer().primaryKey(), person: column('person', ZodPerson).notNull()});
  const db = drizzle({client: open()});
  setup(db, {people});
  db.run(sql`CREATE TABLE people (id INTEGER PRIMARY KEY, person BLOB NOT NULL)`);
  db.insert(people).values([{person: GRACE}, {person: {name: 'Ada', age: 36, sex: 'F'}}]).run();
  db.update(people).set({person: set(people.person, '$.age', 46)}).where(sql`id = 1`).run();
  assert.deepEqual(db.select().from(people).where(gt(extract(people.person, '$.age'), 40)).all(),
                   [{id: 1, person: {...GRACE, age: 46}}]);
  assert.deepEqual(db.select({person: decoded(people.person)}).from(people).where(sql`id = 2`).all(),
                   [{person: {name: 'Ada', age: 36, sex: 'F'}}]);
  assert.throws(() => db.insert(people).values({person: {...GRACE, age: 500}}).run(),
                {message: 'shorn_encode: Too big: expected at most 150 at $.age'});
});

test("libsql: sqlite-shorn/kysely's expressions with Kysely's SqliteDialect on libsql's Database",
     {skip: CLIENT !== 'libsql' && 'libsql only'}, async () => {
  const {Kysely, SqliteDialect} = require('kysely');
  const {setup, shorn: expressions, ShornPlugin} = await import('sqlite-shorn/kysely');
  const person = expressions('person', ZodPerson);
  const client = open();
  setup(client, person);
  const db = new Kysely({dialect: new SqliteDialect({database: client}), plugins: [new ShornPlugin()]});
  await db.schema.createTable('people').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('person', 'blob')
    .execute();
  await db.insertInto('people').values({person: person.encode(GRACE)}).execute();
  assert.deepEqual(await db.selectFrom('people').select(['id', person.decode('person').as('person')])
    .where(person.extract('person', '$.age'), '>', 40).execute(), [{id: 1, person: GRACE}]);
  await db.destroy();
});

// A README's first ```js block that uses sqlite-shorn, run with this test's
// client (for node-sqlite3, each sqlite-shorn call awaited), and each
// console.log's output compared with its comment.
function runExample(readme, name) {
  const example = [...readme.matchAll(/```js\n([^]*?)```/g)].map((m) => m[1]).find((js) => js.includes('sqlite-shorn'));
  const [connection] = example.match(/require\("better-sqlite3"\)\(":memory:"\)/) ?? [];
  assert.ok(connection, `${name}'s example opens a better-sqlite3 connection`);
  let script = example.replace(connection, CONNECTION);
  if (ASYNC) script = `(async () => {\n${script.replaceAll('shorn.', 'await shorn.')}})();\n`;
  const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((m) => m[1]);
  assert.ok(expected.length > 0);
  fs.writeFileSync(path.join(__dirname, name), script);
  const printed = execFileSync(process.execPath, [path.join(__dirname, name)], {encoding: 'utf8'});
  assert.deepEqual(printed.trimEnd().split('\n'), expected);
}

test("the package README's example prints what its comments say", () => {
  runExample(fs.readFileSync(path.join(PACKAGE, 'README.md'), 'utf8'), 'package-readme.js');
});

test("the project README's Node example prints what its comments say", () => {
  runExample(fs.readFileSync(process.env.SHORN_README, 'utf8'), 'project-readme.js');
});

test("index.d.ts types each client's code (tsc --strict --esModuleInterop types.ts)",
     {skip: CLIENT !== 'better-sqlite3' && 'type-checked once, under better-sqlite3'}, () => {
  const tsc = require.resolve('typescript/bin/tsc');
  assert.equal(execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--esModuleInterop', path.join(__dirname, 'types.ts')],
                            {encoding: 'utf8'}), '');
});
