"""The pip-installed sqlite_shorn package, in a scratch venv (tests/bindings/python.sh):
installed from a wheel, SHORN_BINARY names the file its extension must be."""
import contextlib
import importlib.metadata
import io
import json
import os
import re
import sqlite3
import sysconfig
import tempfile
import unittest

import sqlite_shorn

PERSON = ('{"type":"object","properties":{"name":{"type":"string"},'
          '"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},'
          '"required":["name","age","sex"],"additionalProperties":false}')


def connect():
    db = sqlite3.connect(":memory:")
    sqlite_shorn.load(db)
    return db


class PackageTest(unittest.TestCase):
    def test_loadable_path_is_inside_the_installed_package(self):
        path = sqlite_shorn.loadable_path()
        self.assertTrue(os.path.isfile(path))
        package = os.path.join(sysconfig.get_path("purelib"), "sqlite_shorn")
        self.assertEqual(os.path.dirname(path), package)

    def test_extension_is_the_one_the_package_carries(self):
        if "SHORN_BINARY" not in os.environ:
            self.skipTest("installed from the sdist, which compiles its own")
        with open(sqlite_shorn.loadable_path(), "rb") as installed, open(os.environ["SHORN_BINARY"], "rb") as shipped:
            self.assertEqual(installed.read(), shipped.read())

    def test_round_trip(self):
        db = connect()
        payload, = db.execute("SELECT shorn_encode(?, ?)",
                              ('{"name":"Grace","age":45,"sex":"F"}', PERSON)).fetchone()
        self.assertEqual(payload, bytes.fromhex("2d05477261636500"))
        text, = db.execute("SELECT shorn_decode(?, ?)", (payload, PERSON)).fetchone()
        self.assertEqual(text, '{"age":45,"name":"Grace","sex":"F"}')

    def test_version_is_the_package_version(self):
        version, = connect().execute("SELECT shorn_version()").fetchone()
        self.assertEqual(version, importlib.metadata.version("sqlite-shorn"))

    def test_error_is_an_sql_error(self):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            connect().execute("SELECT shorn_encode(?, ?)", ('{"name":"Grace","age":-1,"sex":"F"}', PERSON))
        self.assertEqual(str(caught.exception), "shorn_encode: Expected an unsigned integer at $.age")

    def test_loading_is_turned_off_again(self):
        with self.assertRaisesRegex(sqlite3.OperationalError, "not authorized"):
            connect().execute("SELECT load_extension(?)", (sqlite_shorn.loadable_path(),))

    def test_register_stores_a_dict_or_json_text_and_returns_the_fingerprint(self):
        person = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
                  "required": ["name", "age"], "additionalProperties": False}
        from_dict, from_text = connect(), connect()
        self.assertEqual(sqlite_shorn.register(from_dict, "person", person), "25ab796d")
        self.assertEqual(sqlite_shorn.register(from_text, "person", json.dumps(person)), "25ab796d")
        stored, = from_dict.execute("SELECT schema FROM shorn_schemas WHERE name = 'person'").fetchone()
        self.assertEqual(json.loads(stored), person)
        payload, = from_dict.execute("""SELECT shorn_encode('{"name":"Grace","age":45}', 'person')""").fetchone()
        self.assertEqual(from_text.execute("SELECT shorn_decode(?, 'person')", (payload,)).fetchone(),
                         ('{"age":45,"name":"Grace"}',))

    def test_register_raises_the_registry_errors(self):
        db = connect()
        sqlite_shorn.register(db, "person", '{"type":"string"}')
        with self.assertRaises(sqlite3.IntegrityError) as caught:
            sqlite_shorn.register(db, "person", '{"type":"integer"}')
        self.assertEqual(str(caught.exception), "shorn_schemas: this changes the wire shape of 'person'; a new wire "
                                                "shape needs a new name, so that payloads written with the old one "
                                                "stay readable")
        with self.assertRaises(sqlite3.Error) as caught:
            sqlite_shorn.register(db, "bad", {"type": "strin"})
        self.assertEqual(str(caught.exception), "shorn_schemas: the schema of 'bad' does not compile: "
                                                'Unsupported JSON Schema type "strin" at #')
        self.assertFalse(db.in_transaction)
        self.assertEqual(db.execute("SELECT group_concat(name) FROM shorn_schemas").fetchone(), ("person",))

    def test_register_twice_returns_the_fingerprint_and_a_new_bound_replaces_the_text(self):
        db = connect()
        first = sqlite_shorn.register(db, "person", PERSON)
        self.assertEqual(first, db.execute("SELECT shorn_fingerprint(?, 4)", (PERSON,)).fetchone()[0])
        self.assertEqual(sqlite_shorn.register(db, "person", PERSON), first)
        self.assertEqual(sqlite_shorn.register(db, "person", json.loads(PERSON)), first)
        wider = PERSON.replace('"minimum":0', '"minimum":0,"maximum":150')
        self.assertEqual(sqlite_shorn.register(db, "person", wider), first)
        self.assertEqual(db.execute("SELECT schema FROM shorn_schemas").fetchall(), [(wider,)])

    def test_register_is_committed_and_survives_closing(self):
        with tempfile.TemporaryDirectory() as folder:
            file = os.path.join(folder, "app.db")
            db = sqlite3.connect(file)
            sqlite_shorn.load(db)
            db.execute("CREATE TABLE events(payload BLOB)")
            sqlite_shorn.register(db, "person", PERSON)
            self.assertFalse(db.in_transaction)
            # A later failing insert in `with db:` rolls back only itself.
            with self.assertRaises(sqlite3.OperationalError):
                with db:
                    db.execute("INSERT INTO events VALUES (shorn_encode('{}', 'person'))")
            db.close()
            db = sqlite3.connect(file)
            sqlite_shorn.load(db)
            self.assertEqual(db.execute("SELECT name FROM shorn_schemas").fetchall(), [("person",)])
            self.assertEqual(db.execute("SELECT count(*) FROM events").fetchone(), (0,))

    def test_register_joins_the_callers_open_transaction(self):
        db = connect()
        db.execute("CREATE TABLE t(x)")
        db.execute("INSERT INTO t VALUES (1)")  # sqlite3 opens a transaction here
        self.assertTrue(db.in_transaction)
        sqlite_shorn.register(db, "person", PERSON)
        self.assertTrue(db.in_transaction)
        db.rollback()
        self.assertEqual(db.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'shorn_schemas'").fetchone(), (0,))

    def test_a_connection_that_cannot_load_extensions_is_told_why_and_what_to_do(self):
        class Connection:  # as sqlite3.Connection is without --enable-loadable-sqlite-extensions
            def execute(self, sql, parameters=()):
                raise AssertionError("not reached")
        with self.assertRaises(sqlite3.NotSupportedError) as caught:
            sqlite_shorn.load(Connection())
        self.assertEqual(str(caught.exception), (
            "sqlite-shorn: this connection cannot load extensions (test_python.Connection has no "
            "enable_load_extension): its Python was built without --enable-loadable-sqlite-extensions, as pyenv's "
            "builds and python.org's macOS installer are. Use a Python built with it (pyenv: "
            "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install VERSION), or APSW (pip install "
            "apsw), whose connections load() takes too").replace("test_python.", Connection.__module__ + "."))

    def test_encode_and_decode_with_and_without_the_fingerprint(self):
        db = connect()
        sqlite_shorn.register(db, "person", PERSON)
        grace = {"name": "Grace", "age": 45, "sex": "F"}
        self.assertEqual(sqlite_shorn.encode(db, "person", grace).hex(), "2d05477261636500")
        enveloped = sqlite_shorn.encode(db, "person", grace, fp_bytes=3)
        self.assertEqual(enveloped.hex(), "7236d12d05477261636500")
        self.assertEqual(sqlite_shorn.decode(db, "person", enveloped, fp_bytes=3), grace)
        self.assertEqual(sqlite_shorn.decode(db, None, enveloped, fp_bytes=3), grace)
        self.assertEqual(sqlite_shorn.decode(db, "person", bytes.fromhex("2d05477261636500")), grace)
        with self.assertRaises(sqlite3.OperationalError) as caught:
            sqlite_shorn.decode(db, "person", enveloped)
        self.assertEqual(str(caught.exception), "shorn_decode: Unexpected end of input at byte 2; this payload starts "
                                                "with the 3-byte fingerprint of 'person': pass fp_bytes 3")

    def test_wrong_arguments_say_what_is_wrong(self):
        db = sqlite3.connect(":memory:")
        with self.assertRaises(sqlite3.OperationalError) as caught:
            sqlite_shorn.encode(db, "person", {})
        self.assertEqual(str(caught.exception), "no such function: shorn_encode: call sqlite_shorn.load(conn) first")
        with self.assertRaises(TypeError) as caught:
            sqlite_shorn.decode(db, "person", "7236d12d05477261636500")
        self.assertEqual(str(caught.exception), "sqlite-shorn: decode() takes the payload as bytes, not str")

    def test_apsw(self):
        try:
            import apsw
        except ImportError:
            self.skipTest("no APSW here (Debian: python3-apsw)")
        with tempfile.TemporaryDirectory() as folder:
            file = os.path.join(folder, "app.db")
            db = apsw.Connection(file)
            sqlite_shorn.load(db)
            self.assertEqual(sqlite_shorn.register(db, "person", PERSON), sqlite_shorn.register(db, "person", PERSON))
            self.assertFalse(db.in_transaction)
            payload = sqlite_shorn.encode(db, "person", {"name": "Grace", "age": 45, "sex": "F"}, fp_bytes=3)
            self.assertEqual(payload.hex(), "7236d12d05477261636500")
            self.assertEqual(sqlite_shorn.decode(db, None, payload, fp_bytes=3), {"name": "Grace", "age": 45, "sex": "F"})
            db.execute("BEGIN")
            sqlite_shorn.register(db, "other", '{"type":"string"}')
            db.execute("ROLLBACK")
            db.close()
            db = apsw.Connection(file)
            sqlite_shorn.load(db)
            self.assertEqual(list(db.execute("SELECT name FROM shorn_schemas")), [("person",)])
            with self.assertRaises(apsw.SQLError) as caught:
                db.execute("SELECT load_extension(?)", (sqlite_shorn.loadable_path(),)).fetchone()
            self.assertIn("not authorized", str(caught.exception))

    def test_readme_examples_print_what_their_comments_say(self):
        with open(os.environ["SHORN_README"], encoding="utf-8") as f:
            readmes = {"README.md": f.read(), "the package's README": importlib.metadata.metadata("sqlite-shorn").get_payload()}
        for name, text in readmes.items():
            with self.subTest(readme=name):
                example = re.search(r"```python\n(.*?)```", text, re.S).group(1)
                expected = re.findall(r"\)  # (.*)", example)
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(example, name, "exec"), {})
                self.assertEqual(printed.getvalue().splitlines(), expected)
                self.assertTrue(expected)


if __name__ == "__main__":
    unittest.main()
