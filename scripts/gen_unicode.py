#!/usr/bin/env python3
"""Write ext/core/regex/unicode.c: the code points of every property that
ECMAScript's \\p{…} names in a `u` pattern, from the Unicode Character
Database as Debian's unicode-data package installs it, after checking the
facts unicode.c relies on.

The names are those V8 (Node 20) accepts, matched as V8 matches them: case
and underscores exactly as written, no loose matching.  A lone name is a
General_Category value or one of ECMA-262's binary properties; `gc=`,
`General_Category=`, `sc=`, `Script=`, `scx=` and `Script_Extensions=` take
a value's short name, long name or other alias from PropertyValueAliases.txt.

Every property's data is in Debian's files, the six Changes_When_* too
(DerivedCoreProperties.txt, and DerivedNormalizationProps.txt for
Changes_When_NFKC_Casefolded): none is derived here.

The checks:
  * the data is of the Unicode version unicode.h states;
  * the General_Category read from UnicodeData.txt is the one
    extracted/DerivedGeneralCategory.txt lists, code point by code point, and
    Bidi_Mirrored read from UnicodeData.txt is the one
    extracted/DerivedBinaryProperties.txt lists (where that file is);
  * the categories UnicodeData.txt uses, the groups (L, LC, M, N, P, S, Z,
    C) and their members, the scripts Scripts.txt and ScriptExtensions.txt
    use, and the names that may stand before `=` are PropertyValueAliases.txt's
    and PropertyAliases.txt's;
  * every name is made of the characters \p{…} can hold and names one
    property, and no name is both a script and a category or binary
    property (unicode.c looks a name up once);
  * every property's ranges are ascending, disjoint and not adjacent, decode
    from the table's bytes to themselves, and fit its integer types.

Usage: python3 scripts/gen_unicode.py [UCD_DIR] > ext/core/regex/unicode.c
(UCD_DIR defaults to /usr/share/unicode)
"""
import os
import re
import sys
import textwrap

LAST_CODE_POINT = 0x10FFFF
HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "ext", "core", "regex", "unicode.h")

# ECMA-262 (2023), table "Binary Unicode property aliases and their canonical
# property names", less Any, ASCII and Assigned, which no data file lists.
BINARY_PROPERTIES = [
    "ASCII_Hex_Digit", "Alphabetic", "Bidi_Control", "Bidi_Mirrored", "Case_Ignorable", "Cased",
    "Changes_When_Casefolded", "Changes_When_Casemapped", "Changes_When_Lowercased",
    "Changes_When_NFKC_Casefolded", "Changes_When_Titlecased", "Changes_When_Uppercased", "Dash",
    "Default_Ignorable_Code_Point", "Deprecated", "Diacritic", "Emoji", "Emoji_Component",
    "Emoji_Modifier", "Emoji_Modifier_Base", "Emoji_Presentation", "Extended_Pictographic", "Extender",
    "Grapheme_Base", "Grapheme_Extend", "Hex_Digit", "IDS_Binary_Operator", "IDS_Trinary_Operator",
    "ID_Continue", "ID_Start", "Ideographic", "Join_Control", "Logical_Order_Exception", "Lowercase",
    "Math", "Noncharacter_Code_Point", "Pattern_Syntax", "Pattern_White_Space", "Quotation_Mark",
    "Radical", "Regional_Indicator", "Sentence_Terminal", "Soft_Dotted", "Terminal_Punctuation",
    "Unified_Ideograph", "Uppercase", "Variation_Selector", "White_Space", "XID_Continue", "XID_Start",
]

# The files that list the binary properties (each file lists others too).
BINARY_FILES = ["PropList.txt", "DerivedCoreProperties.txt", "DerivedNormalizationProps.txt",
                "emoji/emoji-data.txt"]
BIDI_MIRRORED_FILE = "extracted/DerivedBinaryProperties.txt"

# The general categories' groups, as PropertyValueAliases.txt's comments
# give them (checked against those comments).
GROUPS = {
    "C": ["Cc", "Cf", "Cn", "Co", "Cs"],
    "L": ["Ll", "Lm", "Lo", "Lt", "Lu"],
    "LC": ["Ll", "Lt", "Lu"],
    "M": ["Mc", "Me", "Mn"],
    "N": ["Nd", "Nl", "No"],
    "P": ["Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps"],
    "S": ["Sc", "Sk", "Sm", "So"],
    "Z": ["Zl", "Zp", "Zs"],
}

# ECMA-262's table of Script values leaves out Katakana_Or_Hiragana, which
# no code point has (V8 refuses sc=Hrkt).
SCRIPTS_LEFT_OUT = ["Katakana_Or_Hiragana"]

# The property names unicode.c takes before `=`, as PropertyAliases.txt
# gives them: [short, long].
KEYS = [["gc", "General_Category"], ["sc", "Script"], ["scx", "Script_Extensions"]]


def fail(message):
    sys.exit("gen_unicode.py: " + message)


def data_lines(path):
    """The fields of each line of a UCD file, comments and blanks left out."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                yield [field.strip() for field in line.split(";")]


def code_points(field):
    first, _, last = field.partition("..")
    return int(first, 16), int(last or first, 16)


def normalize(ranges):
    """Sorted, merged [first, last] ranges from any list of them."""
    merged = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return [tuple(r) for r in merged]


def runs(values):
    """{value: ranges} of a per-code-point list."""
    found = {}
    start = 0
    for cp in range(1, LAST_CODE_POINT + 2):
        if cp > LAST_CODE_POINT or values[cp] != values[start]:
            found.setdefault(values[start], []).append((start, cp - 1))
            start = cp
    return found


def complement(ranges):
    gaps, next_cp = [], 0
    for first, last in ranges:
        if first > next_cp:
            gaps.append((next_cp, first - 1))
        next_cp = last + 1
    if next_cp <= LAST_CODE_POINT:
        gaps.append((next_cp, LAST_CODE_POINT))
    return gaps


def check_version(ucd):
    with open(HEADER, encoding="utf-8") as f:
        m = re.search(r'#define UNICODE_VERSION "([0-9.]+)"', f.read())
    if not m:
        fail("unicode.h defines no UNICODE_VERSION")
    version = m.group(1)
    with open(os.path.join(ucd, "DerivedAge.txt"), encoding="utf-8") as f:
        first_line = f.readline()
    if "DerivedAge-%s.txt" % version not in first_line:
        fail("%s/DerivedAge.txt is not of Unicode %s: %s" % (ucd, version, first_line.strip()))
    return version


def general_categories(ucd):
    """The leaf category of every code point, from UnicodeData.txt, where
    `<…, First>` and `<…, Last>` bound a range and what is not listed is Cn."""
    category = ["Cn"] * (LAST_CODE_POINT + 1)
    first = None
    for fields in data_lines(os.path.join(ucd, "UnicodeData.txt")):
        cp, name, gc = int(fields[0], 16), fields[1], fields[2]
        if name.endswith(", First>"):
            first = cp
            continue
        for c in range(first if name.endswith(", Last>") else cp, cp + 1):
            category[c] = gc
        first = None
    derived = ["Cn"] * (LAST_CODE_POINT + 1)
    for fields in data_lines(os.path.join(ucd, "extracted", "DerivedGeneralCategory.txt")):
        first_cp, last_cp = code_points(fields[0])
        derived[first_cp:last_cp + 1] = [fields[1]] * (last_cp - first_cp + 1)
    if derived != category:
        cp = next(c for c in range(LAST_CODE_POINT + 1) if derived[c] != category[c])
        fail("U+%04X is %s in UnicodeData.txt, %s in DerivedGeneralCategory.txt" % (cp, category[cp], derived[cp]))
    return category


def bidi_mirrored(ucd):
    """From UnicodeData.txt's field 9; checked against the derived file,
    which not every copy of the UCD has."""
    ranges, first = [], None
    for fields in data_lines(os.path.join(ucd, "UnicodeData.txt")):
        cp = int(fields[0], 16)
        if fields[1].endswith(", First>"):
            first = cp
        elif fields[9] == "Y":
            ranges.append((first if fields[1].endswith(", Last>") else cp, cp))
    ranges = normalize(ranges)
    path = os.path.join(ucd, BIDI_MIRRORED_FILE)
    if os.path.exists(path) and ranges != normalize(
            code_points(f[0]) for f in data_lines(path) if f[1] == "Bidi_Mirrored"):
        fail("UnicodeData.txt and %s disagree on Bidi_Mirrored" % BIDI_MIRRORED_FILE)
    return ranges


def binary_properties(ucd):
    found = {}
    for name in BINARY_FILES:
        for fields in data_lines(os.path.join(ucd, name)):
            if len(fields) == 2:  # DerivedNormalizationProps also has valued properties
                found.setdefault(fields[1], []).append(code_points(fields[0]))
    found["Bidi_Mirrored"] = bidi_mirrored(ucd)
    missing = [p for p in BINARY_PROPERTIES if p not in found]
    if missing:
        fail("no data for " + ", ".join(missing))
    return {p: normalize(found[p]) for p in BINARY_PROPERTIES}


def scripts(ucd, short_name):
    """The Script of every code point (long names; Unknown where not listed)
    and the Script_Extensions of every code point as a tuple of long names."""
    script = ["Unknown"] * (LAST_CODE_POINT + 1)
    for fields in data_lines(os.path.join(ucd, "Scripts.txt")):
        first, last = code_points(fields[0])
        script[first:last + 1] = [fields[1]] * (last - first + 1)
    long_name = {short: long for long, short in short_name.items()}
    extensions = [(s,) for s in script]
    for fields in data_lines(os.path.join(ucd, "ScriptExtensions.txt")):
        first, last = code_points(fields[0])
        if not set(fields[1].split()) <= set(long_name):
            fail("ScriptExtensions.txt names a script the tables leave out: " + fields[1])
        value = tuple(sorted(long_name[s] for s in fields[1].split()))
        extensions[first:last + 1] = [value] * (last - first + 1)
    return script, extensions


def value_aliases(ucd, prop):
    """[[short, long, other aliases…]] of one property's values."""
    values = []
    for fields in data_lines(os.path.join(ucd, "PropertyValueAliases.txt")):
        if fields[0] == prop:
            values.append(fields[1:])
    return values


def check_groups(ucd):
    groups = {}
    with open(os.path.join(ucd, "PropertyValueAliases.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"gc ; (\w+)\s*;.*# ([\w |]+)$", line.strip())
            if m:
                groups[m.group(1)] = sorted(m.group(2).replace(" ", "").split("|"))
    if groups != GROUPS:
        fail("PropertyValueAliases.txt groups the categories otherwise: %s" % groups)


def property_aliases(ucd):
    """{long name: [its names]} from PropertyAliases.txt."""
    return {fields[1]: fields for fields in data_lines(os.path.join(ucd, "PropertyAliases.txt"))}


def check_ranges(name, ranges):
    for i, (first, last) in enumerate(ranges):
        if not first <= last <= LAST_CODE_POINT:
            fail("%s: range %X..%X" % (name, first, last))
        if i and first <= ranges[i - 1][1] + 1:
            fail("%s: ranges %X..%X and %X..%X overlap or touch" % (name, *ranges[i - 1], first, last))


class Tables:
    """Properties in the order of their numbers, each with its ranges and
    its names, and the names that resolve to them."""

    def __init__(self):
        self.properties = []  # [(label, ranges)]
        self.names = {}       # name: (kind, number)

    def add_property(self, label, ranges):
        check_ranges(label, ranges)
        self.properties.append((label, ranges))
        return len(self.properties) - 1

    def add_name(self, name, kind, number):
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            fail("name %r has a character \\p{…} cannot hold" % name)
        if self.names.get(name, (kind, number)) != (kind, number):
            fail("%s names both %s and %s" % (name, self.names[name], (kind, number)))
        self.names[name] = (kind, number)


def build(ucd):
    tables = Tables()
    check_groups(ucd)

    category = general_categories(ucd)
    leaves = {gc: normalize(r) for gc, r in runs(category).items()}
    for names in sorted(value_aliases(ucd, "gc"), key=lambda v: v[0]):
        short = names[0]
        members = GROUPS.get(short, [short])
        ranges = normalize(r for m in members for r in leaves.get(m, []))
        number = tables.add_property(" ".join(names), ranges)
        for name in names:
            tables.add_name(name, "GENERAL_CATEGORY", number)
    if sorted(leaves) != sorted(g for names in value_aliases(ucd, "gc") for g in names[:1] if g not in GROUPS):
        fail("UnicodeData.txt's categories are not PropertyValueAliases.txt's")

    aliases = property_aliases(ucd)
    if [aliases[long] for _, long in KEYS] != KEYS:
        fail("PropertyAliases.txt names General_Category, Script or Script_Extensions otherwise")
    binary = binary_properties(ucd)
    specials = {"Any": [(0, LAST_CODE_POINT)], "ASCII": [(0, 0x7F)],
                "Assigned": complement(leaves["Cn"])}
    for name, ranges in specials.items():
        tables.add_name(name, "BINARY", tables.add_property(name, ranges))
    for prop in BINARY_PROPERTIES:
        names = aliases[prop]
        number = tables.add_property(" ".join(names), binary[prop])
        for name in names:
            tables.add_name(name, "BINARY", number)

    script_values = sorted((v for v in value_aliases(ucd, "sc") if v[1] not in SCRIPTS_LEFT_OUT),
                           key=lambda v: v[1])
    short_name = {names[1]: names[0] for names in script_values}
    script, extensions = scripts(ucd, short_name)
    by_script = {s: normalize(r) for s, r in runs(script).items()}
    if not set(by_script) <= set(short_name) or set(by_script) & set(SCRIPTS_LEFT_OUT):
        fail("Scripts.txt names scripts the tables leave out")
    by_extension = {}
    for value, ranges in runs(extensions).items():
        for s in value:
            by_extension.setdefault(s, []).extend(ranges)
    first_script = len(tables.properties)
    for index, names in enumerate(script_values):
        tables.add_property("sc=" + " ".join(names), by_script.get(names[1], []))
        for name in names:
            tables.add_name(name, "SCRIPT", index)
    for names in script_values:
        tables.add_property("scx=" + " ".join(names), normalize(by_extension.get(names[1], [])))
    return tables, first_script, len(script_values)


SOURCES = ["UnicodeData.txt", "extracted/DerivedGeneralCategory.txt", "Scripts.txt", "ScriptExtensions.txt",
           "PropertyAliases.txt", "PropertyValueAliases.txt"] + BINARY_FILES + [BIDI_MIRRORED_FILE]

# The name table's entries, and what unicode.c does with the tables: the
# same in every generation.
NAME_ENTRY = r"""
/* A name's place in UNICODE_NAME_TEXT and what it names: for a category's
 * or a binary property's name, its property; for a script's, the script's
 * number, to which sc= adds UNICODE_FIRST_SCRIPT and scx= that and
 * UNICODE_SCRIPT_COUNT. */
enum unicode_name_kind { NAMES_GENERAL_CATEGORY, NAMES_BINARY, NAMES_SCRIPT };
struct unicode_name {
  uint16_t text;
  uint8_t length, kind;
  uint16_t number;
};
"""

LOOKUP = r"""
static int unicode_name_compare(const struct unicode_name *entry, const char *name, size_t n) {
  size_t common = entry->length < n ? entry->length : n;
  int c = memcmp(UNICODE_NAME_TEXT + entry->text, name, common);
  if (c != 0) return c;
  return (entry->length > n) - (entry->length < n);
}

static const struct unicode_name *unicode_name_find(const char *name, size_t n) {
  size_t low = 0, high = COUNT_OF(UNICODE_NAMES);
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    int c = unicode_name_compare(&UNICODE_NAMES[middle], name, n);
    if (c == 0) return &UNICODE_NAMES[middle];
    if (c < 0)
      low = middle + 1;
    else
      high = middle;
  }
  return NULL;
}

static bool unicode_is(const char *name, size_t n, const char *expected) {
  return n == strlen(expected) && memcmp(name, expected, n) == 0;
}

/* V8's rules: a lone name is a General_Category value or a binary property;
 * before `=` only the category's and the scripts' property names, exactly as
 * the standard spells them; binary properties take no value. */
int unicode_property_find(const char *name, size_t n) {
  if (n == 0) return -1;
  const char *equals = memchr(name, '=', n);
  if (!equals) {
    const struct unicode_name *entry = unicode_name_find(name, n);
    return entry && entry->kind != NAMES_SCRIPT ? entry->number : -1;
  }
  size_t key = (size_t)(equals - name);
  const struct unicode_name *value = unicode_name_find(equals + 1, n - key - 1);
  if (!value) return -1;
  if (unicode_is(name, key, "gc") || unicode_is(name, key, "General_Category"))
    return value->kind == NAMES_GENERAL_CATEGORY ? value->number : -1;
  if (value->kind != NAMES_SCRIPT) return -1;
  if (unicode_is(name, key, "sc") || unicode_is(name, key, "Script")) return UNICODE_FIRST_SCRIPT + value->number;
  if (unicode_is(name, key, "scx") || unicode_is(name, key, "Script_Extensions"))
    return UNICODE_FIRST_SCRIPT + UNICODE_SCRIPT_COUNT + value->number;
  return -1;
}

/* The number at *at in UNICODE_RANGE_BYTES, and *at moved past it. */
static uint32_t unicode_read_number(const uint8_t **at) {
  uint32_t value = 0;
  for (unsigned shift = 0;; shift += 7) {
    uint8_t byte = *(*at)++;
    value |= (uint32_t)(byte & 0x7F) << shift;
    if (byte < 0x80) return value;
  }
}

size_t unicode_property_ranges(int number, uint32_t (*out)[2]) {
  if (number < 0 || (size_t)number >= COUNT_OF(UNICODE_PROPERTIES)) return 0;
  size_t count = UNICODE_PROPERTIES[number].count;
  if (!out) return count;
  const uint8_t *at = UNICODE_RANGE_BYTES + UNICODE_PROPERTIES[number].start;
  uint32_t next = 0; /* the code point after the range before */
  for (size_t i = 0; i < count; i++) {
    out[i][0] = next + unicode_read_number(&at);
    out[i][1] = out[i][0] + unicode_read_number(&at);
    next = out[i][1] + 1;
  }
  return count;
}
"""


def encode_number(value):
    encoded = bytearray()
    while value >= 0x80:
        encoded.append(0x80 | (value & 0x7F))
        value >>= 7
    encoded.append(value)
    return encoded


def encode(ranges):
    """The bytes of UNICODE_RANGE_BYTES for one property's ranges."""
    encoded, next_cp = bytearray(), 0
    for first, last in ranges:
        encoded += encode_number(first - next_cp) + encode_number(last - first)
        next_cp = last + 1
    return encoded


def decode(data, at, count):
    """What unicode_property_ranges reads: a check of encode."""
    def number():
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value
    ranges, next_cp = [], 0
    for _ in range(count):
        first = next_cp + number()
        last = first + number()
        ranges.append((first, last))
        next_cp = last + 1
    return ranges


def write(tables, first_script, script_count, version):
    out = sys.stdout.write
    head = ("unicode.c — generated by scripts/gen_unicode.py from the Unicode Character Database %s "
            "as Debian's unicode-data installs it (%s); do not edit.  The code points of each property "
            "that \\p{…} names: unicode.h." % (version, ", ".join(SOURCES)))
    out("/* " + "\n * ".join(textwrap.wrap(head, 74, break_on_hyphens=False)) + " */\n")
    out('#include "unicode.h"\n\n')

    # Properties with the same code points (a script without extensions, say)
    # share one run of bytes.
    starts, data = {}, bytearray()
    for label, property_ranges in tables.properties:
        key = tuple(property_ranges)
        if key not in starts:
            starts[key] = len(data)
            data += encode(property_ranges)
            if decode(data, starts[key], len(property_ranges)) != property_ranges:
                fail("%s: the ranges do not decode to themselves" % label)
    if len(data) > 0xFFFF or max(len(r) for _, r in tables.properties) > 0xFFFF:
        fail("the ranges outgrow uint16_t offsets")
    out("/* Every property's ranges, a property's in a row, each range as two\n")
    out(" * numbers: how far its first code point is past the end of the range before\n")
    out(" * (the first, past -1), and its last code point less its first.  A number\n")
    out(" * is seven bits a byte, the low ones first, the top bit set on every byte\n")
    out(" * but its last: most take one byte, a quarter of the 8 a pair of uint32_t\n")
    out(" * would.  Properties with the same code points share their bytes. */\n")
    out("static const uint8_t UNICODE_RANGE_BYTES[] = {\n")
    shown = set()
    for number, (label, property_ranges) in enumerate(tables.properties):
        key = tuple(property_ranges)
        if key in shown or not property_ranges:
            continue
        shown.add(key)
        out("    /* %d: %s */\n" % (number, label))
        encoded = encode(property_ranges)
        for i in range(0, len(encoded), 20):
            out("   " + "".join(" %d," % b for b in encoded[i:i + 20]) + "\n")
    out("};\n\n")

    out("/* Property p's ranges: `count` of them from UNICODE_RANGE_BYTES[start]. */\n")
    out("static const struct {\n  uint16_t start, count;\n} UNICODE_PROPERTIES[] = {\n")
    for number, (label, property_ranges) in enumerate(tables.properties):
        out("    {%d, %d}, /* %d: %s */\n" % (starts[tuple(property_ranges)], len(property_ranges), number, label))
    out("};\n\n")
    out("#define UNICODE_FIRST_SCRIPT %d\n#define UNICODE_SCRIPT_COUNT %d\n" % (first_script, script_count))
    out(NAME_ENTRY + "\n")

    # Sorted as unicode_name_compare orders them: bytes, a prefix before what extends it.
    names = sorted(tables.names, key=lambda n: n.encode())
    offsets, text = {}, ""
    for name in names:
        offsets[name] = len(text)
        text += name
    if len(text) > 0xFFFF or max(map(len, names)) > 0xFF:
        fail("the names outgrow their table's integer types")
    out("/* Every name, one after another. */\nstatic const char UNICODE_NAME_TEXT[] =\n")
    for name in names:
        out('    "%s"\n' % name)
    out("    ;\n\n")
    out("/* The names in the order of their text, for a binary search. */\n")
    out("static const struct unicode_name UNICODE_NAMES[] = {\n")
    for name in names:
        kind, number = tables.names[name]
        out("    {%d, %d, NAMES_%s, %d}, /* %s */\n" % (offsets[name], len(name), kind, number, name))
    out("};\n\n")
    out(LOOKUP.lstrip("\n"))


def main():
    ucd = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode"
    version = check_version(ucd)
    tables, first_script, script_count = build(ucd)
    write(tables, first_script, script_count, version)


if __name__ == "__main__":
    main()
