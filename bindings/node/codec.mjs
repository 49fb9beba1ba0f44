// sqlite-shorn/codec: shorn's codec in the JavaScript process, with no
// database: a JSON Schema compiled once, then values encoded to payloads and
// payloads decoded to values by the same C as the extension, compiled to
// WebAssembly (shorn-codec.wasm, bindings/wasm/codec.c).  The bytes, and
// the messages of what it refuses, are those of shorn_encode and
// shorn_decode.
//
//   import { compile } from "sqlite-shorn/codec";
//   const person = await compile({ type: "object", ... });
//   const payload = person.encode({ name: "Grace", age: 45 });
//   person.decode(payload);

// The instance compile() is starting, and the one every codec uses, however
// it was started: the scratch block below belongs to that one.
let instance, runtime;

/**
 * Compiles a JSON Schema (an object, or JSON text) into a codec. options.wasm:
 * shorn-codec.wasm's bytes, a URL, a Response or a compiled
 * WebAssembly.Module, where the file beside this one is not found.
 */
export async function compile(schema, options = {}) {
  if (!runtime) {
    if (!instance) {
      instance = instantiate(options.wasm);
      instance.catch(() => (instance = undefined));
    }
    const exports = await instance;
    runtime ??= exports;
  }
  return new Codec(runtime, typeof schema === "string" ? schema : JSON.stringify(schema));
}

/**
 * compile() without a Promise, for callers that must answer synchronously
 * (sqlite-shorn's encode and decode): options.wasm is shorn-codec.wasm's
 * bytes or a compiled WebAssembly.Module; in Node and Bun the file beside
 * this one is read when it is left out.
 */
export function compileSync(schema, options = {}) {
  if (!runtime) {
    const wasi = wasiImports();
    runtime = started(wasi, new WebAssembly.Instance(compiledSync(options.wasm), wasi.imports));
  }
  return new Codec(runtime, typeof schema === "string" ? schema : JSON.stringify(schema));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A schema's compiled form lives in the module's memory until its codec is
// collected, or free() is called.
const released = new FinalizationRegistry(({ exports, pointer }) => exports.codec_release(pointer));

class Codec {
  #exports;
  #pointer;

  constructor(exports, text) {
    this.#exports = exports;
    const bytes = encoder.encode(text);
    this.#pointer = exports.codec_compile(copyIn(exports, bytes), bytes.length);
    if (!this.#pointer) throw new Error(`shorn: ${errorText(exports)}`);
    released.register(this, { exports, pointer: this.#pointer }, this);
  }

  /** The payload of a value, which must fit the schema and its keywords
   * (options.unchecked: its structure alone); options.fpBytes (1-4) puts
   * that many bytes of the fingerprint first. */
  encode(value, options = {}) {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError("shorn: encode() takes a value JSON can spell");
    return this.encodeJSON(text, options);
  }

  /** encode() of JSON text as it is. */
  encodeJSON(text, { fpBytes = 0, unchecked = false } = {}) {
    const exports = this.#exports;
    // UTF-8 takes at most three bytes for each UTF-16 unit: the text is
    // written straight into the module's memory.
    const at = reserve(exports, text.length * 3);
    const { written } = encoder.encodeInto(text, memory(exports).subarray(at, at + text.length * 3));
    const rc = exports.codec_encode(this.#live(), at, written, fpBytes, unchecked ? 0 : 1);
    if (rc) throw new Error(`shorn_encode${unchecked ? "_unchecked" : ""}: ${errorText(exports)}`);
    return copyOut(output(exports));
  }

  /** encode() of many values at once: one call into the module, each
   * payload a view of one Buffer (a Uint8Array outside Node and Bun). */
  encodeMany(values, { fpBytes = 0, unchecked = false } = {}) {
    const exports = this.#exports;
    const texts = Array.from(values, (value) => {
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError("shorn: encodeMany() takes values JSON can spell");
      return text;
    });
    // The lengths first, four-byte aligned, then the texts end to end, at
    // most three bytes of UTF-8 for each UTF-16 unit.
    const at = reserve(exports, texts.reduce((room, text) => room + 4 + 3 * text.length, 0));
    const start = at + 4 * texts.length;
    const lengths = new Uint32Array(exports.memory.buffer, at, texts.length);
    let offset = start;
    texts.forEach((text, i) => {
      lengths[i] = encoder.encodeInto(text, memory(exports).subarray(offset, offset + 3 * text.length)).written;
      offset += lengths[i];
    });
    const refused = exports.codec_encode_many(this.#live(), start, at, texts.length, fpBytes, unchecked ? 0 : 1);
    if (refused) throw new Error(`shorn_encode${unchecked ? "_unchecked" : ""}: ${errorText(exports)} (value ${refused - 1})`);
    // The call may have grown the memory: the lengths are read anew.
    const sizes = new Uint32Array(exports.memory.buffer, at, texts.length);
    const all = copyOut(output(exports));
    let from = 0;
    return Array.from(sizes, (size) => all.subarray(from, (from += size)));
  }

  /** The value a payload holds; options.fpBytes (1-4): the payload starts
   * with that many bytes of the schema's fingerprint, checked and skipped. */
  decode(payload, options = {}) {
    return JSON.parse(this.decodeJSON(payload, options));
  }

  /** decode() as JSON text, keys in the order shorn_decode writes them. */
  decodeJSON(payload, { fpBytes = 0 } = {}) {
    if (!(payload instanceof Uint8Array)) {
      throw new TypeError(`shorn: decode() takes the payload as a Uint8Array or Buffer, not ${Object.prototype.toString.call(payload)}`);
    }
    const exports = this.#exports;
    const at = copyIn(exports, payload);
    if (exports.codec_decode(this.#live(), at, payload.length, fpBytes)) throw new Error(`shorn_decode: ${errorText(exports)}`);
    return outputText(exports);
  }

  /** decode() of many payloads at once: one call into the module, one
   * JSON.parse. */
  decodeMany(payloads, { fpBytes = 0 } = {}) {
    const exports = this.#exports;
    let total = 0;
    for (const payload of payloads) {
      if (!(payload instanceof Uint8Array)) {
        throw new TypeError(`shorn: decodeMany() takes payloads as Uint8Arrays or Buffers, not ${Object.prototype.toString.call(payload)}`);
      }
      total += payload.length;
    }
    // The lengths first, four-byte aligned, then the payloads end to end.
    const at = reserve(exports, 4 * payloads.length + total);
    const lengths = new Uint32Array(exports.memory.buffer, at, payloads.length);
    const bytes = new Uint8Array(exports.memory.buffer, at + 4 * payloads.length, total);
    let offset = 0;
    payloads.forEach((payload, i) => {
      lengths[i] = payload.length;
      bytes.set(payload, offset);
      offset += payload.length;
    });
    const refused = exports.codec_decode_many(this.#live(), at + 4 * payloads.length, at, payloads.length, fpBytes);
    if (refused) throw new Error(`shorn_decode: ${errorText(exports)} (payload ${refused - 1})`);
    return JSON.parse(outputText(exports));
  }

  /** The fingerprint in hex, 3 bytes by default, as shorn_fingerprint. */
  fingerprint(width = 3) {
    if (this.#exports.codec_fingerprint(this.#live(), width)) throw new Error(`shorn_fingerprint: ${errorText(this.#exports)}`);
    return (this.#exports.codec_fingerprint_value() >>> 0).toString(16).padStart(width * 2, "0");
  }

  /** Releases the compiled schema now rather than when the codec is collected. */
  free() {
    if (!this.#pointer) return;
    released.unregister(this);
    this.#exports.codec_release(this.#pointer);
    this.#pointer = 0;
  }

  #live() {
    if (!this.#pointer) throw new Error("shorn: this codec was freed");
    return this.#pointer;
  }
}

// A block of the module's memory for a call's input, kept from call to
// call and grown when too small: a malloc and a free a call would cost more
// than a small value's encoding does.
let scratch = 0, scratchSize = 0;
function reserve(exports, size) {
  if (size > scratchSize) {
    if (scratch) exports.codec_free(scratch);
    scratchSize = Math.max(size, 2 * scratchSize, 256);
    scratch = exports.codec_alloc(scratchSize);
    if (!scratch) {
      scratchSize = 0;
      throw new Error("shorn: out of memory");
    }
  }
  return scratch;
}

// Views of the module's memory, kept while it does not grow (growing
// detaches them): a view a call would cost as much as a small payload's
// decoding.  Where the host has Node's Buffer, one over the memory reads
// UTF-8 text in less time than a TextDecoder.
let heap = new Uint8Array(0), heapText;
function memory(exports) {
  if (heap.byteLength === 0) {
    heap = new Uint8Array(exports.memory.buffer);
    heapText = globalThis.Buffer?.from(exports.memory.buffer);
  }
  return heap;
}

// The bytes copied into the scratch block; where they start.
function copyIn(exports, bytes) {
  const at = reserve(exports, bytes.length);
  memory(exports).set(bytes, at);
  return at;
}

// What the last call wrote, as a view of the module's memory (valid until
// the next call).
function output(exports) {
  const at = exports.codec_output();
  return memory(exports).subarray(at, at + exports.codec_output_length());
}

// A payload out of the module's memory: in Node and Bun a Buffer, which
// takes a small one from a shared pool where a Uint8Array of its own needs
// a new ArrayBuffer.
const copyOut = globalThis.Buffer ? (view) => globalThis.Buffer.from(view) : (view) => view.slice();

// What the last call wrote, as text.
function outputText(exports) {
  const at = exports.codec_output(), end = at + exports.codec_output_length();
  memory(exports);
  return heapText ? heapText.toString("utf8", at, end) : decoder.decode(heap.subarray(at, end));
}

function errorText(exports) {
  const bytes = new Uint8Array(exports.memory.buffer, exports.codec_error());
  return decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
}

async function instantiate(source) {
  if (source === undefined) source = new URL("./shorn-codec.wasm", import.meta.url);
  let module = source;
  if (!(source instanceof WebAssembly.Module)) {
    if (source instanceof URL || typeof source === "string") {
      const url = new URL(source, import.meta.url);
      if (url.protocol === "file:") {
        const { readFile } = await import("node:fs/promises");
        source = await readFile(url);
      } else source = await fetch(url);
    }
    if (typeof Response !== "undefined" && source instanceof Response) source = await source.arrayBuffer();
    module = await WebAssembly.compile(source);
  }
  // A browser's main thread refuses to instantiate a module this large
  // synchronously, so this route waits for the instance.
  const wasi = wasiImports();
  return started(wasi, await WebAssembly.instantiate(module, wasi.imports));
}

// The module from bytes or as given, without waiting: Node and Bun compile
// a module of any size synchronously.  Left out, it is the file beside this
// one, read through Node's fs where the host has it.
function compiledSync(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source === undefined) {
    const fs = globalThis.process?.getBuiltinModule?.("node:fs");
    if (!fs) throw new Error("shorn: compileSync() takes options.wasm (shorn-codec.wasm's bytes or a WebAssembly.Module) here");
    source = fs.readFileSync(new URL("./shorn-codec.wasm", import.meta.url));
  }
  return new WebAssembly.Module(source);
}

// wasi-libc's start-up asks for the environment, and its stdio could
// write: the codec has no environment, and never prints.  The memory is
// the instance's, known once it exists.
function wasiImports() {
  const wasi = { memory: undefined };
  const view = () => new DataView(wasi.memory.buffer);
  wasi.imports = {
    wasi_snapshot_preview1: {
      environ_sizes_get: (count, size) => {
        view().setUint32(count, 0, true);
        view().setUint32(size, 0, true);
        return 0;
      },
      environ_get: () => 0,
      fd_write: () => 8,
      fd_seek: () => 8,
      fd_close: () => 8,
      proc_exit: (code) => {
        throw new Error(`shorn: the codec exited (${code})`);
      },
    },
  };
  return wasi;
}

// The instance's exports once wasi-libc has started.
function started(wasi, instance) {
  wasi.memory = instance.exports.memory;
  instance.exports._initialize();
  return instance.exports;
}
