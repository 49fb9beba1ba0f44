#!/usr/bin/env python3
"""The layers of ext/ as docs/architecture.md draws them, checked:

- the core (ext/core) includes nothing of SQLite's and nothing of another
  layer: only its own headers, shorn.h and the C library's;
- the SQLite layer (ext/sqlite) and the command (ext/cli) include the core's
  headers and their own, never each other's;
- no cycle among modules, a module being a .c file with its header: when a.c
  includes b.h, module a depends on module b.

    layers.py EXT_DIR
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
ALLOWED = {"core": {"core"}, "sqlite": {"core", "sqlite"}, "cli": {"core", "cli"}}
PUBLIC = {"shorn.h", "shorn_sqlite.h"}


def module(path):
    return os.path.splitext(path)[0]


def main():
    ext = sys.argv[1]
    problems, depends = [], {}
    for layer in ALLOWED:
        for name in sorted(os.listdir(os.path.join(ext, layer))):
            path = layer + "/" + name
            with open(os.path.join(ext, path), encoding="utf-8") as f:
                text = f.read()
            for kind, target in INCLUDE.findall(text):
                if kind == "<":
                    if layer == "core" and target.startswith("sqlite3"):
                        problems.append("%s includes <%s>: the core has no SQLite in it" % (path, target))
                    continue
                if "/" not in target:
                    target = target if target in PUBLIC else layer + "/" + target
                if target in PUBLIC:
                    if layer == "core" and target != "shorn.h":
                        problems.append("%s includes %s" % (path, target))
                    continue
                if target.split("/")[0] not in ALLOWED[layer]:
                    problems.append("%s includes %s, across layers" % (path, target))
                if module(target) != module(path):
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
    print("layers: %d modules, %d dependencies, %d problems" %
          (len(depends), sum(len(v) for v in depends.values()), len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
