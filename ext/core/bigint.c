/*
 * bigint.c — a BigInt's magnitude to and from its decimal spelling, by GMP.
 *
 * JSON can spell a BigInt only in decimal, and the byte layout lets a
 * magnitude reach 64 MiB (161,614,249 digits), so the conversion must stay
 * well below quadratic or a hostile payload holds a query for an hour:
 * GMP's mpn_get_str and mpn_set_str divide and conquer over its fastest
 * multiplication (docs/performance.md has the times).
 *
 * Memory.  GMP's mpz functions allocate through what
 * mp_set_memory_functions sets for the whole process, which a library must
 * not set (no global state), so only mpn functions are called here, on
 * buffers of ours: the limbs and the digits, as large as the value, come
 * from the schema's allocator or are the output buffer itself, which
 * SQLite's accounting sees.  The trade-off: the scratch that GMP allocates
 * inside those calls for a long value, a small multiple of the magnitude,
 * comes from GMP's own allocator (the C library's unless the application
 * set another), which SQLite does not count and whose failure aborts the
 * process (docs/limits.md).  It is bounded because every size reaching GMP
 * is within the layout's limit:
 * decode refuses a header wider than 64 MiB before calling bigint_json, and
 * bigint_encode refuses more than 161,614,249 digits before converting.
 */
#include <gmp.h>

#include "bigint.h"

_Static_assert(GMP_NAIL_BITS == 0, "every bit of a limb is a bit of the value");
#define LIMB_BYTES sizeof(mp_limb_t)

/* Decimal digits that can stand for a 64 MiB magnitude: 2^(8 * 2^26) has
 * 161,614,249 of them. */
#define BIGINT_DIGITS_MAX 161614249u

/* Limbs, and in encode the digits too, of values of a few hundred digits
 * fit in this much room on the C stack; GMP itself allocates nothing for
 * values that short, so the common short BigInt costs no allocation. */
#define BIGINT_LOCAL_LIMBS 128

/* At most the digits of a number of `bits` bits: bits log10(2) + 1, where
 * 30103/100000 is just above log10(2). */
static size_t digits_for_bits(uint64_t bits) { return (size_t)(bits * 30103 / 100000) + 1; }

/* At most the limbs of a number of `count` digits: count log2(10) bits,
 * where 33220/10000 is just above log2(10). */
static size_t limbs_for_digits(uint64_t count) {
  return (size_t)(count * 33220 / 10000 / GMP_NUMB_BITS) + 1;
}

/* Little-endian bytes to limbs; the last limb's missing high bytes are
 * zero. */
static void limbs_from_bytes(mp_limb_t *x, const uint8_t *m, size_t n) {
  for (size_t k = 0; k * LIMB_BYTES < n; k++) {
    size_t start = k * LIMB_BYTES, end = n - start < LIMB_BYTES ? n : start + LIMB_BYTES;
    mp_limb_t v = 0;
    for (size_t i = end; i-- > start;) v = v << 8 | m[i];
    x[k] = v;
  }
}

static void bytes_from_limbs(uint8_t *o, const mp_limb_t *x, size_t n) {
  for (size_t i = 0; i < n; i++) o[i] = (uint8_t)(x[i / LIMB_BYTES] >> (8 * (i % LIMB_BYTES)));
}

bool bigint_json(const shorn_allocator *a, shorn_buffer *b, bool negative, const uint8_t *magnitude,
                 size_t n) {
  /* mpn_get_str wants a most significant limb that is not zero. */
  while (n && !magnitude[n - 1]) n--;
  if (!n) return buffer_append(b, "\"0\"", 3);
  size_t limbs = (n + LIMB_BYTES - 1) / LIMB_BYTES;
  mp_limb_t local[BIGINT_LOCAL_LIMBS], *x = local;
  if (limbs > BIGINT_LOCAL_LIMBS && !(x = mem_alloc(a, limbs * LIMB_BYTES))) return false;
  limbs_from_bytes(x, magnitude, n);
  /* GMP's digits go straight into the output, which must have room for the
   * largest number of that many limbs and one digit more. */
  bool ok = buffer_reserve(b, digits_for_bits((uint64_t)limbs * GMP_NUMB_BITS) + 4);
  if (ok) {
    unsigned char *o = b->data + b->length, *digits = o + 1 + negative;
    size_t count = mpn_get_str(digits, 10, x, (mp_size_t)limbs);
    /* Digit values, perhaps after leading zeros, which the value not being
     * zero leaves short of all of them. */
    size_t zeros = 0;
    while (!digits[zeros]) zeros++;
    count -= zeros;
    for (size_t i = 0; i < count; i++) digits[i] = (unsigned char)('0' + digits[i + zeros]);
    o[0] = '"';
    if (negative) o[1] = '-';
    digits[count] = '"';
    b->length += count + 2 + negative;
  }
  if (x != local) mem_free(a, x);
  return ok;
}

bigint_status bigint_encode(const shorn_allocator *a, shorn_buffer *b, const char *s, size_t n) {
  /* BigInt's own spelling only: no sign but '-', no leading zero, no -0. */
  bool negative = n && s[0] == '-';
  const char *digits = s + negative;
  size_t count = n - negative;
  if (!count || (digits[0] == '0' && (count > 1 || negative))) return BIGINT_SPELLING;
  for (size_t i = 0; i < count; i++)
    if (digits[i] < '0' || digits[i] > '9') return BIGINT_SPELLING;
  if (count > BIGINT_DIGITS_MAX) return BIGINT_TOO_LARGE;

  /* mpn_set_str reads digit values, not characters, and writes limbs with
   * room for the largest number of that many digits and one limb more:
   * both in one block, the limbs first for their alignment. */
  size_t limbs = limbs_for_digits(count) + 1, total = limbs + (count + LIMB_BYTES - 1) / LIMB_BYTES;
  mp_limb_t local[BIGINT_LOCAL_LIMBS], *x = local;
  if (total > BIGINT_LOCAL_LIMBS && !(x = mem_alloc(a, total * LIMB_BYTES))) return BIGINT_NOMEM;
  unsigned char *values = (unsigned char *)(x + limbs);
  for (size_t i = 0; i < count; i++) values[i] = (unsigned char)(digits[i] - '0');
  size_t got = (size_t)mpn_set_str(x, values, count, 10);

  /* Zero ("0", its one digit zero) is the only value with zero high limbs. */
  size_t bytes = got * LIMB_BYTES;
  while (bytes && !(uint8_t)(x[(bytes - 1) / LIMB_BYTES] >> (8 * ((bytes - 1) % LIMB_BYTES)))) bytes--;
  bigint_status rc = BIGINT_TOO_LARGE;
  if (bytes <= SHORN_MAX_BYTES) {
    rc = BIGINT_NOMEM;
    if (buffer_uvarint(b, (uint64_t)bytes * 2 + (negative && bytes)) && buffer_reserve(b, bytes)) {
      bytes_from_limbs(b->data + b->length, x, bytes);
      b->length += bytes;
      rc = BIGINT_OK;
    }
  }
  if (x != local) mem_free(a, x);
  return rc;
}
