"""Every example of the README and docs/, run and compared with what the
page says it prints, so the pages cannot drift from what the code does.

    examples.py EXTENSION SHORN FILE.md ...

```sql blocks: each statement runs in turn on one connection per page (a
fresh database in a scratch folder, the extension loaded), and the `-- `
lines right after a statement are its result, a line per row, columns
joined by `|` and NULL empty, as the sqlite3 shell prints them (an EXPLAIN
QUERY PLAN as the shell's tree); an error is `-- error: ` and its message.  A statement with no such lines must return
no rows.  `.load` lines are the shell's, and skipped here: the extension is
loaded already.

```console blocks: each `$ ` line runs in bash, in the same scratch folder,
with the shorn command on PATH and tests/docs/files/ copied in; the lines
up to the next `$ ` are its output, stdout and stderr together.

Links: every `page.md#anchor` in the repository's files (code comments
cite docs/format.md so) and every `(#anchor)` inside a page must name a
heading of that page, when the page is one of those given.

With SHORN_SQLITE_VERSION set, the sqlite3 module must run that SQLite, so
that a run meant for one SQLite cannot pass on another.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def fenced(text, language):
    """(first line number, lines) of each ```LANGUAGE block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```" + language:
            indent = len(lines[i]) - len(lines[i].lstrip())
            start = i = i + 1
            while lines[i].strip() != "```":
                i += 1
            yield start + 1, [line[indent:] for line in lines[start:i]]
        i += 1


def sql_examples(text):
    """(line, statement, expected lines) of each statement in the ```sql
    blocks; expected is None where the statement shows no result."""
    for first, block in fenced(text, "sql"):
        statement, expected, line = [], None, first
        for n, raw in enumerate(block, first):
            if raw.startswith("-- ") and sqlite3.complete_statement("\n".join(statement)):
                expected = (expected or []) + [raw[3:]]
                continue
            if statement and sqlite3.complete_statement("\n".join(statement)):
                yield line, "\n".join(statement), expected
                statement, expected = [], None
            if not statement:
                if raw.startswith(".load ") or not raw.strip():
                    continue
                line = n
            statement.append(raw)
        if statement:
            yield line, "\n".join(statement), expected


def console_examples(text):
    """(line, command, expected output) of each `$ ` line of ```console blocks."""
    for first, block in fenced(text, "console"):
        command = None
        for n, raw in enumerate(block, first):
            if raw.startswith("$ "):
                if command:
                    yield command
                command = (n, raw[2:], [])
            elif command:
                command[2].append(raw)
        if command:
            yield command


def shell_text(value):
    if value is None:
        return ""
    if isinstance(value, float):
        text = "%.15g" % value
        return text if re.search(r"[.eni]", text) else text + ".0"
    if isinstance(value, bytes):
        raise ValueError("a BLOB result: show it with hex()")
    return str(value)


def plan_text(rows):
    """An EXPLAIN QUERY PLAN's rows (id, parent, notused, detail) drawn as
    the shell draws them: its numbers differ between SQLite versions."""
    children = {}
    for node, parent, _, detail in rows:
        children.setdefault(parent, []).append((node, detail))
    lines = ["QUERY PLAN"]

    def draw(parent, indent):
        below = children.get(parent, [])
        for i, (node, detail) in enumerate(below):
            last = i == len(below) - 1
            lines.append(indent + ("`--" if last else "|--") + detail)
            draw(node, indent + ("   " if last else "|  "))

    draw(0, "")
    return lines


def run_statement(db, statement):
    try:
        rows = db.execute(statement).fetchall()
    except sqlite3.Error as e:
        return ["error: " + str(e)]
    if re.match(r"EXPLAIN\s+QUERY\s+PLAN\b", statement, re.IGNORECASE):
        return plan_text(rows)
    return ["|".join(shell_text(v) for v in row) for row in rows]


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def expect(self, where, what, got, expected):
        if got == expected:
            self.passed += 1
            return
        self.failed += 1
        print(f"FAIL {where}: {what}")
        print("  got:      " + "\n            ".join(got))
        print("  expected: " + "\n            ".join(expected))


def check_page(path, extension, checks):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    work = tempfile.mkdtemp()
    try:
        shutil.copytree(os.path.join(HERE, "files"), work, dirs_exist_ok=True)
        db = sqlite3.connect(os.path.join(work, "doc.db"), isolation_level=None)
        db.enable_load_extension(True)
        db.load_extension(extension)
        db.enable_load_extension(False)
        for line, statement, expected in sql_examples(text):
            checks.expect(f"{path}:{line}", statement.split("\n")[0], run_statement(db, statement), expected or [])
        db.close()
        for line, command, expected in console_examples(text):
            done = subprocess.run(["bash", "-c", command], cwd=work, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            checks.expect(f"{path}:{line}", command, done.stdout.rstrip("\n").split("\n") if done.stdout else [],
                          expected)
    finally:
        shutil.rmtree(work)


def anchors(text):
    """The anchors GitHub gives the headings of a page (outside code blocks)."""
    found, fence = set(), False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#+ ", line):
            title = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower())
            found.add(title.replace(" ", "-"))
    return found


def check_links(pages, checks):
    """Every `page.md#anchor` cited anywhere in the repository (the code
    cites docs/format.md so), and every `(#anchor)` inside a page, names a
    heading the page has."""
    root = os.path.dirname(os.path.dirname(HERE))
    known = {}
    for page in pages:
        with open(page, encoding="utf-8") as f:
            known[os.path.basename(page)] = (page, anchors(f.read()))
    files = subprocess.run(["git", "ls-files"], cwd=root, stdout=subprocess.PIPE, text=True).stdout.split()
    for name in files:
        if name.endswith(".jsonl"):
            continue
        try:
            with open(os.path.join(root, name), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        links = []
        for m in re.finditer(r"\.md#([\w-]+)", text):  # the name before it, read backwards: no backtracking
            name_before = re.search(r"[\w-]+$", text[max(0, m.start() - 80):m.start()])
            if name_before:
                links.append((name_before.group(0) + ".md", m.group(1)))
        if os.path.basename(name) in known:
            links += [(os.path.basename(name), a) for a in re.findall(r"\]\(#([\w-]+)\)", text)]
        for page, anchor in links:
            if page in known:
                got = anchor if anchor in known[page][1] else "no such heading"
                checks.expect(name, f"link {page}#{anchor}", [got], [anchor])


def main():
    extension, shorn, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    wanted = os.environ.get("SHORN_SQLITE_VERSION")
    if wanted and sqlite3.sqlite_version != wanted:
        sys.exit(f"docs: the sqlite3 module runs SQLite {sqlite3.sqlite_version}, not {wanted}")
    os.environ["PATH"] = os.path.dirname(os.path.abspath(shorn)) + os.pathsep + os.environ["PATH"]
    checks = Checks()
    for page in pages:
        check_page(page, extension, checks)
    check_links(pages, checks)
    print(f"docs: SQLite {sqlite3.sqlite_version}: {checks.passed} examples and links in {len(pages)} pages as written, "
          f"{checks.failed} not")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
