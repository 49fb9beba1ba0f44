/*
 * internal.h — what the core's files share and nothing outside ext/ sees.
 *
 *   memory.c   allocator, buffers, arenas, errors
 *   text.c     UTF-8 validation, UTF-16 code-unit order, JSON string escapes
 *   number.c   JavaScript number spelling and correctly rounded parsing
 *   json.c     the strict RFC 8259 parser (JSON text to a DOM)
 *   schema.c   JSON Schema to wire shape translation
 *   shape.c    wire shapes: signatures, fingerprints, widths, build checks
 *   encode.c   JSON DOM to bytes
 *   decode.c   bytes to JSON text
 *   unique.c   Set elements and Map keys as a JavaScript Set sees them
 *   rich.c     date-times and base64: the byte layout's shapes beyond JSON
 *   bigint.c   BigInt magnitudes to and from decimal, in subquadratic time
 *   query.c    SQLite's JSON questions (extract, type, each, tree) from the bytes
 *
 * Strings inside the core are WTF-8: UTF-8 that may also hold a lone
 * surrogate (ED A0..BF xx), because a JSON escape such as "\ud800" can put
 * one in a JavaScript string and the format must treat it as JavaScript does.
 */
#ifndef SHORN_INTERNAL_H
#define SHORN_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shorn.h"

#if defined(__GNUC__)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
/* For a loop the compiler would otherwise call, where the call was measured
 * to cost more than the loop. */
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define likely(x) (x)
#define unlikely(x) (x)
#define PRINTF_LIKE(f, a)
#define ALWAYS_INLINE inline
#endif

#define MAX_SAFE_INTEGER 9007199254740991.0 /* 2^53 - 1 */

/* ---- memory.c ------------------------------------------------------------ */

void *mem_alloc(size_t size);
void *mem_calloc(size_t count, size_t size); /* zeroed; NULL on overflow too */
void *mem_realloc(void *p, size_t size);
void mem_free(void *p);

/* Grow so that `extra` more bytes fit; false when the allocation fails. */
bool buffer_grow(shorn_buffer *b, size_t extra);

/* Work arrays (a parser's stacks, an encoder's scratch) start in storage of
 * the caller's, on the C stack, so that a small value costs no allocation;
 * past it they move to the heap.  Returns `items`, of *capacity elements of
 * `size` bytes, grown to hold at least `need` (doubling, *capacity
 * updated), or NULL when memory runs out (`items` still valid).  `initial`
 * is the first storage, copied from and never freed. */
void *array_grow(void *items, size_t *capacity, size_t need, size_t size, const void *initial);
static inline void array_free(void *items, const void *initial) {
  if (items != initial) mem_free(items);
}

static inline bool buffer_reserve(shorn_buffer *b, size_t extra) {
  return likely(b->capacity - b->length >= extra) || buffer_grow(b, extra);
}
static inline bool buffer_append(shorn_buffer *b, const void *p, size_t n) {
  if (!buffer_reserve(b, n)) return false;
  if (n) memcpy(b->data + b->length, p, n);
  b->length += n;
  return true;
}
/* Copy n bytes to o from a text readable TEXT_PAD bytes past its end, as
 * arena_strdup's are, o having room for n + TEXT_PAD: keys and enum
 * members, whose copies of varying length were a call to memcpy each. */
#define TEXT_PAD 16
static inline void copy_padded(uint8_t *o, const char *p, size_t n) {
  if (n <= TEXT_PAD)
    memcpy(o, p, TEXT_PAD);
  else
    memcpy(o, p, n);
}
static inline bool buffer_append_padded(shorn_buffer *b, const char *p, size_t n) {
  if (!buffer_reserve(b, n + TEXT_PAD)) return false;
  copy_padded(b->data + b->length, p, n);
  b->length += n;
  return true;
}
static inline bool buffer_byte(shorn_buffer *b, uint8_t c) {
  if (!buffer_reserve(b, 1)) return false;
  b->data[b->length++] = c;
  return true;
}

/* LEB128: seven bits a byte, least significant first. */
static inline bool buffer_uvarint(shorn_buffer *b, uint64_t v) {
  if (!buffer_reserve(b, 10)) return false;
  uint8_t *o = b->data + b->length;
  for (; v >= 0x80; v >>= 7) *o++ = (uint8_t)(v | 0x80);
  *o++ = (uint8_t)v;
  b->length = (size_t)(o - b->data);
  return true;
}

/* Little-endian words, whatever the host's order: one load or store where
 * the host is little-endian (a loop of byte shifts was not turned into one
 * by the compiler, and cost fifty instructions a float). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_TO_LE64(x) __builtin_bswap64(x)
#define HOST_TO_LE32(x) __builtin_bswap32(x)
#else
#define HOST_TO_LE64(x) (x)
#define HOST_TO_LE32(x) (x)
#endif
static inline uint64_t load_le64(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return HOST_TO_LE64(w);
}
static inline uint32_t load_le32(const uint8_t *p) {
  uint32_t w;
  memcpy(&w, p, 4);
  return HOST_TO_LE32(w);
}
static inline void store_le64(uint8_t *p, uint64_t w) {
  w = HOST_TO_LE64(w);
  memcpy(p, &w, 8);
}
static inline void store_le32(uint8_t *p, uint32_t w) {
  w = HOST_TO_LE32(w);
  memcpy(p, &w, 4);
}

/* IEEE-754 values stored little-endian, whatever the host's order. */
static inline double load_f64_le(const uint8_t *b) {
  uint64_t bits = load_le64(b);
  double v;
  memcpy(&v, &bits, 8);
  return v;
}
static inline double load_f32_le(const uint8_t *b) {
  uint32_t bits = load_le32(b);
  float v;
  memcpy(&v, &bits, 4);
  return v;
}

/* Bump allocation for things that die together (a DOM, a compiled schema).
 * An arena may start in storage of the caller's (next and end set to it),
 * which arena_free leaves alone: a small DOM then costs no allocation. */
typedef struct arena_block arena_block;
typedef struct arena {
  arena_block *head;
  char *next, *end;
} arena;

void *arena_alloc(arena *a, size_t size); /* 8-byte aligned; NULL when out of memory */
/* Copies n bytes and adds TEXT_PAD zero bytes, the first its NUL: a short
 * text can then be copied out in one fixed-size move (copy_padded). */
char *arena_strdup(arena *a, const char *s, size_t n);
void arena_free(arena *a);

/* Set the error and return its code.  Messages are truncated to fit. */
shorn_code error_set(shorn_error *e, shorn_code code, const char *fmt, ...) PRINTF_LIKE(3, 4);
shorn_code error_at_offset(shorn_error *e, shorn_code code, size_t offset, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
shorn_code error_nomem(shorn_error *e);
/* The common core of the three: the path, when there is one, is the
 * caller's to fill. */
shorn_code error_vset(shorn_error *e, shorn_code code, shorn_where where, long long offset,
                      const char *fmt, va_list ap);

/* ---- eight bytes at a time ---------------------------------------------- */

/* Text is scanned a 64-bit word at a time, a byte per lane.  The word is
 * loaded little-endian (load_le64) on every host so that lane order is
 * memory order.  Each lanes_ test sets the high bit of the lanes it
 * matches; a borrow can also flag lanes above a true match, never below
 * one, so the lowest flag (first_lane) is exact and so is "any flag". */
#define LANES(c) (0x0101010101010101ull * (uint8_t)(c))
/* Lanes below c, for c <= 0x80. */
static inline uint64_t lanes_below(uint64_t w, uint8_t c) { return (w - LANES(c)) & ~w & LANES(0x80); }
static inline uint64_t lanes_equal(uint64_t w, uint8_t c) { return lanes_below(w ^ LANES(c), 1); }
/* Lanes a string's body cannot hold as they are: '"', '\\' and control
 * bytes, which JSON escapes, and bytes above ASCII, which need a closer
 * look.  Only the lowest flagged lane is exact. */
static inline uint64_t plain_stops(uint64_t w) {
  return lanes_below(w, 0x20) | lanes_equal(w, '"') | lanes_equal(w, '\\') | (w & LANES(0x80));
}
/* The index of the lowest flagged lane; `flags` is not zero. */
static inline size_t first_lane(uint64_t flags) { return (size_t)__builtin_ctzll(flags) / 8; }

/* ---- text.c -------------------------------------------------------------- */

/* Strict UTF-8 (the WHATWG fatal decoder): no overlong forms, no surrogates,
 * nothing above U+10FFFF, no truncated or stray sequences.  s[0..readable)
 * may be read. */
bool utf8_valid_blocks(const uint8_t *s, size_t n, size_t readable);
static inline bool utf8_valid(const uint8_t *s, size_t n, size_t readable) {
  /* Most strings are a few ASCII bytes: one or two loads answer for up to
   * sixteen, without the call and the block scanner's setting up.  From
   * eight bytes the two loads overlap inside the string, so a string at a
   * small payload's end (person's name) needs nothing past it. */
  uint64_t high;
  if (n >= 8 && n <= 16)
    high = load_le64(s) | load_le64(s + n - 8);
  else if (n < 8 && readable >= 8)
    high = load_le64(s) & ((1ull << (8 * n)) - 1);
  else
    return utf8_valid_blocks(s, n, readable);
  return !(high & LANES(0x80)) || utf8_valid_blocks(s, n, readable);
}

/* The length of the well-formed multi-byte sequence at the start of
 * s[0..n) (s[0] >= 0x80), or 0 when there is none. */
static inline size_t utf8_sequence(const uint8_t *s, size_t n) {
  uint8_t c = s[0];
  /* The second byte's range depends on the lead byte: that is what rules
   * out overlong forms, surrogates and code points above U+10FFFF. */
  uint8_t lo = 0x80, hi = 0xBF;
  size_t len;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (n < len) return 0;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < len; k++)
    if ((s[k] & 0xC0) != 0x80) return 0;
  return len;
}

/* Compare two WTF-8 strings as JavaScript compares strings: by UTF-16 code
 * units, a proper prefix first.  Returns <0, 0 or >0. */
int utf16_compare(const char *a, size_t an, const char *b, size_t bn);

/* True when a WTF-8 string holds a lone surrogate. */
bool wtf8_has_lone_surrogate(const char *s, size_t n);

/* Append `s` as a JSON string literal, escaped exactly as JSON.stringify
 * escapes it (short escapes, lowercase \u00xx, lone surrogates as \udxxx,
 * everything else literal). */
bool buffer_json_string(shorn_buffer *b, const char *s, size_t n);

/* buffer_json_string of bytes that must be strict UTF-8 (a payload's
 * string), checked as they are copied, which saves utf8_valid's pass over
 * them: 1 when written, 0 when out of memory, -1 when they are not UTF-8
 * (nothing written).  s[0..readable) may be read (readable >= n): the
 * rest of the payload, so that the scan runs in whole blocks. */
int buffer_json_utf8(shorn_buffer *b, const uint8_t *s, size_t n, size_t readable);

/* ---- number.c ------------------------------------------------------------ */

/* Room for number_format: its longest spelling, 25 bytes with the NUL
 * ("-1.2345678901234567e-308"), and the bytes its fixed-size copies may
 * write past a shorter one (34 at most). */
#define NUMBER_TEXT_MAX 40

/* ECMAScript Number::toString(v): the shortest digits that read back to v,
 * "1e+21", "5e-324", "0.000001"; -0 gives "0", and "NaN", "Infinity",
 * "-Infinity" for the non-finite values.  Returns the length; NUL-terminates. */
size_t number_format(double v, char out[NUMBER_TEXT_MAX]);

/* The digits of u, no sign, no NUL; returns how many.  out[length..20)
 * may be overwritten. */
size_t integer_format(uint64_t u, char out[20]);

/* 10^0 .. 10^19, every power of ten in 64 bits. */
extern const uint64_t POW10_U64[20];

/* "00" .. "99": the two digits of x < 100 written at p. */
extern const char DIGIT_PAIRS[201];
static inline void write_pair(char *p, uint32_t x) { memcpy(p, DIGIT_PAIRS + 2 * x, 2); }

/* The double nearest to a JSON number (already checked against the JSON
 * grammar), as JSON.parse reads it: overflow gives +-Infinity, underflow
 * gives +-0, and "-0" keeps its sign.  Never fails. */
double number_parse(const char *s, size_t n);

/* The same for a reader that has the digits already: the number's value is
 * man * 10^exponent, with at most 19 significant digits in man, and s, n
 * its text, read again only when no fast path settles the rounding. */
double number_from_decimal(const char *s, size_t n, bool negative, uint64_t man, int64_t exponent);

/* ---- json.c -------------------------------------------------------------- */

typedef enum json_type {
  JSON_NULL,
  JSON_FALSE,
  JSON_TRUE,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT
} json_type;

#define JSON_LONE_SURROGATE 1 /* flags: the string holds a lone surrogate */

/* A parsed JSON value.  An object's members are 2 * length values in input
 * order, key then value; a repeated key stays in the array, and lookups take
 * the last one, as JSON.parse does.  Strings are WTF-8 and point either into
 * the source text or into the arena. */
typedef struct json_value {
  uint8_t type;
  uint8_t flags;
  uint32_t length; /* string bytes, array elements, object members */
  union {
    double number;
    const char *string;
    struct json_value *items;
  } u;
} json_value;

/* Nesting deeper than this is refused (the parser itself does not recurse). */
#define JSON_MAX_DEPTH 10000

/* Parse exactly one JSON value (whitespace around it allowed, nothing else).
 * The DOM lives in `a`; strings without escapes point into `text`, which must
 * outlive it.  Errors are SHORN_ERROR_JSON with a byte offset, or NOMEM. */
shorn_code json_parse(arena *a, const char *text, size_t length, json_value **out,
                      shorn_error *error);

/* The value of four hex digits, or -1 when they are not all hex digits. */
int json_hex4(const uint8_t *p);
/* Write a code point as UTF-8 (a surrogate as its three WTF-8 bytes) and
 * return the end. */
uint8_t *json_put_code_point(uint8_t *o, uint32_t c);

/* The value of the last member named `key`, or NULL. */
const json_value *json_get(const json_value *object, const char *key, size_t key_length);

/* ---- shapes (built by schema.c, finished by shape.c) --------------------- */

typedef enum shape_kind {
  SHAPE_ANY,      /* dynamic, self-describing value */
  SHAPE_BOOLEAN,
  SHAPE_FLOAT64,
  SHAPE_INT,      /* ZigZag varint */
  SHAPE_STRING,
  SHAPE_UINT,
  SHAPE_UUID,
  SHAPE_DATETIME, /* format: date-time, epoch ms as ZigZag varint */
  SHAPE_BIGINT,
  SHAPE_BYTES,
  SHAPE_FLOAT32,
  SHAPE_LITERAL,
  SHAPE_ENUM,
  SHAPE_ARRAY,    /* fixed count when length >= 0 */
  SHAPE_SET,
  SHAPE_MAP,
  SHAPE_TUPLE,
  SHAPE_OBJECT,   /* closed, or open when extras != NULL */
  SHAPE_RECORD,
  SHAPE_NULLABLE,
  SHAPE_UNION,    /* discriminated when on != NULL, else type-disjoint */
  SHAPE_REF       /* back edge of a cycle: definition `index` */
} shape_kind;

/* JSON type names in the order a type-disjoint union sorts them. */
typedef enum json_kind {
  KIND_ARRAY,
  KIND_BOOLEAN,
  KIND_NULL,
  KIND_NUMBER,
  KIND_OBJECT,
  KIND_STRING,
  KIND_COUNT
} json_kind;

/* A literal, enum member or discriminant case. */
typedef struct scalar {
  json_type type; /* JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER or JSON_STRING */
  double number;
  const char *string; /* WTF-8 */
  uint32_t string_length;
  const char *json; /* its JSON text, as JSON.stringify writes it; arena_strdup's */
  uint32_t json_length;
} scalar;

typedef struct shape shape;

typedef struct field {
  const char *key; /* WTF-8 */
  uint32_t key_length;
  bool optional;
  uint32_t bit; /* rank among the optional fields, when optional */
  shape *value;
  const char *json_key; /* "\"key\":", ready to copy into decoded JSON; arena_strdup's */
  uint32_t json_key_length;
  uint32_t declared_next; /* the field declared after this one; count after the last */
} field;

/* Whether an object's presence bitmap has the field: a required one always. */
static inline bool field_present(const field *f, const uint8_t *bitmap) {
  return !f->optional || (bitmap[f->bit >> 3] >> (f->bit & 7) & 1);
}

struct shape {
  shape_kind kind;
  uint64_t min_width; /* fewest bytes any value takes; saturates at UINT64_MAX */
  uint64_t slots;     /* decoded elements it can make from zero bytes (build check) */
  union {
    struct {
      shape *element;
      int64_t length; /* SHAPE_ARRAY: fixed count, or -1 */
    } array;          /* SHAPE_ARRAY, SHAPE_SET */
    struct {
      shape *key, *value;
    } map;
    struct {
      scalar *members; /* canonical order */
      uint32_t count;
    } enumeration;
    scalar literal;
    shape *inner; /* SHAPE_NULLABLE */
    struct {
      field *fields; /* canonical (UTF-16) key order */
      uint32_t count;
      uint32_t optional_count;
      bool reject_unknown; /* additionalProperties absent: refuse unknown keys */
      shape *extras;       /* open object: the undeclared keys' value shape */
      uint32_t *index;     /* hash of key -> field + 1 (0 empty); built by shape.c */
      uint32_t index_mask;
      uint32_t declared_first; /* the first field of "properties"; count when none */
    } object;
    shape *record; /* SHAPE_RECORD: the value shape */
    struct {
      shape **items;
      uint32_t count;
      shape *rest; /* or NULL */
    } tuple;
    struct {
      shape **branches;
      uint32_t count;
      const char *on; /* discriminated: the key (WTF-8), else NULL */
      uint32_t on_length;
      scalar *cases;            /* discriminated: cases[i] selects branches[i] */
      const field **holders;    /* discriminated: the field of branches[i] holding cases[i],
                                 * or NULL when it has none; built by shape.c */
      json_kind *types;         /* type-disjoint: types[i] selects branches[i] */
      int8_t by_kind[KIND_COUNT]; /* type-disjoint: branch per JSON kind, or -1 */
    } choice;
    struct {
      uint32_t index;
      shape *target; /* the definition's body */
    } ref;
  } u;
};

/* The hash of a field name in an object's index: 32-bit FNV-1a over the
 * bytes, then a final avalanche (MurmurHash3's) so that the low bits, the
 * ones a power-of-two table keeps, depend on every byte. */
static inline uint32_t key_hash(const char *s, size_t n) {
  uint32_t h = 0x811C9DC5u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x01000193u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  return h ^ (h >> 16);
}

/* memcmp(a, b, n) == 0 for the few bytes of a key, inline: up to sixteen
 * bytes as two words from each end (overlapping when shorter than two).
 * The library call cost 32 instructions a key, a twentieth of encoding
 * the benchmark's record of thirty numbers. */
static inline bool short_equal(const char *a, const char *b, size_t n) {
  const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
  if (n >= 8 && n <= 16)
    return load_le64(x) == load_le64(y) && load_le64(x + n - 8) == load_le64(y + n - 8);
  if (n >= 4 && n < 8)
    return load_le32(x) == load_le32(y) && load_le32(x + n - 4) == load_le32(y + n - 4);
  if (n < 4) return !n || (x[0] == y[0] && x[n / 2] == y[n / 2] && x[n - 1] == y[n - 1]);
  return memcmp(a, b, n) == 0;
}

/* The declared field of an object shape named `key`, or NULL, given the
 * key's key_hash or not.  The index is at most half full, so a probe
 * always ends at an empty slot. */
static inline const field *object_find_hashed(const shape *obj, const char *key, size_t n, uint32_t hash) {
  const uint32_t *index = obj->u.object.index, mask = obj->u.object.index_mask;
  if (!index) return NULL;
  for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
    if (!index[i]) return NULL;
    const field *f = &obj->u.object.fields[index[i] - 1];
    if (f->key_length == n && short_equal(f->key, key, n)) return f;
  }
}
static inline const field *object_find_field(const shape *obj, const char *key, size_t n) {
  return object_find_hashed(obj, key, n, key_hash(key, n));
}

struct shorn_schema {
  arena arena; /* owns every shape and string below */
  shape *root;
  shape **defs;
  uint32_t def_count;
  char *signature;
  size_t signature_length;
  uint32_t fingerprints[5]; /* the hash for each width 1..4, from the signature */
};

/* The `width`-byte fingerprint, most significant byte first: the low bytes
 * of that width's hash. */
static inline void fingerprint_bytes(const shorn_schema *s, int width, uint8_t out[4]) {
  for (int i = 0; i < width; i++) out[i] = (uint8_t)(s->fingerprints[width] >> (8 * (width - 1 - i)));
}

/* A guard for the C stack: nested shapes, containers and recursive levels
 * together, on encode and decode alike.  Far above what the per-definition
 * and dynamic limits let a legitimate value reach. */
#define NESTING_MAX 8192

/* ---- decode.c ------------------------------------------------------------ */

/* Where the declared fields of the first object a validating walk enters
 * begin (the root object, most often), so that a query goes straight to
 * one rather than passing over the fields before it.  `field` holds the
 * present fields' starts, by field index. */
#define FIELD_MARKS_MAX 64
typedef struct field_marks {
  const shape *object; /* NULL until marked */
  const uint8_t *at;   /* the object's first byte, as a query_node's */
  const uint8_t *field[FIELD_MARKS_MAX];
} field_marks;

typedef struct decoder {
  const uint8_t *start, *p, *end; /* offsets in errors count from start */
  shorn_buffer *out;              /* NULL: validate without writing JSON */
  shorn_error *error;
  uint32_t *ref_depth;            /* open levels per definition */
  uint32_t nesting;
  field_marks *marks;             /* NULL but in a query's validation */
} decoder;

shorn_code decode_value(decoder *d, const shape *s);
/* shorn_decode's validation (no output), marking fields as it goes. */
shorn_code decode_marking(const shorn_schema *s, const uint8_t *data, size_t length, int fingerprint_width,
                          field_marks *marks, shorn_error *error);
/* Counts, lengths, uint: 8 bytes at most.  Most are one byte, read inline
 * rather than with a call (5% of decoding the benchmark's person record). */
shorn_code read_uvarint_long(decoder *d, uint64_t *value);
static inline shorn_code read_uvarint(decoder *d, uint64_t *value) {
  if (likely(d->p < d->end && *d->p < 0x80)) {
    *value = *d->p++;
    return SHORN_OK;
  }
  return read_uvarint_long(d, value);
}
shorn_code read_int(decoder *d, int64_t *value);      /* ZigZag, 10 bytes at most */
shorn_code read_string(decoder *d, const uint8_t **s, size_t *n);

/* ---- unique.c: Set elements and Map keys, as a JavaScript Set sees them -- */

/* Holds the SameValueZero identity of each primitive value added; objects
 * and arrays have none, since every decoded one is a fresh reference.  Start
 * it zeroed: it grows with what is added, not with what a count claims. */
typedef struct unique_set {
  uint32_t *slots; /* open addressing: entry + 1, 0 empty */
  uint32_t mask, count;
  size_t *offsets;         /* where each entry's identity starts */
  shorn_buffer identities; /* each: a 4-byte length, then the bytes */
} unique_set;

/* Add the value whose encoding (of shape `s`) is `bytes`: 1 when new or not
 * a primitive, 0 when it repeats an earlier one, -1 when out of memory. */
int unique_add(unique_set *u, const shape *s, const uint8_t *bytes, size_t n);
void unique_free(unique_set *u);

/* ---- rich.c: the byte layout's shapes beyond JSON ------------------------ */

#define DATETIME_LIMIT 8640000000000000LL /* TimeClip: +-8.64e15 ms */
#define DATETIME_TEXT_MAX 32

/* Date.prototype.toISOString of an epoch millisecond count within the limit. */
size_t datetime_format(int64_t ms, char out[DATETIME_TEXT_MAX]);
/* The inverse, accepting only the exact spelling datetime_format writes. */
bool datetime_parse(const char *s, size_t n, int64_t *ms);

/* Standard base64 with padding, appended as it is, or as a JSON string. */
bool base64_encode(shorn_buffer *b, const uint8_t *s, size_t n);
bool base64_json(shorn_buffer *b, const uint8_t *s, size_t n);
/* Decode canonical standard base64 (padding required, zero pad bits) into
 * `out`, which has room for n / 4 * 3 bytes.  False when not canonical, with
 * `*bad` the offset of the first character that breaks the rule. */
bool base64_decode(const char *s, size_t n, uint8_t *out, size_t *out_length, size_t *bad);

/* ---- bigint.c: a BigInt's magnitude and its decimal spelling ------------ */

/* Both directions are divide and conquer over Karatsuba multiplication,
 * O(n^1.585) rather than quadratic, in memory a small multiple of the
 * input allocated once; short values, the common case, allocate nothing. */

/* A BigInt's decimal spelling, as a JSON string, from its little-endian
 * magnitude.  False when out of memory. */
bool bigint_json(shorn_buffer *b, bool negative, const uint8_t *magnitude, size_t n);
/* Append the wire form (header, magnitude) of a decimal spelling:
 * BIGINT_SPELLING unless it is BigInt's own ('-' only, no leading zero, no
 * -0), BIGINT_TOO_LARGE beyond a 64 MiB magnitude. */
typedef enum bigint_status { BIGINT_OK, BIGINT_SPELLING, BIGINT_TOO_LARGE, BIGINT_NOMEM } bigint_status;
bigint_status bigint_encode(shorn_buffer *b, const char *decimal, size_t n);

/* schema.c: translate a parsed JSON Schema document into root and defs,
 * fold a recursive document (shape_fold), then finish it (shape_finish);
 * a refusal names the schema node it comes from. */
shorn_code schema_translate(shorn_schema *s, const json_value *document, shorn_error *error);

/* shape.c: the post-processing of a recursive document (reference §1.12):
 * fold copies of definitions into refs, settle which definitions admit null,
 * drop nullable markers over those. */
shorn_code shape_fold(shorn_schema *s, shorn_error *error);

/* shape.c: after translation, compute widths and slots, run the build
 * checks, build lookup tables and the signature.  When a build check
 * refuses a shape, *refused is that shape, so that schema.c can say where
 * in the schema it came from. */
shorn_code shape_finish(shorn_schema *s, const shape **refused, shorn_error *error);

/* shape.c: the "admits null" rule (reference §1.5.1).  A ref admits null
 * when `definitions` says its definition does; with NULL, never. */
bool shape_admits_null(const shape *sh, const bool *definitions);

/* shape.c: the FNV-1a fingerprint hash of a signature for a width. */
uint32_t shape_fingerprint_hash(const char *signature, size_t length, int width);

/* ---- query.c: SQLite's JSON questions, answered from the bytes ---------- */

/* A JSON path as SQLite's JSON functions take it: `$`, then any of `.key`,
 * `."key"`, `[N]`, `[#]` and `[#-N]`.  A key is compared with a member's
 * name as the JSON text writes it, escapes and all (SQLite 3.40's rule). */
typedef enum step_kind { STEP_KEY, STEP_INDEX, STEP_FROM_END } step_kind;

typedef struct path_step {
  step_kind kind;
  bool plain;          /* STEP_KEY: nothing in it that JSON.stringify escapes */
  const char *key;     /* STEP_KEY: into the path's text */
  uint32_t key_length;
  uint32_t key_hash;   /* STEP_KEY: key_hash of the key, once for every row */
  uint64_t index;      /* N of [N] or [#-N]; saturates */
} path_step;

typedef struct query_path {
  const char *text; /* the path as written, NUL-terminated */
  size_t length;
  uint32_t count;
  path_step steps[];
} query_path;

/* One allocation (free it with query_path_free), or NULL with the error:
 * SHORN_ERROR_USAGE "JSON path error near '...'", as SQLite words it. */
query_path *query_path_parse(const char *text, size_t length, shorn_error *error);
void query_path_free(void *path);

/* A value inside a payload: its shape and its first byte.  A NULL shape is
 * what a path names when it names nothing. */
typedef struct query_node {
  const shape *shape;
  const uint8_t *at;
} query_node;

/* A payload being read.  Opening it decodes it through once without
 * output, so a payload shorn_decode refuses fails here with the same error;
 * after that every read of it succeeds (but for memory). */
typedef struct query {
  decoder d;
  query_node root;
  field_marks marks;
  shape pair;           /* the Map entry a path is at, as the tuple [key, value] */
  shape *pair_items[2];
  uint32_t depth_here[16];
} query;

shorn_code query_open(query *q, const shorn_schema *s, const uint8_t *data, size_t length,
                      int fingerprint_width, shorn_error *error);
void query_close(query *q);
/* The node `path` names (NULL: the root); node->shape is NULL when none. */
shorn_code query_find(query *q, const query_path *path, query_node *node);
/* Append the node's JSON text: the decoder's, so exactly shorn_decode's. */
shorn_code query_json(query *q, const query_node *node, shorn_buffer *out);
/* The SQL value of a number node as the SQL functions make it of the
 * node's JSON text, without writing the text: an integer that prints as
 * one (*is_integer), else a double that prints with a point or an
 * exponent.  False for anything else, whose text then decides. */
bool query_number(query *q, const query_node *node, bool *is_integer, int64_t *integer, double *real);
/* The SQL text of a string node (a string, or an enum member that is one)
 * as the SQL functions make it of the node's JSON text, without writing
 * the text.  False for anything else, whose text then decides. */
bool query_text(query *q, const query_node *node, const char **text, size_t *length);

/* What json_type says of a JSON value, in json_text_kind_name's spelling. */
typedef enum json_text_kind {
  JSON_TEXT_NULL,
  JSON_TEXT_TRUE,
  JSON_TEXT_FALSE,
  JSON_TEXT_INTEGER,
  JSON_TEXT_REAL,
  JSON_TEXT_STRING,
  JSON_TEXT_ARRAY,
  JSON_TEXT_OBJECT
} json_text_kind;

extern const char *const json_text_kind_name[];

/* The node's type, writing (into `scratch`) only what it must: a number's
 * spelling decides between integer and real. */
shorn_code query_type(query *q, const query_node *node, shorn_buffer *scratch, json_text_kind *type);

/* JSON text read as SQLite reads it.  The type of a value by its text; a
 * number spelled as an integer that fits 64 bits (false: SQLite makes it a
 * REAL, the nearest double); a string's value from between its quotes,
 * pointing into the text when it has no escapes, else into `scratch`
 * (false when out of memory); SQLite 3.40 ends it at an escaped NUL. */
json_text_kind json_text_type(const char *json, size_t length);
bool json_text_integer(const char *json, size_t length, int64_t *value);
bool json_text_unescape(const char *s, size_t length, shorn_buffer *scratch, const char **value,
                        size_t *value_length);

/* The rows json_each (children) or json_tree (the node, then everything
 * under it) give over a node's JSON text, with their columns.  Nodes are
 * numbered as SQLite 3.40 numbers them, a value or an object key each, in
 * document order, from the node itself (0). */
typedef enum row_key { ROW_NO_KEY, ROW_INDEX, ROW_NAME } row_key;

typedef struct json_row {
  json_text_kind type;
  uint32_t id;
  int64_t parent; /* -1: none */
  row_key key;
  uint64_t index;   /* ROW_INDEX */
  const char *name; /* ROW_NAME: as the JSON text writes it, without quotes */
  size_t name_length;
  const char *json; /* the value */
  size_t json_length;
  size_t fullkey_length, path_length; /* of json_rows.fullkey: path is a prefix */
} json_row;

typedef struct row_frame {
  uint32_t id;
  bool object;
  uint64_t index;        /* the next element's */
  size_t fullkey_length; /* the container's own fullkey */
} row_frame;

typedef struct json_rows {
  const char *p, *end;
  bool recursive, done;
  uint32_t next_id;
  row_frame *frames; /* the containers open around p */
  size_t depth, capacity;
  shorn_buffer fullkey;
  json_row row; /* the current one, unless done */
} json_rows;

/* Start over the JSON text of a node reached by `path` (NULL: `$`), which
 * spells fullkey and path; start zeroed once, reuse, json_rows_free. */
shorn_code json_rows_start(json_rows *r, const char *json, size_t length, bool recursive,
                           const query_path *path);
shorn_code json_rows_next(json_rows *r);
void json_rows_free(json_rows *r);

#endif
