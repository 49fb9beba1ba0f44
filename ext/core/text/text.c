/* text.c — UTF-8 validation, JavaScript string order, JSON string escapes. */
#include "text.h"

#include "scan.h"
#include "simd.h"

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

size_t wtf8_to_utf16(const char *s, size_t n, uint16_t *out) {
  const uint8_t *p = (const uint8_t *)s, *end = p + n;
  size_t k = 0;
  /* ASCII by blocks, most strings a pattern checks being it: eight bytes
   * widened at once with SSE2, one by one without. */
  for (uint64_t w; end - p >= 8 && !((w = load_le64(p)) & LANES(0x80)); p += 8, k += 8) {
#if defined(__SSE2__)
    __m128i units = _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)w), _mm_setzero_si128());
    _mm_storeu_si128((__m128i *)(void *)(out + k), units);
#else
    for (int i = 0; i < 8; i++) out[k + (size_t)i] = (uint16_t)(w >> (8 * i) & 0xFF);
#endif
  }
  while (p < end) {
    if (*p < 0x80) {
      out[k++] = *p++;
      continue;
    }
    uint32_t c = wtf8_next(&p);
    if (c < 0x10000) {
      out[k++] = (uint16_t)c;
    } else {
      c -= 0x10000;
      out[k++] = (uint16_t)(0xD800 | c >> 10);
      out[k++] = (uint16_t)(0xDC00 | (c & 0x3FF));
    }
  }
  return k;
}

int utf16_compare_at(const char *a, size_t an, const char *b, size_t bn, size_t i) {
  uint8_t x = (uint8_t)a[i], y = (uint8_t)b[i];
  /* UTF-8 byte order is code point order, and that is UTF-16 order except
   * where U+D800..U+FFFF meets a supplementary character (utf16_compare
   * took the bytes below 0xED, continuation bytes among them). */
  if (x >= 0xF0 && y >= 0xF0) return x < y ? -1 : 1;
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

/* What JSON.stringify does with each byte: 0 copy, 1 escape, 2 look at the
 * next byte (0xED starts a surrogate when the next byte is A0..BF). */
static const uint8_t escape_class[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    [0xED] = 2,
};

/* Copy s[0..n), WTF-8, to o up to the first byte that JSON.stringify
 * escapes, or 0xED, where a lone surrogate may start; returns how many
 * bytes were copied.  o must have room for what scan_blocks stores. */
static size_t copy_plain(uint8_t *o, const uint8_t *s, size_t n) {
  size_t i;
  if (scan_blocks(s, n, n, o, SCAN_ESCAPES | SCAN_SURROGATES, &i)) return i < n ? i : n;
  for (; n - i >= 8; i += 8) {
    uint64_t w = load_le64(s + i);
    memcpy(o + i, s + i, 8);
    uint64_t stop = lanes_below(w, 0x20) | lanes_equal(w, '"') | lanes_equal(w, '\\') | lanes_equal(w, 0xED);
    if (stop) return i + first_lane(stop);
  }
  for (; i < n && !escape_class[s[i]]; i++) o[i] = s[i];
  return i;
}

bool buffer_json_string(shorn_buffer *b, const char *text, size_t n) {
  /* Six bytes out per byte in at worst, the quotes, and scan_blocks'
   * blocks. */
  if (n > (SIZE_MAX - 18) / 6 || !buffer_reserve(b, 6 * n + 2 + 16)) return false;
  const uint8_t *s = (const uint8_t *)text;
  uint8_t *o = b->data + b->length;
  *o++ = '"';
  for (size_t i = 0; i < n;) {
    size_t plain = copy_plain(o, s + i, n - i);
    o += plain;
    i += plain;
    if (i >= n) break;
    if (s[i] < 0x80) {
      o = json_escape_ascii(o, s[i++]);
    } else if (i + 2 < n && s[i + 1] >= 0xA0) { /* 0xED, a lone surrogate */
      uint32_t u = 0xD000 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
      memcpy(o, "\\u", 2);
      hex_byte((char *)o + 2, (uint8_t)(u >> 8), false);
      hex_byte((char *)o + 4, (uint8_t)u, false);
      o += 6;
      i += 3;
    } else {
      *o++ = s[i++];
    }
  }
  *o++ = '"';
  b->length = (size_t)(o - b->data);
  return true;
}

/* The text of the character at s[0..n) inside a quote, into piece (room
 * for six bytes); how many bytes of s it took goes to *used.  Returns the
 * piece's length. */
static size_t quote_piece(const uint8_t *s, size_t n, size_t *used, char *piece) {
  uint8_t c = s[0];
  *used = 1;
  if (c < 0x80) {
    if (c >= 0x20 && c != '"' && c != '\\') return (size_t)(*piece = (char)c, 1);
    return (size_t)((char *)json_escape_ascii((uint8_t *)piece, c) - piece);
  }
  size_t len = utf8_sequence(s, n);
  if (len) {
    memcpy(piece, s, len);
    *used = len;
    return len;
  }
  if (c == 0xED && n >= 3 && s[1] >= 0xA0 && s[1] <= 0xBF && (s[2] & 0xC0) == 0x80) {
    uint32_t u = 0xD000 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    memcpy(piece, "\\u", 2);
    hex_byte(piece + 2, (uint8_t)(u >> 8), false);
    hex_byte(piece + 4, (uint8_t)u, false);
    *used = 3;
    return 6;
  }
  memcpy(piece, "\xEF\xBF\xBD", 3); /* U+FFFD */
  return 3;
}

/* The quoted length of s[0..n), quotes included. */
static size_t quoted_length(const uint8_t *s, size_t n) {
  size_t total = 2, used;
  char piece[6];
  for (size_t i = 0; i < n; i += used) total += quote_piece(s + i, n - i, &used, piece);
  return total;
}

const char *text_quote(char *out, size_t cap, const char *s, size_t n) {
  const uint8_t *u = (const uint8_t *)s;
  /* Without the whole, leave room for the ellipsis, the quote and the NUL. */
  size_t room = quoted_length(u, n) < cap ? cap - 2 : cap - 2 - (sizeof TEXT_ELLIPSIS - 1);
  size_t o = 0, used;
  char piece[6];
  out[o++] = '"';
  for (size_t i = 0; i < n; i += used) {
    size_t len = quote_piece(u + i, n - i, &used, piece);
    if (o + len > room) {
      memcpy(out + o, TEXT_ELLIPSIS, sizeof TEXT_ELLIPSIS - 1);
      o += sizeof TEXT_ELLIPSIS - 1;
      break;
    }
    memcpy(out + o, piece, len);
    o += len;
  }
  out[o++] = '"';
  out[o] = 0;
  return out;
}
