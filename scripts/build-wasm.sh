#!/bin/sh
# build-wasm.sh SQLITE_DIR OUT: OUT/shorn.wasm, the extension as a module for
# @sqlite.org/sqlite-wasm (bindings/node/wasm.mjs loads it).  Debian's clang
# and wasm-ld, no C library: the amalgamation (build/amalgamation/shorn.c)
# with SQLITE_CORE, so that it calls SQLite's functions by name, which the
# loader binds to sqlite-wasm's exports, and bindings/wasm/runtime.c for the
# rest.  Position-independent, as a shared library is, since the loader
# places it in sqlite-wasm's memory and function table where there is room.
# SQLITE_DIR gives sqlite3.h.  And OUT/shorn-codec.wasm, the codec alone (below).
set -eu
sqlite=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
# Both modules or neither: make takes shorn.wasm as the mark of the pair.
trap 'rm -f "$out/shorn.wasm" "$out/shorn-codec.wasm"' EXIT
# Clang 14 writes position-independent code for wasm32 only for the
# Emscripten target: that target, with wasi-libc's headers (declarations
# alone, nothing of it is linked).  Bulk memory: memcpy and memset as single
# instructions, which every engine that runs sqlite-wasm has.
resource=$(clang -print-resource-dir)
cc="clang --target=wasm32-unknown-emscripten -nostdinc -isystem $resource/include -isystem /usr/include/wasm32-wasi
  -D__wasi__ -fPIC -fvisibility=hidden -mbulk-memory -msign-ext -mmutable-globals"
# OUT/shorn-codec.wasm, the codec alone for JavaScript's own process
# (bindings/node/codec.mjs): no SQLite, so an ordinary module over
# wasi-libc, started as a reactor, with the stack wasm.mjs gives the
# extension's own calls, for the reasons it gives.  Built meanwhile, on the
# other core.
clang --target=wasm32-wasi --sysroot=/usr -O2 -mexec-model=reactor -mbulk-memory -DSHORN_OMIT_SQLITE \
  -I"$root/build/amalgamation" "$root/build/amalgamation/shorn.c" "$root/bindings/wasm/codec.c" \
  -Wl,--strip-all -Wl,-z,stack-size=2097152 -o "$out/shorn-codec.wasm" &
codec=$!
# shellcheck disable=SC2086
$cc -O2 -DSQLITE_CORE -DSQLITE_THREADSAFE=0 -I"$sqlite" -I"$root/build/amalgamation" \
  -c "$root/build/amalgamation/shorn.c" -o "$out/shorn.o"
# shellcheck disable=SC2086
$cc -O2 -fno-builtin -I"$sqlite" -c "$root/bindings/wasm/runtime.c" -o "$out/runtime.o"
# What is left undefined, SQLite's functions, becomes an import from env.
wasm-ld --experimental-pic -shared --no-entry -O2 --strip-all --export=sqlite3_shorn_init \
  "$out/shorn.o" "$out/runtime.o" -o "$out/shorn.wasm"
wait "$codec"
trap - EXIT
