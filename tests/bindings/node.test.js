'use strict';
// sqlite-shorn as a fresh user has it: installed from the packed tarball
// beside better-sqlite3, in the scratch project tests/bindings/node.sh makes.
const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');
const Database = require('better-sqlite3');
const shorn = require('sqlite-shorn');

const PERSON = '{"type":"object","properties":{"name":{"type":"string"},' +
    '"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},' +
    '"required":["name","age","sex"],"additionalProperties":false}';
const PACKAGE = path.dirname(require.resolve('sqlite-shorn/package.json'));

function connect() {
  const db = new Database(':memory:');
  shorn.load(db);
  return db;
}

test('getLoadablePath is the extension inside the package, for this platform', (t) => {
  const file = shorn.getLoadablePath();
  assert.equal(file, path.join(PACKAGE, 'lib', `${process.platform}-${process.arch}`, 'shorn.so'));
  assert.ok(fs.statSync(file).isFile());
  t.diagnostic(`better-sqlite3 ${require('better-sqlite3/package.json').version}, ` +
               `SQLite ${connect().prepare('SELECT sqlite_version()').pluck().get()}, node ${process.version}`);
});

test('getLoadablePath names the platform when the package has no build for it', () => {
  const arch = Object.getOwnPropertyDescriptor(process, 'arch');
  Object.defineProperty(process, 'arch', {...arch, value: 'mips'});
  try {
    const shipped = `${process.platform}-${arch.value}`;
    assert.throws(() => shorn.getLoadablePath(), (error) => error.message.startsWith(
        `sqlite-shorn ships no loadable extension for ${process.platform}-mips (it has: ${shipped})`));
  } finally {
    Object.defineProperty(process, 'arch', arch);
  }
});

test('load(db) gives a better-sqlite3 Database the SQL functions: a round trip', () => {
  const db = connect();
  const payload = db.prepare('SELECT shorn_encode(?, ?)').pluck().get('{"name":"Grace","age":45,"sex":"F"}', PERSON);
  assert.deepEqual(payload, Buffer.from('2d05477261636500', 'hex'));
  assert.equal(db.prepare('SELECT shorn_decode(?, ?)').pluck().get(payload, PERSON),
               '{"age":45,"name":"Grace","sex":"F"}');
});

test('fp_bytes bound as a JavaScript number (a REAL to SQLite) works', () => {
  const db = connect();
  const payload = db.prepare('SELECT shorn_encode(?, ?, ?)').pluck().get('{"name":"Grace","age":45,"sex":"F"}', PERSON, 3);
  assert.deepEqual(payload, Buffer.from('7236d12d05477261636500', 'hex'));
  assert.equal(db.prepare('SELECT shorn_extract(?, ?, ?, ?)').pluck().get(payload, PERSON, 3, '$.name'), 'Grace');
  assert.throws(() => db.prepare('SELECT shorn_encode(?, ?, ?)').get('{}', '{}', 2.5),
                { message: 'shorn_encode: fingerprint width must be 1, 2, 3 or 4' });
});

test("shorn_version() is the package's version", () => {
  assert.equal(connect().prepare('SELECT shorn_version()').pluck().get(),
               require('sqlite-shorn/package.json').version);
});

test('an encode error is thrown as a JS Error', () => {
  const encode = connect().prepare('SELECT shorn_encode(?, ?)').pluck();
  assert.throws(() => encode.get('{"name":"Grace","age":-1,"sex":"F"}', PERSON), (error) => {
    assert.ok(error instanceof Error);
    assert.equal(error.message, 'shorn_encode: Expected an unsigned integer at $.age');
    return true;
  });
});

test("the package README's example prints what its comments say", () => {
  const example = fs.readFileSync(path.join(PACKAGE, 'README.md'), 'utf8').match(/```js\n([^]*?)```/)[1];
  const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((m) => m[1]);
  fs.writeFileSync(path.join(__dirname, 'readme.js'), example);
  const printed = execFileSync(process.execPath, [path.join(__dirname, 'readme.js')], {encoding: 'utf8'});
  assert.deepEqual(printed.trimEnd().split('\n'), expected);
});

test("the project README's Node example prints what its comments say", () => {
  const readme = fs.readFileSync(process.env.SHORN_README, 'utf8');
  const example = [...readme.matchAll(/```js\n([^]*?)```/g)].map((m) => m[1]).find((js) => js.includes('sqlite-shorn'));
  const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((m) => m[1]);
  fs.writeFileSync(path.join(__dirname, 'project-readme.js'), example);
  const printed = execFileSync(process.execPath, [path.join(__dirname, 'project-readme.js')], {encoding: 'utf8'});
  assert.ok(expected.length > 0);
  assert.deepEqual(printed.trimEnd().split('\n'), expected);
});

test('index.d.ts types a better-sqlite3 user\'s code (tsc --strict types.ts)', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  assert.equal(execFileSync(process.execPath, [tsc, '--noEmit', '--strict', path.join(__dirname, 'types.ts')],
                            {encoding: 'utf8'}), '');
});
