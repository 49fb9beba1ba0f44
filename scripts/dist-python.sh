#!/bin/sh
# The Python packages a release ships, into DIST, after scripts/dist.sh:
#   dist-python.sh PYTHON VERSION AMALGAMATION_DIR DIST
# a wheel per platform, bindings/python with that platform's binary from
# DIST, tagged py3-none-PLATFORM (the extension is not a CPython module, so
# any Python 3 takes it), and the sdist, bindings/python with the
# amalgamation, which compiles it when installed (setup.py).  setuptools
# builds both, through its PEP 517 hooks, from a staged copy of the package.
set -eu
python=$1 version=$2 amalgamation=$3 shown=$4 dist=$(cd "$4" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# stage DIR: bindings/python and the amalgamation, with no binary.
stage() {
  rm -rf "$1" && mkdir -p "$1"
  cp "$here/bindings/python/pyproject.toml" "$here/bindings/python/setup.py" "$here/bindings/python/MANIFEST.in" \
    "$here/bindings/python/README.md" "$1/"
  mkdir "$1/sqlite_shorn" && cp "$here"/bindings/python/sqlite_shorn/*.py "$1/sqlite_shorn/"
  cp "$amalgamation/shorn.c" "$amalgamation/shorn.h" "$1/"
}

# PEP 517: build_wheel or build_sdist of the package in the current folder;
# prints the file's name, and setuptools' log goes to stderr.
build() {
  "$python" -c '
import contextlib, sys
from setuptools import build_meta
with contextlib.redirect_stdout(sys.stderr):
    name = getattr(build_meta, sys.argv[1])(sys.argv[2])
print(name)' "$@"
}

rm -f "$dist"/sqlite_shorn-* "$dist"/sqlite-shorn-*
for entry in linux-x64:so:manylinux_2_17_x86_64 linux-arm64:so:manylinux_2_17_aarch64 \
  linux-x64-musl:so:musllinux_1_2_x86_64 win32-x64:dll:win_amd64; do
  platform=${entry%%:*} rest=${entry#*:}
  so=${rest%%:*} tag=${rest#*:}
  stage "$stage/$platform"
  cp "$dist/shorn-$version-$platform.$so" "$stage/$platform/sqlite_shorn/shorn.$so"
  # bdist_wheel keeps a platform tag asked for in setup.cfg; the package is
  # otherwise pure Python, whose tag would be py3-none-any.
  printf '[bdist_wheel]\npython_tag = py3\nplat_name = %s\n' "$tag" > "$stage/$platform/setup.cfg"
  wheel=$(cd "$stage/$platform" && build build_wheel "$dist" 2>"$stage/log") || { cat "$stage/log" >&2; exit 1; }
  echo "dist: $shown/$wheel ($(wc -c < "$dist/$wheel") bytes)"
done
stage "$stage/sdist"
sdist=$(cd "$stage/sdist" && build build_sdist "$dist" 2>"$stage/log") || { cat "$stage/log" >&2; exit 1; }
echo "dist: $shown/$sdist ($(wc -c < "$dist/$sdist") bytes)"
