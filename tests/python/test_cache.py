"""The schema cache across connections, from Debian's python3 sqlite3 module:
compiled schemas are shared by the connections of a process, so a pool of
connections reading the same types compiles each schema once, and what a
name means still follows each connection's own registry."""
import json
import os
import sqlite3
import tempfile
import threading
import unittest

from test_registry import EXTENSION, SETUP, connect, one, register

TYPES = 300
CONNECTIONS = 16


def type_schema(t):
    return json.dumps({"type": "object", "properties": {
        "id": {"type": "integer", "minimum": 0}, "type_%d" % t: {"type": "string"},
        "at": {"type": "string", "format": "date-time"}, "note": {"type": ["string", "null"]}},
        "required": ["id", "type_%d" % t, "at", "note"], "additionalProperties": False})


def pool_of(path):
    """Connections for threads of their own: made here, used there."""
    pool = []
    for _ in range(CONNECTIONS):
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.enable_load_extension(True)
        db.load_extension(EXTENSION)
        pool.append(db)
    return pool


def in_threads(pool, sql, params=lambda k: ()):
    """Run `sql` on every connection at once, each in a thread; the first
    column of each one's row, or the errors."""
    results, failures = [None] * len(pool), []

    def run(k):
        try:
            results[k] = one(pool[k], sql, params(k))
        except Exception as e:  # noqa: BLE001 - returned to the test
            failures.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(pool))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, failures


def stats(db):
    return json.loads(one(db, "SELECT shorn_stats()"))


class Pool(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.directory.name, "events.db")
        db = connect(self.path)
        db.execute(SETUP)
        db.execute("BEGIN")
        for t in range(TYPES):
            register(db, "type_%d" % t, type_schema(t))
        db.execute("CREATE TABLE events(name TEXT, payload BLOB)")
        db.execute("CREATE TABLE json(name TEXT, value TEXT)")
        for i in range(3 * TYPES):
            t = i % TYPES
            db.execute("INSERT INTO json VALUES (?, ?)", ("type_%d" % t, json.dumps(
                {"id": i, "type_%d" % t: "x", "at": "2026-01-02T03:04:05.678Z", "note": None})))
        db.execute("COMMIT")
        db.close()

    def tearDown(self):
        self.directory.cleanup()

    def test_sixteen_connections_compile_each_schema_once(self):
        pool = pool_of(self.path)
        # The payloads, written by one connection: every schema compiled.
        pool[0].execute("INSERT INTO events SELECT name, shorn_encode(value, name) FROM json")
        self.assertEqual(stats(pool[0])["compilations"], TYPES)
        before = stats(pool[0])["process"]["compilations"]
        counts, failures = in_threads(pool, "SELECT count(shorn_decode(payload, name)) FROM events")
        self.assertEqual(failures, [])
        self.assertEqual(counts, [3 * TYPES] * CONNECTIONS)
        after = [stats(db) for db in pool]
        # No connection compiled anything more: each found the process's.
        self.assertEqual(after[0]["process"]["compilations"], before)
        self.assertEqual([s["compilations"] for s in after[1:]], [0] * (CONNECTIONS - 1))
        self.assertEqual(after[0]["process"]["schemas"], TYPES)
        # Each reader holds an entry per text and one per name.
        self.assertEqual({s["entries"] for s in after[1:]}, {2 * TYPES})
        self.assertEqual({s["misses"] for s in after[1:]}, {2 * TYPES})
        for db in pool:
            db.close()

    def test_a_pool_missing_at_once_compiles_each_schema_once(self):
        pool = pool_of(self.path)
        before = stats(pool[0])["process"]["compilations"]
        # Each connection in an order of its own, all missing together.
        _, failures = in_threads(pool, "SELECT count(shorn_encode(value, name)) FROM json ORDER BY (rowid * ?) % 7",
                                 lambda k: (k + 1,))
        self.assertEqual(failures, [])
        after = [stats(db) for db in pool]
        self.assertEqual(after[0]["process"]["compilations"] - before, TYPES)
        self.assertEqual(sum(s["compilations"] for s in after), TYPES)
        for db in pool:
            db.close()

    def test_one_text_two_registries(self):
        # Two databases bind one name to two schemas; the compiled schemas
        # are shared by text, the names stay each connection's.
        a, b = connect(), connect()
        for db, schema in ((a, '{"type":"integer","minimum":0}'), (b, '{"type":"boolean"}')):
            db.execute(SETUP)
            register(db, "flag", schema)
        self.assertEqual(one(a, "SELECT shorn_decode(x'01', 'flag')"), "1")
        self.assertEqual(one(b, "SELECT shorn_decode(x'01', 'flag')"), "true")
        self.assertEqual(one(b, "SELECT shorn_decode(x'01', '{\"type\":\"integer\",\"minimum\":0}')"), "1")
        self.assertEqual(stats(b)["compilations"], 1)
        a.close()
        self.assertEqual(one(b, "SELECT shorn_decode(x'01', 'flag')"), "true")
        b.close()


if __name__ == "__main__":
    unittest.main()
