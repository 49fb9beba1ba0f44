#!/bin/sh
# What make dist writes, checked: each binary is a shared object for its
# platform's CPU (its ELF or PE header), and loads and answers in that
# platform's own SQLite shell (check-platforms builds them; ARM64 under
# qemu, Windows under wine); the amalgamation's tarball holds shorn.c and
# shorn.h.
#   dist.sh DIST VERSION SYSTEM_SQLITE3 PLATFORM_SHELLS_DIR
set -eu
dist=$1 version=$2 system_shell=$3 shells=$4
failed=0
fail() { echo "dist: $*"; failed=$((failed + 1)); }

. "$(dirname "$0")/machine.sh"

for entry in linux-x64:so:x86-64:"$system_shell" linux-arm64:so:aarch64:"$shells/linux-arm64/shell" \
  linux-x64-musl:so:x86-64:"$shells/musl/shell" win32-x64:dll:x86-64:"$shells/windows-x64/shell"; do
  platform=${entry%%:*} rest=${entry#*:}
  so=${rest%%:*} rest=${rest#*:}
  cpu=${rest%%:*} shell=${rest#*:}
  binary=$dist/shorn-$version-$platform.$so
  [ -f "$binary" ] || { fail "no $binary"; continue; }
  got=$(machine "$binary")
  [ "$got" = "$cpu" ] || fail "$binary is for $got, not $cpu"
  answer=$("$shell" :memory: ".load $(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")" \
    "SELECT shorn_version() || ' ' || shorn_fingerprint('{\"type\":\"string\"}');" 2>&1 | tr -d '\r')
  [ "$answer" = "$version 246cab" ] || fail "$binary in $shell: $answer"
done
contents=$(tar -tzf "$dist/shorn-$version-amalgamation.tar.gz" | sort | tr '\n' ' ')
[ "$contents" = "shorn.c shorn.h sqlite3_wasm_extra_init.c " ] || fail "the amalgamation's tarball holds $contents"
[ "$failed" = 0 ] || exit 1
echo "dist: 4 binaries for their CPUs, each loaded in its platform's shell; the amalgamation's tarball"
