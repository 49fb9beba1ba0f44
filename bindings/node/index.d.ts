/**
 * Absolute path of the extension for this platform: the platform package's
 * binary, else one compiled into the package's lib/, else one compiled from
 * the package's src/shorn.c into the user's cache on first use (saying so
 * on stderr). Throws, naming the platform and the command that installs
 * what is missing, when there is no compiler or no SQLite header.
 */
export declare function getLoadablePath(): string;

/**
 * A synchronous connection: better-sqlite3's Database, node:sqlite's
 * DatabaseSync (opened with `{allowExtension: true}`), bun:sqlite's Database.
 */
export interface Database {
  loadExtension(path: string): unknown;
  prepare(sql: string): unknown;
}

/** node-sqlite3's Database, which answers through callbacks: each function returns a Promise for it. */
export interface CallbackDatabase {
  loadExtension(path: string, callback?: (error: Error | null) => void): unknown;
  each(sql: string, ...parameters: any[]): unknown;
}

/**
 * What register() stores: a Zod 4, Valibot or ArkType schema (as the JSON
 * Schema the library derives), a JSON Schema object, or its text.
 */
export type Schema = string | object;

/** Loads the extension into the connection. */
export declare function load(db: CallbackDatabase): Promise<void>;
export declare function load(db: Database): void;

/**
 * Stores the schema's JSON Schema under the name in the registry
 * (shorn_schemas, created if absent) and returns its 4-byte fingerprint,
 * lowercase hex. Registering a name again takes the new text when the wire
 * shape is the same, and throws the registry's error when it is not.
 */
export declare function register(db: CallbackDatabase, name: string, schema: Schema): Promise<string>;
export declare function register(db: Database, name: string, schema: Schema): string;

/** The payload of a value (as JSON.stringify writes it) with the schema registered under the name. */
export declare function encode(db: CallbackDatabase, name: string, value: unknown): Promise<Uint8Array>;
export declare function encode(db: Database, name: string, value: unknown): Uint8Array;

/** The value of a payload (as JSON.parse reads it) with the schema registered under the name. */
export declare function decode<T = unknown>(db: CallbackDatabase, name: string, payload: Uint8Array): Promise<T>;
export declare function decode<T = unknown>(db: Database, name: string, payload: Uint8Array): T;
