// bindings/node/README.md's sqlite-wasm example, run as a user runs it:
// sqlite-shorn/wasm from the npm package make node-package packs (shorn.wasm
// found beside wasm.mjs, as npm installs it), installed with
// @sqlite.org/sqlite-wasm in the folder this runs in.  Each console.log
// must print what its comment says.
//
//   node readme.mjs
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const readme = readFileSync(join(root, "bindings/node/README.md"), "utf8");
const script = [...readme.matchAll(/```js\n([^]*?)```/g)].map((m) => m[1]).find((js) => js.includes('"sqlite-shorn/wasm"'));
const expected = [...script.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((m) => m[1]);
writeFileSync("readme-example.mjs", script);
const printed = execFileSync(process.execPath, ["readme-example.mjs"], { encoding: "utf8" }).trimEnd().split("\n");
const same = expected.length > 0 && JSON.stringify(printed) === JSON.stringify(expected);
if (!same) console.log(`bindings/node/README.md's sqlite-wasm example printed ${JSON.stringify(printed)}, not ${JSON.stringify(expected)}`);
console.log(`${same ? 1 : 0} passed, ${same ? 0 : 1} failed`);
process.exit(same ? 0 : 1);
