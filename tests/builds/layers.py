#!/usr/bin/env python3
"""The folders of ext/ as scripts/folders.py ranks them, checked:

- a file includes headers of its own folder and of folders of a lower rank,
  never of its own rank or above (so ext/sqlite and ext/cli never include
  each other, nor core/numbers and core/regex);
- the core includes nothing of SQLite's, and of the public headers shorn.h
  alone;
- the layers above the core include only the core folders USES gives them,
  and spell none of the byte layout's names (LAYOUT_NAMES);
- no cycle among modules, a module being a .c file with its header: when a.c
  includes b.h, module a depends on module b;
- every folder of ext/ with a source in it is in the list.

    layers.py EXT_DIR
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from folders import LAYOUT_NAMES, PUBLIC, RANK, USES  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
LAYOUT = re.compile(LAYOUT_NAMES)


def module(path):
    return os.path.splitext(path)[0]


def check_include(path, folder, kind, target, problems):
    """The module an include names, or None; problems appended."""
    if kind == "<":
        if folder.startswith("core/") and target.startswith("sqlite3"):
            problems.append("%s includes <%s>: the core has no SQLite in it" % (path, target))
        return None
    if target in PUBLIC:
        if PUBLIC[target] > RANK[folder] or (folder.startswith("core/") and target != "shorn.h"):
            problems.append("%s includes %s" % (path, target))
        return None
    if "/" not in target:
        return folder + "/" + target
    if target.startswith("."):
        target = os.path.normpath(os.path.join(folder, target)).replace(os.sep, "/")
    target_folder = os.path.dirname(target)
    if target_folder not in RANK:
        problems.append("%s includes %s, in no folder of scripts/folders.py" % (path, target))
    elif target_folder != folder and RANK[target_folder] >= RANK[folder]:
        problems.append("%s includes %s: %s is not below %s" % (path, target, target_folder, folder))
    elif folder in USES and target_folder.startswith("core/") and target_folder not in USES[folder]:
        problems.append("%s includes %s: %s asks the core through %s" %
                        (path, target, folder, ", ".join(sorted(USES[folder]))))
    return target


def main():
    ext = sys.argv[1]
    problems, depends = [], {}
    for root, _, names in os.walk(ext):
        folder = os.path.relpath(root, ext).replace(os.sep, "/")
        sources = [n for n in names if n.endswith((".c", ".h"))]
        if folder == "." or not sources:
            continue
        if folder not in RANK:
            problems.append("ext/%s is in no folder of scripts/folders.py" % folder)
            continue
        for name in sorted(sources):
            path = folder + "/" + name
            with open(os.path.join(root, name), encoding="utf-8") as f:
                text = f.read()
            layout = sorted(set(LAYOUT.findall(text))) if folder in USES else []
            if layout:
                problems.append("%s names %s: the byte layout, which only the core reads" % (path, ", ".join(layout)))
            for kind, target in INCLUDE.findall(text):
                target = check_include(path, folder, kind, target, problems)
                if target and module(target) != module(path):
                    depends.setdefault(module(path), set()).add(module(target))
    # Depth-first search for a cycle among modules.
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(depends.get(node, ())):
            if state.get(nxt) == "open":
                problems.append("include cycle: " + " -> ".join(trail[trail.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for node in sorted(depends):
        if node not in state:
            visit(node, [node])
    for p in problems:
        print("layers: " + p)
    print("layers: %d folders, %d modules, %d dependencies, %d problems" %
          (len(RANK), len(depends), sum(len(v) for v in depends.values()), len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
