// node tests/builds/wasi.mjs MODULE.wasm [ARGUMENT...]: a wasm32-wasi
// command under Node's WASI, the file system's root preopened as /, so
// that absolute paths reach their files; its exit status is the command's.
import {readFileSync} from 'node:fs';
import {WASI} from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({version: 'preview1', args: [file, ...args], env: {}, preopens: {'/': '/'}, returnOnExit: true});
const instance = await WebAssembly.instantiate(await WebAssembly.compile(readFileSync(file)), wasi.getImportObject());
process.exitCode = wasi.start(instance);
