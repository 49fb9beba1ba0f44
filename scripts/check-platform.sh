#!/bin/sh
# Cross-compile shorn for one platform and run its tests there, under the
# emulator where the platform is not this machine's:
#   check-platform.sh PLATFORM SQLITE_DIR [EXT_DIR AMALGAMATION_DIR]
# PLATFORM is windows-x64, linux-arm64, linux-s390x, linux-i686, musl or
# clang.  SQLITE_DIR holds SQLite's sqlite3.c and a shell.c.  The golden
# vectors run in a static program (tests/vectors.c over ext/ and sqlite3.c);
# the SQL files run in that platform's own SQLite shell, which loads the
# loadable extension built from the amalgamation with .load.  Under an
# emulator the vectors' query checks run on a fixed sample (every
# QUERIES_EVERY-th vector), as the whole set takes too long there.
set -eu
platform=$1 sqlite=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
ext=$(cd "${3:-$root/ext}" && pwd)
amalgamation=$(cd "${4:-$root/build/amalgamation}" && pwd)
out=$root/build/platforms/$platform
mkdir -p "$out"
exe= so=so run= shared=-fPIC sample=${QUERIES_EVERY:-10} flags=
case $platform in
  windows-x64)
    # MinGW's printf follows msvcrt unless asked for the C99 one, which
    # %zu and %lld need.
    cc=x86_64-w64-mingw32-gcc exe=.exe so=dll shared= flags=-D__USE_MINGW_ANSI_STDIO=1
    export WINEPREFIX="$root/build/wine" WINEDEBUG=-all
    run=wine ;;
  linux-arm64) cc=aarch64-linux-gnu-gcc run="qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
  linux-s390x) cc=s390x-linux-gnu-gcc run="qemu-s390x -L /usr/s390x-linux-gnu" ;;
  # Without SSE2: the portable scanning path (scan.h, text.c, json.c).
  linux-i686) cc=i686-linux-gnu-gcc flags="-mno-sse2" sample=1 ;;
  musl) cc=musl-gcc sample=1 ;;
  clang) cc=clang sample=1 ;;
  *) echo "check-platform.sh: no platform $platform" >&2; exit 2 ;;
esac
case $platform in
  windows-x64 | linux-arm64 | linux-s390x) ;;
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
if [ ! -f "$out/sqlite3.o" ] || [ "$sqlite/sqlite3.c" -nt "$out/sqlite3.o" ]; then
  $cc -O1 -w $flags $shared -DSQLITE_ENABLE_LOAD_EXTENSION -c "$sqlite/sqlite3.c" -o "$out/sqlite3.o"
fi
# The shell: shell.c over this SQLite.
$cc -O1 -w $flags -I"$sqlite" "$sqlite/shell.c" "$out/sqlite3.o" $static $libs -o "$out/sqlite3$exe"
# The loadable extension, from the amalgamation.
$cc -O2 -w $flags -shared $shared -I"$sqlite" "$amalgamation/shorn.c" -o "$out/shorn.$so" -lm
# The vectors' driver, the extension linked in.
$cc -O2 -std=c11 $flags -DSQLITE_CORE -I"$sqlite" -I"$ext" -I"$root/tests" "$root/tests/vectors.c" \
  "$ext"/core/*.c "$ext"/sqlite/*.c "$out/sqlite3.o" $static $libs -o "$out/vectors$exe"
built=$(date +%s)

# The shell, as run-sql-tests.sh calls it: under the emulator, its output's
# CRLF line ends (Windows) read as LF.
cat > "$out/shell" <<WRAPPER
#!/bin/sh
$run "$out/sqlite3$exe" "\$@" | tr -d '\r'
WRAPPER
chmod +x "$out/shell"
status=0
$run "$out/vectors$exe" --queries-every "$sample" "$root/tests/vectors" > "$out/vectors.log" 2>&1 || status=1
grep -v '^  ' "$out/vectors.log" | sed "s/^/$platform: /"
"$root/scripts/run-sql-tests.sh" "$out/shell" "$out/shorn" 2>&1 | sed "s/^/$platform: /" || status=1
echo "$platform: built in $((built - start)) s, tested in $(($(date +%s) - built)) s"
exit $status
