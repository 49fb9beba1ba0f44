#!/bin/bash
# A fresh user's Python install: pip installs bindings/python, the extension
# inside it, into a scratch venv of Debian's python3; then test_python.py runs
# there, away from the source tree.
# Usage: tests/bindings/python.sh PYTHON PACKAGE_DIR
set -euo pipefail
python=$1 package=$(realpath "$2") tests=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The venv has setuptools but not wheel, which setuptools builds with; with no
# PyPI to fetch it from, Debian's python3-wheel is lent by the system's
# site-packages.
"$python" -m venv --system-site-packages "$dir/venv"
TIMEFORMAT="pip install of sqlite-shorn: %1Rs"
time "$dir/venv/bin/pip" install -q --no-build-isolation "$package"
cd "$dir" && venv/bin/python "$tests/test_python.py" -v
