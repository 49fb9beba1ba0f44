/*
 * decode.c — payload bytes to JSON text.
 *
 * One pass over the bytes, writing JSON as it goes.  Every check of the byte
 * layout's limits table happens here, and every count is checked against the
 * bytes that remain before anything is sized by it, so a hostile payload
 * costs at most what it is long.  With no output buffer the same walk only
 * validates, which is how shorn_valid reads a payload.  The readers of a
 * value's header (counts, bitmaps, markers, branches, tags, the fingerprint)
 * are query.c's too, so that a path meets the decoder's checks and messages.
 */
#include "decode.h"

#include "core/text/base64.h"
#include "core/numbers/bigint.h"
#include "core/numbers/datetime.h"
#include "core/numbers/number.h"
#include "core/text/text.h"
#include "unique.h"

#define SAFE_INTEGER_MAX ((uint64_t)MAX_SAFE_INTEGER)

/* Room for a key quoted in a message; longer ones are cut. */
#define KEY_QUOTE_MAX 72

static shorn_code decode_fail_at(decoder *d, const uint8_t *at, const char *fmt, ...) PRINTF_LIKE(3, 4);
static shorn_code decode_fail_at(decoder *d, const uint8_t *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(d->error, SHORN_ERROR_DECODE, SHORN_WHERE_OFFSET, (long long)(at - d->start), fmt, ap);
  va_end(ap);
  return SHORN_ERROR_DECODE;
}

static shorn_code decode_end_of_input(decoder *d, const uint8_t *at) {
  return decode_fail_at(d, at, "Unexpected end of input");
}

static shorn_code decoder_nomem(decoder *d) { return error_nomem(d->error); }

/* ---- output ------------------------------------------------------------- */

#define EMIT(d, p, n) \
  do { \
    if ((d)->out && !buffer_append((d)->out, (p), (n))) return decoder_nomem(d); \
  } while (0)
/* EMIT of a text arena_strdup made (copy_padded). */
#define EMIT_PADDED(d, p, n) \
  do { \
    if ((d)->out && !buffer_append_padded((d)->out, (p), (n))) return decoder_nomem(d); \
  } while (0)
#define EMIT_CHAR(d, c) \
  do { \
    if ((d)->out && !buffer_byte((d)->out, (uint8_t)(c))) return decoder_nomem(d); \
  } while (0)

/* The writers of numbers are called only when there is output: a
 * validating walk decides that before the call.  Written in place, as the
 * buffer's room allows: a copy from a local spelling was a call to memcpy
 * per number. */
static shorn_code decode_emit_number(decoder *d, double v) {
  if (!buffer_reserve(d->out, NUMBER_TEXT_MAX)) return decoder_nomem(d);
  char *o = (char *)d->out->data + d->out->length;
  size_t n;
  /* One test for the usual number: v - v is NaN for infinities and NaN. */
  if (likely(v - v == 0 && v != 0)) {
    n = number_format(v, o);
  } else if (v != v) { /* JSON has no spelling for these; SQLite's json functions print the same */
    n = 4, memcpy(o, "null", 4);
  } else if (v == 1.0 / 0.0) {
    n = 5, memcpy(o, "9e999", 5);
  } else if (v == -1.0 / 0.0) {
    n = 6, memcpy(o, "-9e999", 6);
  } else if (1 / v < 0) {
    n = 2, memcpy(o, "-0", 2); /* keeps the value, which JSON.stringify would not */
  } else {
    n = 1, *o = '0';
  }
  d->out->length += n;
  return SHORN_OK;
}

/* A safe integer prints as its digits, so an integer shape skips
 * decode_emit_number's path for doubles. */
static shorn_code decode_emit_integer(decoder *d, int64_t v) {
  if (!buffer_reserve(d->out, 21)) return decoder_nomem(d); /* "-" and 20 digits */
  char *o = (char *)d->out->data + d->out->length;
  uint64_t u = (uint64_t)v;
  if (v < 0) {
    *o++ = '-';
    u = 0 - u;
  }
  o += integer_format(u, o);
  d->out->length = (size_t)((unsigned char *)o - d->out->data);
  return SHORN_OK;
}

/* ---- readers ------------------------------------------------------------ */

/* A varint of two to eight bytes read from one 8-byte load, when eight
 * bytes remain: its length from the first byte without a continuation bit,
 * its seven-bit groups packed by halving steps rather than a loop that
 * mispredicts its exit.  False for anything else, including a non-canonical last byte,
 * which the byte loops then read and report as the reference does. */
static inline bool decode_read_varint8(const decoder *d, uint64_t *value, size_t *length) {
  if (d->end - d->p < 8) return false;
  uint64_t w = load_le64(d->p), stops = ~w & LANES(0x80);
  if (!stops) return false;
  size_t n = first_lane(stops) + 1;
  if (d->p[n - 1] == 0) return false; /* non-canonical; n > 1, since byte 0 has its bit set */
  if (n < 8) w &= (1ull << (8 * n)) - 1;
  w &= LANES(0x7F);
  w = (w & 0x007F007F007F007Full) | (w & 0x7F007F007F007F00ull) >> 1;
  w = (w & 0x00003FFF00003FFFull) | (w & 0x3FFF00003FFF0000ull) >> 2;
  *value = (w & 0x000000000FFFFFFFull) | (w & 0x0FFFFFFF00000000ull) >> 4;
  *length = n;
  return true;
}

shorn_code read_uvarint_long(decoder *d, uint64_t *value) {
  /* Two bytes, a string of 128 bytes to 16 KiB's length: the usual case
   * past one byte, taken before the general word's masks and shifts. */
  if (d->end - d->p >= 2 && d->p[1] - 1u < 0x7F) {
    *value = (d->p[0] & 0x7Fu) | (uint64_t)d->p[1] << 7;
    d->p += 2;
    return SHORN_OK;
  }
  uint64_t v;
  size_t n;
  if (decode_read_varint8(d, &v, &n) && v <= SAFE_INTEGER_MAX) {
    *value = v;
    d->p += n;
    return SHORN_OK;
  }
  const uint8_t *p = d->p;
  uint64_t total = 0;
  for (int i = 0; i < 8; i++) {
    if (p >= d->end) return decode_end_of_input(d, p);
    uint8_t b = *p++;
    total += (uint64_t)(b & 0x7F) << (7 * i);
    /* The range check comes first: that is the reference's order. */
    if (total > SAFE_INTEGER_MAX) return decode_fail_at(d, p, "Integer exceeds JavaScript's safe range");
    if (!(b & 0x80)) {
      if (i > 0 && b == 0) return decode_fail_at(d, p, "Non-canonical variable-length integer");
      *value = total;
      d->p = p;
      return SHORN_OK;
    }
  }
  return decode_fail_at(d, p, "Invalid or unsafe variable-length integer");
}

/* A ZigZag varint byte by byte, which also finds and reports every fault. */
static shorn_code decode_read_zigzag_bytes(decoder *d, uint64_t *zigzag) {
  const uint8_t *p = d->p;
  uint64_t z = 0;
  bool unsafe = false;
  for (int i = 0;; i++) {
    if (i == 10) return decode_fail_at(d, p, "Invalid variable-length integer");
    if (p >= d->end) return decode_end_of_input(d, p);
    uint8_t b = *p++;
    /* Past 56 bits any value is unsafe; keep reading for the other checks. */
    if (i < 8)
      z |= (uint64_t)(b & 0x7F) << (7 * i);
    else if (b & 0x7F)
      unsafe = true;
    if (!(b & 0x80)) {
      if (i > 0 && b == 0) return decode_fail_at(d, p, "Non-canonical variable-length integer");
      break;
    }
  }
  /* A safe value's ZigZag form is at most 2^54 - 2. */
  if (unsafe || z > 2 * SAFE_INTEGER_MAX)
    return decode_fail_at(d, p, "Integer exceeds JavaScript's safe range");
  *zigzag = z;
  d->p = p;
  return SHORN_OK;
}

shorn_code read_int(decoder *d, int64_t *value) {
  uint64_t z = 0;
  size_t n;
  shorn_code rc;
  if (d->p < d->end && *d->p < 0x80)
    z = *d->p++;
  else if (decode_read_varint8(d, &z, &n) && z <= 2 * SAFE_INTEGER_MAX)
    d->p += n;
  else if ((rc = decode_read_zigzag_bytes(d, &z)))
    return rc;
  *value = zigzag_decode(z);
  return SHORN_OK;
}

/* A length-prefixed body (string, bytes): its limit, then the input left. */
static inline shorn_code decode_read_body(decoder *d, const uint8_t **body, size_t *length) {
  uint64_t n;
  shorn_code rc = read_uvarint(d, &n);
  if (rc) return rc;
  if (n > SHORN_MAX_BYTES)
    return decode_fail_at(d, d->p, "Byte length %llu exceeds the limit of %ld", (unsigned long long)n, (long)SHORN_MAX_BYTES);
  if (n > (uint64_t)(d->end - d->p)) return decode_end_of_input(d, d->p);
  *body = d->p;
  *length = (size_t)n;
  d->p += n;
  return SHORN_OK;
}

shorn_code read_string(decoder *d, const uint8_t **s, size_t *n) {
  shorn_code rc = decode_read_body(d, s, n);
  if (rc) return rc;
  if (!utf8_valid(*s, *n, (size_t)(d->end - *s))) return decode_fail_at(d, *s, "Invalid UTF-8");
  return SHORN_OK;
}

/* A string value written as it is checked (one pass over the bytes, not
 * two).  Out of line, so that a check, which writes nothing, does not set
 * up its frame. */
static NOINLINE shorn_code decode_write_string(decoder *d) {
  const uint8_t *s = NULL;
  size_t n = 0;
  shorn_code rc = decode_read_body(d, &s, &n);
  if (rc) return rc;
  int written = buffer_json_utf8(d->out, s, n, (size_t)(d->end - s));
  if (written < 0) return decode_fail_at(d, s, "Invalid UTF-8");
  return written ? SHORN_OK : decoder_nomem(d);
}

/* A string value: written, or only checked. */
static shorn_code decode_string(decoder *d) {
  const uint8_t *s = NULL;
  size_t n = 0;
  return d->out ? decode_write_string(d) : read_string(d, &s, &n);
}

/* ---- the walk ----------------------------------------------------------- */

static shorn_code decode_dynamic(decoder *d, int depth);

/* A collection's element: a shape, or (NULL) a dynamic value one level down. */
static inline shorn_code decode_element(decoder *d, const shape *element, int depth) {
  return element ? decode_value(d, element) : decode_dynamic(d, depth);
}

static shorn_code decode_take(decoder *d, const uint8_t **bytes, size_t n) {
  if (remaining(d) < n) return decode_end_of_input(d, d->p);
  *bytes = d->p;
  d->p += n;
  return SHORN_OK;
}

static shorn_code decode_uuid(decoder *d) {
  const uint8_t *b = NULL;
  shorn_code rc = decode_take(d, &b, 16);
  if (rc || !d->out) return rc;
  char text[38], *o = text;
  *o++ = '"';
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *o++ = '-';
    o = hex_byte(o, b[i], false);
  }
  *o++ = '"';
  EMIT(d, text, sizeof text);
  return SHORN_OK;
}

static shorn_code decode_datetime(decoder *d) {
  int64_t ms;
  shorn_code rc = read_int(d, &ms);
  if (rc) return rc;
  if (ms > DATETIME_LIMIT || ms < -DATETIME_LIMIT)
    return decode_fail_at(d, d->p, "Date-time %lld ms is outside the range of a Date", (long long)ms);
  if (!d->out) return SHORN_OK;
  /* Written in place: a copy from a local text was a call to memcpy. */
  if (!buffer_reserve(d->out, DATETIME_TEXT_MAX + 2)) return decoder_nomem(d);
  char *o = (char *)d->out->data + d->out->length;
  size_t n = datetime_format(ms, o + 1);
  o[0] = '"';
  o[n + 1] = '"';
  d->out->length += n + 2;
  return SHORN_OK;
}

static shorn_code decode_bigint(decoder *d) {
  uint64_t header;
  shorn_code rc = read_uvarint(d, &header);
  if (rc) return rc;
  /* A header of 1 would be negative zero: one value, two encodings. */
  if (header == 1) return decode_fail_at(d, d->p, "Non-canonical bigint");
  uint64_t n = header >> 1;
  if (n > SHORN_MAX_BYTES)
    return decode_fail_at(d, d->p, "BigInt magnitude of %llu bytes exceeds the limit of %ld", (unsigned long long)n,
                   (long)SHORN_MAX_BYTES);
  const uint8_t *magnitude = NULL;
  if ((rc = decode_take(d, &magnitude, (size_t)n))) return rc;
  if (n && magnitude[n - 1] == 0) return decode_fail_at(d, d->p, "Non-canonical bigint");
  if (!d->out) return SHORN_OK;
  switch (bigint_json(d->allocator, d->out, header & 1, magnitude, (size_t)n)) {
    case BIGINT_OK: return SHORN_OK;
    /* Only the built-in conversion has a limit below the layout's. */
    case BIGINT_TOO_LARGE:
      return decode_fail_at(d, magnitude, "BigInt magnitude of %llu bytes exceeds the limit of %ld bytes" BIGINT_LIMIT_NOTE,
                     (unsigned long long)n, (long)BIGINT_MAX_BYTES);
    default: return decoder_nomem(d);
  }
}

static shorn_code decode_index(decoder *d, uint32_t count, const char *what, uint64_t *index) {
  shorn_code rc = read_uvarint(d, index);
  if (rc) return rc;
  if (*index >= count) return decode_fail_at(d, d->p, "Unknown %s %llu", what, (unsigned long long)*index);
  return SHORN_OK;
}

/* The scalars most fields hold, inlined into the loops of objects and
 * arrays as well as decode_shape: a call and a dispatch less per value.
 * NOT_SCALAR when `s`, of `kind`, is no such scalar, else its shorn_code;
 * only an enum's members are read from `s`. */
#define NOT_SCALAR (-1)
static ALWAYS_INLINE int decode_scalar(decoder *d, shape_kind kind, const shape *s) {
  const uint8_t *b = NULL;
  shorn_code rc;
  uint64_t u;
  switch (kind) {
    case SHAPE_BOOLEAN:
      if (d->p >= d->end) return decode_end_of_input(d, d->p);
      if (*d->p > 1) return decode_fail_at(d, d->p, "Invalid boolean %u", *d->p);
      if (d->out) {
        /* Five bytes either way ("true" has its NUL): a fixed-size copy. */
        if (!buffer_reserve(d->out, 5)) return decoder_nomem(d);
        memcpy(d->out->data + d->out->length, *d->p ? "true" : "false", 5);
        d->out->length += 5u - *d->p;
      }
      d->p++;
      return SHORN_OK;
    /* Validating, nothing is written: no call to a writer to find that out. */
    case SHAPE_FLOAT64:
      if ((rc = decode_take(d, &b, 8)) || !d->out) return rc;
      return decode_emit_number(d, load_f64_le(b));
    case SHAPE_FLOAT32:
      if ((rc = decode_take(d, &b, 4)) || !d->out) return rc;
      return decode_emit_number(d, load_f32_le(b));
    case SHAPE_INT: {
      int64_t v;
      if ((rc = read_int(d, &v)) || !d->out) return rc;
      return decode_emit_integer(d, v);
    }
    case SHAPE_UINT:
      if ((rc = read_uvarint(d, &u)) || !d->out) return rc;
      return decode_emit_integer(d, (int64_t)u);
    case SHAPE_STRING: return decode_string(d);
    case SHAPE_DATETIME: return decode_datetime(d);
    case SHAPE_UUID: return decode_uuid(d);
    case SHAPE_ENUM:
      if ((rc = decode_index(d, s->u.enumeration.count, "enum index", &u))) return rc;
      EMIT_PADDED(d, s->u.enumeration.members[u].json, s->u.enumeration.members[u].json_length);
      return SHORN_OK;
    default: return NOT_SCALAR;
  }
}

/* Elements of an array, a set or a tuple's rest, after their count. */
static shorn_code decode_elements(decoder *d, const shape *element, int depth, uint64_t count,
                                  bool first, unique_set *unique) {
  bool scalars_inline = element && d->nesting < NESTING_MAX;
  for (uint64_t i = 0; i < count; i++) {
    if (!first || i) EMIT_CHAR(d, ',');
    const uint8_t *at = d->p;
    int rc = scalars_inline ? decode_scalar(d, element->kind, element) : NOT_SCALAR;
    if (rc == NOT_SCALAR) rc = decode_element(d, element, depth);
    if (rc) return (shorn_code)rc;
    if (unique) {
      int added = unique_add(unique, element, at, (size_t)(d->p - at));
      if (added < 0) return decoder_nomem(d);
      if (!added) return decode_fail_at(d, at, "Set element repeats an earlier element");
    }
  }
  return SHORN_OK;
}

shorn_code read_count(decoder *d, uint64_t width, const char *what, uint64_t *count) {
  shorn_code rc = read_uvarint(d, count);
  if (rc) return rc;
  if (*count > SHORN_MAX_ELEMENTS)
    return decode_fail_at(d, d->p, "%s %llu exceeds the limit of %ld", what, (unsigned long long)*count,
                   (long)SHORN_MAX_ELEMENTS);
  if (exceeds(d, *count, width))
    return decode_fail_at(d, d->p, "%s %llu exceeds the remaining input", what, (unsigned long long)*count);
  return SHORN_OK;
}

/* The readers query.c shares are inlined into decode.c's walk: a call for
 * every array and object read shows when a document nests deeply. */
ALWAYS_INLINE shorn_code read_array_length(decoder *d, const shape *s, uint64_t *count) {
  if (s->u.array.length < 0) return read_count(d, s->u.array.element->min_width, "Array length", count);
  /* The count is the schema's, and a schema may have been fetched rather
   * than written by hand: it is checked like one read from the wire. */
  *count = (uint64_t)s->u.array.length;
  if (exceeds(d, *count, s->u.array.element->min_width))
    return decode_fail_at(d, d->p, "Array length %llu exceeds the remaining input", (unsigned long long)*count);
  return SHORN_OK;
}

static shorn_code decode_array(decoder *d, const shape *s) {
  const shape *element = s->u.array.element;
  uint64_t count;
  shorn_code rc = read_array_length(d, s, &count);
  if (rc) return rc;
  EMIT_CHAR(d, '[');
  if (s->kind == SHAPE_SET) {
    unique_set set = {.identities.allocator = d->allocator};
    rc = decode_elements(d, element, 0, count, true, &set);
    unique_free(&set);
  } else {
    rc = decode_elements(d, element, 0, count, true, NULL);
  }
  if (rc) return rc;
  EMIT_CHAR(d, ']');
  return SHORN_OK;
}

static shorn_code decode_map_entries(decoder *d, const shape *s, uint64_t count, unique_set *keys) {
  for (uint64_t i = 0; i < count; i++) {
    if (i) EMIT_CHAR(d, ',');
    EMIT_CHAR(d, '[');
    const uint8_t *at = d->p;
    shorn_code rc = decode_value(d, s->u.map.key);
    if (rc) return rc;
    int added = unique_add(keys, s->u.map.key, at, (size_t)(d->p - at));
    if (added < 0) return decoder_nomem(d);
    if (!added) return decode_fail_at(d, at, "Map key repeats an earlier key");
    EMIT_CHAR(d, ',');
    if ((rc = decode_value(d, s->u.map.value))) return rc;
    EMIT_CHAR(d, ']');
  }
  return SHORN_OK;
}

static shorn_code decode_map(decoder *d, const shape *s) {
  uint64_t count, width = add_saturating(s->u.map.key->min_width, s->u.map.value->min_width);
  shorn_code rc = read_count(d, width, "Map size", &count);
  if (rc) return rc;
  EMIT_CHAR(d, '[');
  unique_set keys = {.identities.allocator = d->allocator};
  rc = decode_map_entries(d, s, count, &keys);
  unique_free(&keys);
  if (rc) return rc;
  EMIT_CHAR(d, ']');
  return SHORN_OK;
}

static shorn_code decode_tuple(decoder *d, const shape *s) {
  EMIT_CHAR(d, '[');
  for (uint32_t i = 0; i < s->u.tuple.count; i++) {
    if (i) EMIT_CHAR(d, ',');
    shorn_code rc = decode_value(d, s->u.tuple.items[i]);
    if (rc) return rc;
  }
  if (s->u.tuple.rest) {
    uint64_t count;
    shorn_code rc = read_count(d, s->u.tuple.rest->min_width, "Array length", &count);
    if (rc) return rc;
    if ((rc = decode_elements(d, s->u.tuple.rest, 0, count, s->u.tuple.count == 0, NULL))) return rc;
  }
  EMIT_CHAR(d, ']');
  return SHORN_OK;
}

/* Reads record keys, each strictly after the one before in UTF-16 order,
 * which also rules out a repeated key. */
typedef struct key_reader {
  const uint8_t *prev;
  size_t prev_length;
} key_reader;

/* decode_write_key's way for a key that is not short plain ASCII: the
 * string writer's, which escapes it and checks it as strict UTF-8. */
static NOINLINE shorn_code decode_write_escaped_key(decoder *d, const uint8_t *key, size_t n, bool comma) {
  if (comma) EMIT_CHAR(d, ',');
  int written = buffer_json_utf8(d->out, key, n, (size_t)(d->end - key));
  if (written < 0) return decode_fail_at(d, key, "Invalid UTF-8");
  if (!written) return decoder_nomem(d);
  EMIT_CHAR(d, ':');
  return SHORN_OK;
}

/* A record key written as `"key":`, a comma before it when `comma`.  Most
 * keys (ids, names) are a few plain ASCII bytes, which are strict UTF-8 as
 * they stand: copied in one move, with the punctuation, in one
 * reservation. */
static ALWAYS_INLINE shorn_code decode_write_key(decoder *d, const uint8_t *key, size_t n, bool comma) {
  shorn_buffer *out = d->out;
  if (!buffer_reserve(out, n + 4)) return decoder_nomem(d);
  uint8_t *o = out->data + out->length;
  *o = ',';
  o += comma;
  *o++ = '"';
  if (!short_plain(o, key, n)) return decode_write_escaped_key(d, key, n, comma);
  o[n] = '"', o[n + 1] = ':';
  out->length = (size_t)(o + n + 2 - out->data);
  return SHORN_OK;
}

/* The next record key, read, checked and written (decode_write_key) when
 * there is output: into *key and *n. */
static ALWAYS_INLINE shorn_code decode_record_key(decoder *d, key_reader *k, bool comma, const uint8_t **key,
                                                   size_t *n) {
  shorn_code rc = decode_read_body(d, key, n);
  if (rc) return rc;
  if (d->out) {
    if ((rc = decode_write_key(d, *key, *n, comma))) return rc;
  } else if (!utf8_valid(*key, *n, (size_t)(d->end - *key))) {
    return decode_fail_at(d, *key, "Invalid UTF-8");
  }
  if (k->prev && utf16_compare((const char *)k->prev, k->prev_length, (const char *)*key, *n) >= 0)
    return decode_fail_at(d, d->p, "Record keys are out of canonical order");
  k->prev = *key;
  k->prev_length = *n;
  return SHORN_OK;
}

/* A record (or a dynamic object): count, then key and value per entry. */
static shorn_code decode_record(decoder *d, const shape *value, int depth) {
  uint64_t count, width = add_saturating(value ? value->min_width : 1, 1);
  shorn_code rc = read_count(d, width, "Record size", &count);
  if (rc) return rc;
  EMIT_CHAR(d, '{');
  key_reader keys = {0};
  const uint8_t *key = NULL;
  size_t n = 0;
  for (uint64_t i = 0; i < count; i++) {
    if ((rc = decode_record_key(d, &keys, i > 0, &key, &n))) return rc;
    if ((rc = decode_element(d, value, depth))) return rc;
  }
  EMIT_CHAR(d, '}');
  return SHORN_OK;
}

ALWAYS_INLINE shorn_code read_bitmap(decoder *d, const shape *s, const uint8_t **bitmap) {
  uint32_t k = s->u.object.optional_count;
  *bitmap = NULL;
  if (!k) return SHORN_OK;
  size_t bytes = bitmap_bytes(k);
  shorn_code rc = decode_take(d, bitmap, bytes);
  if (rc) return rc;
  if ((k & 7) && ((*bitmap)[bytes - 1] >> (k & 7)))
    return decode_fail_at(d, d->p, "Non-canonical presence bitmap padding");
  return SHORN_OK;
}

static shorn_code decode_closed_object(decoder *d, const shape *s, const uint8_t *bitmap) {
  EMIT_CHAR(d, '{');
  bool comma = false;
  /* A scalar field nests one level below the object, as decode_value
   * would count it. */
  bool scalars_inline = d->nesting < NESTING_MAX;
  for (uint32_t i = 0; i < s->u.object.count; i++) {
    const field_read *f = &s->u.object.reads[i];
    if (f->optional && !bitmap_has(bitmap, f->bit)) continue;
    if (d->out) {
      /* The comma and the key in one reservation. */
      if (!buffer_reserve(d->out, (size_t)f->json_key_length + 1 + TEXT_PAD)) return decoder_nomem(d);
      unsigned char *o = d->out->data + d->out->length;
      *o = ',';
      copy_padded(o + comma, f->json_key, f->json_key_length);
      d->out->length += comma + f->json_key_length;
    }
    comma = true;
    /* A scalar other than an enum member is decoded without a read of its
     * shape. */
    int rc = scalars_inline ? decode_scalar(d, (shape_kind)f->value_kind, f->value) : NOT_SCALAR;
    if (rc == NOT_SCALAR) rc = decode_value(d, f->value);
    if (rc) return (shorn_code)rc;
  }
  EMIT_CHAR(d, '}');
  return SHORN_OK;
}

/* An open object lists its declared fields and its extras together, in
 * canonical order.  Each run arrives sorted, so members are written as they
 * are decoded and the two runs merged in place afterwards. */
typedef struct member_span {
  size_t start, end; /* `"key":value` in the output, without a comma */
  const char *key;
  size_t key_length;
} member_span;

typedef struct span_list {
  member_span *items;
  size_t count, capacity;
} span_list;

static member_span *decode_span_push(const shorn_allocator *a, span_list *l) {
  if (l->count == l->capacity) {
    member_span *p = array_grow(a, l->items, &l->capacity, l->count + 1, sizeof *p, NULL);
    if (!p) return NULL;
    l->items = p;
  }
  return &l->items[l->count++];
}

static shorn_code decode_merge_members(decoder *d, size_t base, const span_list *l, size_t declared) {
  shorn_buffer *out = d->out;
  size_t length = out->length - base;
  if (!l->count || !buffer_reserve(out, l->count)) return l->count ? decoder_nomem(d) : SHORN_OK;
  unsigned char *copy = mem_alloc(d->allocator, length);
  if (!copy) return decoder_nomem(d);
  memcpy(copy, out->data + base, length);
  out->length = base;
  size_t i = 0, j = declared;
  for (size_t n = 0; n < l->count; n++) {
    const member_span *m;
    if (j >= l->count || (i < declared && utf16_compare(l->items[i].key, l->items[i].key_length,
                                                        l->items[j].key, l->items[j].key_length) < 0))
      m = &l->items[i++];
    else
      m = &l->items[j++];
    if (n) out->data[out->length++] = ',';
    memcpy(out->data + out->length, copy + (m->start - base), m->end - m->start);
    out->length += m->end - m->start;
  }
  mem_free(d->allocator, copy);
  return SHORN_OK;
}

static shorn_code decode_open_members(decoder *d, const shape *s, const uint8_t *bitmap, span_list *spans,
                                      size_t *declared) {
  shorn_code rc;
  for (uint32_t i = 0; i < s->u.object.count; i++) {
    const field *f = &s->u.object.fields[i];
    if (!field_present(f, bitmap)) continue;
    if (d->out) {
      member_span *m = decode_span_push(d->allocator, spans);
      if (!m) return decoder_nomem(d);
      m->key = f->key, m->key_length = f->key_length, m->start = d->out->length;
    }
    EMIT_PADDED(d, f->json_key, f->json_key_length);
    if ((rc = decode_value(d, f->value))) return rc;
    if (d->out) spans->items[spans->count - 1].end = d->out->length;
  }
  *declared = spans->count;

  const shape *extras = s->u.object.extras;
  uint64_t count;
  if ((rc = read_count(d, add_saturating(extras->min_width, 1), "Record size", &count))) return rc;
  key_reader keys = {0};
  const uint8_t *key = NULL, *repeated = NULL;
  size_t n = 0, repeated_length = 0;
  for (uint64_t i = 0; i < count; i++) {
    size_t start = d->out ? d->out->length : 0;
    if ((rc = decode_record_key(d, &keys, false, &key, &n))) return rc;
    if (!repeated && object_find_field(s, (const char *)key, n)) repeated = key, repeated_length = n;
    if (d->out) {
      member_span *m = decode_span_push(d->allocator, spans);
      if (!m) return decoder_nomem(d);
      m->key = (const char *)key, m->key_length = n, m->start = start;
    }
    if ((rc = decode_value(d, extras))) return rc;
    if (d->out) spans->items[spans->count - 1].end = d->out->length;
  }
  /* Reported only after the whole tail, as the reference does: an ordering
   * error later in the tail is the one a reader sees. */
  char quoted[KEY_QUOTE_MAX];
  if (repeated)
    return decode_fail_at(d, d->p, "Extra property %s repeats a declared field",
                   text_quote(quoted, sizeof quoted, (const char *)repeated, repeated_length));
  return SHORN_OK;
}

/* Out of line: inlined into the walk, its loops would widen the frame
 * that every closed object's decode sets up. */
static NOINLINE shorn_code decode_open_object(decoder *d, const shape *s, const uint8_t *bitmap) {
  EMIT_CHAR(d, '{');
  size_t base = d->out ? d->out->length : 0, declared = 0;
  span_list spans = {0};
  shorn_code rc = decode_open_members(d, s, bitmap, &spans, &declared);
  if (!rc && d->out) rc = decode_merge_members(d, base, &spans, declared);
  mem_free(d->allocator, spans.items);
  if (rc) return rc;
  EMIT_CHAR(d, '}');
  return SHORN_OK;
}

static shorn_code decode_object(decoder *d, const shape *s) {
  const uint8_t *bitmap;
  shorn_code rc = read_bitmap(d, s, &bitmap);
  if (rc) return rc;
  return s->u.object.extras ? decode_open_object(d, s, bitmap) : decode_closed_object(d, s, bitmap);
}

ALWAYS_INLINE shorn_code read_tag(decoder *d, dynamic_tag *tag) {
  if (d->p >= d->end) return decode_end_of_input(d, d->p);
  if (*d->p > DYNAMIC_OBJECT) return decode_fail_at(d, d->p, "Unknown dynamic tag %u", *d->p);
  *tag = (dynamic_tag)*d->p++;
  return SHORN_OK;
}

static shorn_code decode_dynamic(decoder *d, int depth) {
  const uint8_t *b = NULL;
  dynamic_tag tag = DYNAMIC_NULL; /* set when read_tag succeeds, which GCC cannot tell */
  shorn_code rc = read_tag(d, &tag);
  if (rc) return rc;
  switch (tag) {
    case DYNAMIC_NULL: EMIT(d, "null", 4); return SHORN_OK;
    case DYNAMIC_FALSE: EMIT(d, "false", 5); return SHORN_OK;
    case DYNAMIC_TRUE: EMIT(d, "true", 4); return SHORN_OK;
    case DYNAMIC_INTEGER: {
      int64_t v;
      if ((rc = read_int(d, &v)) || !d->out) return rc;
      return decode_emit_integer(d, v);
    }
    case DYNAMIC_NUMBER: {
      if ((rc = decode_take(d, &b, 8))) return rc;
      double v = load_f64_le(b);
      /* Integers are DYNAMIC_INTEGER; a second spelling would break one
       * value, one encoding.  -0 is no integer on the wire, so it stays here. */
      if (v >= -MAX_SAFE_INTEGER && v <= MAX_SAFE_INTEGER && v == (double)(int64_t)v &&
          !(v == 0 && 1 / v < 0))
        return decode_fail_at(d, d->p, "Non-canonical dynamic number");
      return d->out ? decode_emit_number(d, v) : SHORN_OK;
    }
    case DYNAMIC_STRING: return decode_string(d);
    case DYNAMIC_ARRAY:
    case DYNAMIC_OBJECT: break;
  }
  if (depth == SHORN_MAX_DYNAMIC_DEPTH)
    return decode_fail_at(d, d->p, "Dynamic value nests deeper than %d", SHORN_MAX_DYNAMIC_DEPTH);
  if (tag == DYNAMIC_OBJECT) return decode_record(d, NULL, depth + 1);
  uint64_t count;
  if ((rc = read_count(d, 1, "Array length", &count))) return rc;
  EMIT_CHAR(d, '[');
  if ((rc = decode_elements(d, NULL, depth + 1, count, true, NULL))) return rc;
  EMIT_CHAR(d, ']');
  return SHORN_OK;
}

/* A discriminated union's index stands in for the discriminant, so the
 * branch must hold it, or the value would lack the key that chose its
 * branch and no value would encode to these bytes: a branch that cannot
 * hold it (shape.c's holders) is refused, and when the discriminant is an
 * optional field (the reference allows that) its presence bit must be set.
 * The bit is read ahead of the branch's own bitmap check; a bitmap cut
 * short is left to that check. */
static shorn_code decode_check_discriminant(decoder *d, const shape *s, uint64_t index) {
  const field *f = s->u.choice.holders[index];
  const char *why = "cannot hold";
  if (f) {
    if (!f->optional || remaining(d) <= f->bit >> 3 || field_present(f, d->p)) return SHORN_OK;
    why = "omits";
  }
  char on[KEY_QUOTE_MAX];
  return decode_fail_at(d, d->p, "Union branch %llu %s its discriminant %s", (unsigned long long)index, why,
                 text_quote(on, sizeof on, s->u.choice.on, s->u.choice.on_length));
}

ALWAYS_INLINE shorn_code read_branch(decoder *d, const shape *s, uint64_t *index) {
  shorn_code rc = decode_index(d, s->u.choice.count, "union branch", index);
  if (!rc && s->u.choice.on) rc = decode_check_discriminant(d, s, *index);
  return rc;
}

ALWAYS_INLINE shorn_code read_marker(decoder *d, bool *present) {
  if (d->p >= d->end) return decode_end_of_input(d, d->p);
  if (*d->p > 1) return decode_fail_at(d, d->p, "Invalid nullable marker");
  *present = *d->p++;
  return SHORN_OK;
}

static shorn_code decode_ref(decoder *d, const shape *s) {
  uint32_t *depth = &d->ref_depth[s->u.ref.index];
  if (*depth == SHORN_MAX_RECURSION)
    return decode_fail_at(d, d->p, "Recursive value nests deeper than %d", SHORN_MAX_RECURSION);
  ++*depth;
  shorn_code rc = decode_value(d, s->u.ref.target);
  --*depth;
  return rc;
}

static shorn_code decode_shape(decoder *d, const shape *s) {
  const uint8_t *b = NULL;
  shorn_code rc;
  uint64_t u;
  int done = decode_scalar(d, s->kind, s);
  if (done != NOT_SCALAR) return (shorn_code)done;
  switch (s->kind) {
    case SHAPE_BOOLEAN:
    case SHAPE_FLOAT64:
    case SHAPE_FLOAT32:
    case SHAPE_INT:
    case SHAPE_UINT:
    case SHAPE_STRING:
    case SHAPE_DATETIME:
    case SHAPE_UUID:
    case SHAPE_ENUM: break; /* decode_scalar's */
    case SHAPE_ANY: return decode_dynamic(d, 0);
    case SHAPE_BIGINT: return decode_bigint(d);
    case SHAPE_BYTES: {
      size_t n = 0;
      if ((rc = decode_read_body(d, &b, &n))) return rc;
      if (d->out && !base64_json(d->out, b, n)) return decoder_nomem(d);
      return SHORN_OK;
    }
    case SHAPE_LITERAL:
      EMIT_PADDED(d, s->u.literal.json, s->u.literal.json_length);
      return SHORN_OK;
    case SHAPE_ARRAY:
    case SHAPE_SET: return decode_array(d, s);
    case SHAPE_MAP: return decode_map(d, s);
    case SHAPE_TUPLE: return decode_tuple(d, s);
    case SHAPE_OBJECT: return decode_object(d, s);
    case SHAPE_RECORD: return decode_record(d, s->u.record, 0);
    case SHAPE_NULLABLE: {
      bool present = false;
      if ((rc = read_marker(d, &present))) return rc;
      if (present) return decode_value(d, s->u.inner);
      EMIT(d, "null", 4);
      return SHORN_OK;
    }
    case SHAPE_UNION:
      if ((rc = read_branch(d, s, &u))) return rc;
      return decode_value(d, s->u.choice.branches[u]);
    case SHAPE_REF: return decode_ref(d, s);
  }
  return decode_fail_at(d, d->p, "Unknown shape");
}

shorn_code decode_value(decoder *d, const shape *s) {
  if (unlikely(d->nesting == NESTING_MAX))
    return decode_fail_at(d, d->p, "Value nests deeper than %d levels", NESTING_MAX);
  d->nesting++;
  shorn_code rc = decode_shape(d, s);
  d->nesting--;
  return rc;
}

shorn_code read_fingerprint(decoder *d, const shorn_schema *s, int width) {
  if (!fingerprint_width_ok(width, true)) return fingerprint_width_refused(true, d->error);
  uint8_t want[FINGERPRINT_WIDTH_MAX];
  fingerprint_bytes(s, width, want);
  for (int i = 0; i < width; i++) {
    if (d->p >= d->end) return decode_end_of_input(d, d->p);
    if (*d->p != want[i]) {
      char hex[2 * FINGERPRINT_WIDTH_MAX];
      hex_bytes(hex, want, (size_t)width);
      return decode_fail_at(d, d->start,
                     "Payload was written by a different schema (expected fingerprint %.*s)",
                     2 * width, hex);
    }
    d->p++;
  }
  return SHORN_OK;
}

shorn_code shorn_decode(const shorn_schema *s, const unsigned char *data, size_t length,
                        int fingerprint_width, shorn_buffer *out, shorn_error *error) {
  /* An empty payload may come without a pointer (SQLite gives NULL for an
   * empty BLOB), and NULL + 0 is no pointer arithmetic C allows. */
  if (!length) data = (const unsigned char *)"";
  uint32_t depth_here[REF_DEPTHS_HERE] = {0};
  decoder d = {.start = data, .p = data, .end = data + length, .out = out, .error = error,
               .allocator = s->allocator, .ref_depth = depth_here};
  shorn_code rc = read_fingerprint(&d, s, fingerprint_width);
  if (rc) return rc;
  if (s->def_count > REF_DEPTHS_HERE &&
      !(d.ref_depth = mem_calloc(s->allocator, s->def_count, sizeof *d.ref_depth)))
    return error_nomem(error);
  size_t mark = out ? out->length : 0;
  rc = decode_value(&d, s->root);
  if (!rc && d.p != d.end) rc = decode_fail_at(&d, d.p, "Unexpected trailing data");
  if (d.ref_depth != depth_here) mem_free(s->allocator, d.ref_depth);
  if (rc && out) out->length = mark;
  return rc;
}
