/* bigint.h — a BigInt's magnitude and its decimal spelling. */
#ifndef SHORN_BIGINT_H
#define SHORN_BIGINT_H

#include "core/base/platform.h"
#include "core/base/memory.h"

/* Both directions are well below quadratic: GMP's with -DSHORN_WITH_GMP,
 * the built-in conversion otherwise (radix.h); the memory as large as the
 * value is the schema's and the output's; short values, the common case,
 * allocate nothing. */

/* The largest magnitude, in bytes, that this build converts.  With GMP it
 * is the layout's own.  The built-in conversion, some ten times slower on
 * large values, has a smaller one, so that no conversion takes more than
 * about two seconds (docs/limits.md); -DSHORN_BIGINT_MAX_BYTES=N changes
 * it, up to the layout's. */
#ifndef SHORN_BIGINT_MAX_BYTES
#define SHORN_BIGINT_MAX_BYTES 1048576
#endif
#ifdef SHORN_WITH_GMP
#define BIGINT_MAX_BYTES SHORN_MAX_BYTES
#define BIGINT_LIMIT_NOTE ""
#else
#define BIGINT_MAX_BYTES SHORN_BIGINT_MAX_BYTES
#define BIGINT_LIMIT_NOTE_(max) \
  ", this build's SHORN_BIGINT_MAX_BYTES (a build with GMP, -DSHORN_WITH_GMP, converts up to " #max " bytes)"
#define BIGINT_LIMIT_NOTE_EXPANDED(max) BIGINT_LIMIT_NOTE_(max)
/* What a refusal past the limit adds: the limit's name and what lifts it. */
#define BIGINT_LIMIT_NOTE BIGINT_LIMIT_NOTE_EXPANDED(SHORN_MAX_BYTES)
#endif
_Static_assert(BIGINT_MAX_BYTES > 0 && BIGINT_MAX_BYTES <= SHORN_MAX_BYTES,
               "a build's BigInt limit is within the layout's");

/* BIGINT_TOO_LARGE: a magnitude past BIGINT_MAX_BYTES; BIGINT_SPELLING:
 * not BigInt's own decimal spelling. */
typedef enum bigint_status { BIGINT_OK, BIGINT_SPELLING, BIGINT_TOO_LARGE, BIGINT_NOMEM } bigint_status;

/* Append a BigInt's decimal spelling, as a JSON string, from its
 * little-endian magnitude of n bytes; a long one's work space comes from
 * `a` (the schema's).  BIGINT_TOO_LARGE when n, less its high zero bytes,
 * is past BIGINT_MAX_BYTES. */
SHORN_PRIVATE bigint_status bigint_json(const shorn_allocator *a, shorn_buffer *b, bool negative,
                                        const uint8_t *magnitude, size_t n);
/* Append the wire form (header, magnitude) of a decimal spelling:
 * BIGINT_SPELLING unless it is BigInt's own ('-' only, no leading zero, no
 * -0), BIGINT_TOO_LARGE past BIGINT_MAX_BYTES. */
SHORN_PRIVATE bigint_status bigint_encode(const shorn_allocator *a, shorn_buffer *b, const char *decimal,
                                          size_t n);

#endif
