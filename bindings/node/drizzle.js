'use strict';
// Drizzle ORM columns stored as shorn payloads: the value a query writes is
// encoded by shorn_encode in the statement itself, so the schema's checks
// and errors are the extension's; a select reads the BLOB back through
// shorn_decode on the connection setup() bound.
const {customType} = require('drizzle-orm/sqlite-core');
const {getTableColumns, is, sql, Table} = require('drizzle-orm');
const shorn = require('./index.js');

const STATE = Symbol('sqlite-shorn');
// A stored payload names its schema's version by the fingerprint it starts with.
const DEFAULT_FP_BYTES = 4;

// A SQL string literal: the name and paths are written into the statement,
// not bound, so that a WHERE or ORDER BY expression is the very text of an
// index's expression and SQLite's planner can use the index.
const quoted = (text) => `'${String(text).replaceAll("'", "''")}'`;
const literal = (text) => sql.raw(quoted(text));

/**
 * A BLOB column of payloads of the schema registered under `name`; `schema`
 * (a Zod, Valibot or ArkType schema, or a JSON Schema) is what setup()
 * registers, as the name's next version when it changes, and what types the
 * column's values; `fpBytes` (4 unless given; 0 for none) is how many bytes
 * of its fingerprint each payload starts with.
 */
function shornColumn(name, schema, options) {
  if (typeof name !== 'string' || name === '' || name.trimStart().startsWith('{')) {
    throw new TypeError(`sqlite-shorn/drizzle: shorn() takes the name the schema is registered under, not ${name}`);
  }
  const state = {name, schema, fpBytes: options?.fpBytes ?? DEFAULT_FP_BYTES, connection: undefined};
  const column = customType({
    dataType: () => 'blob',
    toDriver: (value) => (value === null ? null : sql`shorn_encode(${JSON.stringify(value)}, ${literal(name)})`),
    fromDriver: (value) => fromDriver(state, value),
  });
  const builder = column();
  builder.config.customTypeParams[STATE] = state;
  return builder;
}

// A value as the driver answers it: text from decoded() is the JSON already;
// a BLOB is decoded on the connection setup() bound to the column.
function fromDriver(state, value) {
  if (typeof value === 'string') return JSON.parse(value);
  const {connection} = state;
  if (connection === undefined) {
    throw new Error(`sqlite-shorn/drizzle: a '${state.name}' payload was selected before setup(db, tables) bound ` +
                    `a connection to decode it; call setup(), or select decoded(column)`);
  }
  return JSON.parse(connection.decode(value));
}

function stateOf(column) {
  const state = column?.config?.customTypeParams?.[STATE];
  if (state === undefined) throw new TypeError('sqlite-shorn/drizzle: expected a column made by shorn()');
  return state;
}

// The synchronous connection a drizzle database runs on, with a statement
// that decodes; an asynchronous client cannot decode inside fromDriver.
function decoderOf(client, name) {
  if (typeof client?.prepare !== 'function' || typeof client.each === 'function') {
    throw new TypeError('sqlite-shorn/drizzle: setup() needs a synchronous client (better-sqlite3, ' +
                        'bun:sqlite); with another, load and register with sqlite-shorn and select decoded(column)');
  }
  const statement = client.prepare(`SELECT shorn_decode(?, ${quoted(name)}) AS json`);
  return {
    decode(payload) {
      // better-sqlite3 binds a Buffer as a BLOB, not another Uint8Array.
      const blob = Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
      return statement.get(blob).json;
    },
  };
}

function isLoaded(client) {
  try {
    client.prepare('SELECT shorn_version()');
    return true;
  } catch {
    return false;
  }
}

// is() reads the constructor, which a module namespace (import * as schema) lacks.
const isTable = (value) => Object(value) === value && Object.getPrototypeOf(value) !== null && is(value, Table);

/**
 * Loads the extension into the connection of `db` (a drizzle database or
 * its client), registers the schema of every shorn() column of the tables
 * (a table, or an object of them such as `import * as schema`), a changed
 * schema as the name's next version, and binds the connection so that
 * selected payloads come back decoded, in the newest version's shape.
 */
function setup(db, tables) {
  const client = db?.$client ?? db;
  if (!isLoaded(client)) shorn.load(client);
  const list = isTable(tables) ? [tables] : Object.values(tables ?? {}).filter(isTable);
  if (list.length === 0) throw new TypeError('sqlite-shorn/drizzle: setup(db, tables) takes a table or an object of tables');
  for (const table of list) {
    for (const column of Object.values(getTableColumns(table))) {
      const state = column.config?.customTypeParams?.[STATE];
      if (state === undefined) continue;
      if (state.schema !== undefined) shorn.register(client, state.name, state.schema, {fpBytes: state.fpBytes});
      state.connection = decoderOf(client, state.name);
    }
  }
}

/** The column's value as JSON text decoded in SQL, mapped to the typed object. */
function decoded(column) {
  return sql`shorn_decode(${column}, ${literal(stateOf(column).name)})`.mapWith(column);
}

/** The value at `path` inside the column's payload, as shorn_extract answers it. */
function extract(column, path) {
  return sql`shorn_extract(${column}, ${literal(stateOf(column).name)}, ${literal(path)})`;
}

/** The column's payload with the value at `path` replaced, as json_set would, for update().set(). */
function set(column, path, value) {
  return sql`shorn_set(${column}, ${literal(stateOf(column).name)}, ${literal(path)}, json(${JSON.stringify(value)}))`;
}

module.exports = {shorn: shornColumn, setup, decoded, extract, set};
