"""What Zod, Valibot and ArkType emit, through the extension; then the guide.

    check.py EXTENSION CASES.jsonl docs/validators.md tests/validators/schemas.mjs README.md

CASES.jsonl is what schemas.mjs prints: per library and case, the JSON Schema
the library's converter emitted (or the error it threw), what the case
expects of it, and the validator's verdict on each sample.  Each schema must
compile to its signature, each accepted value encode and decode back to the
validator's output (as shorn_decode writes it: keys in UTF-16 order,
JavaScript's numbers), and each refusal be the error expected.  Then the
guide: every JSON quoted in its SQL is a schema or a value of the cases,
and its code (JavaScript blocks, and the libraries' columns of its tables)
is found in schemas.mjs; tests/docs/examples.py runs the SQL itself.  Then
the differential cases: each validator's verdict on each generated value
must be shorn_check's, but where a sample is marked a documented
difference.  Last, the README's Zod example runs, and prints the schema its
SQL registers.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs"))
import examples  # noqa: E402  tests/docs/examples.py, which also runs the guide's SQL


def connect(extension):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(extension)
    db.enable_load_extension(False)
    return db


def query(db, sql, *args):
    """The first row as the sqlite3 shell prints it, or the error's text."""
    try:
        row = db.execute(sql, args).fetchone()
    except sqlite3.Error as e:
        return "error: " + str(e)
    return "|".join(str(x) for x in row)


def dump(value):
    """JSON text to compare JSON values by, whatever their key order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def without_dialect(schema):
    return {k: v for k, v in schema.items() if k != "$schema"}


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def expect(self, what, got, expected):
        if got == expected:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}:\n  got      {got}\n  expected {expected}")


class Differential:
    """Per validator: the values on which shorn_check's verdict was the
    validator's, and those on which it was the documented other one."""

    def __init__(self):
        self.agreed, self.differed, self.skipped = {}, {}, {}

    def summary(self):
        libs = sorted(set(self.agreed) | set(self.differed))
        return "differential: " + ", ".join(
            f"{lib} {self.agreed.get(lib, 0)} agree, {self.differed.get(lib, 0)} documented differences "
            f"({self.skipped.get(lib, 0)} left out)" for lib in libs)


def check_differential(db, checks, differential, case):
    """The validator's verdict on each value against shorn_check's: NULL is
    acceptance.  A sample with agree false is a documented difference, on
    which shorn must say the opposite."""
    lib, name = case["lib"], f"{case['lib']} {case['name']!r}"
    signature = query(db, "SELECT shorn_signature(?)", case["schema"])
    checks.expect(f"{name}: the compile", signature.startswith("error: "), False)
    differential.skipped[lib] = differential.skipped.get(lib, 0) + case["skipped"]
    for s in case["samples"]:
        got = query(db, "SELECT shorn_check(?, ?) IS NULL", s["json"], case["schema"]) == "1"
        want = s["accepted"] if s["agree"] else not s["accepted"]
        verdict = lambda ok: "accepted" if ok else "refused"
        checks.expect(f"{name}: shorn_check({s['json']}) (the validator {verdict(s['accepted'])}"
                      f"{'' if s['agree'] else ', a documented difference'})", verdict(got), verdict(want))
        if got == want:
            counts = differential.agreed if s["agree"] else differential.differed
            counts[lib] = counts.get(lib, 0) + 1


def check_case(db, checks, case):
    name = f"{case['lib']} {case['name']!r}"
    if "error" in case:
        checks.expect(f"{name}: the converter", "throws: " + case["error"], "throws: " + str(case["throws"]))
        return
    checks.expect(f"{name}: the converter", "emits", "throws: " + case["throws"] if case["throws"] else "emits")
    schema = case["schema"]
    if case["jsonSchema"] is not None:
        checks.expect(f"{name}: the JSON Schema", without_dialect(json.loads(schema)), case["jsonSchema"])
    signature = query(db, "SELECT shorn_signature(?)", schema)
    if case["compileError"] is not None:
        checks.expect(f"{name}: the compile", signature, "error: " + case["compileError"])
        return
    checks.expect(f"{name}: the signature", signature, json.dumps(case["signature"], separators=(",", ":")))
    for s in case["samples"]:
        what = f"{name}: {s['kind']} {s['json']}"
        verdict = "rejected" if s["kind"] in ("rejected", "refusedToo") else "accepted"
        if s["kind"] == "refusedToo":
            checks.expect(f"{what}: the validator", "accepted" if s["accepted"] else "rejected", verdict)
            got = query(db, "SELECT hex(shorn_encode(?, ?))", s["json"], schema)
            checks.expect(what, got, "error: shorn_encode: " + s["expect"])
            continue
        if s["kind"] == "rejected" or not s["accepted"]:
            checks.expect(f"{what}: the validator", "accepted" if s["accepted"] else "rejected", verdict)
            continue
        if s["kind"] == "refused":
            got = query(db, "SELECT hex(shorn_encode(?, ?))", s["json"], schema)
            checks.expect(what, got, "error: shorn_encode: " + s["expect"])
        else:
            got = query(db, "SELECT shorn_decode(shorn_encode(?1, ?2), ?2)", s["json"], schema)
            checks.expect(what, got, s["expect"])


def check_doc(db, checks, cases, doc, script):
    known = set()
    for case in cases:
        if "schema" in case:
            known.add(dump(without_dialect(json.loads(case["schema"]))))
        known.update(dump(json.loads(s["json"])) for s in case.get("samples", []))
    # JSON Schema written by hand is the docs runner's alone to check.
    heading = doc.find("\n## JSON Schema written by hand")
    by_hand = doc[:heading].count("\n") + 2 if heading >= 0 else float("inf")
    for line, statement, _ in examples.sql_examples(doc):
        if line >= by_hand:
            continue
        for blob, literal in re.findall(r"([xX]?)'((?:[^']|'')*)'", statement):
            if blob:
                continue
            try:
                value = json.loads(literal.replace("''", "'"))
            except ValueError:
                continue
            checks.expect(f"docs: {literal} is a schema or a value of the cases", dump(value) in known, True)
    lines = [line.strip() for line in script.splitlines()]
    code = [line.strip().rstrip(",;") for block in re.findall(r"```js\n(.*?)```", doc, re.S)
            for line in block.splitlines()]
    code += table_code(doc)
    for c in filter(None, code):
        checks.expect(f"docs: {c!r} is in schemas.mjs", any(c in x for x in lines), True)


def table_code(doc):
    """The code spans of a table's Zod, Valibot and ArkType columns."""
    columns = []
    for line in doc.splitlines():
        if not line.startswith("|"):
            columns = []
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if not columns:
            columns = [i for i, c in enumerate(cells) if c in ("Zod", "Valibot", "ArkType")]
            continue
        for i in columns:
            yield from re.findall(r"`([^`]+)`", cells[i])


def check_readme(checks, readme):
    """The README's Zod block, run with the zod this folder installs."""
    block = next(code for code in re.findall(r"```js\n(.*?)```", readme, re.S) if 'from "zod"' in code)
    done = subprocess.run(["node", "--input-type=module"], input=block, capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.abspath(__file__)))
    printed = done.stdout.strip()
    checks.expect("README: the Zod example runs", done.stderr, "")
    registered = [s for _, s, _ in examples.sql_examples(readme) if "INSERT INTO shorn_schemas" in s]
    checks.expect("README: the Zod example prints the schema the README registers",
                  bool(printed) and any(f"'{printed}'" in s for s in registered), True)


def main():
    extension, cases_path, doc_path, script_path, readme_path = sys.argv[1:]
    db = connect(extension)
    checks = Checks()
    with open(cases_path, encoding="utf-8") as f:
        cases = [json.loads(line) for line in f]
    differential = Differential()
    for case in cases:
        if case.get("kind") == "differential":
            check_differential(db, checks, differential, case)
        else:
            check_case(db, checks, case)
    with open(doc_path, encoding="utf-8") as f, open(script_path, encoding="utf-8") as g:
        check_doc(db, checks, cases, f.read(), g.read())
    print(differential.summary())
    with open(readme_path, encoding="utf-8") as f:
        check_readme(checks, f.read())
    print(f"validators: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
