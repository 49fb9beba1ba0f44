#!/usr/bin/env python3
"""make bench-instructions: instructions a row, counted by callgrind.

Two runs under callgrind, which dumps its counts where scripts/bench/
asks it to, printed as Markdown:

- `bench --instructions` (count_instructions): the core codec alone, per
  row, decode, encode and a check (decode writing nothing) for each
  fixture, and per byte of string value on the text-heavy fixtures, where
  strings are most of the work;
- `bench --calls` (count_calls): the SQL functions, each query of the
  JSONB comparisons over every row of its fixture in SQLite 3.53, per row,
  shorn's against SQLite's, whole queries and above each one's floor;
- with --strings, `bench-strings` (scripts/bench-strings.c): the codec over
  one long string of escape-free, escape-dense and CJK text, on each string
  path, in instructions a byte of the string's value;
- `bench-numbers --instructions`, with --numbers: number printing and
  parsing alone, per number, shorn's beside the reference implementations,
  on each set of doubles (scripts/bench-numbers.c).

    scripts/bench-instructions.py BENCH_SYSTEM BENCH EXTENSION [ROWS] [--strings BENCH_STRINGS] [--numbers BENCH_NUMBERS]
"""
import glob
import os
import subprocess
import sys
import tempfile

TEXT_HEAVY = ("document", "article")


def run_dumps(command, d, valgrind_options=()):
    """[(description words, instructions)] of each dump of one run, in order,
    and the run's standard output."""
    out = os.path.join(d, "callgrind.out")
    stdout = subprocess.run(["valgrind", "--tool=callgrind", "-q", "--callgrind-out-file=" + out,
                             *valgrind_options, *command],
                            check=True, stdout=subprocess.PIPE, text=True).stdout
    found = []
    # Dumps are numbered in the order the passes ran.
    for path in sorted(glob.glob(out + ".*"), key=lambda p: int(p.rsplit(".", 1)[1])):
        desc = total = None
        with open(path) as f:
            for line in f:
                if line.startswith("desc: Trigger: Client Request: "):
                    desc = line.split(": ", 3)[3].split()
                elif line.startswith("totals:") or line.startswith("summary:"):
                    total = int(line.split()[1])
        if desc and total is not None:
            found.append((desc, total))
    if not found:
        sys.exit("bench-instructions: callgrind dumped no pass")
    return found, stdout


def codec(bench, rows):
    with tempfile.TemporaryDirectory() as d:
        found, _ = run_dumps([bench, "--instructions", "--rows", str(rows)], d)
    counts = {}
    for (fixture, what, n, string_bytes), total in found:
        counts[(fixture, what)] = (total, int(n), int(string_bytes))
    fixtures = list(dict.fromkeys(fixture for fixture, _ in counts))
    print("\n## Instructions of the core codec alone (callgrind)\n")
    print(f"`shorn_decode` and `shorn_encode` from C over {rows} rows of each fixture, and "
          "`shorn_decode` writing nothing (a check, as `shorn_valid` makes), counted by callgrind: "
          "instructions a row, and a byte of string value (the strings' bytes as JSON values hold "
          "them, keys aside).\n")
    print("| fixture | string bytes/row | decode instructions/row | encode instructions/row "
          "| check instructions/row | decode /string byte | encode /string byte |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for fixture in fixtures:
        decode, n, string_bytes = counts[(fixture, "decode")]
        encode = counts[(fixture, "encode")][0]
        check = counts[(fixture, "check")][0]
        per_byte = (f"{decode / string_bytes:.2f} | {encode / string_bytes:.2f}"
                    if fixture in TEXT_HEAVY else " | ")
        print(f"| {fixture} | {string_bytes / n:.0f} | {decode / n:,.0f} | {encode / n:,.0f} "
              f"| {check / n:,.0f} | {per_byte} |")


def calls(bench, extension, rows):
    with tempfile.TemporaryDirectory() as d:
        found, stdout = run_dumps([bench, "--calls", "--rows", str(rows), "--db", os.path.join(d, "calls.db"),
                                   "--extension", extension], d, ["--instr-atstart=no"])
    per_row = {(fixture, query): total / int(n) for (_, fixture, query, n), total in found}
    comparisons, paths = [], {}
    for line in stdout.splitlines():
        kind, *fields = line.split("|")
        if kind == "comparison":
            comparisons.append(fields)
        elif kind == "fixture":
            paths[fields[0]] = {"early": fields[1], "late": fields[2]}
    print("\n## Instructions a row of the SQL functions (callgrind)\n")
    print(f"Each query of the table above, `SELECT count(f(column)) FROM fixture` over {rows} rows in "
          "SQLite 3.53, run once, then counted by callgrind: instructions a row of the whole query, "
          "and *fewer*, SQLite's over shorn's; *above floor* sets what each spends over its floor (the "
          "same query around a function that does nothing) against the other's. Unlike the times, "
          "these do not move with the machine's load; unlike them too, they weigh every instruction "
          "alike, a cache miss or a mispredicted branch no more than an addition.\n")
    print("| fixture | measured | SQLite instructions/row | shorn instructions/row | fewer | above floor |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for fixture in paths:
        for shorn_call, sqlite_call, sqlite, shorn, sqlite_floor, shorn_floor, path in comparisons:
            a, b = per_row[(fixture, sqlite)], per_row[(fixture, shorn)]
            above = (a - per_row[(fixture, sqlite_floor)]) / (b - per_row[(fixture, shorn_floor)])
            where = ""
            if path == "1":
                where = f" `{paths[fixture]['late' if sqlite.endswith('late') else 'early']}`"
            print(f"| {fixture} | {shorn_call} vs {sqlite_call}{where} | {a:,.0f} | {b:,.0f} "
                  f"| {a / b:.2f}× | {above:.2f}× |")


def strings(bench_strings):
    with tempfile.TemporaryDirectory() as d:
        found, _ = run_dumps([bench_strings], d)
    table = {}
    for (_, path, text, what, rows, n, escaped), total in found:
        table.setdefault((text, int(n), int(escaped)), {}).setdefault(path, {})[what] = total / int(rows) / int(n)
    paths = list(dict.fromkeys(p for by_path in table.values() for p in by_path))
    print("\n## Instructions a string byte, by kind of text (callgrind)\n")
    print("`shorn_decode` and `shorn_encode` from C, the schema a bare string, over one string value of each "
          "text (scripts/bench-strings.c), on each string path `SHORN_SIMD` forces: instructions a byte of "
          "the value, the call's few included. Escaped: how many of its bytes JSON escapes.\n")
    print("| text | bytes | escaped | " + " | ".join(f"{p} decode | {p} encode" for p in paths) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---: | ---:" for _ in paths) + " |")
    for (text, n, escaped), by_path in table.items():
        cells = " | ".join(f"{by_path[p]['decode']:.2f} | {by_path[p]['encode']:.2f}" for p in paths)
        print(f"| {text} | {n:,} | {escaped:,} | {cells} |")


def numbers(bench_numbers):
    with tempfile.TemporaryDirectory() as d:
        found, _ = run_dumps([bench_numbers, "--instructions"], d)
    # "numbers KIND SET IMPLEMENTATION COUNT": less the loop's own count.
    counts, kinds = {}, {}
    for (_, kind, number_set, implementation, n), total in found:
        counts[(kind, number_set, implementation)] = total / int(n)
        kinds.setdefault(kind, {}).setdefault(number_set, []).append(implementation)
    titles = {"print": "printing a double (JavaScript's spelling for shorn and double-conversion, "
                       "C++'s for fmt; glibc's %.17g is not the shortest)",
              "digits": "the shortest digits alone (Schubfach, Grisu3, Dragonbox), nothing written",
              "parse": "reading a number's shortest text (shorn-json is the encoder's reader)"}
    print("\n## Instructions a number: printing and parsing (callgrind)\n")
    print("`build/bench-numbers --instructions`: each implementation over 10,000 numbers of each set, "
          "instructions a number, less what the same loop costs around a call that does nothing. "
          "The sets are in scripts/bench-numbers.c.")
    for kind, by_set in kinds.items():
        implementations = [i for i in next(iter(by_set.values())) if i != "loop"]
        print(f"\n{titles.get(kind, kind)}\n")
        print("| set | " + " | ".join(implementations) + " |")
        print("| --- |" + " ---: |" * len(implementations))
        for number_set, names in by_set.items():
            loop = counts[(kind, number_set, "loop")]
            print(f"| {number_set} | " + " | ".join(f"{counts[(kind, number_set, i)] - loop:,.0f}"
                                                 for i in implementations) + " |")


def main():
    args = sys.argv[1:]
    options = {}
    for option in ("--strings", "--numbers"):
        if option in args:
            at = args.index(option)
            options[option] = args[at + 1]
            del args[at:at + 2]
    if len(args) < 3:
        sys.exit(__doc__)
    rows = int(args[3]) if len(args) > 3 else 1000
    if args[0] != "-":
        codec(args[0], rows)
        calls(args[1], args[2], rows)
    if "--strings" in options:
        strings(options["--strings"])
    if "--numbers" in options:
        numbers(options["--numbers"])


if __name__ == "__main__":
    main()
