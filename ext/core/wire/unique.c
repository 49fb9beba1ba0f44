/*
 * unique.c — which Set elements and Map keys JavaScript would merge.
 *
 * A JavaScript Set merges primitives under SameValueZero and never merges
 * objects, since each decoded object is a fresh reference.  Encode and decode
 * both hand this file the bytes of one element as written on the wire; it
 * derives the element's identity from them, so the two paths share one rule.
 * Within one element shape a primitive has one encoding except for numbers
 * (0 and -0, NaN payloads, a dynamic integer and float), which are compared
 * as normalised doubles.
 */
#include <math.h>

#include "unique.h"

#include "core/numbers/number.h"
#include "core/text/text.h"

enum {
  ID_NULL = 'z',
  ID_BOOLEAN = 'b',
  ID_NUMBER = 'n',
  ID_STRING = 's',
  ID_UUID = 'u',
  ID_DATETIME = 't',
  ID_BIGINT = 'i',
};

/* A varint from bytes that already decoded successfully. */
static uint64_t unique_known_varint(const uint8_t **p) {
  uint64_t v = 0;
  int shift = 0;
  for (;;) {
    uint8_t b = *(*p)++;
    if (shift < 64) v |= (uint64_t)(b & 0x7F) << shift;
    if (!(b & 0x80)) return v;
    shift += 7;
  }
}

static double unique_zigzag_value(const uint8_t **p) { return (double)zigzag_decode(unique_known_varint(p)); }

static bool unique_put_identity(shorn_buffer *id, uint8_t kind, const void *bytes, size_t n) {
  return buffer_byte(id, kind) && buffer_append(id, bytes, n);
}

static bool unique_put_number(shorn_buffer *id, double v) {
  if (v == 0) v = 0; /* SameValueZero: -0 is 0 */
  if (isnan(v)) v = NAN; /* and every NaN is every other */
  uint64_t bits;
  memcpy(&bits, &v, 8);
  return unique_put_identity(id, ID_NUMBER, &bits, 8);
}

static bool unique_put_scalar(shorn_buffer *id, const scalar *s) {
  switch (s->type) {
    case JSON_NULL: return unique_put_identity(id, ID_NULL, NULL, 0);
    case JSON_FALSE: return unique_put_identity(id, ID_BOOLEAN, "\0", 1);
    case JSON_TRUE: return unique_put_identity(id, ID_BOOLEAN, "\1", 1);
    case JSON_NUMBER: return unique_put_number(id, s->number);
    default: return unique_put_identity(id, ID_STRING, s->string, s->string_length);
  }
}

/* Append the identity of the value encoded at p[0..n): 1 when it is a
 * primitive, 0 when it is not, -1 when out of memory. */
static int unique_identity(shorn_buffer *id, const shape *s, const uint8_t *p, size_t n) {
  const uint8_t *end = p + n, *q = p;
  bool ok;
  switch (s->kind) {
    case SHAPE_ANY:
      switch (*q++) {
        case DYNAMIC_NULL: ok = unique_put_identity(id, ID_NULL, NULL, 0); break;
        case DYNAMIC_FALSE: ok = unique_put_identity(id, ID_BOOLEAN, "\0", 1); break;
        case DYNAMIC_TRUE: ok = unique_put_identity(id, ID_BOOLEAN, "\1", 1); break;
        case DYNAMIC_INTEGER: ok = unique_put_number(id, unique_zigzag_value(&q)); break;
        case DYNAMIC_NUMBER: ok = unique_put_number(id, load_f64_le(q)); break;
        case DYNAMIC_STRING:
          unique_known_varint(&q);
          ok = unique_put_identity(id, ID_STRING, q, (size_t)(end - q));
          break;
        default: return 0;
      }
      break;
    case SHAPE_BOOLEAN: ok = unique_put_identity(id, ID_BOOLEAN, p, 1); break;
    case SHAPE_FLOAT64: ok = unique_put_number(id, load_f64_le(p)); break;
    case SHAPE_FLOAT32: ok = unique_put_number(id, load_f32_le(p)); break;
    case SHAPE_INT: ok = unique_put_number(id, unique_zigzag_value(&q)); break;
    case SHAPE_UINT: ok = unique_put_number(id, (double)unique_known_varint(&q)); break;
    case SHAPE_STRING:
      unique_known_varint(&q);
      ok = unique_put_identity(id, ID_STRING, q, (size_t)(end - q));
      break;
    case SHAPE_UUID: ok = unique_put_identity(id, ID_UUID, p, n); break;
    case SHAPE_DATETIME: ok = unique_put_identity(id, ID_DATETIME, p, n); break;
    case SHAPE_BIGINT: ok = unique_put_identity(id, ID_BIGINT, p, n); break;
    case SHAPE_LITERAL: ok = unique_put_scalar(id, &s->u.literal); break;
    case SHAPE_ENUM: ok = unique_put_scalar(id, &s->u.enumeration.members[unique_known_varint(&q)]); break;
    case SHAPE_NULLABLE:
      if (*p == 0) {
        ok = unique_put_identity(id, ID_NULL, NULL, 0);
        break;
      }
      return unique_identity(id, s->u.inner, p + 1, n - 1);
    case SHAPE_UNION: {
      /* One branch per JSON type, so equal primitives share a branch. */
      uint64_t branch = unique_known_varint(&q);
      return unique_identity(id, s->u.choice.branches[branch], q, (size_t)(end - q));
    }
    case SHAPE_REF: return unique_identity(id, s->u.ref.target, p, n);
    default: return 0; /* bytes, arrays, objects and the rest are objects */
  }
  return ok ? 1 : -1;
}

static const uint8_t *unique_entry(const unique_set *u, uint32_t i, uint32_t *length) {
  const uint8_t *at = u->identities.data + u->offsets[i];
  memcpy(length, at, 4);
  return at + 4;
}

static bool unique_rehash(unique_set *u) {
  const shorn_allocator *a = u->identities.allocator;
  uint32_t size = u->mask ? (u->mask + 1) * 2 : 16;
  uint32_t *slots = mem_calloc(a, size, sizeof *slots);
  size_t *offsets = mem_realloc(a, u->offsets, size / 2 * sizeof *offsets);
  if (!slots || !offsets) {
    mem_free(a, slots);
    if (offsets) u->offsets = offsets;
    return false;
  }
  u->offsets = offsets;
  for (uint32_t i = 0; i < u->count; i++) {
    uint32_t length;
    const uint8_t *bytes = unique_entry(u, i, &length);
    uint32_t h = fnv1a32(bytes, length) & (size - 1);
    while (slots[h]) h = (h + 1) & (size - 1);
    slots[h] = i + 1;
  }
  mem_free(a, u->slots);
  u->slots = slots;
  u->mask = size - 1;
  return true;
}

int unique_add(unique_set *u, const shape *s, const uint8_t *bytes, size_t n) {
  size_t start = u->identities.length;
  uint32_t placeholder = 0;
  if (!buffer_append(&u->identities, &placeholder, 4)) return -1;
  int primitive = unique_identity(&u->identities, s, bytes, n);
  if (primitive <= 0) {
    u->identities.length = start;
    return primitive < 0 ? -1 : 1;
  }
  uint32_t length = (uint32_t)(u->identities.length - start - 4);
  memcpy(u->identities.data + start, &length, 4);
  const uint8_t *id = u->identities.data + start + 4;
  if (u->count >= (u->mask + 1) / 2) {
    if (!unique_rehash(u)) return -1;
    id = u->identities.data + start + 4;
  }
  uint32_t h = fnv1a32(id, length) & u->mask;
  for (; u->slots[h]; h = (h + 1) & u->mask) {
    uint32_t other_length;
    const uint8_t *other = unique_entry(u, u->slots[h] - 1, &other_length);
    if (other_length == length && memcmp(other, id, length) == 0) {
      u->identities.length = start;
      return 0;
    }
  }
  u->offsets[u->count] = start;
  u->slots[h] = ++u->count;
  return 1;
}

void unique_free(unique_set *u) {
  const shorn_allocator *a = u->identities.allocator;
  mem_free(a, u->slots);
  mem_free(a, u->offsets);
  shorn_buffer_free(&u->identities);
  *u = (unique_set){.identities.allocator = a};
}
