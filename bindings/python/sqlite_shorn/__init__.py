"""The shorn SQLite extension, shipped inside this package.

Every function takes a connection of Python's sqlite3 module or of APSW."""
import json
import os
import platform
import sys

_SUFFIX = {"darwin": "dylib", "win32": "dll"}.get(sys.platform, "so")

_NO_LOADING = (
    "sqlite-shorn: this connection cannot load extensions ({kind} has no enable_load_extension): "
    "its Python was built without --enable-loadable-sqlite-extensions, as macOS's own Python, pyenv's builds and "
    "python.org's macOS installer are. Use a Python built with it (Homebrew's; pyenv: "
    "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install VERSION), or APSW "
    "(pip install apsw), whose connections load() takes too; see \"A Python that cannot load extensions\" "
    "in sqlite-shorn's README")


def loadable_path():
    """Absolute path of the loadable extension inside this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shorn." + _SUFFIX)
    if not os.path.isfile(path):
        raise OSError(f"sqlite-shorn has no loadable extension for {sys.platform}-{platform.machine()} "
                      f"(looked for {path}); install it from the sdist to compile one: "
                      "pip install --no-binary sqlite-shorn sqlite-shorn")
    return path


def load(conn):
    """Loads the extension into a sqlite3 or APSW connection, then turns
    extension loading off again.  A connection that cannot load extensions
    raises NotSupportedError, saying why and what to use instead."""
    # APSW before 3.44 spells them without underscores.
    enable = getattr(conn, "enable_load_extension", None) or getattr(conn, "enableloadextension", None)
    load_extension = getattr(conn, "load_extension", None) or getattr(conn, "loadextension", None)
    if enable is None or load_extension is None:
        import sqlite3
        raise sqlite3.NotSupportedError(_NO_LOADING.format(kind=type(conn).__module__ + "." + type(conn).__name__))
    enable(True)
    try:
        load_extension(loadable_path())
    finally:
        enable(False)


def _one(conn, sql, parameters=()):
    row = conn.execute(sql, parameters).fetchone()
    return row[0] if row else None


def register(conn, name, schema, fp_bytes=None):
    """Stores a JSON Schema (a dict, or JSON text) under name in the registry
    (docs/registry.md), creating the registry if absent; returns the
    fingerprint of the name's newest version, 8 hex digits.  Committed at
    once, unless the connection has a transaction open: then it is part of
    that transaction.

    A new name is version 1, whose payloads start with fp_bytes (1-4) bytes
    of its fingerprint; none with 0 or None.  Registering the same schema
    again returns its fingerprint; a new text with the newest version's wire
    shape replaces its text; another wire shape is the next version, which
    the registry takes when it reads the payloads of every earlier version
    (else its error names each member it cannot read).  A schema with the
    wire shape of an older version, or fp_bytes other than the name's, raises
    ValueError; a schema that does not compile, the registry's error."""
    text = schema if isinstance(schema, str) else json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    if fp_bytes is not None and (isinstance(fp_bytes, bool) or not isinstance(fp_bytes, int) or not 0 <= fp_bytes <= 4):
        raise TypeError(f"sqlite-shorn: register()'s fp_bytes is 0 (no fingerprint) or 1-4, not {fp_bytes!r}")
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry")
        newest = conn.execute("SELECT version, schema, signature, fp_bytes FROM shorn_schemas WHERE name = ? "
                              "ORDER BY version DESC LIMIT 1", (name,)).fetchone()
        if newest is None:
            conn.execute("INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES (?, ?, ?)", (name, text, fp_bytes or 0))
        else:
            version, stored, signature, width = newest
            width = width or 0
            if fp_bytes is not None and fp_bytes != width:
                raise ValueError(f"sqlite-shorn: '{name}' is registered with fp_bytes {width}"
                                 f"{' (payloads without a fingerprint)' if width == 0 else ''}, not {fp_bytes}: a name "
                                 f"keeps the width of its first version, so pass fp_bytes={width}")
            if stored != text:
                new_signature = _one(conn, "SELECT shorn_signature(?)", (text,))
                if new_signature == signature:
                    # The same wire shape: the newest version takes the new text.
                    conn.execute("UPDATE shorn_schemas SET schema = ? WHERE name = ? AND version = ?",
                                 (text, name, version))
                else:
                    older = _one(conn, "SELECT version FROM shorn_schemas WHERE name = ? AND signature = ? "
                                       "ORDER BY version DESC LIMIT 1", (name, new_signature))
                    if older is not None:
                        raise ValueError(f"sqlite-shorn: this schema has the wire shape of version {older} of "
                                         f"'{name}', older than its newest, version {version}: register the newest "
                                         f"schema of '{name}'")
                    # The registry refuses it, naming each member, unless it reads what every earlier version wrote.
                    conn.execute("INSERT INTO shorn_schemas(name, schema, version) VALUES (?, ?, ?)",
                                 (name, text, version + 1))
        fingerprint = _one(conn, "SELECT fingerprint FROM shorn_schemas WHERE name = ? ORDER BY version DESC LIMIT 1",
                           (name,))
    except BaseException:
        if own:
            conn.execute("ROLLBACK")
        raise
    if own:
        conn.execute("COMMIT")
    return fingerprint


def _call(conn, sql, parameters):
    try:
        return _one(conn, sql, parameters)
    except Exception as error:
        if "no such function: shorn_" in str(error):
            raise type(error)(f"{error}: call sqlite_shorn.load(conn) first") from error
        raise


def encode(conn, name, value, fp_bytes=None):
    """The payload (bytes) of a value, as json.dumps writes it, with the
    schema registered under name; fp_bytes (1-4) puts that many bytes of its
    fingerprint first, as the library's default envelope does with 3."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if fp_bytes is None:
        return bytes(_call(conn, "SELECT shorn_encode(?, ?)", (text, name)))
    return bytes(_call(conn, "SELECT shorn_encode(?, ?, ?)", (text, name, fp_bytes)))


def decode(conn, name, payload, fp_bytes=None):
    """The value of a payload, as json.loads reads it, with the schema
    registered under name; with fp_bytes, the payload starts with that many
    bytes of its fingerprint.  name None with fp_bytes: the registered schema
    that fingerprint names."""
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        raise TypeError(f"sqlite-shorn: decode() takes the payload as bytes, not {type(payload).__name__}")
    payload = bytes(payload)
    if name is None:
        if fp_bytes is None:
            raise TypeError("sqlite-shorn: decode() with no name needs fp_bytes, the payload's fingerprint width")
        return json.loads(_call(conn, "SELECT shorn_decode(?, ?)", (payload, fp_bytes)))
    if fp_bytes is None:
        return json.loads(_call(conn, "SELECT shorn_decode(?, ?)", (payload, name)))
    return json.loads(_call(conn, "SELECT shorn_decode(?, ?, ?)", (payload, name, fp_bytes)))
