// tests/browser/page.html in headless Chromium (Debian's chromium, driven
// through the DevTools protocol on a pipe): the page registers a schema, writes rows, indexes a
// member, queries and decodes, all on @sqlite.org/sqlite-wasm with shorn
// loaded by sqlite-shorn/wasm, in memory, then in a worker on an OPFS
// database written, closed and opened again; this reads what it found,
// compares it with the native build's answers (those README.md shows,
// which make check-loadable runs natively), and keeps a screenshot.
//
//   node run.mjs SHORN_WASM SCREENSHOT
//
// Run from a folder where @sqlite.org/sqlite-wasm is installed.  The page
// is served from 127.0.0.1 by a server started here,
// with the headers that give a page cross-origin isolation, as OPFS wants.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const [wasmPath, screenshot] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(join(process.cwd(), "package.json"));
const sqliteWasm = dirname(require.resolve("@sqlite.org/sqlite-wasm"));

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

// Chromium driven over --remote-debugging-pipe: DevTools protocol messages,
// JSON ended by a NUL byte, written to its fd 3 and read from its fd 4.
function launch() {
  const chromium = spawn(process.env.CHROMIUM || "/usr/bin/chromium", [
    "--headless", "--remote-debugging-pipe", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    // CI runs as root, where Chromium's sandbox will not start.
    "--no-sandbox", "about:blank",
  ], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let stderr = "", pending = "", id = 0;
  const waiting = new Map();
  chromium.stderr.on("data", (chunk) => (stderr += chunk));
  chromium.stdio[4].on("data", (chunk) => {
    const parts = (pending + chunk).split("\0");
    pending = parts.pop();
    for (const part of parts) {
      const message = JSON.parse(part);
      const answer = waiting.get(message.id);
      if (!answer) continue;
      waiting.delete(message.id);
      if (message.error) answer.reject(new Error(`${answer.method}: ${message.error.message}`));
      else answer.resolve(message.result);
    }
  });
  chromium.on("exit", (code) => {
    for (const answer of waiting.values()) answer.reject(new Error(`chromium exited (${code}): ${stderr}`));
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    waiting.set(++id, { resolve, reject, method });
    chromium.stdio[3].write(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }) + "\0");
  });
  return { send, close: () => send("Browser.close").catch(() => {}).finally(() => chromium.kill()) };
}

let passed = 0, failed = 0;
const browser = launch();
try {
  const { product } = await browser.send("Browser.getVersion");
  const { targetId } = await browser.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await browser.send("Target.attachToTarget", { targetId, flatten: true });
  const page = (method, params) => browser.send(method, params, sessionId);
  await page("Emulation.setDeviceMetricsOverride", { width: 1000, height: 640, deviceScaleFactor: 1, mobile: false });
  await page("Page.navigate", { url: `http://127.0.0.1:${server.address().port}/page.html` });
  // The page sets window.shornResult when it is done, failed or not.
  let result;
  for (const start = Date.now(); !result && Date.now() - start < 30000;) {
    const { result: value } = await page("Runtime.evaluate", { expression: "JSON.stringify(window.shornResult)", returnByValue: true });
    if (value.value) result = JSON.parse(value.value);
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!result) throw new Error("the page set no window.shornResult in 30 s");
  const { cssContentSize } = await page("Page.getLayoutMetrics");
  const { data } = await page("Page.captureScreenshot", {
    format: "png", captureBeyondViewport: true,
    clip: { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height, scale: 1 },
  });
  await writeFile(screenshot, Buffer.from(data, "base64"));
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
  console.log(`browser: ${product}, SQLite ${result.sqlite}, shorn loaded in ` +
              `${result.loadMs?.toFixed(1)} ms; screenshot ${screenshot}`);
} finally {
  await browser.close();
  server.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
