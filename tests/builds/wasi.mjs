// node tests/builds/wasi.mjs [--cwd] MODULE.wasm [ARGUMENT...]: a
// wasm32-wasi command under Node's WASI, with HOME; its exit status is the
// command's.  The file system's root is preopened as /, so absolute paths
// reach their files; with --cwd, the current directory is preopened as .
// instead, so relative paths do (wasi-libc resolves a path in the last
// preopen that takes it, and . takes every path).
import {readFileSync} from 'node:fs';
import {WASI} from 'node:wasi';

const cwd = process.argv[2] === '--cwd';
const [file, ...args] = process.argv.slice(cwd ? 3 : 2);
const wasi = new WASI({version: 'preview1', args: [file, ...args], env: {HOME: process.env.HOME},
                      preopens: cwd ? {'.': process.cwd()} : {'/': '/'}, returnOnExit: true});
const instance = await WebAssembly.instantiate(await WebAssembly.compile(readFileSync(file)), wasi.getImportObject());
process.exitCode = wasi.start(instance);
