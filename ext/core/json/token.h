/* token.h — the JSON parser's string token, inline for the readers whose
 * inner loop it is: json.c's parser and the encoder's one pass. */
#ifndef SHORN_TOKEN_H
#define SHORN_TOKEN_H

#include "core/base/platform.h"
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

#endif
