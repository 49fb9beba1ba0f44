#!/bin/sh
# Run each tests/sql/NAME.sql in the sqlite3 shell with the extension loaded
# and compare what it prints with tests/sql/NAME.expected.
#   run-sql-tests.sh SQLITE3 EXTENSION [VERSION]
# With VERSION, the shell must run that SQLite (sqlite_version()), so that a
# run meant for one SQLite cannot pass on another.
#
# Where SQLite's own answers differ between versions (docs/querying.md, "Where
# shorn and SQLite's JSON functions differ"), an expected line may start with
# [sqlite<X.Y] or [sqlite>=X.Y] and a space: it is expected, without that
# prefix, only from an SQLite before X.Y, or from X.Y on.  make test runs
# 3.40.1 and 3.53.2; 3.45, where SQLite rewrote its JSON functions, is the
# line the files draw, not a version they were run on.
set -u
sqlite=$1 extension=$2
dir=$(cd "$(dirname "$0")/../tests/sql" && pwd) # absolute: each file runs elsewhere
case $sqlite in */*) sqlite=$(cd "$(dirname "$sqlite")" && pwd)/$(basename "$sqlite") ;; esac
version=$("$sqlite" :memory: 'SELECT sqlite_version()') || exit 1
if [ $# -ge 3 ] && [ "$version" != "$3" ]; then
  echo "sql: $sqlite runs SQLite $version, not $3"
  exit 1
fi
# The expected lines for this version.
expected_for() {
  awk -v version="$version" '
    function number(v, parts) { split(v, parts, "."); return parts[1] * 1000000 + parts[2] * 1000 + parts[3] }
    match($0, /^\[sqlite(<|>=)[0-9]+\.[0-9]+\] /) {
      condition = substr($0, 8, RLENGTH - 9)
      below = substr(condition, 1, 1) == "<"
      if ((number(version) < number(substr(condition, below ? 2 : 3))) == below) print substr($0, RLENGTH + 1)
      next
    }
    { print }' "$1"
}
failed=0 passed=0
for sql in "$dir"/*.sql; do
  name=$(basename "$sql" .sql)
  work=$(mktemp -d)
  expected_for "$dir/$name.expected" > "$work/expected"
  # Each file runs in a scratch directory, so it may create databases.
  actual=$(cd "$work" && "$sqlite" -batch -cmd ".load $extension" < "$sql" 2>&1)
  if [ "$actual" = "$(cat "$work/expected")" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL tests/sql/$name.sql"
    printf '%s\n' "$actual" | diff -u --label "tests/sql/$name.expected" --label "SQLite $version" "$work/expected" - | head -40
  fi
  rm -rf "$work"
done
echo "sql: SQLite $version: $passed files passed, $failed failed"
[ "$failed" = 0 ]
