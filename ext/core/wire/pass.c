/*
 * pass.c — JSON text to payload bytes in one pass: shorn_encode and
 * shorn_encode_unchecked.
 *
 * The text is read once, guided by the shape, its values written as they
 * are read: no DOM.  A scalar is read into a json_value of its own and
 * handed to the tree walker's functions (encode.c, through encoder.h), so
 * its rules are the walk's own.  An object's members are written where
 * they arrive, each one's bytes noted; when they did not arrive in wire
 * order (or a key repeats, the last winning) the object's bytes are put in
 * order in one copy.  A record's entries the same, sorted only when their
 * keys were not already in order.
 *
 * The pass only ever succeeds or gives up: whatever it does not take for
 * certain (a refusal, a keyword that needs the whole container, a
 * discriminated union its first member does not decide, a Map, a value
 * nested deeper than it reads) it leaves to the DOM's way, encode_tree,
 * which then decides the bytes or the refusal, its message and path.  So
 * the pass never says why, and needs not.
 */
#include <string.h>

#include "core/base/memory.h"
#include "core/json/json.h"
#include "core/json/token.h"
#include "core/schema/validate.h"
#include "core/shape/shape.h"
#include "core/text/text.h"
#include "encode.h"
#include "encoder.h"
#include "unique.h"

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

/* The reader's first storage, on the C stack, as the encoder's is.  A
 * string's escapes decoded and an object's bytes put in order take as
 * much room as the DOM's first arena gives a text, so that a record of a
 * few kilobytes costs no allocation either way. */
typedef struct reader_storage {
  written_span spans[64];
  uint64_t present[8];
  uint8_t unescaped[JSON_DOM_HERE], moved[JSON_DOM_HERE];
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

/* A string token's value into v, its escapes decoded. */
static inline bool pass_string_value(reader *r, const json_string_token *t, json_value *v) {
  v->type = JSON_STRING;
  v->flags = 0;
  v->length = t->length;
  v->u.string = (const char *)t->body;
  return !t->escaped || unescape_string(r, t, v);
}

/* A string token into v, its escapes decoded: inline in each reader, as
 * the call cost a short string about as much as its read. */
static ALWAYS_INLINE const uint8_t *read_text_string(reader *r, const uint8_t *p, json_value *v) {
  json_string_token t;
  p = json_read_string(r->start, p, r->end, &t);
  return p && pass_string_value(r, &t, v) ? p : NULL;
}

static const uint8_t *read_word(const reader *r, const uint8_t *p, const char *word, size_t n, json_type type,
                                json_value *v) {
  if ((size_t)(r->end - p) < n || memcmp(p, word, n) != 0) return NULL;
  *v = (json_value){.type = (uint8_t)type};
  return p + n;
}

/* A scalar at p into v (p < end); a number written as an integer also
 * into *integer, *integral set (json_integer_token). */
static ALWAYS_INLINE const uint8_t *read_integer_or_scalar(reader *r, const uint8_t *p, json_value *v,
                                                           int64_t *integer, bool *integral) {
  const char *why;
  *integer = 0;
  *integral = false;
  switch (*p) {
    case '"': return read_text_string(r, p, v);
    case 't': return read_word(r, p, "true", 4, JSON_TRUE, v);
    case 'f': return read_word(r, p, "false", 5, JSON_FALSE, v);
    case 'n': return read_word(r, p, "null", 4, JSON_NULL, v);
    default:
      *v = (json_value){.type = JSON_NUMBER};
      return json_integer_token(p, r->end, &v->u.number, integer, integral, &why);
  }
}

/* A scalar at p into v (p < end). */
static ALWAYS_INLINE const uint8_t *read_scalar(reader *r, const uint8_t *p, json_value *v) {
  int64_t integer;
  bool integral;
  return read_integer_or_scalar(r, p, v, &integer, &integral);
}

/* After a container's item: the position after its comma (more follow) or
 * after its closing bracket (*closed), or NULL. */
static inline const uint8_t *next_item(const reader *r, const uint8_t *p, uint8_t close, bool *closed) {
  /* Minified text, most, has its comma right after the item. */
  if (p < r->end && *p == ',') return skip_space_at(r, p + 1);
  p = skip_space_at(r, p);
  if (p < r->end && *p == ',') return skip_space_at(r, p + 1);
  *closed = true;
  return p < r->end && *p == close ? p + 1 : NULL;
}

/* A count whose varint takes more than the byte set aside at `at`: the
 * items moved along for its other bytes. */
static NOINLINE bool put_long_count_at(encoder *e, size_t at, uint64_t count) {
  shorn_buffer *out = e->out;
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

/* A count of items written before them, once they are read, in the
 * byte set aside at `at`: inline, since most counts fit it. */
static inline bool put_count_at(encoder *e, size_t at, uint64_t count) {
  if (count >= 0x80) return put_long_count_at(e, at, count);
  e->out->data[at] = (uint8_t)count;
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

/* An entry's key at p, its '"', written as a string is (its length, then
 * its bytes) and noted in m; p after its ':' and the space after that.  A
 * key with no escape (ids, names: most) is copied from the text in one
 * reservation, without the calls and checks a decoded value takes
 * (put_string_value). */
static ALWAYS_INLINE const uint8_t *read_entry_key(reader *r, const uint8_t *p, written_span *m) {
  shorn_buffer *out = r->e->out;
  json_string_token t;
  if (p >= r->end || *p != '"' || !(p = json_read_string(r->start, p, r->end, &t))) return NULL;
  m->start = out->length;
  if (!t.escaped && t.length < 0x80 && buffer_reserve(out, t.length + 1)) {
    out->data[out->length] = (uint8_t)t.length;
    copy_few(out->data + out->length + 1, t.body, t.length);
    out->length += t.length + 1;
    m->key_length = t.length;
  } else {
    json_value k;
    if (!pass_string_value(r, &t, &k) || put_string_value(r->e, &k)) return NULL;
    m->key_length = k.length;
  }
  m->key_at = out->length - m->key_length;
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
    if (!spans_reserve(r, 1)) return NULL;
    written_span *m = &r->spans[r->spans_used++];
    if (!(p = read_entry_key(r, p, m))) return NULL;
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

/* The index of the field the text names at p, the key and its ':' read
 * (the position after them), or the object's count of fields when it
 * declares none of that name.  The field declared after the last one
 * matched is tried first, and as its key is spelled in JSON ("key":, which
 * the shape keeps): text written from the same schema lists the fields in
 * that order, so the key then costs one comparison, neither a scan nor a
 * hash, and its index is known without a division. */
static const uint8_t *member_field(reader *r, const shape *s, uint32_t guess, const uint8_t *p, uint32_t *index) {
  if (guess < s->u.object.count) {
    const field *g = &s->u.object.fields[guess];
    if ((size_t)(r->end - p) >= g->json_key_length && short_equal(g->json_key, (const char *)p, g->json_key_length)) {
      *index = guess;
      return skip_space_at(r, p + g->json_key_length);
    }
  }
  json_value k;
  if (!(p = read_key(r, p, &k))) return NULL;
  const field *f = object_find_field(s, k.u.string, k.length);
  *index = f ? (uint32_t)(f - s->u.object.fields) : s->u.object.count;
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
    uint32_t i;
    if (!(p = member_field(r, s, guess, p, &i))) return NULL;
    if (i < s->u.object.count) {
      const field *f = &s->u.object.fields[i];
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
  int64_t integer;
  bool integral;
  p = read_integer_or_scalar(r, p, &v, &integer, &integral);
  if (!p) return NULL;
  if (e->checked && s->keywords && !validation_passes(s->keywords, &v)) return encode_value(e, s, &v) ? NULL : p;
  /* A string, a number, a boolean or an enum member whose keywords, if
   * any, pass without the full check: straight to its bytes, past the
   * walk's dispatch. */
  switch (s->kind) {
    case SHAPE_STRING:
      if (v.type == JSON_STRING) return put_string_value(e, &v) ? NULL : p;
      break;
    /* The numbers that pass their shape, most, written here as
     * encode_number writes them, without its call (an integer as written,
     * within the safe ones, without its double); the others are its. */
    case SHAPE_UINT:
      if (integral && integer >= 0) return put_uvarint(e, (uint64_t)integer) ? NULL : p;
      if (v.type == JSON_NUMBER && v.u.number >= 0 && is_safe_integer(v.u.number))
        return put_uvarint(e, (uint64_t)v.u.number) ? NULL : p;
      break;
    case SHAPE_INT:
      if (integral) return put_zigzag(e, integer) ? NULL : p;
      if (v.type == JSON_NUMBER && is_safe_integer(v.u.number)) return put_zigzag(e, (int64_t)v.u.number) ? NULL : p;
      break;
    case SHAPE_FLOAT64:
      if (v.type == JSON_NUMBER && isfinite(v.u.number)) return put_f64(e, v.u.number) ? NULL : p;
      break;
    case SHAPE_FLOAT32:
      if (v.type == JSON_NUMBER) return encode_number(e, s->kind, &v) ? NULL : p;
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
              .spans_capacity = 64,
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
  shorn_code rc = encoder_open(&e, &here, s, 0, NULL, out, &discarded, error, checked);
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

shorn_code shorn_encode(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                        shorn_buffer *out, shorn_error *error) {
  return encode_checked(s, json, length, fingerprint_width, out, error, true);
}

shorn_code shorn_encode_unchecked(const shorn_schema *s, const char *json, size_t length, int fingerprint_width,
                                  shorn_buffer *out, shorn_error *error) {
  return encode_checked(s, json, length, fingerprint_width, out, error, false);
}
