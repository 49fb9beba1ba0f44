"""shorn_paths over the golden vectors' schemas: every place a vector's
value has is a listed path (a recursion followed to where its row says it
leads), of a listed type, and shorn_type reaches it there with what
json_tree gives on the decoded value."""
import json
import os
import re
import unittest

from test_load import connect

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors")
STEP = re.compile(r'\.([A-Za-z][A-Za-z0-9]*)|\."([^"]*)"|\[(\d+)\]')
# json_tree's type, and the shorn_paths types that take it.
TYPES = {"null": {"null"}, "true": {"boolean"}, "false": {"boolean"}, "integer": {"integer", "number"},
         "real": {"number"}, "text": {"string"}, "array": {"array"}, "object": {"object"}}


def read(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def member(key):
    return "." + key if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", key) else f'."{key}"'


def place(listed, fullkey):
    """The listed rows of the place a concrete fullkey is at (or of the
    dynamic value it is inside), or None."""
    at, end = "$", 1
    while end < len(fullkey):
        step = STEP.match(fullkey, end)
        if not step:
            return None
        end = step.end()
        if any("any" in row["types"] for row in listed.get(at, [])):
            return listed[at]  # a dynamic value: anything may be below
        leads = [row["leads_to"] for row in listed.get(at, []) if row["leads_to"]]
        at = leads[0] if leads else at
        key = step.group(1) if step.group(1) is not None else step.group(2)
        candidates = [at + member(key), at + ".*"] if key is not None else [at + f"[{step.group(3)}]", at + "[*]"]
        at = next((c for c in candidates if c in listed), None)
        if at is None:
            return None
    return listed.get(at)


class PathsTest(unittest.TestCase):
    def test_every_place_of_every_vector_is_listed_and_reached(self):
        db = connect()
        schemas = {s["id"]: json.dumps(s["schema"]) for s in read("schemas.jsonl") if "error" not in s}
        listed, seen = {}, {}
        checked = 0
        for vector in read("encode.jsonl"):
            # Three values a schema: the vectors' schemas, not their values, are what is tested.
            if "hex" not in vector or vector["schema_id"] not in schemas or seen.get(vector["schema_id"], 0) == 3:
                continue
            seen[vector["schema_id"]] = seen.get(vector["schema_id"], 0) + 1
            schema = schemas[vector["schema_id"]]
            if schema not in listed:
                listed[schema] = {}
                for path, types, leads_to in db.execute("SELECT path, type, leads_to FROM shorn_paths(?)", (schema,)):
                    listed[schema].setdefault(path, []).append({"types": set(types.split("|")), "leads_to": leads_to})
            payload = bytes.fromhex(vector["hex"])
            rows = db.execute("SELECT t.fullkey, t.type, shorn_type(?2, ?1, t.fullkey) = t.type "
                              "FROM (SELECT shorn_decode(?2, ?1) AS j) AS d, json_tree(d.j) AS t "
                              # A key with an escape is reached otherwise (docs/querying.md).
                              "WHERE instr(t.fullkey, '\\') = 0",
                              (schema, payload)).fetchall()
            for fullkey, kind, reached in rows:
                with self.subTest(vector=vector["id"], path=fullkey):
                    found = place(listed[schema], fullkey)
                    self.assertIsNotNone(found, f"{fullkey} is not listed for {schema}")
                    types = set().union(*(row["types"] for row in found))
                    self.assertTrue("any" in types or TYPES[kind] & types, f"{kind} at {fullkey}: listed {types}")
                    self.assertEqual(reached, 1)
                    checked += 1
        self.assertGreater(len(listed), 500)
        self.assertGreater(checked, 5000)


if __name__ == "__main__":
    unittest.main()
