"""The pip-installed sqlite_shorn package, in a scratch venv (tests/bindings/python.sh)."""
import contextlib
import importlib.metadata
import io
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

    def test_readme_example_prints_what_its_comments_say(self):
        with open(os.environ["SHORN_README"], encoding="utf-8") as f:
            example = re.search(r"```python\n(.*?)```", f.read(), re.S).group(1)
        expected = re.findall(r"\)  # (.*)", example)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(example, "README.md", "exec"), {})
        self.assertEqual(printed.getvalue().splitlines(), expected)
        self.assertTrue(expected)


if __name__ == "__main__":
    unittest.main()
