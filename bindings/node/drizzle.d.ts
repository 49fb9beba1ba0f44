import type {SQL, Table} from 'drizzle-orm';
import type {SQLiteCustomColumnBuilder} from 'drizzle-orm/sqlite-core';

/** What a Zod 4, Valibot 1 or ArkType 2 schema declares (the Standard Schema interface): its output type. */
interface StandardTyped<T> {
  readonly '~standard': {readonly types?: {readonly output: T} | undefined};
}

/** The builder shorn() returns: a BLOB column whose values are T. */
export type ShornColumnBuilder<T> = SQLiteCustomColumnBuilder<{
  name: '';
  dataType: 'custom';
  columnType: 'SQLiteCustomColumn';
  data: T;
  driverParam: Uint8Array;
  enumValues: undefined;
}>;

/** A column made by shorn() whose values are T. */
interface ShornColumn<T> {
  readonly _: {readonly data: T};
  readonly columnType: 'SQLiteCustomColumn';
}

/** fpBytes: how many bytes (1-4) of the schema's fingerprint each payload starts with, 4 unless given; 0 for none. */
export interface ShornOptions {
  fpBytes?: number;
}

/**
 * A BLOB column of payloads of the schema registered under `name`. Given a
 * Zod, Valibot or ArkType schema, the column's values are its type and
 * setup() registers it (a changed schema as the name's next version); given
 * a JSON Schema, or nothing (a schema registered otherwise), the type is T.
 */
export declare function shorn<T>(name: string, schema: StandardTyped<T>, options?: ShornOptions): ShornColumnBuilder<T>;
export declare function shorn<T = unknown>(name: string, schema?: object | string,
                                           options?: ShornOptions): ShornColumnBuilder<T>;

/**
 * Loads the extension into the connection of `db` (a drizzle database on
 * better-sqlite3 or bun:sqlite, or the client itself),
 * registers the schema of each shorn() column of `tables` (a table, or an
 * object of them), a changed schema as the name's next version, and binds
 * the connection so that selected payloads come back decoded, rows of every
 * version in the newest one's shape. Given the drizzle database, its
 * selects and relational queries (`db.query`, with `with`) decode in the
 * statement; given the client, relational queries with `with` fail.
 */
export declare function setup(db: object, tables: Table | Record<string, unknown>): void;

/** shorn_decode(column, name): the column's value decoded in SQL, typed; for the asynchronous drivers. */
export declare function decoded<T>(column: ShornColumn<T>): SQL<T>;

/** shorn_extract(column, name, path), for select, where, orderBy and an index's expression. */
export declare function extract<V = unknown>(column: ShornColumn<unknown>, path: string): SQL<V>;

/** shorn_set(column, name, path, value): the payload with one value replaced, for update().set(). */
export declare function set<T>(column: ShornColumn<T>, path: string, value: unknown): SQL<T>;

/** shorn_remove(column, name, path): the payload with one optional field taken out, for update().set(). */
export declare function remove<T>(column: ShornColumn<T>, path: string): SQL<T>;

/**
 * Applies the migrations drizzle-kit generated on the connection of `db`
 * (drizzle-orm 0.x, better-sqlite3 or bun:sqlite), the extension loaded
 * first; throws, naming the shorn functions the migrations call, where
 * the connection cannot load it.
 */
export declare function migrate(db: object, config: {migrationsFolder: string; migrationsTable?: string}): void;
