#!/bin/sh
# scripts/check-tools.sh on the systems make may meet: silent when all is
# there, and otherwise the install command in that system's own words.
# Other systems are played by an os-release file and stand-in commands
# (uname, a shell without extension loading) first on PATH.
set -u
check=$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-tools.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
# A compiler that finds no sqlite3ext.h.
no_headers="-nostdinc -I$work/empty"
passed=0 failed=0

# expect NAME STATUS TEXT -- COMMAND...: the status and a line of output.
expect() {
  name=$1 status=$2 text=$3
  shift 4
  out=$("$@" 2>&1)
  got=$?
  if [ -z "$text" ]; then
    printed() { [ -z "$out" ]; }
  else
    printed() { printf '%s\n' "$out" | grep -qxF -- "$text"; }
  fi
  if [ "$got" = "$status" ] && printed; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: status %s (want %s), printed:\n%s\n' "$name" "$got" "$status" "$out"
  fi
}
os() { printf 'ID=%s\nID_LIKE="%s"\n' "$1" "${2:-}" > "$work/os-release"; }
fake_uname() { printf '#!/bin/sh\necho %s\n' "$1" > "$work/bin/uname" && chmod +x "$work/bin/uname"; }
run() { SHORN_TOOLS_INSTALLED=1 SHORN_OS_RELEASE=$work/os-release PATH=$work/bin:$PATH "$check" "$@"; }

expect "all there" 0 "" -- "$check" cc "" sqlite3
os alpine
expect "alpine" 1 "  apk add sqlite sqlite-dev" -- run cc "$no_headers" no-sqlite3
expect "alpine, what" 1 "shorn needs: SQLite's headers (sqlite3ext.h), the sqlite3 shell" -- run cc "$no_headers" no-sqlite3
os ubuntu debian
expect "ubuntu" 1 "  sudo apt-get install libsqlite3-dev" -- run cc "$no_headers"
os rocky "rhel centos fedora"
expect "rocky" 1 "  sudo dnf install gcc" -- run no-cc ""
os arch
expect "arch" 1 "  sudo pacman -S sqlite" -- run cc "" no-sqlite3
fake_uname MINGW64_NT-10.0-19045
expect "msys2" 1 "  pacman -S mingw-w64-ucrt-x86_64-gcc make   (in an MSYS2 UCRT64 shell)" -- run no-cc ""
# macOS's own shell: SQLite without extension loading.
fake_uname Darwin
printf '#!/bin/sh\necho "Parse error: no such function: load_extension" >&2\nexit 1\n' > "$work/bin/apple-sqlite3"
chmod +x "$work/bin/apple-sqlite3"
expect "macos shell" 1 "shorn needs: an sqlite3 shell that can load extensions" -- run cc "" apple-sqlite3
expect "macos brew" 1 "  brew install sqlite   (make finds Homebrew's SQLite by itself)" -- run cc "" apple-sqlite3
expect "macos compiler" 1 "  xcode-select --install" -- run no-cc ""
echo "tools: $passed passed, $failed failed"
[ "$failed" = 0 ]
