/*
 * encode.c — the tree walker: a JSON value, parsed whole into a tree,
 * written as payload bytes under its shape.
 *
 * The one pass (pass.c) writes most texts without a tree; the walker
 * decides every text the pass leaves to it, a refusal above all, with its
 * message and path, and writes the values that come as a tree already: one
 * value at a place inside a payload (edit.c) and a field's default.  It
 * holds the rules of each scalar too, which the pass calls for every value
 * it reads.  A tree lets the wire have an object's fields in canonical
 * order whatever order the text lists them in.  Errors carry the path of
 * the value that failed, collected while the walk unwinds so that a
 * successful encode pays nothing for it.  A shape with validation keywords
 * (validate.c) has its value checked against them first, unless the call
 * is unchecked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/text/base64.h"

#include "core/numbers/bigint.h"
#include "core/numbers/datetime.h"
#include "encode.h"
#include "encoder.h"
#include "core/text/error.h"
#include "core/json/json.h"
#include "core/numbers/number.h"
#include "core/shape/shape.h"
#include "core/text/text.h"
#include "unique.h"
#include "core/schema/validate.h"

static shorn_code encode_fail(encoder *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
static shorn_code encode_fail(encoder *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(e->error, SHORN_ERROR_ENCODE, SHORN_WHERE_PATH, -1, fmt, ap);
  va_end(ap);
  return SHORN_ERROR_ENCODE;
}

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

shorn_code put_string_value(encoder *e, const json_value *v) {
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

/* An integer, however large: what is beyond the safe integers is told
 * apart from a fraction in messages. */
static inline bool is_integral(double x) { return isfinite(x) && x == floor(x); }

static inline bool is_negative_zero(double x) { return x == 0 && signbit(x); }

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

shorn_code encode_number(encoder *e, shape_kind kind, const json_value *v) {
  bool number = v->type == JSON_NUMBER;
  double x = number ? v->u.number : NAN;
  switch (kind) {
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

shorn_code encode_dynamic(encoder *e, const json_value *v, int depth) {
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

shorn_code encode_enum(encoder *e, const shape *s, const json_value *v) {
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

shorn_code encode_shape(encoder *e, const shape *s, const json_value *v) {
  shorn_code rc;
  switch (s->kind) {
    case SHAPE_ANY: return encode_dynamic(e, v, 0);
    case SHAPE_BOOLEAN:
      if (v->type != JSON_TRUE && v->type != JSON_FALSE) return expected_type(e, "a boolean", v);
      return put_bytes(e, v->type == JSON_TRUE ? "\1" : "\0", 1);
    case SHAPE_UINT:
    case SHAPE_INT:
    case SHAPE_FLOAT64:
    case SHAPE_FLOAT32: return encode_number(e, s->kind, v);
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
    *e->validator = (validator){.allocator = e->allocator, .matcher.allocator = e->allocator};
  }
  validation_site site;
  shorn_code rc = validation_check(e->validator, s, s->keywords, v, e->error, &site);
  if (rc != SHORN_ERROR_ENCODE || site.kind == SITE_NONE) return rc;
  return site.kind == SITE_INDEX ? at_index(e, rc, site.index) : at_key(e, rc, site.key, site.key_length);
}

shorn_code encode_value(encoder *e, const shape *s, const json_value *v) {
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

/* The value at `place` (NULL: the root), after the fingerprint's
 * `fingerprint_width` bytes. */
static shorn_code encode_dom(const shorn_schema *s, const shape *sh, const json_value *value, const encode_place *place,
                             int fingerprint_width, shorn_buffer *out, shorn_error *error, bool checked) {
  encoder_storage here;
  shorn_buffer discarded;
  encoder e;
  shorn_code rc = encoder_open(&e, &here, s, place ? place->nesting : 0, place ? place->ref_depth : NULL, out,
                               &discarded, error, checked);
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
 * decides every text the one pass (pass.c) leaves to it, a refusal above
 * all. */
shorn_code encode_tree(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
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
