// Compiled by node.test.js with tsc --strict: index.d.ts types a
// better-sqlite3 user's code, and refuses what is not a connection.
import Database = require('better-sqlite3');
import {getLoadablePath, load} from 'sqlite-shorn';

const db = new Database(':memory:');
load(db);
const file: string = getLoadablePath();
db.loadExtension(file);
// @ts-expect-error: load() takes a connection
load({});
