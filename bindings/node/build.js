'use strict';
// The first load where no binary ships: the source this package carries
// (src/shorn.c, one file), compiled by the machine's C compiler once into
// a per-user cache keyed by version and platform.
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const COMPILERS = ['cc', 'clang', 'gcc'];

// Homebrew's SQLite is keg-only: its headers are off the default paths.
const BREW_INCLUDES = ['/opt/homebrew/opt/sqlite/include', '/usr/local/opt/sqlite/include'];

function cacheDirectory() {
  if (process.platform === 'win32') return process.env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches');
  return process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
}

/** Where the extension compiled for this version and platform is kept. */
function cachedPath(version, key, file) {
  return path.join(cacheDirectory(), 'sqlite-shorn', `${version}-${key}`, file);
}

// $CC, else the first compiler on PATH.
function findCompiler() {
  if (process.env.CC) return process.env.CC;
  const suffix = process.platform === 'win32' ? '.exe' : '';
  for (const name of COMPILERS) {
    for (const dir of (process.env.PATH || '').split(path.delimiter)) {
      if (dir && fs.existsSync(path.join(dir, name + suffix))) return name;
    }
  }
  return undefined;
}

// The command that installs a compiler (what === 'compiler') or SQLite's
// headers ('headers') on this machine: one command per system.
function installCommand(key, what) {
  switch (process.platform) {
    case 'darwin':
      return what === 'compiler' ? 'xcode-select --install' : 'brew install sqlite';
    case 'freebsd':
      return 'pkg install sqlite3';
    case 'openbsd':
      return 'pkg_add sqlite3';
    case 'netbsd':
      return 'pkgin install sqlite3';
    case 'win32':
      return what === 'compiler' ? 'winget install LLVM.LLVM' : 'vcpkg install sqlite3';
    case 'linux':
      return key.endsWith('-musl') ? 'apk add build-base sqlite-dev' : linuxInstallCommand();
    default:
      return 'install a C compiler and SQLite\'s headers (sqlite3ext.h)';
  }
}

function linuxInstallCommand() {
  let release = '';
  try {
    release = fs.readFileSync('/etc/os-release', 'utf8');
  } catch {
    // No os-release: the generic advice below.
  }
  const family = (release.match(/^ID(?:_LIKE)?=.*$/gm) || []).join(' ');
  if (/debian|ubuntu/.test(family)) return 'sudo apt-get install gcc libsqlite3-dev';
  if (/fedora|rhel|centos/.test(family)) return 'sudo dnf install gcc sqlite-devel';
  if (/suse/.test(family)) return 'sudo zypper install gcc sqlite3-devel';
  if (/arch/.test(family)) return 'sudo pacman -S gcc sqlite';
  return 'install gcc and SQLite\'s development package (the one with sqlite3ext.h)';
}

function compilerArguments(source, output) {
  const flags = (process.env.CFLAGS || '-O2').split(/\s+/).filter(Boolean);
  switch (process.platform) {
    case 'darwin':
      return [...flags, '-fPIC', '-dynamiclib', ...BREW_INCLUDES.filter(fs.existsSync).map((dir) => `-I${dir}`),
              source, '-o', output];
    case 'win32':
      return [...flags, '-shared', source, '-o', output];
    default:
      return [...flags, '-fPIC', '-shared', source, '-o', output, '-lm'];
  }
}

/**
 * The cached extension for this version and platform, compiled from
 * `source` first if absent. `missing` names the platform and, for a
 * platform with a package npm skipped, how to install that package.
 */
function build(source, version, key, file, missing) {
  const target = cachedPath(version, key, file);
  if (fs.existsSync(target)) return target;
  const compiler = findCompiler();
  if (compiler === undefined) {
    throw new Error(`${missing} and found no C compiler (${COMPILERS.join(', ')}) to build one from ${source}: ` +
                    installCommand(key, 'compiler'));
  }
  fs.mkdirSync(path.dirname(target), {recursive: true});
  // Written beside the target and renamed: a process loading at the same time sees all of it or none.
  const partial = `${target}.${process.pid}.tmp`;
  process.stderr.write(`sqlite-shorn: no prebuilt extension for ${key}; compiling ${source} with ${compiler} ` +
                       `into ${target} (once)\n`);
  try {
    const [command, ...prefix] = compiler.split(/\s+/);
    execFileSync(command, [...prefix, ...compilerArguments(source, partial)], {stdio: ['ignore', 'ignore', 'pipe']});
  } catch (error) {
    fs.rmSync(partial, {force: true});
    const output = String(error.stderr || error.message);
    if (/sqlite3(ext)?\.h/.test(output)) {
      throw new Error(`${missing}, and ${compiler} found no SQLite headers (sqlite3ext.h) to build one: ` +
                      installCommand(key, 'headers'), {cause: error});
    }
    throw new Error(`${missing}, and ${compiler} could not build one from ${source}:\n${output}`, {cause: error});
  }
  fs.renameSync(partial, target);
  return target;
}

module.exports = {build, cachedPath};
