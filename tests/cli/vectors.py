"""Every golden vector through the shorn command, for tests/cli/run.sh.

  vectors.py SHORN VECTORS WORK [EVERY]

For each schema with vectors, its file in WORK and two runs of the command:
`encode --lines` on the values of its successful encode rows, compared with
their payloads in base64; then `decode --lines` on that output followed by
the payloads of its successful decode rows, compared with the values they
stand for.  The payloads carry a W-byte fingerprint, W cycling through 0..4
from one schema to the next.  Every tenth schema also runs `signature` and
`fingerprint --bytes N`, N cycling through 1..4 (the SQL vector driver
checks every schema's).  With EVERY N, only every Nth schema runs; N prime
to 5 and 10 keeps every width and every --bytes in the sample.

Decoded values are compared as the vector README says: member order aside,
numbers as doubles.  An encode row's value is compared without the sign of
zero (an integer-typed -0 is written as 0); a decode row's with it.
"""
import base64
import json
import math
import os
import subprocess
import sys


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse(text, vector=False):
    """Numbers as doubles, integers too, so that "-0" keeps its sign.  Only
    a vector may spell NaN and Infinity; the command must print JSON."""
    if vector:
        return json.loads(text, parse_int=float)
    return json.loads(text, parse_int=float, parse_constant=refuse_constant)


def same(got, want, zero_sign):
    if isinstance(want, float):
        if math.isnan(want):
            return got is None  # printed as null, as SQLite prints NaN
        return (isinstance(got, float) and got == want
                and (not zero_sign or math.copysign(1, got) == math.copysign(1, want)))
    if isinstance(want, list):
        return (isinstance(got, list) and len(got) == len(want)
                and all(same(g, w, zero_sign) for g, w in zip(got, want)))
    if isinstance(want, dict):
        return (isinstance(got, dict) and got.keys() == want.keys()
                and all(same(got[k], want[k], zero_sign) for k in want))
    return type(got) is type(want) and got == want


def base64_lines(prefix, hexes):
    """Payloads given in hex, each after the hex prefix, as base64 lines."""
    return "".join(base64.b64encode(bytes.fromhex(prefix + h)).decode() + "\n" for h in hexes)


class Schema:
    def __init__(self, row):
        self.row = row
        self.values = []    # JSON texts, one a line
        self.payloads = []  # hex, what the values encode to
        self.decodes = []   # (hex, JSON text) of successful decode rows


def has_infinity(value):
    if isinstance(value, float):
        return math.isinf(value)
    if isinstance(value, list):
        return any(has_infinity(v) for v in value)
    if isinstance(value, dict):
        return any(has_infinity(v) for v in value.values())
    return False


def load(vectors):
    schemas = {row["id"]: Schema(row) for row in read_jsonl(os.path.join(vectors, "schemas.jsonl"))}
    for row in read_jsonl(os.path.join(vectors, "encode.jsonl")):
        # Text past the double range: the command, as shorn_encode, refuses
        # it where the schema wants a number (tests/vectors/vectors.c checks those
        # rows unchecked).
        if "error" not in row and not has_infinity(json.loads(row["json"])):
            s = schemas[row["schema_id"]]
            # A JSON text may spread over lines; its newlines are all white space.
            s.values.append(row["json"].replace("\n", " "))
            s.payloads.append(row["hex"])
    for row in read_jsonl(os.path.join(vectors, "decode.jsonl")):
        if "error" not in row:
            schemas[row["schema_id"]].decodes.append((row["hex"], row.get("json_exact", row["json"])))
    return [s for _, s in sorted(schemas.items()) if s.values]


class Run:
    def __init__(self, shorn, work):
        self.shorn, self.work = shorn, work
        self.checks = self.failures = 0

    def verdict(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures += 1
            if self.failures <= 20:
                print(f"FAIL {what}", file=sys.stderr)
        return ok

    def shorn_run(self, args, stdin=""):
        return subprocess.run([self.shorn, *args], input=stdin.encode(), capture_output=True)

    def expect_output(self, args, want, what, stdin=""):
        r = self.shorn_run(args, stdin)
        got = r.stdout.decode(errors="replace")
        ok = r.returncode == 0 and not r.stderr and got == want
        self.verdict(ok, f"{what}: exit {r.returncode}, {r.stderr.decode(errors='replace')[:300]}"
                         f"{got[:300]!r}, want {want[:300]!r}")
        return got if ok else None

    def schema(self, n, s):
        sid = s.row["id"]
        path = os.path.join(self.work, sid + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(s.row["schema"], f)
        width = n % 5
        prefix = s.row["fp"][str(width)] if width else ""
        flags = ["--lines"] + (["--fingerprint", str(width)] if width else [])
        encoded = self.expect_output(["encode", path, *flags], base64_lines(prefix, s.payloads),
                                     f"{sid} encode {' '.join(flags)}", "".join(v + "\n" for v in s.values))
        if encoded is None:
            return
        wants = [(v, False) for v in s.values] + [(j, True) for _, j in s.decodes]
        r = self.shorn_run(["decode", path, *flags], encoded + base64_lines(prefix, (h for h, _ in s.decodes)))
        lines = r.stdout.decode().split("\n")
        if not self.verdict(r.returncode == 0 and not r.stderr and lines[-1] == "" and len(lines) == len(wants) + 1,
                            f"{sid} decode {' '.join(flags)}: exit {r.returncode}, {r.stderr.decode()[:300]}"
                            f"{len(lines) - 1} lines for {len(wants)} payloads"):
            return
        for line, (got, (want, zero_sign)) in enumerate(zip(lines, wants), 1):
            try:
                ok = same(parse(got), parse(want, vector=True), zero_sign)
            except ValueError:
                ok = False
            self.verdict(ok, f"{sid} decode line {line}: {got[:300]}, want {want[:300]}")
        if n % 10 == 0:
            width = n // 10 % 4 + 1
            self.expect_output(["signature", path], s.row["signature"] + "\n", f"{sid} signature")
            self.expect_output(["fingerprint", path, "--bytes", str(width)], s.row["fp"][str(width)] + "\n",
                               f"{sid} fingerprint --bytes {width}")


def main(shorn, vectors, work, every=1):
    sys.setrecursionlimit(20000)  # the depth vectors nest hundreds of levels
    schemas = [s for n, s in enumerate(load(vectors)) if n % every == 0]
    run = Run(shorn, work)
    for n, s in enumerate(schemas):
        run.schema(n * every, s)
    encoded = sum(len(s.values) for s in schemas)
    decoded = encoded + sum(len(s.decodes) for s in schemas)
    print(f"cli: {len(schemas)} schemas, {encoded} values encoded, {decoded} payloads decoded:"
          f" {run.checks - run.failures} checks passed, {run.failures} failed")
    return 1 if run.failures else 0


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and not sys.argv[4].isdigit()):
        sys.exit("usage: vectors.py SHORN VECTORS WORK [EVERY]")
    sys.exit(main(*sys.argv[1:4], max(1, int(sys.argv[4])) if len(sys.argv) == 5 else 1))
