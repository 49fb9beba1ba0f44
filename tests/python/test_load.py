"""The extension in Debian's python3 sqlite3 module."""
import os
import sqlite3
import subprocess
import sys
import unittest

EXTENSION = os.environ.get("SHORN_EXTENSION", "build/shorn")

PERSON = ('{"type":"object","properties":{"name":{"type":"string"},'
          '"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},'
          '"required":["name","age","sex"],"additionalProperties":false}')


def connect():
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(EXTENSION)
    db.enable_load_extension(False)
    return db


class LoadTest(unittest.TestCase):
    def test_sqlite_version(self):
        # A run meant for one SQLite (SHORN_SQLITE_VERSION) must not pass on another.
        wanted = os.environ.get("SHORN_SQLITE_VERSION")
        if not wanted:
            self.skipTest("SHORN_SQLITE_VERSION is not set: any SQLite will do")
        version, = connect().execute("SELECT sqlite_version()").fetchone()
        self.assertEqual(version, wanted)

    def test_round_trip(self):
        db = connect()
        payload, = db.execute("SELECT shorn_encode(?, ?)",
                              ('{"name":"Grace","age":45,"sex":"F"}', PERSON)).fetchone()
        self.assertEqual(payload, bytes.fromhex("2d054772616365 00".replace(" ", "")))
        text, = db.execute("SELECT shorn_decode(?, ?)", (payload, PERSON)).fetchone()
        self.assertEqual(text, '{"age":45,"name":"Grace","sex":"F"}')

    def test_error_is_an_sql_error(self):
        db = connect()
        with self.assertRaises(sqlite3.OperationalError) as caught:
            db.execute("SELECT shorn_encode(?, ?)", ('{"name":"Grace","age":-1,"sex":"F"}', PERSON))
        self.assertEqual(str(caught.exception), "shorn_encode: Too small: expected at least 0 at $.age")

    def test_fingerprint(self):
        db = connect()
        self.assertEqual(db.execute("SELECT shorn_fingerprint(?)", (PERSON,)).fetchone()[0], "7236d1")

    def test_auto_entry_point_reaches_every_later_connection(self):
        # In a process of its own: it changes what every connection opens with.
        script = """if True:
            import sqlite3, sys
            def answer(db, sql):
                try:
                    return db.execute(sql).fetchone()[0]
                except sqlite3.OperationalError as error:
                    return str(error)
            before = sqlite3.connect(":memory:")
            first = sqlite3.connect(":memory:")
            first.enable_load_extension(True)
            first.execute("SELECT load_extension(?, 'sqlite3_shornauto_init')", (sys.argv[1],))
            first.close()
            after = sqlite3.connect(":memory:")
            print(answer(before, "SELECT shorn_version()"))
            print(answer(after, "SELECT hex(shorn_encode('45', '{\\"type\\":\\"integer\\"}'))"))
            """
        run = subprocess.run([sys.executable, "-c", script, EXTENSION], capture_output=True, text=True, check=True)
        self.assertEqual(run.stdout.splitlines(), ["no such function: shorn_version", "5A"])


if __name__ == "__main__":
    unittest.main()
