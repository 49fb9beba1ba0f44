// tests/browser/page.html in headless Chromium (Debian's chromium, driven by
// puppeteer-core): the page registers a schema, writes rows, indexes a
// member, queries and decodes, all on @sqlite.org/sqlite-wasm with shorn
// loaded by sqlite-shorn/wasm, in memory, then in a worker on an OPFS
// database written, closed and opened again; this reads what it found,
// compares it with the native build's answers (those README.md shows,
// which make check-loadable runs natively), and keeps a screenshot.
//
//   node run.mjs SHORN_WASM SCREENSHOT
//
// Run from a folder where @sqlite.org/sqlite-wasm and puppeteer-core are
// installed.  The page is served from 127.0.0.1 by a server started here,
// with the headers that give a page cross-origin isolation, as OPFS wants.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const [wasmPath, screenshot] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(join(process.cwd(), "package.json"));
const sqliteWasm = dirname(require.resolve("@sqlite.org/sqlite-wasm"));
const puppeteer = require("puppeteer-core");

// URL prefixes and the folders they are served from.
const ROUTES = [
  ["/sqlite-wasm/", sqliteWasm],
  ["/shorn/shorn.wasm", wasmPath],
  ["/shorn/", join(root, "bindings/node")],
  ["/", here],
];
const TYPES = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm" };

const server = createServer(async (request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, "http://localhost").pathname));
  const [prefix, folder] = ROUTES.find(([p]) => path.startsWith(p));
  const file = prefix.endsWith("/") ? join(folder, path.slice(prefix.length)) : folder;
  try {
    const body = await readFile(file);
    response.writeHead(200, {
      "Content-Type": TYPES[extname(file)] || "application/octet-stream",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Embedder-Policy": "require-corp",
    });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));

const EXPECTED = [
  { rows: [] },
  { rows: [] },
  { rows: [["person", 1, "a3b4e3de"]] },
  { rows: [] },
  { rows: [] },
  { rows: [] },
  { rows: [[1, "A3B4E3DE2D05477261636500"], [2, "A3B4E3DE240341646100"], [3, "A3B4E3DE2904416C616E01"]] },
  { error: "shorn_encode: Too big: expected at most 150 at $.age" },
  { rows: [] },
  { plan: "SEARCH people USING COVERING INDEX people_by_name (<expr>=?)" },
  { rows: [[2]] },
  { rows: [['{"age":45,"name":"Grace","sex":"F"}'], ['{"age":36,"name":"Ada","sex":"F"}'], ['{"age":41,"name":"Alan","sex":"M"}']] },
  { rows: [["$ $.age $.name $.sex"]] },
];

let passed = 0, failed = 0;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  // CI runs as root, where Chromium's sandbox will not start.
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.log(`page: ${e.message}`));
  await page.setViewport({ width: 1000, height: 640 });
  await page.goto(`http://127.0.0.1:${server.address().port}/page.html`);
  await page.waitForFunction("window.shornResult", { timeout: 30000 });
  const result = await page.evaluate("window.shornResult");
  await page.screenshot({ path: screenshot, fullPage: true });
  if (result.failure) {
    console.log(`page failed: ${result.failure}`);
    failed++;
  }
  // The OPFS database, written, closed and read again in a worker.
  const opfs = result.opfs || {};
  const opfsExpected = { vfs: "opfs", rows: 1000, plan: "SEARCH people USING INDEX people_by_age (<expr>=?)",
                         found: ['{"age":42,"name":"person 42"}', '{"age":42,"name":"person 142"}'] };
  for (const key of Object.keys(opfsExpected)) {
    const same = key === "plan" ? opfs.plan?.includes(opfsExpected.plan) : JSON.stringify(opfs[key]) === JSON.stringify(opfsExpected[key]);
    if (same) passed++;
    else {
      failed++;
      console.log(`OPFS ${key}: ${JSON.stringify(opfs[key])}, expected ${JSON.stringify(opfsExpected[key])}` +
                  (opfs.failure ? ` (${opfs.failure})` : ""));
    }
  }
  EXPECTED.forEach((expected, i) => {
    const got = result.steps[i];
    const same = expected.plan
      ? got?.rows?.some((row) => row[row.length - 1] === expected.plan)
      : JSON.stringify(got) === JSON.stringify(expected);
    if (same) passed++;
    else {
      failed++;
      console.log(`step ${i + 1}: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    }
  });
  console.log(`browser: Chromium ${await browser.version()}, SQLite ${result.sqlite}, shorn loaded in ` +
              `${result.loadMs?.toFixed(1)} ms; screenshot ${screenshot}`);
} finally {
  await browser.close();
  server.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
