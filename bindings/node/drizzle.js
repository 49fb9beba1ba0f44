'use strict';
// Drizzle ORM columns stored as shorn payloads: the value a query writes is
// encoded by shorn_encode in the statement itself, so the schema's checks
// and errors are the extension's; a select of the database setup() was
// given decodes the column with shorn_decode in the statement too, and a
// BLOB that still reaches fromDriver is decoded on the connection setup()
// bound.
const {customType} = require('drizzle-orm/sqlite-core');
const {Column, getTableColumns, getTableName, is, Name, orderSelectedFields, sql, SQL, StringChunk, Subquery, Table} =
  require('drizzle-orm');
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
    // drizzle-orm 1.0's relational queries gather a related row with
    // json_object(), which refuses a BLOB: the column is decoded there in
    // SQL, inside an array of its own.  The array arrives parsed, or as
    // text where a subquery between lost its JSON subtype; either way the
    // value is its one item, whatever the schema's type.
    forJsonSelect: (identifier, sqlTag) => sqlTag`json_array(shorn_decode(${identifier}, ${literal(name)}))`,
    fromJson: (value) => (typeof value === 'string' ? JSON.parse(value) : value)[0],
  });
  const builder = column();
  builder.config.customTypeParams[STATE] = state;
  return builder;
}

// A value as the driver answers it: text from decoded() is the JSON already;
// a one-element array is a related row's value, which a relational query
// wrapped in json_array() so that a schema's string or array stays
// unambiguous; a BLOB is decoded on the connection setup() bound.
function fromDriver(state, value) {
  if (typeof value === 'string') return JSON.parse(value);
  if (Array.isArray(value)) return value[0];
  const {connection} = state;
  if (connection === undefined) {
    throw new Error(`sqlite-shorn/drizzle: a '${state.name}' payload was selected before setup(db, tables) bound ` +
                    `a connection to decode it; call setup(), or select decoded(column)`);
  }
  return JSON.parse(connection.decode(value));
}

// The state shorn() gave a column, or undefined for another column or value.
const shornState = (column) => (is(column, Column) ? column.config?.customTypeParams?.[STATE] : undefined);

function stateOf(column) {
  const state = shornState(column);
  if (state === undefined) throw new TypeError('sqlite-shorn/drizzle: expected a column made by shorn()');
  return state;
}

// The connection a drizzle database runs on, with a statement that decodes.
function decoderOf(client, name) {
  // The name is bound as well: libsql takes a lone object argument for
  // named parameters, and a lone Buffer there aborts the process.
  const statement = client.prepare('SELECT shorn_decode(?, ?) AS json');
  return {
    decode(payload) {
      // better-sqlite3 binds a Buffer as a BLOB, not another Uint8Array.
      const blob = Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
      return statement.get(blob, name).json;
    },
  };
}

// setup() binds a statement that decodes in fromDriver, which an
// asynchronous client cannot answer there.
function requireSynchronous(client) {
  if (typeof client?.prepare !== 'function' || typeof client.each === 'function') {
    throw new TypeError('sqlite-shorn/drizzle: setup() needs a synchronous client (better-sqlite3, libsql, ' +
                        'bun:sqlite); with another, load and register with sqlite-shorn and select decoded(column)');
  }
}

function isLoaded(client) {
  try {
    client.prepare('SELECT shorn_version()');
    return true;
  } catch {
    return false;
  }
}

// A shorn column of a select, decoded by the statement itself: one SQLite
// function call a row instead of a statement of its own in fromDriver.
// Named as the column, so that the select of a subquery over it finds it.
const decodedField = (column, state, name) =>
  sql`shorn_decode(${column}, ${literal(state.name)})`.mapWith(column).as(name);

// Set while the dialect builds what no row of the app's comes back from as
// it is selected: the statement's text (where a select inside a condition,
// as in exists() or inArray(), meets the stored payloads), and an insert's
// select, whose payloads are copied as they are.
const RAW = Symbol('sqlite-shorn raw');
function raw(dialect, method) {
  const original = dialect[method];
  dialect[method] = function (...args) {
    this[RAW] += 1;
    try {
      return original.apply(this, args);
    } finally {
      this[RAW] -= 1;
    }
  };
}

// The SQL of json_array(a, b, ...) that drizzle-orm 0.x's relational query
// builds over a related row's columns: the list inside it, whose items
// alternate with the commas between them.
function jsonArrayItems(chunk) {
  if (is(chunk, SQL.Aliased)) return jsonArrayItems(chunk.sql);
  if (!is(chunk, SQL)) return undefined;
  const [first, inner] = chunk.queryChunks;
  if (is(first, StringChunk) && first.value.join('') === 'json_array(' && is(inner, SQL)) return inner;
  for (const child of chunk.queryChunks) {
    const found = jsonArrayItems(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

// drizzle-orm 0.x has no hook for a column inside the relational query's
// json_array(), and SQLite's JSON functions refuse a BLOB: the related
// row's shorn columns are decoded there in SQL, each inside an array of
// its own, as fromDriver expects them.
function decodeRelatedRow({sql: query, selection}) {
  const items = jsonArrayItems(query);
  if (items === undefined || items.queryChunks.length !== 2 * selection.length - 1) return;
  selection.forEach((entry, i) => {
    const state = entry.isJson ? undefined : shornState(entry.field);
    const chunk = items.queryChunks[2 * i];
    if (state !== undefined && is(chunk, Name)) {
      items.queryChunks[2 * i] = sql`json_array(shorn_decode(${chunk}, ${literal(state.name)}))`;
    }
  });
}

// drizzle-orm 0.x selects a column as it is stored: the dialect of `db` is
// taught to select a shorn column decoded, in db.select() and in the
// relational queries alike, except from a subquery, whose select decoded it
// already.  drizzle-orm 1.0 is left to its forJsonSelect hook and fromDriver.
function decodeInStatements(dialect) {
  if (dialect === undefined || dialect[STATE] || 'codecs' in dialect ||
      ['buildSelectQuery', 'buildRelationalQuery', 'buildInsertQuery', 'sqlToQuery']
        .some((method) => typeof dialect[method] !== 'function')) return;
  const {buildSelectQuery, buildRelationalQuery} = dialect;
  dialect[RAW] = 0;
  raw(dialect, 'sqlToQuery');
  raw(dialect, 'buildInsertQuery');
  dialect.buildSelectQuery = function (config) {
    if (this[RAW] > 0) return buildSelectQuery.call(this, config);
    const subqueries = new Set([config.table, ...(config.joins ?? []).map((join) => join.table)]
      .filter((source) => is(source, Subquery)).map((source) => source._.alias));
    let changed = false;
    const fieldsFlat = (config.fieldsFlat ?? orderSelectedFields(config.fields)).map((entry) => {
      const state = shornState(entry.field);
      if (state === undefined || subqueries.has(getTableName(entry.field.table))) return entry;
      changed = true;
      return {...entry, field: decodedField(entry.field, state, this.casing.getColumnCasing(entry.field))};
    });
    return buildSelectQuery.call(this, changed ? {...config, fieldsFlat} : config);
  };
  dialect.buildRelationalQuery = function (config) {
    const built = buildRelationalQuery.call(this, config);
    if (config.nestedQueryRelation !== undefined) decodeRelatedRow(built);
    return built;
  };
  dialect[STATE] = true;
}

// is() reads the constructor, which a module namespace (import * as schema) lacks.
const isTable = (value) => Object(value) === value && Object.getPrototypeOf(value) !== null && is(value, Table);

/**
 * Loads the extension into the connection of `db` (a drizzle database or
 * its client), registers the schema of every shorn() column of the tables
 * (a table, or an object of them such as `import * as schema`), a changed
 * schema as the name's next version, and binds the connection so that
 * selected payloads come back decoded, in the newest version's shape.
 * Given the drizzle database, its selects and relational queries decode
 * in the statement; given the client, a relational query's related rows
 * cannot be decoded.
 */
function setup(db, tables) {
  const client = db?.$client ?? db;
  requireSynchronous(client);
  if (!isLoaded(client)) shorn.load(client);
  const list = isTable(tables) ? [tables] : Object.values(tables ?? {}).filter(isTable);
  if (list.length === 0) throw new TypeError('sqlite-shorn/drizzle: setup(db, tables) takes a table or an object of tables');
  if (client !== db) decodeInStatements(db.dialect);
  for (const table of list) {
    for (const column of Object.values(getTableColumns(table))) {
      const state = shornState(column);
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
  const json = JSON.stringify(value);
  // JSON.stringify answers undefined, not text, for what JSON cannot
  // write; bound as NULL it would reach json() as no argument at all.
  if (typeof json !== 'string') {
    throw new TypeError(`sqlite-shorn/drizzle: set() takes a value JSON can write, not ${String(value)}; ` +
                        'remove(column, path) takes a field out');
  }
  return sql`shorn_set(${column}, ${literal(stateOf(column).name)}, ${literal(path)}, json(${json}))`;
}

/** The column's payload with the value at `path` taken out, as json_remove would, for update().set(). */
function remove(column, path) {
  return sql`shorn_remove(${column}, ${literal(stateOf(column).name)}, ${literal(path)})`;
}

/**
 * Applies the migrations drizzle-kit generated (`config` as drizzle-orm's
 * migrator takes it: {migrationsFolder}) on the connection of `db`, the
 * extension loaded first: drizzle-kit migrate opens a connection of its
 * own, which cannot load it, and fails on a migration that calls shorn's
 * functions.
 */
function migrate(db, config) {
  const client = db?.$client;
  if (client === undefined || typeof db.dialect?.migrate !== 'function') {
    throw new TypeError('sqlite-shorn/drizzle: migrate(db, config) takes a drizzle-orm 0.x database; ' +
                        "with another, call setup(db, tables), then the driver's own migrate()");
  }
  const migrations = require('drizzle-orm/migrator').readMigrationFiles(config);
  if (!isLoaded(client)) {
    try {
      shorn.load(client);
    } catch (error) {
      const calls = [...new Set(migrations.flatMap((migration) => migration.sql.join('\n').match(/\bshorn_\w+/g) ?? []))];
      const need = calls.length === 0 ? 'the extension' : `${calls.join(', ')}, which the extension defines`;
      throw new Error(`sqlite-shorn/drizzle: migrate() could not load the extension into this connection ` +
                      `(${error.message}), and the migrations call ${need}`, {cause: error});
    }
  }
  return db.dialect.migrate(migrations, db.session, config);
}

module.exports = {shorn: shornColumn, setup, decoded, extract, set, remove, migrate};
