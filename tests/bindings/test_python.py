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
        self.assertEqual(str(caught.exception), "shorn_schemas: the name 'person' is already registered")
        with self.assertRaises(sqlite3.Error) as caught:
            sqlite_shorn.register(db, "bad", {"type": "strin"})
        self.assertEqual(str(caught.exception), "shorn_schemas: the schema of 'bad' does not compile: "
                                                'Unsupported JSON Schema type "strin" at #')

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
