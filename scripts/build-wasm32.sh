#!/bin/sh
# scripts/check-platform.sh's wasm32: Debian's clang for wasm32-wasi against
# Debian's wasi-libc, where size_t is 32 bits and the scanning code takes its
# portable path, the programs run under Node's WASI (RUN):
#   build-wasm32.sh SQLITE_DIR VECTORS_SQLITE_DIR OUT RUN
# writes to OUT SQLite's shell (SQLITE_DIR's shell.c and sqlite3.c) with
# shorn built in as SQLite's WebAssembly build builds it: sqlite3.c compiled
# with SQLITE_EXTRA_INIT=sqlite3_wasm_extra_init and
# bindings/wasm/sqlite3_wasm_extra_init.c, as WASI loads no extension, and
# OUT/shell, which runs it dropping the .load of run-sql-tests.sh; the
# vectors' driver over VECTORS_SQLITE_DIR's SQLite 3.40, whose unix layer
# needs calls WASI lacks, so it is built with SQLITE_OS_OTHER over
# tests/builds/wasi_vfs.c, which serves in-memory databases alone; and the
# string kernels' differential test.
set -eu
sqlite=$1 vectors_sqlite=$2 out=$3 run=$4
root=$(cd "$(dirname "$0")/.." && pwd)
ext=$root/ext
cc="clang --target=wasm32-wasi --sysroot=/usr"
wasi="-D_WASI_EMULATED_MMAN -D_WASI_EMULATED_GETPID -D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_PROCESS_CLOCKS"
wasi_libs="-lwasi-emulated-mman -lwasi-emulated-getpid -lwasi-emulated-signal -lwasi-emulated-process-clocks"
sqlite_flags="-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION"
# The encoder recurses once a nesting level: WASI's default stack, 64 KiB,
# holds fewer levels than the vectors nest; 8 MiB is a Linux main thread's.
stack=-Wl,-z,stack-size=8388608
# SQLite itself, built once: the shell's, shorn in through its extra init, and the vectors' 3.40.
if [ ! -f "$out/sqlite3.o" ] || [ "$sqlite/sqlite3.c" -nt "$out/sqlite3.o" ]; then
  # shellcheck disable=SC2086
  $cc -O1 -w $wasi $sqlite_flags -DSQLITE_EXTRA_INIT=sqlite3_wasm_extra_init -c "$sqlite/sqlite3.c" -o "$out/sqlite3.o"
fi
if [ ! -f "$out/vectors-sqlite3.o" ] || [ "$vectors_sqlite/sqlite3.c" -nt "$out/vectors-sqlite3.o" ]; then
  # shellcheck disable=SC2086
  # Thread-safe, as the other platforms' are: over SQLITE_OS_OTHER its mutexes are no-ops.
  $cc -O1 -w -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OS_OTHER=1 -DSQLITE_TEMP_STORE=3 -c "$vectors_sqlite/sqlite3.c" \
    -o "$out/vectors-sqlite3.o"
fi
# The shell: shell.c over this SQLite; wasi-libc has no <pwd.h> and no popen.
# shellcheck disable=SC2086
$cc -O1 -w $wasi $sqlite_flags -DSQLITE_OMIT_POPEN -I"$root/tests/builds/wasi-include" -I"$sqlite" \
  "$sqlite/shell.c" "$root/tests/builds/wasi_shell.c" -I"$root/build/amalgamation" \
  "$root/bindings/wasm/sqlite3_wasm_extra_init.c" "$out/sqlite3.o" -lm $wasi_libs $stack -o "$out/sqlite3.wasm"
# shellcheck disable=SC2086
$cc -O2 -std=c11 -DSQLITE_CORE -I"$vectors_sqlite" -I"$ext" "$root/tests/vectors/vectors.c" \
  "$root/tests/builds/wasi_vfs.c" "$ext"/core/*/*.c "$ext"/sqlite/*.c "$out/vectors-sqlite3.o" -lm $stack \
  -o "$out/vectors.wasm"
$cc -O2 -std=c11 -I"$ext" -I"$root/tests" "$root/tests/unit/test_simd.c" "$ext"/core/*/*.c -lm -o "$out/test_simd.wasm"

# The shell as run-sql-tests.sh calls it, without its -cmd ".load ...", in
# the directory it runs in.
cat > "$out/shell" <<SHELL
#!/bin/sh
pending=
for argument do
  shift
  if [ -n "\$pending" ]; then
    pending=
    case \$argument in .load\\ *) continue ;; esac
    set -- "\$@" -cmd
  fi
  if [ "\$argument" = -cmd ]; then pending=1; continue; fi
  set -- "\$@" "\$argument"
done
exec $run --cwd "$out/sqlite3.wasm" "\$@"
SHELL
chmod +x "$out/shell"
