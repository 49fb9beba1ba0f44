// The Drizzle and Kysely examples of the installed package's README, each
// run as a module of its own: what each console.log prints is its comment.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import test from 'node:test';

const installed = dirname(createRequire(import.meta.url).resolve('sqlite-shorn/package.json'));
const readme = readFileSync(join(installed, 'README.md'), 'utf8');

for (const heading of ['Drizzle', 'Kysely']) {
  test(`the README's ${heading} example prints what its comments say`, () => {
    const section = readme.split(`\n## ${heading}\n`)[1].split('\n## ')[0];
    const [, example] = section.match(/```js\n([^]*?)```/);
    const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((match) => match[1]);
    assert.ok(expected.length > 0);
    const file = `readme-${heading.toLowerCase()}.mjs`;
    writeFileSync(file, example);
    assert.deepEqual(execFileSync(process.execPath, [file], {encoding: 'utf8'}).trimEnd().split('\n'), expected);
  });
}
