/*
 * scan.h — strings scanned sixteen bytes at a time: the stops of a JSON
 * string and its UTF-8, for text.c's validation and copy and json.c's
 * parser.  Inline, since each is the inner loop of its caller.
 */
#ifndef SHORN_SCAN_H
#define SHORN_SCAN_H

#include "lanes.h"
#include "platform.h"

/* Whether s[0..n) ends inside a sequence: a lead byte among its last three
 * that wants more bytes than follow it. */
static inline bool utf8_ends_open(const uint8_t *s, size_t n) {
  return (n >= 1 && s[n - 1] >= 0xC0) || (n >= 2 && s[n - 2] >= 0xE0) || (n >= 3 && s[n - 3] >= 0xF0);
}

/* Where a byte-at-a-time reader takes over from blocks that ended at i:
 * at the lead byte of the character the last block may have left open. */
static inline size_t utf8_character_start(const uint8_t *s, size_t i) {
  size_t j = i;
  while (j > 0 && i - j < 3 && (s[j - 1] & 0xC0) == 0x80) j--;
  return j > 0 && s[j - 1] >= 0xC0 ? j - 1 : i;
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

/* The faults of a block as a lane mask, `before` the sixteen bytes ahead
 * of it, the narrow check where `wide` says no byte from E0 up is in it or
 * the block before. */
static inline unsigned utf8_faults(__m128i block, __m128i before, bool wide) {
  __m128i back1 = _mm_or_si128(_mm_slli_si128(block, 1), _mm_srli_si128(before, 15));
  if (!wide) return (unsigned)_mm_movemask_epi8(utf8_narrow_block_errors(block, back1));
  __m128i back2 = _mm_or_si128(_mm_slli_si128(block, 2), _mm_srli_si128(before, 14));
  __m128i back3 = _mm_or_si128(_mm_slli_si128(block, 3), _mm_srli_si128(before, 13));
  return (unsigned)_mm_movemask_epi8(utf8_block_errors(block, back1, back2, back3));
}

/* utf8_faults of the block at q, whose three bytes before can be read:
 * loaded from q - 1, q - 2 and q - 3, which is cheaper than shifting them
 * together from two blocks. */
static inline unsigned utf8_faults_at(const uint8_t *q, __m128i block, bool wide) {
  __m128i back1 = _mm_loadu_si128((const __m128i *)(q - 1));
  if (!wide) return (unsigned)_mm_movemask_epi8(utf8_narrow_block_errors(block, back1));
  return (unsigned)_mm_movemask_epi8(utf8_block_errors(block, back1, _mm_loadu_si128((const __m128i *)(q - 2)),
                                                       _mm_loadu_si128((const __m128i *)(q - 3))));
}
#endif

/* What scan_blocks stops at and checks. */
enum {
  SCAN_ESCAPES = 1,    /* stop at '"', '\\' and control bytes */
  SCAN_SURROGATES = 2, /* stop at 0xED, where WTF-8 may hold a lone surrogate */
  SCAN_UTF8 = 4        /* check UTF-8 */
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

/* Where scan_blocks is: the block before and what it held. */
typedef struct scan_state {
  __m128i before;
  bool high_before; /* a byte above ASCII */
  bool wide_before; /* a byte from E0 up */
} scan_state;

/* One block of scan_blocks at *at: true when the scan ends in it, *at then
 * where (a stop, or n). */
static ALWAYS_INLINE bool scan_block(const uint8_t *s, size_t n, size_t *at, uint8_t *copy,
                                     unsigned what, bool *faulty, scan_state *state) {
  size_t i = *at;
  __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
  if (copy) _mm_storeu_si128((__m128i *)(copy + i), v);
  unsigned stops = scan_stops(v, what), high = (unsigned)_mm_movemask_epi8(v);
  unsigned inside = (unsigned)lanes_before(n - i < 16 ? n - i : 16) & (stops ? stops ^ (stops - 1) : ~0u);
  /* Unchecked, the block has nothing above ASCII, or it is the last. */
  bool wide = false;
  if ((what & SCAN_UTF8) && ((high & inside) || state->high_before)) {
    wide = has_wide_lead(v);
    if (utf8_faults(v, state->before, wide || state->wide_before) & inside) *faulty = true;
  }
  state->before = v;
  state->high_before = high != 0;
  state->wide_before = wide;
  if (stops) {
    *at = i + (size_t)__builtin_ctz(stops) < n ? i + (size_t)__builtin_ctz(stops) : n;
    return true;
  }
  *at = i + 16;
  return *at >= n;
}
#endif

/* The string scanners' common part: s[0..n) a block of sixteen bytes at a
 * time while sixteen can be read (s[0..readable) can, readable >= n), each
 * block copied to `copy` when it is not NULL.  True when the scan ended,
 * *at then at the first byte that stops it (`what`) or at n or past it;
 * false where fewer than sixteen readable bytes remain, *at then at the
 * start of a character, where the caller's own byte loop goes on.  With
 * SCAN_UTF8, *faulty is set when the bytes before the stop (or n) break
 * UTF-8, a sequence left open at n aside (utf8_ends_open).
 *
 * Whether a block needs its UTF-8 checked, ASCII after ASCII not, is a
 * branch on the data, and text a few accents a sentence made it
 * mispredict more than the check costs; so past the
 * first block, where most strings end, four blocks go together and the
 * branch is taken or not for long runs; checking in the block, instead of
 * at each character, also costs less.
 *
 * The copy stores whole blocks, so it must have room for n + 16 bytes, and
 * n + 48 when n > 16. */
static ALWAYS_INLINE bool scan_blocks(const uint8_t *s, size_t n, size_t readable, uint8_t *copy,
                                      unsigned what, bool *faulty, size_t *at) {
  size_t i = 0;
  *at = 0;
  if (!n) return true;
#if defined(__SSE2__)
  scan_state state = {_mm_setzero_si128(), false, false};
  if (readable >= 16 && scan_block(s, n, at, copy, what, faulty, &state)) return true;
  for (i = *at; n > i + 16 && readable - i >= 64; i += 64) {
    __m128i v[4];
    /* Unrolled by hand of the compiler: left as loops, GCC 12 at -O2 kept
     * the blocks on the stack and shifted the masks by a variable. */
    SHORN_UNROLL(4)
    for (int k = 0; k < 4; k++) {
      v[k] = _mm_loadu_si128((const __m128i *)(s + i + 16 * k));
      if (copy) _mm_storeu_si128((__m128i *)(copy + i + 16 * k), v[k]);
    }
    uint64_t stops = 0, high = 0;
    SHORN_UNROLL(4)
    for (int k = 0; k < 4; k++) {
      stops |= (uint64_t)scan_stops(v[k], what) << (16 * k);
      high |= (uint64_t)(unsigned)_mm_movemask_epi8(v[k]) << (16 * k);
    }
    uint64_t inside = lanes_before(n - i) & (stops ? stops ^ (stops - 1) : ~0ull);
    bool wide = false;
    if ((what & SCAN_UTF8) && ((high & inside) || state.high_before)) {
      wide = has_wide_lead(_mm_max_epu8(_mm_max_epu8(v[0], v[1]), _mm_max_epu8(v[2], v[3])));
      bool any_wide = wide || state.wide_before;
      /* i >= 16 here: the first block went alone. */
      uint64_t f = 0;
      SHORN_UNROLL(4)
      for (int k = 0; k < 4; k++) f |= (uint64_t)utf8_faults_at(s + i + 16 * k, v[k], any_wide) << (16 * k);
      if (f & inside) *faulty = true;
    }
    if (stops) {
      *at = i + (size_t)__builtin_ctzll(stops) < n ? i + (size_t)__builtin_ctzll(stops) : n;
      return true;
    }
    state.before = v[3];
    state.high_before = high >> 48;
    state.wide_before = wide && has_wide_lead(v[3]);
  }
  *at = i;
  if (i >= n) return true;
  while (readable - *at >= 16)
    if (scan_block(s, n, at, copy, what, faulty, &state)) return true;
  if ((what & SCAN_UTF8) && *at) *at = utf8_character_start(s, *at);
#else
  (void)s, (void)readable, (void)copy, (void)what, (void)faulty, (void)i;
#endif
  return false;
}

#endif
