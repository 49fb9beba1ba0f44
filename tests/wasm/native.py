"""The native side of tests/wasm/vectors.mjs: runs the statements of a
cases file through the loadable extension in Python's sqlite3 and prints
each one's rows, or its error message, as JSON lines.

  native.py EXTENSION CASES

CASES is JSON: a list of sessions, each a fresh in-memory database and a
list of [sql, arguments]; an argument {"blob": hex} is a BLOB.  Values come
back as vectors.mjs writes them: BLOBs as {"blob": hex}, integers past 2**53
as {"int": decimal}, infinities as {"float": "inf"}."""
import json
import sqlite3
import sys


def value(v):
    if isinstance(v, bytes):
        return {"blob": v.hex()}
    if isinstance(v, int) and abs(v) > 2**53:
        return {"int": str(v)}
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return {"float": str(v)}
    return v


def argument(a):
    return bytes.fromhex(a["blob"]) if isinstance(a, dict) else a


def main():
    extension, cases = sys.argv[1], sys.argv[2]
    with open(cases, encoding="utf-8") as f:
        sessions = json.load(f)
    out = sys.stdout
    for statements in sessions:
        db = sqlite3.connect(":memory:", isolation_level=None)
        # Text that is not UTF-8 read as a browser's TextDecoder reads it.
        db.text_factory = lambda b: b.decode("utf-8", "replace")
        db.enable_load_extension(True)
        db.load_extension(extension)
        for sql, arguments in statements:
            try:
                rows = [[value(v) for v in row] for row in db.execute(sql, [argument(a) for a in arguments])]
                out.write(json.dumps({"rows": rows}, ensure_ascii=False) + "\n")
            except sqlite3.Error as e:
                out.write(json.dumps({"error": str(e)}, ensure_ascii=False) + "\n")
        db.close()


main()
