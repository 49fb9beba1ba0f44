/* base64.h — byte arrays in canonical standard base64. */
#ifndef SHORN_BASE64_H
#define SHORN_BASE64_H

#include "core/base/platform.h"
#include "core/base/memory.h"

SHORN_PRIVATE bool base64_encode(shorn_buffer *b, const uint8_t *s, size_t n);
SHORN_PRIVATE bool base64_json(shorn_buffer *b, const uint8_t *s, size_t n);
/* Decode canonical standard base64 (padding required, zero pad bits) into
 * `out`, which has room for n / 4 * 3 bytes.  False when not canonical, with
 * `*bad` the offset of the first character that breaks the rule. */
SHORN_PRIVATE bool base64_decode(const char *s, size_t n, uint8_t *out, size_t *out_length, size_t *bad);

#endif
