'use strict';
// The shorn SQLite extension, compiled for each platform the package was
// packed on: lib/<platform>-<arch>/shorn.<so|dylib|dll>.
const fs = require('node:fs');
const path = require('node:path');

const SUFFIX = {darwin: 'dylib', win32: 'dll'};

function getLoadablePath() {
  const platform = `${process.platform}-${process.arch}`;
  const lib = path.join(__dirname, 'lib');
  const file = path.join(lib, platform, `shorn.${SUFFIX[process.platform] || 'so'}`);
  if (!fs.existsSync(file)) {
    const shipped = fs.existsSync(lib) ? fs.readdirSync(lib).join(', ') : 'none';
    throw new Error(`sqlite-shorn ships no loadable extension for ${platform} (it has: ${shipped}); ` +
                    'build one from the shorn repository with make and load build/shorn');
  }
  return file;
}

function load(db) {
  db.loadExtension(getLoadablePath());
}

module.exports = {getLoadablePath, load};
