#!/usr/bin/env python3
"""corpus.py - the fuzz harnesses' schema list and seed corpora, from the vectors.

  corpus.py schemas          append to tests/fuzz/schemas.jsonl every schema of
                             the vectors that compiles and is not listed yet
  corpus.py seeds DIR        write DIR/<harness>/ seed inputs for every harness

A decode, round trip, encode or onepass input starts with two bytes, little endian,
that pick a schema by its line in schemas.jsonl (modulo the line count); the
rest is the payload or the JSON text.  A query input has the same two bytes,
then one byte giving the length of a path, the path, and the payload.  A
compile input is schema text, then optionally a NUL and a payload; a
pattern input is a pattern, then optionally a NUL and a string.  An evolve
input has a byte choosing a pair of schemas (of its own list, or from the
schema list: two bytes each, or one line as both) and a fingerprint width,
then what picks the pair, then the payload.  An edit
input has the two bytes, one choosing the function and the kind of value,
one giving the length of a path, the path, one giving the length of a
value, the value, and the payload.  So that a saved input keeps meaning
the same schema, the list is only ever appended to.

Schemas are copied as the exact text of the vectors (raw_decode finds where
each value ends), so numbers such as -0 and 1e400, raw UTF-8 and escapes
reach the compiler as the vectors spell them.
"""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "vectors")
SCHEMAS = os.path.join(HERE, "schemas.jsonl")
DECODER = json.JSONDecoder()


def members(line):
    """The top-level members of a JSON object line: key -> (value, raw text)."""
    out, i = {}, line.index("{") + 1
    while True:
        while line[i] in " \t,":
            i += 1
        if line[i] == "}":
            return out
        key, i = DECODER.raw_decode(line, i)
        while line[i] in " \t:":
            i += 1
        value, end = DECODER.raw_decode(line, i)
        out[key] = (value, line[i:end])
        i = end


def rows(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return [members(line.rstrip("\n")) for line in f if line.strip()]


def value(row, key, default=None):
    return row[key][0] if key in row else default


def compilable_schemas():
    """Schema texts in vector order: schemas.jsonl then seed-examples.jsonl."""
    texts = [r["schema"][1] for r in rows("schemas.jsonl") if "error" not in r]
    for r in rows("seed-examples.jsonl"):
        if not (value(r, "op") == "compile" and "error" in r):
            texts.append(r["schema"][1])
    return texts


def load_list():
    if not os.path.exists(SCHEMAS):
        return []
    with open(SCHEMAS, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def append_schemas():
    listed = load_list()
    known = set(listed)
    added = [t for t in dict.fromkeys(compilable_schemas()) if t not in known]
    with open(SCHEMAS, "a", encoding="utf-8") as f:
        for t in added:
            f.write(t + "\n")
    print(f"schemas.jsonl: {len(listed)} listed, {len(added)} added")


def write(directory, data):
    """One seed file, named by its content as libFuzzer names its own."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def path_steps(v, depth=0):
    """SQLite JSON paths into a value: each member and element to depth 3,
    [#-1] of each array, and a name that is not there."""
    if depth == 3:
        return
    if isinstance(v, dict):
        yield ".nope"
        for k, child in v.items():
            if '"' in k or "\\" in k:
                continue
            step = "." + k if k.isidentifier() else '."' + k + '"'
            yield step
            for rest in path_steps(child, depth + 1):
                yield step + rest
    elif isinstance(v, list):
        if v:
            yield "[#-1]"
        yield f"[{len(v)}]"
        for i, child in enumerate(v[:3]):
            yield f"[{i}]"
            for rest in path_steps(child, depth + 1):
                yield f"[{i}]" + rest


def query_paths(r, malformed):
    """Paths for a decode vector: the root, three into its value when it
    has one, and with `malformed` two that SQLite refuses."""
    paths = ["$"] + (["$.a[", "$[#-x]"] if malformed else [])
    if "error" not in r:
        paths += ["$" + p for p in path_steps(json.loads(value(r, "json")))][:3]
    return paths


def query_input(prefix, path, payload):
    text = path.encode("utf-8", "surrogatepass")[:255]
    return prefix + bytes([len(text)]) + text + payload


def edit_input(prefix, choice, path, value, payload):
    text = path.encode("utf-8", "surrogatepass")[:255]
    v = value.encode("utf-8", "surrogatepass")[:255]
    return prefix + bytes([choice, len(text)]) + text + bytes([len(v)]) + v + payload


# Values an edit seed sets: JSON text of each type, through json().
EDIT_VALUES = ["1", "null", '"x"', "[]", "{}", "true", "-1.5"]


# How many pairs tests/fuzz/evolve.c lists (more seeds than pairs only
# repeat some).
EVOLVE_PAIRS = 20

PATTERN_TEXTS = [b"", b"\0", b"\0abc", b"\0" + b"a" * 30 + b"!", b"\0e.w.dijkstra@cs.utexas.edu",
                 b"\02024-02-29T23:59:07.125Z", b"\0123e4567-e89b-42d3-a456-426614174000"]


def patterns_in(schema):
    """Every "pattern" keyword's string in a schema, however deep."""
    if isinstance(schema, dict):
        for k, v in schema.items():
            if k == "pattern" and isinstance(v, str):
                yield v
            else:
                yield from patterns_in(v)
    elif isinstance(schema, list):
        for v in schema:
            yield from patterns_in(v)


def write_seeds(out):
    listed = load_list()
    index = {t: i for i, t in enumerate(listed)}
    by_id = {value(r, "id"): r["schema"][1] for r in rows("schemas.jsonl")}

    def prefix(text):
        i = index.get(text)
        return None if i is None else bytes([i & 0xFF, i >> 8])

    counts = dict.fromkeys(["decode", "roundtrip", "encode", "onepass", "compile", "query", "edit", "pattern",
                            "evolve"], 0)
    malformed = set()  # schemas with seeds of malformed paths already

    def seed(harness, data):
        write(os.path.join(out, harness), data)
        counts[harness] += 1

    for name in ("decode.jsonl", "encode.jsonl"):
        for r in rows(name):
            p = prefix(by_id[value(r, "schema_id")])
            if p is None:
                continue
            if "hex" in r:
                payload = p + bytes.fromhex(value(r, "hex"))
                seed("decode", payload)
                if "error" not in r:
                    seed("roundtrip", payload)
                    # The schema read as itself (mode 2), its fingerprint
                    # as the harness writes it at widths 0 and 4.
                    seed("evolve", bytes([2]) + payload)
                    seed("evolve", bytes([2 | 4 << 2]) + payload)
                if name == "decode.jsonl":
                    for i, path in enumerate(query_paths(r, p not in malformed)):
                        seed("query", query_input(p, path, bytes.fromhex(value(r, "hex"))))
                        seed("edit", edit_input(p, i % 5, path, EDIT_VALUES[i % len(EDIT_VALUES)],
                                                bytes.fromhex(value(r, "hex"))))
                    malformed.add(p)
            if name == "encode.jsonl":
                seed("encode", p + value(r, "json").encode("utf-8", "surrogatepass"))
                seed("onepass", p + value(r, "json").encode("utf-8", "surrogatepass"))
    for r in rows("seed-examples.jsonl"):
        p = prefix(r["schema"][1])
        if p and "hex" in r:
            seed("decode", p + bytes.fromhex(value(r, "hex")))
        if p and "json" in r:
            seed("encode", p + value(r, "json").encode("utf-8", "surrogatepass"))
    # Schema text alone, and a compiling schema's text, a NUL, then the
    # first payload the vectors decode with it.
    for name in ("schemas.jsonl", "seed-examples.jsonl"):
        for r in rows(name):
            seed("compile", r["schema"][1].encode("utf-8"))
    paired = set()
    for r in rows("decode.jsonl"):
        text = by_id[value(r, "schema_id")]
        if "error" not in r and text not in paired:
            paired.add(text)
            seed("compile", text.encode("utf-8") + b"\0" + bytes.fromhex(value(r, "hex")))
    # Each of the evolve harness's own pairs, with 16 zero bytes (the
    # first value of most shapes) at widths 0 and 1.
    for i in range(EVOLVE_PAIRS):
        for width in (0, 1):
            seed("evolve", bytes([width << 2, i]) + bytes(16))
    # Each pattern of the schemas, alone and with strings to match.
    sources = set()
    for r in rows("schemas.jsonl") + rows("seed-examples.jsonl"):
        sources.update(patterns_in(r["schema"][0]))
    for source in sorted(sources):
        for text in PATTERN_TEXTS:
            seed("pattern", source.encode("utf-8", "surrogatepass") + text)
    for harness, n in counts.items():
        print(f"{harness}: {n} seeds")


if __name__ == "__main__":
    if sys.argv[1:] == ["schemas"]:
        append_schemas()
    elif len(sys.argv) == 3 and sys.argv[1] == "seeds":
        write_seeds(sys.argv[2])
    else:
        sys.exit(__doc__)
