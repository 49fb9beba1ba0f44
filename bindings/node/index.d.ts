/**
 * Absolute path of the extension for this platform: the platform package's
 * binary, else one compiled into the package's lib/, else one compiled from
 * the package's src/shorn.c into the user's cache on first use (saying so
 * on stderr). Throws, naming the platform and the command that installs
 * what is missing, when there is no compiler or no SQLite header.
 */
export declare function getLoadablePath(): string;

/**
 * A synchronous connection: better-sqlite3's Database, libsql's Database,
 * node:sqlite's DatabaseSync (opened with `{allowExtension: true}`),
 * bun:sqlite's Database.
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
 * @libsql/client's Client on a local file: load() registers the extension
 * for every connection libsql opens after it; each function returns a
 * Promise for it.
 */
export interface LibsqlClient {
  execute(statement: any): Promise<unknown>;
  batch(statements: any[], mode?: any): Promise<unknown>;
}

/** A connection whose every function here answers with a Promise. */
export type AsyncDatabase = CallbackDatabase | LibsqlClient;

/**
 * What register() stores: a Zod 4, Valibot or ArkType schema (as the JSON
 * Schema the library derives), a JSON Schema object, or its text.
 */
export type Schema = string | object;

/**
 * Loads the extension into the connection; given an @libsql/client Client,
 * into every connection libsql opens from then on: call it before the
 * client's first statement.
 */
export declare function load(db: AsyncDatabase): Promise<void>;
/**
 * Loads the extension into every connection the libsql package's SQLite
 * opens from now on, as @libsql/client's are: call it before createClient().
 * Needs the libsql package, which @libsql/client installs.
 */
export declare function loadLibsql(): void;
export declare function load(db: Database): void;

/** register()'s fpBytes: how many bytes (1-4) of the fingerprint each payload of a new name starts with; 0, the default, none. */
export interface RegisterOptions {
  fpBytes?: number;
}

/**
 * Stores the schema's JSON Schema under the name in the registry
 * (shorn_schemas, created if absent) and returns the 4-byte fingerprint of
 * the name's newest version, lowercase hex: committed, or part of the
 * transaction the caller has open. A new name is version 1, its payloads
 * carrying fpBytes of the fingerprint (none by default). The same schema
 * again returns its fingerprint; a new text with the newest version's wire
 * shape replaces its text; another wire shape is the next version, which
 * reads the payloads of every earlier one (the registry's error, naming
 * each member it cannot read, when it cannot); the wire shape of an older
 * version, or fpBytes other than the name's, throws.
 */
export declare function register(db: AsyncDatabase, name: string, schema: Schema,
                                 options?: RegisterOptions): Promise<string>;
export declare function register(db: Database, name: string, schema: Schema, options?: RegisterOptions): string;

/**
 * fpBytes (1-4): the payload starts with that many bytes of the schema's
 * fingerprint (the library writes 3); a name registered with fpBytes uses
 * its own width without it.
 */
export interface Options {
  fpBytes?: number;
}

/**
 * The payload of a value (as JSON.stringify writes it) with the schema
 * registered under the name, as a Buffer on every client: encoded in this
 * process where the codec answers as SQL would, else by shorn_encode.
 */
export declare function encode(db: AsyncDatabase, name: string, value: unknown, options?: Options): Promise<Uint8Array>;
export declare function encode(db: Database, name: string, value: unknown, options?: Options): Uint8Array;

/** A payload: a Uint8Array (a Buffer), or an ArrayBuffer as @libsql/client reads a BLOB. */
export type Payload = Uint8Array | ArrayBuffer;

/**
 * The value of a payload (as JSON.parse reads it) with the schema registered
 * under the name; with a null name and fpBytes, the schema its fingerprint names.
 */
export declare function decode<T = unknown>(db: AsyncDatabase, name: string | null, payload: Payload,
                                            options?: Options): Promise<T>;
export declare function decode<T = unknown>(db: Database, name: string | null, payload: Payload, options?: Options): T;

/** encode() of each value, in one call. */
export declare function encodeMany(db: AsyncDatabase, name: string, values: readonly unknown[],
                                   options?: Options): Promise<Uint8Array[]>;
export declare function encodeMany(db: Database, name: string, values: readonly unknown[], options?: Options): Uint8Array[];

/** decode() of each payload, in one call. */
export declare function decodeMany<T = unknown>(db: AsyncDatabase, name: string | null,
                                                payloads: readonly Payload[], options?: Options): Promise<T[]>;
export declare function decodeMany<T = unknown>(db: Database, name: string | null, payloads: readonly Payload[],
                                                options?: Options): T[];
