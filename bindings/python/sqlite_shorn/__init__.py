"""The shorn SQLite extension, shipped inside this package."""
import os
import platform
import sys

_SUFFIX = {"darwin": "dylib", "win32": "dll"}.get(sys.platform, "so")


def loadable_path():
    """Absolute path of the loadable extension inside this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shorn." + _SUFFIX)
    if not os.path.isfile(path):
        raise OSError(f"sqlite-shorn has no loadable extension for {sys.platform}-{platform.machine()} "
                      f"(looked for {path})")
    return path


def load(conn):
    """Loads the extension into a sqlite3 connection, then turns extension loading off again."""
    conn.enable_load_extension(True)
    try:
        conn.load_extension(loadable_path())
    finally:
        conn.enable_load_extension(False)
