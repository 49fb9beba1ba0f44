#!/bin/bash
# A fresh user's Python install, from what make dist wrote: pip installs the
# manylinux x86_64 wheel into one scratch venv of Debian's python3 and the
# sdist, which compiles the amalgamation, into another; test_python.py runs
# in each, away from the source tree.  Neither reaches PyPI (--no-index).
# Usage: tests/bindings/python.sh PYTHON DIST VERSION
set -euo pipefail
python=$1 dist=$(realpath "$2") version=$3 tests=$(cd "$(dirname "$0")" && pwd)
wheel=$dist/sqlite_shorn-$version-py3-none-manylinux_2_17_x86_64.whl
sdist=$dist/sqlite-shorn-$version.tar.gz
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

if tar -tzf "$sdist" | grep -E '\.(so|dll|dylib)$'; then
  echo "python.sh: the sdist carries a binary" >&2
  exit 1
fi

# install NAME PACKAGE: a venv under $dir/NAME with PACKAGE installed, timed
# from nothing to the first query.  setuptools builds the sdist with
# Debian's python3-wheel, which --system-site-packages lends the venv.
install() {
  local start=$SECONDS
  "$python" -m venv --system-site-packages "$dir/$1"
  "$dir/$1/bin/pip" install -q --no-index --no-build-isolation "$2"
  "$dir/$1/bin/python" -c 'import sqlite3, sqlite_shorn; db = sqlite3.connect(":memory:"); sqlite_shorn.load(db)
assert db.execute("SELECT shorn_version()").fetchone() == (__import__("sys").argv[1],)' "$version"
  echo "python.sh: $(basename "$2"): a new venv to the first query in $((SECONDS - start)) s" >&2
}

# A Python 3.8 or later whose sqlite3 was built without extension loading
# (pyenv's builds, where pyenv is), for load()'s error on a real one.
for candidate in "$(command -v pyenv >/dev/null && pyenv root)"/versions/*/bin/python3 "$(command -v python3)"; do
  if [ -x "$candidate" ] && "$candidate" -c 'import sqlite3, sys
sys.exit(sys.version_info < (3, 8) or hasattr(sqlite3.Connection, "enable_load_extension"))' 2>/dev/null; then
    export SHORN_PYTHON_WITHOUT_LOADING=$candidate
    echo "python.sh: $candidate cannot load extensions: load()'s error is tested there" >&2
    break
  fi
done

install wheel "$wheel"
(cd "$dir" && SHORN_BINARY=$dist/shorn-$version-linux-x64.so wheel/bin/python "$tests/test_python.py")
# sqlite_shorn.sqlalchemy with Debian's python3-sqlalchemy, which the venv sees.
(cd "$dir" && wheel/bin/python "$tests/../orm/test_sqlalchemy.py")
install sdist "$sdist"
(cd "$dir" && sdist/bin/python "$tests/test_python.py")
