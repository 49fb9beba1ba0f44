#!/bin/sh
# Cross-compile shorn for one platform and run its tests there, under the
# emulator where the platform is not this machine's:
#   check-platform.sh PLATFORM SQLITE_DIR VECTORS_SQLITE_DIR
# PLATFORM is windows-x64, linux-arm64, linux-s390x, linux-i686, musl,
# clang or wasm32 (scripts/build-wasm32.sh).  SQLITE_DIR holds SQLite's
# sqlite3.c and a shell.c: the SQL files run in that platform's own shell
# over it, which loads the loadable extension built from the amalgamation
# with .load.  The golden vectors run
# in a static program (tests/vectors/vectors.c over ext/) linking the sqlite3.c of
# VECTORS_SQLITE_DIR: 3.40's, whose json_each and json_tree the vectors'
# query checks hold shorn_each and shorn_tree to, as `make check` does
# with Debian's 3.40.  The vectors' query checks run on a fixed sample:
# every 10th vector under an emulator (QUERIES_EVERY), every 5th natively,
# to keep the matrix to minutes; every other check runs on every vector.
set -eu
platform=$1 sqlite=$(cd "$2" && pwd) vectors_sqlite=$(cd "$3" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
ext=$root/ext amalgamation=$root/build/amalgamation
out=$root/build/platforms/$platform
mkdir -p "$out"
exe= so=so run= shared=-fPIC sample=${QUERIES_EVERY:-10} flags=
case $platform in
  # Built by scripts/build-wasm32.sh, run under Node's WASI.  WebAssembly
  # calls take V8's own stack too, whose default holds fewer levels than
  # the 8,192 a value may nest: 4 MB of the main thread's 8 MB holds them.
  wasm32)
    cc="clang --target=wasm32-wasi" exe=.wasm
    run="node --stack-size=4000 --disable-warning=ExperimentalWarning $root/tests/builds/wasi.mjs" ;;
  windows-x64)
    # MinGW's printf follows msvcrt unless asked for the C99 one, which
    # %zu and %lld need.
    cc=x86_64-w64-mingw32-gcc exe=.exe so=dll shared= flags=-D__USE_MINGW_ANSI_STDIO=1
    export WINEPREFIX="$root/build/wine" WINEDEBUG=-all
    run=wine ;;
  linux-arm64) cc=aarch64-linux-gnu-gcc run="qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
  linux-s390x) cc=s390x-linux-gnu-gcc run="qemu-s390x -L /usr/s390x-linux-gnu" ;;
  # Without SSE2: the portable scanning path (scan.h, text.c, json.c).
  linux-i686) cc=i686-linux-gnu-gcc flags="-mno-sse2" sample=5 ;;
  musl) cc=musl-gcc sample=5 ;;
  clang) cc=clang sample=5 ;;
  *) echo "check-platform.sh: no platform $platform" >&2; exit 2 ;;
esac
case $platform in
  windows-x64 | linux-arm64 | linux-s390x | wasm32) ;;
  *) run= ;;
esac
static=-static
[ "$platform" = clang ] && static=
libs="-lm"
[ "$platform" = windows-x64 ] || libs="-lm -lpthread -ldl"
# musl's static libc cannot load a shared object: its shell links libc
# dynamically, as every musl program that loads extensions must.
[ "$platform" = musl ] && static=

echo "== $platform ($cc${run:+, under ${run%% *}})"
start=$(date +%s)
if [ "$platform" = wasm32 ]; then
  "$root/scripts/build-wasm32.sh" "$sqlite" "$vectors_sqlite" "$out" "$run"
else
  # SQLite itself, built once: the shell's, and the vectors' 3.40.
  if [ ! -f "$out/sqlite3.o" ] || [ "$sqlite/sqlite3.c" -nt "$out/sqlite3.o" ]; then
    $cc -O1 -w $flags $shared -DSQLITE_ENABLE_LOAD_EXTENSION -c "$sqlite/sqlite3.c" -o "$out/sqlite3.o"
  fi
  if [ ! -f "$out/vectors-sqlite3.o" ] || [ "$vectors_sqlite/sqlite3.c" -nt "$out/vectors-sqlite3.o" ]; then
    $cc -O1 -w $flags -c "$vectors_sqlite/sqlite3.c" -o "$out/vectors-sqlite3.o"
  fi
  # The shell: shell.c over this SQLite.
  $cc -O1 -w $flags -I"$sqlite" "$sqlite/shell.c" "$out/sqlite3.o" $static $libs -o "$out/sqlite3$exe"
  # The loadable extension, from the amalgamation.
  $cc -O2 -w $flags -shared $shared -I"$sqlite" "$amalgamation/shorn.c" -o "$out/shorn.$so" -lm
  # The vectors' driver, the extension linked in.
  $cc -O2 -std=c11 $flags -DSQLITE_CORE -I"$vectors_sqlite" -I"$ext" "$root/tests/vectors/vectors.c" \
    "$ext"/core/*/*.c "$ext"/sqlite/*.c "$out/vectors-sqlite3.o" $static $libs -o "$out/vectors$exe"
  # The string kernels' differential test (tests/unit/test_simd.c): NEON's
  # only run is here, under the emulator.
  $cc -O2 -std=c11 $flags -I"$ext" -I"$root/tests" "$root/tests/unit/test_simd.c" "$ext"/core/*/*.c $static -lm \
    -o "$out/test_simd$exe"
fi
built=$(date +%s)
# A host whose kernel runs no 32-bit programs runs i686's under qemu-user.
if [ "$platform" = linux-i686 ] && ! "$out/test_simd$exe" --paths > /dev/null 2>&1; then
  run="qemu-i386 -L /usr/i686-linux-gnu" sample=25
  echo "$platform: this kernel runs no 32-bit programs: under ${run%% *}"
fi

# The shell, as run-sql-tests.sh calls it, under the emulator; Windows'
# CRLF line ends read as LF, errors kept in their place among the output.
if [ "$platform" = windows-x64 ]; then
  printf '#!/bin/sh\nWINEPREFIX="%s" WINEDEBUG=-all %s "%s" "$@" 2>&1 | tr -d "\\r"\n' "$WINEPREFIX" "$run" \
    "$out/sqlite3$exe" > "$out/shell"
elif [ "$platform" != wasm32 ]; then
  printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$run" "$out/sqlite3$exe" > "$out/shell"
fi
chmod +x "$out/shell"
status=0
$run "$out/vectors$exe" --queries-every "$sample" "$root/tests/vectors" > "$out/vectors.log" 2>&1 || status=1
grep -v '^  ' "$out/vectors.log" | sed "s/^/$platform: /"
$run "$out/test_simd$exe" > "$out/simd.log" 2>&1 || status=1
sed "s/^/$platform: /" "$out/simd.log"
"$root/scripts/run-sql-tests.sh" "$out/shell" "$out/shorn" > "$out/sql.log" 2>&1 || status=1
sed "s/^/$platform: /" "$out/sql.log"
echo "$platform: built in $((built - start)) s, tested in $(($(date +%s) - built)) s"
exit $status
