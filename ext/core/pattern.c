/*
 * pattern.c — JSON Schema patterns: compiled by regex_compile.c, matched
 * by regex_match.c, or by a table when the pattern is one class repeated
 * over the whole string.
 *
 * A pattern is JavaScript's regular expression syntax, as `new
 * RegExp(source)` reads a string without flags.  Without the `u` flag
 * JavaScript matches UTF-16 code units.  A pattern that uses `\p{…}`,
 * `\P{…}` or `\u{…}`, which mean something only with `u`, or that
 * JavaScript reads only with `u`, is read as with it (code points): the
 * validators that write such patterns (Zod's and Valibot's emoji) compile
 * them with `u`.
 */
#include <stdio.h>

#include "pattern.h"

#include "memory.h"
#include "regex.h"
#include "text.h"

/* `^[a-z0-9.-]+$`: one class of ASCII members repeated over the whole
 * string, the commonest pattern in schemas.  It matches exactly when every
 * character is a member and their count is within the quantifier's bounds,
 * which a table answers in a few instructions a character where the matcher's
 * setup and the string's widening to UTF-16 cost far more. */
typedef struct class_run {
  bool read;             /* the pattern is one: match with this, not the matcher */
  bool member[256];      /* by a string's byte: false from 0x80 up, as no member is there */
  uint64_t fewest, most;
} class_run;

struct pattern {
  regex_program program;
  pattern_engine *engine;
  class_run run;
  pattern *next; /* the engine's list */
};

struct pattern_engine {
  const shorn_allocator *allocator;
  pattern *patterns;
};

pattern_engine *pattern_engine_new(const shorn_allocator *allocator) {
  pattern_engine *e = mem_calloc(allocator, 1, sizeof *e);
  if (e) e->allocator = allocator;
  return e;
}

void pattern_engine_free(pattern_engine *e) {
  if (!e) return;
  for (pattern *p = e->patterns, *next; p; p = next) {
    next = p->next;
    regex_program_free(e->allocator, &p->program);
    mem_free(e->allocator, p);
  }
  mem_free(e->allocator, e);
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

/* A run's bounds up to this are read; a larger one leaves the pattern to
 * the matcher. */
#define RUN_COUNT_MAX 65535

static bool is_decimal(uint16_t c) { return c >= '0' && c <= '9'; }
static bool is_ascii_letter(uint16_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* ---- a run of one class ---------------------------------------------------- */

/* One member of a class written plainly: an ASCII character, an escaped
 * punctuation mark, \d or \w (ASCII alone, with or without `u`).  False
 * for anything else, which leaves the pattern to the matcher. */
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
  for (*count = 0; *at < n && is_decimal(s[*at]) && *count <= RUN_COUNT_MAX; (*at)++)
    *count = *count * 10 + (s[*at] - '0');
  return *at > from && *count <= RUN_COUNT_MAX;
}

/* Is the pattern (which has compiled, so JavaScript reads it) `^`, a
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

/* The pattern read as `new RegExp(source)` reads it; with `u` when it
 * wants it, or when the plain reading fails and that one succeeds (a class
 * range between two astral characters was written for `u` too), the plain
 * reading's error otherwise. */
static shorn_code read_pattern(const shorn_allocator *a, const uint16_t *src, size_t n, regex_program *out,
                               const char **error) {
  bool unicode = wants_unicode(src, n);
  shorn_code rc = regex_compile(a, src, n, unicode, out, error);
  if (rc != SHORN_ERROR_SCHEMA || unicode) return rc;
  const char *plain_error = *error;
  rc = regex_compile(a, src, n, true, out, error);
  if (rc == SHORN_ERROR_SCHEMA) *error = plain_error;
  return rc;
}

shorn_code pattern_compile(pattern_engine *e, const char *source, size_t n, const pattern **out, char *why,
                           size_t cap) {
  uint16_t *src = mem_alloc(e->allocator, n ? n * sizeof *src : 1);
  if (!src) return SHORN_ERROR_NOMEM;
  size_t units = wtf8_to_utf16(source, n, src);
  pattern *p = units > PATTERN_MAX_UNITS ? NULL : mem_calloc(e->allocator, 1, sizeof *p);
  const char *error = "the pattern is too long";
  shorn_code rc = units > PATTERN_MAX_UNITS ? SHORN_ERROR_SCHEMA
                  : !p                      ? SHORN_ERROR_NOMEM
                                            : read_pattern(e->allocator, src, units, &p->program, &error);
  if (rc == SHORN_OK) {
    p->engine = e;
    read_class_run(src, units, &p->run);
    p->next = e->patterns;
    e->patterns = p;
    *out = p;
  } else {
    mem_free(e->allocator, p);
    if (rc == SHORN_ERROR_SCHEMA) snprintf(why, cap, "%s", error);
  }
  mem_free(e->allocator, src);
  return rc;
}

/* A string this short is matched from the C stack. */
#define UNITS_HERE 256

pattern_result pattern_test(pattern_matcher *m, const pattern *p, const char *s, size_t n, bool lone_surrogate) {
  if (p->program.unicode && lone_surrogate) return PATTERN_MATCH;
  if (p->run.read) return match_class_run(&p->run, s, n);
  pattern_engine *e = p->engine;
  m->engine = e;
  m->allocator = e->allocator;
  uint16_t here[UNITS_HERE], *units = here;
  if (n > UNITS_HERE) {
    if (m->capacity < n) {
      uint16_t *grown = mem_realloc(e->allocator, m->units, n * sizeof *grown);
      if (!grown) return PATTERN_NOMEM;
      m->units = grown;
      m->capacity = n;
    }
    units = m->units;
  }
  return regex_match(m, &p->program, units, wtf8_to_utf16(s, n, units), n);
}

void pattern_matcher_release(pattern_matcher *m) {
  if (!m->engine) return;
  mem_free(m->allocator, m->units);
  mem_free(m->allocator, m->stack);
  mem_free(m->allocator, m->slots);
  *m = (pattern_matcher){0};
}
