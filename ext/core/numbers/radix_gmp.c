/*
 * radix_gmp.c — radix.h by GMP's mpn_get_str and mpn_set_str, built with
 * -DSHORN_WITH_GMP: divide and conquer over GMP's fastest multiplication,
 * fast enough for the layout's largest magnitude (docs/performance.md).
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
 * process (docs/limits.md).  It is bounded because bigint.c and decode.c
 * refuse every size past the layout's limit before calling here.
 */
#ifdef SHORN_WITH_GMP
#include "radix.h"

_Static_assert(GMP_NAIL_BITS == 0, "every bit of a limb is a bit of the value");

/* The digits' values of encode fit in this much room on the C stack for
 * values of a few hundred digits, as bigint.c's limbs do, and GMP itself
 * allocates nothing for values that short: the common short BigInt costs
 * no allocation. */
#define LOCAL_DIGITS 1024

/* At most the digits of a number of `bits` bits: bits log10(2) + 1, where
 * 30103/100000 is just above log10(2). */
static size_t digits_for_bits(uint64_t bits) { return (size_t)(bits * 30103 / 100000) + 1; }

bool radix_decimal(const shorn_allocator *a, shorn_buffer *b, radix_limb *x, size_t n) {
  (void)a;
  /* GMP's digit values go straight into the output, which must have room
   * for the largest number of that many limbs and one digit more. */
  if (!buffer_reserve(b, digits_for_bits((uint64_t)n * GMP_NUMB_BITS) + 1)) return false;
  unsigned char *digits = b->data + b->length;
  size_t count = mpn_get_str(digits, 10, x, (mp_size_t)n);
  /* Leading zeros, perhaps, which the value not being zero leaves short of
   * all the digits. */
  size_t zeros = 0;
  while (!digits[zeros]) zeros++;
  count -= zeros;
  for (size_t i = 0; i < count; i++) digits[i] = (unsigned char)('0' + digits[i + zeros]);
  b->length += count;
  return true;
}

/* count log2(10) bits, where 33220/10000 is just above log2(10), and one
 * limb more, which mpn_set_str may write. */
size_t radix_binary_room(size_t count) { return (size_t)((uint64_t)count * 33220 / 10000 / GMP_NUMB_BITS) + 2; }

size_t radix_binary(const shorn_allocator *a, radix_limb *x, const char *digits, size_t count) {
  /* mpn_set_str reads digit values, not characters. */
  unsigned char local[LOCAL_DIGITS], *values = local;
  if (count > LOCAL_DIGITS && !(values = mem_alloc(a, count))) return 0;
  for (size_t i = 0; i < count; i++) values[i] = (unsigned char)(digits[i] - '0');
  size_t limbs = (size_t)mpn_set_str(x, values, count, 10);
  if (values != local) mem_free(a, values);
  /* "0" gives no limbs at all; the caller reads one zero limb. */
  if (!limbs) x[limbs++] = 0;
  return limbs;
}
#endif
