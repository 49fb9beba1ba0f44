// The npm packages, packed by npm pack into OUT as npm would publish them:
//   node scripts/dist-npm.mjs VERSION OUT AMALGAMATION_DIR DIST
// sqlite-shorn (bindings/node, the amalgamation in src/ for platforms with
// no package, optionalDependencies on the platform packages) and one
// sqlite-shorn-PLATFORM per binary of DIST (scripts/dist.sh), which holds
// that binary alone and declares os, cpu and libc so npm installs only
// the one for the machine.
//   node scripts/dist-npm.mjs VERSION OUT AMALGAMATION_DIR --compiled PLATFORM BINARY
// packs sqlite-shorn alone, with BINARY in lib/PLATFORM/ (make node-package).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [version, out, amalgamation, ...rest] = process.argv.slice(2);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PLATFORMS = {
  "linux-x64": { os: "linux", cpu: "x64", libc: "glibc", file: "shorn.so" },
  "linux-arm64": { os: "linux", cpu: "arm64", libc: "glibc", file: "shorn.so" },
  "linux-x64-musl": { os: "linux", cpu: "x64", libc: "musl", file: "shorn.so" },
  "win32-x64": { os: "win32", cpu: "x64", file: "shorn.dll" },
};

const main = JSON.parse(readFileSync(join(ROOT, "bindings/node/package.json"), "utf8"));
const stages = mkdtempSync(join(tmpdir(), "shorn-npm-"));
mkdirSync(out, { recursive: true });
try {
  if (rest[0] === "--compiled") {
    const [, platform, binary] = rest;
    packMain(undefined, (dir) => copy(binary, join(dir, "lib", platform, basename(binary))));
  } else {
    const dist = rest[0];
    for (const [platform, { os, cpu, libc, file }] of Object.entries(PLATFORMS)) {
      const name = `sqlite-shorn-${platform}`;
      pack(name, {
        name, version, description: `shorn for SQLite, the loadable extension for ${platform}, which sqlite-shorn loads`,
        license: main.license,
        os: [os], cpu: [cpu], ...(libc && { libc: [libc] }), files: [file],
      }, (dir) => {
        copy(join(dist, `shorn-${version}-${platform}.${file.split(".")[1]}`), join(dir, file));
        writeFileSync(join(dir, "README.md"),
          `# ${name}\n\nThe shorn SQLite extension compiled for ${platform}, which the package ` +
          "[sqlite-shorn](https://www.npmjs.com/package/sqlite-shorn) loads: install that one.\n");
      });
    }
    packMain(Object.fromEntries(Object.keys(PLATFORMS).map((p) => [`sqlite-shorn-${p}`, version])), () => {});
  }
} finally {
  rmSync(stages, { recursive: true, force: true });
}

function packMain(optionalDependencies, fill) {
  pack("sqlite-shorn", { name: main.name, version, ...main, optionalDependencies }, (dir) => {
    const written = (file) => file.endsWith("/") || file.endsWith(".wasm") || file.endsWith(".d.mts");
    for (const file of [...main.files.filter((file) => !written(file)), "README.md"]) copy(join(ROOT, "bindings/node", file), join(dir, file));
    // sqlite-shorn/drizzle's declarations again, as ES module ones for an
    // import: under TypeScript's node16 and nodenext resolution, CommonJS
    // declarations name the CommonJS copy of drizzle-orm's types, which an
    // ES module app's own drizzle-orm types do not accept.
    copy(join(ROOT, "bindings/node/drizzle.d.ts"), join(dir, "drizzle.d.mts"));
    // sqlite-shorn/wasm's module and sqlite-shorn/codec's, built by make
    // into one folder (SHORN_WASM names the first).
    const wasm = process.env.SHORN_WASM || join(ROOT, "build/wasm/shorn.wasm");
    for (const file of ["shorn.wasm", "shorn-codec.wasm"]) copy(join(wasm, "..", file), join(dir, file));
    for (const file of ["shorn.c", "shorn.h"]) copy(join(amalgamation, file), join(dir, "src", file));
    fill(dir);
  });
}

// A package staged in a folder of its own with the LICENSE, then packed.
function pack(name, manifest, fill) {
  const dir = join(stages, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  copy(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
  fill(dir);
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", resolve(out)],
                                           { cwd: dir, encoding: "utf8" }));
  console.log(`dist: ${join(out, packed.filename)} (${packed.size} bytes, ${packed.entryCount} files)`);
}

function copy(from, to) {
  mkdirSync(join(to, ".."), { recursive: true });
  copyFileSync(from, to);
}
