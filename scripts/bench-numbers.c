/*
 * bench-numbers.c — shorn's number printing (number_format) and parsing
 * (number_parse, and json_number_token, the encoder's reader) against the
 * fastest published shortest round-trip printers and correctly rounded
 * readers, on sets of doubles as data holds them.
 *
 *   bench-numbers [--count N] [--reps N]   ns a number, the median of the repetitions
 *   bench-numbers --instructions [--count N]   one pass each for callgrind to count
 *   bench-numbers --differential N   N random doubles of each kind printed and read back
 *
 * The references come from Debian's packages, through
 * scripts/bench-numbers-ref.cc (built only when BENCH_NUMBERS_REFERENCES is
 * defined): fmt's Dragonbox, double-conversion's ECMAScript converter
 * (Grisu3 with a bignum fallback, and its reader), fast_float
 * (Eisel-Lemire), and glibc's printf and strtod.  JavaScript spells
 * numbers as double-conversion's ECMAScript converter does, and C++ as fmt
 * does ("1e+21" against "1e+21", "1e-7" against "1e-07", "100" against
 * "100"); the digits alone, Schubfach's against Dragonbox's and Grisu's,
 * are measured too.
 *
 * Before anything is measured, every printer's text must read back to its
 * double, shorn's must equal the ECMAScript converter's, and every reader
 * must agree with strtod, on every number of every set.
 *
 * --differential compares number_format with double-conversion's ECMAScript
 * converter, byte for byte, and number_parse and json_number_token with
 * fast_float on that text, over N random bit patterns and N random short
 * decimals (1 to 17 digits, any exponent): a differential far longer than
 * the unit tests can afford, against an implementation of its own.
 *
 * --instructions runs each implementation once over each set, warmed by an
 * untimed pass, and callgrind dumps its count at the end under the name
 * "numbers KIND SET IMPLEMENTATION COUNT"; scripts/bench-instructions.py
 * prints them.  The "loop" implementation does nothing: what a pass costs
 * around the calls.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "bench_time.h"
#include "core/json/json.h"
#include "core/json/token.h"
#include "core/numbers/number.h"

/* Schubfach's digits alone, from scripts/bench-numbers-digits.c. */
uint64_t bench_shorn_digits(double v, int *exponent);

#ifdef BENCH_NUMBERS_REFERENCES
size_t ref_fmt_format(double v, char *out);
uint64_t ref_fmt_digits(double v, int *exponent);
size_t ref_dc_format(double v, char *out);
uint64_t ref_dc_digits(double v, int *exponent);
double ref_dc_parse(const char *s, size_t n);
double ref_ff_parse(const char *s, size_t n);
#endif

/* ---- the sets ---------------------------------------------------------------- */

#define SLOT 48 /* a number's text, NUL after it, padding that readers may load */

typedef struct number_set {
  const char *name;
  const char *holds;
  double (*make)(void);
  double *values;
  char *texts; /* count slots of SLOT bytes */
  size_t *lengths;
} number_set;

static uint64_t state = 0x9E3779B97F4A7C15u;
static uint64_t next(void) { /* splitmix64 */
  uint64_t z = (state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}
static uint64_t below(uint64_t n) { return next() % n; }

static double from_text(const char *text) { return strtod(text, NULL); }

/* A longitude or latitude written with 6 to 15 significant digits, as
 * GeoJSON writers round them. */
static double make_geo(void) {
  char text[64];
  bool latitude = next() & 1;
  double v = ((double)(next() >> 11) / 9007199254740992.0 * 2 - 1) * (latitude ? 90 : 180);
  int significant = 6 + (int)below(10);
  int whole = fabs(v) >= 100 ? 3 : fabs(v) >= 10 ? 2 : 1;
  int decimals = significant - whole;
  snprintf(text, sizeof text, "%.*f", decimals < 0 ? 0 : decimals, v);
  return from_text(text);
}

/* Coordinates at a double's full precision, as canada.json holds them
 * (-65.613616999999977): 16 or 17 significant digits. */
static double make_canada(void) {
  bool latitude = next() & 1;
  return ((double)(next() >> 11) / 9007199254740992.0 * 2 - 1) * (latitude ? 90 : 180);
}

/* Any finite double, every bit pattern alike: every exponent as likely. */
static double make_bits(void) {
  for (;;) {
    uint64_t b = next();
    double v;
    memcpy(&v, &b, sizeof v);
    if (isfinite(v)) return v;
  }
}

/* Counts and ids below 10^6, a third of them negative. */
static double make_integer(void) {
  double v = (double)below(1000000);
  return below(3) == 0 ? -v : v;
}

/* Prices: up to 10^7 units and two decimals. */
static double make_money(void) {
  char text[32];
  snprintf(text, sizeof text, "%" PRIu64 ".%02" PRIu64, below(10000000), below(100));
  return from_text(text);
}

/* Math.random(): 53 random bits below 1. */
static double make_unit(void) { return (double)(next() >> 11) / 9007199254740992.0; }

static number_set sets[] = {
    {"geo", "coordinates of 6 to 15 significant digits", make_geo, 0, 0, 0},
    {"canada", "coordinates at full precision (16 and 17 digits)", make_canada, 0, 0, 0},
    {"bits", "every finite bit pattern alike", make_bits, 0, 0, 0},
    {"integer", "integers below 10^6", make_integer, 0, 0, 0},
    {"money", "prices with two decimals", make_money, 0, 0, 0},
    {"unit", "Math.random(): 53 bits below 1", make_unit, 0, 0, 0},
};
#define SETS (sizeof sets / sizeof *sets)

static void die(const char *message, const char *detail) {
  fprintf(stderr, "bench-numbers: %s%s\n", message, detail);
  exit(1);
}

static void make_set(number_set *s, size_t count) {
  s->values = malloc(count * sizeof *s->values);
  s->texts = calloc(count, SLOT);
  s->lengths = malloc(count * sizeof *s->lengths);
  if (!s->values || !s->texts || !s->lengths) die("out of memory", "");
  for (size_t i = 0; i < count; i++) {
    s->values[i] = s->make();
    s->lengths[i] = number_format(s->values[i], s->texts + i * SLOT);
  }
}

/* ---- the implementations ------------------------------------------------------ */

typedef struct printer {
  const char *name;
  size_t (*print)(double, char *);
} printer;

typedef struct digits {
  const char *name;
  uint64_t (*digits)(double, int *);
} digits;

typedef struct reader {
  const char *name;
  double (*read)(const char *, size_t);
} reader;

static size_t print_nothing(double v, char *out) {
  out[0] = (char)(v > 0);
  return 1;
}

/* Not shortest: the 17 significant digits that always read back. */
static size_t print_glibc(double v, char *out) { return (size_t)snprintf(out, NUMBER_TEXT_MAX, "%.17g", v); }

static uint64_t digits_nothing(double v, int *exponent) {
  *exponent = v > 0;
  return 1;
}

static double read_nothing(const char *s, size_t n) { return (double)(s[0] + (int)n); }

static double read_json(const char *s, size_t n) {
  double v;
  const char *why;
  (void)n;
  json_number_token((const uint8_t *)s, (const uint8_t *)s + SLOT, &v, &why);
  return v;
}

static double read_strtod(const char *s, size_t n) {
  (void)n;
  return strtod(s, NULL);
}

static const printer printers[] = {
    {"loop", print_nothing},
    {"shorn", number_format},
#ifdef BENCH_NUMBERS_REFERENCES
    {"double-conversion", ref_dc_format},
    {"fmt", ref_fmt_format},
#endif
    {"glibc-%.17g", print_glibc},
};

static const digits digit_makers[] = {
    {"loop", digits_nothing},
    {"shorn", bench_shorn_digits},
#ifdef BENCH_NUMBERS_REFERENCES
    {"double-conversion", ref_dc_digits},
    {"fmt", ref_fmt_digits},
#endif
};

static const reader readers[] = {
    {"loop", read_nothing},
    {"shorn", number_parse},
    {"shorn-json", read_json},
#ifdef BENCH_NUMBERS_REFERENCES
    {"double-conversion", ref_dc_parse},
    {"fast_float", ref_ff_parse},
#endif
    {"glibc-strtod", read_strtod},
};

#define PRINTERS (sizeof printers / sizeof *printers)
#define DIGIT_MAKERS (sizeof digit_makers / sizeof *digit_makers)
#define READERS (sizeof readers / sizeof *readers)

/* ---- the check ------------------------------------------------------------------- */

static void check(const number_set *s, size_t count) {
  char text[NUMBER_TEXT_MAX + 8];
  for (size_t i = 0; i < count; i++) {
    double v = s->values[i];
    const char *want = s->texts + i * SLOT;
    for (size_t p = 1; p < PRINTERS; p++) {
      size_t n = printers[p].print(v, text);
      if (n != strlen(text) || strtod(text, NULL) != v) die(printers[p].name, " does not read back");
#ifdef BENCH_NUMBERS_REFERENCES
      if (printers[p].print == ref_dc_format && strcmp(text, want)) die("number_format differs from ECMAScript's: ", text);
#endif
    }
    for (size_t d = 1; d < DIGIT_MAKERS; d++) {
      int e, e0;
      uint64_t m = digit_makers[d].digits(v, &e), m0 = digit_makers[1].digits(v, &e0);
      while (m && m % 10 == 0) m /= 10, e++;
      while (m0 && m0 % 10 == 0) m0 /= 10, e0++;
      if (v != 0 && (m != m0 || e != e0)) die(digit_makers[d].name, "'s digits differ from shorn's");
    }
    double back = strtod(want, NULL);
    for (size_t r = 1; r < READERS; r++)
      if (readers[r].read(want, s->lengths[i]) != back) die(readers[r].name, " differs from strtod");
  }
}

/* ---- the passes ------------------------------------------------------------------ */

static volatile uint64_t sink;

static void print_pass(const printer *p, const number_set *s, size_t count) {
  char text[NUMBER_TEXT_MAX + 8];
  size_t total = 0;
  for (size_t i = 0; i < count; i++) total += p->print(s->values[i], text);
  sink += total;
}

static void digits_pass(const digits *d, const number_set *s, size_t count) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; i++) {
    int e;
    total += d->digits(s->values[i], &e) + (uint64_t)e;
  }
  sink += total;
}

static void read_pass(const reader *r, const number_set *s, size_t count) {
  double total = 0;
  for (size_t i = 0; i < count; i++) total += r->read(s->texts + i * SLOT, s->lengths[i]);
  sink += (uint64_t)(total != 0);
}

static void count_instructions(size_t count) {
  char name[128];
#define COUNT_PASS(kind, list, n, pass)                                                            \
  for (size_t k = 0; k < SETS; k++)                                                                \
    for (size_t j = 0; j < n; j++) {                                                               \
      pass(&list[j], &sets[k], count);                                                             \
      snprintf(name, sizeof name, "numbers %s %s %s %zu", kind, sets[k].name, list[j].name, count); \
      CALLGRIND_ZERO_STATS;                                                                        \
      pass(&list[j], &sets[k], count);                                                             \
      CALLGRIND_DUMP_STATS_AT(name);                                                               \
    }
  COUNT_PASS("print", printers, PRINTERS, print_pass)
  COUNT_PASS("digits", digit_makers, DIGIT_MAKERS, digits_pass)
  COUNT_PASS("parse", readers, READERS, read_pass)
#undef COUNT_PASS
}

/* Each implementation's ns a number on each set, its passes interleaved
 * with the others' so that load elsewhere falls on all alike. */
static void time_passes(size_t count, int reps) {
  static double seconds[SETS][16][REPS_MAX];
  const char *kinds[3] = {"print", "digits", "parse"};
  size_t sizes[3] = {PRINTERS, DIGIT_MAKERS, READERS};
  for (int kind = 0; kind < 3; kind++) {
    for (int r = -1; r < reps; r++)
      for (size_t k = 0; k < SETS; k++)
        for (size_t j = 0; j < sizes[kind]; j++) {
          double t = cpu_seconds();
          if (kind == 0) print_pass(&printers[j], &sets[k], count);
          if (kind == 1) digits_pass(&digit_makers[j], &sets[k], count);
          if (kind == 2) read_pass(&readers[j], &sets[k], count);
          if (r >= 0) seconds[k][j][r] = cpu_seconds() - t;
        }
    printf("\n### %s: ns a number (the loop's own time taken off)\n\n| set |", kinds[kind]);
    for (size_t j = 1; j < sizes[kind]; j++)
      printf(" %s |", kind == 0 ? printers[j].name : kind == 1 ? digit_makers[j].name : readers[j].name);
    printf("\n| --- |");
    for (size_t j = 1; j < sizes[kind]; j++) printf(" ---: |");
    printf("\n");
    for (size_t k = 0; k < SETS; k++) {
      double loop = median(seconds[k][0], reps);
      printf("| %s |", sets[k].name);
      for (size_t j = 1; j < sizes[kind]; j++)
        printf(" %.1f |", (median(seconds[k][j], reps) - loop) * 1e9 / (double)count);
      printf("\n");
    }
  }
}

#ifdef BENCH_NUMBERS_REFERENCES
static void differential(uint64_t n) {
  char text[SLOT], want[SLOT];
  uint64_t failures = 0;
  for (uint64_t i = 0; i < 2 * n; i++) {
    double v;
    if (i < n) {
      v = make_bits();
    } else {
      char decimal[48];
      uint64_t m = next() % 100000000000000000u >> (next() % 57);
      snprintf(decimal, sizeof decimal, "%s%" PRIu64 "e%d", next() & 1 ? "-" : "", m, (int)below(660) - 340);
      v = strtod(decimal, NULL);
      if (!isfinite(v)) v = 0; /* too large a decimal: zero stands in */
    }
    memset(text, 0, sizeof text);
    size_t length = number_format(v, text);
    ref_dc_format(v, want);
    double back = ref_ff_parse(text, length);
    if (strcmp(text, want) || length != strlen(text) || (v != 0 && back != v) ||
        number_parse(text, length) != back || read_json(text, length) != back) {
      if (failures++ < 10) fprintf(stderr, "%a: shorn \"%s\", double-conversion \"%s\"\n", v, text, want);
    }
  }
  printf("differential: %" PRIu64 " random bit patterns and %" PRIu64 " random decimals, %" PRIu64 " differ\n",
         n, n, failures);
  if (failures) exit(1);
}
#endif

int main(int argc, char **argv) {
  bool instructions = false;
  size_t count = 0;
  int reps = 7;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--instructions"))
      instructions = true;
    else if (!strcmp(argv[i], "--count") && i + 1 < argc)
      count = (size_t)atol(argv[++i]);
#ifdef BENCH_NUMBERS_REFERENCES
    else if (!strcmp(argv[i], "--differential") && i + 1 < argc) {
      differential((uint64_t)atoll(argv[++i]));
      return 0;
    }
#endif
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else
      die("usage: bench-numbers [--instructions | --differential N] [--count N] [--reps N]", "");
  }
  if (!count) count = instructions ? 10000 : 200000;
  if (reps < 1 || reps > REPS_MAX) die("--reps is 1 to 64", "");
  for (size_t k = 0; k < SETS; k++) {
    make_set(&sets[k], count);
    check(&sets[k], count);
  }
  if (instructions) {
    count_instructions(count);
    return 0;
  }
  printf("\n## Numbers: shorn's printing and parsing beside the references\n\n");
  printf("%zu numbers a set, the median of %d passes; the sets:\n\n", count, reps);
  for (size_t k = 0; k < SETS; k++) printf("- %s: %s\n", sets[k].name, sets[k].holds);
  time_passes(count, reps);
  return 0;
}
