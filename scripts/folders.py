"""The folders of ext/, lowest first: the one list that the amalgamation's
order (scripts/amalgamate.py) and the layer check (tests/builds/layers.py)
follow.  A file includes headers of its own folder and of folders of a lower
rank, never of its rank or above; docs/architecture.md draws the same list.
"""

# (folder under ext/, rank, what it holds)
FOLDERS = [
    ("core/base", 0, "platform macros, allocators, buffers and arenas"),
    ("core/text", 1, "UTF-8, UTF-16 order, escapes, the string kernels, base64, errors"),
    ("core/numbers", 2, "JavaScript numbers, BigInts and their radix conversion, date-times"),
    ("core/regex", 2, "ECMA-262 patterns: compiled, matched, Unicode properties"),
    ("core/json", 3, "the JSON parser and its tree"),
    ("core/shape", 4, "the wire layout: shape kinds, compiled schemas, signature, fingerprint"),
    ("core/schema", 5, "JSON Schema documents to shapes, and the validation keywords"),
    ("core/wire", 6, "JSON to bytes and back, Set and Map identity"),
    ("core/query", 7, "paths read and changed in a payload's bytes"),
    ("core/evolve", 7, "a payload of an older schema read in a newer one's shape"),
    ("sqlite", 8, "the SQLite extension"),
    ("cli", 8, "the shorn command"),
]

# Core folders that only the SQLite layer calls: the amalgamation puts them
# with it, so that a build without SQLite leaves them out.
SQLITE_ONLY = {"core/query", "core/evolve"}

# The core folders each layer above the core may include.  The SQLite layer
# asks the core's queries (core/query) and versions (core/evolve), compiles
# its schemas through core/schema so that they share the process's patterns,
# and never reads the byte layout (core/shape) or walks it (core/wire)
# itself, so that the layout can change under it.
USES = {
    "sqlite": {"core/base", "core/text", "core/numbers", "core/json", "core/schema", "core/query", "core/evolve"},
    "cli": {"core/base", "core/text"},
}

# The byte layout's names, which only the core may spell: shape kinds, the
# dynamic value's tags and the table of what each kind is on the wire.
LAYOUT_NAMES = r"\b(SHAPE_[A-Z0-9_]+|DYNAMIC_[A-Z0-9_]+|WIRE_[A-Z0-9_]+|shape_wires)\b"

# The public headers, in ext/ itself: the core may include shorn.h alone.
PUBLIC = {"shorn.h": 0, "shorn_sqlite.h": 8}

RANK = {folder: rank for folder, rank, _ in FOLDERS}
