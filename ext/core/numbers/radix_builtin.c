/*
 * radix_builtin.c — radix.h with nothing but the C library: the default
 * build's (without -DSHORN_WITH_GMP).
 *
 * A number here is an array of 32-bit limbs, least significant first, in one
 * of two bases: 2^32 ("binary", the magnitude's bytes) or 10^9 ("decimal",
 * nine digits a limb).  Converting n limbs from one base, the source S, to
 * the other is divide and conquer: split the input at S^m, m the largest
 * LEAF * 2^j below n, so that the high part has at most m limbs; convert
 * both parts; recombine them in the target base as high * S^m + low.  The
 * powers S^(LEAF * 2^j) are written in the target base once per conversion:
 * the first comes from a table, each other one is the square of the one
 * before.  Multiplication is Karatsuba's over schoolbook, so a conversion
 * costs about as much as one product of its size, O(n^1.585), where
 * converting a limb at a time (Horner's rule) costs O(n^2).  Short inputs,
 * the common case, still go by Horner's rule: there it is the fastest.
 *
 * That is still some ten times slower than GMP on large values, so this
 * build has a limit of its own on a BigInt's size, SHORN_BIGINT_MAX_BYTES
 * (bigint.h), which bounds the time of any one conversion.
 *
 * One allocation, sized before any work, holds the input, the output, the
 * powers and all scratch: at most about 7.5 limbs per input limb (see
 * conversion_begin), and none for inputs short enough for Horner's rule.
 */
#ifndef SHORN_WITH_GMP
#include "radix.h"

#define BINARY_BASE ((uint64_t)1 << 32)
#define DECIMAL_BASE 1000000000u

/* Measured on x86-64 at -O2.  Karatsuba pays from about KARATSUBA_MIN limbs
 * in the shorter operand.  Conversions split in blocks of LEAF limbs, and
 * inputs of up to LEAF limbs into decimal, HORNER_BINARY into binary, go by
 * Horner's rule instead: its steps into decimal divide as well as multiply,
 * so splitting pays sooner there. */
#define KARATSUBA_MIN 48
#define LEAF 32
#define HORNER_BINARY 48

/* The deepest split, for inputs up to LEAF * 2^24 limbs: the layout's limits
 * keep them below 2^25, whatever the build's own limit. */
#define LEVELS_MAX 24

/* Stack room for the conversion of any input short enough for Horner's
 * rule (at most 96 limbs in and out), so that those allocate nothing. */
#define HORNER_LOCAL_LIMBS 128

static size_t radix_trim(const uint32_t *x, size_t n) {
  while (n && !x[n - 1]) n--;
  return n;
}

/* Limbs enough for an n-limb number of the other base rewritten in `base`,
 * plus 2, the slack a product buffer has over its value (convert relies on
 * it): a binary limb is log(2^32) / log(10^9) < 1.0704 decimal limbs, and
 * 15/14 is above that; a decimal limb is under 0.9343 binary limbs, and
 * 15/16 is above that. */
static size_t target_limbs(uint64_t base, size_t n) {
  return base == DECIMAL_BASE ? n + n / 14 + 3 : n - n / 16 + 3;
}

/* ---- arithmetic in one base ---------------------------------------------- */

/* Each routine below takes the base as a parameter and is expanded once per
 * base, inside mul and horner, so that % and / by the base compile to a
 * shift or a multiplication, and a carry test to a shift or a comparison. */

/* r[0, an + bn) = a * b in binary, a row of b at a time: each step,
 * a[i] b[j] + r[i + j] + carry, stays below 2^64. */
static void schoolbook_binary(uint32_t *restrict r, const uint32_t *a, size_t an,
                              const uint32_t *b, size_t bn) {
  memset(r, 0, (an + bn) * sizeof *r);
  for (size_t i = 0; i < an; i++) {
    uint64_t ai = a[i], carry = 0;
    for (size_t j = 0; j < bn; j++) {
      uint64_t cur = ai * b[j] + r[i + j] + carry;
      r[i + j] = (uint32_t)cur;
      carry = cur >> 32;
    }
    r[i + bn] = (uint32_t)carry;
  }
}

/* The same in decimal, a column at a time, because carrying after every
 * product would cost a division each.  Sixteen products below 10^18 and a
 * remainder below 10^9 sum below 2^64, so a column is reduced once per
 * sixteen products; what it carries is below (bn + 1) 10^9. */
static void schoolbook_decimal(uint32_t *restrict r, const uint32_t *a, size_t an,
                               const uint32_t *b, size_t bn) {
  uint64_t carry = 0;
  for (size_t k = 0; k + 1 < an + bn; k++) {
    /* a[i] b[k - i] for each i with both indexes in range. */
    size_t i = k < bn ? 0 : k - bn + 1, end = k < an ? k + 1 : an;
    uint64_t sum = carry % DECIMAL_BASE, high = carry / DECIMAL_BASE;
    while (i < end) {
      size_t stop = end - i > 16 ? i + 16 : end;
      for (; i < stop; i++) sum += (uint64_t)a[i] * b[k - i];
      high += sum / DECIMAL_BASE;
      sum %= DECIMAL_BASE;
    }
    r[k] = (uint32_t)sum;
    carry = high;
  }
  r[an + bn - 1] = (uint32_t)carry;
}

/* r[0, n) = r * scale + add, where r has room for the growth; returns the
 * new length.  A decimal limb times 2^32 plus a carry below 2^33, or a
 * binary limb times 10^9 plus one below 2^32, fits in 64 bits. */
static ALWAYS_INLINE size_t scale_add_in(uint64_t base, uint64_t scale, uint32_t *r, size_t n,
                                         uint64_t add) {
  uint64_t carry = add;
  for (size_t i = 0; i < n; i++) {
    uint64_t cur = r[i] * scale + carry;
    r[i] = (uint32_t)(cur % base);
    carry = cur / base;
  }
  for (; carry; carry /= base) r[n++] = (uint32_t)(carry % base);
  return n;
}

/* r = x[0, n), in the other base, rewritten in `base` by Horner's rule from
 * the most significant limb; returns r's length.  Quadratic: short inputs. */
static ALWAYS_INLINE size_t horner_in(uint64_t base, uint64_t scale, uint32_t *r,
                                      const uint32_t *x, size_t n) {
  size_t length = 0;
  for (size_t i = n; i-- > 0;) length = scale_add_in(base, scale, r, length, x[i]);
  return length;
}

static size_t radix_horner(uint64_t base, uint32_t *r, const uint32_t *x, size_t n) {
  if (base == DECIMAL_BASE) return horner_in(DECIMAL_BASE, BINARY_BASE, r, x, n);
  return horner_in(BINARY_BASE, DECIMAL_BASE, r, x, n);
}

/* r[0, rn) += a[0, an), an <= rn; the sum must fit in rn limbs. */
static ALWAYS_INLINE void add_in_place(uint64_t base, uint32_t *r, size_t rn, const uint32_t *a,
                                       size_t an) {
  uint64_t carry = 0;
  size_t i = 0;
  for (; i < an; i++) {
    uint64_t s = (uint64_t)r[i] + a[i] + carry;
    carry = s >= base;
    r[i] = (uint32_t)(carry ? s - base : s);
  }
  for (; carry && i < rn; i++) {
    carry = r[i] == base - 1;
    r[i] = carry ? 0 : r[i] + 1;
  }
}

/* r[0, rn) -= x[0, xn) + y[0, yn), with xn and yn <= rn, in one pass; the
 * difference must not be negative.  Each step's r - x - y - borrow + 2 base
 * is in [0, 3 base): the limb is that modulo the base, the borrow (0, 1 or 2)
 * 2 less the quotient. */
static ALWAYS_INLINE void sub2_in_place(uint64_t base, uint32_t *r, size_t rn, const uint32_t *x,
                                        size_t xn, const uint32_t *y, size_t yn) {
  if (xn < yn) {
    const uint32_t *t = x;
    x = y, y = t;
    size_t tn = xn;
    xn = yn, yn = tn;
  }
  uint64_t borrow = 0;
  size_t i = 0;
  for (; i < yn; i++) {
    uint64_t d = (uint64_t)r[i] + 2 * base - x[i] - y[i] - borrow;
    r[i] = (uint32_t)(d % base);
    borrow = 2 - d / base;
  }
  for (; i < xn; i++) {
    uint64_t d = (uint64_t)r[i] + 2 * base - x[i] - borrow;
    r[i] = (uint32_t)(d % base);
    borrow = 2 - d / base;
  }
  for (; borrow && i < rn; i++) {
    uint64_t d = (uint64_t)r[i] + 2 * base - borrow;
    r[i] = (uint32_t)(d % base);
    borrow = 2 - d / base;
  }
}

/* r = x + y in xn + 1 limbs, xn >= yn; returns the trimmed length. */
static ALWAYS_INLINE size_t add_sum(uint64_t base, uint32_t *r, const uint32_t *x, size_t xn,
                                    const uint32_t *y, size_t yn) {
  uint64_t carry = 0;
  size_t i = 0;
  for (; i < yn; i++) {
    uint64_t s = (uint64_t)x[i] + y[i] + carry;
    carry = s >= base;
    r[i] = (uint32_t)(carry ? s - base : s);
  }
  for (; i < xn; i++) {
    uint64_t s = (uint64_t)x[i] + carry;
    carry = s >= base;
    r[i] = (uint32_t)(carry ? s - base : s);
  }
  r[xn] = (uint32_t)carry;
  return radix_trim(r, xn + 1);
}

/* Scratch that mul needs when its longer operand has n limbs: each
 * Karatsuba level keeps the middle product of two halves of g limbs
 * (2g) and recurses on g-limb operands.  The unbalanced case (a chunk's
 * product and its recursion) takes no more, as its chunks are at most half
 * as long. */
static size_t mul_scratch(size_t n) {
  size_t total = 0;
  while (n >= KARATSUBA_MIN) {
    n = n - n / 2 + 1;
    total += 2 * n;
  }
  return total;
}

static void radix_mul(uint64_t base, uint32_t *r, const uint32_t *a, size_t an, const uint32_t *b,
                size_t bn, uint32_t *scratch);

/* r[0, an + bn) = a * b.  r must not overlap a or b; scratch holds
 * mul_scratch(max(an, bn)) limbs. */
static ALWAYS_INLINE void mul_in(uint64_t base, uint32_t *r, const uint32_t *a, size_t an,
                                 const uint32_t *b, size_t bn, uint32_t *scratch) {
  if (an < bn) {
    const uint32_t *t = a;
    a = b, b = t;
    size_t tn = an;
    an = bn, bn = tn;
  }
  if (!bn) { /* a sum of slices of zeros: 10^k in binary ends in zero limbs */
    memset(r, 0, an * sizeof *r);
    return;
  }
  if (bn < KARATSUBA_MIN) {
    if (base == DECIMAL_BASE) schoolbook_decimal(r, a, an, b, bn);
    else schoolbook_binary(r, a, an, b, bn);
    return;
  }
  if (an >= 2 * bn) {
    /* Unbalanced: a in chunks as long as b, each product added in place. */
    memset(r, 0, (an + bn) * sizeof *r);
    uint32_t *t = scratch;
    for (size_t k = 0; k < an; k += bn) {
      size_t cn = an - k < bn ? an - k : bn;
      radix_mul(base, t, a + k, cn, b, bn, scratch + cn + bn);
      add_in_place(base, r + k, an + bn - k, t, cn + bn);
    }
    return;
  }
  /* Karatsuba, with a = a1 B^h + a0 and b = b1 B^h + b0 (B the base):
   * a b = a1 b1 B^2h + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) B^h + a0 b0.
   * h = an / 2 <= an - h, and b1 is not empty as an < 2 bn. */
  size_t h = an / 2, g = an - h + 1;
  /* The sums are at most g limbs each and fit in r (an + bn >= 2g), which
   * the outer products overwrite only once the middle one is made. */
  uint32_t *sa = r, *sb = r + g, *middle = scratch, *rest = scratch + 2 * g;
  size_t san = add_sum(base, sa, a + h, an - h, a, h);
  size_t sbn = bn - h >= h ? add_sum(base, sb, b + h, bn - h, b, h)
                           : add_sum(base, sb, b, h, b + h, bn - h);
  radix_mul(base, middle, sa, san, sb, sbn, rest);
  size_t mn = san + sbn;
  radix_mul(base, r, a, h, b, h, rest);
  radix_mul(base, r + 2 * h, a + h, an - h, b + h, bn - h, rest);
  sub2_in_place(base, middle, mn, r, radix_trim(r, 2 * h), r + 2 * h, radix_trim(r + 2 * h, an + bn - 2 * h));
  /* What is left, a0 b1 + a1 b0, is below 2 B^an, so it fits above B^h. */
  add_in_place(base, r + h, an + bn - h, middle, radix_trim(middle, mn));
}

static void radix_mul(uint64_t base, uint32_t *r, const uint32_t *a, size_t an, const uint32_t *b,
                size_t bn, uint32_t *scratch) {
  if (base == DECIMAL_BASE) mul_in(DECIMAL_BASE, r, a, an, b, bn, scratch);
  else mul_in(BINARY_BASE, r, a, an, b, bn, scratch);
}

/* ---- radix conversion ---------------------------------------------------- */

/* source^(LEAF * 2^j) in the target base, as limbs[0, length) base^shift.
 * 10^k in binary ends in k zero bits, about a third of its limbs, which no
 * multiplication need go through; powers of 2 in decimal end in none. */
typedef struct power {
  const uint32_t *limbs;
  size_t length, shift;
} power;

/* The first power, source^LEAF, as a table: computing it would cost as much
 * as converting LEAF limbs, doubling the time of values just above that.
 * In binary, 10^288 = 5^288 2^288, and 2^288 is 9 zero limbs, so the table
 * is 5^288; in decimal it is 2^1024.  (Python: 5**288 and 2**1024 in base
 * 2**32 and 10**9, least significant limb first.) */
_Static_assert(LEAF == 32, "the first powers are source^32");
static const uint32_t first_binary[21] = {
    0xeadd6b81, 0x0aff733d, 0xab383823, 0x83ff0d96, 0x0247c750, 0xb1ac51bf, 0x06cf9382,
    0x827793bd, 0x0df3c40f, 0x7d3b9e1b, 0x7426d5ff, 0x3878e1ea, 0x338693b8, 0x1e4133c0,
    0x4ebcf8fd, 0xe92c2430, 0x3c445197, 0x8dffe622, 0x8e7065dd, 0x2b8d45f1, 0x1a44df83};
static const uint32_t first_decimal[35] = {
    224137216, 356329624, 716304835, 245938479, 298239947, 510684586, 237163350,
    110540827, 881473913, 682342462, 768838150, 952085005, 119453082, 601246094,
    276302219, 424865485, 377767893, 639474124, 492847430, 814416622, 658789768,
    871393357, 120113879, 407536021, 708477322, 500963132, 732675805, 430081157,
    230657273, 797697894, 902473361, 930519078, 231590772, 769313486, 179};

typedef struct conversion {
  uint64_t base; /* the target base; the input is in the other one */
  size_t n;      /* input limbs */
  uint32_t *input, *output, *scratch;
  size_t levels; /* powers held, for j < levels */
  power power[LEVELS_MAX];
  uint32_t *slot[LEVELS_MAX]; /* room for each computed power, j >= 1 */
  uint32_t *block; /* the allocation, or NULL when `local` holds everything */
  const shorn_allocator *allocator; /* block's */
  uint32_t local[HORNER_LOCAL_LIMBS];
} conversion;

/* Scratch that convert needs for inputs of up to LEAF * 2^levels limbs.  A
 * split at m holds one part's result, at most target_limbs(m) limbs, and
 * beyond it the scratch either of converting that part (the level below) or
 * of multiplying it by the power, which is no longer than it. */
static size_t convert_scratch(uint64_t base, size_t levels) {
  size_t total = 0;
  for (size_t j = 0; j < levels; j++) {
    size_t part = target_limbs(base, (size_t)LEAF << j), product = mul_scratch(part);
    total = part + (total > product ? total : product);
  }
  return total;
}

/* Inputs up to this many limbs go by Horner's rule alone. */
static size_t horner_max(uint64_t base) { return base == DECIMAL_BASE ? LEAF : HORNER_BINARY; }

/* r = x[0, n) rewritten in c->base; returns r's trimmed length (0 for zero).
 * r holds target_limbs(n) limbs, scratch convert_scratch for n. */
static size_t radix_convert(const conversion *c, uint32_t *r, const uint32_t *x, size_t n,
                      uint32_t *scratch) {
  n = radix_trim(x, n);
  if (n <= horner_max(c->base)) return radix_horner(c->base, r, x, n);
  size_t j = 0;
  while ((size_t)LEAF << (j + 1) < n) j++;
  size_t m = (size_t)LEAF << j; /* m < n <= 2m */
  const power *p = &c->power[j];

  /* high * S^m.  high < S^(n-m) and S^m has shift + length limbs, so the
   * product's rn limbs are at most n log(S)/log(base) + 2: r has room. */
  uint32_t *high = scratch, *rest = scratch + target_limbs(c->base, n - m);
  size_t hn = radix_convert(c, high, x + m, n - m, rest);
  size_t rn = p->shift + hn + p->length;
  memset(r, 0, p->shift * sizeof *r);
  radix_mul(c->base, r + p->shift, high, hn, p->limbs, p->length, rest);

  /* + low, which is below S^m and so no longer than it. */
  uint32_t *low = scratch;
  size_t ln = radix_convert(c, low, x, m, scratch + target_limbs(c->base, m));
  add_in_place(c->base, r, rn, low, ln);
  return radix_trim(r, rn);
}

/* Lay out the conversion of an n-limb input to `base` and allocate its room;
 * the caller then fills c->input.  False when out of memory. */
static bool conversion_begin(conversion *c, const shorn_allocator *a, uint64_t base, size_t n) {
  c->allocator = a;
  c->base = base;
  c->n = n;
  c->levels = 0;
  if (n > horner_max(base)) {
    while (c->levels < LEVELS_MAX && n > (size_t)LEAF << c->levels) c->levels++;
    /* Beyond the limits; no allocation could hold it anyway. */
    if (n > (size_t)LEAF << c->levels) return false;
  }
  /* The input, the output (which the top product fills), each computed
   * power (the square of the one before fills its slot, by the same slack)
   * and the scratch.  At worst, just above LEAF * 2^j limbs, the output is
   * 1.07 limbs per input limb, the powers 2.14 and the scratch 3.2: under
   * 7.5 in all into decimal, and less into binary. */
  size_t total = n + target_limbs(base, n), powers = 0;
  for (size_t j = 1; j < c->levels; j++) powers += target_limbs(base, (size_t)LEAF << j);
  total += powers + convert_scratch(base, c->levels);
  c->block = NULL;
  uint32_t *room = c->local;
  if (total > HORNER_LOCAL_LIMBS) {
    room = c->block = mem_calloc(a, total, sizeof *room);
    if (!room) return false;
  }
  c->input = room;
  c->output = room + n;
  uint32_t *p = c->output + target_limbs(base, n);
  for (size_t j = 1; j < c->levels; j++) {
    c->slot[j] = p;
    p += target_limbs(base, (size_t)LEAF << j);
  }
  c->scratch = p;
  return true;
}

/* Rewrite c->input into c->output; returns the output's trimmed length. */
static size_t conversion_run(conversion *c) {
  if (c->levels) {
    bool into_decimal = c->base == DECIMAL_BASE;
    c->power[0].limbs = into_decimal ? first_decimal : first_binary;
    c->power[0].length = into_decimal ? COUNT_OF(first_decimal) : COUNT_OF(first_binary);
    c->power[0].shift = into_decimal ? 0 : 9; /* 2^288 */
  }
  /* Each power after the first is the square of the one before.  The low
   * limb of 5^k is odd and 2^k is no multiple of 10^9, so squaring leaves
   * no new low zero limbs to skip. */
  for (size_t j = 1; j < c->levels; j++) {
    const power *q = &c->power[j - 1];
    radix_mul(c->base, c->slot[j], q->limbs, q->length, q->limbs, q->length, c->scratch);
    c->power[j].limbs = c->slot[j];
    c->power[j].length = radix_trim(c->slot[j], 2 * q->length);
    c->power[j].shift = 2 * q->shift;
  }
  return radix_convert(c, c->output, c->input, c->n, c->scratch);
}

static void conversion_end(conversion *c) { mem_free(c->allocator, c->block); }

/* ---- radix.h ------------------------------------------------------------- */

bool radix_decimal(const shorn_allocator *a, shorn_buffer *b, radix_limb *x, size_t n) {
  conversion c;
  if (!conversion_begin(&c, a, DECIMAL_BASE, n)) return false;
  memcpy(c.input, x, n * sizeof *x);
  size_t length = conversion_run(&c);
  const uint32_t *d = c.output;

  /* The top limb's digits, then nine for each limb below it (the value is
   * not zero, so length is not either). */
  size_t digits = 9 * (length - 1) + 1;
  for (uint32_t top = d[length - 1]; top >= 10; top /= 10) digits++;
  bool ok = buffer_reserve(b, digits);
  if (ok) {
    char *q = (char *)b->data + b->length + digits;
    for (size_t k = 0; k < length; k++) {
      uint32_t v = d[k];
      for (int i = 0; i < 9 && (k + 1 < length || v); i++, v /= 10) *--q = (char)('0' + v % 10);
    }
    b->length += digits;
  }
  conversion_end(&c);
  return ok;
}

size_t radix_binary_room(size_t count) { return target_limbs(BINARY_BASE, (count + 8) / 9); }

size_t radix_binary(const shorn_allocator *a, radix_limb *x, const char *digits, size_t count) {
  conversion c;
  size_t limbs = (count + 8) / 9;
  if (!conversion_begin(&c, a, BINARY_BASE, limbs)) return 0;
  /* Nine digits a limb, counted from the last digit. */
  for (size_t k = 0; k < limbs; k++) {
    size_t end = count - 9 * k, start = end > 9 ? end - 9 : 0;
    uint32_t v = 0;
    for (size_t i = start; i < end; i++) v = v * 10 + (uint32_t)(digits[i] - '0');
    c.input[k] = v;
  }
  /* Zero converts to no limbs; the caller reads one zero limb. */
  size_t length = conversion_run(&c);
  if (!length) c.output[length++] = 0;
  memcpy(x, c.output, length * sizeof *x);
  conversion_end(&c);
  return length;
}
#endif
