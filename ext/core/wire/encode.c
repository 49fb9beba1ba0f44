/*
 * encode.c — a JSON value to payload bytes.
 *
 * The JSON text is parsed into a DOM first, because the wire wants an
 * object's fields in canonical order and the text may list them in any.
 * Errors carry the path of the value that failed, collected while the
 * walk unwinds so that a successful encode pays nothing for it.  A shape
 * with validation keywords (validate.c) has its value checked against them
 * first, unless the call is unchecked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/text/base64.h"

#include "core/numbers/bigint.h"
#include "core/numbers/datetime.h"
#include "encode.h"
#include "core/text/error.h"
#include "core/json/json.h"
#include "core/json/token.h"
#include "core/numbers/number.h"
#include "core/shape/shape.h"
#include "core/text/text.h"
#include "unique.h"
#include "core/schema/validate.h"

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

static shorn_code encode_fail(encoder *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
static shorn_code encode_fail(encoder *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(e->error, SHORN_ERROR_ENCODE, SHORN_WHERE_PATH, -1, fmt, ap);
  va_end(ap);
  return SHORN_ERROR_ENCODE;
}

static shorn_code encoder_nomem(encoder *e) { return error_nomem(e->error); }

/* "Expected an object, got a string": a value of the wrong JSON type is
 * refused naming the type it has. */
static shorn_code expected_type(encoder *e, const char *wanted, const json_value *v) {
  static const char *const got[] = {[JSON_NULL] = "null",        [JSON_FALSE] = "a boolean", [JSON_TRUE] = "a boolean",
                                    [JSON_NUMBER] = "a number",  [JSON_STRING] = "a string", [JSON_ARRAY] = "an array",
                                    [JSON_OBJECT] = "an object"};
  return encode_fail(e, "Expected %s, got %s", wanted, got[v->type]);
}

/* A string or collection past its limit, refused with both numbers, so a
 * reader sees how far over it is. */
static shorn_code too_large_value(encoder *e, const char *what, uint64_t n, const char *unit, long limit) {
  return encode_fail(e, "%s is too large: %llu %s, the limit is %ld", what, (unsigned long long)n, unit, limit);
}

/* On the way out of a failed child, note where it was.  Only value errors
 * get a path; running out of memory has nowhere to point, and a path cut
 * short for want of memory would point somewhere else (shorn_check hands
 * it out as an answer), so that is running out of memory too. */
static shorn_code at_segment(encoder *e, shorn_code rc, const char *key, uint32_t key_length,
                             uint64_t index) {
  if (rc != SHORN_ERROR_ENCODE) return rc;
  if (e->path_length == e->path_capacity) {
    path_segment *p =
        array_grow(e->allocator, e->path, &e->path_capacity, e->path_length + 1, sizeof *p, e->here->path);
    if (!p) return encoder_nomem(e);
    e->path = p;
  }
  e->path[e->path_length++] = (path_segment){key, key_length, index};
  return rc;
}
static inline shorn_code at_key(encoder *e, shorn_code rc, const char *key, uint32_t n) {
  return rc ? at_segment(e, rc, key, n, 0) : rc;
}
static inline shorn_code at_index(encoder *e, shorn_code rc, uint64_t i) {
  return rc ? at_segment(e, rc, NULL, 0, i) : rc;
}

static bool is_identifier(const char *s, size_t n) {
  if (!n || is_digit(s[0])) return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!(is_letter(c) || is_digit(c) || c == '_' || c == '$'))
      return false;
  }
  return true;
}

/* `$.tags[3]`, `$."a key"`: SQLite's JSON path spelling, so the path can be
 * pasted into shorn_extract.  Cut short at a character boundary with "…"
 * when it will not fit.  False when memory ran out. */
static bool format_path(encoder *e) {
  shorn_buffer b = {.allocator = e->allocator};
  bool ok = buffer_byte(&b, '$');
  for (size_t i = e->path_length; ok && i-- > 0;) {
    const path_segment *s = &e->path[i];
    char text[32];
    if (!s->key) {
      ok = buffer_append(&b, text, (size_t)snprintf(text, sizeof text, "[%llu]",
                                                     (unsigned long long)s->index));
    } else if (is_identifier(s->key, s->key_length)) {
      ok = buffer_byte(&b, '.') && buffer_append(&b, s->key, s->key_length);
    } else {
      ok = buffer_byte(&b, '.') && buffer_json_string(&b, s->key, s->key_length);
    }
  }
  char *path = e->error->path;
  size_t n = b.length;
  if (ok && n >= SHORN_PATH_MAX) {
    n = utf8_cut((const char *)b.data, SHORN_PATH_MAX - sizeof TEXT_ELLIPSIS);
    memcpy(path, b.data, n);
    memcpy(path + n, TEXT_ELLIPSIS, sizeof TEXT_ELLIPSIS);
  } else if (ok) {
    memcpy(path, b.data, n);
    path[n] = 0;
  }
  shorn_buffer_free(&b);
  return ok;
}

/* ---- writers ------------------------------------------------------------ */

static inline shorn_code put_uvarint(encoder *e, uint64_t v) {
  return buffer_uvarint(e->out, v) ? SHORN_OK : encoder_nomem(e);
}

static inline shorn_code put_zigzag(encoder *e, int64_t v) {
  return put_uvarint(e, zigzag_encode(v));
}

static inline shorn_code put_bytes(encoder *e, const void *p, size_t n) {
  return buffer_append(e->out, p, n) ? SHORN_OK : encoder_nomem(e);
}

static inline shorn_code put_tag(encoder *e, dynamic_tag tag) {
  uint8_t byte = (uint8_t)tag;
  return put_bytes(e, &byte, 1);
}

static shorn_code put_f64(encoder *e, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  if (!buffer_reserve(e->out, 8)) return encoder_nomem(e);
  store_le64(e->out->data + e->out->length, bits);
  e->out->length += 8;
  return SHORN_OK;
}

/* Math.fround: to the nearest float32, and past its range to infinity.  The
 * overflow is handled before the conversion, which C leaves undefined. */
static shorn_code put_f32(encoder *e, double v) {
  float f;
  if (fabs(v) >= 0x1.ffffffp127) /* FLT_MAX plus half an ulp rounds up */
    f = v < 0 ? -INFINITY : INFINITY;
  else if (fabs(v) > 0x1.fffffep127)
    f = v < 0 ? -0x1.fffffep127f : 0x1.fffffep127f;
  else
    f = (float)v;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if (!buffer_reserve(e->out, 4)) return encoder_nomem(e);
  store_le32(e->out->data + e->out->length, bits);
  e->out->length += 4;
  return SHORN_OK;
}

/* Strings up to this long are copied inline: below it the call of memcpy
 * cost more than its copy. */
#define STRING_COPIED_INLINE 32

static shorn_code put_string_value(encoder *e, const json_value *v) {
  if (v->flags & JSON_LONE_SURROGATE) return encode_fail(e, "String contains an unpaired surrogate");
  if (v->length > SHORN_MAX_BYTES) return too_large_value(e, "String", v->length, "bytes", SHORN_MAX_BYTES);
  /* Room for the length and the bytes at once, rather than a reservation
   * for each. */
  size_t n = v->length;
  if (!buffer_reserve(e->out, 10 + n)) return encoder_nomem(e);
  buffer_uvarint(e->out, n); /* its room is there: it cannot fail */
  uint8_t *o = e->out->data + e->out->length;
  if (n <= STRING_COPIED_INLINE)
    copy_few(o, (const uint8_t *)v->u.string, n);
  else
    memcpy(o, v->u.string, n);
  e->out->length += n;
  return SHORN_OK;
}

/* ---- value tests --------------------------------------------------------- */

static inline bool is_safe_integer(double x) {
  return x >= -MAX_SAFE_INTEGER && x <= MAX_SAFE_INTEGER && x == (double)(int64_t)x;
}

/* An integer, however large: what is beyond the safe integers is told
 * apart from a fraction in messages. */
static inline bool is_integral(double x) { return isfinite(x) && x == floor(x); }

static inline bool is_negative_zero(double x) { return x == 0 && signbit(x); }

/* Does the JSON value equal the scalar?  `same_value` is JavaScript's
 * Object.is (a literal), otherwise SameValueZero (an enum, a case). */
static bool scalar_equals(const scalar *s, const json_value *v, bool same_value) {
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

static json_kind kind_of(const json_value *v) {
  switch (v->type) {
    case JSON_NULL: return KIND_NULL;
    case JSON_FALSE:
    case JSON_TRUE: return KIND_BOOLEAN;
    case JSON_NUMBER: return KIND_NUMBER;
    case JSON_STRING: return KIND_STRING;
    case JSON_ARRAY: return KIND_ARRAY;
    default: return KIND_OBJECT;
  }
}

/* Room for a value quoted in a message: two fit in one with room to spare. */
#define VALUE_QUOTE_MAX 48


/* A short rendering of a JSON value for a message: its text when it is a
 * scalar, its type otherwise.  cap >= 8. */
static void describe_value(const json_value *v, char *out, size_t cap) {
  if (v->type == JSON_NUMBER) {
    char n[NUMBER_TEXT_MAX];
    number_format(v->u.number, n);
    snprintf(out, cap, "%s", n);
  } else if (v->type == JSON_STRING) {
    text_quote(out, cap, v->u.string, v->length);
  } else if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
    snprintf(out, cap, "an %s", json_kind_names[kind_of(v)]);
  } else {
    snprintf(out, cap, "%s", v->type == JSON_NULL ? "null" : v->type == JSON_TRUE ? "true" : "false");
  }
}

/* ---- members ------------------------------------------------------------- */

static bool scratch_reserve(encoder *e, size_t n) {
  if (e->scratch_capacity - e->scratch_used >= n) return true;
  const json_value **p = array_grow(e->allocator, (void *)e->scratch, &e->scratch_capacity,
                                    e->scratch_used + n, sizeof *p, e->here->scratch);
  if (!p) return false;
  e->scratch = p;
  return true;
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

/* Of two key pointers (each at a member's key, its value right after it),
 * whether x's key is before y's in UTF-16 order. */
static bool key_before(const void *context, const void *x, const void *y) {
  (void)context;
  const json_value *a = *(const json_value *const *)x, *b = *(const json_value *const *)y;
  return utf16_compare(a->u.string, a->length, b->u.string, b->length) < 0;
}

/* Key pointers sorted in UTF-16 order, stable, so that of repeated keys
 * the last stays last: JSON.parse keeps the last one. */
static void sort_keys(const json_value **keys, const json_value **tmp, size_t n) {
  merge_sort(keys, tmp, n, sizeof *keys, key_before, NULL);
}

/* Whether the n keys are in strictly rising UTF-16 order. */
static bool keys_in_order(const json_value *const *keys, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (utf16_compare(keys[i - 1]->u.string, keys[i - 1]->length, keys[i]->u.string, keys[i]->length) >= 0)
      return false;
  return true;
}

static shorn_code encode_value(encoder *e, const shape *s, const json_value *v);
static shorn_code encode_shape(encoder *e, const shape *s, const json_value *v);
static shorn_code encode_dynamic(encoder *e, const json_value *v, int depth);

static inline shorn_code encode_element(encoder *e, const shape *element, const json_value *v,
                                        int depth) {
  return element ? encode_value(e, element, v) : encode_dynamic(e, v, depth);
}

/* Entries of a record, an open object's extras or a dynamic object: the
 * keys at scratch[first..first+n), sorted, repeats dropped, then count and
 * key and value per entry.  `value` NULL means dynamic values at `depth`. */
static shorn_code encode_entries(encoder *e, size_t first, size_t n, const shape *value, int depth) {
  const json_value **keys = e->scratch + first;
  size_t unique = 0;
  /* Keys written from a payload, or by a writer that sorts them, arrive
   * in order: one pass over them says so, and then none repeats either. */
  if (keys_in_order(keys, n)) {
    unique = n;
  } else if (!scratch_reserve(e, n)) {
    return encoder_nomem(e);
  } else {
    keys = e->scratch + first;
    sort_keys(keys, e->scratch + e->scratch_used, n);
  }
  for (size_t i = unique; i < n; i++) {
    const json_value *k = keys[i], *next = i + 1 < n ? keys[i + 1] : NULL;
    if (next && next->length == k->length && memcmp(next->u.string, k->u.string, k->length) == 0)
      continue; /* a later member repeats this key and wins */
    keys[unique++] = k;
  }
  if (unique > SHORN_MAX_ELEMENTS) return too_large_value(e, "Record", unique, "entries", SHORN_MAX_ELEMENTS);
  shorn_code rc = put_uvarint(e, unique);
  for (size_t i = 0; i < unique && !rc; i++) {
    const json_value *k = e->scratch[first + i];
    rc = at_key(e, put_string_value(e, k), k->u.string, k->length);
    if (!rc) rc = at_key(e, encode_element(e, value, k + 1, depth), k->u.string, k->length);
  }
  return rc;
}

/* Push every member key of an object onto the scratch stack. */
static shorn_code push_all_keys(encoder *e, const json_value *v) {
  if (!scratch_reserve(e, v->length)) return encoder_nomem(e);
  for (uint32_t i = 0; i < v->length; i++) e->scratch[e->scratch_used++] = &v->u.items[2 * i];
  return SHORN_OK;
}

static shorn_code encode_record(encoder *e, const json_value *v, const shape *value, int depth) {
  size_t base = e->scratch_used;
  shorn_code rc = push_all_keys(e, v);
  if (!rc) rc = encode_entries(e, base, v->length, value, depth);
  e->scratch_used = base;
  return rc;
}

static shorn_code put_bitmap(encoder *e, const shape *s, size_t slots) {
  uint32_t bytes = bitmap_bytes(s->u.object.optional_count);
  if (!bytes) return SHORN_OK;
  if (!buffer_reserve(e->out, bytes)) return encoder_nomem(e);
  uint8_t *bitmap = e->out->data + e->out->length;
  memset(bitmap, 0, bytes);
  for (uint32_t i = 0; i < s->u.object.count; i++) {
    const field *f = &s->u.object.fields[i];
    if (f->optional && e->scratch[slots + i]) bitmap[f->bit >> 3] |= (uint8_t)(1u << (f->bit & 7));
  }
  e->out->length += bytes;
  return SHORN_OK;
}

static shorn_code encode_object_members(encoder *e, const shape *s, const json_value *v, size_t slots) {
  size_t extras = e->scratch_used;
  const field *fields = s->u.object.fields;
  uint32_t guess = s->u.object.declared_first;
  /* Match members to fields; a repeated key overwrites, so the last wins.
   * The field declared after the last one matched is tried before the
   * hash, since text written from the same schema lists them in that
   * order: one comparison instead of hashing every key. */
  for (uint32_t i = 0; i < v->length; i++) {
    const json_value *k = &v->u.items[2 * i];
    const field *f = guess < s->u.object.count && fields[guess].key_length == k->length &&
                             short_equal(fields[guess].key, k->u.string, k->length)
                         ? &fields[guess]
                         : object_find_field(s, k->u.string, k->length);
    if (f) {
      guess = f->declared_next;
      e->scratch[slots + (size_t)(f - fields)] = k + 1;
    } else if (s->u.object.extras) {
      if (!scratch_reserve(e, 1)) return encoder_nomem(e);
      e->scratch[e->scratch_used++] = k;
    } else if (s->u.object.reject_unknown) {
      char key[96];
      return encode_fail(e, "Unknown object property %s", text_quote(key, sizeof key, k->u.string, k->length));
    }
    /* additionalProperties: false drops the key: the validator that wrote
     * the schema stripped or refused it already. */
  }
  if (e->defaults)
    for (uint32_t i = 0; i < s->u.object.count; i++)
      if (!e->scratch[slots + i]) e->scratch[slots + i] = fields[i].default_value;
  shorn_code rc = put_bitmap(e, s, slots);
  for (uint32_t i = 0; i < s->u.object.count && !rc; i++) {
    const field *f = &s->u.object.fields[i];
    const json_value *value = e->scratch[slots + i];
    /* Every shape refuses an absent value, so say what is wrong plainly. */
    if (!value) {
      if (f->optional) continue;
      rc = encode_fail(e, "Missing required property");
    } else if (value == f->default_value) {
      /* A default filled in is taken as it is, as Zod's .default() takes
       * it: its structure checked, not its keywords. */
      bool checked = e->checked;
      e->checked = false;
      rc = encode_value(e, f->value, value);
      e->checked = checked;
    } else {
      rc = encode_value(e, f->value, value);
      if (rc == SHORN_ERROR_ENCODE && f->optional && value->type == JSON_NULL) rc = encode_refuse_null_member(e->error);
    }
    rc = at_key(e, rc, f->key, f->key_length);
  }
  if (!rc && s->u.object.extras)
    rc = encode_entries(e, extras, e->scratch_used - extras, s->u.object.extras, 0);
  return rc;
}

static shorn_code encode_object(encoder *e, const shape *s, const json_value *v) {
  if (v->type != JSON_OBJECT) return expected_type(e, "an object", v);
  size_t slots = e->scratch_used, count = s->u.object.count;
  if (!scratch_reserve(e, count)) return encoder_nomem(e);
  memset((void *)(e->scratch + slots), 0, count * sizeof *e->scratch);
  e->scratch_used += count;
  shorn_code rc = encode_object_members(e, s, v, slots);
  e->scratch_used = slots;
  return rc;
}

/* ---- collections --------------------------------------------------------- */

/* The items of `array` from index `first` on (past a tuple's fixed ones).
 * They are reached by index only inside the loop: an empty array has no
 * items at all (NULL), not even somewhere to point past. */
static shorn_code encode_items(encoder *e, const shape *element, const json_value *array,
                               size_t first, unique_set *unique, int depth) {
  for (size_t i = first; i < array->length; i++) {
    size_t start = e->out->length;
    shorn_code rc = encode_element(e, element, &array->u.items[i], depth);
    if (!rc && unique) {
      int added = unique_add(unique, element, e->out->data + start, e->out->length - start);
      if (added < 0) return encoder_nomem(e);
      if (!added) rc = encode_fail(e, "Set element repeats an earlier element");
    }
    if (rc) return at_index(e, rc, i);
  }
  return SHORN_OK;
}

static shorn_code encode_array(encoder *e, const shape *s, const json_value *v) {
  if (v->type != JSON_ARRAY) return expected_type(e, "an array", v);
  int64_t fixed = s->u.array.length;
  shorn_code rc;
  if (fixed >= 0) {
    if (v->length != (uint64_t)fixed) return encode_fail(e, "Expected an array of %lld items", (long long)fixed);
  } else {
    if (v->length > SHORN_MAX_ELEMENTS) return too_large_value(e, "Array", v->length, "items", SHORN_MAX_ELEMENTS);
    if ((rc = put_uvarint(e, v->length))) return rc;
  }
  if (s->kind != SHAPE_SET) return encode_items(e, s->u.array.element, v, 0, NULL, 0);
  unique_set set = {.identities.allocator = e->allocator};
  rc = encode_items(e, s->u.array.element, v, 0, &set, 0);
  unique_free(&set);
  return rc;
}

static shorn_code encode_map_entries(encoder *e, const shape *s, const json_value *v, unique_set *keys) {
  for (uint32_t i = 0; i < v->length; i++) {
    const json_value *pair = &v->u.items[i];
    shorn_code rc = SHORN_OK;
    if (pair->type != JSON_ARRAY || pair->length != 2) {
      rc = encode_fail(e, "Expected a [key, value] pair");
    } else {
      size_t start = e->out->length;
      rc = at_index(e, encode_value(e, s->u.map.key, &pair->u.items[0]), 0);
      if (!rc) {
        int added = unique_add(keys, s->u.map.key, e->out->data + start, e->out->length - start);
        if (added < 0) return encoder_nomem(e);
        if (!added) rc = at_index(e, encode_fail(e, "Map key repeats an earlier key"), 0);
      }
      if (!rc) rc = at_index(e, encode_value(e, s->u.map.value, &pair->u.items[1]), 1);
    }
    if (rc) return at_index(e, rc, i);
  }
  return SHORN_OK;
}

static shorn_code encode_map(encoder *e, const shape *s, const json_value *v) {
  if (v->type != JSON_ARRAY) return encode_fail(e, "Expected an array of [key, value] pairs");
  if (v->length > SHORN_MAX_ELEMENTS) return too_large_value(e, "Map", v->length, "entries", SHORN_MAX_ELEMENTS);
  shorn_code rc = put_uvarint(e, v->length);
  if (rc) return rc;
  unique_set keys = {.identities.allocator = e->allocator};
  rc = encode_map_entries(e, s, v, &keys);
  unique_free(&keys);
  return rc;
}

static shorn_code encode_tuple(encoder *e, const shape *s, const json_value *v) {
  uint32_t fixed = s->u.tuple.count;
  const shape *rest = s->u.tuple.rest;
  if (v->type != JSON_ARRAY || (rest ? v->length < fixed : v->length != fixed))
    return encode_fail(e, rest ? "Expected a tuple of at least %u items" : "Expected a tuple of %u items", fixed);
  for (uint32_t i = 0; i < fixed; i++) {
    shorn_code rc = at_index(e, encode_value(e, s->u.tuple.items[i], &v->u.items[i]), i);
    if (rc) return rc;
  }
  if (!rest) return SHORN_OK;
  size_t n = v->length - fixed;
  if (n > SHORN_MAX_ELEMENTS) return too_large_value(e, "Array", v->length, "items", SHORN_MAX_ELEMENTS);
  shorn_code rc = put_uvarint(e, n);
  return rc ? rc : encode_items(e, rest, v, fixed, NULL, 0);
}

/* ---- scalars -------------------------------------------------------------- */

static shorn_code encode_uuid(encoder *e, const json_value *v) {
  if (v->type != JSON_STRING || v->length != 36) return encode_fail(e, "Expected a lowercase UUID");
  uint8_t bytes[16], *o = bytes;
  const char *s = v->u.string;
  for (int i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i++] != '-') return encode_fail(e, "Expected a lowercase UUID");
      continue;
    }
    int hi = s[i], lo = s[i + 1];
    hi = hex_digit((uint32_t)hi, false);
    lo = hex_digit((uint32_t)lo, false);
    if (hi < 0 || lo < 0) return encode_fail(e, "Expected a lowercase UUID");
    *o++ = (uint8_t)(hi << 4 | lo);
    i += 2;
  }
  return put_bytes(e, bytes, 16);
}

static shorn_code encode_bytes(encoder *e, const json_value *v) {
  if (v->type != JSON_STRING) return encode_fail(e, "Expected a base64 string");
  /* Decode past the room a length varint needs, then slide into place. */
  size_t at = e->out->length, n;
  if (!buffer_reserve(e->out, 10 + v->length / 4 * 3)) return encoder_nomem(e);
  size_t bad;
  if (!base64_decode(v->u.string, v->length, e->out->data + at + 10, &n, &bad))
    return encode_fail(e, "Expected standard base64 with padding");
  if (n > SHORN_MAX_BYTES) return too_large_value(e, "Byte array", n, "bytes", SHORN_MAX_BYTES);
  shorn_code rc = put_uvarint(e, n);
  if (rc) return rc;
  memmove(e->out->data + e->out->length, e->out->data + at + 10, n);
  e->out->length += n;
  return SHORN_OK;
}

static shorn_code encode_bigint(encoder *e, const json_value *v) {
  bigint_status rc = BIGINT_SPELLING;
  if (v->type == JSON_NUMBER && is_safe_integer(v->u.number)) {
    char text[NUMBER_TEXT_MAX];
    rc = bigint_encode(e->allocator, e->out, text, number_format(v->u.number, text));
  } else if (v->type == JSON_STRING) {
    rc = bigint_encode(e->allocator, e->out, v->u.string, v->length);
  }
  switch (rc) {
    case BIGINT_OK: return SHORN_OK;
    case BIGINT_NOMEM: return encoder_nomem(e);
    case BIGINT_TOO_LARGE:
      return encode_fail(e, "BigInt is too large: its magnitude passes the limit of %ld bytes" BIGINT_LIMIT_NOTE,
                         (long)BIGINT_MAX_BYTES);
    default: return encode_fail(e, "Expected a BigInt as a decimal string, or a safe integer");
  }
}

static shorn_code encode_number(encoder *e, const shape *s, const json_value *v) {
  bool number = v->type == JSON_NUMBER;
  double x = number ? v->u.number : NAN;
  switch (s->kind) {
    /* The value that passes is tested first: is_integral, which tells the
     * two refusals apart, costs a call to floor. */
    case SHAPE_UINT:
      /* -0 passes: it is written as 0, as JSON.stringify would. */
      if (number && x >= 0 && is_safe_integer(x)) return put_uvarint(e, (uint64_t)x);
      if (number && x >= 0 && is_integral(x))
        return encode_fail(e, "Expected a safe unsigned integer (at most 2^53 - 1)");
      /* The shape stands for the schema's lower bound: the validated mode
       * words its refusal as it does any other bound's. */
      if (number && x < 0 && e->checked) return encode_fail(e, "Too small: expected at least 0");
      return number ? encode_fail(e, "Expected an unsigned integer") : expected_type(e, "an unsigned integer", v);
    case SHAPE_INT:
      if (number && is_safe_integer(x)) return put_zigzag(e, (int64_t)x);
      if (number && is_integral(x)) return encode_fail(e, "Expected a safe integer (at most 2^53 - 1 in magnitude)");
      return number ? encode_fail(e, "Expected an integer") : expected_type(e, "an integer", v);
    /* Text past the double range reads as Infinity, which the validators
     * refuse (z.number() among them): the validated mode does too. */
    case SHAPE_FLOAT64:
      if (!number) return expected_type(e, "a number", v);
      if (unlikely(!isfinite(x)) && e->checked) return encode_fail(e, "Expected a finite number");
      return put_f64(e, x);
    default:
      if (!number) return expected_type(e, "a number", v);
      if (unlikely(!isfinite(x)) && e->checked) return encode_fail(e, "Expected a finite number");
      return put_f32(e, x);
  }
}

static bool datetime_spelled(const json_value *v) {
  int64_t ms;
  return v->type == JSON_STRING && datetime_parse(v->u.string, v->length, &ms);
}

#define DATETIME_SPELLING "Expected a date-time as toISOString writes it (YYYY-MM-DDTHH:mm:ss.sssZ)"

/* A date-time in toISOString's spelling but for the milliseconds
 * ("2024-01-01T00:00:00Z") is refused naming the spelling that encodes. */
static shorn_code refuse_datetime(encoder *e, const json_value *v) {
  int64_t ms;
  char spelled[25];
  if (v->type != JSON_STRING || v->length != 20 || v->u.string[19] != 'Z') return encode_fail(e, DATETIME_SPELLING);
  memcpy(spelled, v->u.string, 19);
  memcpy(spelled + 19, ".000Z", 6);
  if (!datetime_parse(spelled, 24, &ms)) return encode_fail(e, DATETIME_SPELLING);
  return encode_fail(e, DATETIME_SPELLING "; %s encodes", spelled);
}

static shorn_code encode_datetime(encoder *e, const json_value *v) {
  int64_t ms;
  if (v->type != JSON_STRING || !datetime_parse(v->u.string, v->length, &ms))
    return refuse_datetime(e, v);
  return put_zigzag(e, ms);
}

static shorn_code encode_dynamic(encoder *e, const json_value *v, int depth) {
  shorn_code rc;
  switch (v->type) {
    case JSON_NULL: return put_tag(e, DYNAMIC_NULL);
    case JSON_FALSE: return put_tag(e, DYNAMIC_FALSE);
    case JSON_TRUE: return put_tag(e, DYNAMIC_TRUE);
    case JSON_NUMBER:
      /* One value, one encoding: a safe integer is always DYNAMIC_INTEGER,
       * and -0, which no integer encoding keeps, always DYNAMIC_NUMBER. */
      if (is_safe_integer(v->u.number) && !is_negative_zero(v->u.number)) {
        if ((rc = put_tag(e, DYNAMIC_INTEGER))) return rc;
        return put_zigzag(e, (int64_t)v->u.number);
      }
      if ((rc = put_tag(e, DYNAMIC_NUMBER))) return rc;
      return put_f64(e, v->u.number);
    case JSON_STRING:
      if ((rc = put_tag(e, DYNAMIC_STRING))) return rc;
      return put_string_value(e, v);
    default:
      if (depth == SHORN_MAX_DYNAMIC_DEPTH)
        return encode_fail(e, "Dynamic value nests deeper than %d", SHORN_MAX_DYNAMIC_DEPTH);
      if (v->type == JSON_OBJECT) {
        if ((rc = put_tag(e, DYNAMIC_OBJECT))) return rc;
        return encode_record(e, v, NULL, depth + 1);
      }
      if (v->length > SHORN_MAX_ELEMENTS) return too_large_value(e, "Array", v->length, "items", SHORN_MAX_ELEMENTS);
      if ((rc = put_tag(e, DYNAMIC_ARRAY)) || (rc = put_uvarint(e, v->length))) return rc;
      return encode_items(e, NULL, v, 0, NULL, depth + 1);
  }
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

static shorn_code encode_enum(encoder *e, const shape *s, const json_value *v) {
  int64_t i = -1;
  if (v->type == JSON_STRING) {
    i = enum_string_index(s, v);
  } else if (!(v->type == JSON_NUMBER && is_negative_zero(v->u.number))) {
    /* -0 matches no member, not even 0: the value is the schema's. */
    for (uint32_t k = 0; k < s->u.enumeration.count && i < 0; k++)
      if (scalar_equals(&s->u.enumeration.members[k], v, false)) i = k;
  }
  if (i >= 0) return put_uvarint(e, (uint64_t)i);
  char what[VALUE_QUOTE_MAX];
  describe_value(v, what, sizeof what);
  return encode_fail(e, "Unknown enum value %s", what);
}

static shorn_code encode_union(encoder *e, const shape *s, const json_value *v) {
  char what[VALUE_QUOTE_MAX], on[VALUE_QUOTE_MAX];
  int branch = -1;
  if (s->u.choice.on) {
    const json_value *tag = v->type == JSON_OBJECT ? json_get(v, s->u.choice.on, s->u.choice.on_length) : NULL;
    for (uint32_t i = 0; i < s->u.choice.count && branch < 0; i++)
      if (scalar_equals(&s->u.choice.cases[i], tag, false)) branch = (int)i;
    if (branch < 0) text_quote(on, sizeof on, s->u.choice.on, s->u.choice.on_length);
    if (branch < 0 && !tag) return encode_fail(e, "No union branch: the value has no %s", on);
    if (branch < 0) {
      describe_value(tag, what, sizeof what);
      return encode_fail(e, "No union branch has %s = %s", on, what);
    }
  } else {
    branch = s->u.choice.by_kind[kind_of(v)];
    if (branch < 0) return encode_fail(e, "No union branch holds %s", json_kind_names[kind_of(v)]);
  }
  shorn_code rc = put_uvarint(e, (uint64_t)branch);
  return rc ? rc : encode_value(e, s->u.choice.branches[branch], v);
}

static shorn_code encode_shape(encoder *e, const shape *s, const json_value *v) {
  shorn_code rc;
  switch (s->kind) {
    case SHAPE_ANY: return encode_dynamic(e, v, 0);
    case SHAPE_BOOLEAN:
      if (v->type != JSON_TRUE && v->type != JSON_FALSE) return expected_type(e, "a boolean", v);
      return put_bytes(e, v->type == JSON_TRUE ? "\1" : "\0", 1);
    case SHAPE_UINT:
    case SHAPE_INT:
    case SHAPE_FLOAT64:
    case SHAPE_FLOAT32: return encode_number(e, s, v);
    case SHAPE_STRING:
      if (v->type != JSON_STRING) return expected_type(e, "a string", v);
      return put_string_value(e, v);
    case SHAPE_UUID: return encode_uuid(e, v);
    case SHAPE_DATETIME: return encode_datetime(e, v);
    case SHAPE_BIGINT: return encode_bigint(e, v);
    case SHAPE_BYTES: return encode_bytes(e, v);
    case SHAPE_LITERAL:
      if (!scalar_equals(&s->u.literal, v, true))
        return encode_fail(e, "Expected the literal %.*s", (int)s->u.literal.json_length, s->u.literal.json);
      return SHORN_OK;
    case SHAPE_ENUM: return encode_enum(e, s, v);
    case SHAPE_ARRAY:
    case SHAPE_SET: return encode_array(e, s, v);
    case SHAPE_MAP: return encode_map(e, s, v);
    case SHAPE_TUPLE: return encode_tuple(e, s, v);
    case SHAPE_OBJECT: return encode_object(e, s, v);
    case SHAPE_RECORD:
      if (v->type != JSON_OBJECT) return expected_type(e, "an object", v);
      return encode_record(e, v, s->u.record, 0);
    case SHAPE_NULLABLE:
      if (v->type == JSON_NULL) return put_bytes(e, "\0", 1);
      if ((rc = put_bytes(e, "\1", 1))) return rc;
      return encode_value(e, s->u.inner, v);
    case SHAPE_UNION: return encode_union(e, s, v);
    case SHAPE_REF: {
      uint32_t *depth = &e->ref_depth[s->u.ref.index];
      if (*depth == SHORN_MAX_RECURSION)
        return encode_fail(e, "Recursive value nests deeper than %d", SHORN_MAX_RECURSION);
      ++*depth;
      rc = encode_value(e, s->u.ref.target, v);
      --*depth;
      return rc;
    }
  }
  return encode_fail(e, "Unknown shape");
}

/* The value against its shape's validation keywords, unless the call is
 * unchecked; a refusal about an item or a property name points at it.  Out
 * of encode_value's way, which stays small enough to be inlined. */
static shorn_code check_keywords(encoder *e, const shape *s, const json_value *v) {
  if (!e->checked || validation_passes(s->keywords, v)) return SHORN_OK;
  if (!e->validator) {
    e->validator = &e->here->validator;
    *e->validator = (validator){.allocator = e->allocator};
  }
  validation_site site;
  shorn_code rc = validation_check(e->validator, s, s->keywords, v, e->error, &site);
  if (rc != SHORN_ERROR_ENCODE || site.kind == SITE_NONE) return rc;
  return site.kind == SITE_INDEX ? at_index(e, rc, site.index) : at_key(e, rc, site.key, site.key_length);
}

static shorn_code encode_value(encoder *e, const shape *s, const json_value *v) {
  if (unlikely(e->nesting == NESTING_MAX))
    return encode_fail(e, "Value nests deeper than %d levels", NESTING_MAX);
  if (unlikely(s->keywords != NULL)) {
    shorn_code rc = check_keywords(e, s, v);
    /* A date-time in another spelling is refused as one, rather than by the
     * pattern Zod writes beside the format, which says less; the spelling
     * is read again only then, not on every date-time. */
    if (rc == SHORN_ERROR_ENCODE && s->kind == SHAPE_DATETIME && !datetime_spelled(v)) return refuse_datetime(e, v);
    if (rc) return rc;
  }
  e->nesting++;
  shorn_code rc = encode_shape(e, s, v);
  e->nesting--;
  return rc;
}

/* Make `e` ready to write at `place` (NULL: the root) into `out`, or into
 * `discarded` when `out` is NULL. */
static ALWAYS_INLINE shorn_code encoder_open(encoder *e, encoder_storage *here, const shorn_schema *s,
                                             const encode_place *place, shorn_buffer *out, shorn_buffer *discarded,
                                             shorn_error *error, bool checked) {
  *discarded = (shorn_buffer){.allocator = s->allocator};
  *e = (encoder){.out = out ? out : discarded,
                 .error = error,
                 .allocator = s->allocator,
                 .ref_depth = here->depth,
                 .nesting = place ? place->nesting : 0,
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
  if (place && place->ref_depth)
    memcpy(e->ref_depth, place->ref_depth, s->def_count * sizeof *e->ref_depth);
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

static shorn_code put_fingerprint(encoder *e, const shorn_schema *s, int width) {
  uint8_t prefix[4];
  fingerprint_bytes(s, width, prefix);
  return put_bytes(e, prefix, (size_t)width);
}

/* The value at `place` (NULL: the root), after the fingerprint's
 * `fingerprint_width` bytes. */
static shorn_code encode_dom(const shorn_schema *s, const shape *sh, const json_value *value, const encode_place *place,
                             int fingerprint_width, shorn_buffer *out, shorn_error *error, bool checked) {
  encoder_storage here;
  shorn_buffer discarded;
  encoder e;
  shorn_code rc = encoder_open(&e, &here, s, place, out, &discarded, error, checked);
  size_t mark = e.out->length;
  if (!rc && fingerprint_width) rc = put_fingerprint(&e, s, fingerprint_width);
  if (!rc) rc = encode_value(&e, sh, value);
  /* The path below the place was collected innermost first; the place's
   * own steps go on after it, its innermost first too. */
  for (size_t i = place ? place->path_length : 0; rc == SHORN_ERROR_ENCODE && i-- > 0;)
    rc = at_segment(&e, rc, place->path[i].key, place->path[i].key_length, place->path[i].index);
  if (rc == SHORN_ERROR_ENCODE && !format_path(&e)) rc = error_nomem(error);
  if (rc) e.out->length = mark;
  encoder_close(&e, &here, &discarded);
  return rc;
}

/* The DOM's way: the text parsed whole, then walked by the shape.  It
 * decides every text the one pass below leaves to it, a refusal above all. */
static shorn_code encode_tree(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                              shorn_buffer *out, shorn_error *error, bool checked) {
  /* The DOM starts on the C stack, as the encoder's storage does. */
  _Alignas(8) char dom_here[JSON_DOM_HERE];
  arena dom = {.next = dom_here, .end = dom_here + sizeof dom_here, .allocator = s->allocator};
  json_value *value;
  shorn_code rc = json_parse(&dom, json, length, &value, error);
  if (!rc) rc = encode_dom(s, s->root, value, NULL, fingerprint_width, out, error, checked);
  arena_free(&dom);
  return rc;
}

shorn_code encode_refuse_null_member(shorn_error *error) {
  size_t n = strlen(error->message);
  snprintf(error->message + n, sizeof error->message - n, "%s",
           " (an optional member without a value is left out, not null: omit it, or shorn_remove it)");
  return error->code;
}

/* ---- one pass ---------------------------------------------------------------
 *
 * The text read once, guided by the shape, its values written as they are
 * read: no DOM.  A scalar is read into a json_value of its own and handed
 * to encode_value, so its rules are the walk's own.  An object's members
 * are written where they arrive, each one's bytes noted; when they did not
 * arrive in wire order (or a key repeats, the last winning) the object's
 * bytes are put in order in one copy.  A record's entries the same, sorted
 * only when their keys were not already in order.
 *
 * The pass only ever succeeds or gives up: whatever it does not take for
 * certain (a refusal, a keyword that needs the whole container, a
 * discriminated union, a Map, a value nested deeper than it reads) it
 * leaves to the DOM's way, which then decides the bytes or the refusal, its
 * message and path.  So the pass never says why, and needs not. */

/* How deep the pass reads before it leaves a value to the DOM's way, so
 * that the C stack it uses is bounded well below the walk's own. */
#define PASS_DEPTH_MAX 256

/* Where a member's or an entry's bytes are in the output, and an entry's
 * key in them. */
typedef struct written_span {
  size_t start, end;
  size_t key_at;
  uint32_t key_length;
} written_span;

/* The reader's first storage, on the C stack, as the encoder's is. */
typedef struct reader_storage {
  written_span spans[32];
  uint64_t present[8];
  uint8_t unescaped[256], moved[1024];
} reader_storage;

typedef struct reader {
  encoder *e;
  const uint8_t *start, *end;
  written_span *spans; /* a stack: each open object's or record's members */
  size_t spans_used, spans_capacity;
  /* A stack beside it: a bit per field of each open object, set when its
   * member was read, so that only the members read are visited after. */
  uint64_t *present;
  size_t present_used, present_capacity;
  uint8_t *moved; /* a container's bytes while they are put in order */
  size_t moved_capacity;
  uint8_t *unescaped; /* a string's escapes decoded, for the json_value read */
  size_t unescaped_capacity;
  uint32_t depth;
  reader_storage *here;
} reader;

static const uint8_t *read_value(reader *r, const shape *s, const uint8_t *p);
static const uint8_t *read_dynamic(reader *r, const uint8_t *p, int depth);

static inline const uint8_t *skip_space_at(const reader *r, const uint8_t *p) { return json_skip_space(p, r->end); }

/* Memory ran out: the pass says so, as the tree would, rather than leave
 * the text to it. */
static bool pass_nomem(reader *r) {
  encoder_nomem(r->e);
  return false;
}

static NOINLINE bool spans_grow(reader *r, size_t n) {
  written_span *s = array_grow(r->e->allocator, r->spans, &r->spans_capacity, r->spans_used + n, sizeof *s,
                              r->here->spans);
  if (!s) return pass_nomem(r);
  r->spans = s;
  return true;
}

static inline bool spans_reserve(reader *r, size_t n) {
  return r->spans_capacity - r->spans_used >= n || spans_grow(r, n);
}

static NOINLINE bool present_grow(reader *r, size_t n) {
  uint64_t *s = array_grow(r->e->allocator, r->present, &r->present_capacity, r->present_used + n, sizeof *s,
                           r->here->present);
  if (!s) return pass_nomem(r);
  r->present = s;
  return true;
}

static inline bool present_reserve(reader *r, size_t n) {
  return r->present_capacity - r->present_used >= n || present_grow(r, n);
}

/* A string token's escapes decoded into the reader's storage, which holds
 * it until the next string: out of read_text_string's way, which most
 * strings, having none, pass through inline. */
static NOINLINE bool unescape_string(reader *r, const json_string_token *t, json_value *v) {
  if (r->unescaped_capacity < (size_t)t->length + 1) {
    uint8_t *u = array_grow(r->e->allocator, r->unescaped, &r->unescaped_capacity, (size_t)t->length + 1, 1,
                            r->here->unescaped);
    if (!u) return pass_nomem(r);
    r->unescaped = u;
  }
  bool lone_surrogate = false;
  uint8_t *o = json_unescape(r->unescaped, t->body, t->length, false, &lone_surrogate);
  if (lone_surrogate) v->flags |= JSON_LONE_SURROGATE;
  v->length = (uint32_t)(o - r->unescaped);
  v->u.string = (const char *)r->unescaped;
  return true;
}

/* A string token into v, its escapes decoded. */
static inline const uint8_t *read_text_string(reader *r, const uint8_t *p, json_value *v) {
  json_string_token t;
  p = json_read_string(r->start, p, r->end, &t);
  if (!p) return NULL;
  v->type = JSON_STRING;
  v->flags = 0;
  v->length = t.length;
  v->u.string = (const char *)t.body;
  return !t.escaped || unescape_string(r, &t, v) ? p : NULL;
}

static const uint8_t *read_word(const reader *r, const uint8_t *p, const char *word, size_t n, json_type type,
                                json_value *v) {
  if ((size_t)(r->end - p) < n || memcmp(p, word, n) != 0) return NULL;
  *v = (json_value){.type = (uint8_t)type};
  return p + n;
}

/* A scalar at p into v (p < end). */
static ALWAYS_INLINE const uint8_t *read_scalar(reader *r, const uint8_t *p, json_value *v) {
  const char *why;
  switch (*p) {
    case '"': return read_text_string(r, p, v);
    case 't': return read_word(r, p, "true", 4, JSON_TRUE, v);
    case 'f': return read_word(r, p, "false", 5, JSON_FALSE, v);
    case 'n': return read_word(r, p, "null", 4, JSON_NULL, v);
    default:
      *v = (json_value){.type = JSON_NUMBER};
      return json_read_number(p, r->end, &v->u.number, &why);
  }
}

/* After a container's item: the position after its comma (more follow) or
 * after its closing bracket (*closed), or NULL. */
static inline const uint8_t *next_item(const reader *r, const uint8_t *p, uint8_t close, bool *closed) {
  p = skip_space_at(r, p);
  if (p < r->end && *p == ',') return skip_space_at(r, p + 1);
  *closed = true;
  return p < r->end && *p == close ? p + 1 : NULL;
}

/* A count of items written before them, once they are read: one byte
 * set aside at `at`, and the items moved along when it takes more. */
static bool put_count_at(encoder *e, size_t at, uint64_t count) {
  shorn_buffer *out = e->out;
  if (count < 0x80) {
    out->data[at] = (uint8_t)count;
    return true;
  }
  uint8_t varint[10];
  size_t n = 0;
  uint64_t v = count;
  for (; v >= 0x80; v >>= 7) varint[n++] = (uint8_t)(v | 0x80);
  varint[n++] = (uint8_t)v;
  if (!buffer_reserve(out, n - 1)) return encoder_nomem(e), false;
  memmove(out->data + at + n, out->data + at + 1, out->length - at - 1);
  memcpy(out->data + at, varint, n);
  out->length += n - 1;
  return true;
}

static inline bool set_count_aside(encoder *e, size_t *at) {
  *at = e->out->length;
  if (!buffer_reserve(e->out, 1)) return encoder_nomem(e), false;
  e->out->length++;
  return true;
}

/* The items of an array from p, its first (a '[' before it and no ']'),
 * each of `element` (NULL: dynamic values at `depth`), their count in
 * *count; a Set's checked for repeats in `unique`. */
static const uint8_t *read_item_run(reader *r, const shape *element, int depth, unique_set *unique,
                                    const uint8_t *p, uint64_t *count) {
  uint64_t n = 0;
  bool closed = false;
  while (p && !closed) {
    if (n == SHORN_MAX_ELEMENTS) return NULL;
    size_t start = r->e->out->length;
    p = element ? read_value(r, element, p) : read_dynamic(r, p, depth);
    int added = p && unique ? unique_add(unique, element, r->e->out->data + start, r->e->out->length - start) : 1;
    if (added <= 0) return added < 0 ? pass_nomem(r), NULL : NULL;
    n++;
    if (p) p = next_item(r, p, ']', &closed);
  }
  *count = n;
  return p;
}

/* The items of an array at p, its '['. */
static const uint8_t *read_items(reader *r, const shape *element, int depth, unique_set *unique,
                                 const uint8_t *p, uint64_t *count) {
  p = skip_space_at(r, p + 1);
  if (p < r->end && *p == ']') {
    *count = 0;
    return p + 1;
  }
  return read_item_run(r, element, depth, unique, p, count);
}

/* An array's keywords, when there are any here, are its count's. */
static bool count_passes(const reader *r, const shape *s, uint64_t n) {
  json_value counted = {.type = JSON_ARRAY, .length = (uint32_t)n};
  return !r->e->checked || !s->keywords || validation_passes(s->keywords, &counted);
}

static const uint8_t *read_array(reader *r, const shape *s, const uint8_t *p) {
  uint64_t n;
  size_t count_at = 0;
  int64_t fixed = s->u.array.length;
  if (fixed < 0 && !set_count_aside(r->e, &count_at)) return NULL;
  if (s->kind == SHAPE_SET) {
    unique_set set = {.identities.allocator = r->e->allocator};
    p = read_items(r, s->u.array.element, 0, &set, p, &n);
    unique_free(&set);
  } else {
    p = read_items(r, s->u.array.element, 0, NULL, p, &n);
  }
  if (!p || (fixed >= 0 && n != (uint64_t)fixed) || !count_passes(r, s, n)) return NULL;
  return fixed >= 0 || put_count_at(r->e, count_at, n) ? p : NULL;
}

static const uint8_t *read_tuple(reader *r, const shape *s, const uint8_t *p) {
  uint32_t fixed = s->u.tuple.count;
  bool closed = fixed == 0;
  p = skip_space_at(r, p + 1);
  if (closed && p < r->end && *p == ']') p++;
  else closed = false;
  for (uint32_t i = 0; i < fixed; i++) {
    if (closed) return NULL;
    if (!(p = read_value(r, s->u.tuple.items[i], p))) return NULL;
    p = next_item(r, p, ']', &closed);
    if (!p) return NULL;
  }
  if (!s->u.tuple.rest) return closed && count_passes(r, s, fixed) ? p : NULL;
  size_t count_at;
  if (!set_count_aside(r->e, &count_at)) return NULL;
  uint64_t n = 0;
  if (!closed && !(p = read_item_run(r, s->u.tuple.rest, 0, NULL, p, &n))) return NULL;
  return count_passes(r, s, fixed + n) && put_count_at(r->e, count_at, n) ? p : NULL;
}

/* A member's bytes back in place: most are a few, which copy_few moves
 * for less than a call of memcpy costs. */
static inline void copy_span(uint8_t *o, const uint8_t *s, size_t n) {
  if (n <= 64)
    copy_few(o, s, n);
  else
    memcpy(o, s, n);
}

/* Room kept past the bytes moved aside and past the output's end while
 * they are copied back, so that a member of up to this many bytes (most
 * are a byte or a few) is copied in one move of a fixed size. */
#define MOVED_PAD 16

/* The output's bytes from `from` on copied aside, to be copied back in
 * another order: the reader's storage for them, MOVED_PAD bytes of room
 * after them, or NULL. */
static const uint8_t *move_aside(reader *r, size_t from) {
  shorn_buffer *out = r->e->out;
  size_t n = out->length - from;
  if (r->moved_capacity < n + MOVED_PAD) {
    uint8_t *m = array_grow(r->e->allocator, r->moved, &r->moved_capacity, n + MOVED_PAD, 1, r->here->moved);
    if (!m) return pass_nomem(r), NULL;
    r->moved = m;
  }
  copy_span(r->moved, out->data + from, n);
  out->length = from;
  return r->moved;
}

/* An object's members put in wire order: the bytes from `from` on copied
 * aside, and each present member's copied back in the order of the spans
 * at `first`, its presence in the `words` at r->present[seen]. */
static bool put_in_order(reader *r, size_t from, size_t first, size_t seen, uint32_t words) {
  shorn_buffer *out = r->e->out;
  if (!buffer_reserve(out, MOVED_PAD)) return pass_nomem(r);
  const uint8_t *moved = move_aside(r, from);
  if (!moved) return false;
  /* Held here: the bytes written could otherwise alias them. */
  const written_span *spans = r->spans + first;
  const uint64_t *present = r->present + seen;
  uint8_t *o = out->data + out->length;
  for (size_t w = 0; w < words; w++, spans += 64)
    for (uint64_t bits = present[w]; bits; bits &= bits - 1) {
      const written_span *m = &spans[__builtin_ctzll(bits)];
      size_t n = m->end - m->start;
      /* Past the member's end: the next one's bytes, or the room kept. */
      if (n <= MOVED_PAD)
        memcpy(o, moved + (m->start - from), MOVED_PAD);
      else
        copy_span(o, moved + (m->start - from), n);
      o += n;
    }
  out->length = (size_t)(o - out->data);
  return true;
}

/* The bytes an entry span's key is read from: those written from `from`
 * on, moved aside. */
typedef struct span_keys {
  const uint8_t *keys;
  size_t from;
} span_keys;

static bool span_before(const void *context, const void *x, const void *y) {
  const span_keys *k = context;
  const written_span *a = x, *b = y;
  return utf16_compare((const char *)k->keys + (a->key_at - k->from), a->key_length,
                       (const char *)k->keys + (b->key_at - k->from), b->key_length) < 0;
}

/* A record's entries at spans[first..first+n), written from `from` on in
 * the order they arrived: sorted by key, the last of repeated keys kept;
 * *unique their count after. */
static bool sort_entries(reader *r, size_t from, size_t first, size_t n, uint64_t *unique) {
  shorn_buffer *out = r->e->out;
  const uint8_t *keys = spans_reserve(r, n) ? move_aside(r, from) : NULL;
  if (!keys) return false;
  written_span *spans = r->spans + first;
  merge_sort(spans, r->spans + first + n, n, sizeof *spans, span_before, &(span_keys){keys, from});
  uint64_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    const written_span *m = &spans[i];
    if (i + 1 < n && spans[i + 1].key_length == m->key_length &&
        memcmp(keys + (spans[i + 1].key_at - from), keys + (m->key_at - from), m->key_length) == 0)
      continue; /* a later member repeats this key and wins */
    copy_span(out->data + out->length, keys + (m->start - from), m->end - m->start);
    out->length += m->end - m->start;
    kept++;
  }
  *unique = kept;
  return true;
}

/* A key token at p, decoded when it has escapes, into k; p after its ':'
 * and the space after that. */
static const uint8_t *read_key(reader *r, const uint8_t *p, json_value *k) {
  if (p >= r->end || *p != '"' || !(p = read_text_string(r, p, k))) return NULL;
  p = skip_space_at(r, p);
  return p < r->end && *p == ':' ? skip_space_at(r, p + 1) : NULL;
}

/* The entries of a record or a dynamic object at p, its '{': their count,
 * then each key written as a string and its value after it (`value`, or
 * NULL: dynamic at `depth`). */
static const uint8_t *read_entries(reader *r, const shape *value, int depth, const uint8_t *p) {
  encoder *e = r->e;
  size_t count_at, from, first = r->spans_used;
  if (!set_count_aside(e, &count_at)) return NULL;
  from = e->out->length;
  bool sorted = true, closed = false;
  p = skip_space_at(r, p + 1);
  if (p < r->end && *p == '}') closed = true, p++;
  while (!closed) {
    json_value k;
    if (!(p = read_key(r, p, &k)) || !spans_reserve(r, 1)) return NULL;
    written_span *m = &r->spans[r->spans_used++];
    m->start = e->out->length;
    if (put_string_value(e, &k)) return NULL;
    m->key_length = k.length;
    m->key_at = e->out->length - k.length;
    if (m > r->spans + first) {
      const written_span *before = m - 1;
      sorted = sorted && utf16_compare((const char *)e->out->data + before->key_at, before->key_length,
                                       (const char *)e->out->data + m->key_at, m->key_length) < 0;
    }
    size_t index = r->spans_used - 1;
    if (!(p = value ? read_value(r, value, p) : read_dynamic(r, p, depth))) return NULL;
    r->spans[index].end = e->out->length;
    if (!(p = next_item(r, p, '}', &closed))) return NULL;
  }
  uint64_t n = r->spans_used - first;
  if (!sorted && !sort_entries(r, from, first, n, &n)) return NULL;
  r->spans_used = first;
  return n <= SHORN_MAX_ELEMENTS && put_count_at(e, count_at, n) ? p : NULL;
}

/* The field the text names at p, the key and its ':' read (*p after
 * them), or NULL with *p at the member's value when the object declares
 * none of that name.  The field declared after the last one matched is
 * tried first, and as its key is spelled in JSON ("key":, which the shape
 * keeps): text written from the same schema lists the fields in that
 * order, so the key then costs one comparison, neither a scan nor a hash. */
static const uint8_t *member_field(reader *r, const shape *s, uint32_t guess, const uint8_t *p, const field **f) {
  if (guess < s->u.object.count) {
    const field *g = &s->u.object.fields[guess];
    if ((size_t)(r->end - p) >= g->json_key_length && short_equal(g->json_key, (const char *)p, g->json_key_length)) {
      *f = g;
      return skip_space_at(r, p + g->json_key_length);
    }
  }
  json_value k;
  if (!(p = read_key(r, p, &k))) return NULL;
  *f = object_find_field(s, k.u.string, k.length);
  return p;
}

/* An object's members, as encode_object_members places them; their
 * presence bits at r->present[seen], the first word set here, the others
 * cleared before. */
static const uint8_t *read_members(reader *r, const shape *s, const uint8_t *p, size_t first, size_t seen,
                                   bool *in_order) {
  encoder *e = r->e;
  uint32_t guess = s->u.object.declared_first, last = 0;
  /* The first word of presence bits, and whether the members came in
   * order, held here until the end rather than stored at each member. */
  uint64_t low = 0;
  bool ordered = true;
  p = skip_space_at(r, p + 1);
  bool closed = p < r->end && *p == '}';
  if (closed) p++;
  while (!closed) {
    const field *f;
    if (!(p = member_field(r, s, guess, p, &f))) return NULL;
    if (f) {
      uint32_t i = (uint32_t)(f - s->u.object.fields);
      /* A repeated key is out of order too: its last value is the one kept. */
      ordered = ordered && i + 1 > last;
      last = i + 1;
      guess = f->declared_next;
      size_t start = e->out->length;
      if (!(p = read_value(r, f->value, p))) return NULL;
      written_span *m = &r->spans[first + i];
      m->start = start;
      m->end = e->out->length;
      if (i < 64)
        low |= UINT64_C(1) << i;
      else
        r->present[seen + i / 64] |= UINT64_C(1) << (i % 64);
    } else if (s->u.object.reject_unknown || s->u.object.extras) {
      return NULL;
    } else {
      /* additionalProperties: false drops the member; its value is read
       * as a dynamic one to hold the text to JSON's rules. */
      size_t mark = e->out->length;
      p = read_dynamic(r, p, 0);
      e->out->length = mark;
      if (!p) return NULL;
    }
    if (!(p = next_item(r, p, '}', &closed))) return NULL;
  }
  r->present[seen] = low;
  *in_order = ordered;
  return p;
}

/* Whether an object's required fields were all read, given their presence
 * at r->present[seen] (count / 64 + 1 words); the bits of the optional
 * ones read set in its bitmap at `bitmap`. */
static bool fields_present(reader *r, const shape *s, size_t seen, size_t bitmap) {
  const uint64_t *present = r->present + seen;
  uint32_t count = s->u.object.count;
  if (!s->u.object.optional_count) {
    /* Every field required: every bit set, word by word. */
    for (uint32_t w = 0; w < count / 64; w++)
      if (present[w] != UINT64_MAX) return false;
    return present[count / 64] == (UINT64_C(1) << (count % 64)) - 1;
  }
  uint8_t *o = r->e->out->data + bitmap;
  for (uint32_t i = 0; i < count; i++) {
    const field *f = &s->u.object.fields[i];
    bool here = present[i / 64] >> (i % 64) & 1;
    /* A default to write is the tree's to write. */
    if (!here && (!f->optional || (f->default_value && r->e->defaults))) return false;
    if (here && f->optional) o[f->bit >> 3] |= (uint8_t)(1u << (f->bit & 7));
  }
  return true;
}

static const uint8_t *read_object(reader *r, const shape *s, const uint8_t *p) {
  encoder *e = r->e;
  /* A word more than the fields need when their count is a multiple of
   * 64: the first is then always there, set without a loop. */
  uint32_t count = s->u.object.count, bytes = bitmap_bytes(s->u.object.optional_count), words = count / 64 + 1;
  size_t bitmap = e->out->length, first = r->spans_used, seen = r->present_used;
  if (bytes && !buffer_reserve(e->out, bytes)) return encoder_nomem(e), NULL;
  if (!spans_reserve(r, count) || !present_reserve(r, words)) return NULL;
  if (bytes) memset(e->out->data + bitmap, 0, bytes);
  e->out->length += bytes;
  for (uint32_t w = 1; w < words; w++) r->present[seen + w] = 0; /* read_members sets the first */
  r->spans_used += count;
  r->present_used += words;
  bool in_order;
  if (!(p = read_members(r, s, p, first, seen, &in_order)) || !fields_present(r, s, seen, bitmap)) return NULL;
  if (!in_order && !put_in_order(r, bitmap + bytes, first, seen, words)) return NULL;
  r->spans_used = first;
  r->present_used = seen;
  /* An open object's extras: none, since the pass leaves the others. */
  return !s->u.object.extras || !put_uvarint(e, 0) ? p : NULL;
}

/* A dynamic value at p: a scalar by encode_dynamic, a container read here. */
static const uint8_t *read_dynamic(reader *r, const uint8_t *p, int depth) {
  encoder *e = r->e;
  if (p >= r->end) return NULL;
  if (*p != '[' && *p != '{') {
    json_value v;
    p = read_scalar(r, p, &v);
    return p && !encode_dynamic(e, &v, depth) ? p : NULL;
  }
  if (depth == SHORN_MAX_DYNAMIC_DEPTH || r->depth == PASS_DEPTH_MAX) return NULL;
  r->depth++;
  if (*p == '{') {
    p = put_tag(e, DYNAMIC_OBJECT) ? NULL : read_entries(r, NULL, depth + 1, p);
  } else {
    size_t count_at;
    uint64_t n;
    if (put_tag(e, DYNAMIC_ARRAY) || !set_count_aside(e, &count_at)) return NULL;
    p = read_items(r, NULL, depth + 1, NULL, p, &n);
    if (p && !put_count_at(e, count_at, n)) p = NULL;
  }
  r->depth--;
  return p;
}

/* The branch of a discriminated union an object at p, its '{', selects
 * when its first member is the discriminant, else -1.  JSON.parse keeps
 * the last of repeated keys, and the text is not read further here: so
 * only a branch whose field holding the discriminant is a literal is
 * taken, which a later member of that name and another value fails. */
static int discriminated_branch(reader *r, const shape *s, const uint8_t *p) {
  json_value k, tag;
  p = read_key(r, skip_space_at(r, p + 1), &k);
  if (!p || k.length != s->u.choice.on_length || memcmp(k.u.string, s->u.choice.on, k.length) != 0 ||
      p >= r->end || *p == '[' || *p == '{' || !read_scalar(r, p, &tag))
    return -1;
  for (uint32_t i = 0; i < s->u.choice.count; i++)
    if (scalar_equals(&s->u.choice.cases[i], &tag, false))
      return s->u.choice.holders[i] && s->u.choice.holders[i]->value->kind == SHAPE_LITERAL ? (int)i : -1;
  return -1;
}

/* A container at p under shape s, which has no keywords for it but an
 * array's count. */
static const uint8_t *read_container(reader *r, const shape *s, const uint8_t *p) {
  encoder *e = r->e;
  bool object = *p == '{';
  switch (s->kind) {
    case SHAPE_OBJECT: return object ? read_object(r, s, p) : NULL;
    case SHAPE_RECORD: return object ? read_entries(r, s->u.record, 0, p) : NULL;
    case SHAPE_ARRAY:
    case SHAPE_SET: return object ? NULL : read_array(r, s, p);
    case SHAPE_TUPLE: return object ? NULL : read_tuple(r, s, p);
    case SHAPE_ANY: return read_dynamic(r, p, 0);
    case SHAPE_NULLABLE: return put_bytes(e, "\1", 1) ? NULL : read_value(r, s->u.inner, p);
    case SHAPE_UNION: {
      int branch = !s->u.choice.on ? s->u.choice.by_kind[object ? KIND_OBJECT : KIND_ARRAY]
                   : object        ? discriminated_branch(r, s, p)
                                   : -1;
      if (branch < 0 || put_uvarint(e, (uint64_t)branch)) return NULL;
      return read_value(r, s->u.choice.branches[branch], p);
    }
    case SHAPE_REF: {
      uint32_t *depth = &e->ref_depth[s->u.ref.index];
      if (*depth == SHORN_MAX_RECURSION) return NULL;
      ++*depth;
      p = read_value(r, s->u.ref.target, p);
      --*depth;
      return p;
    }
    default: return NULL;
  }
}

/* A container at p under shape s, within the limits of nesting. */
static NOINLINE const uint8_t *read_nested(reader *r, const shape *s, const uint8_t *p) {
  encoder *e = r->e;
  json_type type = *p == '[' ? JSON_ARRAY : JSON_OBJECT;
  if (e->nesting == NESTING_MAX || r->depth == PASS_DEPTH_MAX) return NULL;
  /* Keywords on a container need it whole, but an array's count. */
  if (e->checked && s->keywords && (s->keywords->types & (1u << type)) &&
      !(type == JSON_ARRAY && s->keywords->arrays_sized &&
        (s->kind == SHAPE_ARRAY || s->kind == SHAPE_SET || s->kind == SHAPE_TUPLE)))
    return NULL;
  e->nesting++;
  r->depth++;
  p = read_container(r, s, p);
  r->depth--;
  e->nesting--;
  return p;
}

/* A value at p (after any space) under shape s: a scalar here, in a frame
 * small enough that most values, scalars, pay little for the call. */
static const uint8_t *read_value(reader *r, const shape *s, const uint8_t *p) {
  encoder *e = r->e;
  if (p >= r->end) return NULL;
  if (*p == '[' || *p == '{') return read_nested(r, s, p);
  /* Past encode_value's nesting guard, which the pass's own depth keeps
   * far from, when there are no keywords to check. */
  json_value v;
  p = read_scalar(r, p, &v);
  if (!p) return NULL;
  if (e->checked && s->keywords && !validation_passes(s->keywords, &v)) return encode_value(e, s, &v) ? NULL : p;
  /* A string, a number, a boolean or an enum member whose keywords, if
   * any, pass without the full check: straight to its bytes, past the
   * walk's dispatch. */
  switch (s->kind) {
    case SHAPE_STRING:
      if (v.type == JSON_STRING) return put_string_value(e, &v) ? NULL : p;
      break;
    case SHAPE_UINT:
    case SHAPE_INT:
    case SHAPE_FLOAT64:
    case SHAPE_FLOAT32:
      if (v.type == JSON_NUMBER) return encode_number(e, s, &v) ? NULL : p;
      break;
    case SHAPE_BOOLEAN:
      if (v.type == JSON_TRUE || v.type == JSON_FALSE)
        return buffer_byte(e->out, v.type == JSON_TRUE) ? p : (encoder_nomem(e), NULL);
      break;
    case SHAPE_ENUM: {
      int64_t i = v.type == JSON_STRING ? enum_string_index(s, &v) : -1;
      if (i >= 0) return put_uvarint(e, (uint64_t)i) ? NULL : p;
      return encode_enum(e, s, &v) ? NULL : p;
    }
    default: break;
  }
  return encode_shape(e, s, &v) ? NULL : p;
}

/* The text in one pass, fingerprint first: SHORN_OK when it wrote the
 * bytes, SHORN_ERROR_NOMEM when memory ran out, else SHORN_ERROR_ENCODE
 * with nothing written and `error` as it was: the text is left to
 * encode_tree, which says why, and which `to_tree` calls from here, so
 * that the caller keeps nothing for it across the pass. */
static shorn_code encode_one_pass(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                                  shorn_buffer *out, shorn_error *error, bool checked, bool to_tree) {
  encoder_storage here;
  shorn_buffer discarded;
  encoder e;
  reader_storage stored;
  reader r = {.e = &e,
              .start = (const uint8_t *)json,
              .end = (const uint8_t *)json + length,
              .spans = stored.spans,
              .spans_capacity = 32,
              .present = stored.present,
              .present_capacity = 8,
              .moved = stored.moved,
              .moved_capacity = sizeof stored.moved,
              .unescaped = stored.unescaped,
              .unescaped_capacity = sizeof stored.unescaped,
              .here = &stored};
  shorn_code code_before = error->code;
  shorn_where where_before = error->where;
  error->code = SHORN_OK;
  shorn_code rc = encoder_open(&e, &here, s, NULL, out, &discarded, error, checked);
  size_t mark = e.out->length;
  const uint8_t *p = NULL;
  if (!rc && (!fingerprint_width || !put_fingerprint(&e, s, fingerprint_width)))
    p = read_value(&r, s->root, skip_space_at(&r, r.start));
  if (error->code == SHORN_ERROR_NOMEM) {
    rc = SHORN_ERROR_NOMEM;
  } else if (!p || skip_space_at(&r, p) != r.end) {
    /* A scalar refused on the way said so in `error`. */
    rc = SHORN_ERROR_ENCODE;
    error->where = where_before;
    error->message[0] = error->path[0] = 0;
  }
  if (rc != SHORN_ERROR_NOMEM) error->code = code_before;
  if (rc) e.out->length = mark;
  encoder_close(&e, &here, &discarded);
  array_free(s->allocator, r.spans, stored.spans);
  array_free(s->allocator, r.present, stored.present);
  array_free(s->allocator, r.unescaped, stored.unescaped);
  array_free(s->allocator, r.moved, stored.moved);
  return rc == SHORN_ERROR_ENCODE && to_tree ? encode_tree(s, json, length, fingerprint_width, out, error, checked)
                                             : rc;
}

static shorn_code encode_checked(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                                 shorn_buffer *out, shorn_error *error, bool checked) {
  if (!fingerprint_width_ok(fingerprint_width, true)) return fingerprint_width_refused(true, error);
  return encode_one_pass(s, json, length, fingerprint_width, out, error, checked, true);
}

bool encode_by_one_pass(const shorn_schema *s, const char *json, size_t length, shorn_buffer *out, bool checked) {
  shorn_error error = {0};
  return encode_one_pass(s, json, length, 0, out, &error, checked, false) == SHORN_OK;
}

shorn_code encode_by_tree(const shorn_schema *s, const char *json, size_t length, shorn_buffer *out,
                          shorn_error *error, bool checked) {
  return encode_tree(s, json, length, 0, out, error, checked);
}

shorn_code encode_at(const shorn_schema *s, const shape *sh, const json_value *value, const encode_place *place,
                     shorn_buffer *out, shorn_error *error) {
  return encode_dom(s, sh, value, place, 0, out, error, true);
}

shorn_code encode_default(const shorn_schema *s, const field *f, shorn_buffer *out, shorn_error *error) {
  return encode_dom(s, f->value, f->default_value, NULL, 0, out, error, false);
}

shorn_code shorn_encode(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                        shorn_buffer *out, shorn_error *error) {
  return encode_checked(s, json, length, fingerprint_width, out, error, true);
}

shorn_code shorn_encode_unchecked(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                                  shorn_buffer *out, shorn_error *error) {
  return encode_checked(s, json, length, fingerprint_width, out, error, false);
}
