#!/bin/bash
# sqlite-shorn/drizzle and sqlite-shorn/kysely in a project that has them
# installed: better-sqlite3, drizzle-orm, drizzle-kit, kysely, the
# validators, typescript, and sqlite-shorn itself (tests/bindings/node.sh's
# scratch project; or, by hand, a folder where `npm install --install-links
# bindings/node` ran with build/shorn.so copied into the package's
# lib/linux-x64/).  Drizzle runs on better-sqlite3, and on bun:sqlite when
# BUN (Bun's binary) is given; Kysely on better-sqlite3; the README's
# examples of both; tsc --strict checks types.ts, as CommonJS and as an
# ES module under nodenext.  drizzle-orm 1.0's
# relational queries run in a project beside, which npm installs it in
# (DRIZZLE_NEXT: its version, 1.0.0-rc.5 unless given; empty to skip).
# Usage: tests/orm/node.sh PROJECT [BUN]
set -euo pipefail
project=$(realpath "$1") bun=${2:-} tests=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "$project/orm.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$tests"/{schema.mjs,drizzle.test.mjs,kysely.test.mjs,readme.test.mjs,types.ts} "$work/"
cd "$work"
failed=0
SHORN_CLIENT=better-sqlite3 node --test drizzle.test.mjs kysely.test.mjs readme.test.mjs || failed=1
if [ -n "$bun" ]; then SHORN_CLIENT=bun:sqlite "$bun" test ./drizzle.test.mjs || failed=1; fi
# drizzle-orm 1.0's relational queries, in a project of their own beside:
# sqlite-shorn copied there finds that drizzle-orm, the rest is the project's.
if [ -n "${DRIZZLE_NEXT-1.0.0-rc.5}" ]; then
  next=$work/drizzle-next
  mkdir -p "$next/node_modules" && echo '{"private": true}' > "$next/package.json"
  (cd "$next" && npm install --prefer-offline --no-audit --no-fund --loglevel=error --no-save \
    "drizzle-orm@${DRIZZLE_NEXT-1.0.0-rc.5}" >/dev/null) || { echo "orm/node.sh: npm install drizzle-orm"; failed=1; }
  cp -r "$project/node_modules/sqlite-shorn" "$next/node_modules/"
  for package in "$project"/node_modules/*; do
    [ -e "$next/node_modules/$(basename "$package")" ] || ln -s "$package" "$next/node_modules/"
  done
  cp "$tests/drizzle-next.test.mjs" "$next/"
  (cd "$next" && SHORN_CLIENT=better-sqlite3 node --test drizzle-next.test.mjs) || failed=1
  if [ -n "$bun" ]; then (cd "$next" && SHORN_CLIENT=bun:sqlite "$bun" test ./drizzle-next.test.mjs) || failed=1; fi
fi
# drizzle-orm's declarations name drivers this project lacks: skipLibCheck,
# as drizzle's documentation asks.
tsc=$project/node_modules/typescript/bin/tsc
node "$tsc" --noEmit --strict --esModuleInterop --skipLibCheck types.ts || { echo "orm/node.sh: tsc types.ts"; failed=1; }
# The same as an ES module under nodenext resolution, as a project of
# "type": "module" compiles it: there each import's declarations must be ESM.
sed "s/^import Database = require('better-sqlite3');/import Database from 'better-sqlite3';/" types.ts > types.mts
node "$tsc" --noEmit --strict --module nodenext --moduleResolution nodenext --skipLibCheck types.mts ||
  { echo "orm/node.sh: tsc types.mts (nodenext)"; failed=1; }
exit $failed
