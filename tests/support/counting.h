/*
 * counting.h — a shorn_allocator that counts what the codec holds, for the
 * tests that bound memory and the fuzz harnesses: bytes and blocks
 * outstanding, the peak, calls; and that can fail a call.
 *
 *   shorn_schema_compile(text, n, &counting_allocator, &s, &e);
 *   shorn_buffer out = {.allocator = &counting_allocator};
 *   counting_mark();  ...work...  counted.peak - counted.mark
 *
 * Its context is the `counting` that counts, `counted` when NULL, so that
 * several allocators can be told apart: each block carries its size and the
 * counting that allocated it in a header in front of it, so frees are
 * counted exactly, and a block freed or resized through another counting
 * is counted as foreign by that one.  The block itself comes from malloc,
 * so ASan and valgrind still see an overread past its end.
 */
#ifndef SHORN_COUNTING_H
#define SHORN_COUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shorn.h"

typedef struct counting {
  size_t current, peak, mark; /* bytes held; most held since the mark; held at the mark */
  size_t blocks;              /* blocks held */
  unsigned long calls;        /* allocations and reallocations asked for */
  unsigned long fail_at;      /* fail that call (1-based); 0 never */
  bool persistent;            /* and every call after it */
  unsigned long failures;     /* calls failed on purpose */
  unsigned long foreign;      /* blocks of another counting's freed or resized here */
} counting;

static counting counted;

/* Room for the size and the owner, keeping malloc's alignment for the block
 * after it. */
#define COUNTING_HEADER 16
_Static_assert(sizeof(size_t) + sizeof(counting *) <= COUNTING_HEADER, "the header holds both");

static inline counting *counting_of(void *context) { return context ? (counting *)context : &counted; }

/* Whether the call being made now is one to fail. */
static inline bool counting_should_fail(counting *c) {
  c->calls++;
  if (!c->fail_at || c->calls < c->fail_at) return false;
  if (c->calls > c->fail_at && !c->persistent) return false;
  c->failures++;
  return true;
}

/* Take the block whose header is at `base` off its owner's count, as `c`
 * frees or resizes it. */
static inline void counting_forget(counting *c, const char *base) {
  size_t n;
  counting *owner;
  memcpy(&n, base, sizeof n);
  memcpy(&owner, base + sizeof n, sizeof owner);
  if (owner != c) c->foreign++;
  owner->current -= n;
  owner->blocks--;
}

static inline void *counting_realloc(void *context, void *p, size_t n) {
  counting *c = counting_of(context);
  if (counting_should_fail(c) || n > SIZE_MAX - COUNTING_HEADER) return NULL;
  char *base = p ? (char *)p - COUNTING_HEADER : NULL;
  char old[COUNTING_HEADER];
  if (base) memcpy(old, base, sizeof old);
  char *q = realloc(base, n + COUNTING_HEADER);
  if (!q) return NULL;
  if (base) counting_forget(c, old);
  memcpy(q, &n, sizeof n);
  memcpy(q + sizeof n, &c, sizeof c);
  c->current += n;
  c->blocks++;
  if (c->current > c->peak) c->peak = c->current;
  return q + COUNTING_HEADER;
}

static inline void counting_free(void *context, void *p) {
  if (!p) return;
  char *base = (char *)p - COUNTING_HEADER;
  counting_forget(counting_of(context), base);
  free(base);
}

/* The allocator that counts in `counted`. */
static const shorn_allocator counting_allocator = {counting_realloc, counting_free, NULL};

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
