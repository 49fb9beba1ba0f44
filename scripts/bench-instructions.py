#!/usr/bin/env python3
"""make bench-instructions: instructions a row of the core codec alone.

Runs `bench --instructions` under callgrind, which dumps its counts at the
end of each pass (scripts/bench.c, count_instructions), and prints them as
Markdown: per row, decode and encode, for each fixture, and per byte of
string value on the text-heavy fixtures, where strings are most of the work;
and the instructions of a check (decode writing nothing).

    scripts/bench-instructions.py BENCH [ROWS]
"""
import glob
import os
import subprocess
import sys
import tempfile

TEXT_HEAVY = ("document", "article")


def dumps(bench, rows):
    """{(fixture, pass): (instructions, rows, string bytes)} from one run."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", "-q", "--callgrind-out-file=" + out,
                        bench, "--instructions", "--rows", str(rows)], check=True)
        counts = {}
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
                fixture, what, n, string_bytes = desc
                counts[(fixture, what)] = (total, int(n), int(string_bytes))
    if not counts:
        sys.exit("bench-instructions: callgrind dumped no pass")
    return counts


def main():
    bench = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    counts = dumps(bench, rows)
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


if __name__ == "__main__":
    main()
