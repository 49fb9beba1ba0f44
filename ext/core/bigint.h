/* bigint.h — a BigInt's magnitude and its decimal spelling. */
#ifndef SHORN_BIGINT_H
#define SHORN_BIGINT_H

#include "platform.h"
#include "memory.h"

/* Both directions are GMP's (mpn_get_str, mpn_set_str), well below
 * quadratic; the memory as large as the value is the schema's and the
 * output's, GMP's scratch its own (bigint.c says why); short values, the
 * common case, allocate nothing. */

/* A BigInt's decimal spelling, as a JSON string, from its little-endian
 * magnitude of n bytes, n at most SHORN_MAX_BYTES (decode checks it first:
 * it bounds GMP's scratch); a long one's limbs come from `a` (the
 * schema's).  False when out of memory. */
SHORN_PRIVATE bool bigint_json(const shorn_allocator *a, shorn_buffer *b, bool negative, const uint8_t *magnitude,
                               size_t n);
/* Append the wire form (header, magnitude) of a decimal spelling:
 * BIGINT_SPELLING unless it is BigInt's own ('-' only, no leading zero, no
 * -0), BIGINT_TOO_LARGE beyond a 64 MiB magnitude. */
typedef enum bigint_status { BIGINT_OK, BIGINT_SPELLING, BIGINT_TOO_LARGE, BIGINT_NOMEM } bigint_status;
SHORN_PRIVATE bigint_status bigint_encode(const shorn_allocator *a, shorn_buffer *b, const char *decimal,
                                          size_t n);

#endif
