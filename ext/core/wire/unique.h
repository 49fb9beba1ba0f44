/* unique.h — Set elements and Map keys, as a JavaScript Set sees them. */
#ifndef SHORN_UNIQUE_H
#define SHORN_UNIQUE_H

#include "core/base/platform.h"
#include "core/base/memory.h"
#include "core/shape/shape.h"

/* Holds the SameValueZero identity of each primitive value added; objects
 * and arrays have none, since every decoded one is a fresh reference.  Start
 * it zeroed but for identities.allocator, which all of its memory comes
 * from: it grows with what is added, not with what a count claims. */
typedef struct unique_set {
  uint32_t *slots; /* open addressing: entry + 1, 0 empty */
  uint32_t mask, count;
  size_t *offsets;         /* where each entry's identity starts */
  shorn_buffer identities; /* each: a 4-byte length, then the bytes */
} unique_set;

/* Add the value whose encoding (of shape `s`) is `bytes`: 1 when new or not
 * a primitive, 0 when it repeats an earlier one, -1 when out of memory. */
SHORN_PRIVATE int unique_add(unique_set *u, const shape *s, const uint8_t *bytes, size_t n);
SHORN_PRIVATE void unique_free(unique_set *u);

#endif
