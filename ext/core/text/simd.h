/*
 * simd.h — the string kernels, one set per instruction set, and the choice
 * among them: checking UTF-8 and finding the bytes JSON escapes, in one
 * pass over blocks of 16 or 32 bytes, for the decoder's string writer, the
 * JSON parser's strings and every other UTF-8 check.
 *
 * Each path gives the same answer; the portable one, a word at a time,
 * runs anywhere.  SSE2 is the baseline of x86-64, AVX2 is chosen at run
 * time where the CPU has it (the binary still runs on any x86-64), NEON is
 * the baseline of ARM64.  SHORN_SIMD=portable|sse2|avx2|neon in the
 * environment forces a path that this build and CPU have, so that the
 * tests run each; anything else is ignored.
 */
#ifndef SHORN_SIMD_H
#define SHORN_SIMD_H

#include <stdatomic.h>

#include "core/base/platform.h"

typedef enum simd_path { SIMD_PORTABLE, SIMD_SSE2, SIMD_AVX2, SIMD_NEON, SIMD_PATHS } simd_path;

SHORN_PRIVATE_DATA const char *const simd_path_names[SIMD_PATHS];

/* Room past 6n (every byte escaped as \u00xx) that escape_utf8 may write
 * to: it stores whole blocks. */
#define SIMD_OUTPUT_SLACK 96

typedef struct simd_kernels {
  /* The body of a JSON string for s[0..n), escaped as JSON.stringify
   * escapes it, written at o (room for 6n + SIMD_OUTPUT_SLACK bytes);
   * returns its end, or NULL when s[0..n) is not strict UTF-8 (a sequence
   * left open at n included).  s[0..readable) may be read, readable >= n:
   * the rest of a payload, so that most strings are scanned in whole
   * blocks. */
  uint8_t *(*escape_utf8)(uint8_t *o, const uint8_t *s, size_t n, size_t readable);
  /* In s[0..n), the text after a JSON string's opening quote: the offset
   * of the byte that ends the string or the scan, escapes passed over: the
   * closing quote, a control byte, a backslash that starts no valid escape
   * (\uXXXX with four hex digits, or one of "\/bfnrt), or n.  *escaped is
   * set when an escape was passed over, *bad_utf8 when the bytes up to that
   * offset are not UTF-8 (a sequence cut by the byte there included). */
  size_t (*string_end)(const uint8_t *s, size_t n, bool *escaped, bool *bad_utf8);
  /* Whether s[0..n) is strict UTF-8 (text.h's utf8_valid); s[0..readable)
   * may be read, readable >= n. */
  bool (*utf8_valid)(const uint8_t *s, size_t n, size_t readable);
} simd_kernels;

/* The kernels of a path, or NULL where this build or CPU lacks it. */
SHORN_PRIVATE const simd_kernels *simd_kernels_of(simd_path path);

/* The path every caller uses: the environment's, or the fastest there is,
 * chosen at the first call (threads that race to it choose alike). */
SHORN_PRIVATE simd_path simd_choose(void);
SHORN_PRIVATE_DATA _Atomic(const simd_kernels *) simd_chosen;

static inline const simd_kernels *simd(void) {
  const simd_kernels *k = atomic_load_explicit(&simd_chosen, memory_order_relaxed);
  return likely(k != NULL) ? k : simd_kernels_of(simd_choose());
}

#endif
