/* radix.h — a magnitude's limbs to decimal digits and back: the back-end
 * that bigint.c calls.  With -DSHORN_WITH_GMP it is GMP's (radix_gmp.c);
 * otherwise the built-in one (radix_builtin.c), which needs nothing but the
 * C library.  bigint.c does the rest, for both: spellings, limits, the
 * wire header, bytes to limbs and back. */
#ifndef SHORN_RADIX_H
#define SHORN_RADIX_H

#include "core/base/platform.h"
#include "core/base/memory.h"

#ifdef SHORN_WITH_GMP
#include <gmp.h>
typedef mp_limb_t radix_limb;
#else
/* 32-bit limbs, so that a product of two and a carry fit in 64 bits. */
typedef uint32_t radix_limb;
#endif

/* Append the decimal digits ('0' to '9') of x[0, n), n > 0 and x[n - 1]
 * not zero, to b.  x is clobbered.  A long value's work space comes from
 * `a`; false when out of memory. */
SHORN_PRIVATE bool radix_decimal(const shorn_allocator *a, shorn_buffer *b, radix_limb *x, size_t n);

/* Limbs that radix_binary may write for `count` digits. */
SHORN_PRIVATE size_t radix_binary_room(size_t count);

/* x = the value of the digits[0, count) ('0' to '9', count > 0), in
 * radix_binary_room(count) limbs; returns the limbs written, of which the
 * high ones may be zero, or 0 when out of memory (`a`'s, as above). */
SHORN_PRIVATE size_t radix_binary(const shorn_allocator *a, radix_limb *x, const char *digits, size_t count);

#endif
