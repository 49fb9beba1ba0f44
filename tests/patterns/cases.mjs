// The cases tests/patterns/compare.c checks ext/core/regex/pattern.c with: JSON
// Schema patterns and strings, each answered by V8 as `new RegExp(p).test(s)`
// answers it, with the flags shorn chooses.  The patterns are every
// "pattern" of the repository's tests and docs, those Zod, Valibot and
// ArkType emit (tests/validators/schemas.mjs's output, given as an argument),
// and patterns generated over JavaScript's grammar, Annex B's oddities and
// invalid ones among them.  Seeded: the same cases every run, others with
// another seed.
//
//   [PATTERNS_SEED=N] node tests/patterns/cases.mjs VALIDATORS.jsonl > CASES
//
// The case file, one record a line, text as WTF-8 in hex (an empty string
// is "-"), so that a lone surrogate reaches C exactly:
//   P <reading> <pattern> <origin>   reading: "-" no flags, "u", or "!" when
//                                    JavaScript refuses the pattern
//   S <match 0|1> <lone surrogate 0|1> <string>   strings of the P before
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";

// A generated pattern that backtracks catastrophically would hold V8 for
// minutes; its linear engine takes over after so many backtracks and
// answers the same.
v8.setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");

const ROOT = join(fileURLToPath(import.meta.url), "../../..");
const SEED = Number(process.env.PATTERNS_SEED ?? 0x5eed2026);
const GENERATED_PATTERNS = 5000;
const CLASS_RUNS = 400;
const STRINGS_PER_PATTERN = 24;

// mulberry32: small, and the same sequence on every machine.
let state = SEED;
const random = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const below = (n) => Math.floor(random() * n);
const choose = (list) => list[below(list.length)];
const chance = (p) => random() < p;
const times = (n, f) => Array.from({ length: n }, (_, i) => f(i));

// ---- shorn's reading of a pattern (ext/core/regex/pattern.c) ----------------------

// \p, \P and \u{ mean something only with `u`: such a pattern is read with it.
const wantsUnicode = (p) => {
  for (let i = 0; i + 1 < p.length; i++) {
    if (p[i] !== "\\") continue;
    if (p[i + 1] === "p" || p[i + 1] === "P" || (p[i + 1] === "u" && i + 2 < p.length && p[i + 2] === "{")) return true;
    i++;
  }
  return false;
};

const compile = (p, flags) => {
  try {
    return new RegExp(p, flags);
  } catch (e) {
    if (e instanceof SyntaxError) return null;
    throw e;
  }
};

// Without flags, and with `u` when only that reading is JavaScript's.
const readingOf = (p) => {
  if (wantsUnicode(p)) {
    const re = compile(p, "u");
    return re && { re, unicode: true };
  }
  const plain = compile(p, "");
  if (plain) return { re: plain, unicode: false };
  const re = compile(p, "u");
  return re && { re, unicode: true };
};

const isHigh = (u) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u) => u >= 0xdc00 && u <= 0xdfff;

const hasLoneSurrogate = (s) => {
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (isHigh(u) && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) i++;
    else if (isHigh(u) || isLow(u)) return true;
  }
  return false;
};

// WTF-8: a pair as its code point's four bytes, a lone surrogate as three.
const wtf8Hex = (s) => {
  const bytes = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (isHigh(c) && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) {
      c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
    }
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes.length ? Buffer.from(bytes).toString("hex") : "-";
};

// ---- Unicode 15.0, as shorn's tables have it ---------------------------------

// Node's tables are Unicode 17's, shorn's 15.0's (Debian's unicode-data): a
// \p pattern is tested on code points 15.0 had assigned, and whose
// properties Node gives as 15.0 does.
const UCD = "/usr/share/unicode";

// A UCD file's "range ; value" lines: [from, to, value].
const ucdRanges = (file) =>
  readFileSync(join(UCD, file), "utf8")
    .split("\n")
    .map((line) => /^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*([^#]*?)\s*(?:#|$)/.exec(line))
    .filter(Boolean)
    .map((m) => [parseInt(m[1], 16), parseInt(m[2] ?? m[1], 16), m[3]]);

const AGES = ucdRanges("DerivedAge.txt")
  .filter(([, , age]) => Number(age.split(".")[0]) <= 15)
  .sort((a, b) => a[0] - b[0]);
const ASSIGNED = AGES.map(([from, to]) => [from, to]);
// What 14.0 and 15.0 added: where tables of an older Unicode read otherwise.
const RECENT = AGES.filter(([, , age]) => age === "14.0" || age === "15.0");

// The properties JavaScript's \\p{…} names, by the files that define
// them: [from, to, value] each, a code point's values those whose range
// holds it.
const CATEGORY = ucdRanges("extracted/DerivedGeneralCategory.txt");
const SCRIPT = ucdRanges("Scripts.txt");
const EXTENSIONS = ucdRanges("ScriptExtensions.txt");
const BINARY = ["PropList.txt", "DerivedCoreProperties.txt", "emoji/emoji-data.txt", "extracted/DerivedBinaryProperties.txt"]
  .flatMap(ucdRanges)
  .filter(([, , name]) => compile(`\\p{${name}}`, "u"));
const valuesAt = (ranges, c) => ranges.filter(([from, to]) => from <= c && c <= to).map(([, , value]) => value);

const regexOf = (source) => new RegExp(`^${source}$`, "u");
const testsOf = (ranges, spell) => [...new Set(ranges.map(([, , v]) => v))].map((v) => [v, regexOf(spell(v))]);
const BINARY_TESTS = testsOf(BINARY, (name) => `\\p{${name}}`);
const SCRIPT_TESTS = testsOf(SCRIPT, (name) => `\\p{scx=${name}}`);
// ScriptExtensions.txt names scripts by their codes, Scripts.txt by name.
const SCRIPT_NAMES = new Map(
  [...readFileSync(join(UCD, "PropertyValueAliases.txt"), "utf8").matchAll(/^sc ; (\w+) *; (\w+)/gm)].map((m) => [m[1], m[2]]),
);

const isAssigned = (c) => {
  let lo = 0, hi = ASSIGNED.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < ASSIGNED[mid][0]) hi = mid - 1;
    else if (c > ASSIGNED[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
};

// Assigned in 15.0, and its category, script, script extensions and binary
// properties in Node those of 15.0.
const stable = new Map();
const isStable = (c) => {
  if (stable.has(c)) return stable.get(c);
  const ch = String.fromCodePoint(c);
  const category = valuesAt(CATEGORY, c)[0] ?? "Cn";
  const extensions = valuesAt(EXTENSIONS, c).flatMap((codes) => codes.split(" ").map((code) => SCRIPT_NAMES.get(code)));
  const scripts = extensions.length ? extensions : valuesAt(SCRIPT, c);
  const binary = new Set(valuesAt(BINARY, c));
  const ok =
    isAssigned(c) &&
    regexOf(`\\p{gc=${category}}`).test(ch) &&
    SCRIPT_TESTS.every(([name, re]) => re.test(ch) === scripts.includes(name)) &&
    BINARY_TESTS.every(([name, re]) => re.test(ch) === binary.has(name));
  stable.set(c, ok);
  return ok;
};

const allStable = (s) => [...s].every((ch) => isStable(ch.codePointAt(0)));

// A range first, then a point in it: small ranges (scripts, emoji) come up
// as often as the large CJK and private-use blocks.
const characterOf = (ranges) => {
  const [from, to] = choose(ranges);
  return String.fromCodePoint(from + below(Math.min(to - from + 1, 4096)));
};
const assignedCharacter = () => characterOf(ASSIGNED);

// ---- the repository's patterns ----------------------------------------------

const found = new Map(); // source -> { origin, strings }
const addPattern = (source, origin, strings = []) => {
  if (!found.has(source)) found.set(source, { origin, strings: [] });
  found.get(source).strings.push(...strings);
};

// A JSON string after a "pattern" key (quoted as in JSON, or a bare key as
// in JavaScript).
const JSON_PATTERN = /(?:"pattern"|\bpattern)\s*:\s*("(?:[^"\\\n]|\\.)*")/g;
const patternsInText = (text, origin) => {
  for (const m of text.matchAll(JSON_PATTERN)) {
    try {
      addPattern(JSON.parse(m[1]), origin);
    } catch {
      // not JSON's escapes (a JavaScript string's \x, say): not a pattern we can read
    }
  }
};

// A C string literal's bytes, decoded as WTF-8 (null when they are not).
const decodeC = (body) => {
  const bytes = [];
  const utf8 = (s) => bytes.push(...Buffer.from(s, "utf8"));
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== "\\") {
      utf8(body[i]);
      continue;
    }
    const c = body[++i];
    const simple = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, "\\": 92, '"': 34, "'": 39, "?": 63 };
    if (c in simple) bytes.push(simple[c]);
    else if (c === "x") {
      const m = /^[0-9a-fA-F]+/.exec(body.slice(i + 1));
      bytes.push(parseInt(m[0], 16) & 255);
      i += m[0].length;
    } else if (/[0-7]/.test(c)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i));
      bytes.push(parseInt(m[0], 8) & 255);
      i += m[0].length - 1;
    } else if (c === "u" || c === "U") {
      const n = c === "u" ? 4 : 8;
      utf8(String.fromCodePoint(parseInt(body.slice(i + 1, i + 1 + n), 16)));
      i += n;
    } else return null;
  }
  return wtf8Decode(Buffer.from(bytes));
};

const wtf8Decode = (b) => {
  let s = "";
  for (let i = 0; i < b.length; ) {
    const x = b[i];
    const n = x < 0x80 ? 1 : x >= 0xf0 && x < 0xf5 ? 4 : x >= 0xe0 ? 3 : x >= 0xc2 ? 2 : 0;
    if (!n || i + n > b.length) return null;
    let c = n === 1 ? x : x & (0xff >> (n + 1));
    for (let k = 1; k < n; k++) {
      if ((b[i + k] & 0xc0) !== 0x80) return null;
      c = (c << 6) | (b[i + k] & 63);
    }
    if ((n === 3 && c < 0x800) || (n === 4 && (c < 0x10000 || c > 0x10ffff))) return null;
    s += String.fromCodePoint(c);
    i += n;
  }
  return s;
};

// The string literals of C source, adjacent ones joined, comments and
// character constants skipped: [text, offset] pairs.
const cLiterals = (source) => {
  const out = [];
  let i = 0, last = null;
  while (i < source.length) {
    const c = source[i];
    if (source.startsWith("//", i)) i = source.indexOf("\n", i) >>> 0;
    else if (source.startsWith("/*", i)) i = source.indexOf("*/", i + 2) >>> 0;
    else if (c === "'") i = /^'(?:[^'\\]|\\.)*'/.exec(source.slice(i, i + 16))[0].length + i;
    else if (c === '"') {
      const m = /^"((?:[^"\\\n]|\\.)*)"/.exec(source.slice(i));
      const text = decodeC(m[1]);
      if (last && /^\s*$/.test(source.slice(last.end, i)) && last.text !== null && text !== null) last.text += text;
      else out.push((last = { text, start: i, end: 0 }));
      i += m[0].length;
      last.end = i;
    } else i++;
  }
  return out.filter((l) => l.text !== null);
};

// A C test's table of patterns: rows {"pattern", S("text"), match} (their
// texts are strings for it too) and the first column of *pattern*[] tables.
const patternsInC = (source, origin) => {
  const literals = cLiterals(source);
  for (const l of literals) patternsInText(l.text, origin);
  const ROW = /\{\s*"((?:[^"\\\n]|\\.)*)"\s*,\s*S\(\s*"((?:[^"\\\n]|\\.)*)"\s*\)/g;
  for (const m of source.matchAll(ROW)) {
    const [p, s] = [decodeC(m[1]), decodeC(m[2])];
    if (p !== null) addPattern(p, origin, s === null ? [] : [s]);
  }
  for (const table of source.matchAll(/\w*pattern\w*\[\][^=;]*=\s*\{([\s\S]*?)\n\};/g)) {
    for (const m of table[1].matchAll(/\{\s*"((?:[^"\\\n]|\\.)*)"/g)) {
      const p = decodeC(m[1]);
      if (p !== null) addPattern(p, origin);
    }
  }
};

const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => {
      const path = join(dir, e.name);
      // tests/patterns holds this file, whose patterns come in below
      if (e.isDirectory()) return e.name === "node_modules" || e.name === "patterns" ? [] : filesUnder(path);
      return [path];
    });

const TEXT_FILE = /\.(json|jsonl|sql|expected|mjs|js|py|sh|md|dict|c|h)$/;
const repositoryFiles = [
  ...filesUnder(join(ROOT, "tests")),
  ...filesUnder(join(ROOT, "docs")),
  join(ROOT, "README.md"),
].filter((f) => TEXT_FILE.test(f));

for (const file of repositoryFiles) {
  const text = readFileSync(file, "utf8");
  const origin = relative(ROOT, file);
  if (/\.[ch]$/.test(file)) patternsInC(text, origin);
  else if (/\.(sql|expected|md)$/.test(file)) patternsInText(text.replaceAll("''", "'"), origin); // SQL's quoting
  else patternsInText(text, origin);
}

// ---- the validators' patterns -----------------------------------------------

const walkPatterns = (x, origin) => {
  if (Array.isArray(x)) x.forEach((y) => walkPatterns(y, origin));
  else if (x && typeof x === "object") {
    for (const [k, v] of Object.entries(x)) {
      if (k === "pattern" && typeof v === "string") addPattern(v, origin);
      walkPatterns(v, origin);
    }
  }
};

const validatorsFile = process.argv[2];
if (!validatorsFile) throw new Error("usage: cases.mjs VALIDATORS.jsonl (tests/validators/schemas.mjs's output)");
for (const line of readFileSync(validatorsFile, "utf8").split("\n")) {
  if (!line) continue;
  const c = JSON.parse(line);
  const origin = `validators: ${c.lib} "${c.name}"`;
  if (c.schema) walkPatterns(JSON.parse(c.schema), origin);
  walkPatterns(c.jsonSchema, origin);
}

// ---- generated patterns -----------------------------------------------------

// A node of a generated pattern: its source, and a string it likely
// matches (V8 decides; captures are recorded for backreferences).
const node = (src, sample) => ({ src, sample });
const lit = (src, text) => node(src, () => text);

const LETTERS = [..."abcxyzABZ019_- é"];
const SYNTAX = [..."^$\\.*+?()[]{}|/"];
const ASTRAL = ["😀", "🙏", "𝒜", "\u{1F1E6}\u{1F1FF}", "👍🏽", "\u{E0061}"];

const escapedCharacter = () =>
  choose([
    () => { const c = choose(SYNTAX); return lit("\\" + c, c); },
    () => lit("\\x41", "A"), () => lit("\\u00e9", "é"), () => lit("\\uD83D\\uDE00", "😀"), () => lit("\\uD83D", "\uD83D"),
    () => lit("\\t", "\t"), () => lit("\\n", "\n"), () => lit("\\r", "\r"), () => lit("\\v", "\v"), () => lit("\\f", "\f"),
    () => lit("\\cJ", "\n"), () => lit("\\ca", "\x01"), () => lit("\\0", "\0"),
  ])();

// Annex B: legacy octal, \8, a \c that is no control, identity escapes.
const annexBEscape = () =>
  choose([
    () => lit("\\101", "A"), () => lit("\\00", "\0"), () => lit("\\377", "\xff"), () => lit("\\400", " 0"),
    () => lit("\\8", "8"), () => lit("\\9", "9"), () => lit("\\c", "\\c"), () => lit("\\c1", "\\c1"),
    () => lit("\\q", "q"), () => lit("\\-", "-"), () => lit("\\/", "/"), () => lit("\\k", "k"), () => lit("\\e", "e"),
    () => lit("\\x4", "x4"), () => lit("\\u12", "u12"),
  ])();

// A generated pattern is written for one reading: most without flags, with
// Annex B's forms; some with \p{…} and \u{…}, which make it `u`, without
// them.  Now and then a construct of the other reading comes in, so that
// some patterns are refused.
const mode = { unicode: false };
const ofOtherMode = () => chance(0.03);

const ANY_SAMPLES = ["a", "\n", "\r", "\u2028", " ", "😀", "\uD83D", "é", "Z", "-"];
const classEscape = () =>
  choose([
    lit("\\d", "7"), lit("\\D", "x"), lit("\\w", "_"), lit("\\W", "!"), lit("\\s", "\u00a0"), lit("\\S", "s"),
    node("\\s", () => choose([" ", "\t", "\ufeff", "\u2028", "\u3000", "\u180e"])),
  ]);

const PROPERTIES = [
  "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "N", "Nd", "Nl", "P", "S", "Sm", "Sc", "So", "Z", "Zs", "C", "Cc", "Cf",
  "Co", "Cn", "Letter", "Uppercase_Letter", "Decimal_Number", "Punctuation", "gc=Nd", "General_Category=Lu",
  "Script=Greek", "sc=Han", "sc=Latn", "Script=Cyrillic", "scx=Deva", "Script_Extensions=Arab", "sc=Hira",
  "Emoji", "Emoji_Presentation", "Emoji_Modifier", "Extended_Pictographic", "Regional_Indicator", "ASCII", "Any",
  "Assigned", "Alphabetic", "White_Space", "Uppercase", "ID_Start", "LC", "Cased_Letter", "Other",
  "Block=Basic_Latin", "Foo", "sc=Foo", "gc=L=x",
  // binary properties by their short names; spellings JavaScript refuses
  // (it matches names exactly, where others ignore case and underscores)
  "AHex", "Alpha", "Ideo", "EComp", "ExtPict", "EPres", "Emoji_Component", "Math", "Dash", "Hex_Digit", "Lower",
  "lu", "l", "Lowercase_letter", "letter", "Script=greek", "sc=greek", "Greek", "Latin", "sc=Greek", "scx=Grek",
  "Script_Extensions=Latin", "gc=Letter", "General_Category=L", "GC=L", "isL", "L&", "Basic_Emoji", "RGI_Emoji",
  "Emoji_Keycap_Sequence", "Is_Emoji", "White Space", "Ascii", "any", "In_Greek", "Age=15.0",
];
const property = () => {
  const p = choose(PROPERTIES), letter = chance(0.3) ? "P" : "p";
  return node(`\\${letter}{${p}}`, () => (chance(0.5) ? choose(ANY_SAMPLES) : assignedCharacter()));
};

const codePointEscape = () => {
  const c = choose([0x41, 0xe9, 0x1f600, 0x1f64f, 0x10ffff, 0xd83d, 0x110000]);
  return lit(`\\u{${c.toString(16)}}`, c <= 0x10ffff ? String.fromCodePoint(c) : "");
};

const plainCharacter = () => {
  if (chance(0.05)) return lit(choose(ASTRAL), choose(ASTRAL));
  const c = choose(LETTERS);
  return lit(c, c);
};

// A class member: `src` in the class, `pick` a character it likely admits.
const RANGES = [["a", "f"], ["0", "9"], ["A", "Z"], ["\\x20", "\\x7e"], ["\\u00c0", "\\u017f"], ["😀", "🙏"], ["\\uD83D", "\\uDE00"]];
const RANGES_REFUSED = [["z", "a"], ["\\d", "z"]];
const CLASS_ESCAPES = ["\\b", "\\-", "\\]", "\\\\", "\\^", "\\0", "\\x41", "\\u0041", "\\u{1F600}"];
const CLASS_ESCAPES_ANNEX_B = ["\\b", "\\]", "\\\\", "\\^", "\\c_", "\\c1", "\\0", "\\12", "\\8", "\\x41", "\\u0041"];
const CLASS_PICKS = ["\b", "-", "]", "\\", "^", "\x1f", "\x11", "\0", "\n", "8", "A", "a", "c", "5", "Z", "é", "😀", "~"];
const classMember = () => {
  const r = random();
  if (r < 0.25) {
    const c = choose([..."abcxz09_ .-/é"]);
    return { src: c, pick: () => c };
  }
  if (r < 0.45) {
    const [a, b] = choose(chance(0.1) ? RANGES_REFUSED : RANGES);
    return { src: `${a}-${b}`, pick: () => choose(CLASS_PICKS) };
  }
  if (r < 0.65) {
    const e = classEscape();
    return { src: e.src, pick: e.sample };
  }
  if (r < 0.85 || mode.unicode === ofOtherMode()) {
    const e = choose(mode.unicode !== ofOtherMode() ? CLASS_ESCAPES : CLASS_ESCAPES_ANNEX_B);
    return { src: e, pick: () => choose(CLASS_PICKS) };
  }
  const p = property();
  return { src: p.src, pick: p.sample };
};

const characterClass = () => {
  const negated = chance(0.3);
  const members = times(below(4), classMember);
  const first = !mode.unicode && chance(0.05) ? "]" : ""; // Annex B: `[]]` is `[]` then `]`
  const src = `[${negated ? "^" : ""}${first}${members.map((m) => m.src).join("")}]`;
  return node(src, () => (negated || !members.length ? choose(ANY_SAMPLES) : choose(members).pick()));
};

const names = { next: 0 };
const group = (depth, counts) => {
  const kind = choose(["(", "(", "(?:", "(?<name>", "(?=", "(?!", "(?<=", "(?<!"]);
  const capturing = kind === "(" || kind === "(?<name>";
  const number = capturing ? ++counts.groups : 0;
  let open = kind;
  if (kind === "(?<name>") {
    const name = `n${names.next++}`;
    counts.names.push([name, number]);
    open = `(?<${name}>`;
  }
  const body = alternation(depth + 1, counts);
  const assertion = kind.startsWith("(?=") || kind.startsWith("(?!") || kind.startsWith("(?<=") || kind.startsWith("(?<!");
  return {
    ...node(`${open}${body.src})`, (ctx) => {
      const text = body.sample(ctx);
      if (number) ctx.set(number, text);
      return assertion ? "" : text;
    }),
    assertion,
  };
};

const backreference = (counts) => {
  if (counts.names.length && chance(0.4)) {
    const [name, number] = choose(counts.names);
    return node(`\\k<${name}>`, (ctx) => ctx.get(number) ?? "");
  }
  const n = 1 + below(counts.groups + 2);
  return node(`\\${n}`, (ctx) => ctx.get(n) ?? "");
};

const quantifier = () => {
  const [src, min, max] = choose([
    ["*", 0, 3], ["+", 1, 3], ["?", 0, 1], ["{2}", 2, 2], ["{0}", 0, 0], ["{1,}", 1, 3], ["{0,2}", 0, 2],
    ["{1,3}", 1, 3], ["{3,5}", 3, 5],
    ...(chance(0.1) ? [["{,3}", 1, 1], ["{2,1}", 1, 1], ["{", 1, 1]] : []),
  ]);
  return { src: src + (chance(0.25) ? "?" : ""), min, max };
};

const atom = (depth, counts) => {
  const r = random();
  if (r < 0.3) return plainCharacter();
  if (r < 0.42) return mode.unicode === ofOtherMode() || chance(0.7) ? escapedCharacter() : annexBEscape();
  if (r < 0.52) return characterClass();
  if (r < 0.58) return classEscape();
  if (r < 0.63) return node(".", () => choose(ANY_SAMPLES));
  if (r < 0.78 && depth < 4) return group(depth, counts);
  if (r < 0.83) return backreference(counts);
  if (r < 0.87) return { ...choose([lit("^", ""), lit("$", ""), lit("\\b", ""), lit("\\B", "")]), assertion: true };
  if (mode.unicode !== ofOtherMode()) return chance(0.7) ? property() : codePointEscape();
  return choose([lit("]", "]"), lit("{", "{"), lit("}", "}"), lit("x{1", "x{1"), lit("{,3}", "{,3}"), lit("a{1,2", "a{1,2")]);
};

const term = (depth, counts) => {
  const a = atom(depth, counts);
  if (!chance(a.assertion ? 0.05 : 0.3)) return a;
  const q = quantifier();
  return node(a.src + q.src, (ctx) => times(q.min + below(q.max - q.min + 1), () => a.sample(ctx)).join(""));
};

const sequence = (depth, counts) => {
  const terms = times(1 + below(depth ? 3 : 5), () => term(depth, counts));
  return node(terms.map((t) => t.src).join(""), (ctx) => terms.map((t) => t.sample(ctx)).join(""));
};

const alternation = (depth, counts) => {
  const branches = times(chance(0.25) ? 2 + below(2) : 1, () => (chance(0.05) ? lit("", "") : sequence(depth, counts)));
  return node(branches.map((b) => b.src).join("|"), (ctx) => choose(branches).sample(ctx));
};

// An invalid pattern now and then: a character of JavaScript's syntax put
// in or taken out.
const mutate = (src) => {
  const at = below(src.length + 1);
  if (chance(0.5) && src.length) return src.slice(0, at) + src.slice(at + 1);
  return src.slice(0, at) + choose(["(", ")", "[", "]", "*", "?", "{", "}", "\\", "|", "{2,1}", "(?", "(?<", "\\k<"]) + src.slice(at);
};

// Schemas' patterns are mostly anchored, where each character counts.
const anchored = (top) => {
  const r = random();
  const [before, after] = r < 0.25 ? ["^", "$"] : r < 0.35 ? ["^(?:", ")$"] : r < 0.45 ? ["^", ""] : r < 0.55 ? ["", "$"] : ["", ""];
  return node(before + top.src + after, top.sample);
};

// `^[…]{n,m}$`, one class of ASCII members over the whole string: the
// commonest pattern in schemas, which shorn matches by a table.
const RUN_MEMBERS = ["a-z", "A-Z", "0-9", "\\d", "\\w", "._", "\\-", "-", "\\.", "+/", "\\]", "\\\\", " -~", "[", "\\s", "é", "\\b", "^"];
const classRun = () => {
  const members = times(1 + below(3), () => choose(RUN_MEMBERS));
  const q = choose(["", "+", "*", "?", "{2}", "{0}", "{1,3}", "{2,}", "{0,4}", "{3,1}", "+?"]);
  return `^[${chance(0.1) ? "^" : ""}${members.join("")}]${q}$`;
};
const RUN_PIECES = [..."azAZ09_.-+/]\\[ ~\x7f\t", "é", "😀", "\uD83D"];

const generated = [];
for (let i = 0; i < GENERATED_PATTERNS; i++) {
  const counts = { groups: 0, names: [] };
  mode.unicode = chance(0.2);
  const top = anchored(alternation(0, counts));
  const src = chance(0.05) ? mutate(top.src) : top.src;
  const samples = times(6, () => top.sample(new Map()));
  generated.push([src, samples]);
}
for (let i = 0; i < CLASS_RUNS; i++) {
  generated.push([classRun(), times(10, () => times(below(6), () => choose(RUN_PIECES)).join(""))]);
}

// Where matchers are known to part from V8 (backreferences, lookbehind,
// empty iterations, Unicode versions, the bounds of docs/validators.md),
// and edges; an array is a pattern and strings for it.
const SPECIAL = [
  ["^(a+)+$", "a".repeat(30) + "b", "a".repeat(30)], ["^(?:(a)|b)+\\1$", "aba", "ab", "aa", "bab"],
  ["^\\1+(a)$", "a", "aa"], ["^(a)?\\1{2}b$", "b", "aaab"], ["^(a\\1+)$", "a"], ["^(a|)\\1+$", "a", ""],
  ["^(?:\\1(a))+$", "aa", "a", "aaa"], ["^(?<n>\\k<n>+c)$", "c"],
  // lookbehind matches right to left: a backreference sees the captures to its right
  ["(?<=\\1(a))b", "aab", "ab", "b"], ["(?<=(a)\\1)b", "aab", "ab", "b"], ["(?<=(a+))b\\1", "aaba", "aabaa", "ab"],
  ["(?<=^(\\w+)\\s)\\1$", "ab ab", "ab b", "b ab"], ["(?<!(a)\\1)b", "aab", "ab", "b"], ["(?<=(?=(a))\\w)\\1", "aa", "ab"],
  // an iteration that matches nothing ends the loop; captures reset each iteration
  ["^(?:a|()){2}\\1$", "a", "aa", ""], ["^(a?)*\\1$", "a", "aa", ""], ["^(?:(a)|b?)*\\1$", "a", "ab", "ba", "aba"],
  ["^(z)((a+)?(b+)?(c))*\\3$", "zaacbbbcac", "zaacbbbcaca", "zc"], ["^(?:(a)|(b))+\\1\\2$", "ab", "aba", "abab", "ba"],
  ["^(?:()|a)*$", "", "a", "aa"], ["^(?:a*?)*b$", "aab", "b"], ["^(?:(?=(a))a)*\\1$", "aaa", "aa", ""],
  ["^\\p{L}$", "\u{1E4D0}", "\u{11F04}", "\u{1E030}", "a"], ["^\\p{Emoji}$", "\u{1FA77}", "\u{1F6DC}", "😀"],
  ["^[^\\W\\p{Lu}]$", "\u0aac", "😀", "a", "A", "="], ["^[^\\D\\p{L}]$", "\u0967", "1", "a"], ["^[^\\W\\P{Lu}]$", "\u0aac", "A"],
  "\\p{lu}", "\\p{Greek}", "\\p{sc=greek}", "\\p{any}", "\\p{Ascii}",
  "(?<=a+)b", "(?<=a*)b", "(?<!a|bc+)d", "(?<=(a|bc)+)d", "(?<=\\d{1,3})x", "(?<=^|,)x",
  "a{65535}", "a{65536}", "a{0,65536}", "^a{1,70000}$", "a{2147483648}", "a{99999999999999999999}", "^a{3,}?$",
  "(".repeat(250) + "a" + ")".repeat(250), "(".repeat(251) + "a" + ")".repeat(251), "(?:".repeat(300) + "a" + ")".repeat(300),
  "^(?:(a)|b)+\\1$", "^(?:(a)|b){2}\\1$", "^(a\\1?){4}$", "^(?:(a)|(b))+\\1\\2$", "\\1(a)", "(a)|\\1b", "^(?:\\1(a))+$",
  "^(a+)+$", "^(a|a)*$", "^(\\w+\\s?)*$", "(x+x+)+y",
  "^.$", "^..$", "^[^a]$", "^\\S$", "^\\W$", "^[\\s\\S]$", "[^]", "[]", "^[^]*$",
  "^\\p{L}$", "^\\P{L}$", "^\\p{Lu}+$", "^\\p{Emoji}$", "^\\p{Extended_Pictographic}$", "^\\p{sc=Kawi}$",
  "^\\p{Script=Nag_Mundari}$", "^\\p{scx=Hira}$", "^\\p{Cn}$", "^\\p{Assigned}$", "^\\p{Any}$", "^\\p{ASCII}+$",
  "^[\\p{L}\\p{N}]+$", "^[^\\p{L}]$", "^\\u{1F600}$", "\\u{41}", "^[\\u{1F600}-\\u{1F64F}]$", "^😀$", "^[😀]$",
  "^[😀-🙏]$", "^\\uD83D", "\\uDE00$", "^[\\uD83D\\uDE00]$", "^\\uD83D\\uDE00$", "\uD83D", "^[\uD83D]$",
  "\\bé\\b", "\\Bx", "^\\b$", "$^", "^$", "", "|", "a|", "(?:)", "()", "(?=)", "(?!)",
  "\\c", "\\c0", "[\\c0]", "[\\c_]", "\\c_", "\\0", "\\01", "\\08", "\\8", "\\18", "[\\8]", "\\k", "\\k<a>", "(?<a>x)\\k<a>",
  "(?<a>x)\\k<b>", "\\k<a>(?<a>x)", "(?<a>.)(?<b>.)\\k<b>\\k<a>", "(?<$é>a)", "(?<a1>a)", "(?<1a>a)",
  "(?<\\u0061>x)\\k<a>", "(?<a\\u{62}>x)\\k<ab>", "(?<𝒜>x)\\k<𝒜>", "(?<\\ud835\\udc9c>x)", "(?<a>x)|(?<a>y)", "(?i:a)",
  "(?<a>x)\\k<a", "\\k<a", "(?<a-b>x)", "(?<a>x)[\\k]", "[\\k<a>](?<a>x)", "[\\k]", "[\\k<a>]",
  "(a)\\10", "(a)\\18", "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10", "[\\1]", "\\08",
  "x{", "x{1", "x{1,", "x{,1}", "x{1,2", "{", "}", "]", "{1}", "a{1}{2}", "a**", "a*?*", "a??", "a+?", "a{1}?",
  "(?=a)*", "(?=a)+b", "(?!a)?b", "(?<=a)?b", "^*", "$+", "\\b*",
  "[z-a]", "[a-\\d]", "[\\d-a]", "[\\w-\\d]", "[--a]", "[a-]", "[-]", "[\\-]", "[\\b]", "[\\B]",
  "\\u{110000}", "\\u{}", "\\x", "\\xg", "\\u", "\\p", "\\p{", "\\p{L", "\\P{}", "\\p{=L}",
  "(?i)a", "(?<", "(?<a", "(?<a>", "(?", "(?:", ")", "((a)", "\\", "a\\",
  "[[:alpha:]]", "\\Q", "\\Qa\\E", "\\A", "\\Z", "\\z", "\\G", "\\R", "\\h", "\\X", "\\N", "\\K", "(*FAIL)", "(?#c)",
  "^\\s+$", "^[\\s]+$", "^[^\\s]+$", "\\S\\s", "[\\S\\d]", "[^\\S\\d]", "[^\\S]",
  "^[\\u0000-\\u{10FFFF}]$", "^[\\0-\\uffff]$", "^[\\x00-\\xff]+$",
  "^\\w+@\\w+\\.\\w{2,}$", "^(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)$",
  ["^a\0b$", "a\0b", "ab", "a\0"], ["^[^\0]+$", "a\0", "ab"],
];

for (const p of SPECIAL) (Array.isArray(p) ? addPattern(p[0], "special", p.slice(1)) : addPattern(p, "special"));
generated.forEach(([p, samples], i) => addPattern(p, `generated ${i}`, samples));

// ---- the strings ------------------------------------------------------------

// JavaScript's white space and line terminators, and three it does not count.
const SPACES = [
  " ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u2028", "\u2029", "\u202f", "\ufeff", "\u3000",
  "\u180e", "\u0085", "\u200b",
];
const ASCII = times(95, (i) => String.fromCharCode(32 + i));
const LONE = ["\uD83D", "\uDE00", "\uDBFF", "\uDC00"];

// What a pattern's source says of the characters it wants: its literal
// characters, the characters its escapes spell, and neighbours.
const piecesOf = (p) => {
  const pieces = new Set();
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === "\\" && i + 1 < p.length) {
      const e = p[++i];
      let m;
      if (e === "u" && (m = /^\{([0-9a-fA-F]+)\}/.exec(p.slice(i + 1))) && parseInt(m[1], 16) <= 0x10ffff) {
        pieces.add(String.fromCodePoint(parseInt(m[1], 16)));
        i += m[0].length;
      } else if (e === "u" && (m = /^[0-9a-fA-F]{4}/.exec(p.slice(i + 1)))) {
        pieces.add(String.fromCharCode(parseInt(m[0], 16)));
        i += 4;
      } else if (e === "x" && (m = /^[0-9a-fA-F]{2}/.exec(p.slice(i + 1)))) {
        pieces.add(String.fromCharCode(parseInt(m[0], 16)));
        i += 2;
      } else if (e === "d" || e === "D") pieces.add(choose([..."0123456789"])).add("x");
      else if (e === "w" || e === "W") pieces.add("a").add("Z").add("_").add("!");
      else if (e === "s" || e === "S") pieces.add(choose(SPACES)).add("s");
      else if (e === "p" || e === "P") pieces.add(assignedCharacter()).add(assignedCharacter());
      else pieces.add(e);
    } else if (!"^$*+?()[]{}|".includes(c)) {
      const cp = p.codePointAt(i);
      pieces.add(String.fromCodePoint(cp));
      if (cp > 0xffff) i++;
      else if (cp < 0xfff0) pieces.add(String.fromCharCode(cp + 1));
    }
  }
  return [...pieces];
};

// Strings for one pattern: the samples that came with it, then its own
// pieces joined, with ASCII, spaces, astral characters and lone surrogates
// mixed in.
const stringsFor = (p, given, unicodeProperties) => {
  const pieces = piecesOf(p);
  const any = () => (pieces.length && chance(0.6) ? choose(pieces) : choose(ASCII));
  const made = [
    ...given,
    "",
    ...times(8, () => times(below(8), any).join("")),
    ...times(4, () => times(below(14), () => choose(ASCII)).join("")),
    ...times(2, () => times(below(4), any).join("") + choose(SPACES) + times(below(3), any).join("")),
    ...times(3, () => times(below(4), any).join("") + choose(ASTRAL) + times(below(3), any).join("")),
    ...times(2, () => times(below(3), any).join("") + choose(LONE) + times(below(3), any).join("")),
    ...times(3, () => times(1 + below(3), () => (chance(0.5) ? assignedCharacter() : any())).join("")),
    ...(unicodeProperties ? times(3, () => times(1 + below(2), () => characterOf(RECENT)).join("")) : []),
    ...given.map((s) => (s.length ? s.slice(0, -1) : "x")),
    ...given.map((s) => s + any()),
  ];
  // Node's Unicode is newer than 15.0: a \p pattern sees what 15.0 assigned.
  const kept = unicodeProperties ? made.filter(allStable) : made;
  return [...new Set(kept)].slice(0, STRINGS_PER_PATTERN + given.length);
};

// ---- the case file ----------------------------------------------------------

// V8 tries a `u` pattern at places inside a surrogate pair too, which
// ECMA-262 steps over (AdvanceStringIndex): what it finds there is not
// JavaScript's answer.  `/(?!\1)(b)?/u` finds an empty match in the
// middle of "😀"; the spec's matching finds none.
const insidePair = (s, at) => at > 0 && isHigh(s.charCodeAt(at - 1)) && isLow(s.charCodeAt(at));

const out = [];
let patterns = 0, strings = 0, insidePairs = 0;
for (const [source, { origin, strings: given }] of found) {
  const reading = readingOf(source);
  const flag = !reading ? "!" : reading.unicode ? "u" : "-";
  out.push(`P ${flag} ${wtf8Hex(source)} ${origin}`);
  patterns++;
  if (!reading) continue;
  for (const s of stringsFor(source, given, /\\[pP]/.test(source))) {
    const lone = hasLoneSurrogate(s);
    const firstMatch = reading.re.exec(s);
    if (reading.unicode && firstMatch && insidePair(s, firstMatch.index)) {
      insidePairs++;
      continue;
    }
    // With `u`, shorn says a string with a lone surrogate matches: the
    // structure refuses such a string before any pattern sees it.
    const match = (reading.unicode && lone) || firstMatch !== null;
    out.push(`S ${match ? 1 : 0} ${lone ? 1 : 0} ${wtf8Hex(s)}`);
    strings++;
  }
}
process.stdout.write(out.join("\n") + "\n");
const generatedCount = [...found.values()].filter((f) => f.origin.startsWith("generated")).length;
process.stderr.write(
  `cases.mjs: ${patterns} patterns (${patterns - generatedCount} from the repository, the validators and the edges), ` +
    `${strings} strings; ${insidePairs} left out, V8 matching inside a surrogate pair\n`,
);
