/** Absolute path of the extension shipped for this platform and architecture; throws when there is none. */
export declare function getLoadablePath(): string;

/** What load() needs of a connection: better-sqlite3's Database has it. */
export interface Database {
  loadExtension(path: string): unknown;
}

/** Loads the extension into the connection, as db.loadExtension(getLoadablePath()). */
export declare function load(db: Database): void;
