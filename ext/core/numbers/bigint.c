/*
 * bigint.c — a BigInt's magnitude to and from its decimal spelling.
 *
 * JSON can spell a BigInt only in decimal, and the byte layout lets a
 * magnitude reach 64 MiB (161,614,249 digits), so the conversion must stay
 * well below quadratic or a hostile payload holds a query for an hour.  The
 * conversion itself is radix.h's back-end, GMP's or the built-in one; what
 * is here is the same for both: the spelling, the build's limit, checked
 * before any conversion (BIGINT_MAX_BYTES, which bounds its time and its
 * memory), the wire header, and the bytes to limbs and back.
 */
#include "bigint.h"
#include "radix.h"
#include "core/text/text.h"

#define LIMB_BYTES sizeof(radix_limb)

/* Limbs of values of a few hundred digits fit in this much room on the C
 * stack, and neither back-end allocates for values that short, so the
 * common short BigInt costs no allocation. */
#define STACK_LIMBS (1024 / LIMB_BYTES)

/* At most the digits of a number of `bits` bits, bits <= 2^29:
 * bits log10(2) + 1, where 30102999567 / 10^11 is just above log10(2) and
 * close enough for 2^(2^29), the layout's largest, to have 161,614,249. */
#define DIGITS_FOR_BITS(bits) ((uint64_t)(bits) * 30102999567u / 100000000000u + 1)
#define BIGINT_DIGITS_MAX DIGITS_FOR_BITS((uint64_t)BIGINT_MAX_BYTES * 8)

/* Little-endian bytes to limbs; the last limb's missing high bytes are
 * zero. */
static void limbs_from_bytes(radix_limb *x, const uint8_t *m, size_t n) {
  for (size_t k = 0; k * LIMB_BYTES < n; k++) {
    size_t start = k * LIMB_BYTES, end = n - start < LIMB_BYTES ? n : start + LIMB_BYTES;
    radix_limb v = 0;
    for (size_t i = end; i-- > start;) v = (radix_limb)(v << 8 | m[i]);
    x[k] = v;
  }
}

static uint8_t limb_byte(const radix_limb *x, size_t i) {
  return (uint8_t)(x[i / LIMB_BYTES] >> (8 * (i % LIMB_BYTES)));
}

bigint_status bigint_json(const shorn_allocator *a, shorn_buffer *b, bool negative, const uint8_t *magnitude,
                          size_t n) {
  /* The back-ends want a most significant limb that is not zero. */
  while (n && !magnitude[n - 1]) n--;
  if (!n) return buffer_append(b, "\"0\"", 3) ? BIGINT_OK : BIGINT_NOMEM;
  if (n > BIGINT_MAX_BYTES) return BIGINT_TOO_LARGE;
  size_t limbs = (n + LIMB_BYTES - 1) / LIMB_BYTES;
  radix_limb local[STACK_LIMBS], *x = local;
  if (limbs > STACK_LIMBS && !(x = mem_alloc(a, limbs * LIMB_BYTES))) return BIGINT_NOMEM;
  limbs_from_bytes(x, magnitude, n);
  bool ok = buffer_append(b, "\"-", 1 + negative) && radix_decimal(a, b, x, limbs) && buffer_byte(b, '"');
  if (x != local) mem_free(a, x);
  return ok ? BIGINT_OK : BIGINT_NOMEM;
}

bigint_status bigint_encode(const shorn_allocator *a, shorn_buffer *b, const char *s, size_t n) {
  /* BigInt's own spelling only: no sign but '-', no leading zero, no -0. */
  bool negative = n && s[0] == '-';
  const char *digits = s + negative;
  size_t count = n - negative;
  if (!count || (digits[0] == '0' && (count > 1 || negative))) return BIGINT_SPELLING;
  for (size_t i = 0; i < count; i++)
    if (!is_digit(digits[i])) return BIGINT_SPELLING;
  if (count > BIGINT_DIGITS_MAX) return BIGINT_TOO_LARGE;

  size_t room = radix_binary_room(count);
  radix_limb local[STACK_LIMBS], *x = local;
  if (room > STACK_LIMBS && !(x = mem_alloc(a, room * LIMB_BYTES))) return BIGINT_NOMEM;
  size_t limbs = radix_binary(a, x, digits, count);
  bigint_status rc = BIGINT_NOMEM;
  if (limbs) {
    /* Zero ("0", its one digit zero) is the only value with no bytes. */
    size_t bytes = limbs * LIMB_BYTES;
    while (bytes && !limb_byte(x, bytes - 1)) bytes--;
    rc = BIGINT_TOO_LARGE;
    if (bytes <= BIGINT_MAX_BYTES) {
      rc = BIGINT_NOMEM;
      if (buffer_uvarint(b, (uint64_t)bytes * 2 + (negative && bytes)) && buffer_reserve(b, bytes)) {
        for (size_t i = 0; i < bytes; i++) b->data[b->length + i] = limb_byte(x, i);
        b->length += bytes;
        rc = BIGINT_OK;
      }
    }
  }
  if (x != local) mem_free(a, x);
  return rc;
}
