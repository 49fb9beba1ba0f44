#!/bin/bash
# A fresh user's Node install: a scratch project installs better-sqlite3,
# whose addon builds from source (no prebuilt download is reachable), and the
# packed sqlite-shorn tarball; then node's test runner runs node.test.js there.
# Usage: tests/bindings/node.sh TARBALL
set -euo pipefail
command -v npm >/dev/null || { echo "node.sh: needs Node.js 20 and npm" >&2; exit 1; }
tarball=$(realpath "$1") tests=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
# npm 11 wants a project to allow each dependency's install scripts (its help
# says the rest are skipped): better-sqlite3's builds its addon.
echo '{"private": true, "allowScripts": {"better-sqlite3@12.11.1": true}}' > package.json
# node-gyp compiles against the headers installed beside node, instead of
# downloading them.
export npm_config_nodedir
npm_config_nodedir=$(dirname "$(dirname "$(node -p process.execPath)")")
# npm's own cache (~/.npm) keeps the downloads between runs; the versions are
# pinned, so it need not ask the registry again for what it has.
TIMEFORMAT="npm install (better-sqlite3 from source, typescript, $(basename "$tarball")): %1Rs"
time timeout 600 npm install --prefer-offline --no-audit --no-fund --loglevel=error \
  better-sqlite3@12.11.1 typescript@5.9.3 @types/better-sqlite3@7.6.13 "$tarball" >/dev/null
cp "$tests/node.test.js" "$tests/types.ts" .
node --test node.test.js
