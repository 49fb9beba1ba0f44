// The Drizzle and Kysely examples of the installed package's README, each
// run as a module of its own: what each console.log prints is its comment;
// a TypeScript one passes tsc --strict first.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import test from 'node:test';

const require = createRequire(import.meta.url);
const installed = dirname(require.resolve('sqlite-shorn/package.json'));
const readme = readFileSync(join(installed, 'README.md'), 'utf8');

for (const heading of ['Drizzle', 'Kysely']) {
  test(`the README's ${heading} example prints what its comments say`, () => {
    const section = readme.split(`\n## ${heading}\n`)[1].split('\n## ')[0];
    const [, language, example] = section.match(/```(js|ts)\n([^]*?)```/);
    const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)/g)].map((match) => match[1]);
    assert.ok(expected.length > 0);
    const file = `readme-${heading.toLowerCase()}.mjs`;
    if (language === 'ts') {
      // A TypeScript example is checked as written with tsc --strict, resolving
      // modules as a bundler does, then run as tsc emits it.
      writeFileSync(file.replace(/js$/, 'ts'), example);
      try {
        execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--strict', '--skipLibCheck', '--module',
          'esnext', '--moduleResolution', 'bundler', '--target', 'es2022', file.replace(/js$/, 'ts')], {encoding: 'utf8'});
      } catch (error) {
        assert.fail(`tsc --strict: ${error.stdout}`);
      }
    } else {
      writeFileSync(file, example);
    }
    assert.deepEqual(execFileSync(process.execPath, [file], {encoding: 'utf8'}).trimEnd().split('\n'), expected);
  });
}
