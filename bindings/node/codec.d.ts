/** Options of encode() and encodeJSON(). */
export interface EncodeOptions {
  /** 1-4: that many bytes of the schema's fingerprint before the value. */
  fpBytes?: number;
  /** Check the value's structure alone, not the schema's validation keywords. */
  unchecked?: boolean;
}

/** Options of decode() and decodeJSON(). */
export interface DecodeOptions {
  /** 1-4: the payload starts with that many bytes of the fingerprint, checked and skipped. */
  fpBytes?: number;
}

/** A compiled schema: values to payloads and back in this process, as the SQL functions do it. A payload is a Uint8Array: in Node and Bun, a Buffer. */
export interface Codec {
  encode(value: unknown, options?: EncodeOptions): Uint8Array;
  encodeJSON(text: string, options?: EncodeOptions): Uint8Array;
  decode(payload: Uint8Array, options?: DecodeOptions): unknown;
  decodeJSON(payload: Uint8Array, options?: DecodeOptions): string;
  /** encode() of many values: one call into the module; the payloads are views of one buffer. */
  encodeMany(values: Iterable<unknown>, options?: EncodeOptions): Uint8Array[];
  /** decode() of many payloads: one call into the module, one JSON.parse. */
  decodeMany(payloads: readonly Uint8Array[], options?: DecodeOptions): unknown[];
  /** The fingerprint in hex, `width` bytes (1-4, 3 by default). */
  fingerprint(width?: number): string;
  /** Releases the compiled schema now rather than when the codec is collected. */
  free(): void;
}

/**
 * Compiles a JSON Schema (an object, or JSON text) with the same C as the
 * extension, compiled to WebAssembly (shorn-codec.wasm, in this package).
 * `options.wasm` gives the module where the file beside codec.mjs is not
 * found, as after some bundlers.
 */
export function compile(
  schema: object | string,
  options?: { wasm?: BufferSource | URL | string | Response | WebAssembly.Module },
): Promise<Codec>;

/**
 * compile() without a Promise, for code that must answer synchronously:
 * `options.wasm` is shorn-codec.wasm's bytes or a compiled
 * WebAssembly.Module; in Node and Bun it may be left out, and the file
 * beside codec.mjs is read. A browser's main thread refuses to compile or
 * instantiate a module this large synchronously: use compile() there.
 */
export function compileSync(schema: object | string, options?: { wasm?: BufferSource | WebAssembly.Module }): Codec;
