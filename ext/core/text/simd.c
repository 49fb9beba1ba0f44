/*
 * simd.c — the string kernels of each instruction set (simd.h).
 *
 * The vector paths read a string in chunks of 64 bytes.  A chunk's scan
 * gives the lanes JSON stops at ('"', '\\' and control bytes), and, unless
 * it and the chunk before are ASCII, the lanes that break UTF-8.  The
 * drivers around it are written once: a chunk with no stop is copied
 * whole, whatever its characters; a stop is handled where it is, and the
 * scan goes on in the same chunk.  UTF-8 is checked over whole chunks
 * whatever stops are in them, since every stop is ASCII, and the lanes
 * past the string's end are masked off, so the string's neighbours, read
 * for whole blocks, never count.
 *
 * A string within CHUNK_READ bytes of what can be read ends in a padded
 * copy of its tail, scanned by the same chunk scan.
 */
#include "simd.h"

#include <stdlib.h>

#include "escape.h"
#include "lanes.h"
#include "core/base/memory.h"
#include "scan.h"

#if defined(__AVX2__) || (defined(__x86_64__) && defined(__GNUC__))
#include <immintrin.h>
#define SIMD_HAVE_AVX2 1
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define SIMD_HAVE_NEON 1
#endif

SHORN_PRIVATE const char *const simd_path_names[SIMD_PATHS] = {"portable", "sse2", "avx2", "neon"};

SHORN_PRIVATE _Atomic(const simd_kernels *) simd_chosen;

/* ---- the portable path: a word at a time ----------------------------------- */

static uint8_t *escape_utf8_portable(uint8_t *o, const uint8_t *s, size_t n, size_t readable) {
  (void)readable;
  size_t i = 0;
  while (i < n) {
    if (n - i >= 8) {
      uint64_t w = load_le64(s + i), stop = plain_stops(w);
      store_le64(o, w);
      size_t plain = stop ? first_lane(stop) : 8;
      o += plain;
      i += plain;
      if (plain == 8) continue;
    }
    uint8_t c = s[i];
    if (c >= 0x80) {
      size_t len = utf8_sequence(s + i, n - i);
      if (!len) return NULL;
      for (size_t k = 0; k < len; k++) o[k] = s[i + k];
      o += len;
      i += len;
    } else {
      if (c < 0x20 || c == '"' || c == '\\') {
        uint64_t word = text_escape_word(c);
        store_le64(o, word);
        o += word >> 56;
      } else {
        *o++ = c;
      }
      i++;
    }
  }
  return o;
}

static size_t string_end_portable(const uint8_t *s, size_t n, bool *escaped, bool *bad_utf8) {
  size_t i = 0;
  while (i < n) {
    if (n - i >= 8) {
      uint64_t stop = plain_stops(load_le64(s + i));
      if (!stop) {
        i += 8;
        continue;
      }
      i += first_lane(stop);
    }
    uint8_t c = s[i];
    if (c >= 0x80) {
      size_t len = utf8_sequence(s + i, n - i);
      *bad_utf8 |= !len;
      i += len ? len : 1;
    } else if (c == '\\') {
      size_t len = json_escape_length(s + i, n - i);
      if (!len) return i;
      *escaped = true;
      i += len;
    } else if (c == '"' || c < 0x20) {
      return i;
    } else {
      i++;
    }
  }
  return n;
}

static bool utf8_valid_portable(const uint8_t *s, size_t n, size_t readable) {
  (void)readable;
  for (size_t i = 0; i < n;) {
    if (n - i >= 8 && !(load_le64(s + i) & LANES(0x80))) {
      i += 8;
    } else if (s[i] < 0x80) {
      i++;
    } else {
      size_t len = utf8_sequence(s + i, n - i);
      if (!len) return false;
      i += len;
    }
  }
  return true;
}

static const simd_kernels portable_kernels = {escape_utf8_portable, string_end_portable, utf8_valid_portable};

/* ---- the drivers every vector path shares ---------------------------------- */

#if defined(__SSE2__) || defined(SIMD_HAVE_NEON)
#define CHUNK 64
/* What a chunk may read from its start: itself, and a 16-byte copy past it
 * where an escape shifted the rest of it. */
#define CHUNK_READ (CHUNK + 16)

typedef struct chunk {
  uint64_t stops; /* '"', '\\' and control bytes */
  bool faulty;    /* a lane breaks UTF-8 (false when none was checked) */
  bool high;      /* a byte above ASCII in the lanes inside */
} chunk;

/* The scan of the chunk at s, stored at `copy` unless that is NULL:
 * `fresh` when the bytes before s are not the string's (its start, or the
 * end of an escape: ASCII either way), so nothing is read before s;
 * `high_before` when the chunk before had a byte above ASCII, whose
 * sequence this one may have to end; faults count in the lanes `inside`
 * only, all of them but in a string's last chunk. */
typedef chunk (*chunk_scan)(const uint8_t *s, uint8_t *copy, bool fresh, bool high_before, uint64_t inside);
/* The lanes of the chunk at s that break UTF-8: for a chunk where a JSON
 * string ends before its last lane, where the lanes after it must not
 * count.  Faults are rare, so the scan says only whether there is one. */
typedef uint64_t (*fault_scan)(const uint8_t *s, bool fresh);

/* Whether a chunk has four stops or more: from there the paths with a byte
 * shuffle write and check its escapes at once, not one at a time. */
static inline bool simd_stops_many(uint64_t stops) {
  uint64_t fourth = stops & (stops - 1);
  fourth &= fourth - 1;
  return (fourth & (fourth - 1)) != 0;
}

/* The escapes of a chunk where its stops are many, for a path with a byte
 * shuffle (NULL for one without): the chunk written again from its first
 * block with a stop, each block expanded at once (simd_expand below). */
typedef uint8_t *(*simd_chunk_expand)(uint8_t *o, const uint8_t *s, uint64_t stops, size_t len);

/* The escape of each stop of the sixteen bytes at s that `stops` flags,
 * and the other bytes as they are, all sixteen of them: a block with a
 * control byte that only \u00xx escapes, which a shuffle cannot write. */
static inline uint8_t *simd_escape_block_bytes(uint8_t *o, const uint8_t *s, uint32_t stops) {
  for (int i = 0; i < 16; i++) {
    if (stops >> i & 1) {
      uint64_t word = text_escape_word(s[i]);
      store_le64(o, word);
      o += word >> 56;
    } else {
      *o++ = s[i];
    }
  }
  return o;
}

/* The escapes of a chunk whose bytes (len of them, each stop among them)
 * were stored at o: each stop's escape written in its place, then the run
 * of plain bytes up to the next stop (or the chunk's end) copied behind
 * it, sixteen at a time.  Each run is copied once, from the input, so
 * escape-dense text costs a few instructions an escape rather than a move
 * of the rest of the chunk for each; the stores that run past a run's end
 * are overwritten by what follows, or fall in the output's slack. */
static ALWAYS_INLINE uint8_t *simd_escape_stops(uint8_t *o, const uint8_t *s, uint64_t stops, size_t len,
                                                simd_chunk_expand expand) {
  if (expand && simd_stops_many(stops)) return expand(o, s, stops, len);
  size_t at = (size_t)__builtin_ctzll(stops);
  o += at;
  for (;;) {
    uint64_t word = text_escape_word(s[at]);
    store_le64(o, word);
    o += word >> 56;
    stops &= stops - 1;
    size_t from = at + 1, next = stops ? (size_t)__builtin_ctzll(stops) : len;
    for (size_t k = from; k < next; k += 16) memcpy(o + (k - from), s + k, 16);
    o += next - from;
    if (!stops) return o;
    at = next;
  }
}

/* The first chunk start past those from which `need` bytes can be read. */
static inline size_t chunks_end(size_t n, size_t readable, size_t need) {
  size_t end = readable < need ? 0 : readable - need + 1;
  return end < n ? end : n;
}

/* escape_utf8's chunks from *at while CHUNK_READ bytes can be read: NULL
 * at a fault. */
static ALWAYS_INLINE uint8_t *escape_chunks(uint8_t *o, const uint8_t *s, size_t n, size_t readable, size_t *at,
                                            bool fresh, bool *high_before, chunk_scan scan,
                                            simd_chunk_expand expand) {
  size_t i = *at, end = chunks_end(n, readable, CHUNK_READ);
  /* Whole chunks first, then the string's last, whose lanes past its end
   * do not count. */
  size_t whole_end = n >= CHUNK ? n - CHUNK + 1 : 0;
  if (whole_end > end) whole_end = end;
  for (; i < whole_end; i += CHUNK) {
    chunk c = scan(s + i, o, fresh && i == 0, *high_before, ~0ull);
    if (c.faulty) return NULL;
    *high_before = c.high;
    o = c.stops ? simd_escape_stops(o, s + i, c.stops, CHUNK, expand) : o + CHUNK;
  }
  if (i < end) {
    size_t len = n - i;
    uint64_t inside = lanes_before(len);
    chunk c = scan(s + i, o, fresh && i == 0, *high_before, inside);
    if (c.faulty) return NULL;
    *high_before = c.high;
    uint64_t stops = c.stops & inside;
    o = stops ? simd_escape_stops(o, s + i, stops, len, expand) : o + len;
    i += CHUNK;
  }
  *at = i;
  return o;
}

/* The tail of escape_utf8 from `at`, within CHUNK_READ bytes of the end of
 * what can be read: its chunks in a padded copy, after the four bytes
 * before it. */
static ALWAYS_INLINE uint8_t *escape_padded_tail(uint8_t *o, const uint8_t *s, size_t n, size_t at, bool *high_before,
                                                 chunk_scan scan, simd_chunk_expand expand) {
  /* The chunks read only the lanes past the tail that are zeroed here;
   * the rest of the pad, past them, is only ever copied along behind an
   * escape, so it need not be set. */
  uint8_t pad[4 + CHUNK + CHUNK_READ];
  const uint8_t *t = pad + 4;
  size_t len = n - at;
  if (at) memcpy(pad, s + at - 4, 4);
  copy_few(pad + 4, s + at, len);
  memset(pad + 4 + len, 0, CHUNK);
  for (size_t j = 0; j < len; j += CHUNK) {
    uint64_t inside = lanes_before(len - j);
    chunk c = scan(t + j, o, at == 0 && j == 0, *high_before, inside);
    if (c.faulty) return NULL;
    *high_before = c.high;
    uint64_t stops = c.stops & inside;
    size_t part = len - j < CHUNK ? len - j : CHUNK;
    o = stops ? simd_escape_stops(o, t + j, stops, part, expand) : o + part;
  }
  return o;
}

static ALWAYS_INLINE uint8_t *escape_utf8_chunks(uint8_t *o, const uint8_t *s, size_t n, size_t readable,
                                                 chunk_scan scan, simd_chunk_expand expand) {
  size_t i = 0;
  bool high_before = false;
  if (!(o = escape_chunks(o, s, n, readable, &i, true, &high_before, scan, expand))) return NULL;
  if (i < n && !(o = escape_padded_tail(o, s, n, i, &high_before, scan, expand))) return NULL;
  /* A last chunk of ASCII leaves no sequence open: one open before it
   * would have been a fault in it. */
  return high_before && utf8_ends_open(s, n) ? NULL : o;
}

/* utf8_valid's chunks from *at while a chunk can be read: false at a
 * fault. */
static ALWAYS_INLINE bool valid_chunks(const uint8_t *s, size_t n, size_t readable, size_t *at, bool fresh,
                                       bool *high_before, chunk_scan scan) {
  size_t i = *at, end = chunks_end(n, readable, CHUNK);
  for (; i < end; i += CHUNK) {
    chunk c = scan(s + i, NULL, fresh && i == 0, *high_before, lanes_before(n - i));
    if (c.faulty) return false;
    *high_before = c.high;
  }
  *at = i;
  return true;
}

static ALWAYS_INLINE bool utf8_valid_chunks(const uint8_t *s, size_t n, size_t readable, chunk_scan scan) {
  size_t i = 0;
  bool high_before = false;
  if (!valid_chunks(s, n, readable, &i, true, &high_before, scan)) return false;
  if (i < n) {
    /* The tail, less than a chunk, after the three bytes before it. */
    uint8_t pad[4 + CHUNK] = {0};
    size_t j = 0;
    if (i) memcpy(pad, s + i - 4, 4);
    memcpy(pad + 4, s + i, n - i);
    if (!valid_chunks(pad + 4, n - i, sizeof pad - 4, &j, i == 0, &high_before, scan)) return false;
  }
  return !utf8_ends_open(s, n);
}

/* The lanes of the chunk at s that hold a backslash, a byte that may
 * follow one in a two-byte escape ("\\/bfnrt), and a 'u': what a path with
 * a byte shuffle classes for simd_escapes_end. */
typedef struct simd_escape_lanes {
  uint64_t backslash, simple, u;
} simd_escape_lanes;
typedef simd_escape_lanes (*simd_escape_scan)(const uint8_t *s);
/* simd_escapes_end below for one path, out of line: inlined, its tables
 * and masks crowd the registers of the chunk loop, which escape-free text
 * pays for. */
typedef size_t (*simd_escapes_end_scan)(const uint8_t *s, uint64_t stops, uint64_t lanes);

/* The nibble tables of simd_escape_scan: a byte's class is the AND of the
 * entries of its high and its low nibble, a bit for each high nibble that
 * holds one of the eight, so that only those eight have a bit set. */
#if defined(SIMD_HAVE_AVX2) || defined(SIMD_HAVE_NEON)
static const uint8_t simd_escape_high[16] = {0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t simd_escape_low[16] = {0, 0, 1 | 4 | 8, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1};
#endif

/* string_end's end in a chunk's `lanes` (those of the text), where stops
 * are many and no escape runs into the chunk from before it: the
 * escapes checked all at once rather than one at a time.  The escaped
 * lanes are found from the backslashes by a subtraction's carries
 * (simdjson's way: in a run of backslashes every other one escapes the
 * next), each escape's second byte checked against its class; the end is
 * the first escape that is none, or the first quote or control byte not
 * escaped.  Returns that lane, or CHUNK when the chunk holds no end, or
 * CHUNK + 1 when the loop must say: a \u escape, whose hex digits the
 * classes do not check, or an escape that runs past the chunk. */
static ALWAYS_INLINE size_t simd_escapes_end(const uint8_t *s, uint64_t stops, uint64_t lanes,
                                             simd_escape_scan classify) {
  const uint64_t odd = 0xAAAAAAAAAAAAAAAAull;
  simd_escape_lanes e = classify(s);
  uint64_t backslash = e.backslash & lanes;
  uint64_t code = (((backslash << 1) | odd) - backslash) ^ odd;
  uint64_t escaped = code ^ backslash, starts = code & backslash;
  if ((starts >> 63) || (escaped & e.u)) return CHUNK + 1;
  uint64_t ends = (starts & ~((e.simple & lanes) >> 1)) | (stops & ~backslash & ~escaped);
  return ends ? (size_t)__builtin_ctzll(ends) : CHUNK;
}

/* string_end's chunks from *at while a chunk can be read: true when the
 * scan ended, *at then where. */
static ALWAYS_INLINE bool end_chunks(const uint8_t *s, size_t n, size_t readable, size_t *at, bool *fresh,
                                     bool *high_before, bool *escaped, bool *bad_utf8, chunk_scan scan,
                                     fault_scan faults, simd_escapes_end_scan escapes_end) {
  size_t i = *at, end = chunks_end(n, readable, CHUNK);
  while (i < end) {
    uint64_t inside = lanes_before(n - i);
    chunk c = scan(s + i, NULL, *fresh, *high_before, inside);
    uint64_t stops = c.stops & inside;
    size_t next = CHUNK; /* where the scan goes on, from i */
    /* From four stops, the first a backslash, the chunk's escapes are
     * checked at once where the path can class them, and the loop below
     * is left the stop that ends the string, if any.  The first escape,
     * the chunk's first backslash, was passed over when the end is past
     * it. */
    if (escapes_end && stops && s[i + (size_t)__builtin_ctzll(stops)] == '\\' && simd_stops_many(stops)) {
      size_t stop = escapes_end(s + i, stops, inside);
      if (stop <= CHUNK) {
        *escaped |= stop > (size_t)__builtin_ctzll(stops);
        stops = stop < CHUNK ? 1ull << stop : 0;
      }
    }
    while (stops) {
      size_t stop = (size_t)__builtin_ctzll(stops);
      size_t len = s[i + stop] == '\\' ? json_escape_length(s + i + stop, n - i - stop) : 0;
      if (!len) {
        *bad_utf8 |= c.faulty && (faults(s + i, *fresh) & inside & lanes_before(stop + 1));
        *at = i + stop;
        return true;
      }
      *escaped = true;
      if (stop + len >= CHUNK) {
        next = stop + len;
        break;
      }
      stops &= ~lanes_before(stop + len);
    }
    *bad_utf8 |= c.faulty;
    /* An escape that runs past the chunk: the scan starts again after it,
     * behind ASCII. */
    *fresh = next > CHUNK;
    *high_before = c.high && next == CHUNK;
    i += next;
  }
  *at = i;
  return i >= n;
}

static ALWAYS_INLINE size_t string_end_chunks(const uint8_t *s, size_t n, bool *escaped, bool *bad_utf8,
                                              chunk_scan scan, fault_scan faults,
                                              simd_escapes_end_scan escapes_end) {
  size_t i = 0;
  bool fresh = true, high_before = false;
  if (end_chunks(s, n, n, &i, &fresh, &high_before, escaped, bad_utf8, scan, faults, escapes_end)) {
    if (i >= n && utf8_ends_open(s, n)) *bad_utf8 = true;
    return i < n ? i : n;
  }
  /* The text's last bytes, fewer than a chunk, after the three before. */
  uint8_t pad[4 + CHUNK] = {0};
  size_t j = 0;
  if (!fresh) memcpy(pad, s + i - 4, 4);
  memcpy(pad + 4, s + i, n - i);
  end_chunks(pad + 4, n - i, sizeof pad - 4, &j, &fresh, &high_before, escaped, bad_utf8, scan, faults,
             escapes_end);
  if (j >= n - i) {
    if (utf8_ends_open(s, n)) *bad_utf8 = true;
    return n;
  }
  return i + j;
}
#endif

/* ---- SSE2: sixteen bytes at a time, UTF-8 by comparisons ------------------- */

#if defined(__SSE2__)
/* The faults of the sixteen bytes v at q, as lanes of 0xFF: by
 * utf8_narrow_block_errors where no byte from E0 up is near (`wide`
 * false), far cheaper than the full check, and accented prose is mostly
 * such chunks. */
static ALWAYS_INLINE __m128i sse2_block_errors(__m128i v, const uint8_t *q, bool fresh, bool wide) {
  __m128i back1 = fresh ? _mm_slli_si128(v, 1) : _mm_loadu_si128((const __m128i *)(q - 1));
  if (!wide) return utf8_narrow_block_errors(v, back1);
  if (fresh) return utf8_block_errors(v, back1, _mm_slli_si128(v, 2), _mm_slli_si128(v, 3));
  return utf8_block_errors(v, back1, _mm_loadu_si128((const __m128i *)(q - 2)),
                           _mm_loadu_si128((const __m128i *)(q - 3)));
}

static ALWAYS_INLINE chunk sse2_chunk(const uint8_t *s, uint8_t *copy, bool fresh, bool high_before,
                                       uint64_t inside) {
  /* The blocks with lanes inside: all four but in a string's last chunk,
   * where a short string would pay for four. */
  int blocks = ~inside ? (int)(64 - __builtin_clzll(inside) + 15) / 16 : 4;
  __m128i v[4];
  uint64_t stops = 0, high = 0;
  SHORN_UNROLL(4)
  for (int k = 0; k < 4; k++) {
    if (k >= blocks) {
      v[k] = _mm_setzero_si128();
      continue;
    }
    v[k] = _mm_loadu_si128((const __m128i *)(s + 16 * k));
    if (copy) _mm_storeu_si128((__m128i *)(copy + 16 * k), v[k]);
    stops |= (uint64_t)scan_stops(v[k], SCAN_ESCAPES) << (16 * k);
    high |= (uint64_t)(unsigned)_mm_movemask_epi8(v[k]) << (16 * k);
  }
  chunk c = {stops, false, (high & inside) != 0};
  if (!c.high && !high_before) return c;
  /* A lead from E0 up in the chunk, or in the three bytes before it. */
  __m128i top = _mm_max_epu8(_mm_max_epu8(v[0], v[1]), _mm_max_epu8(v[2], v[3]));
  if (!fresh) top = _mm_max_epu8(top, _mm_loadu_si128((const __m128i *)(s - 3)));
  bool wide = has_wide_lead(top);
  uint64_t faults = 0;
  SHORN_UNROLL(4)
  for (int k = 0; k < blocks; k++)
    faults |= (uint64_t)(unsigned)_mm_movemask_epi8(sse2_block_errors(v[k], s + 16 * k, fresh && k == 0, wide))
              << (16 * k);
  c.faulty = (faults & inside) != 0;
  return c;
}

static uint64_t sse2_faults(const uint8_t *s, bool fresh) {
  uint64_t faults = 0;
  for (int k = 0; k < 4; k++) {
    __m128i v = _mm_loadu_si128((const __m128i *)(s + 16 * k));
    faults |= (uint64_t)(unsigned)_mm_movemask_epi8(sse2_block_errors(v, s + 16 * k, fresh && k == 0, true))
              << (16 * k);
  }
  return faults;
}

static uint8_t *escape_utf8_sse2(uint8_t *o, const uint8_t *s, size_t n, size_t readable) {
  return escape_utf8_chunks(o, s, n, readable, sse2_chunk, NULL);
}

static size_t string_end_sse2(const uint8_t *s, size_t n, bool *escaped, bool *bad_utf8) {
  return string_end_chunks(s, n, escaped, bad_utf8, sse2_chunk, sse2_faults, NULL);
}

static bool utf8_valid_sse2(const uint8_t *s, size_t n, size_t readable) {
  return utf8_valid_chunks(s, n, readable, sse2_chunk);
}

static const simd_kernels sse2_kernels = {escape_utf8_sse2, string_end_sse2, utf8_valid_sse2};
#endif

/* ---- Keiser and Lemire's UTF-8 check, by table lookups ---------------------
 *
 * "Validating UTF-8 in less than one instruction per byte" (2021): each
 * byte's error class is the AND of three lookups, by the high and the low
 * nibble of the byte before it and by its own high nibble; each class is a
 * bit, set in all three tables only for pairs of bytes that break UTF-8.
 * The one rule two bytes cannot see, that the third and fourth bytes of a
 * long sequence are continuations, is the TWO_CONTINUATIONS bit against
 * the bytes two and three back. */
enum {
  TOO_SHORT = 1 << 0,         /* a lead, then no continuation */
  TOO_LONG = 1 << 1,          /* ASCII, then a continuation */
  OVERLONG_3 = 1 << 2,        /* E0 80..9F */
  TOO_LARGE = 1 << 3,         /* F4 90..BF, F5..FF 90..BF */
  SURROGATE = 1 << 4,         /* ED A0..BF */
  OVERLONG_2 = 1 << 5,        /* C0 or C1, then a continuation */
  TOO_LARGE_1000 = 1 << 6,    /* F5..FF 80..8F */
  OVERLONG_4 = 1 << 6,        /* F0 80..8F */
  TWO_CONTINUATIONS = 1 << 7, /* a continuation after a continuation */
  CARRY = TOO_SHORT | TOO_LONG | TWO_CONTINUATIONS
};

/* The three tables: by the high and the low nibble of the byte before,
 * and by the byte's own high nibble. */
#define BEFORE_HIGH 0
#define BEFORE_LOW 1
#define OWN_HIGH 2
#if defined(SIMD_HAVE_AVX2) || defined(SIMD_HAVE_NEON)
static const uint8_t utf8_tables[3][16] = {
    {TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TWO_CONTINUATIONS,
     TWO_CONTINUATIONS, TWO_CONTINUATIONS, TWO_CONTINUATIONS, TOO_SHORT | OVERLONG_2, TOO_SHORT,
     TOO_SHORT | OVERLONG_3 | SURROGATE, TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4},
    {CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY, CARRY | TOO_LARGE,
     CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
     CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
     CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
     CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,
     CARRY | TOO_LARGE | TOO_LARGE_1000},
    {TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
     TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
     TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE,
     TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE,
     TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT},
};
#endif

/* ---- escape-dense chunks, by a byte shuffle ----------------------------------
 *
 * A block of sixteen bytes whose stops all take a short escape is written
 * as two groups of eight: each stop's byte replaced by its escape's letter
 * (the control bytes' from a lookup by their value), then each group
 * shuffled out to eight bytes and one more a stop, a backslash before each
 * stop's letter.  The shuffle of a group is the row of its eight stops'
 * mask in simd_expand_shuffles: the group's lanes 0 to 7 in order, lane 8
 * (a backslash) before each stop's; its length is in simd_expand_lengths.
 * test_simd.c writes a group of every mask through each path. */
#if defined(SIMD_HAVE_AVX2) || defined(SIMD_HAVE_NEON)
static const uint8_t simd_expand_shuffles[256][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 1, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 5, 6, 7, 0, 0, 0, 0},
    {0, 1, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0},
    {0, 1, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 6, 7, 0, 0, 0},
    {0, 1, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0},
    {0, 1, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 6, 7, 0, 0, 0},
    {0, 1, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0},
    {0, 1, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 7, 0, 0},
    {0, 1, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 1, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 5, 8, 6, 7, 0, 0, 0},
    {0, 1, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0},
    {0, 1, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 7, 0, 0},
    {0, 1, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0},
    {0, 1, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 7, 0, 0},
    {0, 1, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0},
    {0, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 7, 0},
    {0, 1, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 1, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 5, 6, 8, 7, 0, 0, 0},
    {0, 1, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0},
    {0, 1, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 6, 8, 7, 0, 0},
    {0, 1, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0},
    {0, 1, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 6, 8, 7, 0, 0},
    {0, 1, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0},
    {0, 1, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 6, 8, 7, 0},
    {0, 1, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 1, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 5, 8, 6, 8, 7, 0, 0},
    {0, 1, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0},
    {0, 1, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 5, 8, 6, 8, 7, 0},
    {0, 1, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0, 0},
    {0, 8, 1, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 1, 8, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 8, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0},
    {0, 1, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0},
    {0, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0},
    {0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 4, 8, 5, 8, 6, 8, 7, 0},
    {0, 1, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0, 0}, {8, 0, 1, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0},
    {0, 8, 1, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 8, 1, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0},
    {0, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0},
    {0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0}, {8, 0, 8, 1, 8, 2, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0},
    {0, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0, 0}, {8, 0, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0},
    {0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0}, {8, 0, 8, 1, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0},
    {0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0, 0}, {8, 0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0},
    {0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 0}, {8, 0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7},
};
static const uint8_t simd_expand_lengths[256] = {
    8, 9, 9, 10, 9, 10, 10, 11, 9, 10, 10, 11, 10, 11, 11, 12,
    9, 10, 10, 11, 10, 11, 11, 12, 10, 11, 11, 12, 11, 12, 12, 13,
    9, 10, 10, 11, 10, 11, 11, 12, 10, 11, 11, 12, 11, 12, 12, 13,
    10, 11, 11, 12, 11, 12, 12, 13, 11, 12, 12, 13, 12, 13, 13, 14,
    9, 10, 10, 11, 10, 11, 11, 12, 10, 11, 11, 12, 11, 12, 12, 13,
    10, 11, 11, 12, 11, 12, 12, 13, 11, 12, 12, 13, 12, 13, 13, 14,
    10, 11, 11, 12, 11, 12, 12, 13, 11, 12, 12, 13, 12, 13, 13, 14,
    11, 12, 12, 13, 12, 13, 13, 14, 12, 13, 13, 14, 13, 14, 14, 15,
    9, 10, 10, 11, 10, 11, 11, 12, 10, 11, 11, 12, 11, 12, 12, 13,
    10, 11, 11, 12, 11, 12, 12, 13, 11, 12, 12, 13, 12, 13, 13, 14,
    10, 11, 11, 12, 11, 12, 12, 13, 11, 12, 12, 13, 12, 13, 13, 14,
    11, 12, 12, 13, 12, 13, 13, 14, 12, 13, 13, 14, 13, 14, 14, 15,
    10, 11, 11, 12, 11, 12, 12, 13, 11, 12, 12, 13, 12, 13, 13, 14,
    11, 12, 12, 13, 12, 13, 13, 14, 12, 13, 13, 14, 13, 14, 14, 15,
    11, 12, 12, 13, 12, 13, 13, 14, 12, 13, 13, 14, 13, 14, 14, 15,
    12, 13, 13, 14, 13, 14, 14, 15, 13, 14, 14, 15, 14, 15, 15, 16,
};
/* The letter of each control byte's short escape, by its value; zero for
 * those that only \u00xx escapes. */
static const uint8_t simd_expand_letters[16] = {0, 0, 0, 0, 0, 0, 0, 0, 'b', 't', 'n', 0, 'f', 'r', 0, 0};

/* A path's writer of a block of sixteen bytes at s with stops (the mask
 * block_stops, not zero) that all take a short escape: returns the end of
 * what it wrote. */
typedef uint8_t *(*simd_block_expand)(uint8_t *o, const uint8_t *s, uint32_t block_stops);

/* The simd_chunk_expand that each shuffle path shares: the chunk's blocks
 * written again from the first with a stop, one with none copied as it
 * is.  The bytes past len, none a stop, were written one for one, and are
 * taken back at the end. */
static ALWAYS_INLINE uint8_t *simd_expand(uint8_t *o, const uint8_t *s, uint64_t stops, size_t len,
                                          simd_block_expand block) {
  size_t b = (size_t)__builtin_ctzll(stops) / 16 * 16;
  o += b;
  for (; b < len; b += 16) {
    uint32_t block_stops = (uint32_t)(stops >> b) & 0xFFFF;
    if (block_stops) {
      o = block(o, s + b, block_stops);
    } else {
      memcpy(o, s + b, 16);
      o += 16;
    }
  }
  return o - (b - len);
}
#endif

/* ---- AVX2: 32 bytes at a time, chosen at run time -------------------------- */

#if defined(SIMD_HAVE_AVX2)
#define AVX2 __attribute__((target("avx2")))

/* Constants of one byte in every lane, loaded whole.  Where GCC knows
 * their value it builds each inside the loop from an immediate, the
 * registers being too few to keep them all, which costs more than a load;
 * through a pointer it cannot see into (avx2_splat) it loads them, often
 * as an operand of the instruction that uses them. */
#define LANES32(b) b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b
enum { SPLAT_NIBBLE, SPLAT_THIRD, SPLAT_FOURTH, SPLAT_HIGH_BIT, SPLAT_CONTROL, SPLAT_QUOTE, SPLAT_BACKSLASH };
static _Alignas(32) const uint8_t avx2_splats[][32] = {
    {LANES32(0x0F)}, {LANES32(0xE0 - 0x80)}, {LANES32(0xF0 - 0x80)}, {LANES32(0x80)},
    {LANES32(0x1F)}, {LANES32('"')},         {LANES32('\\')},
};
AVX2 static ALWAYS_INLINE __m256i avx2_splat(int k) {
  const uint8_t(*splats)[32] = avx2_splats;
  __asm__("" : "+r"(splats));
  return _mm256_load_si256((const __m256i *)splats[k]);
}
#define SPLAT(k) avx2_splat(k)

/* The error classes of the 32 bytes v, prev1..prev3 the bytes one, two
 * and three before each: not zero where UTF-8 breaks. */
AVX2 static ALWAYS_INLINE __m256i avx2_utf8_errors(__m256i v, __m256i prev1, __m256i prev2, __m256i prev3) {
  const __m256i before_high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)utf8_tables[BEFORE_HIGH]));
  const __m256i before_low = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)utf8_tables[BEFORE_LOW]));
  const __m256i own_high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)utf8_tables[OWN_HIGH]));
  const __m256i nibble = SPLAT(SPLAT_NIBBLE);
  __m256i classes = _mm256_and_si256(
      _mm256_and_si256(_mm256_shuffle_epi8(before_high, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble)),
                       _mm256_shuffle_epi8(before_low, _mm256_and_si256(prev1, nibble))),
      _mm256_shuffle_epi8(own_high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
  /* 0x80 where the byte two back is E0 or more, or three back F0 or more. */
  __m256i third_or_fourth =
      _mm256_or_si256(_mm256_subs_epu8(prev2, SPLAT(SPLAT_THIRD)), _mm256_subs_epu8(prev3, SPLAT(SPLAT_FOURTH)));
  return _mm256_xor_si256(classes, _mm256_and_si256(third_or_fourth, SPLAT(SPLAT_HIGH_BIT)));
}

/* The lanes of v with a byte: a mask. */
AVX2 static ALWAYS_INLINE uint64_t avx2_nonzero(__m256i v) {
  return ~(uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())) & 0xFFFFFFFFu;
}

AVX2 static ALWAYS_INLINE uint32_t avx2_stops(__m256i v) {
  __m256i control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, SPLAT(SPLAT_CONTROL)), v);
  return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(
      _mm256_or_si256(_mm256_cmpeq_epi8(v, SPLAT(SPLAT_QUOTE)), _mm256_cmpeq_epi8(v, SPLAT(SPLAT_BACKSLASH))),
      control));
}

/* The errors of the chunk's halves, v0 at s and v1 at s + 32 (none in v1
 * unless `second`). */
AVX2 static ALWAYS_INLINE void avx2_chunk_errors(const uint8_t *s, __m256i v0, __m256i v1, bool fresh, bool second,
                                                 __m256i *e0, __m256i *e1) {
  if (fresh) {
    /* The bytes before, from v0 moved up a lane or more, zeros behind. */
    __m256i low_up = _mm256_permute2x128_si256(v0, v0, 0x08);
    *e0 = avx2_utf8_errors(v0, _mm256_alignr_epi8(v0, low_up, 15), _mm256_alignr_epi8(v0, low_up, 14),
                           _mm256_alignr_epi8(v0, low_up, 13));
  } else {
    *e0 = avx2_utf8_errors(v0, _mm256_loadu_si256((const __m256i *)(s - 1)),
                           _mm256_loadu_si256((const __m256i *)(s - 2)), _mm256_loadu_si256((const __m256i *)(s - 3)));
  }
  *e1 = second ? avx2_utf8_errors(v1, _mm256_loadu_si256((const __m256i *)(s + 31)),
                                  _mm256_loadu_si256((const __m256i *)(s + 30)),
                                  _mm256_loadu_si256((const __m256i *)(s + 29)))
               : _mm256_setzero_si256();
}

AVX2 static ALWAYS_INLINE chunk avx2_chunk(const uint8_t *s, uint8_t *copy, bool fresh, bool high_before,
                                           uint64_t inside) {
  __m256i v0 = _mm256_loadu_si256((const __m256i *)s), v1 = _mm256_loadu_si256((const __m256i *)(s + 32));
  if (copy) {
    _mm256_storeu_si256((__m256i *)copy, v0);
    _mm256_storeu_si256((__m256i *)(copy + 32), v1);
  }
  uint64_t high = (uint32_t)_mm256_movemask_epi8(v0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(v1) << 32;
  chunk c = {avx2_stops(v0) | (uint64_t)avx2_stops(v1) << 32, false, (high & inside) != 0};
  if (!c.high && !high_before) return c;
  __m256i e0, e1;
  /* A short string's last chunk may not reach its second half. */
  avx2_chunk_errors(s, v0, v1, fresh, inside >> 32 != 0, &e0, &e1);
  __m256i errors = _mm256_or_si256(e0, e1);
  c.faulty = !_mm256_testz_si256(errors, errors) && (!~inside || (avx2_nonzero(e0) | avx2_nonzero(e1) << 32) & inside);
  return c;
}

AVX2 static uint64_t avx2_faults(const uint8_t *s, bool fresh) {
  __m256i e0, e1;
  avx2_chunk_errors(s, _mm256_loadu_si256((const __m256i *)s), _mm256_loadu_si256((const __m256i *)(s + 32)), fresh,
                    true, &e0, &e1);
  return avx2_nonzero(e0) | avx2_nonzero(e1) << 32;
}

/* One block of simd_expand.  Bytes from 0x10 up saturate to the lookup's
 * top half, where it gives zero: no short escape. */
AVX2 static ALWAYS_INLINE uint8_t *avx2_expand_block(uint8_t *o, const uint8_t *s, uint32_t block_stops) {
  __m128i v = _mm_loadu_si128((const __m128i *)s);
  __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
  __m128i letter = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)simd_expand_letters),
                                    _mm_adds_epu8(v, _mm_set1_epi8(0x70)));
  unsigned long_escapes =
      (unsigned)_mm_movemask_epi8(_mm_and_si128(control, _mm_cmpeq_epi8(letter, _mm_setzero_si128())));
  if (long_escapes & block_stops) return simd_escape_block_bytes(o, s, block_stops);
  __m128i body = _mm_blendv_epi8(v, letter, control), backslash = _mm_set1_epi8('\\');
  unsigned low = block_stops & 0xFF, high = block_stops >> 8;
  _mm_storeu_si128((__m128i *)o, _mm_shuffle_epi8(_mm_unpacklo_epi64(body, backslash),
                                                  _mm_loadu_si128((const __m128i *)simd_expand_shuffles[low])));
  o += simd_expand_lengths[low];
  _mm_storeu_si128((__m128i *)o, _mm_shuffle_epi8(_mm_unpackhi_epi64(body, backslash),
                                                  _mm_loadu_si128((const __m128i *)simd_expand_shuffles[high])));
  return o + simd_expand_lengths[high];
}

AVX2 static ALWAYS_INLINE uint8_t *avx2_expand(uint8_t *o, const uint8_t *s, uint64_t stops, size_t len) {
  return simd_expand(o, s, stops, len, avx2_expand_block);
}

AVX2 static uint8_t *escape_utf8_avx2(uint8_t *o, const uint8_t *s, size_t n, size_t readable) {
  return escape_utf8_chunks(o, s, n, readable, avx2_chunk, avx2_expand);
}

AVX2 static ALWAYS_INLINE simd_escape_lanes avx2_escape_lanes(const uint8_t *s) {
  const __m256i high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)simd_escape_high));
  const __m256i low = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)simd_escape_low));
  const __m256i nibble = SPLAT(SPLAT_NIBBLE);
  simd_escape_lanes e = {0, 0, 0};
  for (int k = 0; k < 2; k++) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(s + 32 * k));
    __m256i class = _mm256_and_si256(_mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)),
                                     _mm256_shuffle_epi8(low, _mm256_and_si256(v, nibble)));
    e.backslash |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, SPLAT(SPLAT_BACKSLASH))) << (32 * k);
    e.u |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('u'))) << (32 * k);
    e.simple |= avx2_nonzero(class) << (32 * k);
  }
  return e;
}

AVX2 static NOINLINE size_t avx2_escapes_end(const uint8_t *s, uint64_t stops, uint64_t lanes) {
  return simd_escapes_end(s, stops, lanes, avx2_escape_lanes);
}

AVX2 static size_t string_end_avx2(const uint8_t *s, size_t n, bool *escaped, bool *bad_utf8) {
  return string_end_chunks(s, n, escaped, bad_utf8, avx2_chunk, avx2_faults, avx2_escapes_end);
}

AVX2 static bool utf8_valid_avx2(const uint8_t *s, size_t n, size_t readable) {
  return utf8_valid_chunks(s, n, readable, avx2_chunk);
}

static const simd_kernels avx2_kernels = {escape_utf8_avx2, string_end_avx2, utf8_valid_avx2};
#endif

/* ---- NEON: sixteen bytes at a time, the same lookups ----------------------- */

#if defined(SIMD_HAVE_NEON)
static ALWAYS_INLINE uint8x16_t neon_utf8_errors(uint8x16_t v, uint8x16_t prev1, uint8x16_t prev2,
                                                 uint8x16_t prev3) {
  uint8x16_t classes =
      vandq_u8(vandq_u8(vqtbl1q_u8(vld1q_u8(utf8_tables[BEFORE_HIGH]), vshrq_n_u8(prev1, 4)),
                        vqtbl1q_u8(vld1q_u8(utf8_tables[BEFORE_LOW]), vandq_u8(prev1, vdupq_n_u8(0x0F)))),
               vqtbl1q_u8(vld1q_u8(utf8_tables[OWN_HIGH]), vshrq_n_u8(v, 4)));
  uint8x16_t third_or_fourth = vorrq_u8(vqsubq_u8(prev2, vdupq_n_u8(0xE0 - 0x80)), vqsubq_u8(prev3, vdupq_n_u8(0xF0 - 0x80)));
  return veorq_u8(classes, vandq_u8(third_or_fourth, vdupq_n_u8(0x80)));
}

/* Four vectors of 0x00 or 0xFF lanes as a 64-bit mask, lane k bit k: each
 * lane keeps one bit of its eight, then pairwise sums gather them. */
static ALWAYS_INLINE uint64_t neon_mask(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d) {
  static const uint8_t bits[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8x16_t bit = vld1q_u8(bits);
  uint8x16_t ab = vpaddq_u8(vandq_u8(a, bit), vandq_u8(b, bit)), cd = vpaddq_u8(vandq_u8(c, bit), vandq_u8(d, bit));
  uint8x16_t abcd = vpaddq_u8(ab, cd);
  return vgetq_lane_u64(vreinterpretq_u64_u8(vpaddq_u8(abcd, abcd)), 0);
}

static ALWAYS_INLINE uint8x16_t neon_stops(uint8x16_t v) {
  return vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8('\\'))), vcltq_u8(v, vdupq_n_u8(0x20)));
}

/* The errors of the sixteen bytes v at q. */
static ALWAYS_INLINE uint8x16_t neon_block_errors(uint8x16_t v, const uint8_t *q, bool fresh) {
  if (fresh) {
    uint8x16_t zero = vdupq_n_u8(0);
    return neon_utf8_errors(v, vextq_u8(zero, v, 15), vextq_u8(zero, v, 14), vextq_u8(zero, v, 13));
  }
  return neon_utf8_errors(v, vld1q_u8(q - 1), vld1q_u8(q - 2), vld1q_u8(q - 3));
}

static ALWAYS_INLINE chunk neon_chunk(const uint8_t *s, uint8_t *copy, bool fresh, bool high_before,
                                       uint64_t inside) {
  uint8x16_t v[4];
  for (int k = 0; k < 4; k++) {
    v[k] = vld1q_u8(s + 16 * k);
    if (copy) vst1q_u8(copy + 16 * k, v[k]);
  }
  uint8x16_t high_bit = vdupq_n_u8(0x80);
  uint64_t high = neon_mask(vtstq_u8(v[0], high_bit), vtstq_u8(v[1], high_bit), vtstq_u8(v[2], high_bit),
                            vtstq_u8(v[3], high_bit));
  chunk c = {neon_mask(neon_stops(v[0]), neon_stops(v[1]), neon_stops(v[2]), neon_stops(v[3])), false,
             (high & inside) != 0};
  if (!c.high && !high_before) return c;
  uint8x16_t errors[4];
  for (int k = 0; k < 4; k++) {
    errors[k] = neon_block_errors(v[k], s + 16 * k, fresh && k == 0);
    errors[k] = vtstq_u8(errors[k], errors[k]);
  }
  c.faulty = (neon_mask(errors[0], errors[1], errors[2], errors[3]) & inside) != 0;
  return c;
}

static uint64_t neon_faults(const uint8_t *s, bool fresh) {
  uint8x16_t errors[4];
  for (int k = 0; k < 4; k++) {
    errors[k] = neon_block_errors(vld1q_u8(s + 16 * k), s + 16 * k, fresh && k == 0);
    errors[k] = vtstq_u8(errors[k], errors[k]);
  }
  return neon_mask(errors[0], errors[1], errors[2], errors[3]);
}

/* One block of simd_expand.  The lookup gives zero from index 16 up: no
 * short escape.  A block with a control byte that needs \u00xx anywhere,
 * a stop or a lane past the string's end, is written a byte at a time,
 * which is right either way. */
static ALWAYS_INLINE uint8_t *neon_expand_block(uint8_t *o, const uint8_t *s, uint32_t block_stops) {
  uint8x16_t v = vld1q_u8(s);
  uint8x16_t control = vcltq_u8(v, vdupq_n_u8(0x20));
  uint8x16_t letter = vqtbl1q_u8(vld1q_u8(simd_expand_letters), v);
  if (vmaxvq_u8(vandq_u8(control, vceqq_u8(letter, vdupq_n_u8(0))))) return simd_escape_block_bytes(o, s, block_stops);
  uint8x16_t body = vbslq_u8(control, letter, v), backslash = vdupq_n_u8('\\');
  unsigned low = block_stops & 0xFF, high = block_stops >> 8;
  vst1q_u8(o, vqtbl1q_u8(vcombine_u8(vget_low_u8(body), vget_low_u8(backslash)), vld1q_u8(simd_expand_shuffles[low])));
  o += simd_expand_lengths[low];
  vst1q_u8(o,
           vqtbl1q_u8(vcombine_u8(vget_high_u8(body), vget_high_u8(backslash)), vld1q_u8(simd_expand_shuffles[high])));
  return o + simd_expand_lengths[high];
}

static ALWAYS_INLINE uint8_t *neon_expand(uint8_t *o, const uint8_t *s, uint64_t stops, size_t len) {
  return simd_expand(o, s, stops, len, neon_expand_block);
}

static uint8_t *escape_utf8_neon(uint8_t *o, const uint8_t *s, size_t n, size_t readable) {
  return escape_utf8_chunks(o, s, n, readable, neon_chunk, neon_expand);
}

static ALWAYS_INLINE simd_escape_lanes neon_escape_lanes(const uint8_t *s) {
  uint8x16_t high = vld1q_u8(simd_escape_high), low = vld1q_u8(simd_escape_low);
  uint8x16_t backslash[4], u[4], simple[4];
  for (int k = 0; k < 4; k++) {
    uint8x16_t v = vld1q_u8(s + 16 * k);
    backslash[k] = vceqq_u8(v, vdupq_n_u8('\\'));
    u[k] = vceqq_u8(v, vdupq_n_u8('u'));
    simple[k] = vtstq_u8(vqtbl1q_u8(high, vshrq_n_u8(v, 4)), vqtbl1q_u8(low, vandq_u8(v, vdupq_n_u8(0x0F))));
  }
  return (simd_escape_lanes){neon_mask(backslash[0], backslash[1], backslash[2], backslash[3]),
                        neon_mask(simple[0], simple[1], simple[2], simple[3]), neon_mask(u[0], u[1], u[2], u[3])};
}

static NOINLINE size_t neon_escapes_end(const uint8_t *s, uint64_t stops, uint64_t lanes) {
  return simd_escapes_end(s, stops, lanes, neon_escape_lanes);
}

static size_t string_end_neon(const uint8_t *s, size_t n, bool *escaped, bool *bad_utf8) {
  return string_end_chunks(s, n, escaped, bad_utf8, neon_chunk, neon_faults, neon_escapes_end);
}

static bool utf8_valid_neon(const uint8_t *s, size_t n, size_t readable) {
  return utf8_valid_chunks(s, n, readable, neon_chunk);
}

static const simd_kernels neon_kernels = {escape_utf8_neon, string_end_neon, utf8_valid_neon};
#endif

/* ---- the choice ------------------------------------------------------------ */

const simd_kernels *simd_kernels_of(simd_path path) {
  switch (path) {
    case SIMD_PORTABLE: return &portable_kernels;
#if defined(__SSE2__)
    case SIMD_SSE2: return &sse2_kernels;
#endif
#if defined(SIMD_HAVE_AVX2)
    case SIMD_AVX2: return __builtin_cpu_supports("avx2") ? &avx2_kernels : NULL;
#endif
#if defined(SIMD_HAVE_NEON)
    case SIMD_NEON: return &neon_kernels;
#endif
    default: return NULL;
  }
}

simd_path simd_choose(void) {
  simd_path path = SIMD_PORTABLE;
  for (int p = SIMD_PATHS - 1; p > SIMD_PORTABLE; p--)
    if (simd_kernels_of((simd_path)p)) {
      path = (simd_path)p;
      break;
    }
  const char *forced = getenv("SHORN_SIMD");
  for (int p = 0; forced && p < SIMD_PATHS; p++)
    if (strcmp(forced, simd_path_names[p]) == 0 && simd_kernels_of((simd_path)p)) path = (simd_path)p;
  atomic_store_explicit(&simd_chosen, simd_kernels_of(path), memory_order_relaxed);
  return path;
}
