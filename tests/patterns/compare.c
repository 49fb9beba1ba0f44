/*
 * compare.c — the pattern matcher against V8: every case tests/patterns/
 * cases.mjs wrote (a pattern, what V8 makes of it, strings and V8's answer
 * for each) through pattern_compile and pattern_test.  A pattern JavaScript
 * refuses must be SHORN_ERROR_SCHEMA and one it reads must compile; each
 * string must match exactly where V8's RegExp matches.  A match that stops
 * at its step limit (PATTERN_LIMIT) is what docs/security.md says may
 * happen, as is a pattern refused for passing one of the bounds
 * docs/validators.md names (groups nested deeper than 250, a pattern too
 * long, classes too large): counted, printed, not a failure.  Each string
 * without a lone surrogate also goes through the lazy DFA alone
 * (pattern_test_lazy), whichever matcher pattern_test chose, and where it
 * answers it must answer as V8.
 *
 *   compare_patterns CASES [--show N]   (N failures listed, 20 unless told)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/regex/pattern.h"
#include "shorn.h"

typedef struct bytes {
  char *data;
  size_t length;
} bytes;

typedef struct tally {
  unsigned long passed, failed, patterns, strings, at_limit, at_bound, not_compared, lazily;
  unsigned long show; /* failures still to list */
} tally;

/* What the case file says of the pattern in hand, and what became of it. */
typedef struct current {
  bytes source;
  char origin[256];
  char reading; /* '-' no flags, 'u', '!' refused by JavaScript */
  pattern_engine *engine;
  const pattern *compiled; /* NULL when it did not compile */
  pattern_matcher matcher;
} current;

static void die(unsigned long line, const char *why) {
  fprintf(stderr, "compare_patterns: line %lu of the case file: %s\n", line, why);
  exit(2);
}

/* One line of any length, without its newline; false at the end. */
static bool read_line(FILE *f, bytes *line, size_t *capacity) {
  line->length = 0;
  for (;;) {
    if (*capacity - line->length < 2) {
      *capacity = *capacity ? *capacity * 2 : 4096;
      if (!(line->data = realloc(line->data, *capacity))) die(0, "out of memory");
    }
    if (!fgets(line->data + line->length, (int)(*capacity - line->length), f)) return line->length > 0;
    line->length += strlen(line->data + line->length);
    if (line->data[line->length - 1] == '\n') {
      line->data[--line->length] = 0;
      return true;
    }
  }
}

static int hex_value(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The WTF-8 text a field spells in hex ("-" for none) into `out`. */
static void decode_hex(const char *field, size_t n, bytes *out, unsigned long line) {
  out->length = 0;
  if (!(out->data = realloc(out->data, n / 2 + 1))) die(line, "out of memory");
  if (n == 1 && field[0] == '-') return;
  if (n % 2) die(line, "a hex field of odd length");
  for (size_t i = 0; i < n; i += 2) {
    int hi = hex_value(field[i]), lo = hex_value(field[i + 1]);
    if (hi < 0 || lo < 0) die(line, "a hex field with a character that is no hex digit");
    out->data[out->length++] = (char)(hi * 16 + lo);
  }
}

/* WTF-8 as a JavaScript string literal would spell it: printable ASCII as
 * itself, the rest escaped, a lone surrogate as the \uD8xx it is. */
static void print_escaped(const bytes *s) {
  putchar('"');
  for (size_t i = 0; i < s->length;) {
    unsigned char c = (unsigned char)s->data[i];
    size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (i + n > s->length) n = s->length - i;
    unsigned long code = n == 1 ? c : c & (0xffu >> (n + 1));
    for (size_t k = 1; k < n; k++) code = code << 6 | ((unsigned char)s->data[i + k] & 63);
    i += n;
    if (code == '"' || code == '\\')
      printf("\\%c", (char)code);
    else if (code >= 0x20 && code < 0x7f)
      putchar((char)code);
    else if (code == '\n')
      fputs("\\n", stdout);
    else if (code > 0xffff)
      printf("\\u{%lX}", code);
    else
      printf("\\u%04lX", code);
  }
  putchar('"');
}

static void print_pattern(const current *c) {
  printf("  pattern ");
  print_escaped(&c->source);
  printf(" (%s%s)\n", c->reading == 'u' ? "read with u, " : "", c->origin);
}

static void fail(tally *t) {
  t->failed++;
  if (t->show) t->show--;
}

static void finish_pattern(current *c) {
  pattern_matcher_release(&c->matcher);
  pattern_engine_free(c->engine);
  c->engine = NULL;
  c->compiled = NULL;
}

/* Is `why` one of the bounds docs/validators.md documents? */
static bool past_a_bound(const char *why) {
  static const char *const bounds[] = {"groups nest deeper than", "the pattern is too long",
                                       "the pattern's classes are too large"};
  for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++)
    if (strncmp(why, bounds[i], strlen(bounds[i])) == 0) return true;
  return false;
}

/* "P <reading> <hex> <origin>": compile it, as V8 did or did not. */
static void start_pattern(current *c, const bytes *line, unsigned long number, tally *t) {
  finish_pattern(c);
  const char *hex = line->data + 4, *end = strchr(hex, ' ');
  if (line->length < 6 || line->data[1] != ' ' || line->data[3] != ' ' || !end) die(number, "a malformed P line");
  c->reading = line->data[2];
  decode_hex(hex, (size_t)(end - hex), &c->source, number);
  snprintf(c->origin, sizeof c->origin, "%s", end + 1);
  if (!(c->engine = pattern_engine_new(NULL))) die(number, "out of memory");
  char why[256] = "";
  const pattern *p = NULL;
  shorn_code rc = pattern_compile(c->engine, c->source.data, c->source.length, &p, why, sizeof why);
  t->patterns++;
  bool refused = c->reading == '!';
  if (rc == SHORN_OK) c->compiled = p;
  if (rc == (refused ? SHORN_ERROR_SCHEMA : SHORN_OK)) {
    t->passed++;
    return;
  }
  if (!refused && rc == SHORN_ERROR_SCHEMA && past_a_bound(why)) {
    t->passed++;
    t->at_bound++;
    printf("  past a bound (V8 reads it): %s: ", why);
    print_escaped(&c->source);
    printf("\n");
    return;
  }
  if (t->show) {
    print_pattern(c);
    if (refused)
      printf("    V8: SyntaxError; shorn: %s\n", rc == SHORN_OK ? "compiles it" : "out of memory");
    else
      printf("    V8: reads it; shorn: %s\n", rc == SHORN_ERROR_SCHEMA ? why : "out of memory");
  }
  fail(t);
}

/* "S <match> <lone> <hex>": V8's answer against pattern_test's. */
static void test_string(current *c, const bytes *line, unsigned long number, bytes *s, tally *t) {
  if (line->length < 7 || line->data[1] != ' ' || line->data[3] != ' ' || line->data[5] != ' ')
    die(number, "a malformed S line");
  if (c->reading == '!') die(number, "a string for a pattern JavaScript refuses");
  decode_hex(line->data + 6, line->length - 6, s, number);
  if (!c->compiled) {
    t->not_compared++;
    return;
  }
  bool want = line->data[2] == '1', lone = line->data[4] == '1';
  pattern_result got = pattern_test(&c->matcher, c->compiled, s->data, s->length, lone);
  t->strings++;
  /* A string with a lone surrogate is matched by pattern_test's rule
   * alone, which the lazy DFA does not take. */
  pattern_result lazy = lone ? PATTERN_LIMIT : pattern_test_lazy(&c->matcher, c->compiled, s->data, s->length);
  if (lazy != PATTERN_LIMIT) {
    t->lazily++;
    if (lazy != (want ? PATTERN_MATCH : PATTERN_NO_MATCH)) {
      if (t->show) {
        print_pattern(c);
        printf("    string ");
        print_escaped(s);
        printf(": V8 %s, shorn's lazy DFA %s\n", want ? "match" : "no match",
               lazy == PATTERN_MATCH ? "match" : lazy == PATTERN_NO_MATCH ? "no match" : "out of memory");
      }
      fail(t);
      return;
    }
  }
  if (got == (want ? PATTERN_MATCH : PATTERN_NO_MATCH)) {
    t->passed++;
    return;
  }
  if (got == PATTERN_LIMIT) {
    t->passed++;
    t->at_limit++;
    printf("  at the step limit (V8: %s): ", want ? "match" : "no match");
    print_escaped(&c->source);
    printf(" on ");
    print_escaped(s);
    printf("\n");
    return;
  }
  if (t->show) {
    print_pattern(c);
    printf("    string ");
    print_escaped(s);
    printf("%s: V8 %s, shorn %s\n", lone ? " (a lone surrogate)" : "", want ? "match" : "no match",
           got == PATTERN_MATCH ? "match" : got == PATTERN_NO_MATCH ? "no match" : "out of memory");
  }
  fail(t);
}

int main(int argc, char **argv) {
  if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--show") == 0)) {
    fprintf(stderr, "usage: %s CASES [--show N]\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  unsigned long shown = argc == 4 ? strtoul(argv[3], NULL, 10) : 20;
  tally t = {.show = shown};
  current c = {0};
  bytes line = {0}, s = {0};
  size_t capacity = 0;
  unsigned long number = 0;
  while (read_line(f, &line, &capacity)) {
    number++;
    if (line.length && line.data[0] == 'P')
      start_pattern(&c, &line, number, &t);
    else if (line.length && line.data[0] == 'S' && c.reading)
      test_string(&c, &line, number, &s, &t);
    else
      die(number, "neither a P line nor an S line after one");
  }
  finish_pattern(&c);
  fclose(f);
  free(line.data);
  free(s.data);
  free(c.source.data);
  if (t.failed > shown) printf("  and %lu failures more (--show N lists N)\n", t.failed - shown);
  if (t.not_compared) printf("  %lu strings not compared: shorn refused their pattern\n", t.not_compared);
  printf("patterns: %lu passed, %lu failed (%lu patterns, %lu strings, %lu at the step limit, %lu past a bound; "
         "%lu strings by the lazy DFA alone too)\n",
         t.passed, t.failed, t.patterns, t.strings, t.at_limit, t.at_bound, t.lazily);
  return t.failed || !t.patterns ? 1 : 0;
}
