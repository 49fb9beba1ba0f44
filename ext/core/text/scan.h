/*
 * scan.h — sixteen bytes at a time with SSE2: the stops of a JSON string,
 * for text.c's WTF-8 writer and json.c's short strings, and the UTF-8
 * check by comparisons that simd.c's SSE2 path runs.  Inline, since each
 * is the inner loop of its caller.
 */
#ifndef SHORN_SCAN_H
#define SHORN_SCAN_H

#include "lanes.h"
#include "core/base/platform.h"

/* Whether s[0..n) ends inside a sequence: a lead byte among its last three
 * that wants more bytes than follow it. */
static inline bool utf8_ends_open(const uint8_t *s, size_t n) {
  return (n >= 1 && s[n - 1] >= 0xC0) || (n >= 2 && s[n - 2] >= 0xE0) || (n >= 3 && s[n - 3] >= 0xF0);
}

#if defined(__SSE2__)
#include <emmintrin.h>

#if defined(__GNUC__)
#define SHORN_UNROLL_PRAGMA(x) _Pragma(#x)
#define SHORN_UNROLL(n) SHORN_UNROLL_PRAGMA(GCC unroll n)
#else
#define SHORN_UNROLL(n)
#endif

/* Lanes of v at or above c, as unsigned bytes. */
static inline __m128i lanes_at_least(__m128i v, uint8_t c) {
  return _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8((char)c)), v);
}

/* UTF-8 checked sixteen bytes at once: the lanes of `block` that break
 * utf8_sequence's rules, back1..back3 holding the bytes one, two and three
 * before each lane (zero before a string's start), since a sequence may
 * start in the three bytes before the block.  Text that mixes lengths
 * then passes without a branch per character.  A sequence the block
 * leaves open is flagged in the next block; at a string's end,
 * utf8_ends_open says. */
static inline __m128i utf8_block_errors(__m128i block, __m128i back1, __m128i back2, __m128i back3) {
  /* A continuation byte (80..BF) where, and only where, a lead byte one,
   * two or three back wants one. */
  __m128i continuation = _mm_cmplt_epi8(block, _mm_set1_epi8(-64));
  __m128i wanted = _mm_or_si128(lanes_at_least(back1, 0xC0),
                                _mm_or_si128(lanes_at_least(back2, 0xE0), lanes_at_least(back3, 0xF0)));
  __m128i errors = _mm_xor_si128(continuation, wanted);
  /* Bytes no sequence starts with: C0 and C1 (overlong), F5 and above. */
  errors = _mm_or_si128(errors, lanes_at_least(block, 0xF5));
  errors = _mm_or_si128(errors, _mm_cmpeq_epi8(_mm_and_si128(block, _mm_set1_epi8((char)0xFE)),
                                               _mm_set1_epi8((char)0xC0)));
  /* Second bytes outside their lead's range: E0 80..9F and F0 80..8F are
   * overlong, ED A0..BF a surrogate, F4 90..BF above U+10FFFF. */
  __m128i from_a0 = lanes_at_least(block, 0xA0), from_90 = lanes_at_least(block, 0x90);
  errors = _mm_or_si128(errors, _mm_andnot_si128(from_a0, _mm_cmpeq_epi8(back1, _mm_set1_epi8((char)0xE0))));
  errors = _mm_or_si128(errors, _mm_and_si128(from_a0, _mm_cmpeq_epi8(back1, _mm_set1_epi8((char)0xED))));
  errors = _mm_or_si128(errors, _mm_andnot_si128(from_90, _mm_cmpeq_epi8(back1, _mm_set1_epi8((char)0xF0))));
  return _mm_or_si128(errors, _mm_and_si128(from_90, _mm_cmpeq_epi8(back1, _mm_set1_epi8((char)0xF4))));
}

/* utf8_block_errors for a block that, with the three bytes before it, has
 * no byte from E0 up: only two-byte sequences can start there, so a lead
 * wants one continuation and no second byte has a range of its own: far
 * fewer instructions, and accented prose is mostly such blocks. */
static inline __m128i utf8_narrow_block_errors(__m128i block, __m128i back1) {
  __m128i errors = _mm_xor_si128(_mm_cmplt_epi8(block, _mm_set1_epi8(-64)), lanes_at_least(back1, 0xC0));
  return _mm_or_si128(errors, _mm_cmpeq_epi8(_mm_and_si128(block, _mm_set1_epi8((char)0xFE)),
                                             _mm_set1_epi8((char)0xC0)));
}

/* Whether a block has a byte from E0 up: a lead of three or four bytes, or
 * no UTF-8 at all. */
static inline bool has_wide_lead(__m128i block) {
  return _mm_movemask_epi8(lanes_at_least(block, 0xE0)) != 0;
}

#endif

/* What scan_blocks stops at. */
enum {
  SCAN_ESCAPES = 1,   /* '"', '\\' and control bytes */
  SCAN_SURROGATES = 2 /* 0xED, where WTF-8 may hold a lone surrogate */
};

#if defined(__SSE2__)
static ALWAYS_INLINE unsigned scan_stops(__m128i v, unsigned what) {
  unsigned stops = 0;
  if (what & SCAN_ESCAPES) {
    __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
    stops = (unsigned)_mm_movemask_epi8(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))), control));
  }
  if (what & SCAN_SURROGATES) stops |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xED)));
  return stops;
}

/* One block of scan_blocks at *at: true when the scan ends in it, *at then
 * where (a stop, or n). */
static ALWAYS_INLINE bool scan_block(const uint8_t *s, size_t n, size_t *at, uint8_t *copy, unsigned what) {
  size_t i = *at;
  __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
  if (copy) _mm_storeu_si128((__m128i *)(copy + i), v);
  unsigned stops = scan_stops(v, what);
  if (stops) {
    *at = i + (size_t)__builtin_ctz(stops) < n ? i + (size_t)__builtin_ctz(stops) : n;
    return true;
  }
  *at = i + 16;
  return *at >= n;
}
#endif

/* WTF-8 strings' scanner (the writer of text.c): s[0..n) a block of
 * sixteen bytes at a time while sixteen can be read (s[0..readable) can,
 * readable >= n), each block copied to `copy` when it is not NULL.  True
 * when the scan ended, *at then at the first byte that stops it (`what`)
 * or at n or past it; false where fewer than sixteen readable bytes
 * remain, *at then where the caller's own byte loop goes on.  Past the
 * first block, where most strings end, four blocks go together, one branch
 * for the four.
 *
 * The copy stores whole blocks, so it must have room for n + 16 bytes, and
 * n + 48 when n > 16. */
static ALWAYS_INLINE bool scan_blocks(const uint8_t *s, size_t n, size_t readable, uint8_t *copy,
                                      unsigned what, size_t *at) {
  size_t i = 0;
  *at = 0;
  if (!n) return true;
#if defined(__SSE2__)
  if (readable >= 16 && scan_block(s, n, at, copy, what)) return true;
  for (i = *at; n > i + 16 && readable - i >= 64; i += 64) {
    __m128i v[4];
    /* Unrolled by hand of the compiler: left as loops, GCC 12 at -O2 kept
     * the blocks on the stack and shifted the masks by a variable. */
    SHORN_UNROLL(4)
    for (int k = 0; k < 4; k++) {
      v[k] = _mm_loadu_si128((const __m128i *)(s + i + 16 * k));
      if (copy) _mm_storeu_si128((__m128i *)(copy + i + 16 * k), v[k]);
    }
    uint64_t stops = 0;
    SHORN_UNROLL(4)
    for (int k = 0; k < 4; k++) stops |= (uint64_t)scan_stops(v[k], what) << (16 * k);
    if (stops) {
      *at = i + (size_t)__builtin_ctzll(stops) < n ? i + (size_t)__builtin_ctzll(stops) : n;
      return true;
    }
  }
  *at = i;
  if (i >= n) return true;
  while (readable - *at >= 16)
    if (scan_block(s, n, at, copy, what)) return true;
#else
  (void)s, (void)readable, (void)copy, (void)what, (void)i;
#endif
  return false;
}

#endif
