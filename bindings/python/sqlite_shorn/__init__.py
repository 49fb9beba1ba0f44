"""The shorn SQLite extension, shipped inside this package."""
import json
import os
import platform
import sys

_SUFFIX = {"darwin": "dylib", "win32": "dll"}.get(sys.platform, "so")


def loadable_path():
    """Absolute path of the loadable extension inside this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shorn." + _SUFFIX)
    if not os.path.isfile(path):
        raise OSError(f"sqlite-shorn has no loadable extension for {sys.platform}-{platform.machine()} "
                      f"(looked for {path}); install it from the sdist to compile one: "
                      "pip install --no-binary sqlite-shorn sqlite-shorn")
    return path


def load(conn):
    """Loads the extension into a sqlite3 connection, then turns extension loading off again."""
    conn.enable_load_extension(True)
    try:
        conn.load_extension(loadable_path())
    finally:
        conn.enable_load_extension(False)


def register(conn, name, schema):
    """Stores a JSON Schema (a dict, or JSON text) under name in the registry
    (docs/registry.md), creating the registry if absent, in the connection's
    current transaction; returns its fingerprint, 8 hex digits.  A name taken,
    or a schema that does not compile, raises the registry's own error."""
    text = schema if isinstance(schema, str) else json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry")
    conn.execute("INSERT INTO shorn_schemas(name, schema) VALUES (?, ?)", (name, text))
    return conn.execute("SELECT fingerprint FROM shorn_schemas WHERE name = ?", (name,)).fetchone()[0]
