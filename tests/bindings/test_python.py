"""The pip-installed sqlite_shorn package, in a scratch venv (tests/bindings/python.sh):
installed from a wheel, SHORN_BINARY names the file its extension must be."""
import contextlib
import importlib.metadata
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import sysconfig
import tempfile
import unittest

import sqlite_shorn

PERSON = ('{"type":"object","properties":{"name":{"type":"string"},'
          '"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},'
          '"required":["name","age","sex"],"additionalProperties":false}')
# A schema an app changes: version 2 adds email (optional) and lang (with a default), and drops nick.
PERSON_V1 = ('{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},'
             '"nick":{"type":"string"}},"required":["name","age","nick"],"additionalProperties":false}')
PERSON_V2 = ('{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},'
             '"email":{"type":"string"},"lang":{"type":"string","default":"en"}},"required":["name","age","lang"],'
             '"additionalProperties":false}')
GRACE_V1 = {"name": "Grace", "age": 45, "nick": "Amazing Grace"}
ADA_V1 = {"name": "Ada", "age": 36, "nick": "Enchantress"}


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
        self.assertEqual(str(caught.exception), "shorn_encode: Too small: expected at least 0 at $.age")

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
        with self.assertRaises(sqlite3.OperationalError) as caught:
            sqlite_shorn.register(db, "person", '{"type":"integer"}')
        self.assertEqual(str(caught.exception), "shorn_schemas: 'person' writes bare payloads (fp_bytes 0), so its rows "
                                                "could not tell version 1 from version 2: give its payloads a "
                                                'fingerprint first (docs/registry.md, "Moving bare rows")')
        with self.assertRaises(sqlite3.Error) as caught:
            sqlite_shorn.register(db, "bad", {"type": "strin"})
        self.assertEqual(str(caught.exception), "shorn_schemas: the schema of 'bad' does not compile: "
                                                'Unsupported JSON Schema type "strin" at #')
        self.assertFalse(db.in_transaction)
        self.assertEqual(db.execute("SELECT group_concat(name) FROM shorn_schemas").fetchone(), ("person",))

    def test_register_follows_a_changed_schema_as_an_app_would_live(self):
        with tempfile.TemporaryDirectory() as folder:
            file = os.path.join(folder, "app.db")
            # The app's first run, in a process of its own, with version 1.
            subprocess.run([sys.executable, "-c", f"""if True:
                import sqlite3, sqlite_shorn
                db = sqlite3.connect({file!r})
                sqlite_shorn.load(db)
                sqlite_shorn.register(db, "person", {PERSON_V1!r}, fp_bytes=4)
                db.execute("CREATE TABLE people(id INTEGER PRIMARY KEY, person BLOB)")
                for person in {[GRACE_V1, ADA_V1]!r}:
                    db.execute("INSERT INTO people(person) VALUES (?)", (sqlite_shorn.encode(db, "person", person),))
                db.commit()"""], check=True)
            # Its next run, with version 2: a member added optional, one with a default, one removed.
            db = sqlite3.connect(file)
            sqlite_shorn.load(db)
            v2 = sqlite_shorn.register(db, "person", PERSON_V2)
            self.assertFalse(db.in_transaction)
            self.assertEqual(db.execute("SELECT version, fp_bytes, fingerprint FROM shorn_schemas ORDER BY version")
                             .fetchall(), [(1, 4, "364965ad"), (2, 4, v2)])
            self.assertEqual(v2, "842a824b")
            self.assertEqual(sqlite_shorn.register(db, "person", PERSON_V2), v2)
            old = [row[0] for row in db.execute("SELECT person FROM people ORDER BY id")]
            self.assertEqual([sqlite_shorn.decode(db, "person", payload) for payload in old],
                             [{"name": "Grace", "age": 45, "lang": "en"}, {"name": "Ada", "age": 36, "lang": "en"}])
            self.assertEqual(db.execute("SELECT id FROM people WHERE shorn_extract(person, 'person', '$.age') > 40 "
                                        "AND shorn_extract(person, 'person', '$.lang') = 'en'").fetchall(), [(1,)])
            db.execute("INSERT INTO people(person) VALUES (?)",
                       (sqlite_shorn.encode(db, "person", {"name": "Alan", "age": 41, "email": "alan@example.org"}),))
            db.commit()
            self.assertEqual(db.execute("SELECT hex(substr(person, 1, 4)), shorn_payload_version(person, 'person') "
                                        "FROM people ORDER BY id").fetchall(),
                             [("364965AD", 1), ("364965AD", 1), ("842A824B", 2)])
            self.assertEqual(sqlite_shorn.decode(db, "person", db.execute("SELECT person FROM people WHERE id = 3")
                                                 .fetchone()[0]),
                             {"name": "Alan", "age": 41, "email": "alan@example.org", "lang": "en"})
            # A schema changed back to version 1's wire shape, or fp_bytes other than the name's.
            with self.assertRaises(ValueError) as caught:
                sqlite_shorn.register(db, "person", PERSON_V1)
            self.assertEqual(str(caught.exception), "sqlite-shorn: this schema has the wire shape of version 1 of "
                                                    "'person', older than its newest, version 2: register the newest "
                                                    "schema of 'person'")
            with self.assertRaises(ValueError) as caught:
                sqlite_shorn.register(db, "person", PERSON_V2, fp_bytes=3)
            self.assertEqual(str(caught.exception), "sqlite-shorn: 'person' is registered with fp_bytes 4, not 3: a "
                                                    "name keeps the width of its first version, so pass fp_bytes=4")
            self.assertFalse(db.in_transaction)
            db.close()

    def test_register_raises_the_registrys_message_for_a_change_it_cannot_read(self):
        db = connect()
        sqlite_shorn.register(db, "person", PERSON_V1, fp_bytes=4)
        retyped = json.loads(PERSON_V1)
        retyped["properties"]["age"] = {"type": "string"}
        with self.assertRaises(sqlite3.OperationalError) as caught:
            sqlite_shorn.register(db, "person", retyped)
        self.assertEqual(str(caught.exception), "shorn_schemas: version 2 of 'person' cannot read what version 1 wrote: "
                                                "#/properties/age: an integer cannot be read as a string")
        self.assertFalse(db.in_transaction)
        self.assertEqual(db.execute("SELECT count(*) FROM shorn_schemas").fetchone(), (1,))

    def test_register_with_fp_bytes_gives_payloads_that_start_with_the_fingerprint(self):
        db = connect()
        sqlite_shorn.register(db, "person", PERSON, fp_bytes=3)
        payload = sqlite_shorn.encode(db, "person", {"name": "Grace", "age": 45, "sex": "F"})
        self.assertEqual(db.execute("SELECT shorn_fingerprint(?, 3)", (PERSON,)).fetchone(), ("7236d1",))
        self.assertEqual(payload.hex(), "7236d12d05477261636500")
        self.assertEqual(sqlite_shorn.decode(db, "person", payload), {"name": "Grace", "age": 45, "sex": "F"})
        with self.assertRaises(TypeError):
            sqlite_shorn.register(db, "other", PERSON, fp_bytes=5)

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
            "enable_load_extension): its Python was built without --enable-loadable-sqlite-extensions, as macOS's own "
            "Python, pyenv's builds and python.org's macOS installer are. Use a Python built with it (Homebrew's; pyenv: "
            "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install VERSION), or APSW (pip install "
            'apsw), whose connections load() takes too; see "A Python that cannot load extensions" in sqlite-shorn\'s '
            "README").replace("test_python.", Connection.__module__ + "."))

    def test_a_python_built_without_extension_loading_is_told_what_to_do(self):
        # A real one: python.sh names a Python on this machine whose sqlite3
        # was built without --enable-loadable-sqlite-extensions (pyenv's).
        python = os.environ.get("SHORN_PYTHON_WITHOUT_LOADING")
        if not python:
            self.skipTest("no Python without extension loading on this machine")
        package = os.path.dirname(os.path.dirname(sqlite_shorn.__file__))
        run = subprocess.run([python, "-c", "import sqlite3, sqlite_shorn\n"
                              "assert not hasattr(sqlite3.Connection, 'enable_load_extension')\n"
                              "try:\n"
                              "    sqlite_shorn.load(sqlite3.connect(':memory:'))\n"
                              "except sqlite3.NotSupportedError as error:\n"
                              "    print(error)\n"], env={**os.environ, "PYTHONPATH": package, "PYTHONNOUSERSITE": "1"},
                             capture_output=True, text=True, check=True)
        self.assertEqual(run.stdout, (
            "sqlite-shorn: this connection cannot load extensions (sqlite3.Connection has no enable_load_extension): "
            "its Python was built without --enable-loadable-sqlite-extensions, as macOS's own Python, pyenv's builds "
            "and python.org's macOS installer are. Use a Python built with it (Homebrew's; pyenv: "
            "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install VERSION), or APSW (pip install "
            'apsw), whose connections load() takes too; see "A Python that cannot load extensions" in sqlite-shorn\'s '
            "README\n"))
        readme = importlib.metadata.metadata("sqlite-shorn").get_payload()
        self.assertIn("\n## A Python that cannot load extensions\n", readme)

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
        # The project README's first example, and each of the package's but
        # SQLAlchemy's (tests/orm/test_sqlalchemy.py runs those).
        with open(os.environ["SHORN_README"], encoding="utf-8") as f:
            examples = [("README.md", re.search(r"```python\n(.*?)```", f.read(), re.S).group(1))]
        package = importlib.metadata.metadata("sqlite-shorn").get_payload()
        examples += [(f"the package's README, example {number}", example) for number, example in
                     enumerate(re.findall(r"```python\n(.*?)```", package, re.S), 1) if "sqlalchemy" not in example]
        self.assertEqual(len(examples), 3)
        for name, example in examples:
            with self.subTest(readme=name):
                expected = re.findall(r"\)  # (.*)", example)
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(example, name, "exec"), {})
                self.assertEqual(printed.getvalue().splitlines(), expected)
                self.assertTrue(expected)


if __name__ == "__main__":
    unittest.main()
