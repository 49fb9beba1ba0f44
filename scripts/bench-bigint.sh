#!/bin/sh
# Time one BigInt through SQL, in the sqlite3 shell with the extension
# loaded, for each magnitude size given in bytes: shorn_decode (magnitude to
# decimal text) and shorn_encode (back), and check that the round trip gives
# the payload again.  docs/performance.md ("BigInt conversion") has figures.
#
#   scripts/bench-bigint.sh SQLITE3 EXTENSION BYTES...
set -e
sqlite=$1 extension=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
schema='{"type":"string","x-shorn":"bigint"}'
printf '%10s %10s %10s %10s %s\n' bytes digits decode_s encode_s round_trip
for bytes in "$@"; do
  # A random magnitude whose top byte is not zero, after its varint header.
  python3 - "$bytes" "$dir/payload" <<'PY'
import os, sys
n = int(sys.argv[1])
header, h = bytearray(), 2 * n
while h >= 0x80:
    header.append(h & 0x7F | 0x80)
    h >>= 7
header.append(h)
with open(sys.argv[2], "wb") as f:
    f.write(bytes(header) + os.urandom(n - 1) + b"\x01")
PY
  "$sqlite" -bail -cmd ".load $extension" :memory: > "$dir/out" <<SQL
CREATE TEMP TABLE p AS SELECT readfile('$dir/payload') AS payload;
.timer on
CREATE TEMP TABLE d AS SELECT shorn_decode(payload, '$schema') AS text FROM p;
CREATE TEMP TABLE e AS SELECT shorn_encode(text, '$schema') AS payload FROM d;
.timer off
SELECT length(text) - 2, (SELECT payload FROM e) = (SELECT payload FROM p) FROM d;
SQL
  # .timer's lines give each statement's CPU time, user plus system.
  awk -v bytes="$bytes" '
    /^Run Time:/ { t[++i] = $6 + $8 }
    /^[0-9]+\|[01]$/ { split($0, r, "|") }
    END { printf "%10d %10d %10.2f %10.2f %s\n", bytes, r[1], t[1], t[2], r[2] ? "ok" : "MISMATCH" }' "$dir/out"
done
