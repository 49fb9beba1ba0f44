// ajv, with its formats, on the cases run.py puts to shorn: per file of
// suite/draft2020-12, the tests, those whose schema ajv compiles, and those
// on which its verdict is the suite's.  Printed as JSON for run.py's table.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = import.meta.dirname;
const suite = join(here, "suite", "draft2020-12");
const remotes = join(here, "suite", "remotes");

function jsonFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith(".json") ? [path] : [];
  });
}

// The remotes served at http://localhost:1234/ that draft 2020-12's cases
// read: those outside the folders of other drafts (draft4/, v1/, ...), whose
// dialects ajv/dist/2020 does not know.
const served = jsonFiles(remotes)
  .map((path) => relative(remotes, path))
  .filter((name) => name.startsWith("draft2020-12/") || !/^(draft|v)\d/.test(name))
  .map((name) => [`http://localhost:1234/${name}`, JSON.parse(readFileSync(join(remotes, name), "utf8"))]);

const ajv = new Ajv2020({ strict: false, logger: false });
addFormats(ajv);
for (const [url, schema] of served) ajv.addSchema(schema, url);
const remoteIds = new Set(Object.keys(ajv.refs));

// Cases reuse $id values: what a case's compile adds goes before the next
// compiles, so that one instance (fast to set up once) serves all.
function forget(schema) {
  if (typeof schema === "object") ajv.removeSchema(schema);
  for (const id of Object.keys(ajv.refs)) if (!remoteIds.has(id)) ajv.removeSchema(id);
}

// A validator that throws (a $ref that loops without reading the value runs
// out of stack) answers neither way.
function verdict(validate, data) {
  try {
    return validate(data);
  } catch {
    return undefined;
  }
}

const figures = {};
for (const path of jsonFiles(suite)) {
  const row = { tests: 0, compiled: 0, agree: 0 };
  figures[relative(suite, path).replace(/\.json$/, "")] = row;
  for (const c of JSON.parse(readFileSync(path, "utf8"))) {
    row.tests += c.tests.length;
    let validate;
    try {
      validate = ajv.compile(c.schema);
    } catch {
      continue;
    } finally {
      forget(c.schema);
    }
    row.compiled += c.tests.length;
    for (const t of c.tests) if (verdict(validate, t.data) === t.valid) row.agree++;
  }
}
console.log(JSON.stringify(figures));
