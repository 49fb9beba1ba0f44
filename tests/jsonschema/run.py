"""The JSON Schema Test Suite's draft 2020-12 cases through the validated mode.

    run.py EXTENSION [--unlisted] [--table] [--no-docs]

Every test of every file of suite/draft2020-12 (the required files,
optional/ and optional/format/) is put to shorn_check(data, schema): an SQL
error means the schema does not compile in the validated mode, NULL that
the value is accepted, a text that it is refused.  shorn_encode must take
the value exactly when shorn_check gives NULL, and fail with shorn_check's
text when it does not.  A compiled test whose verdict is not the suite's
`valid` must be listed in departures.json, which holds only what a wire
shape or the validators' own checks force (a check shorn lacks is no
departure), and the list must be exact: a listed case that agrees, does
not compile or no longer exists fails the run as an unlisted disagreement
does.  ajv.mjs runs the same tests through ajv for the table's last
columns.  The table and the departures, as --table prints them, must be
in docs/validators.md#json-schemas-own-test-suite (--no-docs skips that,
while the figures move).

Zod, Valibot and ArkType give every schema's root a type, where most of the
suite's schemas leave it out, and an untyped root is a value of any shape.
So each test of an array or an object under an untyped root is run again
with the root typed as its datum (`typed › ` before its case id): the type
the datum has cannot change the suite's verdict, but it makes the root the
shape the validators' schemas would.  A schema that refers to its root
(`"$ref": "#"`) is left out, as the type would change what it refers to.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "suite", "draft2020-12")
DEPARTURES = os.path.join(HERE, "departures.json")
DOCS = os.path.join(HERE, "..", "..", "docs", "validators.md")


class Number(str):
    """A number as the suite spells it: `1.0` must reach shorn as `1.0`."""


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_float=Number, parse_int=Number)


def lone_surrogate(m):
    return "\\u%04x" % ord(m.group())


def text(value):
    """JSON text of a loaded value, its numbers spelt as in the suite."""
    if isinstance(value, Number):
        return str(value)
    if isinstance(value, str):
        # A lone surrogate has no UTF-8: it travels as the suite's escape.
        return re.sub("[\ud800-\udfff]", lone_surrogate, json.dumps(value, ensure_ascii=False))
    if isinstance(value, dict):
        return "{" + ",".join(text(k) + ":" + text(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(text(v) for v in value) + "]"
    return json.dumps(value)


def suite_files():
    """Paths under draft2020-12, without `.json`: the file part of a case id."""
    names = []
    for folder, _, files in os.walk(SUITE):
        for f in files:
            if f.endswith(".json"):
                names.append(os.path.relpath(os.path.join(folder, f), SUITE)[: -len(".json")])
    return sorted(names, key=lambda n: (n.count("/"), n))


def case_id(name, case, test):
    return "%s › %s › %s" % (name, case["description"], test["description"])


class Row:
    def __init__(self, name):
        self.name = name
        self.tests = self.compiled = self.agree = self.listed = self.unlisted = 0
        self.refusals = {}  # the compile error's first words: tests


def first_words(error):
    return " ".join(error.split()[:4])


class NotCompiled(Exception):
    """shorn_check's SQL error, without the function's name."""


def verdict(db, data, schema):
    """None for accepted, the refusal's text, or NotCompiled."""
    try:
        return db.execute("SELECT shorn_check(?, ?)", (data, schema)).fetchone()[0]
    except sqlite3.Error as e:
        return NotCompiled(str(e).removeprefix("shorn_check: "))


def encode_mismatch(db, data, schema, checked):
    """What is wrong with shorn_encode's answer given shorn_check's, or None."""
    try:
        db.execute("SELECT shorn_encode(?, ?)", (data, schema)).fetchone()
    except sqlite3.Error as e:
        if checked is None:
            return "shorn_encode refused what shorn_check accepted: %s" % e
        wanted = str(checked)
        if wanted not in str(e).removeprefix("shorn_encode: "):
            return "shorn_encode's error %r lacks shorn_check's %r" % (str(e), wanted)
        return None
    if checked is not None:
        return "shorn_encode took what shorn_check refused: %s" % checked
    return None


TYPED = "typed › "


def refers_to_root(schema):
    if isinstance(schema, dict):
        return schema.get("$ref") == "#" or any(refers_to_root(v) for v in schema.values())
    if isinstance(schema, list):
        return any(refers_to_root(v) for v in schema)
    return False


def typed_root(schema, data):
    """The schema with its root typed as data, or None where that is no test."""
    if not isinstance(schema, dict) or "type" in schema or refers_to_root(schema):
        return None
    if isinstance(data, (list, dict)):
        return dict(schema, type="array" if isinstance(data, list) else "object")
    return None


class Run:
    """The verdicts so far, and what disagrees with the suite."""

    def __init__(self, db, listed):
        self.db, self.listed = db, listed
        self.unlisted, self.mismatches, self.seen = [], [], {}

    def test(self, row, cid, schema, data, valid):
        row.tests += 1
        got = verdict(self.db, data, schema)
        wrong = encode_mismatch(self.db, data, schema, got)
        if wrong:
            self.mismatches.append((cid, wrong))
        if isinstance(got, NotCompiled):
            words = first_words(str(got))
            row.refusals[words] = row.refusals.get(words, 0) + 1
            self.seen[cid] = "not compiled: %s" % got
            return
        row.compiled += 1
        if (got is None) == valid:
            row.agree += 1
            self.seen[cid] = "agrees"
            return
        self.seen[cid] = None
        if cid in self.listed:
            row.listed += 1
        else:
            row.unlisted += 1
            self.unlisted.append((cid, schema, data, valid, got))


def run_suite(db, listed):
    run = Run(db, listed)
    rows, typed = [], Row("typed root")
    for name in suite_files():
        row = Row(name)
        rows.append(row)
        for case in load(os.path.join(SUITE, name + ".json")):
            schema = text(case["schema"])
            for test in case["tests"]:
                cid = case_id(name, case, test)
                data = text(test["data"])
                run.test(row, cid, schema, data, test["valid"])
                retyped = typed_root(case["schema"], test["data"])
                if retyped is not None:
                    run.test(typed, TYPED + cid, text(retyped), data, test["valid"])
    stale = [(cid, run.seen.get(cid, "no such case")) for cid in listed
             if run.seen.get(cid, "no such case")]
    return rows, typed, run.unlisted, run.mismatches, stale


def start_ajv():
    """ajv.mjs, running while shorn answers (the run takes half the time)."""
    return subprocess.Popen(["node", os.path.join(HERE, "ajv.mjs")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def ajv_figures(ajv):
    """ajv.mjs's tests, compiled and agree per file."""
    out, err = ajv.communicate()
    if ajv.returncode:
        sys.exit("ajv.mjs failed (npm ci --prefix tests/jsonschema installs ajv):\n" + err)
    return json.loads(out)


def table(rows, typed, ajv):
    lines = [
        "| file | tests | compiled | agree | departures | unlisted | ajv compiled | ajv agrees |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    total = Row("**total**")
    total_ajv = {"compiled": 0, "agree": 0}
    for r in rows:
        a = ajv[r.name]
        if a["tests"] != r.tests:
            sys.exit("ajv.mjs ran %d tests of %s, run.py %d" % (a["tests"], r.name, r.tests))
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %d |"
                     % (r.name, r.tests, r.compiled, r.agree, r.listed, r.unlisted, a["compiled"], a["agree"]))
        for k in ("tests", "compiled", "agree", "listed", "unlisted"):
            setattr(total, k, getattr(total, k) + getattr(r, k))
        for k in total_ajv:
            total_ajv[k] += a[k]
    lines.append("| %s | %d | %d | %d | %d | %d | %d | %d |"
                 % (total.name, total.tests, total.compiled, total.agree, total.listed, total.unlisted,
                    total_ajv["compiled"], total_ajv["agree"]))
    lines.append("| %s | %d | %d | %d | %d | %d | – | – |"
                 % ("the same with the root typed", typed.tests, typed.compiled, typed.agree, typed.listed,
                    typed.unlisted))
    return "\n".join(lines)


def departure_count(cases):
    typed = sum(1 for c in cases if c.startswith(TYPED))
    if not typed:
        return "%d" % len(cases)
    if typed == len(cases):
        return "%d with the root typed" % typed
    return "%d, and %d with the root typed" % (len(cases) - typed, typed)


def departure_list(departures):
    return "\n".join(
        "- **%s** (%s): %s Example: `%s`." % (name, departure_count(d["cases"]), d["reason"], d["example"])
        for name, d in departures.items())


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    flags = {a for a in argv[1:] if a.startswith("--")}
    unknown = flags - {"--unlisted", "--table", "--no-docs"}
    if len(args) != 1 or unknown:
        sys.exit(__doc__)
    with open(DEPARTURES, encoding="utf-8") as f:
        departures = json.load(f)
    listed = {}
    for name, d in departures.items():
        if d["example"] not in d["cases"]:
            sys.exit("%r's example is none of its cases" % name)
        for cid in d["cases"]:
            if cid in listed:
                sys.exit("%s is listed under %r and %r" % (cid, listed[cid], name))
            listed[cid] = name

    ajv = start_ajv()
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(args[0])
    db.enable_load_extension(False)
    rows, typed, unlisted, mismatches, stale = run_suite(db, listed)
    figures = table(rows, typed, ajv_figures(ajv))
    listing = departure_list(departures)

    if "--table" in flags:
        print(figures + "\n\n" + listing)
        return 0
    print(figures)
    for r in rows + [typed]:
        for words, n in sorted(r.refusals.items()):
            print("not compiled, %s: %d × %s" % (r.name, n, words))
    if "--unlisted" in flags:
        for cid, schema, data, valid, got in unlisted:
            print("\n%s\n  schema: %s\n  data: %s\n  expected: %s\n  shorn: %s"
                  % (cid, schema, data, "valid" if valid else "invalid",
                     "accepted" if got is None else "refused: " + got))
    failed = False
    if unlisted:
        failed = True
        print("%d unlisted disagreements (--unlisted prints them)" % len(unlisted), file=sys.stderr)
    for cid, why in stale:
        failed = True
        print("listed in departures.json, yet %s: %s" % (why, cid), file=sys.stderr)
    for cid, why in mismatches:
        failed = True
        print("%s: %s" % (cid, why), file=sys.stderr)
    if "--no-docs" not in flags:
        with open(DOCS, encoding="utf-8") as f:
            docs = f.read()
        for part, what in ((figures, "table"), (listing, "list of departures")):
            if part not in docs:
                failed = True
                print("docs/validators.md lacks the %s run.py --table prints" % what, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
