#!/bin/sh
# The loadable extension for each platform a release ships, cross-compiled
# from the amalgamation with nothing but libc and libm, and the
# amalgamation itself, into DIST:
#   dist.sh VERSION AMALGAMATION_DIR SQLITE_INCLUDE_DIR DIST
# writes shorn-VERSION-PLATFORM.so (.dll on Windows) for linux-x64,
# linux-arm64, linux-x64-musl and win32-x64, stripped, and
# shorn-VERSION-amalgamation.tar.gz (shorn.c and shorn.h, and
# sqlite3_wasm_extra_init.c, which builds them into SQLite's WebAssembly build).
set -eu
version=$1 amalgamation=$2 include=$3 dist=$4
mkdir -p "$dist"
for platform in linux-x64 linux-arm64 linux-x64-musl win32-x64; do
  case $platform in
    linux-x64) cc=cc so=so ;;
    linux-arm64) cc=aarch64-linux-gnu-gcc so=so ;;
    linux-x64-musl) cc=musl-gcc so=so ;;
    win32-x64) cc=x86_64-w64-mingw32-gcc so=dll ;;
  esac
  out="$dist/shorn-$version-$platform.$so"
  pic=-fPIC
  [ "$so" = dll ] && pic=
  $cc -O2 -shared $pic -s -I"$include" "$amalgamation/shorn.c" -o "$out" -lm
  echo "dist: $out ($(wc -c < "$out") bytes)"
done
wasm=$(cd "$(dirname "$0")/../bindings/wasm" && pwd)
tar -czf "$dist/shorn-$version-amalgamation.tar.gz" -C "$amalgamation" shorn.c shorn.h -C "$wasm" sqlite3_wasm_extra_init.c
echo "dist: $dist/shorn-$version-amalgamation.tar.gz ($(wc -c < "$dist/shorn-$version-amalgamation.tar.gz") bytes)"
