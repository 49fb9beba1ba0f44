"""The schema registry, shorn_schemas, from Debian's python3 sqlite3 module.

Every connection runs in autocommit (isolation_level=None) so each test says
where its transactions begin and end.  The module keeps prepared statements
and reuses them, so a query that runs again after a registry change is the
same statement, reset: what a name means must follow the registry anyway.
"""
import os
import sqlite3
import tempfile
import unittest

EXTENSION = os.environ.get("SHORN_EXTENSION", "build/shorn")

SETUP = "CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry"

PERSON = ('{"type":"object","properties":{"name":{"type":"string"},'
          '"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]}},'
          '"required":["name","age","sex"],"additionalProperties":false}')
PERSON_FINGERPRINT = "a3b4e3de"  # the reference's 4-byte fingerprint of this wire shape
# Version 2 adds an optional email: a new wire shape, so a new name.
PERSON_V2 = ('{"type":"object","properties":{"name":{"type":"string"},'
             '"age":{"type":"integer","minimum":0},"sex":{"enum":["M","F","X"]},'
             '"email":{"type":"string"}},'
             '"required":["name","age","sex"],"additionalProperties":false}')
GRACE = '{"age":45,"name":"Grace","sex":"F"}'
ALAN = '{"age":41,"email":"alan@example.org","name":"Alan","sex":"M"}'

# One byte, 01, reads as 1 under UINT and as true under BOOLEAN: which one a
# decode prints shows which schema a name was bound to.
UINT = '{"type":"integer","minimum":0}'
BOOLEAN = '{"type":"boolean"}'

# Two wire shapes with one 4-byte fingerprint, 07751154 (found by search).
def one_key(key):
    return ('{"type":"object","properties":{"%s":{"type":"string"}},'
            '"required":["%s"],"additionalProperties":false}' % (key, key))
COLLIDING = (one_key("k643978"), one_key("k991622"))


def connect(path=":memory:", uri=False):
    db = sqlite3.connect(path, uri=uri, isolation_level=None)
    db.enable_load_extension(True)
    db.load_extension(EXTENSION)
    db.enable_load_extension(False)
    return db


def one(db, sql, params=()):
    return db.execute(sql, params).fetchone()[0]


def register(db, name, schema):
    db.execute("INSERT INTO shorn_schemas(name, schema) VALUES (?, ?)", (name, schema))


class FileDatabase(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.directory.name, "test.db")
        self.open = []

    def tearDown(self):
        for db in self.open:
            db.close()
        self.directory.cleanup()

    def connect(self, uri_suffix=None):
        db = connect("file:%s%s" % (self.path, uri_suffix), uri=True) if uri_suffix else connect(self.path)
        self.open.append(db)
        return db

    def flag_table(self, db):
        """A registry binding 'flag' to UINT and a table holding the byte 01."""
        db.execute(SETUP)
        register(db, "flag", UINT)
        db.execute("CREATE TABLE events(payload BLOB)")
        db.execute("INSERT INTO events VALUES (x'01')")


class Persistence(FileDatabase):
    def test_survives_close_and_reopen(self):
        db = self.connect()
        db.execute(SETUP)
        register(db, "person", PERSON)
        db.execute("CREATE TABLE people(payload BLOB)")
        db.execute("INSERT INTO people VALUES (shorn_encode(?, 'person'))", (GRACE,))
        db.close()
        self.open.remove(db)

        db = self.connect()
        db.execute(SETUP)  # the documented setup is harmless when the table exists
        self.assertEqual(db.execute("SELECT name, schema, fingerprint FROM shorn_schemas").fetchall(),
                         [("person", PERSON, PERSON_FINGERPRINT)])
        self.assertEqual(one(db, "SELECT shorn_decode(payload, 'person') FROM people"), GRACE)

    def test_read_only_database_decodes_by_name(self):
        db = self.connect()
        db.execute(SETUP)
        register(db, "person", PERSON)
        db.execute("CREATE TABLE people(payload BLOB)")
        db.execute("INSERT INTO people VALUES (shorn_encode(?, 'person', 4))", (GRACE,))
        db.close()
        self.open.remove(db)

        db = self.connect("?mode=ro")
        db.execute(SETUP)
        self.assertEqual(one(db, "SELECT shorn_decode(payload, 'person', 4) FROM people"), GRACE)
        self.assertEqual(one(db, "SELECT shorn_decode(payload) FROM people"), GRACE)
        self.assertEqual(one(db, "SELECT shorn_fingerprint('person')"), "7236d1")
        with self.assertRaises(sqlite3.OperationalError) as caught:
            register(db, "pet", UINT)
        self.assertEqual(str(caught.exception), "attempt to write a readonly database")

    def test_wal_mode(self):
        writer = self.connect()
        self.assertEqual(one(writer, "PRAGMA journal_mode=WAL"), "wal")
        writer.execute(SETUP)
        register(writer, "person", PERSON)
        writer.execute("CREATE TABLE people(payload BLOB)")
        writer.execute("INSERT INTO people VALUES (shorn_encode(?, 'person', 4))", (GRACE,))
        reader = self.connect()
        self.assertEqual(one(reader, "SELECT shorn_decode(payload) FROM people"), GRACE)
        # A reader's snapshot holds: a registration committed during its
        # transaction is not there until the next one.
        reader.execute("BEGIN")
        self.assertEqual(one(reader, "SELECT count(*) FROM shorn_schemas"), 1)
        register(writer, "person_v2", PERSON_V2)
        with self.assertRaises(sqlite3.OperationalError) as caught:
            reader.execute("SELECT shorn_encode(?, 'person_v2') FROM people", (ALAN,)).fetchall()
        self.assertEqual(str(caught.exception),
                         "shorn_encode: no schema named 'person_v2' is registered in shorn_schemas")
        reader.execute("COMMIT")
        self.assertEqual(one(reader, "SELECT shorn_decode(shorn_encode(?, 'person_v2'), 'person_v2')"
                                     " FROM people", (ALAN,)), ALAN)


class CacheInvalidation(FileDatabase):
    """A connection caches what a name or fingerprint means; these show the
    cache following the registry.  Each query reads a table of main, so it
    runs inside a read transaction and the cache is trusted if nothing says
    otherwise."""

    def test_second_connection_sees_a_registration_and_a_rebinding(self):
        for mode in ("delete", "wal"):
            with self.subTest(journal_mode=mode):
                if os.path.exists(self.path):
                    for db in self.open:
                        db.close()
                    self.open.clear()
                    os.remove(self.path)
                a = self.connect()
                self.assertEqual(one(a, "PRAGMA journal_mode=%s" % mode), mode)
                self.flag_table(a)
                b = self.connect()
                read = "SELECT shorn_decode(payload, 'flag') FROM events"
                # Reads no table, so b holds no transaction on the file and
                # its data version is not current.
                constant = "SELECT shorn_decode(x'01', 'flag')"
                self.assertEqual(one(b, read), "1")
                self.assertEqual(one(b, "SELECT shorn_decode(shorn_encode('1', 'flag', 4)) FROM events"), "1")
                # a registers a new name and rebinds 'flag' to another schema.
                register(a, "pet", '{"type":"string"}')
                self.rebind(a, BOOLEAN)
                self.assertEqual(one(b, read), "true")
                self.assertEqual(one(b, constant), "true")
                self.assertEqual(one(b, "SELECT shorn_decode(shorn_encode('\"Rex\"', 'pet'), 'pet') FROM events"),
                                 '"Rex"')
                # The fingerprint of UINT is no longer registered.
                with self.assertRaises(sqlite3.OperationalError) as caught:
                    b.execute("SELECT shorn_decode(x'0d32320f01') FROM events").fetchall()
                self.assertEqual(str(caught.exception), "shorn_decode: no schema with fingerprint 0d32320f"
                                                        " is registered in shorn_schemas")
                self.rebind(a, UINT)
                self.assertEqual(one(b, constant), "1")
                self.assertEqual(one(b, read), "1")

    def test_a_constant_schema_over_many_rows_follows_the_registry_between_runs(self):
        # A constant schema argument is resolved once per run of a statement
        # and held by it for every row; each run of the same statement,
        # reset, resolves it again.
        a = self.connect()
        self.flag_table(a)
        a.execute("INSERT INTO events WITH RECURSIVE k(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM k WHERE i < 1000)"
                  " SELECT x'01' FROM k")
        b = self.connect()
        by_name = ("SELECT count(shorn_decode(payload, 'flag')), group_concat(DISTINCT shorn_decode(payload, 'flag')),"
                   " group_concat(DISTINCT hex(shorn_encode(shorn_decode(payload, 'flag'), 'flag'))) FROM events")
        by_text = "SELECT count(*), group_concat(DISTINCT shorn_decode(payload, ?1)) FROM events"
        lookups = "SELECT shorn_stats() ->> 'hits' + shorn_stats() ->> 'misses'"
        for reader in (b, a):
            self.assertEqual(reader.execute(by_name).fetchone(), (1000, "1", "01"))
            self.rebind(a, BOOLEAN)
            before = one(reader, lookups)
            self.assertEqual(reader.execute(by_name).fetchone(), (1000, "true", "01"))
            # One look-up for each of the four calls, not one for each row,
            # and the first one's of the name's text.
            self.assertEqual(one(reader, lookups) - before, 5)
            self.assertEqual(reader.execute(by_text, (UINT,)).fetchone(), (1000, "1"))
            self.rebind(a, UINT)
            self.assertEqual(reader.execute(by_name).fetchone(), (1000, "1", "01"))
            self.assertEqual(reader.execute(by_text, (BOOLEAN,)).fetchone(), (1000, "true"))

    def rebind(self, db, schema):
        db.execute("BEGIN")
        db.execute("DELETE FROM shorn_schemas WHERE name = 'flag'")
        register(db, "flag", schema)
        db.execute("COMMIT")

    def test_own_connection_re_registers_after_delete(self):
        db = self.connect()
        self.flag_table(db)
        read = "SELECT shorn_decode(payload, 'flag') FROM events"
        self.assertEqual(one(db, read), "1")
        db.execute("DELETE FROM shorn_schemas WHERE name = 'flag'")
        with self.assertRaises(sqlite3.OperationalError) as caught:
            one(db, read)
        self.assertEqual(str(caught.exception), "shorn_decode: no schema named 'flag' is registered in shorn_schemas")
        register(db, "flag", BOOLEAN)
        self.assertEqual(one(db, read), "true")

    def test_own_uncommitted_changes(self):
        # Inside one transaction the data version stands still; the registry
        # tells the cache itself.
        db = self.connect()
        self.flag_table(db)
        read = "SELECT shorn_decode(payload, 'flag') FROM events"
        db.execute("BEGIN")
        self.assertEqual(one(db, read), "1")
        db.execute("DELETE FROM shorn_schemas WHERE name = 'flag'")
        register(db, "flag", BOOLEAN)
        self.assertEqual(one(db, read), "true")
        db.execute("COMMIT")
        self.assertEqual(one(db, read), "true")

    def test_rename(self):
        # Renaming is allowed; the old name stops resolving, payloads keep
        # their fingerprint.
        db = self.connect()
        self.flag_table(db)
        db.execute("UPDATE events SET payload = shorn_encode('7', 'flag', 4)")
        self.assertEqual(one(db, "SELECT shorn_decode(payload, 'flag', 4) FROM events"), "7")
        db.execute("UPDATE shorn_schemas SET name = 'count' WHERE name = 'flag'")
        with self.assertRaises(sqlite3.OperationalError):
            one(db, "SELECT shorn_decode(payload, 'flag', 4) FROM events")
        self.assertEqual(one(db, "SELECT shorn_decode(payload, 'count', 4) FROM events"), "7")
        self.assertEqual(one(db, "SELECT shorn_decode(payload) FROM events"), "7")


class Transactions(unittest.TestCase):
    def setUp(self):
        self.db = connect()
        self.db.execute(SETUP)
        self.db.execute("CREATE TABLE events(payload BLOB)")
        self.db.execute("INSERT INTO events VALUES (x'01')")

    def tearDown(self):
        self.db.close()

    def assert_unknown(self, name):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            one(self.db, "SELECT shorn_decode(payload, ?) FROM events", (name,))
        self.assertEqual(str(caught.exception),
                         "shorn_decode: no schema named '%s' is registered in shorn_schemas" % name)

    def test_rollback_undoes_a_registration(self):
        self.db.execute("BEGIN")
        register(self.db, "flag", UINT)
        self.assertEqual(one(self.db, "SELECT shorn_decode(payload, 'flag') FROM events"), "1")
        self.db.execute("ROLLBACK")
        self.assertEqual(one(self.db, "SELECT count(*) FROM shorn_schemas"), 0)
        self.assert_unknown("flag")

    def test_rollback_to_a_savepoint(self):
        self.db.execute("BEGIN")
        # The savepoint opens before the registry joins the transaction ...
        self.db.execute("SAVEPOINT before")
        register(self.db, "flag", UINT)
        self.assertEqual(one(self.db, "SELECT shorn_decode(payload, 'flag') FROM events"), "1")
        self.db.execute("ROLLBACK TO before")
        self.assert_unknown("flag")
        # ... and after.
        register(self.db, "kept", BOOLEAN)
        self.db.execute("SAVEPOINT again")
        register(self.db, "flag", UINT)
        self.assertEqual(one(self.db, "SELECT shorn_decode(payload, 'flag') FROM events"), "1")
        self.db.execute("ROLLBACK TO again")
        self.assert_unknown("flag")
        self.db.execute("COMMIT")
        self.assertEqual(self.db.execute("SELECT name FROM shorn_schemas").fetchall(), [("kept",)])

    def test_a_refused_row_takes_its_statement_with_it(self):
        with self.assertRaises(sqlite3.IntegrityError):
            self.db.execute("INSERT INTO shorn_schemas(name, schema) VALUES ('a', ?), ('b', ?)", (UINT, UINT))
        self.assertEqual(one(self.db, "SELECT count(*) FROM shorn_schemas"), 0)


class Refusals(unittest.TestCase):
    """Each refusal says why, and stores nothing."""

    def setUp(self):
        self.db = connect()
        self.db.execute(SETUP)
        register(self.db, "person", PERSON)
        self.before = self.rows()

    def tearDown(self):
        self.db.close()

    def rows(self):
        return self.db.execute("SELECT rowid, * FROM shorn_schemas ORDER BY rowid").fetchall()

    def refused(self, sql, params, message, error=sqlite3.OperationalError):
        with self.assertRaises(error) as caught:
            self.db.execute(sql, params)
        self.assertEqual(str(caught.exception), message)
        self.assertEqual(self.rows(), self.before)

    def test_a_schema_that_does_not_compile(self):
        bad = '{"type":"object","properties":{"age":{"type":"wat"}}}'
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.db.execute("SELECT shorn_signature(?)", (bad,))
        compiler = str(caught.exception).removeprefix("shorn_signature: ")
        self.assertIn("#/properties/age", compiler)
        self.refused("INSERT INTO shorn_schemas(name, schema) VALUES ('bad', ?)", (bad,),
                     "shorn_schemas: the schema of 'bad' does not compile: " + compiler)

    def test_a_name_already_taken(self):
        self.refused("INSERT INTO shorn_schemas(name, schema) VALUES ('person', ?)", (UINT,),
                     "shorn_schemas: the name 'person' is already registered; a new version of it is INSERTed "
                     "with version = 2", sqlite3.IntegrityError)
        register(self.db, "flag", UINT)
        self.before = self.rows()
        self.refused("UPDATE shorn_schemas SET name = 'person' WHERE name = 'flag'", (),
                     "shorn_schemas: the name 'person' is already registered", sqlite3.IntegrityError)

    def test_insert_or_ignore_skips_a_clash(self):
        self.db.execute("INSERT OR IGNORE INTO shorn_schemas(name, schema) VALUES ('person', ?)", (UINT,))
        self.assertEqual(self.rows(), self.before)

    def test_an_update_that_changes_the_wire_shape(self):
        self.refused("UPDATE shorn_schemas SET schema = ? WHERE name = 'person'", (PERSON_V2,),
                     "shorn_schemas: this changes the wire shape of 'person' version 1; a new wire shape is a "
                     "new version (INSERT it with the next version number), so that payloads written with "
                     "this one stay readable",
                     sqlite3.IntegrityError)

    def test_an_update_that_keeps_the_wire_shape(self):
        # Bounds and descriptions are not part of the wire shape.
        payload = one(self.db, "SELECT shorn_encode(?, 'person')", (GRACE,))
        edited = PERSON.replace('"minimum":0}', '"minimum":0,"maximum":150,"description":"years"}')
        self.db.execute("UPDATE shorn_schemas SET schema = ? WHERE name = 'person'", (edited,))
        self.assertEqual(self.db.execute("SELECT schema, fingerprint FROM shorn_schemas").fetchall(),
                         [(edited, PERSON_FINGERPRINT)])
        self.assertEqual(one(self.db, "SELECT shorn_decode(?, 'person')", (payload,)), GRACE)

    def test_the_same_wire_shape_twice(self):
        same = PERSON.replace('"additionalProperties":false', '"additionalProperties":false,"title":"P"')
        self.refused("INSERT INTO shorn_schemas(name, schema) VALUES ('person_again', ?)", (same,),
                     "shorn_schemas: 'person_again' has the same wire shape as 'person', already "
                     "registered (fingerprint a3b4e3de)", sqlite3.IntegrityError)

    def test_a_fingerprint_collision(self):
        register(self.db, "a", COLLIDING[0])
        self.before = self.rows()
        self.assertNotEqual(one(self.db, "SELECT shorn_signature(?)", (COLLIDING[1],)),
                            one(self.db, "SELECT signature FROM shorn_schemas WHERE name = 'a'"))
        self.refused("INSERT INTO shorn_schemas(name, schema) VALUES ('b', ?)", (COLLIDING[1],),
                     "shorn_schemas: 'b' has fingerprint 07751154, which 'a' already has with another "
                     "wire shape; a fingerprint must name one schema", sqlite3.IntegrityError)

    def test_computed_columns(self):
        message = "shorn_schemas: signature and fingerprint are computed from the schema and cannot be set"
        self.refused("INSERT INTO shorn_schemas(name, schema, fingerprint) VALUES ('flag', ?, '00000000')",
                     (UINT,), message)
        self.refused("UPDATE shorn_schemas SET signature = '\"any\"'", (), message)
        # The computed values themselves are accepted: a registry copies over.
        self.db.execute("ATTACH ':memory:' AS other")
        self.db.execute("CREATE TABLE other.copy AS SELECT * FROM shorn_schemas")
        self.db.execute("DELETE FROM shorn_schemas")
        self.db.execute("INSERT INTO shorn_schemas SELECT * FROM other.copy")
        self.assertEqual(self.rows()[0][1:], self.before[0][1:])

    def test_names_and_schemas_that_are_not_text(self):
        message = ("shorn_schemas: a name must be non-empty text starting with neither '{' nor white "
                   "space ('{' starts inline JSON Schema)")
        for name in ("", "{x", " x", 7, b"x"):
            with self.subTest(name=name):
                self.refused("INSERT INTO shorn_schemas(name, schema) VALUES (?, ?)", (name, UINT), message)
        self.refused("INSERT INTO shorn_schemas(schema) VALUES (?)", (UINT,),
                     "shorn_schemas: name is required", sqlite3.IntegrityError)
        self.refused("INSERT INTO shorn_schemas(name) VALUES ('flag')", (),
                     "shorn_schemas: schema is required", sqlite3.IntegrityError)
        self.refused("INSERT INTO shorn_schemas(name, schema) VALUES ('flag', x'7b7d')", (),
                     "shorn_schemas: the schema of 'flag' must be JSON Schema text")

    def test_the_registry_is_main_shorn_schemas(self):
        message = "shorn_registry: the registry must be main.shorn_schemas, the table the SQL functions read"
        for sql in ("CREATE VIRTUAL TABLE schemas USING shorn_registry",
                    "CREATE VIRTUAL TABLE temp.shorn_schemas USING shorn_registry"):
            with self.subTest(sql=sql):
                with self.assertRaises(sqlite3.OperationalError) as caught:
                    self.db.execute(sql)
                self.assertEqual(str(caught.exception), message)
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.db.execute("ALTER TABLE shorn_schemas RENAME TO schemas")
        self.assertEqual(str(caught.exception),
                         "shorn_schemas: cannot be renamed: the SQL functions read main.shorn_schemas")
        self.assertEqual(self.rows(), self.before)


class Resolution(unittest.TestCase):
    def setUp(self):
        self.db = connect()

    def tearDown(self):
        self.db.close()

    def error(self, sql, params=()):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.db.execute(sql, params).fetchall()
        return str(caught.exception)

    def test_every_function_takes_a_name(self):
        self.db.execute(SETUP)
        register(self.db, "person", PERSON)
        payload = one(self.db, "SELECT shorn_encode(?, 'person')", (GRACE,))
        self.assertEqual(payload, one(self.db, "SELECT shorn_encode(?, ?)", (GRACE, PERSON)))
        self.assertEqual(one(self.db, "SELECT shorn_encode(?, 'person', 3)", (GRACE,)),
                         bytes.fromhex("7236d1") + payload)
        self.assertEqual(one(self.db, "SELECT shorn_decode(?, 'person')", (payload,)), GRACE)
        self.assertEqual(one(self.db, "SELECT shorn_fingerprint('person')"), "7236d1")
        self.assertEqual(one(self.db, "SELECT shorn_fingerprint('person', 4)"), PERSON_FINGERPRINT)
        self.assertEqual(one(self.db, "SELECT shorn_signature('person')"),
                         one(self.db, "SELECT signature FROM shorn_schemas"))

    def test_inline_or_name(self):
        # Text whose first character other than white space is '{' is inline.
        self.assertEqual(one(self.db, "SELECT shorn_signature(?)", (' \n\t{"type":"string"}',)), '"string"')
        self.assertEqual(self.error("SELECT shorn_signature(?)", ('"string"',)),
                         "shorn_signature: no schema named '\"string\"' is registered: there is no table "
                         "main.shorn_schemas (CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry)")

    def test_unknown_name(self):
        self.db.execute(SETUP)
        for function in ("shorn_encode('1', 'persn')", "shorn_decode(x'00', 'persn')",
                         "shorn_fingerprint('persn')", "shorn_signature('persn')"):
            with self.subTest(function=function):
                self.assertEqual(self.error("SELECT " + function),
                                 "%s: no schema named 'persn' is registered in shorn_schemas"
                                 % function.split("(")[0])

    def test_dispatch_by_fingerprint_across_two_versions(self):
        self.db.execute(SETUP)
        register(self.db, "person", PERSON)
        register(self.db, "person_v2", PERSON_V2)
        self.db.execute("CREATE TABLE people(id INTEGER PRIMARY KEY, payload BLOB)")
        self.db.execute("INSERT INTO people(payload) VALUES (shorn_encode(?, 'person', 4))", (GRACE,))
        self.db.execute("INSERT INTO people(payload) VALUES (shorn_encode(?, 'person_v2', 4))", (ALAN,))
        self.assertEqual(self.db.execute("SELECT hex(substr(payload, 1, 4)), shorn_decode(payload)"
                                         " FROM people ORDER BY id").fetchall(),
                         [("A3B4E3DE", GRACE), (one(self.db, "SELECT upper(fingerprint) FROM shorn_schemas"
                                                             " WHERE name = 'person_v2'"), ALAN)])
        self.assertEqual(self.db.execute("SELECT s.name FROM people p JOIN shorn_schemas s"
                                         " ON s.fingerprint = hex(substr(p.payload, 1, 4)) COLLATE NOCASE"
                                         " ORDER BY p.id").fetchall(),
                         [("person",), ("person_v2",)])

    def test_one_argument_decode_errors(self):
        self.db.execute(SETUP)
        register(self.db, "person", PERSON)
        self.assertEqual(self.error("SELECT shorn_decode(x'deadbeef00')"),
                         "shorn_decode: no schema with fingerprint deadbeef is registered in shorn_schemas")
        self.assertEqual(self.error("SELECT shorn_decode(x'a3b4e3')"),
                         "shorn_decode: the payload is too short to start with a 4-byte fingerprint"
                         " (its length is 3)")
        # The prefix found the schema; the rest is the schema's to judge.
        self.assertEqual(self.error("SELECT shorn_decode(x'a3b4e3de2d')"),
                         "shorn_decode: Unexpected end of input at byte 5")
        self.assertIsNone(one(self.db, "SELECT shorn_decode(NULL)"))


class DeterministicUse(unittest.TestCase):
    """A function called with a name works wherever SQLite demands a
    deterministic one."""

    def setUp(self):
        self.db = connect()
        self.db.execute(SETUP)
        register(self.db, "person", PERSON)

    def test_innocuous_under_trusted_schema_off(self):
        # As a database from elsewhere should be opened.  (Not every SQLite
        # counts json_extract innocuous, so the schema uses shorn's alone.)
        self.db.execute("PRAGMA trusted_schema = OFF")
        self.db.execute("CREATE TABLE people(payload BLOB, json TEXT AS (shorn_decode(payload, 'person', 4)),"
                        " CHECK (shorn_decode(payload) = shorn_decode(payload, 'person', 4)))")
        self.db.execute("CREATE INDEX people_by_json ON people(shorn_decode(payload))")
        self.db.execute("INSERT INTO people(payload) VALUES (shorn_encode(?, 'person', 4))", (GRACE,))
        self.assertEqual(one(self.db, "SELECT json FROM people"), GRACE)
        self.assertEqual(one(self.db, "PRAGMA integrity_check"), "ok")
        # A payload of another schema fails the CHECK (or the index, whichever
        # SQLite computes first).
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.db.execute("INSERT INTO people(payload) VALUES (shorn_encode('1', ?, 4))", (UINT,))
        self.assertIn(str(caught.exception),
                      ("shorn_decode: no schema with fingerprint 0d32320f is registered in shorn_schemas",
                       "shorn_decode: Payload was written by a different schema (expected fingerprint"
                       " a3b4e3de) at byte 0"))
        self.assertEqual(one(self.db, "SELECT count(*) FROM people"), 1)

    def tearDown(self):
        self.db.close()

    def test_generated_column_and_index(self):
        self.db.execute("CREATE TABLE people(payload BLOB,"
                        " name TEXT GENERATED ALWAYS AS (json_extract(shorn_decode(payload, 'person'), '$.name')),"
                        " age INTEGER GENERATED ALWAYS AS (json_extract(shorn_decode(payload), '$.age')) STORED)")
        self.db.execute("CREATE INDEX people_by_name ON people(name)")
        self.db.execute("CREATE INDEX people_by_sex ON people(json_extract(shorn_decode(payload, 'person'), '$.sex'))")
        for person in (GRACE, '{"age":36,"name":"Ada","sex":"F"}', '{"age":41,"name":"Alan","sex":"M"}'):
            self.db.execute("INSERT INTO people(payload) VALUES (shorn_encode(?, 'person', 4))", (person,))
        by_name = "SELECT age FROM people WHERE name = 'Ada'"
        self.assertEqual(one(self.db, by_name), 36)
        self.assertIn("USING INDEX people_by_name", self.plan(by_name))
        by_sex = "SELECT name FROM people WHERE json_extract(shorn_decode(payload, 'person'), '$.sex') = 'M'"
        self.assertEqual(self.db.execute(by_sex).fetchall(), [("Alan",)])
        self.assertIn("USING INDEX people_by_sex", self.plan(by_sex))
        self.assertEqual(one(self.db, "PRAGMA integrity_check"), "ok")

    def test_check_constraint(self):
        self.db.execute("CREATE TABLE adults(payload BLOB"
                        " CHECK (json_extract(shorn_decode(payload, 'person'), '$.age') >= 18))")
        self.db.execute("INSERT INTO adults VALUES (shorn_encode(?, 'person'))", (GRACE,))
        with self.assertRaises(sqlite3.IntegrityError) as caught:
            self.db.execute("INSERT INTO adults VALUES (shorn_encode('{\"age\":9,\"name\":\"Kim\",\"sex\":\"X\"}',"
                            " 'person'))")
        self.assertEqual(str(caught.exception), "CHECK constraint failed:"
                         " json_extract(shorn_decode(payload, 'person'), '$.age') >= 18")
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.db.execute("INSERT INTO adults VALUES (x'2d')")
        self.assertEqual(str(caught.exception), "shorn_decode: Unexpected end of input at byte 1; a payload an earlier "
                         "schema of 'person' wrote reads wrongly with this one (docs/registry.md, \"Changing a schema\")")
        self.assertEqual(one(self.db, "SELECT count(*) FROM adults"), 1)

    def plan(self, sql):
        return " ".join(row[-1] for row in self.db.execute("EXPLAIN QUERY PLAN " + sql))


class Memory(unittest.TestCase):
    def test_each_memory_database_has_its_own_registry(self):
        a, b = connect(), connect()
        for db in (a, b):
            db.execute(SETUP)
        register(a, "flag", UINT)
        register(b, "flag", BOOLEAN)
        self.assertEqual(one(a, "SELECT shorn_decode(x'01', 'flag')"), "1")
        self.assertEqual(one(b, "SELECT shorn_decode(x'01', 'flag')"), "true")
        a.close()
        b.close()


if __name__ == "__main__":
    unittest.main()
