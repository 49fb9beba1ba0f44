// bindings/node/README.md's examples of sqlite-shorn/wasm and
// sqlite-shorn/codec, run as a user runs them: from the npm package make
// node-package packs (each .wasm found beside its module, as npm installs
// it), installed with @sqlite.org/sqlite-wasm in the folder this runs in.
// Each console.log must print what its comment says.
//
//   node readme.mjs
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const readme = readFileSync(join(root, "bindings/node/README.md"), "utf8");
let passed = 0, failed = 0;
const examples = [...readme.matchAll(/```js\n([^]*?)```/g)].map((m) => m[1])
  .filter((js) => js.includes('"sqlite-shorn/wasm"') || js.includes('"sqlite-shorn/codec"'));
for (const [i, script] of examples.entries()) {
  const expected = [...script.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((m) => m[1]);
  writeFileSync(`readme-example-${i}.mjs`, script);
  const printed = execFileSync(process.execPath, [`readme-example-${i}.mjs`], { encoding: "utf8" }).trimEnd().split("\n");
  if (expected.length > 0 && JSON.stringify(printed) === JSON.stringify(expected)) passed++;
  else {
    failed++;
    console.log(`bindings/node/README.md's example ${i + 1} printed ${JSON.stringify(printed)}, not ${JSON.stringify(expected)}`);
  }
}
if (examples.length !== 2) {
  failed++;
  console.log(`bindings/node/README.md has ${examples.length} examples of sqlite-shorn/wasm and /codec, not 2`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
