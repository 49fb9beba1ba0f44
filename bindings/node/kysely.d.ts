import type {ColumnType, Expression, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult,
  RawBuilder, RootOperationNode, UnknownRow} from 'kysely';

declare const encoded: unique symbol;
/** The type of an expression that yields a payload of T: what a ShornColumn<T> takes. */
export interface Encoded<T> {
  readonly [encoded]: T;
}
/** A payload of T as the driver returns it. */
export type Payload<T> = Uint8Array & {readonly [encoded]?: T};
/** A column of payloads of T, for the database interface: written with encode() or set(), read with decode(). */
export type ShornColumn<T> = ColumnType<Payload<T>, Encoded<T>, Encoded<T>>;

/** A column's name (or table.column), or an expression yielding a payload. */
export type PayloadReference<T> = string | Expression<Payload<T>>;

/** What a Zod 4, Valibot 1 or ArkType 2 schema declares (the Standard Schema interface): its output type. */
interface StandardTyped<T> {
  readonly '~standard': {readonly types?: {readonly output: T} | undefined};
}

/** fpBytes: how many bytes (1-4) of the schema's fingerprint each payload starts with, 4 unless given; 0 for none. */
export interface ShornOptions {
  fpBytes?: number;
}

export interface Shorn<T> {
  readonly name: string;
  readonly schema: unknown;
  readonly fpBytes: number;
  /** shorn_encode(json, name): the payload of a value, for insert values and update sets. */
  encode(value: T): RawBuilder<Encoded<T>>;
  /** shorn_decode(column, name): a payload of any version, in the newest one's shape; parsed into T by ShornPlugin when selected with .as(alias). */
  decode(column: PayloadReference<T>): RawBuilder<T>;
  /** shorn_extract(column, name, path), for select, where, orderBy and an index's expression. */
  extract<V = unknown>(column: PayloadReference<T>, path: string): RawBuilder<V>;
  /** shorn_set(column, name, path, value): the payload with one value replaced. */
  set(column: PayloadReference<T>, path: string, value: unknown): RawBuilder<Encoded<T>>;
}

/**
 * The expressions over payloads of the schema registered under `name`.
 * Given a Zod, Valibot or ArkType schema, the values are its type and
 * setup() registers it (a changed schema as the name's next version); given
 * a JSON Schema, or nothing (a schema registered otherwise), the type is T.
 */
export declare function shorn<T>(name: string, schema: StandardTyped<T>, options?: ShornOptions): Shorn<T>;
export declare function shorn<T = unknown>(name: string, schema?: object | string, options?: ShornOptions): Shorn<T>;

/**
 * Loads the extension into a synchronous client (better-sqlite3, bun:sqlite,
 * node:sqlite) and registers each schema, a changed one as its name's next version.
 */
export declare function setup(client: object, ...schemas: Shorn<any>[]): void;

/** Parses the JSON text of each decode(...).as(alias) a query selects or returns into the object. */
export declare class ShornPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode;
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>>;
}
