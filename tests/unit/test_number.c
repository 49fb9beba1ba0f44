/* test_number.c — number_format against ECMAScript Number::toString and a
 * slow snprintf/strtod reference; number_parse against glibc's strtod. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "core/json/json.h"
#include "core/json/token.h"
#include "core/base/memory.h"
#include "core/numbers/number.h"

/* ---- helpers -------------------------------------------------------------- */

static uint64_t rng_state = 0x243F6A8885A308D3u;

static uint64_t rng(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t n) { return rng() % n; }

static uint64_t bits_of(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

static double from_bits(uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

static bool same(double a, double b) { return bits_of(a) == bits_of(b); }

/* A property checked over many values: counted each time, reported only for
 * the first few failures so that a bug does not flood the output. */
static int shown;
#define PROP(cond, ...)                                   \
  do {                                                    \
    check_count++;                                        \
    if (!(cond)) {                                        \
      check_failures++;                                   \
      if (shown++ < 20) {                                 \
        fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__);                     \
        fputc('\n', stderr);                              \
      }                                                   \
    }                                                     \
  } while (0)

static const char *fmt(double v) {
  static char text[NUMBER_TEXT_MAX];
  size_t n = number_format(v, text);
  CHECK(n == strlen(text));
  return text;
}

/* number_parse on text that is not NUL-terminated: the byte after it is a
 * digit, which must not be read. */
static double parse(const char *s) {
  static char text[2048];
  size_t n = strlen(s);
  memcpy(text, s, n);
  text[n] = '7';
  return number_parse(text, n);
}

/* ---- the slow reference ----------------------------------------------------- */

/* Is some p-digit decimal read back as v (> 0)?  If so, set the nearest such
 * one as digits (no trailing zeros) and point (value = 0.digits * 10^point).
 * snprintf gives the p-digit decimal nearest v (ties to even); if it does not
 * read back, the only other candidate is its neighbour on the other side of
 * v, because what reads back as v is an interval around v. */
static bool ref_at(double v, int p, char digits[32], int *point) {
  char text[64];
  snprintf(text, sizeof text, "%.*e", p - 1, v);
  uint64_t m = 0;
  const char *c = text;
  for (; *c != 'e'; c++)
    if (*c != '.') m = m * 10 + (uint64_t)(*c - '0');
  int x = atoi(c + 1) - (p - 1); /* value = m * 10^x */
  double back = strtod(text, NULL);
  if (back != v) {
    uint64_t low = 1, high;
    for (int i = 1; i < p; i++) low *= 10;
    high = low * 10;
    if (back < v) {
      if (++m == high) m = low, x++;
    } else {
      if (m-- == low) m = high - 1, x--;
    }
    snprintf(text, sizeof text, "%" PRIu64 "e%d", m, x);
    if (strtod(text, NULL) != v) return false;
  }
  int length = snprintf(digits, 32, "%" PRIu64, m);
  *point = length + x;
  while (length > 1 && digits[length - 1] == '0') digits[--length] = 0;
  return true;
}

/* Number::toString's layout of 0.digits * 10^point, straight from the spec. */
static void spec_layout(bool negative, const char *d, int n, char *out) {
  int k = (int)strlen(d);
  char *o = out;
  if (negative) *o++ = '-';
  if (k <= n && n <= 21) {
    o += sprintf(o, "%s", d);
    for (int i = 0; i < n - k; i++) *o++ = '0';
  } else if (0 < n && n <= 21) {
    o += sprintf(o, "%.*s.%s", n, d, d + n);
  } else if (-6 < n && n <= 0) {
    o += sprintf(o, "0.");
    for (int i = 0; i < -n; i++) *o++ = '0';
    o += sprintf(o, "%s", d);
  } else {
    *o++ = d[0];
    if (k > 1) o += sprintf(o, ".%s", d + 1);
    o += sprintf(o, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
  }
  *o = 0;
}

/* The reference spelling of any double. */
static void ref_format(double v, char *out) {
  if (isnan(v)) {
    strcpy(out, "NaN");
  } else if (isinf(v)) {
    strcpy(out, v < 0 ? "-Infinity" : "Infinity");
  } else if (v == 0) {
    strcpy(out, "0");
  } else {
    char digits[32];
    int point = 0;
    for (int p = 1; p <= 17; p++)
      if (ref_at(fabs(v), p, digits, &point)) break;
    spec_layout(v < 0, digits, point, out);
  }
}

/* Read a number_format spelling back into digits and point. */
static void split(const char *s, char digits[32], int *point) {
  if (*s == '-') s++;
  int k = 0;
  const char *e = strchr(s, 'e');
  if (e) {
    for (const char *c = s; c < e; c++)
      if (*c != '.') digits[k++] = *c;
    *point = atoi(e + 1) + 1;
  } else if (s[0] == '0' && s[1] == '.') {
    const char *c = s + 2;
    while (*c == '0') c++;
    *point = -(int)(c - (s + 2));
    while (*c) digits[k++] = *c++;
  } else {
    const char *c = s;
    for (; *c && *c != '.'; c++) digits[k++] = *c;
    *point = k;
    if (*c == '.')
      for (c++; *c; c++) digits[k++] = *c;
    while (k > 1 && digits[k - 1] == '0') k--;
  }
  digits[k] = 0;
}

/* ---- number_format ------------------------------------------------------------ */

static void test_format_examples(void) {
  static const struct {
    double v;
    const char *text;
  } cases[] = {
      {0.0, "0"},
      {-0.0, "0"},
      {1, "1"},
      {-1, "-1"},
      {100, "100"},
      {1.5, "1.5"},
      {-1.5, "-1.5"},
      {0.1, "0.1"},
      {0.3, "0.3"},
      {0x1.3333333333334p-2, "0.30000000000000004"}, /* 0.1 + 0.2, spelled as bits: x87 would add in long double */
      {1.0 / 3, "0.3333333333333333"},
      {100.0 / 3, "33.333333333333336"},
      {4.35, "4.35"},
      /* Three decimals or fewer below 10^12, number_format's short cut. */
      {0.001, "0.001"},
      {-0.025, "-0.025"},
      {9642.22, "9642.22"},
      {1771205538.25, "1771205538.25"},
      {999999999999.999, "999999999999.999"},
      {-999999999999.5, "-999999999999.5"},
      {1000000000000.5, "1000000000000.5"},
      {0.0015, "0.0015"},
      {0.0005, "0.0005"},
      {2.675, "2.675"},
      {123e-20, "1.23e-18"},
      {0.000001, "0.000001"},
      {0.0000015, "0.0000015"},
      {0.00001234, "0.00001234"},
      {1e-7, "1e-7"},
      {-1e-7, "-1e-7"},
      {1.2e-7, "1.2e-7"},
      {1e20, "100000000000000000000"},
      {1e21, "1e+21"},
      {-1e21, "-1e+21"},
      {1e23, "1e+23"},
      {123456789012345680000.0, "123456789012345680000"},
      {999999999999999900000.0, "999999999999999900000"},
      {12345678901234567890.0, "12345678901234567000"},
      {9007199254740991.0, "9007199254740991"},
      {-9007199254740991.0, "-9007199254740991"},
      {9007199254740992.0, "9007199254740992"},
      {9007199254740994.0, "9007199254740994"},
      {9223372036854775808.0, "9223372036854776000"},
      {18446744073709551616.0, "18446744073709552000"},
      {1180591620717411303424.0, "1.1805916207174113e+21"},
      {1e16, "10000000000000000"},
      {5e-324, "5e-324"},
      {-5e-324, "-5e-324"},
      {1e-323, "1e-323"},
      {1.5e-323, "1.5e-323"},
      {2.5e-323, "2.5e-323"},
      {2.225073858507201e-308, "2.225073858507201e-308"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {-1.7976931348623157e308, "-1.7976931348623157e+308"},
      {1e308, "1e+308"},
      {1e-300, "1e-300"},
      {123.456, "123.456"},
      {-0.5, "-0.5"},
      {1e15 + 0.5, "1000000000000000.5"},
      /* Exactly halfway between two shortest candidates: the even one. */
      {0x1p-25, "2.9802322387695312e-8"},     /* 2.98023223876953125e-8 */
      {0x1.4p-21, "5.960464477539062e-7"},    /* 5.9604644775390625e-7 */
      {0x1.8p-23, "1.7881393432617188e-7"},   /* 1.78813934326171875e-7 */
      {HUGE_VAL, "Infinity"},
      {-HUGE_VAL, "-Infinity"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK_STR(fmt(cases[i].v), cases[i].text);
    char ref[64];
    ref_format(cases[i].v, ref);
    CHECK_STR(ref, cases[i].text);
  }
  CHECK_STR(fmt(nan("")), "NaN");
  CHECK_STR(fmt(-nan("")), "NaN");
  CHECK_STR(fmt(from_bits(0x7FF0000000000001u)), "NaN");
  CHECK_STR(fmt(ldexp(1, 53)), "9007199254740992");
  CHECK_STR(fmt(ldexp(1, 53) + 2), "9007199254740994");
  CHECK_STR(fmt(ldexp(1, -1074)), "5e-324");
  CHECK_STR(fmt(DBL_MIN), "2.2250738585072014e-308");
  CHECK_STR(fmt(DBL_MAX), "1.7976931348623157e+308");
  CHECK(number_format(-DBL_MAX, (char[NUMBER_TEXT_MAX]){0}) == 24);

  /* Every power of ten a double comes nearest to reads as itself. */
  for (int e = -323; e <= 308; e++) {
    char text[16], want[32];
    snprintf(text, sizeof text, "1e%d", e);
    spec_layout(false, "1", e + 1, want);
    CHECK_STR(fmt(strtod(text, NULL)), want);
  }
  /* Integers around every length boundary of the fast path. */
  for (uint64_t p = 1; p <= UINT64_C(1000000000000000); p *= 10) {
    char want[32];
    for (int64_t d = -1; d <= 1; d++) {
      snprintf(want, sizeof want, "%" PRIu64, p + (uint64_t)d);
      CHECK_STR(fmt((double)(p + (uint64_t)d)), want);
      if (p + (uint64_t)d == 0) continue;
      snprintf(want, sizeof want, "-%" PRIu64, p + (uint64_t)d);
      CHECK_STR(fmt(-(double)(p + (uint64_t)d)), want);
    }
  }
}

/* Check one double against every property. */
static void check_format(double v) {
  char text[NUMBER_TEXT_MAX];
  size_t n = number_format(v, text);
  PROP(n == strlen(text), "%a: length %zu for \"%s\"", v, n, text);
  if (!isfinite(v)) {
    char ref[16];
    ref_format(v, ref);
    PROP(strcmp(text, ref) == 0, "%a: \"%s\"", v, text);
    return;
  }
  double back = strtod(text, NULL);
  PROP(v == 0 ? back == 0 : same(back, v), "%a: \"%s\" reads back as %a", v, text, back);
  PROP(same(number_parse(text, n), back), "\"%s\": number_parse differs from strtod", text);
  if (v == 0) {
    PROP(strcmp(text, "0") == 0, "%a: \"%s\"", v, text);
    return;
  }
  char digits[32], ref_digits[32], layout[64];
  int point, ref_point;
  split(text, digits, &point);
  spec_layout(v < 0, digits, point, layout);
  PROP(strcmp(layout, text) == 0, "%a: \"%s\" is not laid out as \"%s\"", v, text, layout);
  int k = (int)strlen(digits);
  PROP(k == 1 || !ref_at(fabs(v), k - 1, ref_digits, &ref_point),
       "%a: \"%s\" but %d digits suffice", v, text, k - 1);
  bool found = ref_at(fabs(v), k, ref_digits, &ref_point);
  PROP(found && strcmp(ref_digits, digits) == 0 && ref_point == point,
       "%a: \"%s\", reference digits %s point %d", v, text, found ? ref_digits : "-", ref_point);
}

static int format_property_count;

static void test_format_random(void) {
  int count = 0;
  /* Random bit patterns: every exponent equally likely. */
  for (int i = 0; i < 1200000; i++) {
    double v = from_bits(rng());
    if (!isfinite(v)) continue;
    check_format(v);
    count++;
  }
  /* Subnormals, the tiniest ones and the largest. */
  for (int i = 0; i < 40000; i++, count++) check_format(from_bits(rng() >> 12));
  for (uint64_t c = 1; c <= 5000; c++, count++) check_format(from_bits(c));
  for (uint64_t c = 1; c <= 5000; c++, count++) check_format(from_bits((UINT64_C(1) << 52) - c));
  /* Powers of two, where the gap below is half the gap above, and their
   * neighbours. */
  for (int e = 1; e < 2047; e++) {
    double v = from_bits((uint64_t)e << 52);
    check_format(v);
    check_format(nextafter(v, 0));
    check_format(-nextafter(v, HUGE_VAL));
    count += 3;
  }
  /* Integers: safe ones of every length, then beyond 2^53. */
  for (int i = 0; i < 300000; i++, count++) {
    int bits = 1 + (int)rng_below(53);
    int64_t m = (int64_t)(rng() >> (64 - bits));
    check_format(rng() & 1 ? (double)-m : (double)m);
  }
  for (int i = 0; i < 100000; i++, count++) {
    double m = (double)(rng() >> 11);
    check_format(ldexp(m, 1 + (int)rng_below(80)));
  }
  /* Short decimals, as people write them and as JSON carries them. */
  for (int i = 0; i < 400000; i++, count++) {
    char text[48];
    int digits = 1 + (int)rng_below(8);
    uint64_t limit = 1;
    for (int d = 0; d < digits; d++) limit *= 10;
    uint64_t m = rng_below(limit);
    int e = i % 8 == 0 ? (int)rng_below(640) - 330 : (int)rng_below(50) - 25;
    snprintf(text, sizeof text, "%s%" PRIu64 "e%d", rng() & 1 ? "-" : "", m, e);
    check_format(strtod(text, NULL));
  }
  format_property_count = count;
  CHECK(count >= 2000000);
}

/* integer_format writes what printf does, for every length (each power of
 * ten and its neighbours), every four-digit group in each of the two places
 * eight digits are split into (the rest of the eight random), random values
 * of every bit length, and nothing past the digits' end but what its
 * buffer allows. */
static void test_integer_format(void) {
  static uint64_t values[64 * 3 + 2 * 10000 + 2000];
  size_t count = 0;
  for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10) {
    values[count++] = p;
    values[count++] = p - 1;
    values[count++] = p + 1;
  }
  values[count++] = UINT64_MAX;
  for (uint64_t group = 0; group < 10000; group++) {
    values[count++] = group * 10000 + rng_below(10000);
    values[count++] = rng_below(10000) * 10000 + group;
  }
  while (count < sizeof values / sizeof *values) values[count++] = rng() >> rng_below(64);
  for (size_t i = 0; i < count; i++) {
    char want[24], got[20];
    int n = snprintf(want, sizeof want, "%" PRIu64, values[i]);
    size_t length = integer_format(values[i], got);
    PROP(length == (size_t)n && memcmp(got, want, length) == 0, "%" PRIu64 ": \"%.*s\"", values[i],
         (int)length, got);
  }
}

/* ---- number_parse ---------------------------------------------------------------- */

static void test_parse_examples(void) {
  CHECK(same(parse("0"), 0.0));
  CHECK(same(parse("-0"), -0.0));
  CHECK(same(parse("-0.0"), -0.0));
  CHECK(same(parse("0e99999"), 0.0));
  CHECK(same(parse("-0.000e-5"), -0.0));
  CHECK(same(parse("1"), 1.0));
  CHECK(same(parse("-1.5"), -1.5));
  CHECK(same(parse("0.1"), 0.1));
  CHECK(same(parse("0.30000000000000004"), 0x1.3333333333334p-2));
  CHECK(same(parse("1e400"), HUGE_VAL));
  CHECK(same(parse("-1e400"), -HUGE_VAL));
  CHECK(same(parse("1e99999999999999999999999"), HUGE_VAL));
  CHECK(same(parse("2e-324"), 0.0));
  CHECK(same(parse("-2e-324"), -0.0));
  CHECK(same(parse("1e-99999999999999999999999"), 0.0));
  CHECK(same(parse("5e-324"), ldexp(1, -1074)));
  CHECK(same(parse("3e-324"), ldexp(1, -1074)));
  CHECK(same(parse("2.4703282292062328e-324"), ldexp(1, -1074)));
  CHECK(same(parse("2.2250738585072014e-308"), DBL_MIN));
  CHECK(same(parse("1.7976931348623157e308"), DBL_MAX));
  CHECK(same(parse("1.7976931348623158e308"), DBL_MAX));
  CHECK(same(parse("1.7976931348623159e308"), HUGE_VAL));
  CHECK(same(parse("9007199254740993"), 9007199254740992.0));
  CHECK(same(parse("9007199254740995"), 9007199254740996.0));
  CHECK(same(parse("9007199254740993.0000000000000000000000000001"), 9007199254740994.0));
  CHECK(same(parse("4503599627370497.5"), 4503599627370498.0));
  CHECK(same(parse("123456789012345678901234567890"), 1.2345678901234568e29));
  CHECK(same(parse("1E+2"), 100.0));
  CHECK(same(parse("1e0000000000000000000000000000000000000000000000000002"), 100.0));

  /* The exact decimal value of 2^-1075, the tie between 0 and the smallest
   * subnormal, rounds to even (zero); one more digit tips it over. */
  char text[1200];
  snprintf(text, sizeof text, "%.760Le", ldexpl(1, -1075));
  CHECK(same(parse(text), 0.0));
  char *e = strchr(text, 'e');
  memmove(e + 1, e, strlen(e) + 1);
  *e = '1';
  CHECK(same(parse(text), ldexp(1, -1074)));

  /* Longer than the digits parse_slow keeps: the sticky digit decides.
   * 1 followed by 1000 zeros then 1, times 10^-1000 is just above 1. */
  char *o = text;
  o += sprintf(o, "1.");
  for (int i = 0; i < 1000; i++) *o++ = '0';
  strcpy(o, "1");
  CHECK(same(parse(text), 1.0));
  /* 2^53 + 1 with a nonzero digit 900 places down is above the tie. */
  o = text + sprintf(text, "9007199254740993.");
  for (int i = 0; i < 900; i++) *o++ = '0';
  strcpy(o, "1");
  CHECK(same(parse(text), 9007199254740994.0));
  *o = '0';
  CHECK(same(parse(text), 9007199254740992.0));
  /* Many leading zeros before the first significant digit. */
  o = text + sprintf(text, "0.");
  for (int i = 0; i < 1000; i++) *o++ = '0';
  strcpy(o, "123e1200");
  CHECK(same(parse(text), 1.23e199));

  /* A huge exponent that the digit positions bring back into range. */
  size_t zeros = 3000000;
  char *big = malloc(zeros + 32);
  o = big + sprintf(big, "0.");
  memset(o, '0', zeros);
  o += zeros;
  o += sprintf(o, "1e%zu", zeros);
  CHECK(same(number_parse(big, (size_t)(o - big)), 0.1));
  o[-1]++;
  CHECK(same(number_parse(big, (size_t)(o - big)), 1.0));
  memcpy(big, "1.", 2);
  CHECK(same(number_parse(big, (size_t)(o - big)), HUGE_VAL));
  free(big);
}

/* Compare number_parse with strtod on one JSON number, given in a buffer of
 * exactly its length so that reading past the end is caught under ASan. */
static void check_parse(const char *s) {
  size_t n = strlen(s);
  char *copy = malloc(n);
  memcpy(copy, s, n);
  double got = number_parse(copy, n), want = strtod(s, NULL);
  PROP(same(got, want), "\"%.80s\" (%zu chars): %a, strtod %a", s, n, got, want);
  /* The JSON parser reads the digits itself and takes number_parse's
   * shortcuts from there: the same value. */
  arena a = {0};
  json_value *v;
  shorn_error e;
  bool parsed = json_parse(&a, copy, n, &v, &e) == SHORN_OK && v->type == JSON_NUMBER;
  PROP(parsed && same(v->u.number, want), "\"%.80s\" (%zu chars): json_parse %a, strtod %a", s,
       n, parsed ? v->u.number : 0.0, want);
  arena_free(&a);
  free(copy);
}

static char *random_digits(char *o, int n, bool leading_nonzero) {
  for (int i = 0; i < n; i++) *o++ = (char)('0' + rng_below(10));
  if (leading_nonzero && n > 0 && o[-n] == '0') o[-n] = (char)('1' + rng_below(9));
  return o;
}

static int parse_property_count;

static void test_parse_random(void) {
  static char text[4096];
  int count = 0;
  /* JSON-grammar numbers of every shape: short, long, extreme exponents. */
  for (int i = 0; i < 400000; i++, count++) {
    char *o = text;
    if (rng() & 1) *o++ = '-';
    bool is_long = i % 20 == 0;
    int int_digits = rng_below(4) == 0 ? 0 : 1 + (int)rng_below(is_long ? 400 : 20);
    int frac_digits = rng() & 1 ? 0 : 1 + (int)rng_below(is_long ? 800 : 20);
    if (int_digits == 0)
      *o++ = '0';
    else
      o = random_digits(o, int_digits, true);
    if (frac_digits || int_digits == 0) {
      *o++ = '.';
      int zeros = rng_below(4) == 0 ? (int)rng_below(30) : 0;
      for (int z = 0; z < zeros; z++) *o++ = '0';
      o = random_digits(o, frac_digits ? frac_digits : 1, false);
    }
    if (rng() & 1) {
      *o++ = rng() & 1 ? 'e' : 'E';
      int r = (int)rng_below(3);
      if (r) *o++ = r == 1 ? '-' : '+';
      o += sprintf(o, "%d", (int)rng_below(i % 4 == 0 ? 700 : 30));
    }
    *o = 0;
    check_parse(text);
  }
  /* Ties and near-ties, exactly: the midpoint of two neighbouring doubles,
   * printed exactly from long double, and one unit of its last digit either
   * side. */
  for (int i = 0; i < 30000; i++) {
    double v = from_bits(rng() >> 1);
    if (!isfinite(v) || v == DBL_MAX) continue;
    if (i % 4 == 0) v = from_bits(rng() >> 12);          /* subnormal */
    if (i % 4 == 1) {
      double m = (double)(rng() >> 11);
      v = ldexp(m, (int)rng_below(40) - 20);
    }
    long double mid = ((long double)v + nextafter(v, HUGE_VAL)) / 2;
    int precision = i % 4 == 1 ? 30 : 780;
    snprintf(text, sizeof text, "%.*Le", precision, mid);
    check_parse(text);
    char *e = strchr(text, 'e');
    char *last = e - 1;
    while (*last == '0') last--;
    char saved = *last;
    if (*last != '9' && *last != '.') {
      (*last)++;
      check_parse(text);
      *last = saved;
    }
    if (*last != '0' && *last != '.' && last > text) {
      (*last)--;
      check_parse(text);
      *last = saved;
    }
    count += 3;
  }
  /* Integers in [2^53, 2^54): the odd ones are ties. */
  for (int i = 0; i < 50000; i++, count++) {
    snprintf(text, sizeof text, "%" PRIu64, (UINT64_C(1) << 53) + rng_below(UINT64_C(1) << 53));
    check_parse(text);
  }
  /* The overflow threshold, 2^1024 - 2^970, and around it. */
  snprintf(text, sizeof text, "%.400Le", ldexpl(1, 1024) - ldexpl(1, 970));
  check_parse(text);
  CHECK(same(parse(text), HUGE_VAL));
  parse_property_count = count;
}

/* The JSON parser reads digits eight bytes at a time: wherever the run
 * ends inside those eight, and whatever byte ends it, the number must stop
 * exactly there.  "[" DIGITS b "]" for every byte b parses, or fails at the
 * offset that says where the number ended. */
static void test_digit_run_ends(void) {
  char text[64], digits[40];
  for (int length = 1; length <= 24; length++) {
    for (int i = 0; i < length; i++) digits[i] = (char)('0' + (i * 7 + length) % 10);
    digits[0] = (char)('1' + length % 9);
    digits[length] = 0;
    for (int b = 0; b < 256; b++) {
      int n = snprintf(text, sizeof text, "[%s", digits);
      text[n++] = (char)b;
      text[n++] = ']';
      arena a = {0};
      json_value *v;
      shorn_error e;
      shorn_code rc = json_parse(&a, text, (size_t)n, &v, &e);
      text[n - 1] = 0; /* "[" DIGITS b, for strtod */
      if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || (b >= '0' && b <= '9')) {
        PROP(rc == SHORN_OK && v->length == 1 && same(v->u.items[0].u.number, strtod(text + 1, NULL)),
             "%s then 0x%02x: %d", digits, b, rc);
      } else {
        long long at = b == '.' || b == 'e' || b == 'E' ? 1 : b == ']' || b == ',' ? length + 2 : length + 1;
        PROP(rc == SHORN_ERROR_JSON && e.offset == at, "%s then 0x%02x: offset %lld, not %lld",
             digits, b, e.offset, at);
      }
      arena_free(&a);
    }
  }
}

/* ---- the JSON reader's fast path ------------------------------------------ */

/* Numbers whose reading is easy to get wrong: the edges of 2^53 and of 64
 * bits, Clinger's limits (10^22, 15 to 17 digits), -0, subnormals, runs that
 * end at each lane of the reader's words, and refusals. */
static const char *const READ_EDGES[] = {
    "0", "-0", "0.0", "-0.0", "-0.000", "1", "-1", "9", "10", "0.1", "-0.1", "0.5", "1.5",
    "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994",
    "9007199254740995", "-9007199254740993", "900719925474099.3", "900719925474099.5",
    "90071992547409.93", "9007199254740993.0", "0.9007199254740993", "4503599627370497.5",
    "999999999999999", "9999999999999999", "99999999999999999", "999999999999999.9",
    "99999999.99999999", "1234567.1234567", "12345678.12345678", "123456789.123456789",
    "18446744073709551615", "18446744073709551616", "9999999999999999999",
    "10000000000000000000", "0.0000000000000000001", "0.000000000000000000001",
    "0.30000000000000004", "1e22", "1e23", "1E-22", "4.9e-324", "5e-324", "2e-324",
    "2.2250738585072014e-308", "2.2250738585072011e-308", "1.7976931348623157e308", "1e309",
    "123456789012345.6789", "1.00000000000000011102230246251565404236316680908203125",
    "", "-", "+1", ".5", "-.5", "01", "-01", "00", "00.5", "1.", "-1.", "1.e5", "1e", "1e+",
    "1E-", "--1", "-a", "0x10", "1.5e", "12345678.", "1234567890123456.", "123456789012345.e1",
};

/* json_number_token on `text` (its own bytes, then `after`), in a buffer of
 * exactly their length so that reading outside them is caught under ASan:
 * where it ended (-1 when it refused) and the value or reason. */
static ptrdiff_t read_at(const char *text, size_t n, const char *after, size_t after_n, double *v,
                         const char **why) {
  uint8_t *buffer = malloc(n + after_n ? n + after_n : 1);
  memcpy(buffer, text, n);
  memcpy(buffer + n, after, after_n);
  *v = 0;
  *why = NULL;
  const uint8_t *end = json_number_token(buffer, buffer + n + after_n, v, why);
  ptrdiff_t at = end ? end - buffer : -1;
  free(buffer);
  return at;
}

/* One number read at the very end of the text, where the fast path leaves
 * it to the slow one (a digit run that reaches the end is the slow path's),
 * and again before 1 to 32 other bytes, where the fast path reads most
 * numbers, a word that ends at the end of the text when fewer than eight
 * bytes are left: the same end, double or refusal.  A valid number must
 * also match strtod, and the parser (its own copy of the reader, inline)
 * must give the same double inside an array. */
static void check_read(const char *text) {
  static const char *const STOPS[] = {",", "]", "}", " ", "\n", "\"", "x", "/", ":", "\x80", "\xff"};
  size_t n = strlen(text);
  double slow, fast;
  const char *slow_why, *fast_why;
  ptrdiff_t slow_at = read_at(text, n, "", 0, &slow, &slow_why);
  char after[40];
  int after_n = 1 + (int)rng_below(32);
  const char *stop = STOPS[rng_below(sizeof STOPS / sizeof *STOPS)];
  after[0] = stop[0];
  for (int i = 1; i < after_n; i++) after[i] = (char)rng();
  if (rng_below(3) == 0) after[0] = 0; /* a NUL ends a number as any other byte */
  ptrdiff_t fast_at = read_at(text, n, after, (size_t)after_n, &fast, &fast_why);
  PROP(fast_at == slow_at && (slow_at < 0 ? fast_why == slow_why : same(fast, slow)),
       "\"%s\" then 0x%02x: ends at %td (%a, %s), alone at %td (%a, %s)", text, (uint8_t)after[0],
       fast_at, fast, fast_why ? fast_why : "-", slow_at, slow, slow_why ? slow_why : "-");
  if (slow_at != (ptrdiff_t)n) return;
  double want = strtod(text, NULL);
  PROP(same(fast, want), "\"%s\": %a, strtod %a", text, fast, want);
  char array[160];
  int length = snprintf(array, sizeof array, "[%s,%s]", text, text);
  arena a = {0};
  json_value *v;
  shorn_error e;
  bool parsed = json_parse(&a, array, (size_t)length, &v, &e) == SHORN_OK;
  PROP(parsed && v->length == 2 && same(v->u.items[0].u.number, want) && same(v->u.items[1].u.number, want),
       "%s: json_parse %a", array, parsed ? v->u.items[0].u.number : 0.0);
  arena_free(&a);
}

static int read_property_count;

static void test_read_fast_path(void) {
  int count = 0;
  for (size_t i = 0; i < sizeof READ_EDGES / sizeof *READ_EDGES; i++)
    for (int k = 0; k < 20; k++, count++) check_read(READ_EDGES[i]);
  /* Random digits, 1 to 25 of them before a point and after it, an
   * exponent now and then, and one byte in forty changed into another that
   * numbers hold, which makes refusals and numbers cut short. */
  char text[80];
  for (int i = 0; i < 300000; i++, count++) {
    char *o = text;
    if (rng() & 1) *o++ = '-';
    int int_digits = 1 + (int)rng_below(25);
    o = random_digits(o, int_digits, rng_below(8) != 0 || int_digits > 1);
    if (rng() & 1) {
      *o++ = '.';
      int zeros = rng_below(4) == 0 ? (int)rng_below(20) : 0;
      for (int z = 0; z < zeros; z++) *o++ = '0';
      o = random_digits(o, 1 + (int)rng_below(25), false);
    }
    if (rng_below(4) == 0) {
      *o++ = rng() & 1 ? 'e' : 'E';
      if (rng() & 1) *o++ = rng() & 1 ? '-' : '+';
      o += sprintf(o, "%d", (int)rng_below(i % 8 == 0 ? 400 : 25));
    }
    *o = 0;
    for (char *c = text; c < o; c++)
      if (rng_below(40) == 0) *c = "0123456789.-+eE"[rng_below(15)];
    check_read(text);
  }
  read_property_count = count;
}

int main(void) {
  test_format_examples();
  test_parse_examples();
  test_digit_run_ends();
  test_format_random();
  test_parse_random();
  test_read_fast_path();
  test_integer_format();
  printf("number: %d doubles formatted, %d texts parsed, %d read by the JSON reader\n",
         format_property_count, parse_property_count, read_property_count);
  return check_report("number");
}
