#!/bin/sh
# What `make` and `make demo` need, on any system: a C compiler, SQLite's
# headers and, for the demo, an sqlite3 shell that can load extensions.
#   check-tools.sh CC "SQLITE_CFLAGS" [SQLITE3]
# Exits 0 when all is there.  Otherwise, as root on Debian or Ubuntu, it
# installs what is missing with apt-get; anywhere else it names what to
# install in that system's own words, and exits 1.
# SHORN_OS_RELEASE names another os-release file (the tests use it).
set -u
cc=$1 sqlite_cflags=$2 shell=${3:-}
os_release=${SHORN_OS_RELEASE:-/etc/os-release}

missing=""
command -v "$cc" >/dev/null 2>&1 || missing="$missing compiler"
if [ -z "$missing" ]; then
  # shellcheck disable=SC2086 # the flags are words
  printf '#include <sqlite3ext.h>\nint main(void) { return 0; }\n' |
    "$cc" $sqlite_cflags -x c -fsyntax-only - >/dev/null 2>&1 || missing="$missing headers"
fi
if [ -n "$shell" ]; then
  if ! command -v "$shell" >/dev/null 2>&1; then
    missing="$missing shell"
  else
    # A shell built without extension loading (macOS's own) knows no
    # load_extension(); one with it says only that the file is not there.
    case $("$shell" :memory: "SELECT load_extension('/nonexistent/shorn-check')" 2>&1) in
      *"no such function"*) missing="$missing loadable-shell" ;;
    esac
  fi
fi
[ -z "$missing" ] && exit 0

# The system, as its package manager names it.
system=unknown
case $(uname -s) in
  Darwin) system=macos ;;
  MINGW* | MSYS* | CYGWIN*) system=msys2 ;;
  *)
    if [ -r "$os_release" ]; then
      ids=$(. "$os_release" && echo "${ID:-} ${ID_LIKE:-}")
      case " $ids " in
        *" alpine "*) system=alpine ;;
        *" debian "* | *" ubuntu "*) system=debian ;;
        *" fedora "* | *" rhel "* | *" centos "*) system=fedora ;;
        *" arch "*) system=arch ;;
      esac
    fi
    ;;
esac

# What each missing thing is called there.
packages=""
for thing in $missing; do
  case $system:$thing in
    debian:compiler) packages="$packages gcc libc6-dev" ;;
    debian:headers) packages="$packages libsqlite3-dev" ;;
    debian:*shell) packages="$packages sqlite3" ;;
    alpine:compiler) packages="$packages build-base" ;;
    alpine:headers) packages="$packages sqlite-dev" ;;
    alpine:*shell) packages="$packages sqlite" ;;
    fedora:compiler) packages="$packages gcc" ;;
    fedora:headers) packages="$packages sqlite-devel" ;;
    fedora:*shell) packages="$packages sqlite" ;;
    arch:compiler) packages="$packages gcc" ;;
    arch:*) packages="$packages sqlite" ;;
    msys2:compiler) packages="$packages mingw-w64-ucrt-x86_64-gcc" ;;
    msys2:*) packages="$packages mingw-w64-ucrt-x86_64-sqlite3" ;;
    macos:compiler) ;;
    macos:*) packages="$packages sqlite" ;;
  esac
done
packages=$(printf '%s\n' $packages | sort -u | tr '\n' ' ' | sed 's/ $//')

# Installed once, then checked again: what apt-get cannot bring (another
# CC, say) is still named below.
if [ $system = debian ] && [ "$(id -u)" = 0 ] && [ -z "${SHORN_TOOLS_INSTALLED:-}" ] &&
  command -v apt-get >/dev/null 2>&1; then
  echo "installing: $packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages >/dev/null || exit 1
  SHORN_TOOLS_INSTALLED=1 exec "$0" "$@"
fi

what=""
for thing in $missing; do
  case $thing in
    compiler) what="$what, a C compiler" ;;
    headers) what="$what, SQLite's headers (sqlite3ext.h)" ;;
    shell) what="$what, the sqlite3 shell" ;;
    loadable-shell) what="$what, an sqlite3 shell that can load extensions" ;;
  esac
done
echo "shorn needs:${what#,}" >&2
case $system in
  debian) echo "  sudo apt-get install $packages" >&2 ;;
  alpine) echo "  apk add $packages" >&2 ;;
  fedora) echo "  sudo dnf install $packages" >&2 ;;
  arch) echo "  sudo pacman -S $packages" >&2 ;;
  msys2) echo "  pacman -S $packages make   (in an MSYS2 UCRT64 shell)" >&2 ;;
  macos)
    case $missing in *compiler*) echo "  xcode-select --install" >&2 ;; esac
    [ -n "$packages" ] && echo "  brew install sqlite   (make finds Homebrew's SQLite by itself)" >&2
    ;;
  *) echo "  a C compiler, and SQLite's development files and shell from your system's packages" >&2 ;;
esac
echo "  (docs/building.md has the commands for each platform)" >&2
exit 1
