/**
 * Registers shorn's SQL functions and the shorn_registry module on a
 * database of @sqlite.org/sqlite-wasm (3.53 or later): `sqlite3` is what
 * sqlite3InitModule() resolves to, `db` an oo1.DB of it, or a raw sqlite3*
 * pointer. The first call for a sqlite3 instance links shorn.wasm into it;
 * `options.wasm` gives the module (its bytes, a URL, a Response or a
 * compiled WebAssembly.Module) where the file beside this one is not found,
 * as after some bundlers. Resolves to `db`.
 */
export function load<T>(
  sqlite3: unknown,
  db: T,
  options?: { wasm?: BufferSource | URL | string | Response | WebAssembly.Module },
): Promise<T>;
