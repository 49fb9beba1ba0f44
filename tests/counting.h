/*
 * counting.h — an allocator for shorn_set_allocator that counts what the
 * codec holds, for the tests that bound memory and the fuzz harnesses:
 * bytes and blocks outstanding, the peak, calls; and that can fail a call.
 *
 *   shorn_set_allocator(counting_realloc, counting_free);
 *   counting_mark();  ...work...  counted.peak - counted.mark
 *
 * Each block carries its size in a header in front of it, so frees are
 * counted exactly; the block itself comes from malloc, so ASan and valgrind
 * still see an overread past its end.
 */
#ifndef SHORN_COUNTING_H
#define SHORN_COUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct counting {
  size_t current, peak, mark; /* bytes held; most held since the mark; held at the mark */
  size_t blocks;              /* blocks held */
  unsigned long calls;        /* allocations and reallocations asked for */
  unsigned long fail_at;      /* fail that call (1-based); 0 never */
  bool persistent;            /* and every call after it */
  unsigned long failures;     /* calls failed on purpose */
} counting;

static counting counted;

/* Room for the size, keeping malloc's alignment for the block after it. */
#define COUNTING_HEADER 16

/* Whether the call being made now is one to fail. */
static inline bool counting_should_fail(void) {
  counted.calls++;
  if (!counted.fail_at || counted.calls < counted.fail_at) return false;
  if (counted.calls > counted.fail_at && !counted.persistent) return false;
  counted.failures++;
  return true;
}

static inline void *counting_realloc(void *p, size_t n) {
  if (counting_should_fail() || n > SIZE_MAX - COUNTING_HEADER) return NULL;
  char *base = p ? (char *)p - COUNTING_HEADER : NULL;
  size_t old = 0;
  if (base) memcpy(&old, base, sizeof old);
  char *q = realloc(base, n + COUNTING_HEADER);
  if (!q) return NULL;
  memcpy(q, &n, sizeof n);
  counted.current = counted.current - old + n;
  if (!base) counted.blocks++;
  if (counted.current > counted.peak) counted.peak = counted.current;
  return q + COUNTING_HEADER;
}

static inline void counting_free(void *p) {
  if (!p) return;
  char *base = (char *)p - COUNTING_HEADER;
  size_t n;
  memcpy(&n, base, sizeof n);
  counted.current -= n;
  counted.blocks--;
  free(base);
}

/* What one call of the codec may hold at once, in the tests that bound
 * memory and in the fuzz harnesses: a small multiple of the bytes it read
 * plus the bytes it wrote, and a little for its fixed state.  The input's
 * share is what a DOM costs at worst (a JSON "[" is one byte of text and
 * three words of parser state); the output's covers the output buffer's
 * doubling and an open object's member list. */
#define COUNTING_PER_INPUT_BYTE 64
#define COUNTING_PER_OUTPUT_BYTE 24
#define COUNTING_FIXED 65536
#define COUNTING_BOUND(in, out) \
  (COUNTING_PER_INPUT_BYTE * (size_t)(in) + COUNTING_PER_OUTPUT_BYTE * (size_t)(out) + COUNTING_FIXED)

/* Start measuring: the peak from here on, and no failure planned. */
static inline void counting_mark(void) {
  counted.mark = counted.peak = counted.current;
  counted.calls = counted.fail_at = counted.failures = 0;
  counted.persistent = false;
}

/* The most held at once since the mark, beyond what was held at the mark. */
static inline size_t counting_peak(void) { return counted.peak - counted.mark; }

#endif
