/* encoder.h — the encoder's state and its writers, private to encode.c and
 * pass.c.  The tree walker (encode.c) writes a tree's values with them; the
 * one pass (pass.c) writes with the same encoder, and hands each scalar it
 * reads to the walker's functions declared below, so that a value's rules
 * and bytes are the walker's own whichever way the text took.  What both
 * call for every value is inline here, so that neither pays a call for it. */
#ifndef SHORN_ENCODER_H
#define SHORN_ENCODER_H

#include <math.h>
#include <string.h>

#include "core/base/memory.h"
#include "core/base/platform.h"
#include "core/json/json.h"
#include "core/schema/validate.h"
#include "core/shape/shape.h"
#include "core/text/error.h"

/* An encoder's first storage, on the C stack: a record then costs no
 * allocation but its output, which matters most to small records. */
typedef struct encoder_storage {
  uint32_t depth[REF_DEPTHS_HERE];
  const json_value *scratch[64];
  path_segment path[16];
  validator validator;
} encoder_storage;

typedef struct encoder {
  shorn_buffer *out;
  shorn_error *error;
  const shorn_allocator *allocator; /* the schema's, for the scratch below */
  uint32_t *ref_depth; /* open levels per definition */
  uint32_t nesting;
  /* One stack shared by every object on the walk, for the members it
   * matched to fields and the extras it found; frames refer to it by index
   * because an inner object may move it. */
  const json_value **scratch;
  size_t scratch_used, scratch_capacity;
  path_segment *path; /* innermost first */
  size_t path_length, path_capacity;
  bool checked; /* validation keywords are checked */
  bool defaults; /* a member left out is written with its field's default: the validated mode's */
  /* The validator, in the storage below, made ready the first time a value
   * needs more than validation_passes: most encodes never do. */
  validator *validator;
  encoder_storage *here; /* the first storage of all these, on the C stack */
} encoder;

static inline shorn_code encoder_nomem(encoder *e) { return error_nomem(e->error); }

/* ---- writers ------------------------------------------------------------ */

static inline shorn_code put_uvarint(encoder *e, uint64_t v) {
  return buffer_uvarint(e->out, v) ? SHORN_OK : encoder_nomem(e);
}

static inline shorn_code put_zigzag(encoder *e, int64_t v) {
  return put_uvarint(e, zigzag_encode(v));
}

static inline shorn_code put_f64(encoder *e, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  if (!buffer_reserve(e->out, 8)) return encoder_nomem(e);
  store_le64(e->out->data + e->out->length, bits);
  e->out->length += 8;
  return SHORN_OK;
}

static inline bool is_safe_integer(double x) {
  return x >= -MAX_SAFE_INTEGER && x <= MAX_SAFE_INTEGER && x == (double)(int64_t)x;
}

static inline shorn_code put_bytes(encoder *e, const void *p, size_t n) {
  return buffer_append(e->out, p, n) ? SHORN_OK : encoder_nomem(e);
}

static inline shorn_code put_tag(encoder *e, dynamic_tag tag) {
  uint8_t byte = (uint8_t)tag;
  return put_bytes(e, &byte, 1);
}

/* Does the JSON value equal the scalar?  `same_value` is JavaScript's
 * Object.is (a literal), otherwise SameValueZero (an enum, a case). */
static inline bool scalar_equals(const scalar *s, const json_value *v, bool same_value) {
  if (!v || v->type != s->type) return false;
  switch (s->type) {
    case JSON_NUMBER:
      return v->u.number == s->number &&
             (!same_value || signbit(v->u.number) == signbit(s->number));
    case JSON_STRING:
      return v->length == s->string_length && short_equal(v->u.string, s->string, v->length);
    default: return true;
  }
}

/* Stable merge sort of n items of `size` bytes, tmp room for as many:
 * `before(context, x, y)` says whether x goes strictly before y, so that of
 * items that tie the first stays first.  Bottom-up rather than recursive,
 * so that it inlines into each caller with `before` known: the tree's
 * keys and the pass's spans share it and neither pays an indirect call. */
static ALWAYS_INLINE void merge_sort(void *items, void *tmp, size_t n, size_t size,
                                     bool (*before)(const void *context, const void *x, const void *y),
                                     const void *context) {
  char *from = items, *to = tmp;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = n - lo > width ? lo + width : n, hi = n - mid > width ? mid + width : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (before(context, from + j * size, from + i * size))
          memcpy(to + k++ * size, from + j++ * size, size);
        else
          memcpy(to + k++ * size, from + i++ * size, size);
      }
      while (i < mid) memcpy(to + k++ * size, from + i++ * size, size);
      while (j < hi) memcpy(to + k++ * size, from + j++ * size, size);
    }
    char *t = from;
    from = to, to = t;
  }
  if (from != items) memcpy(items, from, n * size);
}

/* The index of the enum member a string value is, or -1.  Most enums are
 * of strings: their lengths, compared first, tell most members apart
 * without reading a byte. */
static inline int64_t enum_string_index(const shape *s, const json_value *v) {
  const scalar *values = s->u.enumeration.members;
  for (uint32_t i = 0; i < s->u.enumeration.count; i++)
    if (values[i].type == JSON_STRING && values[i].string_length == v->length &&
        short_equal(values[i].string, v->u.string, v->length))
      return i;
  return -1;
}

/* Make `e` ready to write into `out`, or into `discarded` when `out` is
 * NULL, at a place `nesting` levels below the root with the definitions'
 * open levels `ref_depth` (NULL: none open), as an encode_place gives them:
 * 0 and NULL at the root. */
static ALWAYS_INLINE shorn_code encoder_open(encoder *e, encoder_storage *here, const shorn_schema *s,
                                             uint32_t nesting, const uint32_t *ref_depth, shorn_buffer *out,
                                             shorn_buffer *discarded, shorn_error *error, bool checked) {
  *discarded = (shorn_buffer){.allocator = s->allocator};
  *e = (encoder){.out = out ? out : discarded,
                 .error = error,
                 .allocator = s->allocator,
                 .ref_depth = here->depth,
                 .nesting = nesting,
                 .scratch = here->scratch,
                 .scratch_capacity = 64,
                 .path = here->path,
                 .path_capacity = 16,
                 .checked = checked,
                 .defaults = checked,
                 .here = here};
  if (checked && s->uncheckable) {
    *error = *s->uncheckable;
    return SHORN_ERROR_SCHEMA;
  }
  /* Only the depths the schema's definitions use are set: clearing them
   * all costs a small record's encode more than its fields. */
  if (s->def_count > REF_DEPTHS_HERE && !(e->ref_depth = mem_calloc(s->allocator, s->def_count, sizeof *e->ref_depth))) {
    e->ref_depth = here->depth;
    return error_nomem(error);
  }
  if (ref_depth)
    memcpy(e->ref_depth, ref_depth, s->def_count * sizeof *e->ref_depth);
  else if (e->ref_depth == here->depth && s->def_count)
    memset(here->depth, 0, s->def_count * sizeof *here->depth);
  return SHORN_OK;
}

static ALWAYS_INLINE void encoder_close(encoder *e, encoder_storage *here, shorn_buffer *discarded) {
  if (e->ref_depth != here->depth) mem_free(e->allocator, e->ref_depth);
  array_free(e->allocator, (void *)e->scratch, here->scratch);
  array_free(e->allocator, e->path, here->path);
  if (e->validator) validator_release(e->validator);
  if (discarded->data) shorn_buffer_free(discarded);
}

static inline shorn_code put_fingerprint(encoder *e, const shorn_schema *s, int width) {
  uint8_t prefix[4];
  fingerprint_bytes(s, width, prefix);
  return put_bytes(e, prefix, (size_t)width);
}

/* The tree walker's functions the one pass hands a value to: its writers
 * and checks of a scalar, and the whole walk of a text the pass leaves. */
SHORN_PRIVATE shorn_code put_string_value(encoder *e, const json_value *v);
SHORN_PRIVATE shorn_code encode_number(encoder *e, shape_kind kind, const json_value *v);
SHORN_PRIVATE shorn_code encode_enum(encoder *e, const shape *s, const json_value *v);
SHORN_PRIVATE shorn_code encode_dynamic(encoder *e, const json_value *v, int depth);
SHORN_PRIVATE shorn_code encode_shape(encoder *e, const shape *s, const json_value *v);
SHORN_PRIVATE shorn_code encode_value(encoder *e, const shape *s, const json_value *v);
SHORN_PRIVATE shorn_code encode_tree(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                                     shorn_buffer *out, shorn_error *error, bool checked);

#endif
