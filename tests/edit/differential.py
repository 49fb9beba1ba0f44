#!/usr/bin/env python3
"""shorn_set, shorn_insert, shorn_replace, shorn_remove and shorn_patch
against the composition they stand for, on SQLite 3.45 or later (whose
json_set they follow):

    shorn_encode(json_set(shorn_decode(p, s), path, value), s)

over the golden vectors' payloads and the edit schemas below (every shape:
objects, arrays, tuples, unions, records, Sets, Maps, dynamic values, the
x-shorn shapes, recursion, container keywords), with generated edits: set,
insert, replace and remove of what is there, what is missing, what is past
the end, appends, values of the right type and of wrong ones.  Each call
must give the composition's bytes, or refuse with its message and path.

    differential.py EXTENSION [CASES_PER_PAYLOAD]
"""
import json
import os
import random
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "vectors")

# Shapes the vectors have few of, each with values that exercise it.
EDIT_SCHEMAS = [
    ({"type": "object", "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "minLength": 1, "maxLength": 8},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3, "uniqueItems": True},
        "score": {"type": "number"},
        "nick": {"type": ["string", "null"]},
        "when": {"type": "string", "format": "date-time"},
        "big": {"type": "string", "x-shorn": "bigint"},
        "raw": {"type": "string", "contentEncoding": "base64", "x-shorn": "bytes"},
        "f32": {"type": "number", "x-shorn": "float32"},
        "letters": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "x-shorn": "set"},
        "counts": {"type": "array", "items": {"type": "array", "prefixItems": [{"type": "string"},
                   {"type": "integer", "minimum": 0}], "items": False, "minItems": 2, "maxItems": 2},
                   "x-shorn": "map"},
        "kind": {"enum": ["a", "b", "c"]},
        "v": {"const": 1}},
      "required": ["id", "name", "tags"], "additionalProperties": False},
     ['{"id":1,"name":"ann","tags":["x"]}',
      '{"id":2,"name":"bo","tags":[],"score":1.5,"nick":null,"when":"2026-01-02T00:00:00.000Z",'
      '"big":"-123456789012345678901","raw":"CQk=","f32":0.5,"letters":["a","b"],'
      '"counts":[["x",1],["y",300]],"kind":"b","v":1}',
      '{"id":3,"name":"cy","tags":["p","q","r"],"nick":"c","letters":[],"counts":[]}']),
    ({"type": "object", "properties": {
        "shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
             "required": ["kind", "r"], "additionalProperties": False},
            {"type": "object", "properties": {"kind": {"const": "rect"}, "w": {"type": "integer"},
             "h": {"type": "integer"}}, "required": ["kind", "w", "h"], "additionalProperties": False}],
            "discriminator": {"propertyName": "kind"}},
        "either": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "array", "items": {"type": "boolean"}}]},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False,
                 "minItems": 2, "maxItems": 2},
        "rest": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "minItems": 1},
        "three": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3},
        "scores": {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 3},
        "any": {},
        "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"},
                 "b": {"type": "string"}}, "required": ["a"], "additionalProperties": False},
                 "minItems": 1, "maxItems": 4}},
      "required": ["shape", "list"], "additionalProperties": False},
     ['{"shape":{"kind":"circle","r":2},"list":[{"a":1}]}',
      '{"shape":{"kind":"rect","w":2,"h":3},"either":"s","pair":["k",4],"rest":["r",1,2],"three":[1,2,3],'
      '"scores":{"a":1,"b":2},"any":{"x":[1,{"y":null}],"z":"w"},"list":[{"a":1,"b":"x"},{"a":2}]}',
      '{"shape":{"kind":"circle","r":0.5},"either":[true,false],"any":[1,2,3],"list":[{"a":5}],"scores":{}}']),
    ({"type": "object", "properties": {"name": {"type": "string"}, "extra": {"type": "integer"}},
      "required": ["name"], "additionalProperties": True},
     ['{"name":"x"}', '{"name":"y","extra":3,"more":[1,2],"zz":{"k":true}}']),
    ({"$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                "required": ["value", "children"], "additionalProperties": False}},
      "$ref": "#/$defs/node"},
     ['{"value":1,"children":[]}', '{"value":1,"children":[{"value":2,"children":[{"value":3,"children":[]}]}]}']),
    ({"type": "array", "items": {"type": ["integer", "null"]}, "uniqueItems": True, "maxItems": 5},
     ['[]', '[1,null,3]']),
    ({"type": "object", "properties": {"a": {"type": "integer"}}, "minProperties": 1,
      "additionalProperties": False}, ['{"a":1}']),
]

SCALARS = [None, 0, -1, 7, 300, 2 ** 53 + 1, -(2 ** 63), 1.5, -0.25, -0.0, 1e300, float("inf"), "x", "", "ann", "CQk=",
           "12", "a\u0000b"]
JSON_VALUES = ["true", "false", "null", "[]", "{}", '[1,"a"]', '{"a":1}', '["x","y"]', '{"kind":"rect","w":1,"h":2}',
               '{"kind":"circle","r":1}', '[["z",2]]', '{"value":9,"children":[]}', '"2026-01-02T00:00:00.000Z"']


def connect(extension):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(extension)
    db.enable_load_extension(False)
    return db


def payloads():
    """(schema text, [payloads]) for every schema with encoded values."""
    schemas = {}
    for line in open(os.path.join(VECTORS, "schemas.jsonl"), encoding="utf-8"):
        row = json.loads(line)
        if "error" not in row:
            schemas[row["id"]] = json.dumps(row["schema"], ensure_ascii=False)
    found = {}
    for line in open(os.path.join(VECTORS, "encode.jsonl"), encoding="utf-8"):
        row = json.loads(line)
        if "hex" in row and row["schema_id"] in schemas:
            found.setdefault(schemas[row["schema_id"]], []).append(bytes.fromhex(row["hex"]))
    for line in open(os.path.join(VECTORS, "seed-examples.jsonl"), encoding="utf-8"):
        row = json.loads(line)
        if row["op"] == "encode" and "hex" in row:
            found.setdefault(json.dumps(row["schema"]), []).append(bytes.fromhex(row["hex"]))
    return found


def simple_key(key):
    return isinstance(key, str) and key and all(c.isalnum() or c == "_" for c in key) and not key[0].isdigit()


def places(value, path="$"):
    """(path, value, exists) for each value in the document, and places
    that are missing: a new key, an append, past the end."""
    yield path, value, True
    if isinstance(value, dict):
        for key, item in value.items():
            if simple_key(key):
                yield from places(item, path + "." + key)
            elif '"' not in key and "\\" not in key and all(ord(c) >= 0x20 for c in key):
                yield from places(item, path + '."' + key + '"')
        yield path + ".zz", None, False
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from places(item, "%s[%d]" % (path, i))
        if value:
            yield path + "[#-1]", value[-1], True
        yield path + "[#]", None, False
        yield "%s[%d]" % (path, len(value) + 2), None, False


def property_names(schema):
    names = set()
    if isinstance(schema, dict):
        for key, item in schema.items():
            if key == "properties" and isinstance(item, dict):
                names.update(k for k in item if simple_key(k))
            names |= property_names(item)
    elif isinstance(schema, list):
        for item in schema:
            names |= property_names(item)
    return names


class Run:
    def __init__(self, db):
        self.db = db
        self.counts = {"calls": 0, "same bytes": 0, "same refusal": 0, "mismatches": 0}
        self.functions = {}
        self.failures = []

    def outcome(self, sql, args):
        try:
            return "ok", self.db.execute(sql, args).fetchone()[0]
        except sqlite3.Error as e:
            message = str(e)
            return "error", message.split(": ", 1)[1] if ": " in message else message

    def compare(self, function, schema, payload, args, sql_args, width=None):
        """args: the SQL text of the edit's arguments after the payload and
        schema, with ?3… bound to sql_args."""
        fp = ", %d" % width if width else ""
        ours = "SELECT shorn_%s(?1, ?2%s, %s)" % (function, fp, args)
        theirs = "SELECT shorn_encode(json_%s(shorn_decode(?1, ?2%s), %s), ?2%s)" % (function, fp, args, fp)
        a = self.outcome(ours, (payload, schema) + sql_args)
        b = self.outcome(theirs, (payload, schema) + sql_args)
        self.counts["calls"] += 1
        self.functions[function] = self.functions.get(function, 0) + 1
        if a == b:
            self.counts["same bytes" if a[0] == "ok" else "same refusal"] += 1
        else:
            self.counts["mismatches"] += 1
            if len(self.failures) < 20:
                self.failures.append((ours, schema[:200], payload.hex(), sql_args, a, b))


def value_argument(v, index):
    """The SQL for an edit value and what it binds: JSON text through
    json() (subtype 'J'), or an SQL scalar."""
    if isinstance(v, tuple):
        return "json(?%d)" % index, (v[1],)
    return "?%d" % index, (v,)


def edits_for(run, rng, schema, payload, others, cases):
    db = run.db
    decoded = db.execute("SELECT shorn_decode(?, ?)", (payload, schema)).fetchone()[0]
    document = json.loads(decoded)
    spots = list(places(document))
    names = sorted(property_names(json.loads(schema)))
    for path, _, exists in list(spots):
        if exists and names and path.count(".") < 4:
            spots.append((path + "." + rng.choice(names), None, False))
    values = [("json", json.dumps(v, ensure_ascii=False)) for other in others for (_, v, e) in places(other) if e]
    values += [("json", json.dumps(v, ensure_ascii=False)) for (_, v, e) in spots if e]
    values = values[:400] + [("json", t) for t in JSON_VALUES] + SCALARS
    for _ in range(cases):
        path = rng.choice(spots)[0]
        function = rng.choice(["set", "set", "insert", "replace", "remove"])
        if function == "remove":
            if rng.random() < 0.2:
                run.compare(function, schema, payload, "?3, ?4", (path, rng.choice(spots)[0]))
            else:
                run.compare(function, schema, payload, "?3", (path,))
            continue
        sql, bound = value_argument(rng.choice(values), 4)
        if rng.random() < 0.15:
            second, more = value_argument(rng.choice(values), 6)
            run.compare(function, schema, payload, "?3, %s, ?5, %s" % (sql, second),
                        (path,) + bound + (rng.choice(spots)[0],) + more)
        else:
            run.compare(function, schema, payload, "?3, %s" % sql, (path,) + bound)
    # Merge patches: another value whole, and members removed or replaced.
    # Not with a NUL in a name, which SQLite's json_patch compares as if it
    # ended the name (shorn_patch compares every byte).
    for other in others[:2]:
        text = json.dumps(other, ensure_ascii=False)
        if "\\u0000" not in text + decoded:
            run.compare("patch", schema, payload, "?3", (text,))
    keys = sorted(k for k in document if "\0" not in k) if isinstance(document, dict) else []
    if keys and "\\u0000" not in decoded:
        key = rng.choice(keys)
        run.compare("patch", schema, payload, "?3", (json.dumps({key: None}),))
        # A patch is JSON text: not Infinity, which SQLite's JSON5 reader takes.
        v = rng.choice([v for v in values if v != float("inf")])
        run.compare("patch", schema, payload, "?3", ('{%s:%s}' % (json.dumps(key), v[1] if isinstance(v, tuple) else json.dumps(v)),))


def main():
    extension = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    db = connect(extension)
    version = db.execute("SELECT sqlite_version()").fetchone()[0]
    if tuple(int(p) for p in version.split(".")) < (3, 45, 0):
        sys.exit("differential.py: SQLite %s; json_set as shorn_set follows it needs 3.45 or later" % version)
    run = Run(db)
    rng = random.Random(36)
    corpus = payloads()
    for schema, values in EDIT_SCHEMAS:
        text = json.dumps(schema)
        corpus.setdefault(text, []).extend(
            db.execute("SELECT shorn_encode(?, ?)", (v, text)).fetchone()[0] for v in values)
    # The edit schemas' few payloads get more edits each.
    edit_texts = {json.dumps(s) for s, _ in EDIT_SCHEMAS}
    payload_count = 0
    for schema, found in sorted(corpus.items()):
        documents = [json.loads(db.execute("SELECT shorn_decode(?, ?)", (p, schema)).fetchone()[0]) for p in found[:12]]
        for i, payload in enumerate(found[:12]):
            others = documents[:i] + documents[i + 1:]
            edits_for(run, rng, schema, payload, others[:6], cases * (4 if schema in edit_texts else 1))
            payload_count += 1
    # The fingerprint kept: a few edits of payloads that start with one.
    for schema, found in sorted(corpus.items())[:50]:
        prefixed = db.execute("SELECT shorn_encode(shorn_decode(?1, ?2), ?2, 2)", (found[0], schema)).fetchone()[0]
        run.compare("set", schema, prefixed, "?3, ?4", ("$", None), width=2)
        run.compare("remove", schema, prefixed, "?3", ("$[0]",), width=2)
    print("edit differential on SQLite %s: %d schemas, %d payloads, %d calls (%s): %s" % (
        version, len(corpus), payload_count, run.counts["calls"],
        ", ".join("%s %d" % kv for kv in sorted(run.functions.items())),
        ", ".join("%s %d" % kv for kv in run.counts.items() if kv[0] != "calls")))
    for failure in run.failures:
        print("MISMATCH", failure)
    if run.counts["mismatches"]:
        sys.exit(1)
    if not run.counts["same bytes"] or not run.counts["same refusal"]:
        sys.exit("differential.py: no edit both succeeded and was refused: the generator is broken")


if __name__ == "__main__":
    main()
