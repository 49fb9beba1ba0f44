// compare.mjs — unicode_property_find and unicode_property_ranges
// (ext/core/regex/unicode.c) against Node's own \p{…}.
//
//   node tests/unicode/compare.mjs DUMP UCD_DIR
//
// DUMP is tests/unicode/dump.c built; UCD_DIR the Unicode Character Database
// the tables were generated from (/usr/share/unicode).  Names: every property
// and value alias of PropertyAliases.txt and PropertyValueAliases.txt, alone
// and after every property name and `=`, and each name the tables know
// misspelt in the ways people misspell them; Node must refuse exactly the
// names the tables refuse.  Code points: for every name both accept, Node's
// matches and the tables' ranges must agree on every code point that
// DerivedAge.txt says is assigned in the tables' Unicode version.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [dump, ucd] = process.argv.slice(2);
if (!dump || !ucd) {
  console.error('usage: node compare.mjs DUMP UCD_DIR');
  process.exit(2);
}
const LAST = 0x10ffff;

function dataLines(file) {
  return fs.readFileSync(path.join(ucd, file), 'utf8').split('\n')
    .map((line) => line.split('#')[0].trim()).filter(Boolean)
    .map((line) => line.split(';').map((field) => field.trim()));
}

// [first, last] ranges, sorted and merged.
function normalize(ranges) {
  const merged = [];
  for (const [first, last] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const top = merged[merged.length - 1];
    if (top && first <= top[1] + 1) top[1] = Math.max(top[1], last);
    else merged.push([first, last]);
  }
  return merged;
}

// The code points in a or b but not in both.
function symmetricDifference(a, b) {
  const edges = [];
  for (const [first, last] of [...a, ...b]) edges.push([first, 1], [last + 1, -1]);
  edges.sort((x, y) => x[0] - y[0]);
  const out = [];
  let depth = 0;
  for (let i = 0; i < edges.length;) {
    const at = edges[i][0];
    const before = depth;
    while (i < edges.length && edges[i][0] === at) depth += edges[i++][1];
    if (before !== 1 && depth === 1) out.push([at, undefined]);
    else if (before === 1 && depth !== 1) out[out.length - 1][1] = at - 1;
  }
  return out;
}

function intersect(a, b) {
  const out = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const first = Math.max(a[i][0], b[j][0]);
    const last = Math.min(a[i][1], b[j][1]);
    if (first <= last) out.push([first, last]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

const size = (ranges) => ranges.reduce((n, [first, last]) => n + last - first + 1, 0);
const hex = (cp) => 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
const show = (ranges) => ranges.slice(0, 4).map(([f, l]) => (f === l ? hex(f) : hex(f) + '..' + hex(l))).join(' ') +
  (ranges.length > 4 ? ' …' : '');

const version = /DerivedAge-([0-9.]+)\.txt/.exec(fs.readFileSync(path.join(ucd, 'DerivedAge.txt'), 'utf8'))[1];
const assigned = normalize(dataLines('DerivedAge.txt').map(([cps]) => {
  const [first, last = first] = cps.split('..').map((h) => parseInt(h, 16));
  return [first, last];
}));

// ---- the names ----------------------------------------------------------
const propertyNames = dataLines('PropertyAliases.txt');
const valueNames = new Map(); // property short name -> [[value aliases]]
for (const [prop, ...values] of dataLines('PropertyValueAliases.txt')) {
  if (prop === 'ccc') values.shift(); // its first field is the number
  if (!valueNames.has(prop)) valueNames.set(prop, []);
  valueNames.get(prop).push(values);
}
const candidates = new Set();
for (const names of propertyNames) {
  for (const name of names) {
    candidates.add(name);
    for (const value of ['Y', 'Yes', 'T', 'True', 'N', 'No']) candidates.add(`${name}=${value}`);
  }
}
// ECMA-262's own properties, which no UCD file names.
for (const name of ['Any', 'ASCII', 'Assigned']) candidates.add(name);
const propertyOf = new Map(propertyNames.map((names) => [names[0], names]));
for (const [prop, values] of valueNames) {
  for (const aliases of values) {
    for (const value of aliases) {
      candidates.add(value);
      for (const name of propertyOf.get(prop) ?? [prop]) candidates.add(`${name}=${value}`);
      for (const name of ['gc', 'General_Category', 'sc', 'Script', 'scx', 'Script_Extensions']) {
        candidates.add(`${name}=${value}`);
      }
    }
  }
}
// Scripts that Unicode versions after the tables' added: Node knows them,
// the tables cannot.
const NEWER_SCRIPTS = {
  '16.0': ['Gara', 'Garay', 'Gukh', 'Gurung_Khema', 'Krai', 'Kirat_Rai', 'Onao', 'Ol_Onal', 'Sunu', 'Sunuwar',
    'Todr', 'Todhri', 'Tutg', 'Tulu_Tigalari'],
  '17.0': ['Berf', 'Beria_Erfe', 'Sidt', 'Sidetic', 'Tayo', 'Tai_Yo', 'Tols', 'Tolong_Siki'],
};
const newer = new Set();
for (const [since, scripts] of Object.entries(NEWER_SCRIPTS)) {
  if (parseFloat(since) <= parseFloat(version)) continue;
  for (const script of scripts) {
    for (const name of ['sc', 'Script', 'scx', 'Script_Extensions']) newer.add(`${name}=${script}`);
  }
}
for (const name of newer) candidates.add(name);
// Binary properties of later Unicode versions, which V8 11.3 does not take.
for (const name of ['IDS_Unary_Operator', 'IDSU', 'ID_Compat_Math_Start', 'ID_Compat_Math_Continue',
  'Modifier_Combining_Mark', 'MCM', 'InCB', 'Indic_Conjunct_Break']) candidates.add(name);

function misspellings(name) {
  const [key, value] = name.includes('=') ? name.split('=') : ['', name];
  const join = (v) => (key ? `${key}=${v}` : v);
  return [
    join(value.toLowerCase()), join(value.toUpperCase()), join(value.replaceAll('_', '')),
    join(value.replaceAll('_', ' ')), join(value.replaceAll('_', '-')), join('Is' + value), join(value + '_'),
    join(value[0] === value[0].toUpperCase() ? value[0].toLowerCase() + value.slice(1) : value[0].toUpperCase() + value.slice(1)),
    key ? `${key.toLowerCase()}=${value}` : `${value}=`,
    key ? `${key} = ${value}` : `=${value}`,
    key ? `${key}=${value}=${value}` : `gc=${value}`,
  ];
}

function run(names) {
  const out = execFileSync(dump, { input: names.join('\n') + '\n', maxBuffer: 1 << 28 }).toString();
  const tables = new Map();
  for (const line of out.split('\n').filter(Boolean)) {
    const [name, property, ranges] = line.split('\t');
    tables.set(name, {
      property: Number(property),
      ranges: ranges ? ranges.split(' ').map((r) => r.split('-').map((h) => parseInt(h, 16))) : [],
    });
  }
  return tables;
}

const started = Date.now();
let tables = run([...candidates]);
for (const [name, found] of [...tables]) {
  if (found.property >= 0) for (const m of misspellings(name)) candidates.add(m);
}
tables = run([...candidates]);

const nodeAccepts = (name) => {
  try {
    new RegExp(`\\p{${name}}`, 'u');
    return true;
  } catch {
    return false;
  }
};

let failures = 0;
let excused = 0;
const accepted = [];
for (const [name, found] of tables) {
  const node = nodeAccepts(name);
  if (node === found.property >= 0) {
    if (node) accepted.push(name);
    continue;
  }
  if (node && newer.has(name)) {
    excused++;
    continue;
  }
  failures++;
  console.log(`${name}: Node ${node ? 'accepts' : 'refuses'} it, the tables ${node ? 'refuse' : 'accept'} it`);
}
const unexcused = [...newer].filter((name) => !nodeAccepts(name));
for (const name of unexcused) {
  failures++;
  console.log(`${name}: a script of a later Unicode than ${version}, which Node should know and does not`);
}

// ---- the code points ----------------------------------------------------
// Every code point once, in order, in two strings: one string would pair
// U+DBFF with U+DC00.  Match i of /\p{…}+/gu is then a run of code points.
const below = String.fromCodePoint(...Array.from({ length: 0xdc00 }, (_, i) => i));
const aboveCodePoints = [];
for (let cp = 0xdc00; cp <= LAST; cp++) aboveCodePoints.push(String.fromCodePoint(cp));
const above = aboveCodePoints.join('');
const aboveCodePoint = (index) => (index < 0x2400 ? 0xdc00 + index : 0x10000 + (index - 0x2400) / 2);

function nodeRanges(name) {
  const re = new RegExp(`\\p{${name}}+`, 'gu');
  const ranges = [];
  for (const m of below.matchAll(re)) ranges.push([m.index, m.index + m[0].length - 1]);
  for (const m of above.matchAll(re)) {
    const first = aboveCodePoint(m.index);
    const last = aboveCodePoint(m.index + m[0].length - (m[0].codePointAt(m[0].length - 2) > 0xffff ? 2 : 1));
    ranges.push([first, last]);
  }
  return normalize(ranges);
}

// The runs are what \p{NAME} matches one code point at a time: for the
// first runs, their ends match ^\p{NAME}$ and the code points either side
// do not.
function checkRuns(name, ranges) {
  const re = new RegExp(`^\\p{${name}}$`, 'u');
  const test = (cp) => cp >= 0 && cp <= LAST && re.test(String.fromCodePoint(cp));
  return ranges.slice(0, 8).every(([first, last]) => test(first) && test(last) && !test(first - 1) && !test(last + 1));
}
if (JSON.stringify(nodeRanges('Any')) !== JSON.stringify([[0, LAST]]) || !checkRuns('Cs', nodeRanges('Cs'))) {
  console.log('the runs of /\\p{…}+/gu are not the code points of \\p{…}');
  process.exit(1);
}

// Where Node and the tables disagree on code points the tables' version
// assigned, a later version of Unicode changed the property: recorded, for
// the Unicode version of Node's ICU, in node-unicode-VERSION.txt beside this
// file (rewritten by --record), one line per property under the name of its
// names that sorts first; every other name of the property must differ in
// the same code points.  A Node of the tables' version has no such file and
// must agree everywhere.
const nodeVersion = process.versions.unicode;
const DIFFERENCES = path.join(path.dirname(new URL(import.meta.url).pathname), `node-unicode-${nodeVersion}.txt`);
const line = (name, ranges) => name + ' ' + ranges.map(([f, l]) => (f === l ? hex(f) : hex(f) + '..' + hex(l))).join(' ');
const byProperty = new Map();
for (const name of accepted.sort()) {
  const property = tables.get(name).property;
  if (!byProperty.has(property)) byProperty.set(property, []);
  byProperty.get(property).push(name);
}
const found = [];
let disagreements = 0;
for (const names of byProperty.values()) {
  const wrong = names.map((name) => {
    const ranges = nodeRanges(name);
    if (!checkRuns(name, ranges)) {
      disagreements++;
      console.log(`\\p{${name}}: the runs of /\\p{${name}}+/gu are not the code points ^\\p{${name}}$ matches`);
    }
    return intersect(symmetricDifference(ranges, tables.get(name).ranges), assigned);
  });
  const first = line(names[0], wrong[0]);
  names.forEach((name, i) => {
    if (line(names[0], wrong[i]) === first) return;
    disagreements++;
    console.log(`\\p{${name}} and \\p{${names[0]}} are one property of the tables' but not of Node's`);
  });
  if (wrong[0].length) found.push(first);
}
// The names reach every property the tables have (numbered from 0).
const numbers = [...byProperty.keys()];
if (Math.max(...numbers) + 1 !== numbers.length) {
  disagreements++;
  console.log(`the names reach ${numbers.length} properties, numbered up to ${Math.max(...numbers)}`);
}
const header = `# Node's Unicode ${nodeVersion}: code points assigned in Unicode ${version} that it gives other properties\n`;
if (process.argv.includes('--record')) fs.writeFileSync(DIFFERENCES, header + found.join('\n') + '\n');
let recorded = [header.trimEnd()];
if (fs.existsSync(DIFFERENCES)) {
  recorded = fs.readFileSync(DIFFERENCES, 'utf8').split('\n');
} else if (!version.startsWith(nodeVersion + '.')) {
  disagreements++;
  console.log(`no ${DIFFERENCES} for Node's Unicode ${nodeVersion}: record one (--record) and check its differences`);
}
if (recorded[0] + '\n' !== header) {
  disagreements++;
  console.log(`${DIFFERENCES} begins "${recorded[0]}", not "${header.trimEnd()}": record it anew (--record)`);
}
const expected = new Set(recorded.slice(1).filter(Boolean));
for (const difference of found) {
  if (expected.delete(difference)) continue;
  disagreements++;
  console.log(`new difference: \\p{${difference}}`);
}
for (const difference of expected) {
  disagreements++;
  console.log(`recorded difference not found: \\p{${difference}}`);
}
const changed = found.reduce((n, l) => n + l.split(' ').length - 1, 0);
console.log(`${tables.size} names: ${accepted.length} accepted by both, ${tables.size - accepted.length - failures - excused}` +
  ` refused by both, ${excused} of later Unicode than ${version} accepted by Node alone, ${failures} disagreements`);
console.log(`${byProperty.size} properties (${accepted.length} names) compared with Node ${process.version} (Unicode ` +
  `${nodeVersion}) on the ${size(assigned)} code points assigned in ${version}: ${found.length} properties differ ` +
  `(${changed} ranges), ${disagreements} not as recorded; ${(Date.now() - started) / 1000} s`);
process.exit(failures || disagreements ? 1 : 0);
