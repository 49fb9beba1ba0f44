/* escape.h — the bytes of JSON strings, for the string writers and
 * scanners: UTF-8 sequences, hex digits, the escapes JSON.stringify writes
 * and those JSON text may hold.  Inline, as each is in an inner loop. */
#ifndef SHORN_ESCAPE_H
#define SHORN_ESCAPE_H

#include "core/base/platform.h"

/* The length of the well-formed multi-byte sequence at the start of
 * s[0..n) (s[0] >= 0x80), or 0 when there is none. */
static inline size_t utf8_sequence(const uint8_t *s, size_t n) {
  uint8_t c = s[0];
  /* The second byte's range depends on the lead byte: that is what rules
   * out overlong forms, surrogates and code points above U+10FFFF. */
  uint8_t lo = 0x80, hi = 0xBF;
  size_t len;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (n < len) return 0;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < len; k++)
    if ((s[k] & 0xC0) != 0x80) return 0;
  return len;
}

/* A byte's two hex digits at o; returns the end.  Lowercase is how
 * JSON.stringify's \u escapes, UUIDs and fingerprints spell them; RFC 3986
 * asks uppercase of percent-encoding. */
static inline char *hex_byte(char *o, uint8_t b, bool upper) {
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  o[0] = digits[b >> 4];
  o[1] = digits[b & 15];
  return o + 2;
}

/* The escape of a byte below 0x80 that needs one, as JSON.stringify
 * writes it: a short escape, or \u00xx. */
static inline uint8_t *json_escape_ascii(uint8_t *o, uint8_t c) {
  *o++ = '\\';
  switch (c) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '\b': *o++ = 'b'; break;
    case '\t': *o++ = 't'; break;
    case '\n': *o++ = 'n'; break;
    case '\f': *o++ = 'f'; break;
    case '\r': *o++ = 'r'; break;
    default:
      memcpy(o, "u00", 3);
      hex_byte((char *)o + 3, c, false);
      o += 5;
  }
  return o;
}

/* The escape json_escape_ascii writes for a byte JSON escapes ('"', '\\'
 * or a control byte), as a word to store whole: the escape's bytes from
 * the lowest, its length in the top byte.  The vector writers store the
 * eight bytes and move on by the length, with room past the output for
 * the bytes after the escape, so that an escape costs a load and a store
 * rather than a switch.  `c` must be one of those bytes. */
#define TEXT_ESCAPE_SHORT(c) ((uint64_t)'\\' | (uint64_t)(c) << 8 | (uint64_t)2 << 56)
#define TEXT_ESCAPE_HEX(h, l)                                                                                  \
  ((uint64_t)'\\' | (uint64_t)'u' << 8 | (uint64_t)'0' << 16 | (uint64_t)'0' << 24 | (uint64_t)(h) << 32 | \
   (uint64_t)(l) << 40 | (uint64_t)6 << 56)
static inline uint64_t text_escape_word(uint8_t c) {
  static const uint64_t words[0x5D] = {
      TEXT_ESCAPE_HEX('0', '0'), TEXT_ESCAPE_HEX('0', '1'), TEXT_ESCAPE_HEX('0', '2'), TEXT_ESCAPE_HEX('0', '3'),
      TEXT_ESCAPE_HEX('0', '4'), TEXT_ESCAPE_HEX('0', '5'), TEXT_ESCAPE_HEX('0', '6'), TEXT_ESCAPE_HEX('0', '7'),
      TEXT_ESCAPE_SHORT('b'),    TEXT_ESCAPE_SHORT('t'),    TEXT_ESCAPE_SHORT('n'),    TEXT_ESCAPE_HEX('0', 'b'),
      TEXT_ESCAPE_SHORT('f'),    TEXT_ESCAPE_SHORT('r'),    TEXT_ESCAPE_HEX('0', 'e'), TEXT_ESCAPE_HEX('0', 'f'),
      TEXT_ESCAPE_HEX('1', '0'), TEXT_ESCAPE_HEX('1', '1'), TEXT_ESCAPE_HEX('1', '2'), TEXT_ESCAPE_HEX('1', '3'),
      TEXT_ESCAPE_HEX('1', '4'), TEXT_ESCAPE_HEX('1', '5'), TEXT_ESCAPE_HEX('1', '6'), TEXT_ESCAPE_HEX('1', '7'),
      TEXT_ESCAPE_HEX('1', '8'), TEXT_ESCAPE_HEX('1', '9'), TEXT_ESCAPE_HEX('1', 'a'), TEXT_ESCAPE_HEX('1', 'b'),
      TEXT_ESCAPE_HEX('1', 'c'), TEXT_ESCAPE_HEX('1', 'd'), TEXT_ESCAPE_HEX('1', 'e'), TEXT_ESCAPE_HEX('1', 'f'),
      [0x22] = TEXT_ESCAPE_SHORT('"'),
      [0x5C] = TEXT_ESCAPE_SHORT('\\'),
  };
  return words[c];
}

/* The value of a hex digit of a byte or a UTF-16 unit, or -1; 'A' to 'F'
 * only when `either_case`, as hex_byte writes them only when `upper`. */
static inline int hex_digit(uint32_t c, bool either_case) {
  if (c - '0' < 10) return (int)(c - '0');
  if (either_case) c |= 0x20;
  return c - 'a' < 6 ? (int)(c - 'a' + 10) : -1;
}

/* The value of four hex digits, or -1 when they are not all hex digits. */
static inline int json_hex4(const uint8_t *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hex_digit(p[i], true);
    if (h < 0) return -1;
    v = v << 4 | h;
  }
  return v;
}

/* The length of the escape at s[0..n), whose first byte is a backslash: 2,
 * or 6 for \uXXXX, or 0 when it is none that JSON allows. */
static inline size_t json_escape_length(const uint8_t *s, size_t n) {
  /* By the byte after the backslash, from a table: a load where a switch
   * costs a jump, in the parser's loop over escape-dense text. */
  static const uint8_t lengths[256] = {
      ['"'] = 2, ['\\'] = 2, ['/'] = 2, ['b'] = 2, ['f'] = 2, ['n'] = 2, ['r'] = 2, ['t'] = 2, ['u'] = 6,
  };
  if (n < 2) return 0;
  size_t length = lengths[s[1]];
  return length != 6 || (n >= 6 && json_hex4(s + 2) >= 0) ? length : 0;
}

#endif
