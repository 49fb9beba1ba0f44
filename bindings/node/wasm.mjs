// sqlite-shorn/wasm: shorn's SQL functions and its registry on a database of
// @sqlite.org/sqlite-wasm, which cannot load extensions.
//
//   import sqlite3InitModule from "@sqlite.org/sqlite-wasm";
//   import { load } from "sqlite-shorn/wasm";
//   const sqlite3 = await sqlite3InitModule();
//   const db = new sqlite3.oo1.DB(":memory:");
//   await load(sqlite3, db);
//
// shorn.wasm is the extension's C, built position-independent, as a shared
// library is (scripts/build-wasm.sh).  It is linked here into sqlite-wasm's
// own instance as a dynamic loader links a library into a process: its data
// goes into memory that sqlite3_malloc gives, its functions into free slots
// of sqlite-wasm's function table, and its calls to SQLite straight to
// sqlite-wasm's exports.  SQLite then calls shorn's functions as it calls
// its own, values pass by pointer, and no JavaScript runs in a row.

// The stack of shorn's own calls, apart from sqlite-wasm's.  The schema
// compiler and the walkers recurse once a level of nesting, as deep as the
// extension's nesting limits let them, and WebAssembly has no guard page to
// stop an overflow before it writes over sqlite-wasm's heap: so the stack
// holds a few times what those limits let a call use.
const STACK_BYTES = 2 << 20;

// One linked module per sqlite-wasm instance: a promise of the exports of
// shorn.wasm, kept from the first call on, so that calls made before the
// first one finishes link it once.
const linked = new WeakMap();

/**
 * Registers shorn's SQL functions and the shorn_registry module on db, an
 * oo1.DB of sqlite3 (what sqlite3InitModule() resolves to), or a raw
 * sqlite3* pointer. options.wasm: shorn.wasm's bytes, a URL, a Response or a
 * compiled WebAssembly.Module, where the file beside this one is not found.
 */
export async function load(sqlite3, db, options = {}) {
  let linking = linked.get(sqlite3);
  if (!linking) {
    linking = compile(options.wasm).then((module) => link(sqlite3, module));
    linked.set(sqlite3, linking);
    // A failed link may be tried again, with another options.wasm.
    linking.catch(() => linked.delete(sqlite3));
  }
  const shorn = await linking;
  const pointer = typeof db === "number" ? db : db.pointer;
  if (!pointer) throw new TypeError("sqlite-shorn/wasm: load needs an open oo1.DB or a sqlite3* pointer");
  const rc = shorn.sqlite3_shorn_init(pointer, 0, 0);
  if (rc !== 0) {
    throw new Error(`sqlite-shorn/wasm: ${sqlite3.capi.sqlite3_errmsg(pointer) || sqlite3.capi.sqlite3_errstr(rc)}`);
  }
  return db;
}

async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source === undefined) source = new URL("./shorn.wasm", import.meta.url);
  if (source instanceof URL || typeof source === "string") {
    const url = new URL(source, import.meta.url);
    if (url.protocol === "file:") {
      const { readFile } = await import("node:fs/promises");
      return WebAssembly.compile(await readFile(url));
    }
    source = await fetch(url);
  }
  if (typeof Response !== "undefined" && source instanceof Response) {
    if (!source.ok) throw new Error(`sqlite-shorn/wasm: ${source.url}: HTTP ${source.status}`);
    source = await source.arrayBuffer();
  }
  return WebAssembly.compile(source);
}

// The memory and table a position-independent module asks for, from its
// dylink.0 section: sizes, and alignments as powers of two.
function dylinkInfo(module) {
  const [section] = WebAssembly.Module.customSections(module, "dylink.0");
  if (!section) throw new Error("sqlite-shorn/wasm: shorn.wasm is not a position-independent module");
  const bytes = new Uint8Array(section);
  let at = 0;
  const leb = () => {
    let value = 0, shift = 0, byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  while (at < bytes.length) {
    const kind = bytes[at++], size = leb(), end = at + size;
    if (kind === 1) {
      return { memorySize: leb(), memoryAlign: 2 ** leb(), tableSize: leb(), tableAlign: 2 ** leb() };
    }
    at = end;
  }
  return { memorySize: 0, memoryAlign: 1, tableSize: 0, tableAlign: 1 };
}

function link(sqlite3, module) {
  const wasm = sqlite3.wasm, exports = wasm.exports;
  const memory = wasm.memory || exports.memory;
  const table = exports.__indirect_function_table;
  const info = dylinkInfo(module);
  const allocate = (bytes, align) => {
    // Never freed: the functions live as long as the instance they are in.
    const raw = exports.sqlite3_malloc(bytes + align);
    if (!raw) throw new Error("sqlite-shorn/wasm: out of memory");
    return Math.ceil(raw / align) * align;
  };
  const memoryBase = allocate(info.memorySize, Math.max(info.memoryAlign, 16));
  // The module's zero-initialized data is not written by its segments.
  new Uint8Array(memory.buffer, memoryBase, info.memorySize).fill(0);
  const stackBase = allocate(STACK_BYTES, 16);
  const tableBase = table.grow(info.tableSize + info.tableAlign);
  const alignedTableBase = Math.ceil(tableBase / info.tableAlign) * info.tableAlign;
  const global = (value, mutable = false) => new WebAssembly.Global({ value: "i32", mutable }, value);
  const env = {
    memory,
    __indirect_function_table: table,
    __memory_base: global(memoryBase),
    __table_base: global(alignedTableBase),
    __stack_pointer: global(stackBase + STACK_BYTES, true),
  };
  const got = {};
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    if (from === "env" && kind === "function") {
      if (typeof exports[name] !== "function") {
        throw new Error(`sqlite-shorn/wasm: this sqlite-wasm build does not export ${name}`);
      }
      env[name] = exports[name];
    } else if (from === "GOT.func") {
      // A SQLite function whose address shorn takes (sqlite3_free, as a
      // destructor): it gets a slot of its own in the table.
      const slot = table.grow(1);
      table.set(slot, exports[name]);
      got[name] = global(slot, true);
    }
  }
  const instance = new WebAssembly.Instance(module, { env, "GOT.func": got, "GOT.mem": {} });
  const own = instance.exports;
  if (own.__wasm_apply_data_relocs) own.__wasm_apply_data_relocs();
  if (own.__wasm_call_ctors) own.__wasm_call_ctors();
  return own;
}
