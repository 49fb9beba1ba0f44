/*
 * equality.c — JSON values compared as JSON Schema compares them, for
 * const, enum and uniqueItems: numbers by value, strings by their
 * characters, arrays item by item, objects key by key in any order.
 */
#include <stdlib.h>
#include <string.h>

#include "equality.h"

static int compare_keys(const void *a, const void *b) {
  const json_value *x = *(const json_value *const *)a, *y = *(const json_value *const *)b;
  size_t n = x->length < y->length ? x->length : y->length;
  int c = n ? memcmp(x->u.string, y->u.string, n) : 0;
  if (c) return c;
  if (x->length != y->length) return x->length < y->length ? -1 : 1;
  return (x > y) - (x < y); /* of repeated keys the later comes last */
}

bool sorted_members(const shorn_allocator *a, const json_value *object, key_list *m) {
  m->count = 0;
  m->keys = object->length ? mem_alloc(a, object->length * sizeof *m->keys) : NULL;
  if (object->length && !m->keys) return false;
  for (uint32_t i = 0; i < object->length; i++) m->keys[i] = &object->u.items[2 * i];
  if (object->length > 1) qsort(m->keys, object->length, sizeof *m->keys, compare_keys);
  for (uint32_t i = 0; i < object->length; i++) {
    const json_value *k = m->keys[i], *next = i + 1 < object->length ? m->keys[i + 1] : NULL;
    if (next && next->length == k->length && (!k->length || memcmp(next->u.string, k->u.string, k->length) == 0))
      continue;
    m->keys[m->count++] = k;
  }
  return true;
}

static sameness same_object(const shorn_allocator *a, const json_value *x, const json_value *y, int depth) {
  key_list mx, my;
  if (!sorted_members(a, x, &mx)) return SAME_NOMEM;
  if (!sorted_members(a, y, &my)) {
    mem_free(a, mx.keys);
    return SAME_NOMEM;
  }
  sameness s = mx.count == my.count ? SAME_YES : SAME_NO;
  for (uint32_t i = 0; s == SAME_YES && i < mx.count; i++) {
    const json_value *k = mx.keys[i], *l = my.keys[i];
    s = k->length == l->length && (!k->length || memcmp(k->u.string, l->u.string, k->length) == 0)
            ? same_value(a, k + 1, l + 1, depth + 1)
            : SAME_NO;
  }
  mem_free(a, mx.keys);
  mem_free(a, my.keys);
  return s;
}

/* JSON Schema's equality: numbers by value (1 and 1.0, 0 and -0 are one),
 * strings by their characters, arrays item by item, objects key by key. */
sameness same_value(const shorn_allocator *a, const json_value *x, const json_value *y, int depth) {
  if (depth > UNIQUE_DEPTH_MAX) return SAME_TOO_DEEP;
  if (x->type != y->type) return SAME_NO;
  switch (x->type) {
    case JSON_NUMBER: return x->u.number == y->u.number ? SAME_YES : SAME_NO;
    case JSON_STRING:
      return x->length == y->length && (!x->length || memcmp(x->u.string, y->u.string, x->length) == 0) ? SAME_YES
                                                                                                     : SAME_NO;
    case JSON_ARRAY: {
      if (x->length != y->length) return SAME_NO;
      sameness s = SAME_YES;
      for (uint32_t i = 0; s == SAME_YES && i < x->length; i++)
        s = same_value(a, &x->u.items[i], &y->u.items[i], depth + 1);
      return s;
    }
    case JSON_OBJECT: return same_object(a, x, y, depth);
    default: return SAME_YES;
  }
}

static uint64_t equality_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}

static uint64_t bytes_hash(const char *s, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001B3ull;
  return h;
}

/* Objects of more members than this hash alike, and compare in full. */
#define HASHED_MEMBERS_MAX 16

/* A hash that equal values share: an object's members are summed, so
 * their order does not count, and a repeated key counts once, its last
 * value, as JSON.parse keeps it. */
static uint64_t value_hash(const json_value *v, int depth) {
  uint64_t h = v->type;
  if (depth > UNIQUE_DEPTH_MAX) return h;
  switch (v->type) {
    case JSON_NUMBER: {
      double x = v->u.number == 0 ? 0 : v->u.number;
      uint64_t bits;
      memcpy(&bits, &x, 8);
      return equality_mix(h, bits);
    }
    case JSON_STRING: return equality_mix(h, bytes_hash(v->u.string, v->length));
    case JSON_ARRAY:
      for (uint32_t i = 0; i < v->length; i++) h = equality_mix(h, value_hash(&v->u.items[i], depth + 1));
      return h;
    case JSON_OBJECT: {
      if (v->length > HASHED_MEMBERS_MAX) return h;
      uint64_t sum = 0;
      for (uint32_t i = 0; i < v->length; i++) {
        const json_value *k = &v->u.items[2 * i];
        bool repeated = false;
        for (uint32_t j = i + 1; j < v->length && !repeated; j++)
          repeated = v->u.items[2 * j].length == k->length &&
                     (!k->length || memcmp(v->u.items[2 * j].u.string, k->u.string, k->length) == 0);
        if (!repeated) sum += equality_mix(bytes_hash(k->u.string, k->length), value_hash(k + 1, depth + 1));
      }
      return equality_mix(h, sum);
    }
    default: return h;
  }
}

typedef struct hashed_item {
  uint64_t hash;
  uint32_t index;
} hashed_item;

static int compare_hashed(const void *a, const void *b) {
  const hashed_item *x = a, *y = b;
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* The first item that repeats an earlier one: *later its index (UINT32_MAX
 * when none) and *earlier the one it repeats.  Items are hashed and sorted,
 * and only items of one hash compared in full. */
sameness find_repeat(const shorn_allocator *a, const json_value *array, uint32_t *earlier, uint32_t *later) {
  *later = UINT32_MAX;
  uint32_t n = array->length;
  if (n < 2) return SAME_NO;
  hashed_item *items = mem_alloc(a, n * sizeof *items);
  if (!items) return SAME_NOMEM;
  for (uint32_t i = 0; i < n; i++) items[i] = (hashed_item){value_hash(&array->u.items[i], 0), i};
  qsort(items, n, sizeof *items, compare_hashed);
  /* Within one hash, items are in index order: once past the repeat found
   * so far, nothing nearer the front can follow. */
  sameness failure = SAME_NO;
  for (uint32_t i = 0; i < n && failure == SAME_NO; i++)
    for (uint32_t j = i + 1; j < n && items[j].hash == items[i].hash && items[j].index < *later; j++) {
      sameness s = same_value(a, &array->u.items[items[i].index], &array->u.items[items[j].index], 0);
      if (s == SAME_YES) {
        *earlier = items[i].index;
        *later = items[j].index;
      } else if (s != SAME_NO) {
        failure = s;
        break;
      }
    }
  mem_free(a, items);
  return failure != SAME_NO ? failure : *later == UINT32_MAX ? SAME_NO : SAME_YES;
}
