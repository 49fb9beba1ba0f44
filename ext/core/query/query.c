/*
 * query.c — answering SQLite's JSON questions (json_extract, json_type,
 * json_each, json_tree) about a payload without decoding it whole; the
 * SQLite layer (sqlite/json_text.c) turns the answers into SQL values.
 *
 * The answers must be exactly what SQLite's functions give over
 * shorn_decode's output, and they are read from the bytes without checking
 * the whole payload first, as SQLite's JSONB functions read JSONB:
 *   - navigation: the path is followed over the bytes; the headers on it
 *     (counts, presence bitmaps, markers, union branches, dynamic tags,
 *     record keys compared) are read by the decoder's readers, with its
 *     checks and its messages, and what is not on it is passed over by its
 *     layout alone, every length and count checked against the bytes left;
 *   - text: the node a path names is written by the decoder, which checks
 *     it whole, so its JSON is byte for byte the corresponding part of
 *     shorn_decode's output;
 *   - values: scalars are turned into SQL values from that text, by SQLite's
 *     rules (sqlite/json_text.c), or read straight from their bytes by the
 *     decoder's readers, and json_each/json_tree rows are read off the text.
 * What lies off the path, bytes after the payload's value among it, is
 * checked only by shorn_decode and shorn_valid (docs/querying.md).
 *
 * The SQLite these rules follow is 3.40, the library this project builds
 * against: its path syntax, its comparison of path keys with member names
 * as written (escapes and all), its key quoting in fullkey.  They hold in
 * a later SQLite too, whose JSON functions changed some of them, so that an
 * index on a path means the same whichever SQLite opens the database
 * (docs/querying.md).
 */
#include "query.h"

#include "core/text/error.h"
#include "core/text/lanes.h"
#include "core/base/memory.h"
#include "core/text/text.h"

/* ---- paths ---------------------------------------------------------------- */


/* Digits into an index that saturates: an index past any count finds
 * nothing, however it is spelled. */
static size_t read_index(const char *s, size_t i, size_t n, uint64_t *value) {
  uint64_t v = 0;
  for (; i < n && is_digit(s[i]); i++)
    v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(s[i] - '0');
  *value = v;
  return i;
}

/* A key JSON.stringify writes unchanged, and UTF-8: then a member's name
 * matches it exactly when the raw bytes are equal. */
static bool query_key_is_plain(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t c = (uint8_t)s[i];
    if (c < 0x20 || c == '"' || c == '\\' || (c == 0xED && i + 1 < n && (uint8_t)s[i + 1] >= 0xA0))
      return false;
  }
  return utf8_valid((const uint8_t *)s, n, n);
}

/* SQLite's message, the rest of the path quoted as its %q quotes. */
static shorn_code query_path_error(shorn_error *e, const char *rest, size_t n) {
  char quoted[SHORN_MESSAGE_MAX];
  size_t o = 0, i = 0;
  for (; i < n && o + 2 < sizeof quoted - 32; i++) {
    if (rest[i] == '\'') quoted[o++] = '\'';
    quoted[o++] = rest[i];
  }
  /* A path cut short must not end inside a character. */
  for (; i < n && o > 0 && ((uint8_t)rest[i] & 0xC0) == 0x80; i--) o--;
  quoted[o] = 0;
  return error_set(e, SHORN_ERROR_USAGE, "JSON path error near '%s'", quoted);
}

/* A key step, s[i] just past its '.': quoted ("...", no escapes, as SQLite
 * reads it) or bare up to the next '.' or '['.  False when malformed. */
static bool query_parse_key(const char *s, size_t n, size_t *i, path_step *step) {
  size_t start = *i, end;
  if (start < n && s[start] == '"') {
    const char *close = memchr(s + start + 1, '"', n - start - 1);
    if (!close) return false;
    end = (size_t)(close - s);
    *i = end + 1;
    start++;
  } else {
    for (end = start; end < n && s[end] != '.' && s[end] != '['; end++) {
    }
    if (end == start) return false;
    *i = end;
  }
  *step =
      (path_step){STEP_KEY, query_key_is_plain(s + start, end - start), s + start, (uint32_t)(end - start),
                  key_hash(s + start, end - start), 0};
  return true;
}

/* An index step, s[i] at its '[': [N], or [#] and [#-N] counting from the
 * end ([#] is one past the last element).  False when malformed. */
static bool query_parse_index(const char *s, size_t n, size_t *i, path_step *step) {
  size_t at = *i + 1;
  step->kind = STEP_INDEX;
  size_t after = read_index(s, at, n, &step->index);
  if (after == at) {
    if (at >= n || s[at] != '#') return false;
    step->kind = STEP_FROM_END;
    step->index = 0;
    after = at + 1;
    if (after + 1 < n && s[after] == '-' && is_digit(s[after + 1]))
      after = read_index(s, after + 1, n, &step->index);
  }
  if (after >= n || s[after] != ']') return false;
  *i = after + 1;
  return true;
}

query_path *query_path_parse(const shorn_allocator *a, const char *text, size_t n, shorn_error *e) {
  if (!n || text[0] != '$') return query_path_error(e, text, n), NULL;
  /* Every step takes two characters at least. */
  size_t most = n / 2;
  query_path *path = mem_alloc(a, sizeof *path + most * sizeof(path_step) + n + 1);
  if (!path) return error_nomem(e), NULL;
  char *copy = (char *)(path->steps + most);
  memcpy(copy, text, n);
  copy[n] = 0;
  path->allocator = a;
  path->text = copy;
  path->length = n;
  path->count = 0;
  for (size_t i = 1; i < n;) {
    /* SQLite points at what follows a key's dot, at an index's bracket, or
     * at the character that starts no step. */
    size_t at = copy[i] == '.' ? i + 1 : i;
    path_step *step = &path->steps[path->count++];
    bool ok = copy[i] == '.' ? (i++, query_parse_key(copy, n, &i, step))
                             : copy[i] == '[' && query_parse_index(copy, n, &i, step);
    if (!ok) {
      mem_free(a, path);
      return query_path_error(e, text + at, n - at), NULL;
    }
  }
  return path;
}

void query_path_free(void *path) {
  if (path) mem_free(((query_path *)path)->allocator, path);
}

/* ---- the payload ------------------------------------------------------------ */

/* The elements of a dynamic container have no shape of their own; each
 * takes its tag's byte at least. */
static const shape dynamic_value = {.kind = SHAPE_ANY, .min_width = 1};

shorn_code query_open(query *q, const shorn_schema *s, const uint8_t *data, size_t length,
                      int fingerprint_width, shorn_error *error) {
  /* Only the depths the schema's definitions use are zeroed: clearing the
   * whole query would cost more than extracting a small record's field.
   * The fingerprint is read before any allocation, so that a query that
   * fails to open holds nothing. */
  if (!length) data = (const uint8_t *)""; /* SQLite gives NULL for an empty BLOB */
  q->d = (decoder){.start = data, .p = data, .end = data + length, .error = error,
                   .allocator = s->allocator, .ref_depth = q->depth_here};
  shorn_code rc = read_fingerprint(&q->d, s, fingerprint_width);
  if (rc) return rc;
  if (s->def_count <= sizeof q->depth_here / sizeof *q->depth_here)
    memset(q->depth_here, 0, s->def_count * sizeof *q->depth_here);
  else if (!(q->d.ref_depth = mem_calloc(s->allocator, s->def_count, sizeof *q->d.ref_depth)))
    return q->d.ref_depth = q->depth_here, error_nomem(error);
  q->root = (query_node){s->root, q->d.p};
  q->def_count = s->def_count;
  return SHORN_OK;
}

void query_close(query *q) {
  if (q->d.ref_depth != q->depth_here) mem_free(q->d.allocator, q->d.ref_depth);
}

/* ---- passing over values -------------------------------------------------- */

/* What is not on the path is passed over by its layout alone, a leaf by its
 * width or length prefix and a container by its counts: a few nanoseconds a
 * value where the decoder would read every byte of it.  Nothing in it is
 * checked but what keeps the walk inside the payload and finite: every
 * length against the bytes left, every count against the decoder's limit
 * and the bytes left (N values of at least k bytes need N * k), and the
 * decoder's limits on depth.  A value that fails these is handed to the
 * decoder, whose error then says what is wrong with it. */
static bool query_pass_value(decoder *d, const shape *s);
static bool query_pass_objects(decoder *d, const shape *s, uint64_t count);
static bool query_pass_object(decoder *d, const shape *s);
static bool query_pass_dynamic(decoder *d, int depth);

static inline bool query_pass_bytes(decoder *d, uint64_t n) {
  if (n > remaining(d)) return false;
  d->p += n;
  return true;
}

/* Its bytes, up to the first without a continuation bit; the value is not
 * needed, so neither is its form. */
static bool query_pass_varint(decoder *d) {
  const uint8_t *p = d->p;
  while (p < d->end && *p & 0x80) p++;
  if (p == d->end) return false;
  d->p = p + 1;
  return true;
}

static bool query_pass_count(decoder *d, uint64_t width, uint64_t *count) {
  return read_uvarint(d, count) == SHORN_OK && *count <= SHORN_MAX_ELEMENTS && !exceeds(d, *count, width);
}

/* A string, a byte array, a record key: a length, then that many bytes. */
static bool query_pass_body(decoder *d) {
  uint64_t n;
  return read_uvarint(d, &n) == SHORN_OK && query_pass_bytes(d, n);
}

static bool query_pass_bodies(decoder *d, uint64_t count) {
  for (uint64_t i = 0; i < count; i++)
    if (!query_pass_body(d)) return false;
  return true;
}

/* `count` varints: the bytes up to the count-th without a continuation
 * bit, counted eight bytes at a time rather than a call per value. */
static bool query_pass_varints(decoder *d, uint64_t count) {
  const uint8_t *p = d->p;
  while (count && d->end - p >= 8) {
    uint64_t stops = ~load_le64(p) & LANES(0x80);
    /* A one per stop in its lane, summed into the top lane: no popcount
     * instruction in baseline x86-64, and libgcc's is a call. */
    uint64_t found = ((stops >> 7) * LANES(1)) >> 56;
    if (found < count) {
      count -= found;
      p += 8;
      continue;
    }
    for (; count > 1; count--) stops &= stops - 1;
    d->p = p + first_lane(stops) + 1;
    return true;
  }
  for (; count && p < d->end; p++)
    if (!(*p & 0x80)) count--;
  d->p = p;
  return !count;
}

/* `count` values of shape `s`; a count checked as query_pass_count checks one.
 * Runs of leaves are passed in loops of their own. */
static bool query_pass_many(decoder *d, const shape *s, uint64_t count) {
  uint64_t width = (uint64_t)shape_fixed_width(s);
  switch (shape_form(s)) {
    case WIRE_FIXED: return !exceeds(d, count, width) && query_pass_bytes(d, count * width);
    case WIRE_VARINT: return query_pass_varints(d, count);
    case WIRE_BODY: return query_pass_bodies(d, count);
    case WIRE_FIELDS: return query_pass_objects(d, s, count);
    default:
      for (uint64_t i = 0; i < count; i++)
        if (!query_pass_value(d, s)) return false;
      return true;
  }
}

/* Keyed entries (a record, extras, a dynamic object: `value` NULL, one
 * level below `depth`): a count, then a key and a value each. */
static bool query_pass_entries(decoder *d, const shape *value, int depth) {
  uint64_t count;
  if (!query_pass_count(d, add_saturating(value ? value->min_width : 1, 1), &count)) return false;
  for (uint64_t i = 0; i < count; i++)
    if (!query_pass_body(d) || !(value ? query_pass_value(d, value) : query_pass_dynamic(d, depth))) return false;
  return true;
}

/* An array's or a Set's elements, after its count unless it is fixed. */
static bool query_pass_elements(decoder *d, const shape *s) {
  uint64_t n;
  if (s->u.array.length >= 0)
    n = (uint64_t)s->u.array.length;
  else if (!query_pass_count(d, s->u.array.element->min_width, &n))
    return false;
  return query_pass_many(d, s->u.array.element, n);
}

/* A step that is a value of its own: an array or an object a level deeper,
 * as query_pass_value counts it, without its dispatch on the kind.  Kept out of
 * the plan's loop, which stays small enough to keep its leaves inline. */
static NOINLINE bool query_pass_step_value(decoder *d, const pass_step *step) {
  if (step->op == PASS_VALUE) return query_pass_value(d, step->value);
  if (d->nesting == NESTING_MAX) return false;
  d->nesting++;
  bool passed = step->op == PASS_ARRAY ? query_pass_elements(d, step->value) : query_pass_object(d, step->value);
  d->nesting--;
  return passed;
}

/* One step of an object's plan, or the first n of its units. */
static inline bool query_pass_step_n(decoder *d, const pass_step *step, uint64_t n) {
  switch (step->op) {
    case PASS_BYTES: return query_pass_bytes(d, n);
    case PASS_VARINTS: return n == 1 ? query_pass_varint(d) : query_pass_varints(d, n);
    case PASS_BODIES: return query_pass_bodies(d, n);
    default: return query_pass_step_value(d, step);
  }
}

/* The declared fields before `stop` (all of them when NULL) by the
 * object's plan, from just past its presence bitmap. */
static bool query_pass_fields(decoder *d, const shape *s, const uint8_t *bitmap, const field *stop) {
  const pass_step *step = s->u.object.plan, *end = step + (stop ? stop->plan_step : s->u.object.plan_length);
  for (; step < end; step++)
    if ((!step->optional || bitmap_has(bitmap, step->bit)) && !query_pass_step_n(d, step, step->n))
      return false;
  return !stop || !stop->plan_skip || query_pass_step_n(d, step, stop->plan_skip);
}

static bool query_pass_object(decoder *d, const shape *s) {
  const uint8_t *bitmap = d->p;
  return query_pass_bytes(d, bitmap_bytes(s->u.object.optional_count)) && query_pass_fields(d, s, bitmap, NULL) &&
         (!s->u.object.extras || query_pass_entries(d, s->u.object.extras, 0));
}

/* `count` objects, a level deeper as query_pass_value would count each, without
 * its dispatch per element. */
static bool query_pass_objects(decoder *d, const shape *s, uint64_t count) {
  if (!count) return true;
  if (d->nesting == NESTING_MAX) return false;
  d->nesting++;
  uint64_t i = 0;
  while (i < count && query_pass_object(d, s)) i++;
  d->nesting--;
  return i == count;
}

/* Levels counted as decode_dynamic counts them. */
static bool query_pass_dynamic(decoder *d, int depth) {
  uint64_t n;
  if (d->p >= d->end) return false;
  switch (*d->p++) {
    case DYNAMIC_NULL:
    case DYNAMIC_FALSE:
    case DYNAMIC_TRUE: return true;
    case DYNAMIC_INTEGER: return query_pass_varint(d);
    case DYNAMIC_NUMBER: return query_pass_bytes(d, 8);
    case DYNAMIC_STRING: return query_pass_body(d);
    case DYNAMIC_ARRAY:
      if (depth == SHORN_MAX_DYNAMIC_DEPTH || !query_pass_count(d, 1, &n)) return false;
      for (uint64_t i = 0; i < n; i++)
        if (!query_pass_dynamic(d, depth + 1)) return false;
      return true;
    case DYNAMIC_OBJECT: return depth < SHORN_MAX_DYNAMIC_DEPTH && query_pass_entries(d, NULL, depth + 1);
    default: return false;
  }
}

/* What holds other values (or, for a dynamic one, may). */
static bool query_pass_container(decoder *d, const shape *s) {
  uint64_t n;
  switch (s->kind) {
    case SHAPE_NULLABLE: return query_pass_bytes(d, 1) && (!d->p[-1] || query_pass_value(d, s->u.inner));
    case SHAPE_UNION:
      return read_uvarint(d, &n) == SHORN_OK && n < s->u.choice.count &&
             query_pass_value(d, s->u.choice.branches[n]);
    case SHAPE_REF: {
      uint32_t *depth = &d->ref_depth[s->u.ref.index];
      if (*depth == SHORN_MAX_RECURSION) return false;
      ++*depth;
      bool passed = query_pass_value(d, s->u.ref.target);
      --*depth;
      return passed;
    }
    case SHAPE_ARRAY:
    case SHAPE_SET: return query_pass_elements(d, s);
    case SHAPE_MAP:
      if (!query_pass_count(d, add_saturating(s->u.map.key->min_width, s->u.map.value->min_width), &n)) return false;
      for (uint64_t i = 0; i < n; i++)
        if (!query_pass_value(d, s->u.map.key) || !query_pass_value(d, s->u.map.value)) return false;
      return true;
    case SHAPE_TUPLE:
      for (uint32_t i = 0; i < s->u.tuple.count; i++)
        if (!query_pass_value(d, s->u.tuple.items[i])) return false;
      return !s->u.tuple.rest ||
             (query_pass_count(d, s->u.tuple.rest->min_width, &n) && query_pass_many(d, s->u.tuple.rest, n));
    case SHAPE_OBJECT: return query_pass_object(d, s);
    case SHAPE_RECORD: return query_pass_entries(d, s->u.record, 0);
    case SHAPE_ANY: return query_pass_dynamic(d, 0);
    default: return false;
  }
}

/* A leaf at once; a container a level deeper, counted as decode_value
 * counts them (leaves hold nothing, so they need no count). */
static bool query_pass_value(decoder *d, const shape *s) {
  uint64_t n;
  switch (shape_form(s)) {
    case WIRE_FIXED: return query_pass_bytes(d, (uint64_t)shape_fixed_width(s));
    case WIRE_VARINT: return query_pass_varint(d);
    case WIRE_BODY: return query_pass_body(d);
    case WIRE_BIGINT: return read_uvarint(d, &n) == SHORN_OK && query_pass_bytes(d, n >> 1);
    default: break;
  }
  if (d->nesting == NESTING_MAX) return false;
  d->nesting++;
  bool passed = query_pass_container(d, s);
  d->nesting--;
  return passed;
}

static shorn_code query_skip_one(query *q, const shape *s) {
  const uint8_t *start = q->d.p;
  if (query_pass_value(&q->d, s)) return SHORN_OK;
  q->d.p = start;
  return decode_value(&q->d, s);
}

/* Skip `count` values of shape `s`, a count checked as read_count checks
 * one; when they do not pass, the decoder finds the fault. */
static shorn_code query_skip(query *q, const shape *s, uint64_t count) {
  const uint8_t *start = q->d.p;
  if (query_pass_many(&q->d, s, count)) return SHORN_OK;
  q->d.p = start;
  for (uint64_t i = 0; i < count; i++) {
    shorn_code rc = query_skip_one(q, s);
    if (rc) return rc;
  }
  return SHORN_OK;
}

/* ---- following a path ------------------------------------------------------- */

/* Look through the shapes that add no JSON of their own: a present
 * nullable, a union's branch, a recursive reference, reading their headers
 * as the decoder reads them.  What is left writes the same text from where
 * it now starts. */
static inline shorn_code query_resolve(query *q, query_node *n) {
  shorn_code rc = SHORN_OK;
  for (uint32_t hops = 0;;) {
    /* More hops than definitions with no byte read between (a marker or a
     * branch resets the count): a cycle that reads nothing ({"$ref":"#"}),
     * which the decoder refuses once a definition opens too many levels.
     * A null stays the nullable. */
    if (n->shape->kind != SHAPE_REF) {
      hops = 0;
    } else if (++hops > q->def_count) {
      q->d.p = n->at;
      return decode_value(&q->d, n->shape);
    }
    if (!query_unwrap(&q->d, n, &rc)) return rc;
  }
}

/* Does a member name (raw WTF-8) match a path key?  SQLite compares the key
 * with the name as the JSON text writes it, escapes included. */
static bool query_name_matches(const decoder *d, const path_step *step, const uint8_t *name, size_t n,
                         bool *nomem) {
  if (step->plain) return n == step->key_length && short_equal((const char *)name, step->key, n);
  shorn_buffer written = {.allocator = d->allocator};
  if (!buffer_json_string(&written, (const char *)name, n)) return *nomem = true, false;
  bool same = written.length == step->key_length + 2u &&
              memcmp(written.data + 1, step->key, step->key_length) == 0;
  shorn_buffer_free(&written);
  return same;
}

/* The declared field a key names: through the index when the key needs no
 * escaping, else by the names as written. */
static const field *query_declared_field(const shape *obj, const path_step *step) {
  if (step->plain) return object_find_hashed(obj, step->key, step->key_length, step->key_hash);
  for (uint32_t i = 0; i < obj->u.object.count; i++) {
    const field *f = &obj->u.object.fields[i];
    if (f->json_key_length == step->key_length + 3u &&
        memcmp(f->json_key + 1, step->key, step->key_length) == 0)
      return f;
  }
  return NULL;
}

/* A key's bytes, unchecked: compared with a plain path key, one equal to
 * it is UTF-8 as the path is, and one that differs is passed over as a
 * string value is, unread.  read_string's error where the length does not
 * fit. */
static shorn_code query_read_key(decoder *d, const uint8_t **name, size_t *n) {
  const uint8_t *at = d->p;
  uint64_t length;
  if (read_uvarint(d, &length) == SHORN_OK && length <= remaining(d)) {
    *name = d->p;
    *n = (size_t)length;
    d->p += length;
    return SHORN_OK;
  }
  d->p = at;
  return read_string(d, name, n);
}

/* Keyed entries (a record, an open object's extras, a dynamic object) from
 * the decoder's position: count, then name and value per entry.  A name
 * compared with a key that needs escaping is read as a string, UTF-8
 * checked; with a plain one, as query_read_key reads it.  Their order is
 * not checked. */
static shorn_code query_find_entry(query *q, const shape *value, const path_step *step, query_node *out) {
  uint64_t count;
  shorn_code rc = read_count(&q->d, add_saturating(value->min_width, 1), "Record size", &count);
  for (uint64_t i = 0; !rc && i < count; i++) {
    const uint8_t *name;
    size_t n;
    bool nomem = false;
    if ((rc = step->plain ? query_read_key(&q->d, &name, &n) : read_string(&q->d, &name, &n))) break;
    if (query_name_matches(&q->d, step, name, n, &nomem)) {
      *out = (query_node){value, q->d.p};
      return SHORN_OK;
    }
    if (nomem) return error_nomem(q->d.error);
    rc = query_skip_one(q, value);
  }
  return rc;
}

static shorn_code query_find_member(query *q, const query_node *n, const path_step *step, query_node *out) {
  const shape *s = n->shape;
  shorn_code rc;
  q->d.p = n->at;
  if (s->kind == SHAPE_RECORD) return query_find_entry(q, s->u.record, step, out);
  if (s->kind == SHAPE_ANY) {
    dynamic_tag tag = DYNAMIC_NULL;
    if ((rc = read_tag(&q->d, &tag)) || tag != DYNAMIC_OBJECT) return rc;
    return query_find_entry(q, &dynamic_value, step, out);
  }
  if (s->kind != SHAPE_OBJECT) return SHORN_OK;
  const uint8_t *bitmap;
  if ((rc = read_bitmap(&q->d, s, &bitmap))) return rc;
  const field *wanted = query_declared_field(s, step);
  if (wanted ? !field_present(wanted, bitmap) : !s->u.object.extras) return SHORN_OK;
  /* Declared fields come first on the wire, in order; then the extras.
   * Those before the one wanted are passed by the plan, or, where it does
   * not pass, one by one, so that the decoder finds the fault. */
  const uint8_t *fields = q->d.p;
  if ((wanted && !wanted->plan_step && !wanted->plan_skip) || query_pass_fields(&q->d, s, bitmap, wanted)) {
    if (!wanted) return query_find_entry(q, s->u.object.extras, step, out);
    *out = (query_node){wanted->value, q->d.p};
    return SHORN_OK;
  }
  q->d.p = fields;
  for (uint32_t i = 0; i < s->u.object.count; i++) {
    const field *f = &s->u.object.fields[i];
    if (f == wanted) {
      *out = (query_node){f->value, q->d.p};
      return SHORN_OK;
    }
    if (field_present(f, bitmap) && (rc = query_skip_one(q, f->value))) return rc;
  }
  return query_find_entry(q, s->u.object.extras, step, out);
}

/* Which element a step names among `count`, if any. */
static bool query_pick(const path_step *step, uint64_t count, uint64_t *index) {
  if (step->kind == STEP_FROM_END) {
    if (step->index > count) return false;
    *index = count - step->index;
  } else {
    *index = step->index;
  }
  return *index < count;
}

static shorn_code query_find_element(query *q, const query_node *n, const path_step *step, query_node *out) {
  const shape *s = n->shape, *element;
  uint64_t count, index;
  shorn_code rc = SHORN_OK;
  q->d.p = n->at;
  switch (s->kind) {
    case SHAPE_ARRAY:
    case SHAPE_SET:
      element = s->u.array.element;
      if ((rc = read_array_length(&q->d, s, &count))) return rc;
      break;
    case SHAPE_MAP: {
      uint64_t width = add_saturating(s->u.map.key->min_width, s->u.map.value->min_width);
      if ((rc = read_count(&q->d, width, "Map size", &count)) || !query_pick(step, count, &index)) return rc;
      for (uint64_t i = 0; i < index && !rc; i++)
        if (!(rc = query_skip_one(q, s->u.map.key))) rc = query_skip_one(q, s->u.map.value);
      if (rc) return rc;
      /* An entry is the JSON array [key, value]: a tuple of two. */
      q->index = index;
      q->pair_items[0] = s->u.map.key;
      q->pair_items[1] = s->u.map.value;
      q->pair = (shape){.kind = SHAPE_TUPLE, .u.tuple = {q->pair_items, 2, NULL}};
      *out = (query_node){&q->pair, q->d.p};
      return SHORN_OK;
    }
    case SHAPE_TUPLE: {
      uint64_t items = s->u.tuple.count, rest = 0;
      const shape *more = s->u.tuple.rest;
      /* The rest's count follows the items, and [#-N] needs it. */
      if (more && (step->kind == STEP_FROM_END || step->index >= items)) {
        for (uint32_t i = 0; i < items && !rc; i++) rc = query_skip_one(q, s->u.tuple.items[i]);
        if (rc || (rc = read_count(&q->d, more->min_width, "Array length", &rest))) return rc;
      }
      if (!query_pick(step, items + rest, &index)) return SHORN_OK;
      q->index = index;
      if (index >= items) {
        if ((rc = query_skip(q, more, index - items))) return rc;
        *out = (query_node){more, q->d.p};
        return SHORN_OK;
      }
      q->d.p = n->at;
      for (uint32_t i = 0; i < index && !rc; i++) rc = query_skip_one(q, s->u.tuple.items[i]);
      if (rc) return rc;
      *out = (query_node){s->u.tuple.items[index], q->d.p};
      return SHORN_OK;
    }
    case SHAPE_ANY: {
      dynamic_tag tag = DYNAMIC_NULL;
      if ((rc = read_tag(&q->d, &tag)) || tag != DYNAMIC_ARRAY) return rc;
      element = &dynamic_value;
      if ((rc = read_count(&q->d, 1, "Array length", &count))) return rc;
      break;
    }
    default: return SHORN_OK;
  }
  if (!query_pick(step, count, &index) || (rc = query_skip(q, element, index))) return rc;
  q->index = index;
  *out = (query_node){element, q->d.p};
  return SHORN_OK;
}

static inline shorn_code query_step_once(query *q, query_node *node, const path_step *step, query_node *next) {
  shorn_code rc = query_resolve(q, node);
  if (rc) return rc;
  *next = (query_node){NULL, NULL};
  return step->kind == STEP_KEY ? query_find_member(q, node, step, next) : query_find_element(q, node, step, next);
}

shorn_code query_find(query *q, const query_path *path, query_node *node) {
  *node = q->root;
  for (uint32_t i = 0; path && i < path->count; i++) {
    query_node next;
    shorn_code rc = query_step_once(q, node, &path->steps[i], &next);
    if (rc) return rc;
    *node = next;
    if (!node->shape) return SHORN_OK;
  }
  return SHORN_OK;
}

shorn_code query_step(query *q, const query_node *node, const path_step *step, query_node *next) {
  query_node here = *node;
  return query_step_once(q, &here, step, next);
}

shorn_code query_check(query *q, const query_node *node) {
  q->d.p = node->at;
  return decode_value(&q->d, node->shape);
}

shorn_code query_json(query *q, const query_node *node, shorn_buffer *out) {
  q->d.p = node->at;
  q->d.out = out;
  shorn_code rc = decode_value(&q->d, node->shape);
  q->d.out = NULL;
  return rc;
}

/* query_number's answer for a node already resolved, inlined in both its
 * callers: shorn_extract asks it on every row. */
static ALWAYS_INLINE bool query_number_value(query *q, query_node n, bool *is_integer, int64_t *integer,
                                             double *real) {
  q->d.p = n.at;
  uint64_t u;
  double v;
  switch (n.shape->kind) {
    case SHAPE_UINT:
      if (read_uvarint(&q->d, &u)) return false;
      *is_integer = true, *integer = (int64_t)u;
      return true;
    case SHAPE_INT:
      *is_integer = true;
      return read_int(&q->d, integer) == SHORN_OK;
    /* Too few bytes left: the text, written by the decoder, reports it. */
    case SHAPE_FLOAT64:
      if (remaining(&q->d) < 8) return false;
      v = load_f64_le(n.at);
      break;
    case SHAPE_FLOAT32:
      if (remaining(&q->d) < 4) return false;
      v = load_f32_le(n.at);
      break;
    default: return false;
  }
  /* A safe integer prints as its digits, -0 as "-0": both INTEGER.  Any
   * other finite number's shortest spelling reads back as itself; larger
   * integers, NaN and the infinities are left to their text. */
  if (v >= -0x1p53 && v <= 0x1p53 && v == (double)(int64_t)v) {
    *is_integer = true, *integer = (int64_t)v;
    return true;
  }
  if (!(v > -0x1p53 && v < 0x1p53)) return false;
  *is_integer = false, *real = v;
  return true;
}

bool query_number(query *q, const query_node *node, bool *is_integer, int64_t *integer, double *real) {
  query_node n = *node;
  return !query_resolve(q, &n) && query_number_value(q, n, is_integer, integer, real);
}

query_json_type query_text_type(const char *json, size_t n) {
  switch (json[0]) {
    case 'n': return QUERY_NULL;
    case 't': return QUERY_TRUE;
    case 'f': return QUERY_FALSE;
    case '"': return QUERY_STRING;
    case '[': return QUERY_ARRAY;
    case '{': return QUERY_OBJECT;
    default:
      for (size_t i = 0; i < n; i++)
        if (json[i] == '.' || json[i] == 'e' || json[i] == 'E') return QUERY_REAL;
      return QUERY_INTEGER;
  }
}

shorn_code query_type(query *q, const query_node *node, shorn_buffer *scratch, query_json_type *type) {
  /* A type is an answer about the value, so the value is checked whole
   * first, as shorn_extract's would be, even where its shape names it. */
  query_node n = *node;
  shorn_code rc = query_check(q, node);
  if (rc || (rc = query_resolve(q, &n))) return rc;
  json_kind kind = shape_wires[n.shape->kind].decodes_to;
  /* A dynamic value's strings and containers by their tag, without
   * writing them out. */
  if (n.shape->kind == SHAPE_ANY)
    kind = *n.at == DYNAMIC_STRING  ? KIND_STRING
           : *n.at == DYNAMIC_ARRAY ? KIND_ARRAY
           : *n.at == DYNAMIC_OBJECT ? KIND_OBJECT
                                     : KIND_COUNT;
  bool is_integer;
  int64_t integer;
  double real;
  switch (kind) {
    case KIND_ARRAY: *type = QUERY_ARRAY; return SHORN_OK;
    case KIND_OBJECT: *type = QUERY_OBJECT; return SHORN_OK;
    case KIND_STRING: *type = QUERY_STRING; return SHORN_OK;
    /* A number whose value says how it is spelled, without spelling it. */
    case KIND_NUMBER:
      if (!query_number_value(q, n, &is_integer, &integer, &real)) break;
      *type = is_integer ? QUERY_INTEGER : QUERY_REAL;
      return SHORN_OK;
    default: break;
  }
  /* The rest are short, and how a number is spelled decides its type. */
  scratch->length = 0;
  if ((rc = query_json(q, &n, scratch))) return rc;
  *type = query_text_type((const char *)scratch->data, scratch->length);
  return SHORN_OK;
}

/* Unescaping a string's JSON text gives back its bytes: every escape
 * JSON.stringify writes stands for the character it replaced, a lone
 * surrogate's for its three bytes of WTF-8, as SQLite writes one.  Only an
 * escaped NUL differs: SQLite 3.40 ends the string there. */
bool query_text(query *q, const query_node *node, const char **text, size_t *length) {
  query_node n = *node;
  if (query_resolve(q, &n)) return false;
  q->d.p = n.at;
  const uint8_t *s;
  size_t count;
  uint64_t index;
  switch (n.shape->kind) {
    case SHAPE_STRING:
      if (read_string(&q->d, &s, &count)) return false;
      break;
    case SHAPE_ENUM: {
      if (read_uvarint(&q->d, &index) || index >= n.shape->u.enumeration.count) return false;
      const scalar *member = &n.shape->u.enumeration.members[index];
      if (member->type != JSON_STRING) return false;
      s = (const uint8_t *)member->string;
      count = member->string_length;
      break;
    }
    default: return false;
  }
  const uint8_t *nul = count ? memchr(s, 0, count) : NULL;
  *text = (const char *)s;
  *length = nul ? (size_t)(nul - s) : count;
  return true;
}

bool query_pass(query *q, const query_node *node, const uint8_t **end) {
  q->d.p = node->at;
  if (!query_pass_value(&q->d, node->shape)) return false;
  *end = q->d.p;
  return true;
}
