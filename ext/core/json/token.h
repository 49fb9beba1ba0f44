/* token.h — the JSON parser's string and number tokens, inline for the
 * readers whose inner loop they are: json.c's parser and the encoder's one
 * pass. */
#ifndef SHORN_TOKEN_H
#define SHORN_TOKEN_H

#include <float.h>

#include "core/base/platform.h"
#include "core/numbers/number.h"
#include "core/text/lanes.h"
#include "core/text/scan.h"

/* A string token as the parser reads it: its body between the quotes,
 * escapes still written; or why and where it is not one. */
typedef struct json_string_token {
  const uint8_t *body;
  uint32_t length;
  bool escaped;
  const char *why;
  const uint8_t *at;
} json_string_token;

/* A string token at p, its opening quote: the position after it, or NULL
 * with t->why and t->at set, as the parser reads it. */
SHORN_PRIVATE const uint8_t *json_any_string_token(const uint8_t *p, const uint8_t *end, json_string_token *t);

/* json_read_string below reads a string token as json_any_string_token
 * does, but a string that ends within the sixteen bytes after its quote
 * with none but plain ASCII before (most keys and short values) is found
 * inline from one block, without that call and its scan's set-up.  Near
 * the text's end the block is its last sixteen bytes, its lanes shifted
 * down to the string's, so a record's last key and value take the inline
 * path too. */
#if defined(__SSE2__)
/* The escape stops of the sixteen bytes at `at`, and in *high those above
 * ASCII. */
static ALWAYS_INLINE unsigned json_block_stops(const uint8_t *at, unsigned *high) {
  __m128i block = _mm_loadu_si128((const __m128i *)at);
  *high = (unsigned)_mm_movemask_epi8(block);
  return scan_stops(block, SCAN_ESCAPES);
}
#endif

static ALWAYS_INLINE const uint8_t *json_read_string(const uint8_t *start, const uint8_t *p, const uint8_t *end,
                                                     json_string_token *t) {
#if defined(__SSE2__)
  const uint8_t *body = p + 1;
  unsigned stops = 0, high = 0;
  if (end - body >= 16) {
    stops = json_block_stops(body, &high);
  } else if (end - start >= 16) {
    /* Apart from the usual block, so that strings with sixteen bytes
     * after them do not pay for a shift by a variable. */
    unsigned lane = (unsigned)(body - (end - 16)); /* 16 at most: no lanes left */
    stops = json_block_stops(end - 16, &high) >> lane;
    high >>= lane;
  }
  if (!stops) {
    /* Sixteen plain bytes: a host name or an address may end in the next. */
    if (high || end - body < 32) return json_any_string_token(p, end, t);
    stops = json_block_stops(body + 16, &high) << 16;
    high <<= 16;
    if (!stops) return json_any_string_token(p, end, t);
  }
  unsigned n = (unsigned)__builtin_ctz(stops);
  if (body[n] == '"' && !(high & ((1u << n) - 1))) {
    t->body = body;
    t->length = n;
    t->escaped = false;
    return body + n + 1;
  }
#else
  (void)start;
#endif
  return json_any_string_token(p, end, t);
}

/* A digit's lane of t, the text less '0' in every lane, holds 0 to 9; any
 * other byte's gets its top bit set here, as may lanes above it that its
 * borrow or carry reaches, so the lowest flag is exact. */
static inline uint64_t digit_stops(uint64_t t) { return (t | (t + LANES(0x76))) & LANES(0x80); }

/* The eight digits of t, one a lane (0 to 9, the first in the lowest), as
 * an integer: the well-known multiply-and-shift that pairs digits, then
 * quads, then the two halves. */
static inline uint64_t digit_word_value(uint64_t t) {
  t = (t * 2561) >> 8 & 0x00FF00FF00FF00FFull;
  t = (t * 6553601) >> 16 & 0x0000FFFF0000FFFFull;
  return (t * 42949672960001ull) >> 32;
}

/* The number at s whatever its form, or the reason the parser refuses it:
 * what json_number_token's fast path leaves, chiefly exponents, long digit
 * runs, numbers that end the text and texts shorter than a word. */
SHORN_PRIVATE const uint8_t *json_number_token_slow(const uint8_t *s, const uint8_t *e, double *number,
                                                    const char **why);

/* The number s[0..p) whose digits, read already, are man * 10^exponent.
 * Out of line, so that the fast path ends every way in a tail call and
 * keeps no value across a call (fewer instructions a number). */
SHORN_PRIVATE const uint8_t *json_decimal_token(const uint8_t *s, const uint8_t *p, bool negative, uint64_t man,
                                                int64_t exponent, double *number);

/* The bytes from p to e, fewer than eight and at least one, in the low
 * lanes of the word that ends at e (the caller has eight bytes before e),
 * zeros above them. */
static inline uint64_t word_before_end(const uint8_t *p, const uint8_t *e) {
  return load_le64(e - 8) >> (8 * (8 - (e - p)));
}

/* The run of 1 to 15 digits at p into *value, and its length; 0 when there
 * is no digit, more than 15, or the run reaches e (json_number_token_slow then
 * reads it, minding e at each byte), so that the byte after a run can be
 * read.  Each word's digits, all eight or the few before the run ends
 * moved to the top lanes behind zeros, become one integer at once: a loop
 * per digit was the busiest line of parsing a record of numbers, and its
 * exit mispredicts with the length. */
static ALWAYS_INLINE size_t short_digit_run(const uint8_t *p, const uint8_t *e, uint64_t *value) {
  ptrdiff_t left = e - p;
  uint64_t t, stops;
  if (left >= 8) {
    t = load_le64(p) - LANES('0');
    stops = digit_stops(t);
  } else {
    if (left <= 0) return 0;
    t = word_before_end(p, e) - LANES('0');
    stops = digit_stops(t);
    if (first_lane(stops) == (size_t)left) return 0;
  }
  if (stops) {
    size_t n = first_lane(stops);
    if (n) *value = digit_word_value(t << (64 - 8 * n));
    return n;
  }
  uint64_t low;
  if (left >= 16) {
    low = load_le64(p + 8) - LANES('0');
    stops = digit_stops(low);
  } else {
    if (left == 8) return 0;
    low = word_before_end(p + 8, e) - LANES('0');
    stops = digit_stops(low);
    if (first_lane(stops) == (size_t)left - 8) return 0;
  }
  if (!stops) return 0;
  size_t n = first_lane(stops);
  uint64_t v = digit_word_value(t);
  if (n) v = v * POW10_U64[n] + digit_word_value(low << (64 - 8 * n));
  *value = v;
  return 8 + n;
}

/* A number token at s, as the parser reads it: the position after it, or
 * NULL with the reason.  Inline for the parser and the encoder's one pass,
 * whose inner loops it is.  Most numbers in JSON have a few digits, a
 * fraction perhaps, and no exponent, and those are read here: an integer
 * of up to 15 digits is exact in a double, and a decimal whose digits a
 * double holds exactly divides by a power of ten that it holds exactly
 * too, one correctly rounded division (Clinger's fast path); other
 * decimals of up to 19 digits, exact in 64 bits, go to
 * number_from_decimal without being read again.  Anything else, refusals
 * included, is read again by json_number_token_slow.  json_integer_token
 * says too whether the number is written as an integer of up to 15
 * digits (*integral), and which (*integer, "-0" as 0), so that a reader
 * writing integers needs not take it back from the double. */
static ALWAYS_INLINE const uint8_t *json_integer_token(const uint8_t *s, const uint8_t *e, double *number,
                                                       int64_t *integer, bool *integral, const char **why) {
  *integral = false;
  if (e - s >= 8) {
    bool negative = *s == '-';
    const uint8_t *p = s + negative;
    uint64_t digits, fraction;
    size_t n = short_digit_run(p, e, &digits), m;
    /* The run ended before e, so p[n] can be read, and p[n + 1 + m] after
     * a fraction's run. */
    if (n && (*p != '0' || n == 1)) {
      p += n;
      if (*p != '.' && (*p | 0x20) != 'e') {
        double x = (double)(int64_t)digits; /* below 10^15: signed converts in fewer steps */
        *number = negative ? -x : x; /* "-0" keeps its sign */
        *integer = negative ? -(int64_t)digits : (int64_t)digits;
        *integral = true;
        return p;
      }
      if (*p == '.' && (m = short_digit_run(p + 1, e, &fraction)) && n + m <= 19 &&
          (p[1 + m] | 0x20) != 'e') {
        p += 1 + m;
        digits = digits * POW10_U64[m] + fraction;
#if FLT_EVAL_METHOD == 0
        if (digits <= UINT64_C(1) << 53) {
          double x = (double)(int64_t)digits / EXACT_POW10[m];
          *number = negative ? -x : x;
          return p;
        }
#endif
        return json_decimal_token(s, p, negative, digits, -(int64_t)m, number);
      }
    }
  }
  return json_number_token_slow(s, e, number, why);
}

static ALWAYS_INLINE const uint8_t *json_number_token(const uint8_t *s, const uint8_t *e, double *number,
                                                      const char **why) {
  int64_t integer;
  bool integral;
  return json_integer_token(s, e, number, &integer, &integral, why);
}

#endif
