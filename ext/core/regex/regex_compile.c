/*
 * regex_compile.c — a JavaScript pattern read into a program, which
 * pattern.c runs.
 *
 * The reading is `new RegExp(source)`'s: ECMA-262 with its Annex B without
 * the `u` flag (legacy octal and identity escapes, `{` `}` `]` as
 * characters where they start nothing, quantified lookaheads, \N past the
 * group count as an octal escape), its strict grammar with `u`.  What V8
 * refuses is refused, in V8's words.  The pattern becomes a tree of nodes,
 * then instructions: a lookbehind's body is written backwards, to be
 * matched leftwards from where it stands, as the standard specifies.
 */
#include <stdlib.h>

#include "regex.h"

#include "core/base/memory.h"
#include "core/text/text.h"
#include "unicode.h"

/* Groups open at once; deeper patterns are refused, which keeps the
 * parser's stack and the compiler's recursion fixed. */
#define GROUP_DEPTH_MAX 250

/* Every class's ranges together: \p{…} brings hundreds each. */
#define RANGES_MAX 1048576

#define NONE UINT32_MAX

typedef enum node_kind {
  NODE_CHAR,     /* value: the character */
  NODE_CLASS,    /* value: the class */
  NODE_BEGIN,
  NODE_END,
  NODE_WORD_BOUNDARY, /* flag: \B */
  NODE_BACKREF,  /* value: the group */
  NODE_GROUP,    /* value: the capturing group's number, or NONE */
  NODE_LOOK,     /* flag: negative; value: 1 for a lookbehind */
  NODE_ALTERNATIVES,
  NODE_SEQUENCE,
  NODE_REPEAT    /* min..max, flag: greedy; resets the groups it holds */
} node_kind;

typedef struct pattern_node {
  uint8_t kind;
  bool flag;
  uint32_t value;
  uint32_t min, max;
  uint32_t groups_before, groups_after; /* capturing groups opened before it, and by its end */
  uint32_t child, last_child, next, prev;
} pattern_node;

typedef struct group_name {
  size_t at, length; /* in the source, escapes as written */
  uint32_t number;
  bool closed; /* its group read to its `)`, where V8 looks for the name's duplicates */
} group_name;

/* What the last term was, for the quantifier that may follow it. */
typedef enum term {
  TERM_NONE,       /* the start, or after `|` or `(` */
  TERM_ATOM,       /* quantifiable */
  TERM_LOOKAHEAD,  /* quantifiable without `u` (Annex B) */
  TERM_LOOKBEHIND, /* not quantifiable, in V8's words of a lookaround */
  TERM_ASSERTION,  /* not quantifiable */
  TERM_QUANTIFIED  /* a second quantifier has nothing to repeat */
} term;

/* A class escape (\d, \p{…}, …) or one character. */
typedef enum atom_kind { ATOM_CHAR, ATOM_DIGIT, ATOM_WORD, ATOM_SPACE, ATOM_PROPERTY } atom_kind;
typedef struct class_atom {
  atom_kind kind;
  bool negated;  /* \D, \W, \S, \P */
  uint32_t c;    /* the character, or the property */
} class_atom;

typedef struct pattern_parser {
  const shorn_allocator *allocator;
  const uint16_t *src;
  size_t n, at;
  bool unicode;
  uint32_t groups; /* capturing groups, counted first: \N may refer forward */
  uint32_t opened; /* those opened so far */
  group_name *names; /* the well-formed names, in order */
  uint32_t name_count, names_opened;
  size_t name_capacity;
  bool named_groups; /* a `(?<` of a group is in the pattern: \k is a reference */
  const char *late_error; /* an unknown \k<name>, which V8 reports after every other error */
  pattern_node *nodes;
  size_t node_count, node_capacity;
  uint32_t (*ranges)[2], (*items)[2]; /* every class's; the one being read */
  size_t range_count, range_capacity, item_count, item_capacity;
  regex_class *classes;
  size_t class_count, class_capacity;
  regex_instr *code;
  size_t code_length, code_capacity;
  uint32_t loops;
  uint32_t (*id_start)[2], (*id_continue)[2]; /* for group names past ASCII, read when one comes */
  size_t id_start_count, id_continue_count;
  bool nomem;
  const char *error; /* why JavaScript would refuse the pattern */
} pattern_parser;

/* A group open while its contents are read. */
typedef struct open_group {
  uint32_t group, alternatives, sequence;
  uint32_t name; /* in the parser's names, or NONE */
  term closes_as;
} open_group;

static bool refuse_pattern(pattern_parser *p, const char *why) {
  if (!p->error) p->error = why;
  return false;
}

/* `items` with room for `need` elements of `size` bytes (moved, and
 * *capacity updated, when it had less), or NULL when memory ran out. */
static void *regex_room(pattern_parser *p, void *items, size_t *capacity, size_t need, size_t size) {
  if (need <= *capacity) return items;
  void *grown = array_grow(p->allocator, items, capacity, need, size, NULL);
  if (!grown) p->nomem = true;
  return grown;
}

/* `items` cut to `count` elements once read, so that the program keeps no
 * room the doubling left; when the allocator refuses, `items` as it was
 * and out of memory, as any refusal is. */
static void *regex_shrink(pattern_parser *p, void *items, size_t count, size_t size) {
  if (!items || !count) return items;
  void *shrunk = mem_realloc(p->allocator, items, count * size);
  if (!shrunk) p->nomem = true;
  return shrunk ? shrunk : items;
}

/* ---- reading the source ---------------------------------------------------- */

static bool regex_at_end(const pattern_parser *p) { return p->at >= p->n; }
static uint16_t regex_peek(const pattern_parser *p, size_t ahead) { return p->at + ahead < p->n ? p->src[p->at + ahead] : 0; }
static bool regex_has(const pattern_parser *p, size_t ahead) { return p->at + ahead < p->n; }

static bool is_high_surrogate(uint32_t c) { return c >= 0xD800 && c <= 0xDBFF; }
static bool is_low_surrogate(uint32_t c) { return c >= 0xDC00 && c <= 0xDFFF; }
static uint32_t join_surrogates(uint32_t high, uint32_t low) {
  return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
}

/* The source character at `at`, advancing: with `u` a surrogate pair is one
 * code point. */
static uint32_t regex_next_char(pattern_parser *p) {
  uint32_t c = p->src[p->at++];
  if (p->unicode && is_high_surrogate(c) && !regex_at_end(p) && is_low_surrogate(p->src[p->at]))
    c = join_surrogates(c, p->src[p->at++]);
  return c;
}

static bool regex_is_octal(uint16_t c) { return c >= '0' && c <= '7'; }
static bool is_syntax_char(uint16_t c) { return c && c < 0x80 && strchr("^$\\.*+?()[]{}|/", c) != NULL; }

/* `count` hex digits at `at` + `skip`, or -1. */
static long regex_hex_digits(const pattern_parser *p, size_t skip, int count) {
  long v = 0;
  for (int i = 0; i < count; i++) {
    int d = regex_has(p, skip + (size_t)i) ? hex_digit(regex_peek(p, skip + (size_t)i), true) : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/* ---- group names ----------------------------------------------------------- */

static bool in_ranges(const uint32_t (*r)[2], size_t count, uint32_t c) {
  size_t low = 0, high = count;
  while (low < high) {
    size_t mid = (low + high) / 2;
    if (c > r[mid][1])
      low = mid + 1;
    else
      high = mid;
  }
  return low < count && c >= r[low][0];
}

/* A Unicode property's ranges, copied from unicode.c's tables. */
static bool load_property(pattern_parser *p, const char *name, uint32_t (**ranges)[2], size_t *count) {
  if (*ranges) return true;
  int property = unicode_property_find(name, strlen(name));
  *count = unicode_property_ranges(property, NULL);
  if (!(*ranges = mem_alloc(p->allocator, *count * sizeof **ranges))) return p->nomem = true, false;
  unicode_property_ranges(property, *ranges);
  return true;
}

/* May a group name hold c (first, or after the first)?  ECMAScript's
 * identifier characters: ID_Start, ID_Continue, `$`, `_`, ZWNJ and ZWJ. */
static bool is_name_char(pattern_parser *p, uint32_t c, bool first) {
  if (c < 0x80) return is_letter(c) || c == '$' || c == '_' || (!first && is_digit(c));
  if (first) return load_property(p, "ID_Start", &p->id_start, &p->id_start_count) &&
                    in_ranges((const uint32_t(*)[2])p->id_start, p->id_start_count, c);
  return c == 0x200C || c == 0x200D ||
         (load_property(p, "ID_Continue", &p->id_continue, &p->id_continue_count) &&
          in_ranges((const uint32_t(*)[2])p->id_continue, p->id_continue_count, c));
}

/* `count` hex digits at src[at], or -1. */
static long regex_hex_at(const pattern_parser *p, size_t at, int count) {
  long v = 0;
  for (int i = 0; i < count; i++) {
    int d = at + (size_t)i < p->n ? hex_digit(p->src[at + (size_t)i], true) : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/* A \u escape of a group name at src[*i] (its backslash): \uXXXX, two
 * of them for a surrogate pair, or \u{…}, with or without `u`.  NONE when
 * it is not one. */
static uint32_t name_escape_at(const pattern_parser *p, size_t *i) {
  size_t at = *i;
  if (at + 1 >= p->n || p->src[at + 1] != 'u') return NONE;
  if (at + 2 < p->n && p->src[at + 2] == '{') {
    uint32_t c = 0;
    for (at += 3; at < p->n && hex_digit(p->src[at], true) >= 0 && c <= 0x10FFFF; at++)
      c = c * 16 + (uint32_t)hex_digit(p->src[at], true);
    if (at >= p->n || p->src[at] != '}' || p->src[at - 1] == '{' || c > 0x10FFFF) return NONE;
    *i = at + 1;
    return c;
  }
  long c = regex_hex_at(p, at + 2, 4), low;
  if (c < 0) return NONE;
  *i = at + 6;
  if (is_high_surrogate((uint32_t)c) && at + 7 < p->n && p->src[at + 6] == '\\' && p->src[at + 7] == 'u' &&
      (low = regex_hex_at(p, at + 8, 4)) >= 0 && is_low_surrogate((uint32_t)low)) {
    *i = at + 12;
    return join_surrogates((uint32_t)c, (uint32_t)low);
  }
  return (uint32_t)c;
}

/* The character of a group name at src[*i], advancing: a surrogate pair
 * is one, with or without `u`, and so is an escape.  NONE for none. */
static uint32_t name_char_at(const pattern_parser *p, size_t *i) {
  uint32_t c = p->src[*i];
  if (c == '\\') return name_escape_at(p, i);
  if (is_high_surrogate(c) && *i + 1 < p->n && is_low_surrogate(p->src[*i + 1])) c = join_surrogates(c, p->src[++*i]);
  ++*i;
  return c;
}

/* A group name at `at` up to its `>`: its length in the source, or 0
 * when there is none, with V8's words for why in *why. */
static size_t name_length(pattern_parser *p, size_t at, const char **why) {
  size_t i = at;
  *why = "Invalid capture group name";
  while (i < p->n && p->src[i] != '>') {
    size_t from = i;
    uint32_t c = name_char_at(p, &i);
    if (c == NONE && from + 1 < p->n && p->src[from + 1] == 'u') *why = "Invalid Unicode escape";
    if (c == NONE || !is_name_char(p, c, from == at)) return 0;
  }
  return i < p->n && i > at ? i - at : 0;
}

/* Do the names at a and b (read by name_length) spell the same
 * characters, escaped or not? */
static bool regex_same_name(const pattern_parser *p, size_t a, size_t a_length, size_t b, size_t b_length) {
  size_t a_end = a + a_length, b_end = b + b_length;
  while (a < a_end && b < b_end)
    if (name_char_at(p, &a) != name_char_at(p, &b)) return false;
  return a == a_end && b == b_end;
}

static const group_name *regex_find_name(const pattern_parser *p, size_t at, size_t n) {
  for (uint32_t i = 0; i < p->name_count; i++)
    if (regex_same_name(p, p->names[i].at, p->names[i].length, at, n)) return &p->names[i];
  return NULL;
}

/* Count the capturing groups and collect their names before reading the
 * rest: \N and \k<name> may refer to a group that comes later.  A name
 * that is not one is left for the reading to refuse where it stands, as V8
 * reports the first error in the pattern. */
static bool count_groups(pattern_parser *p) {
  bool in_class = false;
  for (size_t i = 0; i < p->n; i++) {
    uint16_t c = p->src[i];
    if (c == '\\') {
      i++;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(' && (i + 1 >= p->n || p->src[i + 1] != '?')) {
      p->groups++;
    } else if (c == '(' && i + 2 < p->n && p->src[i + 1] == '?' && p->src[i + 2] == '<' &&
               (i + 3 >= p->n || (p->src[i + 3] != '=' && p->src[i + 3] != '!'))) {
      const char *why;
      size_t n = name_length(p, i + 3, &why);
      p->named_groups = true;
      if (p->nomem) return false;
      if (!n) continue;
      group_name *names = regex_room(p, p->names, &p->name_capacity, p->name_count + 1, sizeof *names);
      if (!names) return false;
      p->names = names;
      p->names[p->name_count++] = (group_name){i + 3, n, ++p->groups, false};
      i += 2 + n; /* the name's escapes are no escapes of the pattern */
    }
  }
  return true;
}

/* ---- nodes ----------------------------------------------------------------- */

static uint32_t regex_new_node(pattern_parser *p, node_kind kind, uint32_t value) {
  pattern_node *nodes = regex_room(p, p->nodes, &p->node_capacity, p->node_count + 1, sizeof *nodes);
  if (!nodes) return NONE;
  p->nodes = nodes;
  p->nodes[p->node_count] = (pattern_node){.kind = (uint8_t)kind, .value = value, .groups_before = p->opened,
                                           .child = NONE, .last_child = NONE, .next = NONE, .prev = NONE};
  return (uint32_t)p->node_count++;
}

static void append_child(pattern_parser *p, uint32_t parent, uint32_t child) {
  pattern_node *up = &p->nodes[parent];
  p->nodes[child].prev = up->last_child;
  if (up->last_child == NONE)
    up->child = child;
  else
    p->nodes[up->last_child].next = child;
  up->last_child = child;
}

/* A term appended to the sequence being read; NONE when memory ran out. */
static uint32_t regex_add_term(pattern_parser *p, uint32_t sequence, node_kind kind, uint32_t value) {
  uint32_t t = regex_new_node(p, kind, value);
  if (t != NONE) append_child(p, sequence, t);
  return t;
}

/* ---- classes --------------------------------------------------------------- */

static const uint32_t digit_ranges[][2] = {{'0', '9'}};
static const uint32_t word_ranges[][2] = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
/* JavaScript's \s: WhiteSpace and LineTerminator. */
static const uint32_t space_ranges[][2] = {{0x09, 0x0D}, {0x20, 0x20}, {0xA0, 0xA0}, {0x1680, 0x1680},
                                            {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F},
                                            {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};

static bool regex_add_item(pattern_parser *p, uint32_t from, uint32_t to) {
  if (p->range_count + p->item_count >= RANGES_MAX) return refuse_pattern(p, "the pattern's classes are too large");
  uint32_t(*items)[2] = regex_room(p, p->items, &p->item_capacity, p->item_count + 1, sizeof *items);
  if (!items) return false;
  p->items = items;
  p->items[p->item_count][0] = from;
  p->items[p->item_count++][1] = to;
  return true;
}

/* Sorted ranges, or the characters between them when `complement`. */
static bool regex_add_items(pattern_parser *p, const uint32_t (*ranges)[2], size_t count, bool complement) {
  if (!complement) {
    for (size_t i = 0; i < count; i++)
      if (!regex_add_item(p, ranges[i][0], ranges[i][1])) return false;
    return true;
  }
  uint32_t from = 0;
  for (size_t i = 0; i < count; from = ranges[i++][1] + 1)
    if (ranges[i][0] > from && !regex_add_item(p, from, ranges[i][0] - 1)) return false;
  return from > 0x10FFFF || regex_add_item(p, from, 0x10FFFF);
}

static bool regex_add_property(pattern_parser *p, int property, bool negated) {
  size_t count = unicode_property_ranges(property, NULL);
  uint32_t(*ranges)[2] = mem_alloc(p->allocator, count ? count * sizeof *ranges : 1);
  if (!ranges) return p->nomem = true, false;
  unicode_property_ranges(property, ranges);
  bool added = regex_add_items(p, (const uint32_t(*)[2])ranges, count, negated);
  mem_free(p->allocator, ranges);
  return added;
}

static bool regex_add_atom(pattern_parser *p, const class_atom *a) {
  switch (a->kind) {
    case ATOM_CHAR: return regex_add_item(p, a->c, a->c);
    case ATOM_DIGIT: return regex_add_items(p, digit_ranges, COUNT_OF(digit_ranges), a->negated);
    case ATOM_WORD: return regex_add_items(p, word_ranges, COUNT_OF(word_ranges), a->negated);
    case ATOM_SPACE: return regex_add_items(p, space_ranges, COUNT_OF(space_ranges), a->negated);
    default: return regex_add_property(p, (int)a->c, a->negated);
  }
}

static int compare_ranges(const void *x, const void *y) {
  const uint32_t *a = x, *b = y;
  return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The items read become a class of the program: sorted, merged, and their
 * ASCII part as bits.  Its index, or NONE. */
static uint32_t finish_class(pattern_parser *p, bool negated) {
  if (p->item_count) qsort(p->items, p->item_count, sizeof *p->items, compare_ranges);
  size_t merged = 0;
  for (size_t i = 0; i < p->item_count; i++) {
    if (merged && p->items[i][0] <= p->items[merged - 1][1] + 1) {
      if (p->items[i][1] > p->items[merged - 1][1]) p->items[merged - 1][1] = p->items[i][1];
    } else {
      p->items[merged][0] = p->items[i][0];
      p->items[merged++][1] = p->items[i][1];
    }
  }
  uint32_t(*ranges)[2] = regex_room(p, p->ranges, &p->range_capacity, p->range_count + merged, sizeof *ranges);
  if (!ranges && merged) return NONE; /* an empty class adds no ranges, where there may be none yet */
  p->ranges = ranges;
  regex_class *classes = regex_room(p, p->classes, &p->class_capacity, p->class_count + 1, sizeof *classes);
  if (!classes) return NONE;
  p->classes = classes;
  regex_class *k = &p->classes[p->class_count];
  *k = (regex_class){.first = (uint32_t)p->range_count, .count = (uint32_t)merged, .negated = negated};
  for (size_t i = 0; i < merged; i++) {
    for (uint32_t c = p->items[i][0]; c <= p->items[i][1] && c < 128; c++) k->ascii[c / 32] |= 1u << (c % 32);
    p->ranges[p->range_count][0] = p->items[i][0];
    p->ranges[p->range_count++][1] = p->items[i][1];
  }
  if (negated)
    for (int w = 0; w < 4; w++) k->ascii[w] = ~k->ascii[w];
  p->item_count = 0;
  return (uint32_t)p->class_count++;
}

/* A class of one class escape (\d, \p{…}, …). */
static uint32_t class_of(pattern_parser *p, const class_atom *a, bool negated) {
  return regex_add_atom(p, a) ? finish_class(p, negated) : NONE;
}

/* ---- escapes --------------------------------------------------------------- */

/* \p{…} or \P{…}, `at` past the letter: the property, as unicode.h names
 * it. */
static bool regex_read_property(pattern_parser *p, bool in_class, class_atom *a) {
  const char *why = in_class ? "Invalid property name in character class" : "Invalid property name";
  if (regex_peek(p, 0) != '{' || !regex_has(p, 0)) return refuse_pattern(p, why);
  char name[64];
  size_t n = 0;
  for (p->at++;; p->at++) {
    if (regex_at_end(p)) return refuse_pattern(p, why);
    uint16_t c = p->src[p->at];
    if (c == '}') break;
    if (!(is_letter(c) || is_digit(c) || c == '_' || c == '=') || n == sizeof name - 1)
      return refuse_pattern(p, why);
    name[n++] = (char)c;
  }
  p->at++;
  int property = unicode_property_find(name, n);
  if (property < 0) return refuse_pattern(p, why);
  a->kind = ATOM_PROPERTY;
  a->c = (uint32_t)property;
  return true;
}

/* Annex B's LegacyOctalEscapeSequence at `at`: up to three octal digits,
 * at most 0377. */
static uint32_t legacy_octal(pattern_parser *p) {
  uint32_t first = p->src[p->at++] - '0', v = first;
  if (!regex_at_end(p) && regex_is_octal(regex_peek(p, 0))) {
    v = v * 8 + (p->src[p->at++] - '0');
    if (first <= 3 && !regex_at_end(p) && regex_is_octal(regex_peek(p, 0))) v = v * 8 + (p->src[p->at++] - '0');
  }
  return v;
}

/* \u…: four hex digits (with `u`, a surrogate pair of two such escapes is
 * one code point), or with `u` \u{…}.  False when it is not one. */
static bool regex_read_unicode_escape(pattern_parser *p, uint32_t *c) {
  long v = regex_hex_digits(p, 1, 4);
  if (v >= 0) {
    p->at += 5;
    *c = (uint32_t)v;
    long low;
    if (p->unicode && is_high_surrogate((uint32_t)v) && regex_peek(p, 0) == '\\' && regex_peek(p, 1) == 'u' &&
        (low = regex_hex_digits(p, 2, 4)) >= 0 && is_low_surrogate((uint32_t)low)) {
      p->at += 6;
      *c = join_surrogates((uint32_t)v, (uint32_t)low);
    }
    return true;
  }
  if (!p->unicode || regex_peek(p, 1) != '{') return false;
  uint32_t code = 0;
  size_t i = 2;
  for (; regex_has(p, i) && hex_digit(regex_peek(p, i), true) >= 0; i++) {
    code = code * 16 + (uint32_t)hex_digit(regex_peek(p, i), true);
    if (code > 0x10FFFF) return false;
  }
  if (i == 2 || regex_peek(p, i) != '}') return false;
  p->at += i + 1;
  *c = code;
  return true;
}

/* The escape whose letter is at `at` (its backslash read) as a character
 * or a class escape; b, B, k and backreferences outside a class are the
 * caller's.  False when JavaScript refuses it. */
static bool regex_read_escape(pattern_parser *p, bool in_class, class_atom *a) {
  uint16_t c = p->src[p->at];
  *a = (class_atom){.kind = ATOM_CHAR, .c = c};
  switch (c) {
    case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
      p->at++;
      a->kind = c == 'd' || c == 'D' ? ATOM_DIGIT : c == 'w' || c == 'W' ? ATOM_WORD : ATOM_SPACE;
      a->negated = c < 'a';
      return true;
    case 'p': case 'P':
      p->at++;
      if (!p->unicode) return true;
      a->negated = c == 'P';
      return regex_read_property(p, in_class, a);
    case 'f': a->c = 0x0C; break;
    case 'n': a->c = 0x0A; break;
    case 'r': a->c = 0x0D; break;
    case 't': a->c = 0x09; break;
    case 'v': a->c = 0x0B; break;
    case 'c': {
      uint16_t next = regex_peek(p, 1);
      bool control = is_letter(next) || (in_class && !p->unicode && (is_digit(next) || next == '_'));
      if (regex_has(p, 1) && control) {
        p->at += 2;
        a->c = next % 32;
        return true;
      }
      if (p->unicode) return refuse_pattern(p, "Invalid Unicode escape");
      a->c = '\\'; /* Annex B: the backslash stands for itself, and `c` follows */
      return true;
    }
    case '0':
      if (!regex_has(p, 1) || !is_digit(regex_peek(p, 1))) {
        a->c = 0;
        break;
      }
      if (p->unicode) return refuse_pattern(p, in_class ? "Invalid class escape" : "Invalid decimal escape");
      a->c = legacy_octal(p);
      return true;
    case '1': case '2': case '3': case '4': case '5': case '6': case '7':
      if (p->unicode) return refuse_pattern(p, in_class ? "Invalid class escape" : "Invalid escape");
      a->c = legacy_octal(p);
      return true;
    case '8': case '9':
      if (p->unicode) return refuse_pattern(p, "Invalid escape");
      break;
    case 'x': {
      long v = regex_hex_digits(p, 1, 2);
      if (v >= 0) {
        p->at += 3;
        a->c = (uint32_t)v;
        return true;
      }
      if (p->unicode) return refuse_pattern(p, "Invalid escape");
      break;
    }
    case 'u':
      if (regex_read_unicode_escape(p, &a->c)) return true;
      if (p->unicode) return refuse_pattern(p, "Invalid Unicode escape");
      break;
    case 'b':
      if (in_class) a->c = 0x08;
      break;
    case '-':
      if (p->unicode && !in_class) return refuse_pattern(p, "Invalid escape");
      break;
    default:
      if (p->unicode && !is_syntax_char(c)) return refuse_pattern(p, "Invalid escape");
      a->c = regex_next_char(p);
      return true;
  }
  p->at++;
  return true;
}

/* ---- terms ----------------------------------------------------------------- */

/* One character as a term.  With `u` a lone surrogate matches nothing,
 * as well-formed text never holds one: an empty class says so. */
static term regex_add_char(pattern_parser *p, uint32_t sequence, uint32_t c) {
  if (p->unicode && c >= 0xD800 && c <= 0xDFFF) {
    uint32_t k = finish_class(p, false);
    return k != NONE && regex_add_term(p, sequence, NODE_CLASS, k) != NONE ? TERM_ATOM : TERM_NONE;
  }
  return regex_add_term(p, sequence, NODE_CHAR, c) != NONE ? TERM_ATOM : TERM_NONE;
}

/* An escape outside a class. */
static term regex_read_atom_escape(pattern_parser *p, uint32_t sequence) {
  p->at++;
  if (regex_at_end(p)) return refuse_pattern(p, "\\ at end of pattern"), TERM_NONE;
  uint16_t c = p->src[p->at];
  if (c == 'b' || c == 'B') {
    p->at++;
    uint32_t t = regex_add_term(p, sequence, NODE_WORD_BOUNDARY, 0);
    if (t != NONE) p->nodes[t].flag = c == 'B';
    return TERM_ASSERTION;
  }
  if (c == 'k' && (p->unicode || p->named_groups)) {
    const char *why = "Invalid named reference";
    size_t n = regex_has(p, 1) && regex_peek(p, 1) == '<' ? name_length(p, p->at + 2, &why) : 0;
    if (!n) return refuse_pattern(p, why), TERM_NONE;
    const group_name *g = regex_find_name(p, p->at + 2, n);
    p->at += n + 3;
    if (!g && !p->late_error) p->late_error = "Invalid named capture referenced";
    /* To no group, a term a quantifier may follow until the pattern is refused at its end. */
    regex_add_term(p, sequence, NODE_BACKREF, g ? g->number : 0);
    return TERM_ATOM;
  }
  if (c >= '1' && c <= '9') {
    size_t i = 0;
    uint64_t number = 0;
    while (regex_has(p, i) && is_digit(regex_peek(p, i)) && number <= UINT32_MAX)
      number = number * 10 + (regex_peek(p, i++) - '0');
    if (number <= p->groups) {
      p->at += i;
      regex_add_term(p, sequence, NODE_BACKREF, (uint32_t)number);
      return TERM_ATOM;
    }
  }
  class_atom a;
  if (!regex_read_escape(p, false, &a)) return TERM_NONE;
  if (a.kind == ATOM_CHAR) return regex_add_char(p, sequence, a.c);
  uint32_t k = class_of(p, &a, false);
  return k != NONE && regex_add_term(p, sequence, NODE_CLASS, k) != NONE ? TERM_ATOM : TERM_NONE;
}

/* One member of a class: a character or a class escape. */
static bool regex_read_class_atom(pattern_parser *p, class_atom *a) {
  if (p->src[p->at] != '\\') {
    *a = (class_atom){.kind = ATOM_CHAR, .c = regex_next_char(p)};
    return true;
  }
  p->at++;
  if (regex_at_end(p)) return refuse_pattern(p, "\\ at end of pattern");
  /* Where \k names a group outside classes, it is no identity escape inside one. */
  if (p->src[p->at] == 'k' && p->named_groups) return refuse_pattern(p, "Invalid escape");
  return regex_read_escape(p, true, a);
}

static term regex_read_class(pattern_parser *p, uint32_t sequence) {
  p->at++;
  bool negated = !regex_at_end(p) && regex_peek(p, 0) == '^';
  if (negated) p->at++;
  p->item_count = 0;
  for (;;) {
    if (regex_at_end(p)) return refuse_pattern(p, "Unterminated character class"), TERM_NONE;
    if (p->src[p->at] == ']') break;
    class_atom a, b;
    if (!regex_read_class_atom(p, &a)) return TERM_NONE;
    if (regex_peek(p, 0) == '-' && regex_has(p, 1) && regex_peek(p, 1) != ']') {
      p->at++;
      if (!regex_read_class_atom(p, &b)) return TERM_NONE;
      if (a.kind != ATOM_CHAR || b.kind != ATOM_CHAR) {
        /* Annex B: [\d-z] is \d, `-` and z. */
        if (p->unicode) return refuse_pattern(p, "Invalid character class"), TERM_NONE;
        class_atom dash = {.kind = ATOM_CHAR, .c = '-'};
        if (!regex_add_atom(p, &a) || !regex_add_atom(p, &dash) || !regex_add_atom(p, &b)) return TERM_NONE;
      } else if (a.c > b.c) {
        return refuse_pattern(p, "Range out of order in character class"), TERM_NONE;
      } else if (!regex_add_item(p, a.c, b.c)) {
        return TERM_NONE;
      }
    } else if (!regex_add_atom(p, &a)) {
      return TERM_NONE;
    }
  }
  p->at++;
  uint32_t k = finish_class(p, negated);
  return k != NONE && regex_add_term(p, sequence, NODE_CLASS, k) != NONE ? TERM_ATOM : TERM_NONE;
}

/* {n}, {n,} or {n,m} at `at`: true with the bounds (V8's reading of a
 * large one as none) and `at` past it; false, `at` unmoved, when it is
 * not one. */
static bool regex_read_braces(pattern_parser *p, uint32_t *min, uint32_t *max) {
  size_t i = 1;
  uint64_t bounds[2] = {0, 0}, *bound = bounds;
  bool digits = false, comma = false, open = false;
  for (;; i++) {
    if (!regex_has(p, i)) return false;
    uint16_t c = regex_peek(p, i);
    if (is_digit(c)) {
      *bound = *bound >= REGEX_BOUND_INFINITE ? REGEX_BOUND_INFINITE : *bound * 10 + (c - '0');
      digits = true;
    } else if (c == ',' && !comma && digits) {
      comma = true;
      bound = bounds + 1;
      digits = false;
      open = regex_peek(p, i + 1) == '}';
      if (open) digits = true;
    } else if (c == '}' && digits) {
      break;
    } else {
      return false;
    }
  }
  *min = bounds[0] > REGEX_BOUND_INFINITE ? REGEX_BOUND_INFINITE : (uint32_t)bounds[0];
  *max = !comma ? *min : open || bounds[1] > REGEX_BOUND_INFINITE ? REGEX_BOUND_INFINITE : (uint32_t)bounds[1];
  p->at += i + 1;
  return true;
}

/* A quantifier on the sequence's last term, which becomes the repeated
 * child of a REPEAT node in its place.  False when JavaScript refuses it;
 * a `{` that starts no quantifier is read as a character without `u`. */
static bool regex_read_quantifier(pattern_parser *p, uint32_t sequence, term *last) {
  uint32_t min, max;
  uint16_t c = p->src[p->at];
  bool quantifiable = *last == TERM_ATOM || (*last == TERM_LOOKAHEAD && !p->unicode);
  /* V8 reads a quantifier after any atom, a lookaround one, and then
   * refuses it on a lookaround it may not repeat. */
  bool after_atom = *last == TERM_ATOM || *last == TERM_LOOKAHEAD || *last == TERM_LOOKBEHIND;
  const char *unquantifiable = after_atom ? "Invalid quantifier" : "Nothing to repeat";
  if (c == '{') {
    if (!regex_read_braces(p, &min, &max)) {
      if (p->unicode) return refuse_pattern(p, after_atom ? "Incomplete quantifier" : "Lone quantifier brackets");
      p->at++;
      *last = regex_add_char(p, sequence, '{');
      return *last != TERM_NONE;
    }
    if (!quantifiable) return refuse_pattern(p, unquantifiable);
    if (max < min) return refuse_pattern(p, "numbers out of order in {} quantifier");
  } else {
    if (!quantifiable) return refuse_pattern(p, unquantifiable);
    p->at++;
    min = c == '+';
    max = c == '?' ? 1 : REGEX_BOUND_INFINITE;
  }
  bool greedy = !(regex_has(p, 0) && regex_peek(p, 0) == '?');
  if (!greedy) p->at++;
  uint32_t moved = regex_new_node(p, NODE_CHAR, 0);
  if (moved == NONE) return false;
  uint32_t t = p->nodes[sequence].last_child;
  pattern_node *term_node = &p->nodes[t];
  p->nodes[moved] = *term_node;
  p->nodes[moved].next = p->nodes[moved].prev = NONE;
  term_node->kind = NODE_REPEAT;
  term_node->flag = greedy;
  term_node->min = min;
  term_node->max = max;
  term_node->groups_after = p->opened;
  term_node->child = term_node->last_child = moved;
  *last = TERM_QUANTIFIED;
  return true;
}

/* `(` and what follows it: a group opened, or false. */
static bool open_group_at(pattern_parser *p, open_group *g, uint32_t sequence) {
  uint16_t c = regex_peek(p, 2), d = regex_peek(p, 3);
  uint32_t t;
  g->closes_as = TERM_ATOM;
  g->name = NONE;
  if (regex_peek(p, 1) != '?' || !regex_has(p, 1)) {
    p->at++;
    t = regex_add_term(p, sequence, NODE_GROUP, p->opened + 1);
  } else if (c == ':') {
    p->at += 3;
    t = regex_add_term(p, sequence, NODE_GROUP, NONE);
  } else if (c == '=' || c == '!') {
    p->at += 3;
    g->closes_as = TERM_LOOKAHEAD;
    if ((t = regex_add_term(p, sequence, NODE_LOOK, 0)) != NONE) p->nodes[t].flag = c == '!';
  } else if (c == '<' && (d == '=' || d == '!')) {
    p->at += 4;
    g->closes_as = TERM_LOOKBEHIND;
    if ((t = regex_add_term(p, sequence, NODE_LOOK, 1)) != NONE) p->nodes[t].flag = d == '!';
  } else if (c == '<') {
    const char *why;
    size_t n = name_length(p, p->at + 3, &why);
    if (!n) return refuse_pattern(p, why);
    g->name = p->names_opened++;
    p->at += n + 4;
    t = regex_add_term(p, sequence, NODE_GROUP, p->opened + 1);
  } else {
    return refuse_pattern(p, "Invalid group");
  }
  if (t == NONE) return false;
  /* The group's number counts it opened only now: a repeat of it resets it. */
  if (p->nodes[t].kind == NODE_GROUP && p->nodes[t].value != NONE) p->opened++;
  g->group = t;
  g->alternatives = regex_new_node(p, NODE_ALTERNATIVES, 0);
  g->sequence = g->alternatives == NONE ? NONE : regex_new_node(p, NODE_SEQUENCE, 0);
  if (g->sequence == NONE) return false;
  append_child(p, t, g->alternatives);
  append_child(p, g->alternatives, g->sequence);
  return true;
}

/* The named group `name` closed: refused when a group closed before has
 * its name. */
static bool close_name(pattern_parser *p, uint32_t name) {
  group_name *g = &p->names[name];
  for (uint32_t i = 0; i < p->names_opened; i++)
    if (p->names[i].closed && regex_same_name(p, p->names[i].at, p->names[i].length, g->at, g->length))
      return refuse_pattern(p, "Duplicate capture group name");
  g->closed = true;
  return true;
}

/* A `.*` or `.*?` that starts an alternative of the whole pattern, skipped:
 * a pattern matches somewhere with it exactly where it matches without,
 * and kept it would try every place and every length of a long string
 * that fails: time quadratic in the string's length. */
static bool leading_dot_star(pattern_parser *p) {
  if (regex_peek(p, 1) != '*' || !regex_has(p, 1)) return false;
  size_t after = regex_has(p, 2) && regex_peek(p, 2) == '?' ? 3 : 2;
  uint16_t next = regex_has(p, after) ? regex_peek(p, after) : 0;
  if (next == '*' || next == '+' || next == '?' || next == '{') return false; /* left for JavaScript's refusal */
  p->at += after;
  return true;
}

/* `.`: anything but a line terminator. */
static term regex_add_dot(pattern_parser *p, uint32_t sequence) {
  static const uint32_t line_terminators[][2] = {{0x0A, 0x0A}, {0x0D, 0x0D}, {0x2028, 0x2029}};
  uint32_t k = regex_add_items(p, line_terminators, COUNT_OF(line_terminators), false) ? finish_class(p, true) : NONE;
  return k != NONE && regex_add_term(p, sequence, NODE_CLASS, k) != NONE ? TERM_ATOM : TERM_NONE;
}

/* The whole pattern into nodes under `root`, an ALTERNATIVES node. */
static bool parse_pattern(pattern_parser *p, uint32_t root) {
  open_group stack[GROUP_DEPTH_MAX];
  size_t depth = 0;
  uint32_t sequence = regex_new_node(p, NODE_SEQUENCE, 0);
  if (sequence == NONE) return false;
  append_child(p, root, sequence);
  term last = TERM_NONE;
  while (!regex_at_end(p) && !p->error && !p->nomem) {
    uint16_t c = p->src[p->at];
    switch (c) {
      case '\\': last = regex_read_atom_escape(p, sequence); break;
      case '^':
      case '$':
        p->at++;
        regex_add_term(p, sequence, c == '^' ? NODE_BEGIN : NODE_END, 0);
        last = TERM_ASSERTION;
        break;
      case '.':
        if (!depth && last == TERM_NONE && leading_dot_star(p)) break;
        p->at++;
        last = regex_add_dot(p, sequence);
        break;
      case '(':
        if (depth == GROUP_DEPTH_MAX) return refuse_pattern(p, "groups nest deeper than 250");
        if (!open_group_at(p, &stack[depth], sequence)) return false;
        sequence = stack[depth++].sequence;
        last = TERM_NONE;
        break;
      case ')':
        if (!depth) return refuse_pattern(p, "Unmatched ')'");
        p->at++;
        p->nodes[stack[--depth].group].groups_after = p->opened;
        if (stack[depth].name != NONE && !close_name(p, stack[depth].name)) return false;
        sequence = depth ? stack[depth - 1].sequence : p->nodes[root].last_child;
        last = stack[depth].closes_as;
        break;
      case '[': last = regex_read_class(p, sequence); break;
      case '*':
      case '+':
      case '?':
      case '{':
        if (!regex_read_quantifier(p, sequence, &last)) return false;
        break;
      case '|':
        p->at++;
        sequence = regex_new_node(p, NODE_SEQUENCE, 0);
        if (sequence == NONE) return false;
        append_child(p, depth ? stack[depth - 1].alternatives : root, sequence);
        if (depth) stack[depth - 1].sequence = sequence;
        last = TERM_NONE;
        break;
      case '}':
      case ']':
        if (p->unicode) return refuse_pattern(p, "Lone quantifier brackets");
        /* fall through */
      default:
        last = regex_add_char(p, sequence, regex_next_char(p));
        break;
    }
  }
  if (!p->error && !p->nomem && depth) return refuse_pattern(p, "Unterminated group");
  if (!p->error && !p->nomem && p->late_error) return refuse_pattern(p, p->late_error);
  return !p->error && !p->nomem;
}

/* ---- instructions ---------------------------------------------------------- */

static uint32_t regex_emit(pattern_parser *p, regex_op op, uint32_t a, uint32_t b) {
  regex_instr *code = regex_room(p, p->code, &p->code_capacity, p->code_length + 1, sizeof *code);
  if (!code) return NONE;
  p->code = code;
  p->code[p->code_length] = (regex_instr){.op = (uint8_t)op, .a = a, .b = b};
  return (uint32_t)p->code_length++;
}

static bool regex_generate(pattern_parser *p, uint32_t i, bool backward);
static bool regex_add_first_chars(const pattern_parser *p, uint32_t i, regex_program *out);

/* A sequence's terms in order, or leftwards from its end in a lookbehind. */
static bool generate_sequence(pattern_parser *p, const pattern_node *x, bool backward) {
  for (uint32_t c = backward ? x->last_child : x->child; c != NONE;
       c = backward ? p->nodes[c].prev : p->nodes[c].next)
    if (!regex_generate(p, c, backward)) return false;
  return true;
}

/* Each alternative but the last behind a SPLIT to the next, and a JUMP
 * past the others after it: tried left to right in either direction. */
static bool generate_alternatives(pattern_parser *p, const pattern_node *x, bool backward) {
  uint32_t pending = NONE; /* the JUMPs to the end, chained through their operand */
  for (uint32_t c = x->child; c != NONE; c = p->nodes[c].next) {
    bool last = p->nodes[c].next == NONE;
    uint32_t split = last ? NONE : regex_emit(p, OP_SPLIT, 0, 0);
    if (!last && split == NONE) return false;
    if (!last) p->code[split].a = split + 1;
    if (!regex_generate(p, c, backward)) return false;
    if (last) break;
    uint32_t jump = regex_emit(p, OP_JUMP, pending, 0);
    if (jump == NONE) return false;
    pending = jump;
    p->code[split].b = (uint32_t)p->code_length;
  }
  for (uint32_t j = pending, next; j != NONE; j = next) {
    next = p->code[j].a;
    p->code[j].a = (uint32_t)p->code_length;
  }
  return true;
}

static bool generate_group(pattern_parser *p, const pattern_node *x, bool backward) {
  if (x->value == NONE) return regex_generate(p, x->child, backward);
  /* Leftwards, the group's end is reached first. */
  uint32_t start = 2 * (x->value - 1), end = start + 1;
  return regex_emit(p, OP_SAVE, backward ? end : start, 0) != NONE && regex_generate(p, x->child, backward) &&
         regex_emit(p, OP_SAVE, backward ? start : end, 0) != NONE;
}

static bool generate_look(pattern_parser *p, const pattern_node *x) {
  uint32_t look = regex_emit(p, OP_LOOK, 0, 0);
  if (look == NONE || !regex_generate(p, x->child, x->value == 1)) return false;
  uint32_t end = regex_emit(p, OP_LOOK_END, 0, 0);
  if (end == NONE) return false;
  p->code[look].flag = p->code[end].flag = x->flag;
  p->code[look].a = end + 1;
  return true;
}

/* A repeat of one character is one instruction that runs along the text;
 * any other keeps a count and where its iteration began in two slots of
 * its own, for its bounds and for the rule that an iteration past the
 * minimum may not match the empty string (which one that always reads a
 * character needs no check of). */
static bool generate_repeat(pattern_parser *p, const pattern_node *x, bool backward) {
  const pattern_node *child = &p->nodes[x->child];
  if (x->max == 0) return true;
  if (child->kind == NODE_CHAR || child->kind == NODE_CLASS) {
    uint32_t r = regex_emit(p, OP_REPEAT_ONE, x->min, x->max);
    if (r == NONE) return false;
    p->code[r].flag = x->flag;
    return regex_generate(p, x->child, backward);
  }
  if (x->min == 1 && x->max == 1) return regex_generate(p, x->child, backward);
  regex_program first = {0};
  bool may_be_empty = regex_add_first_chars(p, x->child, &first);
  uint32_t count = 2 * p->groups + 2 * p->loops++;
  uint32_t loop = regex_emit(p, OP_LOOP_INIT, count, 0) == NONE ? NONE : regex_emit(p, OP_LOOP, count, x->min);
  if (loop == NONE || (may_be_empty && regex_emit(p, OP_LOOP_BODY, count, 0) == NONE)) return false;
  p->code[loop].c = x->max;
  p->code[loop].flag = x->flag;
  if (x->groups_after > x->groups_before && regex_emit(p, OP_RESET, 2 * x->groups_before, 2 * x->groups_after) == NONE)
    return false;
  if (!regex_generate(p, x->child, backward)) return false;
  uint32_t next = regex_emit(p, OP_LOOP_NEXT, count, x->min);
  if (next == NONE) return false;
  p->code[next].flag = may_be_empty;
  p->code[next].c = loop;
  p->code[loop].d = (uint32_t)p->code_length;
  return true;
}

/* Node i's instructions.  The recursion is as deep as groups nest, which
 * GROUP_DEPTH_MAX bounds. */
static bool regex_generate(pattern_parser *p, uint32_t i, bool backward) {
  const pattern_node *x = &p->nodes[i];
  uint32_t at;
  switch (x->kind) {
    case NODE_CHAR:
    case NODE_CLASS:
    case NODE_BACKREF:
      at = regex_emit(p, x->kind == NODE_CHAR ? OP_CHAR : x->kind == NODE_CLASS ? OP_CLASS : OP_BACKREF, x->value, 0);
      if (at != NONE) p->code[at].backward = backward;
      return at != NONE;
    case NODE_BEGIN: return regex_emit(p, OP_BEGIN, 0, 0) != NONE;
    case NODE_END: return regex_emit(p, OP_END, 0, 0) != NONE;
    case NODE_WORD_BOUNDARY:
      at = regex_emit(p, OP_WORD_BOUNDARY, 0, 0);
      if (at != NONE) p->code[at].flag = x->flag;
      return at != NONE;
    case NODE_GROUP: return generate_group(p, x, backward);
    case NODE_LOOK: return generate_look(p, x);
    case NODE_ALTERNATIVES: return generate_alternatives(p, x, backward);
    case NODE_SEQUENCE: return generate_sequence(p, x, backward);
    default: return generate_repeat(p, x, backward);
  }
}

/* ---- where a match may start ----------------------------------------------- */

/* Add what node i may match first to out->first; true when it may match
 * without reading a character. */
static bool regex_add_first_chars(const pattern_parser *p, uint32_t i, regex_program *out) {
  const pattern_node *x = &p->nodes[i];
  bool empty = false;
  switch (x->kind) {
    case NODE_CHAR:
      if (x->value < 128)
        out->first[x->value / 32] |= 1u << (x->value % 32);
      else
        out->first_non_ascii = true;
      return false;
    case NODE_CLASS: {
      const regex_class *k = &p->classes[x->value];
      for (int w = 0; w < 4; w++) out->first[w] |= k->ascii[w];
      if (k->negated || (k->count && p->ranges[k->first + k->count - 1][1] >= 128)) out->first_non_ascii = true;
      return false;
    }
    case NODE_BACKREF:
      for (int w = 0; w < 4; w++) out->first[w] = UINT32_MAX;
      out->first_non_ascii = true;
      return true;
    case NODE_GROUP: return regex_add_first_chars(p, x->child, out);
    case NODE_ALTERNATIVES:
      for (uint32_t c = x->child; c != NONE; c = p->nodes[c].next) empty |= regex_add_first_chars(p, c, out);
      return empty;
    case NODE_SEQUENCE:
      for (uint32_t c = x->child; c != NONE; c = p->nodes[c].next)
        if (!regex_add_first_chars(p, c, out)) return false;
      return true;
    case NODE_REPEAT: return x->max == 0 || regex_add_first_chars(p, x->child, out) || x->min == 0;
    default: return true; /* assertions */
  }
}

/* The characters every match starts with, as code units, when the pattern
 * is one alternative that starts with two or more: a place without them
 * is not tried.  False when memory ran out. */
static bool find_prefix(pattern_parser *p, uint32_t root, regex_program *out) {
  const pattern_node *alternatives = &p->nodes[root];
  if (alternatives->child != alternatives->last_child) return true;
  uint32_t first = p->nodes[alternatives->child].child, length = 0;
  for (uint32_t c = first; c != NONE && p->nodes[c].kind == NODE_CHAR; c = p->nodes[c].next)
    length += p->nodes[c].value >= 0x10000 ? 2 : 1;
  if (length < 2) return true;
  if (!(out->prefix = mem_alloc(p->allocator, length * sizeof *out->prefix))) return p->nomem = true, false;
  for (uint32_t c = first; c != NONE && p->nodes[c].kind == NODE_CHAR; c = p->nodes[c].next) {
    uint32_t v = p->nodes[c].value;
    if (v >= 0x10000) {
      out->prefix[out->prefix_length++] = (uint16_t)(0xD800 + ((v - 0x10000) >> 10));
      v = 0xDC00 + ((v - 0x10000) & 0x3FF);
    }
    out->prefix[out->prefix_length++] = (uint16_t)v;
  }
  return true;
}

/* Does every match of node i start at ^? */
static bool starts_anchored(const pattern_parser *p, uint32_t i) {
  const pattern_node *x = &p->nodes[i];
  switch (x->kind) {
    case NODE_BEGIN: return true;
    case NODE_GROUP: return starts_anchored(p, x->child);
    case NODE_SEQUENCE: return x->child != NONE && starts_anchored(p, x->child);
    case NODE_REPEAT: return x->min > 0 && starts_anchored(p, x->child);
    case NODE_ALTERNATIVES:
      for (uint32_t c = x->child; c != NONE; c = p->nodes[c].next)
        if (!starts_anchored(p, c)) return false;
      return true;
    default: return false;
  }
}

/* ---- the whole ------------------------------------------------------------- */

shorn_code regex_compile(const shorn_allocator *allocator, const uint16_t *src, size_t n, bool unicode,
                         regex_program *out, const char **error) {
  pattern_parser p = {.allocator = allocator, .src = src, .n = n, .unicode = unicode};
  uint32_t root = NONE;
  bool read = count_groups(&p) && (root = regex_new_node(&p, NODE_ALTERNATIVES, 0)) != NONE && parse_pattern(&p, root) &&
              regex_generate(&p, root, false) && regex_emit(&p, OP_MATCH, 0, 0) != NONE;
  if (read) {
    p.code = regex_shrink(&p, p.code, p.code_length, sizeof *p.code);
    p.classes = regex_shrink(&p, p.classes, p.class_count, sizeof *p.classes);
    p.ranges = regex_shrink(&p, p.ranges, p.range_count, sizeof *p.ranges);
    read = !p.nomem;
  }
  *out = (regex_program){.code = p.code, .classes = p.classes, .ranges = p.ranges, .groups = p.groups,
                         .slots = 2 * p.groups + 2 * p.loops, .unicode = unicode};
  if (read) {
    out->anchored = starts_anchored(&p, root);
    out->nullable = regex_add_first_chars(&p, root, out);
    read = find_prefix(&p, root, out);
  }
  mem_free(allocator, p.nodes);
  mem_free(allocator, p.items);
  mem_free(allocator, p.names);
  mem_free(allocator, p.id_start);
  mem_free(allocator, p.id_continue);
  if (read) return SHORN_OK;
  regex_program_free(allocator, out);
  *error = p.error;
  return p.nomem ? SHORN_ERROR_NOMEM : SHORN_ERROR_SCHEMA;
}

void regex_program_free(const shorn_allocator *allocator, regex_program *p) {
  mem_free(allocator, p->code);
  mem_free(allocator, p->classes);
  mem_free(allocator, p->ranges);
  mem_free(allocator, p->prefix);
  *p = (regex_program){0};
}
