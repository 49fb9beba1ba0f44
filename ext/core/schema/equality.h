/* equality.h — JSON values compared as JSON Schema compares them
 * (equality.c). */
#ifndef SHORN_EQUALITY_H
#define SHORN_EQUALITY_H

#include "core/base/memory.h"
#include "core/base/platform.h"
#include "core/json/json.h"

/* Values compared nest at most this deep: the comparison recurses. */
#define UNIQUE_DEPTH_MAX 128

/* An object's members, each key once (the last, as JSON.parse keeps it),
 * sorted by key bytes: equal objects list equal keys in the same order.
 * False when memory ran out; the keys are mem_free'd by the caller. */
typedef struct key_list {
  const json_value **keys;
  uint32_t count;
} key_list;
SHORN_PRIVATE bool sorted_members(const shorn_allocator *a, const json_value *object, key_list *m);

typedef enum { SAME_NO, SAME_YES, SAME_NOMEM, SAME_TOO_DEEP } sameness;

/* JSON Schema's equality of x and y, `depth` levels down already. */
SHORN_PRIVATE sameness same_value(const shorn_allocator *a, const json_value *x, const json_value *y, int depth);

/* The first item of `array` that repeats an earlier one: *later its index
 * (UINT32_MAX when none) and *earlier the one it repeats. */
SHORN_PRIVATE sameness find_repeat(const shorn_allocator *a, const json_value *array, uint32_t *earlier,
                                   uint32_t *later);

#endif
