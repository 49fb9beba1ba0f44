#!/bin/sh
# shorn on wasm32: Debian's clang for wasm32-wasi against Debian's
# wasi-libc, run under Node's WASI (tests/builds/wasi.mjs), where size_t is
# 32 bits and the scanning code takes its portable path:
#   check-wasm32.sh VECTORS_SQLITE_DIR
# The golden vectors in a program linking ext/ and SQLite 3.40 (as the other
# platforms' do), every 10th vector's query checks, as under an emulator; the string kernels'
# differential test.  SQLite 3.40's unix layer needs calls WASI lacks, so it
# is built with SQLITE_OS_OTHER over tests/builds/wasi_vfs.c, which serves
# in-memory databases alone.  SQLite's shell does not build for WASI, so the
# SQL files are not run here.
set -eu
vectors_sqlite=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
ext=$root/ext out=$root/build/platforms/wasm32
mkdir -p "$out"
cc="clang --target=wasm32-wasi --sysroot=/usr"
run="node --disable-warning=ExperimentalWarning $root/tests/builds/wasi.mjs"
echo "== wasm32 (clang for wasm32-wasi, under Node's WASI)"
start=$(date +%s)
if [ ! -f "$out/vectors-sqlite3.o" ] || [ "$vectors_sqlite/sqlite3.c" -nt "$out/vectors-sqlite3.o" ]; then
  $cc -O1 -w -DSQLITE_OS_OTHER=1 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_TEMP_STORE=3 \
    -c "$vectors_sqlite/sqlite3.c" -o "$out/vectors-sqlite3.o"
fi
# The encoder recurses once a nesting level: WASI's default stack, 64 KiB,
# holds fewer levels than the vectors nest; 8 MiB is a Linux main thread's.
$cc -O2 -std=c11 -DSQLITE_CORE -I"$vectors_sqlite" -I"$ext" -I"$root/tests" "$root/tests/vectors.c" \
  "$root/tests/builds/wasi_vfs.c" "$ext"/core/*/*.c "$ext"/sqlite/*.c "$out/vectors-sqlite3.o" -lm \
  -Wl,-z,stack-size=8388608 -o "$out/vectors.wasm"
$cc -O2 -std=c11 -I"$ext" -I"$root/tests" "$root/tests/unit/test_simd.c" "$ext"/core/*/*.c -lm -o "$out/test_simd.wasm"
built=$(date +%s)
status=0
$run "$out/vectors.wasm" --queries-every 10 "$root/tests/vectors" > "$out/vectors.log" 2>&1 || status=1
grep -v '^  ' "$out/vectors.log" | sed "s/^/wasm32: /"
$run "$out/test_simd.wasm" > "$out/simd.log" 2>&1 || status=1
sed "s/^/wasm32: /" "$out/simd.log"
echo "wasm32: built in $((built - start)) s, tested in $(($(date +%s) - built)) s"
exit $status
