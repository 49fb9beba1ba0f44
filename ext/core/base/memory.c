/* memory.c — allocation through a shorn_allocator, buffers, work arrays,
 * arenas. */
#include <stdio.h>
#include <stdlib.h>

#include "memory.h"

void *mem_alloc(const shorn_allocator *a, size_t size) { return mem_realloc(a, NULL, size); }
void *mem_calloc(const shorn_allocator *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = mem_alloc(a, count * size);
  if (p) memset(p, 0, count * size);
  return p;
}
/* A size of 0 would let realloc free the block, or return NULL as though
 * it had failed: always 1 at least. */
void *mem_realloc(const shorn_allocator *a, void *p, size_t size) {
  if (!size) size = 1;
  return a ? a->realloc(a->context, p, size) : realloc(p, size);
}
void mem_free(const shorn_allocator *a, void *p) {
  if (!p) return;
  if (a)
    a->free(a->context, p);
  else
    free(p);
}

bool buffer_grow(shorn_buffer *b, size_t extra) {
  if (extra > SIZE_MAX / 2 - b->length) return false;
  size_t need = b->length + extra;
  size_t cap = b->capacity ? b->capacity : 64;
  while (cap < need) cap *= 2;
  unsigned char *p = mem_realloc(b->allocator, b->data, cap);
  if (!p) return false;
  b->data = p;
  b->capacity = cap;
  return true;
}

void *array_grow(const shorn_allocator *a, void *items, size_t *capacity, size_t need, size_t size,
                 const void *initial) {
  if (items && need <= *capacity) return items;
  size_t cap = *capacity ? *capacity : 16;
  while (cap < need) {
    if (cap > SIZE_MAX / 2 / size) return NULL;
    cap *= 2;
  }
  bool first = items == initial;
  void *p = first ? mem_alloc(a, cap * size) : mem_realloc(a, items, cap * size);
  if (!p) return NULL;
  if (first && initial && *capacity) memcpy(p, initial, *capacity * size);
  *capacity = cap;
  return p;
}

void shorn_buffer_free(shorn_buffer *b) {
  mem_free(b->allocator, b->data);
  b->data = NULL;
  b->length = b->capacity = 0;
}

/* Blocks double up to a ceiling so a small schema costs one allocation and a
 * large DOM does not cost thousands. */
struct arena_block {
  arena_block *next;
  size_t size;
  _Alignas(8) char data[];
};

#define ARENA_FIRST 1024
#define ARENA_CEILING (1u << 20)

/* A block of `block` bytes at the head, where what follows is taken from. */
static bool arena_add_block(arena *a, size_t block) {
  if (block > SIZE_MAX - sizeof(arena_block)) return false;
  arena_block *b = mem_alloc(a->allocator, sizeof(arena_block) + block);
  if (!b) return false;
  b->next = a->head;
  b->size = block;
  a->head = b;
  a->next = b->data;
  a->end = b->data + block;
  return true;
}

void *arena_alloc(arena *a, size_t size) {
  size = (size + 7) & ~(size_t)7;
  if ((size_t)(a->end - a->next) < size) {
    size_t block = a->head ? a->head->size * 2 : ARENA_FIRST;
    if (block > ARENA_CEILING) block = ARENA_CEILING;
    if (block < size) block = size;
    if (!arena_add_block(a, block)) return NULL;
  }
  void *p = a->next;
  a->next += size;
  return p;
}

bool arena_reserve(arena *a, size_t size) {
  if (size > ARENA_CEILING) size = ARENA_CEILING;
  size = (size + 7) & ~(size_t)7;
  return (size_t)(a->end - a->next) >= size || arena_add_block(a, size);
}

char *arena_strdup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + TEXT_PAD);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  memset(p + n, 0, TEXT_PAD);
  return p;
}

void arena_free(arena *a) {
  arena_block *b = a->head;
  while (b) {
    arena_block *next = b->next;
    mem_free(a->allocator, b);
    b = next;
  }
  a->head = NULL;
  a->next = a->end = NULL;
}
