/*
 * pattern.c — JSON Schema patterns on PCRE2.
 *
 * A pattern is JavaScript's regular expression syntax (ECMA-262 with its
 * Annex B, as `new RegExp(source)` reads a string without flags), which
 * this file rewrites into PCRE2's before compiling it: every character is
 * spelled \x{…}, and each construct whose meaning differs between the two
 * is spelled out as JavaScript means it (`.`, `\s`, `$`, backreferences,
 * legacy octal and identity escapes, `{` that starts no quantifier, empty
 * classes).  What JavaScript refuses is refused here, in words like V8's.
 *
 * Without the `u` flag JavaScript matches UTF-16 code units, which is what
 * PCRE2's 16-bit library does without UTF mode.  A pattern that uses
 * `\p{…}`, `\P{…}` or `\u{…}`, which mean something only with `u`, or that
 * JavaScript reads only with `u`, is read as with it (PCRE2_UTF, code
 * points): the validators that write such patterns (Zod's and Valibot's
 * emoji) compile them with `u`.
 */
#define PCRE2_CODE_UNIT_WIDTH 16
#include <pcre2.h>
#include <stdatomic.h>
#include <stdio.h>

#include "pattern.h"

#include "memory.h"
#include "text.h"

/* `^[a-z0-9.-]+$`: one class of ASCII members repeated over the whole
 * string, the commonest pattern in schemas.  It matches exactly when every
 * character is a member and their count is within the quantifier's bounds,
 * which a table answers in a few instructions a character where PCRE2's
 * call, the string's widening to UTF-16 and its JIT code cost some twenty. */
typedef struct class_run {
  bool read;             /* the pattern is one: match with this, not PCRE2 */
  bool member[256];      /* by a string's byte: false from 0x80 up, as no member is there */
  uint64_t fewest, most;
} class_run;

struct pattern {
  pcre2_code *code;
  pattern_engine *engine;
  bool unicode;
  bool jit; /* PCRE2's JIT compiled it */
  class_run run;
  pattern *next; /* the engine's list */
};

struct pattern_engine {
  const shorn_allocator *allocator;
  pcre2_general_context *general;
  pcre2_compile_context *compile;
  pcre2_match_context *lean; /* the lent match data's limits: it may not grow */
  pcre2_match_context *limits; /* the rest of a match's: steps and depth */
  pattern *patterns;
  /* Match data, with PCRE2's first frames to backtrack in, made with the
   * engine and lent to one encode at a time, so that a row costs no
   * allocation; a match that needs more frames, or an encode that finds it
   * out, makes its own.  An atomic exchange, since threads share a schema;
   * `warm` once its frames are there. */
  _Atomic(pcre2_match_data *) lent;
  bool warm;
};

/* ---- the engine ------------------------------------------------------------ */

/* PCRE2's first frames to backtrack in (its START_FRAMES_SIZE), which the
 * lent match data keeps: a match that needs more retries in its own. */
#define LEAN_HEAP_KIB 20

static void *engine_malloc(PCRE2_SIZE size, void *allocator) {
  return mem_alloc(allocator, size ? size : 1);
}

static void engine_free_block(void *block, void *allocator) {
  if (block) mem_free(allocator, block);
}

pattern_engine *pattern_engine_new(const shorn_allocator *allocator) {
  pattern_engine *e = mem_calloc(allocator, 1, sizeof *e);
  if (!e) return NULL;
  e->allocator = allocator;
  atomic_init(&e->lent, NULL);
  e->general = pcre2_general_context_create(engine_malloc, engine_free_block, (void *)allocator);
  e->compile = e->general ? pcre2_compile_context_create(e->general) : NULL;
  e->limits = e->compile ? pcre2_match_context_create(e->general) : NULL;
  e->lean = e->limits ? pcre2_match_context_create(e->general) : NULL;
  pcre2_match_data *data = e->lean ? pcre2_match_data_create(1, e->general) : NULL;
  if (!data) {
    pattern_engine_free(e);
    return NULL;
  }
  atomic_store(&e->lent, data);
  for (int i = 0; i < 2; i++) {
    pcre2_match_context *c = i ? e->lean : e->limits;
    pcre2_set_match_limit(c, PATTERN_MATCH_LIMIT);
    pcre2_set_depth_limit(c, PATTERN_MATCH_LIMIT);
  }
  pcre2_set_heap_limit(e->lean, LEAN_HEAP_KIB);
  return e;
}

void pattern_engine_free(pattern_engine *e) {
  if (!e) return;
  for (pattern *p = e->patterns, *next; p; p = next) {
    next = p->next;
    pcre2_code_free(p->code);
    mem_free(e->allocator, p);
  }
  pcre2_match_data_free(atomic_load(&e->lent));
  pcre2_match_context_free(e->lean);
  pcre2_match_context_free(e->limits);
  pcre2_compile_context_free(e->compile);
  pcre2_general_context_free(e->general);
  mem_free(e->allocator, e);
}

/* ---- the rewriting --------------------------------------------------------- */

/* PCRE2 refuses groups nested deeper than this by default; saying so here
 * keeps the group stack fixed. */
#define GROUP_DEPTH_MAX 250

/* PCRE2 reads no quantifier bound above this. */
#define QUANTIFIER_MAX 65535

typedef struct unit_buffer {
  uint16_t *data;
  size_t length, capacity;
} unit_buffer;

typedef struct group_name {
  const uint16_t *name;
  size_t length;
  uint32_t number;
} group_name;

/* What the last term was, for the quantifier that may follow it. */
typedef enum term {
  TERM_NONE,       /* the start, or after `|` or `(` */
  TERM_ATOM,       /* quantifiable */
  TERM_LOOKAHEAD,  /* quantifiable without `u` (Annex B) */
  TERM_ASSERTION,  /* not quantifiable */
  TERM_QUANTIFIED  /* a second quantifier has nothing to repeat */
} term;

typedef enum group_kind { GROUP_PLAIN, GROUP_LOOKAHEAD, GROUP_LOOKBEHIND } group_kind;

/* A class escape such as \d, or one character. */
typedef struct class_atom {
  bool is_set;
  uint32_t c;          /* the character, when not a set */
  char set[160];       /* the set's PCRE2 spelling; "s" and "S" for \s and \S, which are spelled apart */
} class_atom;

typedef struct rewriter {
  const shorn_allocator *allocator;
  const uint16_t *src;
  size_t n, at;
  bool unicode;
  uint32_t groups; /* capturing groups, counted first: \N may refer forward */
  group_name *names;
  uint32_t name_count;
  size_t name_capacity;
  unit_buffer out, items; /* the PCRE2 pattern; a class's members */
  bool nomem;
  const char *error; /* why JavaScript would refuse the pattern */
} rewriter;

/* JavaScript's \s: WhiteSpace and LineTerminator, as class members. */
static const char js_spaces[] =
    "\\t\\n\\x{b}\\x{c}\\r\\x{20}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}"
    "\\x{3000}\\x{feff}";

static bool fail(rewriter *r, const char *why) {
  if (!r->error) r->error = why;
  return false;
}

static bool emit_units(rewriter *r, unit_buffer *b, const char *ascii) {
  size_t n = strlen(ascii);
  if (b->capacity - b->length < n) {
    uint16_t *grown = array_grow(r->allocator, b->data, &b->capacity, b->length + n, sizeof *grown, NULL);
    if (!grown) return r->nomem = true, false;
    b->data = grown;
  }
  for (size_t i = 0; i < n; i++) b->data[b->length++] = (uint8_t)ascii[i];
  if (b->length > PATTERN_MAX_UNITS) return fail(r, "the pattern is too long");
  return true;
}

static bool emit(rewriter *r, const char *ascii) { return emit_units(r, &r->out, ascii); }

static bool emit_char_to(rewriter *r, unit_buffer *b, uint32_t c) {
  char text[16];
  snprintf(text, sizeof text, "\\x{%x}", (unsigned)c);
  return emit_units(r, b, text);
}

static bool is_surrogate(uint32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

/* One character: a code unit, or with `u` a code point.  In UTF mode a
 * lone surrogate cannot occur in the text (the structure refuses it), so it
 * matches nothing. */
static bool emit_char(rewriter *r, uint32_t c) {
  if (r->unicode && is_surrogate(c)) return emit(r, "(?!)");
  return emit_char_to(r, &r->out, c);
}

static bool at_end(const rewriter *r) { return r->at >= r->n; }
static uint16_t peek(const rewriter *r, size_t ahead) {
  return r->at + ahead < r->n ? r->src[r->at + ahead] : 0;
}

/* The source character at `at`, advancing: with `u` a surrogate pair is one
 * code point. */
static uint32_t next_char(rewriter *r) {
  uint32_t c = r->src[r->at++];
  if (r->unicode && c >= 0xD800 && c <= 0xDBFF && !at_end(r) && r->src[r->at] >= 0xDC00 &&
      r->src[r->at] <= 0xDFFF)
    c = 0x10000 + ((c - 0xD800) << 10) + (r->src[r->at++] - 0xDC00);
  return c;
}

static bool is_decimal(uint16_t c) { return c >= '0' && c <= '9'; }
static bool is_octal(uint16_t c) { return c >= '0' && c <= '7'; }
static int source_hex_value(uint16_t c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}
static bool is_ascii_letter(uint16_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_name_char(uint16_t c, bool first) {
  return is_ascii_letter(c) || c == '$' || c == '_' || c >= 0x80 || (!first && is_decimal(c));
}

/* `count` hex digits at `at` + `skip`, or -1. */
static long hex_digits(const rewriter *r, size_t skip, int count) {
  long v = 0;
  for (int i = 0; i < count; i++) {
    int d = source_hex_value(peek(r, skip + (size_t)i));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/* ---- group names ----------------------------------------------------------- */

/* A group name at `at` up to its `>`: its length, or 0 when there is none. */
static size_t name_length(const rewriter *r, size_t at) {
  size_t i = at;
  while (i < r->n && r->src[i] != '>' && is_name_char(r->src[i], i == at)) i++;
  return i < r->n && r->src[i] == '>' && i > at ? i - at : 0;
}

static const group_name *find_name(const rewriter *r, const uint16_t *name, size_t n) {
  for (uint32_t i = 0; i < r->name_count; i++)
    if (r->names[i].length == n && memcmp(r->names[i].name, name, n * sizeof *name) == 0) return &r->names[i];
  return NULL;
}

/* Count the capturing groups and collect their names, before rewriting:
 * \N and \k<name> may refer to a group that comes later. */
static bool count_groups(rewriter *r) {
  bool in_class = false;
  for (size_t i = 0; i < r->n; i++) {
    uint16_t c = r->src[i];
    if (c == '\\') {
      i++;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(' && (i + 1 >= r->n || r->src[i + 1] != '?')) {
      r->groups++;
    } else if (c == '(' && i + 3 < r->n && r->src[i + 2] == '<' && r->src[i + 3] != '=' && r->src[i + 3] != '!') {
      size_t n = name_length(r, i + 3);
      if (!n) return fail(r, "Invalid capture group name");
      if (find_name(r, r->src + i + 3, n)) return fail(r, "Duplicate capture group name");
      group_name *names = r->names;
      if (r->name_count == r->name_capacity &&
          !(names = array_grow(r->allocator, r->names, &r->name_capacity, r->name_count + 1, sizeof *names, NULL)))
        return r->nomem = true, false;
      r->names = names;
      names[r->name_count++] = (group_name){r->src + i + 3, n, ++r->groups};
    }
  }
  return true;
}

static bool emit_backreference(rewriter *r, uint32_t number) {
  char text[24];
  snprintf(text, sizeof text, "\\g{%u}", (unsigned)number);
  return emit(r, text);
}

/* ---- escapes --------------------------------------------------------------- */

/* Unicode's General_Category values by their long names, which JavaScript
 * takes and PCRE2 does not. */
static const char *const category_names[][2] = {
    {"Cased_Letter", "L&"},        {"Close_Punctuation", "Pe"},  {"Connector_Punctuation", "Pc"},
    {"Control", "Cc"},             {"cntrl", "Cc"},              {"Currency_Symbol", "Sc"},
    {"Dash_Punctuation", "Pd"},    {"Decimal_Number", "Nd"},     {"digit", "Nd"},
    {"Enclosing_Mark", "Me"},      {"Final_Punctuation", "Pf"},  {"Format", "Cf"},
    {"Initial_Punctuation", "Pi"}, {"Letter", "L"},              {"Letter_Number", "Nl"},
    {"Line_Separator", "Zl"},      {"Lowercase_Letter", "Ll"},   {"Mark", "M"},
    {"Combining_Mark", "M"},       {"Math_Symbol", "Sm"},        {"Modifier_Letter", "Lm"},
    {"Modifier_Symbol", "Sk"},     {"Nonspacing_Mark", "Mn"},    {"Number", "N"},
    {"Open_Punctuation", "Ps"},    {"Other", "C"},               {"Other_Letter", "Lo"},
    {"Other_Number", "No"},        {"Other_Punctuation", "Po"},  {"Other_Symbol", "So"},
    {"Paragraph_Separator", "Zp"}, {"Private_Use", "Co"},        {"Punctuation", "P"},
    {"punct", "P"},                {"Separator", "Z"},           {"Space_Separator", "Zs"},
    {"Spacing_Mark", "Mc"},        {"Surrogate", "Cs"},          {"Symbol", "S"},
    {"Titlecase_Letter", "Lt"},    {"Unassigned", "Cn"},         {"Uppercase_Letter", "Lu"},
    {"LC", "L&"},
};

/* \p{…} or \P{…} at `at` (past the letter) into `set`, PCRE2's spelling:
 * General_Category and Script names as JavaScript writes them. */
static bool read_property(rewriter *r, bool negated, char *set, size_t cap) {
  if (peek(r, 0) != '{') return fail(r, "Invalid property name");
  char name[64], value[64];
  size_t n = 0, v = 0;
  bool equals = false;
  for (r->at++;; r->at++) {
    if (at_end(r)) return fail(r, "Invalid property name");
    uint16_t c = r->src[r->at];
    if (c == '}') break;
    if (c == '=' && !equals) {
      equals = true;
      continue;
    }
    if (!(is_ascii_letter(c) || is_decimal(c) || c == '_') || (equals ? v : n) == sizeof name - 1)
      return fail(r, "Invalid property name");
    if (equals)
      value[v++] = (char)c;
    else
      name[n++] = (char)c;
  }
  r->at++;
  name[n] = value[v] = 0;
  if (!n || (equals && !v)) return fail(r, "Invalid property name");
  const char *p = equals ? value : name;
  if (equals && strcmp(name, "General_Category") != 0 && strcmp(name, "gc") != 0) {
    if (strcmp(name, "Script") && strcmp(name, "sc") && strcmp(name, "Script_Extensions") && strcmp(name, "scx"))
      return fail(r, "Invalid property name");
    bool extensions = strcmp(name, "scx") == 0 || strcmp(name, "Script_Extensions") == 0;
    snprintf(set, cap, "\\%c{%s:%s}", negated ? 'P' : 'p', extensions ? "scx" : "sc", value);
    return true;
  }
  if (!equals && strcmp(p, "Assigned") == 0) {
    snprintf(set, cap, "\\%c{Cn}", negated ? 'p' : 'P');
    return true;
  }
  for (size_t i = 0; i < COUNT_OF(category_names); i++)
    if (strcmp(p, category_names[i][0]) == 0) p = category_names[i][1];
  snprintf(set, cap, "\\%c{%s}", negated ? 'P' : 'p', p);
  return true;
}

/* Annex B's LegacyOctalEscapeSequence at `at`: up to three octal digits,
 * at most 0377. */
static uint32_t legacy_octal(rewriter *r) {
  uint32_t first = r->src[r->at++] - '0', v = first;
  if (is_octal(peek(r, 0)) && !at_end(r)) {
    v = v * 8 + (r->src[r->at++] - '0');
    if (first <= 3 && is_octal(peek(r, 0)) && !at_end(r)) v = v * 8 + (r->src[r->at++] - '0');
  }
  return v;
}

/* \u…: four hex digits (with `u`, a surrogate pair of two such escapes is
 * one code point), or with `u` \u{…}.  False when it is not one. */
static bool read_unicode_escape(rewriter *r, uint32_t *c) {
  long v = hex_digits(r, 1, 4);
  if (v >= 0) {
    r->at += 5;
    *c = (uint32_t)v;
    long low;
    if (r->unicode && v >= 0xD800 && v <= 0xDBFF && peek(r, 0) == '\\' && peek(r, 1) == 'u' &&
        (low = hex_digits(r, 2, 4)) >= 0xDC00 && low <= 0xDFFF) {
      r->at += 6;
      *c = 0x10000 + (((uint32_t)v - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
    }
    return true;
  }
  if (!r->unicode || peek(r, 1) != '{') return false;
  uint32_t code = 0;
  size_t i = 2;
  for (; source_hex_value(peek(r, i)) >= 0 && r->at + i < r->n; i++) {
    code = code * 16 + (uint32_t)source_hex_value(peek(r, i));
    if (code > 0x10FFFF) return false;
  }
  if (i == 2 || peek(r, i) != '}') return false;
  r->at += i + 1;
  *c = code;
  return true;
}

static bool is_syntax_char(uint16_t c) { return c && c < 0x80 && strchr("^$\\.*+?()[]{}|/", c) != NULL; }

/* The escape whose letter is at `at` (its backslash read) as a character
 * or a class escape; b, B, k and backreferences outside a class are the
 * caller's.  False when JavaScript refuses it. */
static bool read_escape(rewriter *r, bool in_class, class_atom *a) {
  uint16_t c = r->src[r->at];
  a->is_set = false;
  a->c = c;
  switch (c) {
    case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
      r->at++;
      a->is_set = true;
      snprintf(a->set, sizeof a->set, c == 's' ? "s" : c == 'S' ? "S" : "\\%c", (char)c);
      return true;
    case 'p': case 'P':
      r->at++;
      if (!r->unicode) return true;
      a->is_set = true;
      return read_property(r, c == 'P', a->set, sizeof a->set);
    case 'f': a->c = 0x0C; break;
    case 'n': a->c = 0x0A; break;
    case 'r': a->c = 0x0D; break;
    case 't': a->c = 0x09; break;
    case 'v': a->c = 0x0B; break;
    case 'c': {
      uint16_t next = peek(r, 1);
      bool control = is_ascii_letter(next) || (in_class && !r->unicode && (is_decimal(next) || next == '_'));
      if (r->at + 1 < r->n && control) {
        r->at += 2;
        a->c = next % 32;
        return true;
      }
      if (r->unicode) return fail(r, "Invalid unicode escape");
      a->c = '\\'; /* Annex B: the backslash stands for itself, and `c` follows */
      return true;
    }
    case '0':
      if (!is_decimal(peek(r, 1)) || r->at + 1 >= r->n) {
        a->c = 0;
        break;
      }
      if (r->unicode) return fail(r, in_class ? "Invalid class escape" : "Invalid decimal escape");
      a->c = legacy_octal(r);
      return true;
    case '1': case '2': case '3': case '4': case '5': case '6': case '7':
      if (r->unicode) return fail(r, in_class ? "Invalid class escape" : "Invalid escape");
      a->c = legacy_octal(r);
      return true;
    case '8': case '9':
      if (r->unicode) return fail(r, in_class ? "Invalid class escape" : "Invalid escape");
      break;
    case 'x': {
      long v = hex_digits(r, 1, 2);
      if (v >= 0) {
        r->at += 3;
        a->c = (uint32_t)v;
        return true;
      }
      if (r->unicode) return fail(r, "Invalid escape");
      break;
    }
    case 'u':
      if (read_unicode_escape(r, &a->c)) return true;
      if (r->unicode) return fail(r, "Invalid Unicode escape");
      break;
    case 'b':
      if (in_class) a->c = 0x08;
      break;
    case '-':
      if (r->unicode && !in_class) return fail(r, "Invalid escape");
      break;
    default:
      if (r->unicode && !is_syntax_char(c)) return fail(r, in_class ? "Invalid class escape" : "Invalid escape");
      a->c = next_char(r);
      return true;
  }
  r->at++;
  return true;
}

/* Append a class escape to a class's members: \s as JavaScript's list. */
static bool emit_set(rewriter *r, unit_buffer *b, const char *set) {
  return emit_units(r, b, strcmp(set, "s") == 0 ? js_spaces : set);
}

/* ---- terms ----------------------------------------------------------------- */

/* An escape outside a class. */
static term rewrite_escape(rewriter *r) {
  r->at++;
  if (at_end(r)) return fail(r, "\\ at end of pattern"), TERM_NONE;
  uint16_t c = r->src[r->at];
  if (c == 'b' || c == 'B') {
    r->at++;
    emit(r, c == 'b' ? "\\b" : "\\B");
    return TERM_ASSERTION;
  }
  if (c == 'k' && (r->unicode || r->name_count)) {
    size_t n = peek(r, 1) == '<' ? name_length(r, r->at + 2) : 0;
    const group_name *g = n ? find_name(r, r->src + r->at + 2, n) : NULL;
    if (!g) return fail(r, n ? "Invalid named capture referenced" : "Invalid named reference"), TERM_NONE;
    r->at += n + 3;
    emit_backreference(r, g->number);
    return TERM_ATOM;
  }
  if (c >= '1' && c <= '9') {
    size_t i = 0;
    uint64_t number = 0;
    while (r->at + i < r->n && is_decimal(peek(r, i)) && number <= UINT32_MAX)
      number = number * 10 + (peek(r, i++) - '0');
    if (number <= r->groups) {
      r->at += i;
      emit_backreference(r, (uint32_t)number);
      return TERM_ATOM;
    }
  }
  class_atom a;
  if (!read_escape(r, false, &a)) return TERM_NONE;
  if (!a.is_set) {
    emit_char(r, a.c);
  } else if (strcmp(a.set, "s") == 0 || strcmp(a.set, "S") == 0) {
    emit(r, a.set[0] == 's' ? "[" : "[^");
    emit(r, js_spaces);
    emit(r, "]");
  } else {
    emit(r, a.set);
  }
  return TERM_ATOM;
}

/* One member of a class: a character or a class escape. */
static bool read_class_atom(rewriter *r, class_atom *a) {
  if (r->src[r->at] != '\\') {
    a->is_set = false;
    a->c = next_char(r);
    return true;
  }
  r->at++;
  if (at_end(r)) return fail(r, "\\ at end of pattern");
  return read_escape(r, true, a);
}

/* A class member or range into r->items; with `u` the surrogates, which
 * well-formed text never holds alone, are left out.  *members counts what
 * went in, *non_spaces the \S, which classes spell apart. */
static bool add_member(rewriter *r, const class_atom *a, int *members, int *non_spaces) {
  if (a->is_set && strcmp(a->set, "S") == 0) return ++*non_spaces, true;
  if (a->is_set) return ++*members, emit_set(r, &r->items, a->set);
  if (r->unicode && is_surrogate(a->c)) return true;
  return ++*members, emit_char_to(r, &r->items, a->c);
}

static bool add_range(rewriter *r, uint32_t from, uint32_t to, int *members) {
  if (r->unicode && is_surrogate(from)) from = 0xE000;
  if (r->unicode && is_surrogate(to)) to = 0xD7FF;
  if (from > to) return true; /* surrogates only */
  ++*members;
  return emit_char_to(r, &r->items, from) && emit_units(r, &r->items, "-") && emit_char_to(r, &r->items, to);
}

/* A class, its members gathered apart, then written: \S, which PCRE2
 * cannot put beside JavaScript's own spaces in one class, makes it an
 * alternation; an empty class matches nothing, its negation anything. */
static term rewrite_class(rewriter *r) {
  r->at++;
  bool negated = peek(r, 0) == '^' && !at_end(r);
  if (negated) r->at++;
  r->items.length = 0;
  int members = 0, non_spaces = 0;
  for (;;) {
    if (at_end(r)) return fail(r, "Unterminated character class"), TERM_NONE;
    if (r->src[r->at] == ']') break;
    class_atom a, b;
    if (!read_class_atom(r, &a)) return TERM_NONE;
    if (peek(r, 0) == '-' && r->at + 1 < r->n && peek(r, 1) != ']') {
      r->at++;
      if (!read_class_atom(r, &b)) return TERM_NONE;
      if (a.is_set || b.is_set) {
        if (r->unicode) return fail(r, "Invalid character class"), TERM_NONE;
        class_atom dash = {.c = '-'};
        add_member(r, &a, &members, &non_spaces);
        add_member(r, &dash, &members, &non_spaces);
        add_member(r, &b, &members, &non_spaces);
      } else if (a.c > b.c) {
        return fail(r, "Range out of order in character class"), TERM_NONE;
      } else {
        add_range(r, a.c, b.c, &members);
      }
    } else {
      add_member(r, &a, &members, &non_spaces);
    }
    if (r->nomem || r->error) return TERM_NONE;
  }
  r->at++;
  const char *any = r->unicode ? "[\\x{0}-\\x{10ffff}]" : "[\\x{0}-\\x{ffff}]";
  if (!non_spaces && !members) return emit(r, negated ? any : "(?!)"), TERM_ATOM;
  /* The members, as a class of their own. */
  if (!non_spaces) {
    emit(r, negated ? "[^" : "[");
  } else if (!members) {
    emit(r, negated ? "[" : "[^");
    emit(r, js_spaces);
    emit(r, "]");
    return TERM_ATOM;
  } else {
    emit(r, negated ? "(?:(?![" : "(?:[");
  }
  if (r->items.length && r->out.capacity - r->out.length < r->items.length) {
    uint16_t *grown = array_grow(r->allocator, r->out.data, &r->out.capacity, r->out.length + r->items.length,
                                 sizeof *grown, NULL);
    if (!grown) return r->nomem = true, TERM_NONE;
    r->out.data = grown;
  }
  if (r->items.length) memcpy(r->out.data + r->out.length, r->items.data, r->items.length * sizeof *r->items.data);
  r->out.length += r->items.length;
  if (!non_spaces) return emit(r, "]"), TERM_ATOM;
  /* [a\S] is a or not a space; [^a\S] a space that is not a. */
  emit(r, negated ? "])[" : "]|[^");
  emit(r, js_spaces);
  emit(r, "])");
  return TERM_ATOM;
}

/* {n}, {n,} or {n,m} at `at`: true with the bounds (max UINT64_MAX for
 * none) and `at` past it; false, `at` unmoved, when it is not one. */
static bool read_braces(rewriter *r, uint64_t *min, uint64_t *max) {
  size_t i = 1;
  uint64_t *bound = min;
  *min = 0, *max = UINT64_MAX;
  bool digits = false, comma = false;
  for (;; i++) {
    uint16_t c = peek(r, i);
    if (r->at + i >= r->n) return false;
    if (is_decimal(c)) {
      *bound = *bound > UINT32_MAX ? *bound : *bound * 10 + (c - '0');
      digits = true;
    } else if (c == ',' && !comma && digits) {
      comma = true;
      bound = max;
      *max = 0;
      digits = false;
      if (peek(r, i + 1) == '}') *max = UINT64_MAX, digits = true;
    } else if (c == '}' && (digits || comma)) {
      break;
    } else {
      return false;
    }
  }
  if (!comma) *max = *min;
  r->at += i + 1;
  return true;
}

static bool rewrite_quantifier(rewriter *r, term last) {
  uint64_t min, max;
  char text[48];
  uint16_t c = r->src[r->at];
  if (c == '{') {
    size_t start = r->at;
    if (!read_braces(r, &min, &max)) {
      if (r->unicode) return fail(r, "Lone quantifier brackets");
      r->at++;
      return emit_char(r, '{');
    }
    if (last != TERM_ATOM && !(last == TERM_LOOKAHEAD && !r->unicode)) {
      r->at = start;
      return fail(r, "Nothing to repeat");
    }
    if (max < min) return fail(r, "numbers out of order in {} quantifier");
    if (min > QUANTIFIER_MAX || (max != UINT64_MAX && max > QUANTIFIER_MAX))
      return fail(r, "a quantifier bound above 65535, the most PCRE2 reads");
    if (max == UINT64_MAX)
      snprintf(text, sizeof text, "{%u,}", (unsigned)min);
    else
      snprintf(text, sizeof text, "{%u,%u}", (unsigned)min, (unsigned)max);
  } else {
    if (last != TERM_ATOM && !(last == TERM_LOOKAHEAD && !r->unicode)) return fail(r, "Nothing to repeat");
    r->at++;
    snprintf(text, sizeof text, "%c", (char)c);
  }
  emit(r, text);
  if (peek(r, 0) == '?' && !at_end(r)) {
    r->at++;
    emit(r, "?");
  }
  return true;
}

/* `(` and what follows it: the kind of group, or false. */
static bool rewrite_group_start(rewriter *r, group_kind *kind) {
  *kind = GROUP_PLAIN;
  if (peek(r, 1) != '?' || r->at + 1 >= r->n) {
    r->at++;
    return emit(r, "(");
  }
  uint16_t c = peek(r, 2), d = peek(r, 3);
  if (c == ':' || c == '=' || c == '!') {
    *kind = c == ':' ? GROUP_PLAIN : GROUP_LOOKAHEAD;
    r->at += 3;
    return emit(r, c == ':' ? "(?:" : c == '=' ? "(?=" : "(?!");
  }
  if (c == '<' && (d == '=' || d == '!')) {
    *kind = GROUP_LOOKBEHIND;
    r->at += 4;
    return emit(r, d == '=' ? "(?<=" : "(?<!");
  }
  if (c == '<') {
    size_t n = name_length(r, r->at + 3);
    if (!n) return fail(r, "Invalid capture group name");
    r->at += n + 4;
    return emit(r, "(");
  }
  return fail(r, "Invalid group");
}

/* A `.*` or `.*?` that starts an alternative of the whole pattern, skipped:
 * a pattern matches somewhere with it exactly where it matches without,
 * and PCRE2 spells `.` as a class, where its own `.*` it would have tried
 * only at line starts, so kept it would try every place and every length
 * of a long string that fails: time quadratic in the string's length. */
static bool leading_dot_star(rewriter *r) {
  if (peek(r, 1) != '*' || r->at + 1 >= r->n) return false;
  size_t after = peek(r, 2) == '?' && r->at + 2 < r->n ? 3 : 2;
  uint16_t next = r->at + after < r->n ? peek(r, after) : 0;
  if (next == '*' || next == '+' || next == '?' || next == '{') return false; /* left for JavaScript's refusal */
  r->at += after;
  return true;
}

static bool rewrite(rewriter *r) {
  uint8_t kinds[GROUP_DEPTH_MAX];
  size_t depth = 0;
  term last = TERM_NONE;
  while (!at_end(r) && !r->error && !r->nomem) {
    uint16_t c = r->src[r->at];
    group_kind kind;
    switch (c) {
      case '\\': last = rewrite_escape(r); break;
      case '^':
      case '$':
        r->at++;
        emit(r, c == '^' ? "^" : "\\z");
        last = TERM_ASSERTION;
        break;
      case '.':
        if (!depth && last == TERM_NONE && leading_dot_star(r)) break;
        r->at++;
        emit(r, "[^\\n\\r\\x{2028}\\x{2029}]");
        last = TERM_ATOM;
        break;
      case '(':
        if (depth == GROUP_DEPTH_MAX) return fail(r, "groups nest deeper than 250, the most PCRE2 reads");
        if (!rewrite_group_start(r, &kind)) return false;
        kinds[depth++] = (uint8_t)kind;
        last = TERM_NONE;
        break;
      case ')':
        if (!depth) return fail(r, "Unmatched ')'");
        r->at++;
        emit(r, ")");
        kind = kinds[--depth];
        last = kind == GROUP_PLAIN ? TERM_ATOM : kind == GROUP_LOOKAHEAD ? TERM_LOOKAHEAD : TERM_ASSERTION;
        break;
      case '[': last = rewrite_class(r); break;
      case '*':
      case '+':
      case '?':
      case '{': {
        size_t before = r->at;
        if (!rewrite_quantifier(r, last)) return false;
        /* A `{` that starts no quantifier is a character. */
        last = c == '{' && r->at == before + 1 ? TERM_ATOM : TERM_QUANTIFIED;
        break;
      }
      case '|':
        r->at++;
        emit(r, "|");
        last = TERM_NONE;
        break;
      case '}':
      case ']':
        if (r->unicode) return fail(r, "Lone quantifier brackets");
        /* fall through */
      default:
        emit_char(r, next_char(r));
        last = TERM_ATOM;
        break;
    }
  }
  if (!r->error && !r->nomem && depth) return fail(r, "Unterminated group");
  return !r->error && !r->nomem;
}

/* Does the pattern use \p, \P or \u{, which only the `u` flag gives a
 * meaning? */
static bool wants_unicode(const uint16_t *s, size_t n) {
  for (size_t i = 0; i + 1 < n; i++) {
    if (s[i] != '\\') continue;
    if (s[i + 1] == 'p' || s[i + 1] == 'P' || (s[i + 1] == 'u' && i + 2 < n && s[i + 2] == '{')) return true;
    i++;
  }
  return false;
}

/* ---- a run of one class ---------------------------------------------------- */

/* One member of a class written plainly: an ASCII character, an escaped
 * punctuation mark, \d or \w (ASCII alone, with or without `u`).  False
 * for anything else, which leaves the pattern to PCRE2. */
static bool read_run_atom(const uint16_t *s, size_t n, size_t *at, bool member[256], int *single) {
  *single = -1;
  if (*at >= n || s[*at] >= 0x80 || s[*at] == ']') return false;
  uint16_t c = s[(*at)++];
  if (c != '\\') {
    *single = c;
    return true;
  }
  if (*at >= n) return false;
  uint16_t d = s[(*at)++];
  if (d == 'd' || d == 'w') {
    for (int x = 0; x < 128; x++)
      if ((x >= '0' && x <= '9') || (d == 'w' && (is_ascii_letter((uint16_t)x) || x == '_')))
        member[x] = true;
    return true;
  }
  if (d >= 0x80 || d <= ' ' || is_ascii_letter(d) || is_decimal(d)) return false;
  *single = d;
  return true;
}

static bool read_run_count(const uint16_t *s, size_t n, size_t *at, uint64_t *count) {
  size_t from = *at;
  for (*count = 0; *at < n && is_decimal(s[*at]) && *count <= QUANTIFIER_MAX; (*at)++)
    *count = *count * 10 + (s[*at] - '0');
  return *at > from && *count <= QUANTIFIER_MAX;
}

/* Is the pattern (which PCRE2 has compiled, so JavaScript reads it) `^`, a
 * class of plainly written ASCII members, a greedy quantifier or none, and
 * `$`? */
static bool read_class_run(const uint16_t *s, size_t n, class_run *run) {
  size_t at = 2;
  if (n < 5 || s[0] != '^' || s[1] != '[' || s[2] == '^' || s[2] == ']') return false;
  *run = (class_run){0};
  while (at < n && s[at] != ']') {
    int from, to;
    if (!read_run_atom(s, n, &at, run->member, &from)) return false;
    to = from;
    if (at + 1 < n && s[at] == '-' && s[at + 1] != ']') {
      at++;
      if (from < 0 || !read_run_atom(s, n, &at, run->member, &to) || to < from) return false;
    }
    for (int c = from; c >= 0 && c <= to; c++) run->member[c] = true;
  }
  if (++at >= n) return false;
  run->fewest = run->most = 1;
  if (s[at] == '+' || s[at] == '*' || s[at] == '?') {
    run->fewest = s[at] == '+';
    run->most = s[at] == '?' ? 1 : UINT64_MAX;
    at++;
  } else if (s[at] == '{') {
    at++;
    if (!read_run_count(s, n, &at, &run->fewest)) return false;
    run->most = run->fewest;
    if (at < n && s[at] == ',') {
      at++;
      run->most = UINT64_MAX;
      if (at < n && s[at] != '}' && !read_run_count(s, n, &at, &run->most)) return false;
    }
    if (at >= n || s[at++] != '}' || run->most < run->fewest) return false;
  }
  run->read = at + 1 == n && s[at] == '$';
  return run->read;
}

static pattern_result match_class_run(const class_run *run, const char *s, size_t n) {
  if (n < run->fewest || n > run->most) return PATTERN_NO_MATCH;
  for (size_t i = 0; i < n; i++)
    if (!run->member[(unsigned char)s[i]]) return PATTERN_NO_MATCH;
  return PATTERN_MATCH;
}

/* ---- compiling and matching ------------------------------------------------ */

static shorn_code compile_rewritten(pattern_engine *e, rewriter *r, const pattern **out, char *why, size_t cap) {
  int code;
  PCRE2_SIZE offset;
  uint32_t options =
      PCRE2_MATCH_UNSET_BACKREF | PCRE2_NEVER_BACKSLASH_C | (r->unicode ? PCRE2_UTF : PCRE2_NEVER_UTF);
  static const uint16_t empty[1] = {0};
  pcre2_code *compiled = pcre2_compile(r->out.data ? r->out.data : empty, r->out.length, options, &code, &offset,
                                       e->compile);
  if (!compiled) {
    if (code == PCRE2_ERROR_HEAP_FAILED) return SHORN_ERROR_NOMEM;
    PCRE2_UCHAR text[160];
    int n = pcre2_get_error_message(code, text, COUNT_OF(text));
    size_t k = (size_t)snprintf(why, cap, "PCRE2 cannot read it: ");
    for (int i = 0; n > 0 && i < n && k + 1 < cap; i++) why[k++] = (char)(text[i] < 0x80 ? text[i] : '?');
    why[k < cap ? k : cap - 1] = 0;
    return SHORN_ERROR_SCHEMA;
  }
  pattern *p = mem_alloc(e->allocator, sizeof *p);
  if (!p) {
    pcre2_code_free(compiled);
    return SHORN_ERROR_NOMEM;
  }
  *p = (pattern){.code = compiled, .engine = e, .unicode = r->unicode, .next = e->patterns};
  read_class_run(r->src, r->n, &p->run);
  e->patterns = p;
  /* The lent match data gets its frames now, as the schema's memory: a
   * match on no text makes PCRE2 allocate them.  The schema is not shared
   * yet, so the match data is there. */
  if (!e->warm) {
    pcre2_match_data *data = atomic_load(&e->lent);
    static const uint16_t nothing[1] = {0};
    if (pcre2_match(compiled, nothing, 0, 0, PCRE2_NO_JIT, data, e->lean) == PCRE2_ERROR_NOMEMORY)
      return SHORN_ERROR_NOMEM;
    e->warm = true;
  }
  /* PCRE2's JIT makes machine code of it, which matches a short string in
   * a tenth of the interpreter's time (its setup per match is most of what
   * the interpreter spends).  The code lives in executable memory PCRE2
   * maps for itself, where no allocator of ours can give it; where JIT
   * cannot be had but for memory, the interpreter matches. */
  int jit = pcre2_jit_compile(compiled, PCRE2_JIT_COMPLETE);
  if (jit == PCRE2_ERROR_NOMEMORY) return SHORN_ERROR_NOMEM;
  p->jit = jit == 0;
  *out = p;
  return SHORN_OK;
}

/* Rewrite the pattern read with or without `u`: false when JavaScript
 * would refuse it so, or memory ran out (r->nomem). */
static bool rewrite_as(rewriter *r, bool unicode) {
  r->unicode = unicode;
  r->at = 0;
  r->groups = r->name_count = 0;
  r->out.length = 0;
  r->error = NULL;
  return count_groups(r) && rewrite(r);
}

shorn_code pattern_compile(pattern_engine *e, const char *source, size_t n, const pattern **out, char *why,
                           size_t cap) {
  rewriter r = {.allocator = e->allocator};
  uint16_t *src = mem_alloc(e->allocator, n ? n * sizeof *src : 1);
  if (!src) return SHORN_ERROR_NOMEM;
  r.src = src;
  r.n = wtf8_to_utf16(source, n, src);
  /* A pattern that JavaScript reads only with `u` (a class range between
   * two astral characters) was written for it too. */
  bool unicode = wants_unicode(r.src, r.n);
  bool read = rewrite_as(&r, unicode);
  if (!read && !unicode && !r.nomem) {
    const char *plain_error = r.error;
    if (!(read = rewrite_as(&r, true)) && !r.nomem) r.error = plain_error;
  }
  shorn_code rc = read ? SHORN_OK : r.nomem ? SHORN_ERROR_NOMEM : SHORN_ERROR_SCHEMA;
  if (rc == SHORN_ERROR_SCHEMA) snprintf(why, cap, "%s", r.error);
  if (!rc) rc = compile_rewritten(e, &r, out, why, cap);
  mem_free(e->allocator, src);
  mem_free(e->allocator, r.names);
  mem_free(e->allocator, r.out.data);
  mem_free(e->allocator, r.items.data);
  return rc;
}

/* A string this short is matched from the C stack. */
#define UNITS_HERE 256

/* PCRE2's JIT code reads a little past a string's end, in blocks, and
 * throws away what it read: zeros there keep that read defined. */
#define UNITS_PAST 32

static pattern_result result_of(int rc) {
  if (rc >= 0) return PATTERN_MATCH;
  if (rc == PCRE2_ERROR_NOMATCH) return PATTERN_NO_MATCH;
  if (rc == PCRE2_ERROR_NOMEMORY) return PATTERN_NOMEM;
  return PATTERN_LIMIT;
}

/* A match in match data of the call's own, whose memory to backtrack in
 * is bounded by what the string is long (pattern.h). */
static pattern_result match_apart(pattern_matcher *m, const pattern *p, const uint16_t *units, size_t n,
                                  size_t bytes) {
  pattern_engine *e = p->engine;
  if (!m->own_data) {
    pcre2_match_data *data = pcre2_match_data_create(1, e->general);
    pcre2_match_context *limits = data ? pcre2_match_context_copy(e->limits) : NULL;
    if (!limits) {
      pcre2_match_data_free(data);
      return PATTERN_NOMEM;
    }
    m->own_data = data;
    m->own_limits = limits;
  }
  uint64_t kib = PATTERN_HEAP_FIXED_KIB + ((uint64_t)bytes * PATTERN_HEAP_PER_BYTE + 1023) / 1024;
  pcre2_set_heap_limit(m->own_limits, kib < PATTERN_HEAP_LIMIT_KIB ? (uint32_t)kib : PATTERN_HEAP_LIMIT_KIB);
  return result_of(pcre2_match(p->code, units, n, 0, (p->unicode ? PCRE2_NO_UTF_CHECK : 0) | PCRE2_NO_JIT,
                               m->own_data, m->own_limits));
}

pattern_result pattern_test(pattern_matcher *m, const pattern *p, const char *s, size_t n, bool lone_surrogate) {
  if (p->unicode && lone_surrogate) return PATTERN_MATCH;
  if (p->run.read) return match_class_run(&p->run, s, n);
  pattern_engine *e = p->engine;
  m->engine = e;
  uint16_t here[UNITS_HERE + UNITS_PAST], *units = here;
  if (n > UNITS_HERE) {
    if (m->capacity < n) {
      uint16_t *grown = mem_realloc(e->allocator, m->units, (n + UNITS_PAST) * sizeof *grown);
      if (!grown) return PATTERN_NOMEM;
      m->units = grown;
      m->capacity = n;
    }
    units = m->units;
  }
  size_t length = wtf8_to_utf16(s, n, units);
  memset(units + length, 0, UNITS_PAST * sizeof *units);
  if (!m->lent && !m->own_data) m->lent = atomic_exchange(&e->lent, NULL);
  /* JIT code where there is some, then the interpreter in the lent match
   * data's frames, then in the call's own: each when the one before ran
   * out of room (its stack, the lent frames). */
  uint32_t options = p->unicode ? PCRE2_NO_UTF_CHECK : 0;
  int rc = PCRE2_ERROR_HEAPLIMIT;
  if (m->lent) {
    rc = p->jit ? pcre2_jit_match(p->code, units, length, 0, 0, m->lent, e->lean) : PCRE2_ERROR_JIT_STACKLIMIT;
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
      rc = pcre2_match(p->code, units, length, 0, options | PCRE2_NO_JIT, m->lent, e->lean);
  }
  return rc == PCRE2_ERROR_HEAPLIMIT ? match_apart(m, p, units, length, n) : result_of(rc);
}

void pattern_matcher_release(pattern_matcher *m) {
  if (!m->engine) return;
  if (m->lent) pcre2_match_data_free(atomic_exchange(&m->engine->lent, (pcre2_match_data *)m->lent));
  pcre2_match_data_free(m->own_data);
  pcre2_match_context_free(m->own_limits);
  mem_free(m->engine->allocator, m->units);
  *m = (pattern_matcher){0};
}
