// Kysely expressions over shorn payloads: values encoded by shorn_encode in
// the statement (the schema's checks and errors are the extension's), and
// ShornPlugin, which turns what decode() selects into objects.
import {sql} from 'kysely';
import extension from './index.js';

// Names and paths are literals in the statement, not parameters, so that a
// WHERE or ORDER BY expression is the very text of an index's expression.
class Shorn {
  constructor(name, schema, options) {
    if (typeof name !== 'string' || name === '' || name.trimStart().startsWith('{')) {
      throw new TypeError(`sqlite-shorn/kysely: shorn() takes the name the schema is registered under, not ${name}`);
    }
    this.name = name;
    this.schema = schema;
    // Each payload starts with this many bytes of the fingerprint, which names its version.
    this.fpBytes = options?.fpBytes ?? 4;
  }

  encode(value) {
    return sql`shorn_encode(${JSON.stringify(value)}, ${sql.lit(this.name)})`;
  }

  decode(column) {
    return sql`shorn_decode(${reference(column)}, ${sql.lit(this.name)})`;
  }

  extract(column, path) {
    return sql`shorn_extract(${reference(column)}, ${sql.lit(this.name)}, ${sql.lit(path)})`;
  }

  set(column, path, value) {
    return sql`shorn_set(${reference(column)}, ${sql.lit(this.name)}, ${sql.lit(path)}, json(${JSON.stringify(value)}))`;
  }
}

const reference = (column) => (typeof column === 'string' ? sql.ref(column) : column);

/**
 * Expressions over the payloads of the schema registered under `name`;
 * `schema` is what setup() registers, `fpBytes` (4 unless given; 0 for
 * none) the bytes of fingerprint each payload starts with.
 */
export const shorn = (name, schema, options) => new Shorn(name, schema, options);

/**
 * Loads the extension into a synchronous client (better-sqlite3, bun:sqlite,
 * node:sqlite) and registers each schema, a changed one as its name's next version.
 */
export function setup(client, ...schemas) {
  try {
    client.prepare('SELECT shorn_version()');
  } catch {
    extension.load(client);
  }
  for (const {name, schema, fpBytes} of schemas) if (schema !== undefined) extension.register(client, name, schema, {fpBytes});
}

// A selection that is a decode(), aliased: the name its column has in the rows.
function decodedAlias(selection) {
  const {node, alias} = selection.selection;
  return node?.kind === 'RawNode' && node.sqlFragments[0] === 'shorn_decode(' ? alias?.name : undefined;
}

/** Parses the JSON text of each decode(...).as(alias) a query selects or returns into the object. */
export class ShornPlugin {
  #aliases = new WeakMap();

  transformQuery({node, queryId}) {
    const selections = node.selections ?? node.returning?.selections ?? [];
    const aliases = selections.map(decodedAlias).filter((alias) => alias !== undefined);
    if (aliases.length > 0) this.#aliases.set(queryId, aliases);
    return node;
  }

  async transformResult({result, queryId}) {
    const aliases = this.#aliases.get(queryId);
    if (aliases === undefined) return result;
    for (const row of result.rows) {
      for (const alias of aliases) if (typeof row[alias] === 'string') row[alias] = JSON.parse(row[alias]);
    }
    return result;
  }
}
