#!/bin/sh
# Run each tests/sql/NAME.sql in the sqlite3 shell with the extension loaded
# and compare what it prints with tests/sql/NAME.expected.
#   run-sql-tests.sh SQLITE3 EXTENSION
set -u
sqlite=$1 extension=$2
dir=$(cd "$(dirname "$0")/../tests/sql" && pwd) # absolute: each file runs elsewhere
failed=0 passed=0
for sql in "$dir"/*.sql; do
  name=$(basename "$sql" .sql)
  expected="$dir/$name.expected"
  work=$(mktemp -d)
  # Each file runs in a scratch directory, so it may create databases.
  actual=$(cd "$work" && "$sqlite" -batch -cmd ".load $extension" < "$sql" 2>&1)
  rm -rf "$work"
  if [ "$actual" = "$(cat "$expected")" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL tests/sql/$name.sql"
    printf '%s\n' "$actual" | diff -u "$expected" - | head -40
  fi
done
echo "sql: $passed files passed, $failed failed"
[ "$failed" = 0 ]
