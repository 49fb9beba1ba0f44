/*
 * bench-patterns.c — shorn's pattern matcher against PCRE2's JIT, which
 * matched the schemas' patterns before shorn had a matcher of its own, on
 * the patterns Zod writes for z.email(), z.uuid() and z.iso.datetime().
 *
 * Each pattern runs over the same strings, half of them accepted and half
 * one character away from it, through pattern_test and through PCRE2's
 * 16-bit JIT code after the string is widened to UTF-16, as shorn called
 * it.  The three patterns read the same in PCRE2 as in JavaScript, and
 * every answer must be the same from both.  Prints a Markdown table: time a
 * match (the median of paired repetitions), and PCRE2's time over shorn's.
 *
 * Then (a|b)*a(a|b){20}$, whose whole DFA has two million states, on
 * strings of a and b of 1,000 to 100,000 characters, one it accepts and one
 * it refuses at each length: the time of one match by pattern_test (the
 * backtracker within a few steps a character, then the lazy DFA), by the
 * lazy DFA alone, and by PCRE2, or the error PCRE2 gives up with.
 *
 *   bench-patterns          (make bench runs it; links -lpcre2-16)
 */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 16
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/regex/pattern.h"
#include "bench_time.h"

#define STRINGS 4000
#define ROUNDS 25
#define REPS 9 /* at most REPS_MAX */
#define LONGEST 64

typedef struct bench_pattern {
  const char *name, *source;
  void (*accepted)(char *out);
} bench_pattern;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t below(uint64_t n) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (rng_state * 0x2545F4914F6CDD1Dull) % n;
}

static char from(const char *set) { return set[below(strlen(set))]; }

static void email(char *out) {
  static const char *const users[] = {"grace", "alan.turing", "ada_l", "e.w.dijkstra", "b+liskov", "knuth"};
  static const char *const hosts[] = {"example.com", "mail.example.org", "cs.utexas.edu", "acm.org"};
  sprintf(out, "%s%u@%s", users[below(6)], (unsigned)below(1000), hosts[below(4)]);
}

static void uuid(char *out) {
  static const char hex[] = "0123456789abcdef";
  char *p = out;
  for (int i = 0; i < 36; i++) *p++ = i == 8 || i == 13 || i == 18 || i == 23 ? '-' : from(hex);
  out[14] = from("12345678");
  out[19] = from("89ab");
  *p = 0;
}

static void date_time(char *out) {
  sprintf(out, "20%02u-%02u-%02uT%02u:%02u:%02u.%03uZ", (unsigned)below(100), (unsigned)below(12) + 1,
          (unsigned)below(28) + 1, (unsigned)below(24), (unsigned)below(60), (unsigned)below(60),
          (unsigned)below(1000));
}

static const bench_pattern patterns[] = {
    {"email", "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+"
              "[A-Za-z]{2,}$", email},
    {"uuid", "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|"
             "00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$", uuid},
    {"date-time", "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|"
                  "\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|"
                  "(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
     date_time},
};

static void die(const char *what) {
  fprintf(stderr, "bench-patterns: %s\n", what);
  exit(1);
}

typedef struct strings {
  char text[STRINGS][LONGEST];
  size_t length[STRINGS];
} strings;

/* Accepted strings, and every other one changed in one place. */
static void make_strings(const bench_pattern *b, strings *s) {
  for (int i = 0; i < STRINGS; i++) {
    b->accepted(s->text[i]);
    s->length[i] = strlen(s->text[i]);
    if (i % 2) s->text[i][below(s->length[i])] = from("x-.:@ 9");
  }
}

static int shorn_matches(pattern_matcher *m, const pattern *p, const strings *s) {
  int matched = 0;
  for (int i = 0; i < STRINGS; i++) {
    pattern_result r = pattern_test(m, p, s->text[i], s->length[i], false);
    if (r != PATTERN_MATCH && r != PATTERN_NO_MATCH) die("pattern_test did not answer");
    matched += r == PATTERN_MATCH;
  }
  return matched;
}

static int pcre2_matches(pcre2_code *code, pcre2_match_data *data, const strings *s) {
  int matched = 0;
  uint16_t units[LONGEST];
  for (int i = 0; i < STRINGS; i++) {
    for (size_t k = 0; k < s->length[i]; k++) units[k] = (uint8_t)s->text[i][k];
    int rc = pcre2_jit_match(code, units, s->length[i], 0, 0, data, NULL);
    if (rc < PCRE2_ERROR_NOMATCH) die("PCRE2 did not answer");
    matched += rc >= 0;
  }
  return matched;
}

/* A string of n a's and b's, whose character n - 21 is `at`. */
static char *ab_string(size_t n, char at) {
  char *s = malloc(n);
  if (!s) die("out of memory");
  for (size_t i = 0; i < n; i++) s[i] = "ab"[below(2)];
  if (n >= 21) s[n - 21] = at;
  return s;
}

#define LAZY_PATTERN "(a|b)*a(a|b){20}$"

/* The median time of one match of s[0..n) in seconds, by shorn (code
 * NULL: pattern_test, or the lazy DFA alone when `lazy`) or PCRE2;
 * *answer is what it said (PCRE2's error code when it gave up). */
static double time_long(pattern_matcher *m, const pattern *p, bool lazy, pcre2_code *code,
                        pcre2_match_data *data, const char *s, const uint16_t *units, size_t n, int *answer) {
  int rounds = n >= 100000 ? 3 : n >= 10000 ? 20 : 200, reps = 5;
  double t[REPS_MAX];
  for (int r = 0; r < reps; r++) {
    double t0 = cpu_seconds();
    for (int k = 0; k < rounds; k++) {
      if (code) {
        int rc = pcre2_jit_match(code, units, n, 0, 0, data, NULL);
        *answer = rc >= 0 ? PATTERN_MATCH : rc == PCRE2_ERROR_NOMATCH ? PATTERN_NO_MATCH : rc;
      } else {
        *answer = (int)(lazy ? pattern_test_lazy(m, p, s, n) : pattern_test(m, p, s, n, false));
      }
    }
    t[r] = (cpu_seconds() - t0) / rounds;
  }
  return median(t, reps);
}

static void bench_lazy(void) {
  printf("\n`%s`, its whole DFA past the bound: shorn's matcher (the backtracker within a few steps a "
         "character, then the lazy DFA), the lazy DFA alone, and PCRE2's JIT; strings of `a` and `b`, one it "
         "accepts and one it refuses at each length, thread CPU time a match, the median of 5.\n\n", LAZY_PATTERN);
  printf("| characters | accepted | shorn, ms a match | lazy DFA alone, ms | PCRE2 JIT, ms a match |\n");
  printf("| ---: | --- | ---: | ---: | ---: |\n");
  pattern_engine *engine = pattern_engine_new(NULL);
  const pattern *p;
  char why[256] = "out of memory";
  if (!engine || pattern_compile(engine, LAZY_PATTERN, strlen(LAZY_PATTERN), &p, why, sizeof why)) die(why);
  if (!pattern_has_lazy_dfa(p)) die("the pattern has its whole DFA");
  uint16_t source[64];
  size_t source_n = strlen(LAZY_PATTERN);
  for (size_t i = 0; i < source_n; i++) source[i] = (uint8_t)LAZY_PATTERN[i];
  int error;
  PCRE2_SIZE offset;
  pcre2_code *code = pcre2_compile(source, source_n, 0, &error, &offset, NULL);
  pcre2_match_data *data = code ? pcre2_match_data_create(4, NULL) : NULL;
  if (!data || pcre2_jit_compile(code, PCRE2_JIT_COMPLETE)) die("PCRE2 cannot compile the pattern");
  pattern_matcher m = {0};
  static const size_t lengths[] = {1000, 10000, 100000};
  for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
    for (int accepted = 1; accepted >= 0; accepted--) {
      size_t n = lengths[k];
      char *s = ab_string(n, accepted ? 'a' : 'b');
      uint16_t *units = malloc(n * sizeof *units);
      if (!units) die("out of memory");
      for (size_t i = 0; i < n; i++) units[i] = (uint8_t)s[i];
      int ours, lazily, theirs;
      double shorn_time = time_long(&m, p, false, NULL, NULL, s, units, n, &ours);
      double lazy_time = time_long(&m, p, true, NULL, NULL, s, units, n, &lazily);
      double pcre2_time = time_long(NULL, NULL, false, code, data, s, units, n, &theirs);
      if (ours != (accepted ? PATTERN_MATCH : PATTERN_NO_MATCH) || lazily != ours)
        die("shorn did not answer the long string");
      char theirs_text[160];
      if (theirs == ours) {
        snprintf(theirs_text, sizeof theirs_text, "%.3f", pcre2_time * 1e3);
      } else if (theirs < 0) {
        char message[120];
        pcre2_get_error_message(theirs, (PCRE2_UCHAR *)message, sizeof message / 2);
        char plain[64];
        size_t i = 0;
        for (const uint16_t *u = (const uint16_t *)message; *u && i + 1 < sizeof plain; u++) plain[i++] = (char)*u;
        plain[i] = 0;
        snprintf(theirs_text, sizeof theirs_text, "gives up after %.3f: %s", pcre2_time * 1e3, plain);
      } else {
        die("shorn and PCRE2 answer differently");
      }
      printf("| %zu | %s | %.3f | %.3f | %s |\n", n, accepted ? "yes" : "no", shorn_time * 1e3, lazy_time * 1e3,
             theirs_text);
      free(units);
      free(s);
    }
  }
  pattern_matcher_release(&m);
  pattern_engine_free(engine);
  pcre2_match_data_free(data);
  pcre2_code_free(code);
}

int main(void) {
  static strings s;
  printf("\n## Patterns: shorn's matcher against PCRE2's JIT\n\n");
  printf("Written by `make bench` (scripts/bench-patterns.c): %d strings a pattern, half accepted, %d rounds, "
         "median of %d paired repetitions, thread CPU time.\n\n",
         STRINGS, ROUNDS, REPS);
  printf("| pattern (Zod's) | shorn, ns a match | PCRE2 JIT, ns a match | PCRE2's time / shorn's |\n");
  printf("| --- | ---: | ---: | ---: |\n");
  for (size_t k = 0; k < sizeof patterns / sizeof *patterns; k++) {
    const bench_pattern *b = &patterns[k];
    make_strings(b, &s);
    pattern_engine *engine = pattern_engine_new(NULL);
    const pattern *p;
    char why[256] = "out of memory";
    if (!engine || pattern_compile(engine, b->source, strlen(b->source), &p, why, sizeof why)) die(why);
    int error;
    PCRE2_SIZE offset;
    uint16_t source[1024];
    size_t n = strlen(b->source);
    for (size_t i = 0; i < n; i++) source[i] = (uint8_t)b->source[i];
    pcre2_code *code = pcre2_compile(source, n, 0, &error, &offset, NULL);
    pcre2_match_data *data = code ? pcre2_match_data_create(1, NULL) : NULL;
    if (!data || pcre2_jit_compile(code, PCRE2_JIT_COMPLETE)) die("PCRE2 cannot compile the pattern");
    pattern_matcher m = {0};
    int ours = shorn_matches(&m, p, &s), theirs = pcre2_matches(code, data, &s);
    if (ours != theirs || ours < STRINGS / 2) die("shorn and PCRE2 answer differently");
    double shorn_time[REPS], pcre2_time[REPS], ratio[REPS];
    for (int r = 0; r < REPS; r++) {
      double t0 = cpu_seconds();
      for (int round = 0; round < ROUNDS; round++) ours += shorn_matches(&m, p, &s);
      double t1 = cpu_seconds();
      for (int round = 0; round < ROUNDS; round++) theirs += pcre2_matches(code, data, &s);
      double t2 = cpu_seconds();
      shorn_time[r] = (t1 - t0) / (ROUNDS * STRINGS) * 1e9;
      pcre2_time[r] = (t2 - t1) / (ROUNDS * STRINGS) * 1e9;
      ratio[r] = pcre2_time[r] / shorn_time[r];
    }
    if (ours != theirs) die("shorn and PCRE2 answer differently");
    printf("| %s | %.0f | %.0f | %.2f× |\n", b->name, median(shorn_time, REPS), median(pcre2_time, REPS),
           median(ratio, REPS));
    pattern_matcher_release(&m);
    pattern_engine_free(engine);
    pcre2_match_data_free(data);
    pcre2_code_free(code);
  }
  bench_lazy();
  return 0;
}
