"""Versions of a registered name on databases as users have them: a file
written by the previous release, and its bare rows moved to a fingerprinted
name so that the name can take a second version (docs/registry.md)."""
import json
import os
import shutil
import sqlite3
import tempfile
import unittest

EXTENSION = os.environ.get("SHORN_EXTENSION", "build/shorn")
# Made by shorn 0.1.0: a registry without versions, 'person' and three bare
# rows in `people`, a CHECK constraint and an expression index over them.
PREVIOUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files", "registry-0.1.0.db")

PERSON_V2 = ('{"type":"object","properties":{"name":{"type":"string","maxLength":40},'
             '"age":{"type":"integer","minimum":0,"maximum":150},"sex":{"type":"string","enum":["M","F","X"]},'
             '"locale":{"type":"string","default":"en"}},"required":["name","age","sex","locale"],'
             '"additionalProperties":false}')


class PreviousReleaseTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "app.db")
        shutil.copy(PREVIOUS, self.path)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.enable_load_extension(True)
        self.db.load_extension(EXTENSION)

    def tearDown(self):
        self.db.close()
        shutil.rmtree(self.dir)

    def rows(self, sql, *args):
        return self.db.execute(sql, args).fetchall()

    def test_opens_and_works_unchanged(self):
        self.assertEqual(self.rows("SELECT name, version, fp_bytes FROM shorn_schemas"), [("person", 1, 0)])
        self.assertEqual(self.rows("SELECT shorn_decode(payload, 'person') FROM people WHERE id = 1"),
                         [('{"age":45,"name":"Grace","sex":"F"}',)])
        self.assertEqual(self.rows("SELECT id FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Ada'"),
                         [(2,)])
        plan = " ".join(r[-1] for r in self.rows(
            "EXPLAIN QUERY PLAN SELECT id FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Ada'"))
        self.assertIn("people_by_name", plan)
        self.db.execute("INSERT INTO people(payload) VALUES (shorn_encode('{\"name\":\"Alan\",\"age\":41,\"sex\":\"M\"}', 'person'))")
        self.assertEqual(self.rows("SELECT hex(payload) FROM people WHERE id = 4"), [("2904416C616E01",)])
        # Writing the registry gives its table the version columns and keeps the old one.
        self.db.execute("INSERT INTO shorn_schemas(name, schema) VALUES ('flag', '{\"type\":\"boolean\"}')")
        self.assertEqual(self.rows("SELECT name, version, fp_bytes FROM shorn_schemas ORDER BY name"),
                         [("flag", 1, 0), ("person", 1, 0)])
        self.assertEqual(self.rows("SELECT name FROM shorn_schemas_unversioned"), [("person",)])
        self.assertEqual(self.rows("SELECT count(*) FROM people WHERE shorn_valid(payload, 'person')"), [(4,)])
        self.assertEqual(self.rows("PRAGMA integrity_check"), [("ok",)])

    def test_a_bare_name_takes_no_second_version(self):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.db.execute("INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', ?, 2)", (PERSON_V2,))
        self.assertIn("'person' writes bare payloads (fp_bytes 0)", str(caught.exception))
        self.assertEqual(self.rows("SELECT count(*) FROM shorn_schemas"), [(1,)])

    def test_moving_bare_rows(self):
        # docs/registry.md, "Moving bare rows", as written there.
        self.db.executescript("""
            BEGIN;
            DROP INDEX people_by_name;
            PRAGMA ignore_check_constraints = ON;
            UPDATE people SET payload = shorn_encode_unchecked(shorn_decode(payload, 'person'), 'person', 4);
            UPDATE shorn_schemas SET fp_bytes = 4 WHERE name = 'person';
            PRAGMA ignore_check_constraints = OFF;
            CREATE INDEX people_by_name ON people(shorn_extract(payload, 'person', '$.name'));
            COMMIT;
        """)
        self.assertEqual(self.rows("SELECT name, version, fp_bytes FROM shorn_schemas"), [("person", 1, 4)])
        self.db.execute("INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', ?, 2)", (PERSON_V2,))
        self.db.execute("INSERT INTO people(payload) VALUES (shorn_encode('{\"name\":\"Alan\",\"age\":41,\"sex\":\"M\"}', 'person'))")
        self.assertEqual(self.rows("SELECT shorn_payload_version(payload, 'person'), shorn_decode(payload, 'person') FROM people"), [
            (1, '{"age":45,"locale":"en","name":"Grace","sex":"F"}'),
            (1, '{"age":36,"locale":"en","name":"Ada","sex":"F"}'),
            (1, '{"age":41,"locale":"en","name":"Alan","sex":"M"}'),
            (2, '{"age":41,"locale":"en","name":"Alan","sex":"M"}')])
        self.assertEqual(self.rows("SELECT id FROM people WHERE shorn_extract(payload, 'person', '$.name') = 'Alan'"),
                         [(3,), (4,)])
        self.assertEqual(self.rows("PRAGMA integrity_check"), [("ok",)])


VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors")


def vectors():
    schemas = {}
    with open(os.path.join(VECTORS, "schemas.jsonl"), encoding="utf-8") as f:
        for line in f:
            s = json.loads(line)
            schemas[s["id"]] = s
    payloads = {}
    with open(os.path.join(VECTORS, "encode.jsonl"), encoding="utf-8") as f:
        for line in f:
            e = json.loads(line)
            if e.get("hex") is not None:
                payloads.setdefault(e["schema_id"], []).append(e)
    return schemas, payloads


class LibraryEnvelopeTest(unittest.TestCase):
    """The library's fingerprinted(compile(V), { bytes }) envelope of each
    version, from its golden vectors (the fingerprint of each width, then
    the bare payload): read by name in the newest version's shape, and
    written by shorn_encode byte for byte."""

    # (writer, reader): an integer member read as a number; members gaining null.
    PAIRS = [("ps00109", "ps00319"), ("ps00109", "ps00198")]

    def test_both_directions(self):
        schemas, payloads = vectors()
        for width in (3, 4):
            for old, new in self.PAIRS:
                with self.subTest(width=width, versions=(old, new)):
                    db = sqlite3.connect(":memory:")
                    db.enable_load_extension(True)
                    db.load_extension(EXTENSION)
                    db.execute("CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry")
                    text = {k: json.dumps(schemas[k]["schema"]) for k in (old, new)}
                    db.execute("INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('v', ?, ?)", (text[old], width))
                    db.execute("INSERT INTO shorn_schemas(name, schema, version) VALUES ('v', ?, 2)", (text[new],))
                    fingerprint = {k: bytes.fromhex(schemas[k]["fp"][str(width)]) for k in (old, new)}
                    self.assertGreater(len(payloads[old]), 5)
                    for vector in payloads[old]:
                        envelope = fingerprint[old] + bytes.fromhex(vector["hex"])
                        as_written, = db.execute("SELECT shorn_decode(?, ?)", (bytes.fromhex(vector["hex"]), text[old])).fetchone()
                        by_name, version = db.execute("SELECT shorn_decode(?, 'v'), shorn_payload_version(?, 'v')",
                                                      (envelope, envelope)).fetchone()
                        self.assertEqual(version, 1)
                        self.assertEqual(json.loads(by_name), json.loads(as_written), vector["id"])
                    for vector in payloads[new]:
                        written, = db.execute("SELECT shorn_encode(?, 'v')", (vector["json"],)).fetchone()
                        self.assertEqual(written, fingerprint[new] + bytes.fromhex(vector["hex"]), vector["id"])
                        upgraded, = db.execute("SELECT shorn_upgrade(?, 'v')", (written,)).fetchone()
                        self.assertEqual(upgraded, written)


if __name__ == "__main__":
    unittest.main()
