/* memory.h — allocation, growable buffers and work arrays, arenas. */
#ifndef SHORN_MEMORY_H
#define SHORN_MEMORY_H

#include "platform.h"

/* Allocation through `a`, the allocator of the schema or buffer the memory
 * is for; NULL is the C library's. */
SHORN_PRIVATE void *mem_alloc(const shorn_allocator *a, size_t size);
/* Zeroed; NULL when count * size overflows too. */
SHORN_PRIVATE void *mem_calloc(const shorn_allocator *a, size_t count, size_t size);
SHORN_PRIVATE void *mem_realloc(const shorn_allocator *a, void *p, size_t size);
SHORN_PRIVATE void mem_free(const shorn_allocator *a, void *p);

/* Grow so that `extra` more bytes fit, with the buffer's allocator; false
 * when the allocation fails.  The slow path of buffer_reserve, the only
 * one that looks at the allocator. */
SHORN_PRIVATE bool buffer_grow(shorn_buffer *b, size_t extra);

/* Work arrays (a parser's stacks, an encoder's scratch) start in storage of
 * the caller's, on the C stack, so that a small value costs no allocation;
 * past it they move to the heap.  Returns `items`, of *capacity elements of
 * `size` bytes, grown to hold at least `need` (doubling from 16, *capacity
 * updated) or as it was when it already holds them, or NULL when memory runs
 * out (`items` still valid).  `initial`
 * is the first storage, copied from and never freed; an array with none
 * passes NULL, and starts as NULL with capacity 0.  Every growing array of
 * the core and the SQLite layer grows here (hash tables are sized apart). */
SHORN_PRIVATE void *array_grow(const shorn_allocator *a, void *items, size_t *capacity, size_t need, size_t size,
                               const void *initial);
static inline void array_free(const shorn_allocator *a, void *items, const void *initial) {
  if (items != initial) mem_free(a, items);
}

static inline bool buffer_reserve(shorn_buffer *b, size_t extra) {
  return likely(b->capacity - b->length >= extra) || buffer_grow(b, extra);
}
static inline bool buffer_append(shorn_buffer *b, const void *p, size_t n) {
  if (!buffer_reserve(b, n)) return false;
  if (n) memcpy(b->data + b->length, p, n);
  b->length += n;
  return true;
}
/* Copy n bytes to o from a text readable TEXT_PAD bytes past its end, as
 * arena_strdup's are, o having room for n + TEXT_PAD: keys and enum
 * members, whose copies of varying length were a call to memcpy each. */
#define TEXT_PAD 16
static inline void copy_padded(uint8_t *o, const char *p, size_t n) {
  if (n <= TEXT_PAD)
    memcpy(o, p, TEXT_PAD);
  else
    memcpy(o, p, n);
}
/* memcpy of a few bytes (most strings), in moves of a fixed size that
 * overlap, inline: reads and writes n bytes, no more, and costs less than
 * the call. */
static inline void copy_few(uint8_t *o, const uint8_t *s, size_t n) {
  if (n >= 16) {
    for (size_t k = 0; k + 16 < n; k += 16) memcpy(o + k, s + k, 16);
    memcpy(o + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    memcpy(o, s, 8);
    memcpy(o + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    memcpy(o, s, 4);
    memcpy(o + n - 4, s + n - 4, 4);
  } else {
    for (size_t k = 0; k < n; k++) o[k] = s[k];
  }
}
static inline bool buffer_append_padded(shorn_buffer *b, const char *p, size_t n) {
  if (!buffer_reserve(b, n + TEXT_PAD)) return false;
  copy_padded(b->data + b->length, p, n);
  b->length += n;
  return true;
}
static inline bool buffer_byte(shorn_buffer *b, uint8_t c) {
  if (!buffer_reserve(b, 1)) return false;
  b->data[b->length++] = c;
  return true;
}

/* LEB128: seven bits a byte, least significant first. */
static inline bool buffer_uvarint(shorn_buffer *b, uint64_t v) {
  if (!buffer_reserve(b, 10)) return false;
  uint8_t *o = b->data + b->length;
  for (; v >= 0x80; v >>= 7) *o++ = (uint8_t)(v | 0x80);
  *o++ = (uint8_t)v;
  b->length = (size_t)(o - b->data);
  return true;
}

/* Bump allocation for things that die together (a DOM, a compiled schema).
 * An arena may start in storage of the caller's (next and end set to it),
 * which arena_free leaves alone: a small DOM then costs no allocation.
 * arena_free keeps the allocator, so the arena can be used again. */
typedef struct arena_block arena_block;
typedef struct arena {
  arena_block *head;
  char *next, *end;
  const shorn_allocator *allocator; /* its blocks'; NULL: the C library's */
} arena;

SHORN_PRIVATE void *arena_alloc(arena *a, size_t size); /* 8-byte aligned; NULL when out of memory */
/* Room for `size` bytes (up to the blocks' ceiling) in the block allocations
 * are taken from, in one block of that size when the current one lacks it:
 * an owner that can tell what it will hold, as a schema can from its
 * text, asks once and leaves no half-empty block of the doubling.  False
 * when out of memory. */
SHORN_PRIVATE bool arena_reserve(arena *a, size_t size);
/* Copies n bytes and adds TEXT_PAD zero bytes, the first its NUL: a short
 * text can then be copied out in one fixed-size move (copy_padded). */
SHORN_PRIVATE char *arena_strdup(arena *a, const char *s, size_t n);
SHORN_PRIVATE void arena_free(arena *a);

#endif
