/*
 * base64.c — byte arrays as JSON spells them: canonical standard base64
 * with padding.
 */
#include "base64.h"

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool base64_encode(shorn_buffer *b, const uint8_t *s, size_t n) {
  if (n > SIZE_MAX / 2 || !buffer_reserve(b, (n + 2) / 3 * 4)) return false;
  char *o = (char *)b->data + b->length;
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
    *o++ = base64_alphabet[v >> 18];
    *o++ = base64_alphabet[(v >> 12) & 63];
    *o++ = base64_alphabet[(v >> 6) & 63];
    *o++ = base64_alphabet[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
    *o++ = base64_alphabet[v >> 18];
    *o++ = base64_alphabet[(v >> 12) & 63];
    *o++ = i + 1 < n ? base64_alphabet[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
  b->length = (size_t)((unsigned char *)o - b->data);
  return true;
}

bool base64_json(shorn_buffer *b, const uint8_t *s, size_t n) {
  return buffer_byte(b, '"') && base64_encode(b, s, n) && buffer_byte(b, '"');
}

static int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool base64_decode(const char *s, size_t n, uint8_t *out, size_t *out_length, size_t *bad) {
  uint8_t *o = out;
  for (size_t i = 0; i < n; i += 4) {
    if (n - i < 4) {
      *bad = n;
      return false;
    }
    size_t pad = i + 4 < n ? 0 : s[i + 3] != '=' ? 0 : s[i + 2] != '=' ? 1 : 2;
    uint32_t v = 0;
    for (size_t k = 0; k < 4 - pad; k++) {
      int digit = base64_value(s[i + k]);
      if (digit < 0) {
        *bad = i + k;
        return false;
      }
      v = v << 6 | (uint32_t)digit;
    }
    v <<= 6 * pad;
    /* The bits below the last byte must be zero: one value, one text. */
    if (v & (pad == 2 ? 0xFFFFu : pad == 1 ? 0xFFu : 0)) {
      *bad = i + 3 - pad;
      return false;
    }
    *o++ = (uint8_t)(v >> 16);
    if (pad < 2) *o++ = (uint8_t)(v >> 8);
    if (pad < 1) *o++ = (uint8_t)v;
  }
  *out_length = (size_t)(o - out);
  return true;
}
