/* text.c — UTF-8 validation, JavaScript string order, JSON string escapes. */
#include "internal.h"

bool utf8_valid(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    /* Most text is ASCII; skip it eight bytes at a time. */
    while (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    uint8_t c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
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
      return false;
    }
    if (n - i < len) return false;
    if (s[i + 1] < lo || s[i + 1] > hi) return false;
    for (size_t k = 2; k < len; k++)
      if ((s[i + k] & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

/* One code point of well-formed WTF-8 at *p, advancing it. */
static uint32_t wtf8_next(const uint8_t **p) {
  const uint8_t *s = *p;
  uint32_t c = s[0];
  if (c < 0x80) {
    *p = s + 1;
    return c;
  }
  if (c < 0xE0) {
    *p = s + 2;
    return (c & 0x1F) << 6 | (s[1] & 0x3F);
  }
  if (c < 0xF0) {
    *p = s + 3;
    return (c & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
  }
  *p = s + 4;
  return (c & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 | (uint32_t)(s[2] & 0x3F) << 6 |
         (s[3] & 0x3F);
}

/* Walks a WTF-8 string as UTF-16 code units. */
typedef struct unit_reader {
  const uint8_t *p, *end;
  uint32_t pending; /* the low surrogate of a pair already half read, or 0 */
} unit_reader;

static int32_t next_unit(unit_reader *r) {
  if (r->pending) {
    uint32_t u = r->pending;
    r->pending = 0;
    return (int32_t)u;
  }
  if (r->p >= r->end) return -1;
  uint32_t c = wtf8_next(&r->p);
  if (c < 0x10000) return (int32_t)c;
  c -= 0x10000;
  r->pending = 0xDC00 | (c & 0x3FF);
  return (int32_t)(0xD800 | (c >> 10));
}

int utf16_compare(const char *a, size_t an, const char *b, size_t bn) {
  size_t n = an < bn ? an : bn, i = 0;
  while (i < n && a[i] == b[i]) i++;
  if (i == n) return an < bn ? -1 : an > bn;
  uint8_t x = (uint8_t)a[i], y = (uint8_t)b[i];
  /* UTF-8 byte order is code point order, and that is UTF-16 order except
   * where U+D800..U+FFFF meets a supplementary character.  Inside a
   * character (a continuation byte) both share a lead byte, hence a range. */
  if ((x & 0xC0) == 0x80 || (x < 0xED && y < 0xED) || (x >= 0xF0 && y >= 0xF0))
    return x < y ? -1 : 1;
  /* Back up to the start of the character that differs: the bytes before i
   * are shared, so it starts at the same place in both. */
  while (i > 0 && ((uint8_t)a[i] & 0xC0) == 0x80) i--;
  unit_reader ra = {(const uint8_t *)a + i, (const uint8_t *)a + an, 0};
  unit_reader rb = {(const uint8_t *)b + i, (const uint8_t *)b + bn, 0};
  for (;;) {
    int32_t u = next_unit(&ra), v = next_unit(&rb);
    if (u != v) return u < v ? -1 : 1;
    if (u < 0) return 0;
  }
}

bool wtf8_has_lone_surrogate(const char *s, size_t n) {
  for (size_t i = 0; i + 1 < n; i++)
    if ((uint8_t)s[i] == 0xED && (uint8_t)s[i + 1] >= 0xA0) return true;
  return false;
}

/* What JSON.stringify does with each byte: 0 copy, 1 escape, 2 look at the
 * next byte (0xED starts a surrogate when the next byte is A0..BF). */
static const uint8_t escape_class[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    [0xED] = 2,
};

static const char hex_digits[] = "0123456789abcdef";

bool buffer_json_string(shorn_buffer *b, const char *str, size_t n) {
  const uint8_t *s = (const uint8_t *)str;
  /* Worst case is six bytes out per byte in, plus the quotes. */
  if (n > (SIZE_MAX - 2) / 6 || !buffer_reserve(b, 6 * n + 2)) return false;
  uint8_t *o = b->data + b->length;
  *o++ = '"';
  size_t i = 0;
  while (i < n) {
    size_t start = i;
    while (i < n && !escape_class[s[i]]) i++;
    memcpy(o, s + start, i - start);
    o += i - start;
    if (i >= n) break;
    uint8_t c = s[i];
    if (c == 0xED) {
      if (i + 2 < n && s[i + 1] >= 0xA0) {
        uint32_t u = 0xD000 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
        memcpy(o, "\\u", 2);
        o[2] = hex_digits[u >> 12];
        o[3] = hex_digits[(u >> 8) & 15];
        o[4] = hex_digits[(u >> 4) & 15];
        o[5] = hex_digits[u & 15];
        o += 6;
        i += 3;
      } else {
        *o++ = c;
        i++;
      }
      continue;
    }
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
        o[3] = hex_digits[c >> 4];
        o[4] = hex_digits[c & 15];
        o += 5;
    }
    i++;
  }
  *o++ = '"';
  b->length = (size_t)(o - b->data);
  return true;
}
