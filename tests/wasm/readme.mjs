// bindings/node/README.md's sqlite-wasm example, run as a user would run
// it, but with this checkout's sqlite-shorn/wasm and shorn.wasm: each
// console.log must print what its comment says.
//
//   node readme.mjs SHORN_WASM
//
// Run from a folder where @sqlite.org/sqlite-wasm is installed.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [wasmPath] = process.argv.slice(2);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const readme = readFileSync(join(root, "bindings/node/README.md"), "utf8");
const example = [...readme.matchAll(/```js\n([^]*?)```/g)].map((m) => m[1]).find((js) => js.includes('"sqlite-shorn/wasm"'));
const script = example
  .replace('"sqlite-shorn/wasm"', JSON.stringify(pathToFileURL(join(root, "bindings/node/wasm.mjs")).href))
  .replace("await load(sqlite3, db);", `await load(sqlite3, db, { wasm: ${JSON.stringify(pathToFileURL(wasmPath).href)} });`);
const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((m) => m[1]);
writeFileSync("readme-example.mjs", script);
const printed = execFileSync(process.execPath, ["readme-example.mjs"], { encoding: "utf8" }).trimEnd().split("\n");
const same = expected.length > 0 && JSON.stringify(printed) === JSON.stringify(expected);
if (!same) console.log(`bindings/node/README.md's sqlite-wasm example printed ${JSON.stringify(printed)}, not ${JSON.stringify(expected)}`);
console.log(`${same ? 1 : 0} passed, ${same ? 0 : 1} failed`);
process.exit(same ? 0 : 1);
