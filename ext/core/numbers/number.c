/*
 * number.c — JavaScript number spelling and correctly rounded parsing.
 *
 * number_format is Schubfach (R. Giulietti, "The Schubfach way to render
 * doubles"): scale the double's rounding interval by 10^-k so that it is
 * between 1 and 10 units wide, then at most one multiple of ten and at least
 * one integer fall inside it, which gives the shortest digits directly, with
 * no digit loop and no bignum.  number_parse is Clinger's exact fast path,
 * then Eisel-Lemire (D. Lemire, "Number parsing at a gigabyte per second"),
 * then the C library's strtod for what those cannot settle.
 */
#include "number.h"
#include "pow10.h"
#include "core/text/lanes.h"
#include "core/text/text.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* The 128-bit product a * b: its low half, and its high half in *high.
 * Compilers for 32-bit targets (and MSVC) have no 128-bit integer. */
static inline uint64_t multiply_64(uint64_t a, uint64_t b, uint64_t *high) {
#ifdef __SIZEOF_INT128__
  __extension__ unsigned __int128 product = (unsigned __int128)a * b;
  *high = (uint64_t)(product >> 64);
  return (uint64_t)product;
#else
  uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
  uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  uint64_t middle = (lo_lo >> 32) + (uint32_t)hi_lo + lo_hi;
  *high = hi_hi + (hi_lo >> 32) + (middle >> 32);
  return (middle << 32) | (uint32_t)lo_lo;
#endif
}

/* floor(q log10 2), floor(log10(3/4 2^q)) and floor(j log2 10) for the
 * exponents of doubles; scripts/gen_pow10.py checks them over those ranges.
 * (Right shifts of negative ints are arithmetic on GCC and Clang.) */
static inline int floor_log10_pow2(int q) { return (q * 315653) >> 20; }
static inline int floor_log10_three_quarters_pow2(int q) { return (q * 315653 - 131008) >> 20; }
static inline int floor_log2_pow10(int j) { return (j * 217706) >> 16; }

/* ---- digits --------------------------------------------------------------- */

SHORN_PRIVATE const char DIGIT_PAIRS[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

SHORN_PRIVATE const uint64_t POW10_U64[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u};

/* Number of decimal digits of d > 0: bit length times log10 2 is the answer
 * or one too many. */
static inline int decimal_length(uint64_t d) {
  int t = ((64 - __builtin_clzll(d)) * 1233) >> 12;
  return t + (d >= POW10_U64[t]);
}

/* The eight digits of v < 10^8, zeros ahead, as ASCII lanes (the first
 * digit lowest): halves of four digits, pairs, then digits, each split by
 * a multiplication that divides every lane at once, exact for these
 * ranges (x * 10486 >> 20 is x / 100 below 43700, x * 103 >> 10 is x / 10
 * below 179), where a division per pair would cost a number-heavy record
 * dearly. */
static inline uint64_t eight_digits(uint32_t v) {
  uint64_t halves = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
  uint64_t high_pairs = (halves * 10486 >> 20) & 0x0000007F0000007Full;
  uint64_t pairs = high_pairs | (halves - 100 * high_pairs) << 16;
  uint64_t tens = (pairs * 103 >> 10) & 0x000F000F000F000Full;
  return (tens | (pairs - 10 * tens) << 8) + LANES('0');
}

/* The eight digits of v < 10^8, zeros ahead, at p, a pair at a time:
 * v / 10^6 as a fixed-point number with 48 bits of fraction, whose
 * integer part is the first pair, and whose fraction times 100 gives the
 * next pair as its integer part, and so on.  The multiplier rounds 2^48 /
 * 10^6 up; its excess, carried through three multiplications by 100,
 * stays below a unit of the last pair, as a run over every v below 10^8
 * confirmed.  Cheaper than the lanes when all eight digits are wanted. */
static inline void number_write_eight(char *p, uint32_t v) {
  const uint64_t fraction = (UINT64_C(1) << 48) - 1;
  uint64_t t = (uint64_t)v * 281474977u;
  write_pair(p, (uint32_t)(t >> 48));
  t = (t & fraction) * 100;
  write_pair(p + 2, (uint32_t)(t >> 48));
  t = (t & fraction) * 100;
  write_pair(p + 4, (uint32_t)(t >> 48));
  t = (t & fraction) * 100;
  write_pair(p + 6, (uint32_t)(t >> 48));
}

/* number_write_digits past eight digits: two blocks of eight, the first with
 * what is left above the second.  Out of line, so that the short numbers
 * of number_write_digits' first test save no registers for it. */
static NOINLINE void number_write_long_digits(char *p, uint64_t d, int length) {
  uint8_t *o = (uint8_t *)p;
  uint64_t high = d / 100000000;
  uint32_t low = (uint32_t)(d - high * 100000000);
  /* Ids and counts of nine or ten digits: a pair ahead of the eight. */
  if (length == 9)
    o[0] = (uint8_t)('0' + high);
  else if (length == 10)
    write_pair(p, (uint32_t)high);
  else if (length == 17) {
    o[0] = (uint8_t)('0' + high / 100000000);
    number_write_eight(p + 1, (uint32_t)(high % 100000000));
  } else if (length == 16) {
    number_write_eight(p, (uint32_t)high);
  } else {
    store_le64(o, eight_digits((uint32_t)high) >> (8 * (16 - length)));
  }
  number_write_eight(p + length - 8, low);
}

/* Write the `length` digits of d < 10^17 at p, and clobber p[length..17):
 * whole eight-byte stores, the first with its leading zeros shifted out,
 * rather than a loop whose exit mispredicts with the length. */
static inline void number_write_digits(char *p, uint64_t d, int length) {
  if (length <= 8)
    store_le64((uint8_t *)p, eight_digits((uint32_t)d) >> (8 * (8 - length)));
  else
    number_write_long_digits(p, d, length);
}

size_t integer_format(uint64_t u, char out[20]) {
  /* Counts, ages and flags, the most common integers, skip the lanes. */
  if (u < 10) {
    out[0] = (char)('0' + u);
    return 1;
  }
  if (u < 100) {
    write_pair(out, (uint32_t)u);
    return 2;
  }
  int length = decimal_length(u);
  if (u < POW10_U64[17]) {
    number_write_digits(out, u, length);
    return (size_t)length;
  }
  char *p = out + length;
  for (; u >= 100; u /= 100) {
    p -= 2;
    write_pair(p, (uint32_t)(u % 100));
  }
  if (u >= 10)
    write_pair(p - 2, (uint32_t)u);
  else
    p[-1] = (char)('0' + u);
  return (size_t)length;
}

/* ---- number_format ---------------------------------------------------------- */

typedef struct decimal {
  uint64_t digits;
  int exponent; /* value = digits * 10^exponent */
} decimal;

/* cp * g / 2^128 rounded to odd: the integer part, its low bit set when
 * there is a fraction.  That keeps every comparison with an even integer
 * exact.  gen_pow10.py shows that a scaled bound with a fraction is at least
 * 2^-68 from any integer, while g's excess adds less than cp / 2^128 < 2^-69,
 * so the integer part is right and a fraction below 2^-68 means none. */
static inline uint64_t round_to_odd(uint64_t g_hi, uint64_t g_lo, uint64_t cp) {
  uint64_t low_hi, high_hi;
  uint64_t low_lo = multiply_64(g_lo, cp, &low_hi);
  uint64_t high_lo = multiply_64(g_hi, cp, &high_hi) + low_hi;
  high_hi += high_lo < low_hi;
  uint64_t fraction = high_lo | (low_lo >> 60);
  return high_hi | (fraction != 0);
}

/* Divide d by 10^k when it is a multiple, with one multiplication: d is one
 * exactly when d * 5^-k (mod 2^64) rotated right by k is at most
 * (2^64 - 1) / 10^k, and that is then the quotient (Hacker's Delight 10-17). */
static inline int number_take_zeros(uint64_t *d, uint64_t inverse, int k, uint64_t limit) {
  uint64_t r = *d * inverse;
  r = r >> k | r << (64 - k);
  if (r > limit) return 0;
  *d = r;
  return k;
}

/* number_shortest's digits are below 10^16, so they have at most 15 trailing
 * zeros: s <= c * 2^q * 10^-k < 2^53 * 10, because 2^q * 10^-k is the
 * interval's width (4/3 of it when c = 2^52), which is under 10. */
static inline decimal decimal_strip(uint64_t d, int e) {
  e += number_take_zeros(&d, 0xc767074b22e90e21u, 8, UINT64_MAX / 100000000);
  e += number_take_zeros(&d, 0xd288ce703afb7e91u, 4, UINT64_MAX / 10000);
  e += number_take_zeros(&d, 0x8f5c28f5c28f5c29u, 2, UINT64_MAX / 100);
  e += number_take_zeros(&d, 0xcccccccccccccccdu, 1, UINT64_MAX / 10);
  return (decimal){d, e};
}

/* The shortest decimal in the rounding interval of c * 2^q, the nearest of
 * those on a tie of length.  `irregular` is c = 2^52 above the smallest
 * exponent, where the gap to the double below is half the gap above. */
static ALWAYS_INLINE decimal number_shortest(uint64_t c, int q, bool irregular) {
  /* In quarter units the interval is [cb - 2, cb + 2], or [cb - 1, cb + 2];
   * k makes it between 1 and 10 units of 10^k wide once scaled by 10^-k. */
  uint64_t cb = c << 2, cbl, cbr = cb + 2;
  int k;
  if (irregular) {
    cbl = cb - 1;
    k = floor_log10_three_quarters_pow2(q);
  } else {
    cbl = cb - 2;
    k = floor_log10_pow2(q);
  }
  int h = q + floor_log2_pow10(-k) + 1;
  const uint64_t *t = POW10[-k - POW10_MIN];
  uint64_t g_lo = t[1] + 1, g_hi = t[0] + (g_lo == 0); /* an overestimate of 10^-k */
  uint64_t vb = round_to_odd(g_hi, g_lo, cb << h);
  uint64_t vbl = round_to_odd(g_hi, g_lo, cbl << h);
  uint64_t vbr = round_to_odd(g_hi, g_lo, cbr << h);

  /* Reading rounds half to even, so an even c owns the interval's ends. */
  uint64_t open = c & 1;
  uint64_t s = vb >> 2;

  /* Fewer than ten units wide: at most one multiple of ten inside, and if
   * there is one it is the neighbour of v below or above. */
  uint64_t s10 = s / 10;
  bool low10 = vbl + open <= s10 * 40;
  bool high10 = s10 * 40 + 40 + open <= vbr;
  if (low10 != high10) return decimal_strip(s10 + high10, k + 1);

  /* At least one unit wide: s or s + 1 is inside, the same length, and no
   * multiple of ten, so no trailing zero. */
  bool low_in = vbl + open <= s << 2;
  bool high_in = (s << 2) + 4 + open <= vbr;
  if (low_in != high_in) return (decimal){s + high_in, k};
  uint64_t middle = (s << 2) + 2;
  return (decimal){s + (vb > middle || (vb == middle && (s & 1))), k};
}

/* Lay out digits * 10^exponent as Number::toString does; returns the length. */
static ALWAYS_INLINE size_t number_spell(char *p, uint64_t digits, int exponent) {
  int length = decimal_length(digits);
  int point = length + exponent; /* the spec's n */
  if (exponent >= 0 && point <= 21) {
    number_write_digits(p, digits, length);
    memset(p + length, '0', (size_t)exponent);
    p[point] = 0;
    return (size_t)point;
  }
  if (point > 0 && point <= 21) {
    /* point < length <= 17: the fraction, at most sixteen digits, moves up
     * a place in a fixed-size copy, where a memmove of the integer part
     * was a call per number. */
    char fraction[16];
    number_write_digits(p, digits, length);
    memcpy(fraction, p + point, 16);
    p[point] = '.';
    memcpy(p + point + 1, fraction, 16);
    p[length + 1] = 0;
    return (size_t)length + 1;
  }
  if (point > -6 && point <= 0) {
    size_t zeros = (size_t)-point;
    p[0] = '0';
    p[1] = '.';
    memset(p + 2, '0', zeros);
    number_write_digits(p + 2 + zeros, digits, length);
    p[2 + zeros + length] = 0;
    return 2 + zeros + (size_t)length;
  }
  number_write_digits(p + 1, digits, length);
  p[0] = p[1];
  size_t n = 1;
  if (length > 1) {
    p[1] = '.';
    n = (size_t)length + 1;
  }
  p[n++] = 'e';
  int e = point - 1;
  p[n++] = e < 0 ? '-' : '+';
  if (e < 0) e = -e;
  if (e >= 100) {
    p[n++] = (char)('0' + e / 100);
    e %= 100;
    write_pair(p + n, (uint32_t)e);
    n += 2;
  } else if (e >= 10) {
    write_pair(p + n, (uint32_t)e);
    n += 2;
  } else {
    p[n++] = (char)('0' + e);
  }
  p[n] = 0;
  return n;
}

/* number_format past the safe integers, which it answers without the
 * registers that digit generation needs saved. */
static NOINLINE size_t number_format_fraction(double v, char out[NUMBER_TEXT_MAX]) {
  char *p = out;
  /* A number of one to three decimals below 10^12 (a price, a reading):
   * when the double nearest m / 1000 is v, m / 1000 less its trailing
   * zeros is v's shortest spelling, since no other multiple of 10^-3 is
   * as near (10^-3 is more than v's unit) and a spelling with fewer digits
   * would be one.  m is v * 1000 rounded, off by under a quarter, and
   * m / 1000, both exact, rounds as the decimal reads (Clinger), so the
   * test is exact, and much cheaper than generating digits. */
  uint64_t digits;
  int exponent;
  double scaled = v * 1000;
  double m = (double)(int64_t)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
  if (v > -1e12 && v < 1e12 && m / 1000 == v) {
    digits = (uint64_t)(m < 0 ? -m : m);
    exponent = -3;
    for (; digits % 10 == 0; digits /= 10) exponent++; /* v is no integer: below 0 */
    if (m < 0) *p++ = '-';
  } else {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t c = bits & ((UINT64_C(1) << 52) - 1);
    int biased = (int)(bits >> 52) & 0x7FF;
    if (bits >> 63) *p++ = '-';
    if (unlikely(biased == 0x7FF)) {
      if (c) {
        memcpy(out, "NaN", 4);
        return 3;
      }
      memcpy(p, "Infinity", 9);
      return (size_t)(p - out) + 8;
    }
    /* One call of each below, so that both are inlined: a call saved and
     * restored most of the registers. */
    int q = -1074;
    bool irregular = false;
    if (biased) {
      irregular = c == 0 && biased > 1;
      c |= UINT64_C(1) << 52;
      q = biased - 1075;
    }
    decimal d = number_shortest(c, q, irregular);
    digits = d.digits;
    exponent = d.exponent;
  }
  return (size_t)(p - out) + number_spell(p, digits, exponent);
}

size_t number_format(double v, char out[NUMBER_TEXT_MAX]) {
  char *p = out;
  /* Safe integers, by far the most common numbers, skip digit generation.
   * -0 lands here too and prints "0". */
  if (v > -0x1p53 && v < 0x1p53) {
    int64_t i = (int64_t)v;
    if ((double)i == v) {
      uint64_t u = (uint64_t)i;
      if (i < 0) {
        *p++ = '-';
        u = 0 - u;
      }
      int length = decimal_length(u | (u == 0));
      number_write_digits(p, u, length);
      p[length] = 0;
      return (size_t)(p - out) + (size_t)length;
    }
  }
  return number_format_fraction(v, out);
}

/* ---- number_parse ------------------------------------------------------------ */

SHORN_PRIVATE const double EXACT_POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                              1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                              1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};


/* The exponent part starting at p, if there is one.  It saturates far
 * beyond any text's length, so the digit positions added to it (fewer than
 * the text's bytes) cannot bring a saturated value back into range. */
static inline int64_t number_read_exponent(const char *p, const char *end) {
  if (p == end || (*p != 'e' && *p != 'E')) return 0;
  p++;
  bool minus = p < end && *p == '-';
  if (p < end && (*p == '-' || *p == '+')) p++;
  int64_t e = 0;
  for (; p < end && is_digit(*p); p++)
    if (e < INT64_C(1000000000000000)) e = e * 10 + (*p - '0');
  return minus ? -e : e;
}

/* The bits of man * 10^e10 (man > 0, e10 within the table) when 128 bits of
 * 10^e10 settle its rounding and it is a normal double; false otherwise. */
static bool eisel_lemire(uint64_t man, int e10, uint64_t *out) {
  int shift = __builtin_clzll(man);
  uint64_t w = man << shift;
  const uint64_t *t = POW10[e10 - POW10_MIN];
  uint64_t hi, lo = multiply_64(w, t[0], &hi);
  /* The table truncates, so the exact product is above hi:lo by less than
   * w.  Only a carry through the nine bits below the 54 we keep could change
   * them; when one is possible, bring in the next 64 bits of 10^e10, and
   * give up if even that leaves the carry open. */
  if ((hi & 0x1FF) == 0x1FF && lo + w < lo) {
    uint64_t y_hi, y_lo = multiply_64(w, t[1], &y_hi);
    lo += y_hi;
    hi += lo < y_hi;
    if ((hi & 0x1FF) == 0x1FF && lo == UINT64_MAX && y_lo + w < y_lo) return false;
  }
  unsigned top = (unsigned)(hi >> 63);
  uint64_t m = hi >> (top + 9); /* 53 bits and the rounding bit */
  /* What looks like an exact tie may be a hair above one (round up) or a
   * true tie (round to even): only the slow path can tell. */
  if (lo == 0 && (hi & 0x1FF) == 0 && (m & 3) == 1) return false;
  /* man * 10^e10 is hi:lo * 2^(floor_log2_pow10(e10) - 63 - shift), and the
   * top bit of hi:lo is bit 126 + top. */
  int biased = floor_log2_pow10(e10) + 1023 + 63 + (int)top - shift;
  m = (m + (m & 1)) >> 1;
  if (m >> 53) {
    m >>= 1;
    biased++;
  }
  if (biased <= 0 || biased >= 0x7FF) return false;
  *out = (uint64_t)biased << 52 | (m & ((UINT64_C(1) << 52) - 1));
  return true;
}

/* The decimal value of a midpoint between two doubles has at most 768
 * significant digits, so past this many digits only "all zeros or not"
 * can matter: one nonzero digit stands in for the rest. */
#define SLOW_DIGITS 800

/* ---- the slow path: exact comparison with a halfway point ---------------- */

/* A nonnegative integer, least significant 32 bits first.  The slow path's
 * operands are below 2^4000: at most 801 digits scaled by 10^1125 (the
 * exponents left once values that are surely 0 or infinity are settled) or
 * by 2^1075, and a candidate's halfway point of the same size. */
#define BIG_LIMBS 160
typedef struct big {
  uint32_t limb[BIG_LIMBS];
  size_t n;
} big;

static void big_multiply_small(big *x, uint32_t factor, uint32_t addend) {
  uint64_t carry = addend;
  for (size_t i = 0; i < x->n; i++) {
    uint64_t t = (uint64_t)x->limb[i] * factor + carry;
    x->limb[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry) x->limb[x->n++] = (uint32_t)carry;
}

static const uint32_t POW10_32[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

static void big_multiply_pow10(big *x, int64_t k) {
  for (; k >= 9; k -= 9) big_multiply_small(x, POW10_32[9], 0);
  big_multiply_small(x, POW10_32[k], 0);
}

static void big_shift_left(big *x, int64_t bits) {
  size_t limbs = (size_t)(bits / 32), within = (size_t)(bits % 32);
  if (x->n == 0) return;
  x->limb[x->n] = 0;
  for (size_t i = x->n + 1; i-- > 0;) {
    uint32_t lower = i > 0 && within ? x->limb[i - 1] >> (32 - within) : 0;
    x->limb[i + limbs] = (x->limb[i] << within) | lower;
  }
  memset(x->limb, 0, limbs * sizeof *x->limb);
  x->n += limbs + 1;
  while (x->n && !x->limb[x->n - 1]) x->n--;
}

static int big_compare(const big *a, const big *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (size_t i = a->n; i-- > 0;)
    if (a->limb[i] != b->limb[i]) return a->limb[i] < b->limb[i] ? -1 : 1;
  return 0;
}

/* x * v for v < 2^64, in `out`. */
static void big_multiply_64(big *out, const big *x, uint64_t v) {
  big high = *x;
  *out = *x;
  big_multiply_small(out, (uint32_t)v, 0);
  big_multiply_small(&high, (uint32_t)(v >> 32), 0);
  big_shift_left(&high, 32);
  uint64_t carry = 0;
  for (size_t i = 0; i < high.n || carry; i++) {
    uint64_t t = (uint64_t)(i < out->n ? out->limb[i] : 0) + (i < high.n ? high.limb[i] : 0) + carry;
    out->limb[i] = (uint32_t)t;
    carry = t >> 32;
    if (i >= out->n) out->n = i + 1;
  }
}

/* x (x > 0) within a unit or two in the last place: its top three limbs,
 * at least 65 bits, as a double, times 2^*scale. */
static double big_estimate(const big *x, int *scale) {
  double top = 0;
  size_t taken = 0;
  for (size_t i = x->n; i-- > 0 && taken < 3; taken++) top = top * 4294967296.0 + x->limb[i];
  *scale = (int)((x->n - taken) * 32);
  return top;
}

/* A decimal's value, D * 10^e as exact integers to compare with the
 * halfway point above a double m * 2^q, which is (2m + 1) * 2^(q - 1):
 * with e >= 0, D * 10^e against (2m + 1) * 2^(q - 1); with e < 0, D
 * against (2m + 1) * 10^-e * 2^(q - 1).  Powers of two go to whichever side
 * keeps both integers. */
typedef struct exact_decimal {
  big value; /* D * 10^e, or D when e < 0 */
  big scale; /* 10^-e when e < 0, else 1 */
} exact_decimal;

/* value <=> the halfway point above the positive double with these bits. */
static int compare_halfway(const exact_decimal *d, uint64_t bits) {
  uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
  int biased = (int)(bits >> 52), q = -1074;
  if (biased) {
    m |= UINT64_C(1) << 52;
    q = biased - 1075;
  }
  big left = d->value, right;
  big_multiply_64(&right, &d->scale, 2 * m + 1);
  if (q >= 1)
    big_shift_left(&right, q - 1);
  else
    big_shift_left(&left, 1 - q);
  return big_compare(&left, &right);
}

/* The double nearest D * 10^e (digits[0..count) of D, the first nonzero),
 * ties to even.  An estimate a few units in the last place off is stepped
 * to the answer by exact comparisons with halfway points, so no C library's
 * strtod (MinGW's misrounds next to powers of two) decides anything. */
static double decimal_to_double(const char *digits, int count, int64_t e) {
  if (count - 1 + e >= 309) return (double)INFINITY;
  if (count + e <= -324) return 0.0;
  exact_decimal d = {.scale = {.limb = {1}, .n = 1}};
  for (int i = 0; i < count; i += 9) {
    uint32_t group = 0;
    int length = count - i < 9 ? count - i : 9;
    for (int j = 0; j < length; j++) group = group * 10 + (uint32_t)(digits[i + j] - '0');
    big_multiply_small(&d.value, POW10_32[length], group);
  }
  big_multiply_pow10(e >= 0 ? &d.value : &d.scale, e >= 0 ? e : -e);
  int value_scale, scale_scale;
  double estimate = big_estimate(&d.value, &value_scale) / big_estimate(&d.scale, &scale_scale);
  estimate = ldexp(estimate, value_scale - scale_scale);
  uint64_t bits, largest = UINT64_C(0x7FEFFFFFFFFFFFFF);
  memcpy(&bits, &estimate, sizeof bits);
  if (bits > largest) bits = largest;
  for (;;) {
    int above = compare_halfway(&d, bits);
    if (above > 0 || (above == 0 && (bits & 1))) {
      if (bits == largest) return (double)INFINITY;
      bits++;
    } else if (bits > 0 && (above = compare_halfway(&d, bits - 1)) <= 0 && (above < 0 || (bits & 1))) {
      bits--;
    } else {
      break;
    }
  }
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

/* The number's significant digits, at most SLOW_DIGITS + 1 of them, for the
 * exact comparison.  Only called with a nonzero significand. */
static double number_parse_slow(const char *s, size_t n) {
  char digits[SLOW_DIGITS + 1];
  const char *p = s, *end = s + n;
  bool negative = *p == '-';
  p += negative;
  int count = 0;
  int64_t exponent = 0; /* value = DIGITS * 10^exponent */
  bool dropped = false;
  for (; p < end && is_digit(*p); p++) {
    if (count == 0 && *p == '0') continue;
    if (count < SLOW_DIGITS)
      digits[count++] = *p;
    else {
      exponent++;
      dropped |= *p != '0';
    }
  }
  if (p < end && *p == '.') {
    for (p++; p < end && is_digit(*p); p++) {
      if (count == 0 && *p == '0') {
        exponent--;
      } else if (count < SLOW_DIGITS) {
        digits[count++] = *p;
        exponent--;
      } else {
        dropped |= *p != '0';
      }
    }
  }
  if (dropped) {
    digits[count++] = '1';
    exponent--;
  }
  double v = decimal_to_double(digits, count, exponent + number_read_exponent(p, end));
  return negative ? -v : v;
}

/* The run of digits at p into *value, ten times it and the digit for each
 * (wrapping past 19 digits, where the caller reads the text again), eight
 * at a time while eight bytes can be loaded: a digit's lane less '0' is 0
 * to 9, and adding 0x76 sets the top bit of any other's.  The lanes are
 * then joined in pairs, fours and eights by multiply-and-shift. */
static const char *number_digit_run(const char *p, const char *end, uint64_t *value) {
  uint64_t v = *value;
  while (end - p >= 8) {
    uint64_t lanes = load_le64((const uint8_t *)p) - LANES('0');
    uint64_t others = (lanes | (lanes + LANES(0x76))) & LANES(0x80);
    size_t n = others ? first_lane(others) : 8;
    if (n) {
      lanes <<= 64 - 8 * n; /* the digits, highest lanes, zeros below them */
      lanes = (lanes * 2561) >> 8 & 0x00FF00FF00FF00FFull;
      lanes = (lanes * 6553601) >> 16 & 0x0000FFFF0000FFFFull;
      v = v * POW10_U64[n] + ((lanes * 42949672960001ull) >> 32);
    }
    p += n;
    if (n < 8) break;
  }
  for (; p < end && is_digit(*p); p++) v = v * 10 + (uint64_t)(*p - '0');
  *value = v;
  return p;
}

double number_parse(const char *s, size_t n) {
  const char *p = s, *end = s + n;
  bool negative = p < end && *p == '-';
  p += negative;
  const char *first = p;
  uint64_t man = 0;
  p = number_digit_run(p, end, &man);
  size_t digits = (size_t)(p - first);
  int64_t exponent = 0;
  if (p < end && *p == '.') {
    const char *fraction = ++p;
    p = number_digit_run(p, end, &man);
    exponent = -(int64_t)(p - fraction);
    digits -= (size_t)exponent;
  }
  /* Past 19 digits man has wrapped, unless the excess is leading zeros
   * ("0.000..."), which add nothing to it. */
  if (digits > 19) {
    for (const char *z = first; z < p && (*z == '0' || *z == '.'); z++) digits -= *z == '0';
    if (digits > 19) return number_parse_slow(s, n);
  }
  return number_from_decimal(s, n, negative, man, exponent + number_read_exponent(p, end));
}

double number_from_decimal(const char *s, size_t n, bool negative, uint64_t man, int64_t exponent) {
  if (man == 0) return negative ? -0.0 : 0.0;
  double v;
#if FLT_EVAL_METHOD == 0
  /* Clinger: both operands exact, so one correctly rounded operation.  Not
   * where intermediates carry extra precision (x87), which would round twice. */
  if (man <= UINT64_C(1) << 53 && exponent >= -22 && exponent <= 22) {
    v = (double)man;
    v = exponent < 0 ? v / EXACT_POW10[-exponent] : v * EXACT_POW10[exponent];
    return negative ? -v : v;
  }
#endif
  /* With 0 < man < 10^19: under 10^-324 (below half the smallest subnormal)
   * rounds to zero, and 10^309 or more overflows. */
  if (exponent < POW10_MIN) return negative ? -0.0 : 0.0;
  if (exponent > 308) return negative ? -(double)INFINITY : (double)INFINITY;
  uint64_t bits;
  if (!eisel_lemire(man, (int)exponent, &bits)) return number_parse_slow(s, n);
  bits |= (uint64_t)negative << 63;
  memcpy(&v, &bits, sizeof v);
  return v;
}
