#!/usr/bin/env python3
"""The internal names of the amalgamation, checked to be unique.

scripts/amalgamate.py makes ext/core and ext/sqlite one translation unit in
which every internal name is static, so two modules (a .c file with its
header) that each define a static `parse` compile apart and collide there.
This reads the same files (every folder of scripts/folders.py but the
command's, with the public headers) and fails on a name defined at file
scope by two modules: a `static` function or table, or one a header
declares SHORN_PRIVATE or SHORN_PRIVATE_DATA.  A module may declare and
define its own name as often as it likes.

    names.py EXT_DIR
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from folders import FOLDERS  # noqa: E402

# A file-scope definition or declaration starts a line with one of the
# storage words.  Its name is the last identifier before the first
# parenthesis, bracket, initialiser or semicolon; or a pointer's, in
# `(*name`; or, after an unnamed struct's closing brace, the table's.
STORAGE = r"^(?:static|SHORN_PRIVATE|SHORN_PRIVATE_DATA)\b"
NAMES = [
    re.compile(STORAGE + r"[^(\[=;{]*?\b([A-Za-z_]\w*)\s*(?!\(\s*\*)[(\[=;]", re.M),
    re.compile(STORAGE + r"[^(;{]*\(\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)", re.M),
    re.compile(STORAGE + r"[^(;{]*\bstruct\s*\{.*?^\}\s*([A-Za-z_]\w*)", re.M | re.S),
]


def files(ext):
    yield "shorn.h"
    yield "shorn_sqlite.h"
    for folder, _, _ in FOLDERS:
        if folder == "cli":
            continue
        for name in sorted(os.listdir(os.path.join(ext, folder))):
            if name.endswith((".c", ".h")):
                yield folder + "/" + name


def main():
    ext = sys.argv[1]
    where = {}  # name -> the modules that define it, in amalgamation order
    for path in files(ext):
        with open(os.path.join(ext, path), encoding="utf-8") as f:
            text = f.read()
        module = os.path.splitext(path)[0]
        for pattern in NAMES:
            for name in pattern.findall(text):
                modules = where.setdefault(name, [])
                if module not in modules:
                    modules.append(module)
    problems = ["%s is defined by %s" % (name, ", ".join(m + ".*" for m in modules))
                for name, modules in sorted(where.items()) if len(modules) > 1]
    for p in problems:
        print("names: " + p)
    print("names: %d internal names, %d defined twice" % (len(where), len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
