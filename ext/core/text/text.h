/* text.h — UTF-8 validation, hex digits, JavaScript's UTF-16 string order,
 * and JSON string escapes as JSON.stringify writes them. */
#ifndef SHORN_TEXT_H
#define SHORN_TEXT_H

#include "escape.h"
#include "lanes.h"
#include "core/base/memory.h"
#include "core/base/platform.h"
#include "simd.h"

/* An ASCII digit, '0' to '9', or letter, of a byte or a UTF-16 unit; a
 * negative char is none. */
static inline bool is_digit(uint32_t c) { return c - '0' < 10; }
static inline bool is_letter(uint32_t c) { return (c | 0x20) - 'a' < 26; }

/* Strict UTF-8 (the WHATWG fatal decoder): no overlong forms, no surrogates,
 * nothing above U+10FFFF, no truncated or stray sequences.  s[0..readable)
 * may be read. */
static inline bool utf8_valid(const uint8_t *s, size_t n, size_t readable) {
  /* Most strings are a few ASCII bytes: one or two loads answer for up to
   * sixteen, without the call and the block scanner's setting up.  From
   * eight bytes the two loads overlap inside the string, so a string at a
   * small payload's end (person's name) needs nothing past it. */
  uint64_t high;
  if (n >= 8 && n <= 16)
    high = load_le64(s) | load_le64(s + n - 8);
  else if (n < 8 && readable >= 8)
    high = load_le64(s) & ((1ull << (8 * n)) - 1);
  else
    return simd()->utf8_valid(s, n, readable);
  return !(high & LANES(0x80)) || simd()->utf8_valid(s, n, readable);
}

/* n bytes as 2n lowercase hex digits (no NUL), as fingerprints are spelled. */
static inline void hex_bytes(char *out, const uint8_t *bytes, size_t n) {
  for (size_t i = 0; i < n; i++) out = hex_byte(out, bytes[i], false);
}

/* The code points of a WTF-8 string, a lone surrogate counting as one: the
 * length JSON Schema and Zod give a string. */
static inline uint64_t wtf8_code_points(const char *s, size_t n) {
  uint64_t count = 0;
  for (size_t i = 0; i < n; i++) count += ((uint8_t)s[i] & 0xC0) != 0x80;
  return count;
}

/* The UTF-16 code units of a WTF-8 string s[0..n), as a JavaScript string
 * holds them, into out (room for n units: never more units than bytes).
 * Returns how many it wrote. */
SHORN_PRIVATE size_t wtf8_to_utf16(const char *s, size_t n, uint16_t *out);

/* utf16_compare where a[i] and b[i], the first bytes that differ, are not
 * both below 0xED. */
SHORN_PRIVATE int utf16_compare_at(const char *a, size_t an, const char *b, size_t bn, size_t i);

/* utf16_compare once a[i] and b[i] are known to differ: below 0xED the
 * bytes decide. */
static inline int utf16_differ(const char *a, size_t an, const char *b, size_t bn, size_t i) {
  uint8_t x = (uint8_t)a[i], y = (uint8_t)b[i];
  if (x < 0xED && y < 0xED) return x < y ? -1 : 1;
  return utf16_compare_at(a, an, b, bn, i);
}

/* Compare two WTF-8 strings as JavaScript compares strings: by UTF-16 code
 * units, a proper prefix first.  Returns <0, 0 or >0.  Inline, and eight
 * bytes compared at a time, the first that differs found in the word's
 * xor: keys are compared to the one before on every record and map
 * written or read.  From eight bytes the last word overlaps the one
 * before, so no byte loop runs. */
static ALWAYS_INLINE int utf16_compare(const char *a, size_t an, const char *b, size_t bn) {
  size_t n = an < bn ? an : bn, i = 0;
  const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
  if (n >= 8) {
    for (; n - i > 8; i += 8) {
      uint64_t diff = load_le64(x + i) ^ load_le64(y + i);
      if (diff) return utf16_differ(a, an, b, bn, i + first_lane(diff));
    }
    uint64_t diff = load_le64(x + n - 8) ^ load_le64(y + n - 8);
    if (diff) return utf16_differ(a, an, b, bn, n - 8 + first_lane(diff));
  } else {
    while (i < n && a[i] == b[i]) i++;
    if (i < n) return utf16_differ(a, an, b, bn, i);
  }
  return an < bn ? -1 : an > bn;
}

/* Append `s` as a JSON string literal, escaped exactly as JSON.stringify
 * escapes it (short escapes, lowercase \u00xx, lone surrogates as \udxxx,
 * everything else literal). */
SHORN_PRIVATE bool buffer_json_string(shorn_buffer *b, const char *s, size_t n);

/* Whether s[0..n), four to sixteen bytes, is plain ASCII with nothing to
 * escape (most names, keys and tags), then copied to o: found from two
 * words that overlap and stay inside the string, so it needs no readable
 * bytes around it, as a string that ends a small payload has none, and
 * skips the general path's set-up, which dominates small records. */
static ALWAYS_INLINE bool short_plain(uint8_t *o, const uint8_t *s, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t head = load_le64(s), tail = load_le64(s + n - 8);
    if (plain_stops(head) | plain_stops(tail)) return false;
    store_le64(o, head);
    store_le64(o + n - 8, tail);
    return true;
  }
  if (n >= 4 && n < 8) {
    uint32_t head = load_le32(s), tail = load_le32(s + n - 4);
    if (plain_stops(head | (uint64_t)tail << 32)) return false;
    store_le32(o, head);
    store_le32(o + n - 4, tail);
    return true;
  }
  return false;
}

/* buffer_json_string of bytes that must be strict UTF-8 (a payload's
 * string), checked as they are copied, which saves utf8_valid's pass over
 * them: 1 when written, 0 when out of memory, -1 when they are not UTF-8
 * (nothing written).  s[0..readable) may be read (readable >= n): the
 * rest of the payload, so that the scan runs in whole blocks.  Inline in
 * the decoder's string writer, which saves a call a string. */
static inline int buffer_json_utf8(shorn_buffer *b, const uint8_t *s, size_t n, size_t readable) {
  if (n > (SIZE_MAX - 2 - SIMD_OUTPUT_SLACK) / 6 || !buffer_reserve(b, 6 * n + 2 + SIMD_OUTPUT_SLACK)) return 0;
  uint8_t *o = b->data + b->length;
  *o++ = '"';
  if (short_plain(o, s, n))
    o += n;
  else if (!(o = simd()->escape_utf8(o, s, n, readable)))
    return -1;
  *o++ = '"';
  b->length = (size_t)(o - b->data);
  return 1;
}

/* The ellipsis that marks where a message's text was cut short. */
#define TEXT_ELLIPSIS "\xE2\x80\xA6"

/* Where to cut a longer text s at or before byte n so that no UTF-8
 * sequence is split: s[n], the first byte dropped, must be readable. */
static inline size_t utf8_cut(const char *s, size_t n) {
  while (n > 0 && ((uint8_t)s[n] & 0xC0) == 0x80) n--;
  return n;
}

/* Write s[0..n) (WTF-8) to out[0..cap) as a JSON string for a message,
 * escaped as JSON.stringify escapes it, and NUL-terminated.  When it does
 * not fit it is cut after a whole character or escape and "…" marks the
 * cut inside the quotes; a byte that is not WTF-8 is written as U+FFFD.
 * The result is strict UTF-8 whatever s holds.  cap >= 8; returns out. */
SHORN_PRIVATE const char *text_quote(char *out, size_t cap, const char *s, size_t n);

#endif
