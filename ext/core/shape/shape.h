/* shape.h — wire shapes, the compiled form of a JSON Schema: built by
 * schema.c, finished by shape.c (widths, build checks, lookup tables,
 * signature and fingerprints), walked by encode.c, decode.c and query.c. */
#ifndef SHORN_SHAPE_H
#define SHORN_SHAPE_H

#include "core/base/platform.h"
#include "core/json/json.h"
#include "core/base/memory.h"

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

/* A dynamic value's (SHAPE_ANY's) tag byte, and what follows it. */
typedef enum dynamic_tag {
  DYNAMIC_NULL = 0,    /* nothing */
  DYNAMIC_FALSE = 1,   /* nothing */
  DYNAMIC_TRUE = 2,    /* nothing */
  DYNAMIC_INTEGER = 3, /* a safe integer, ZigZag varint */
  DYNAMIC_NUMBER = 4,  /* any other number, float64 little-endian */
  DYNAMIC_STRING = 5,  /* varint byte length, then UTF-8 */
  DYNAMIC_ARRAY = 6,   /* varint count, then dynamic values */
  DYNAMIC_OBJECT = 7   /* varint count, then key and dynamic value pairs, as a record */
} dynamic_tag;

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

static const char *const json_kind_names[KIND_COUNT] = {"array",  "boolean", "null",
                                                        "number", "object",  "string"};

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

/* The validation keywords of a node (validate.h), and the patterns of a
 * schema (pattern.h): a layer beside the wire shapes, which no walker of
 * the bytes reads. */
typedef struct validation validation;
typedef struct pattern_engine pattern_engine;

/* How query.c passes over an object's declared fields without reading
 * them: a flat list of steps that shape.c builds once per object, adjacent
 * fields of one kind folded into one step, so that a run of them costs a
 * step rather than a dispatch each. */
typedef enum pass_op {
  PASS_BYTES,   /* n bytes: fixed-width fields (boolean, floats, uuid, literal), summed */
  PASS_VARINTS, /* n varints: integers, date-times, enum members */
  PASS_BODIES,  /* n length-prefixed bodies: strings, byte arrays */
  PASS_ARRAY,   /* one array or Set, `value`: its elements a level deeper */
  PASS_OBJECT,  /* one object, `value`: its own plan a level deeper */
  PASS_VALUE    /* one value of `value`, by its own layout */
} pass_op;

typedef struct pass_step {
  pass_op op;
  bool optional; /* then taken only when the presence bitmap has `bit` */
  uint32_t bit;
  uint64_t n;
  const shape *value; /* PASS_ARRAY, PASS_OBJECT, PASS_VALUE */
} pass_step;

typedef struct field {
  const char *key; /* WTF-8 */
  shape *value;
  const char *json_key; /* "\"key\":", ready to copy into decoded JSON; arena_strdup's */
  /* The property's "default", in the schema's document, or NULL.  The
   * validated encode writes it for a member the value leaves out, as the
   * library's validated codec does through the validator's parse, and a
   * reader takes it for a member an older version did not write. */
  const json_value *default_value;
  uint64_t plan_skip;
  uint32_t key_length;
  uint32_t json_key_length;
  uint32_t bit;           /* rank among the optional fields, when optional */
  uint32_t declared_next; /* the field declared after this one; count after the last */
  uint32_t plan_step;     /* the object's pass step holding it, after plan_skip of that step's n */
  bool optional;
} field;

/* What a read of an object takes of each field, copied from it in the
 * same order: half a field's bytes, so that a row's read of the object
 * takes half the cache lines, and the value's kind, so that a scalar's
 * takes none of its shape.  Built by shape.c. */
typedef struct field_read {
  const shape *value;
  const char *json_key;
  uint32_t json_key_length;
  uint32_t bit;
  bool optional;
  uint8_t value_kind; /* value->kind */
} field_read;

/* The bytes of a presence bitmap of `bits` bits, the last one padded with
 * zero bits. */
static inline uint32_t bitmap_bytes(uint32_t bits) { return (bits + 7) / 8; }

/* Bit `bit` of a presence bitmap, the first bit the low bit of byte 0. */
static inline bool bitmap_has(const uint8_t *bitmap, uint32_t bit) {
  return bitmap[bit >> 3] >> (bit & 7) & 1;
}

/* Whether an object's presence bitmap has the field: a required one always. */
static inline bool field_present(const field *f, const uint8_t *bitmap) {
  return !f->optional || bitmap_has(bitmap, f->bit);
}

/* a + b, or UINT64_MAX where that passes it: how widths and slots add. */
static inline uint64_t add_saturating(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

struct shape {
  shape_kind kind;
  uint64_t min_width; /* fewest bytes any value takes; saturates at UINT64_MAX */
  uint64_t slots;     /* decoded elements it can make from zero bytes (build check) */
  const validation *keywords; /* checked on encode before the shape; NULL when there are none */
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
      field *fields;           /* canonical (UTF-16) key order */
      field_read *reads;       /* the same, as a read takes them; built by shape.c */
      shape *extras;           /* open object: the undeclared keys' value shape */
      uint32_t *index;         /* hash of key -> field + 1 (0 empty); built by shape.c */
      pass_step *plan;         /* the declared fields passed over; built by shape.c */
      uint32_t count;
      uint32_t optional_count;
      uint32_t index_mask;
      uint32_t declared_first; /* the first field of "properties"; count when none */
      uint32_t plan_length;
      bool reject_unknown; /* additionalProperties absent: refuse unknown keys */
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

/* How a value of a shape kind lies in the bytes: the leaves first, then
 * the forms that hold other values. */
typedef enum wire_form {
  WIRE_FIXED,    /* `width` bytes, the same for every value */
  WIRE_VARINT,   /* one varint (ZigZag for a signed number) */
  WIRE_BODY,     /* a varint byte length, then the bytes */
  WIRE_BIGINT,   /* a varint of the magnitude's length << 1 | sign, then the magnitude */
  WIRE_DYNAMIC,  /* a tag byte (dynamic_tag), then what the tag says */
  WIRE_MARKER,   /* a presence byte, 0 or 1, then the inner value after a 1 */
  WIRE_BRANCH,   /* a varint branch index, then a value of that branch */
  WIRE_REF,      /* a value of the definition, as its body lays it out */
  WIRE_ELEMENTS, /* a varint count (none for a fixed array), then the elements */
  WIRE_ENTRIES,  /* a varint count, then a key and a value each */
  WIRE_ITEMS,    /* each item in order, then a counted rest when there is one */
  WIRE_FIELDS    /* a presence bitmap over the optional fields, the fields, then counted extras */
} wire_form;

/* What each shape kind is on the wire, a row a kind, as SQLite's json.c
 * keeps jsonbType[]: the walkers read forms and widths here, so a new kind
 * is a row, and their own switches keep only what each does differently. */
typedef struct shape_wire {
  wire_form form;
  int8_t width;          /* WIRE_FIXED: the bytes of every value; else -1 */
  json_kind decodes_to;  /* the JSON type of every value decoded; KIND_COUNT when it varies */
  const char *name;      /* the kind's name in the signature */
} shape_wire;

static const shape_wire shape_wires[] = {
    /*                  form           width decodes to    name */
    [SHAPE_ANY] =      {WIRE_DYNAMIC,  -1,   KIND_COUNT,   "any"},
    [SHAPE_BOOLEAN] =  {WIRE_FIXED,    1,    KIND_BOOLEAN, "boolean"},
    [SHAPE_FLOAT64] =  {WIRE_FIXED,    8,    KIND_NUMBER,  "float64"},
    [SHAPE_INT] =      {WIRE_VARINT,   -1,   KIND_NUMBER,  "int"},
    [SHAPE_STRING] =   {WIRE_BODY,     -1,   KIND_STRING,  "string"},
    [SHAPE_UINT] =     {WIRE_VARINT,   -1,   KIND_NUMBER,  "uint"},
    [SHAPE_UUID] =     {WIRE_FIXED,    16,   KIND_STRING,  "uuid"},
    [SHAPE_DATETIME] = {WIRE_VARINT,   -1,   KIND_STRING,  "datetime"},
    [SHAPE_BIGINT] =   {WIRE_BIGINT,   -1,   KIND_STRING,  "bigint"},
    [SHAPE_BYTES] =    {WIRE_BODY,     -1,   KIND_STRING,  "bytes"},
    [SHAPE_FLOAT32] =  {WIRE_FIXED,    4,    KIND_NUMBER,  "float32"},
    [SHAPE_LITERAL] =  {WIRE_FIXED,    0,    KIND_COUNT,   "literal"},
    [SHAPE_ENUM] =     {WIRE_VARINT,   -1,   KIND_COUNT,   "enum"},
    [SHAPE_ARRAY] =    {WIRE_ELEMENTS, -1,   KIND_ARRAY,   "array"},
    [SHAPE_SET] =      {WIRE_ELEMENTS, -1,   KIND_ARRAY,   "set"},
    [SHAPE_MAP] =      {WIRE_ENTRIES,  -1,   KIND_ARRAY,   "map"},
    [SHAPE_TUPLE] =    {WIRE_ITEMS,    -1,   KIND_ARRAY,   "tuple"},
    [SHAPE_OBJECT] =   {WIRE_FIELDS,   -1,   KIND_OBJECT,  "object"},
    [SHAPE_RECORD] =   {WIRE_ENTRIES,  -1,   KIND_OBJECT,  "record"},
    [SHAPE_NULLABLE] = {WIRE_MARKER,   -1,   KIND_COUNT,   "nullable"},
    [SHAPE_UNION] =    {WIRE_BRANCH,   -1,   KIND_COUNT,   "union"},
    [SHAPE_REF] =      {WIRE_REF,      -1,   KIND_COUNT,   "ref"},
};

static inline wire_form shape_form(const shape *s) { return shape_wires[s->kind].form; }

/* ZigZag, how a signed integer becomes a varint: 0, -1, 1, -2, … as 0, 1,
 * 2, 3, …, so that a small magnitude takes few bytes either side of 0. */
static inline uint64_t zigzag_encode(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t zigzag_decode(uint64_t z) {
  return (z & 1) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
}

/* The width of a shape whose every value takes the same bytes, else -1:
 * a run of them is passed over in one step. */
static inline int64_t shape_fixed_width(const shape *s) { return shape_wires[s->kind].width; }

/* The hash of a field name in an object's index: 32-bit FNV-1a over the
 * bytes, then a final avalanche (MurmurHash3's) so that the low bits, the
 * ones a power-of-two table keeps, depend on every byte.  Its loop is
 * spelled here, not a call of fnv1a32: GCC then keeps the encoder's field
 * loop around it in registers. */
static inline uint32_t key_hash(const char *s, size_t n) {
  uint32_t h = FNV1A32_BASIS;
  for (size_t i = 0; i < n; i++) h = fnv1a32_step(h, (uint8_t)s[i]);
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  return h ^ (h >> 16);
}

/* memcmp(a, b, n) == 0 for the few bytes of a key, inline: up to sixteen
 * bytes as two words from each end (overlapping when shorter than two).
 * The library call costs more than the comparison on keys this short. */
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

/* A pattern a schema took from a shared engine, to let go with the schema. */
typedef struct pattern_use {
  const struct pattern *pattern;
  struct pattern_use *next;
} pattern_use;

/* The most bytes a fingerprint takes; it takes at least one. */
#define FINGERPRINT_WIDTH_MAX 4

struct shorn_schema {
  const shorn_allocator *allocator; /* the compile's: for the schema and every call's scratch */
  arena arena; /* owns every shape and string a read walks; its allocator is the schema's */
  /* What no read walks: the schema's text and its tree, which defaults and
   * validation keywords point into, those keywords compiled, and the
   * signature.  Apart, so that the shapes a read walks lie together, in
   * fewer cache lines, however many schemas a query reads. */
  arena aside;
  shape *root;
  shape **defs;
  uint32_t def_count;
  char *signature;
  size_t signature_length;
  uint32_t fingerprints[FINGERPRINT_WIDTH_MAX + 1]; /* the hash for each width 1..4, from the signature */
  pattern_engine *patterns; /* NULL until a pattern is compiled */
  /* Whether `patterns` is another's (schema_compile_sharing), which keeps
   * each pattern until every schema that took it lets it go. */
  bool patterns_shared;
  struct pattern_use *pattern_uses; /* what this schema took from a shared engine */
  size_t pattern_bytes;             /* theirs, each counted in full (pattern_bytes) */
  /* NULL, or the validated mode's refusal: a keyword it cannot check
   * ($dynamicRef, a $ref out of the document) where the wire shape does
   * not read it. */
  const shorn_error *uncheckable;
};

/* The `width`-byte fingerprint, most significant byte first: the low bytes
 * of that width's hash. */
static inline void fingerprint_bytes(const shorn_schema *s, int width, uint8_t out[FINGERPRINT_WIDTH_MAX]) {
  for (int i = 0; i < width; i++) out[i] = (uint8_t)(s->fingerprints[width] >> (8 * (width - 1 - i)));
}

/* A guard for the C stack: nested shapes, containers and recursive levels
 * together, on encode and decode alike.  Far above what the per-definition
 * and dynamic limits let a legitimate value reach. */
#define NESTING_MAX 8192

/* The recursive definitions whose depths a walk counts in an array on the
 * C stack; a schema of more allocates one. */
#define REF_DEPTHS_HERE 16

/* shape.c: the fold of a recursive document (docs/format.md#recursive-schemas):
 * fold copies of definitions into refs, settle which definitions admit null,
 * drop nullable markers over those. */
SHORN_PRIVATE shorn_code shape_fold(shorn_schema *s, shorn_error *error);

/* shape.c: after translation, compute widths and slots, run the build
 * checks, build lookup tables and the signature.  When a build check
 * refuses a shape, *refused is that shape, so that schema.c can say where
 * in the schema it came from. */
SHORN_PRIVATE shorn_code shape_finish(shorn_schema *s, const shape **refused, shorn_error *error);

/* shape.c: the "admits null" rule (docs/format.md#nullable-schemas).  A
 * ref admits null when `definitions` says its definition does; with NULL,
 * never. */
SHORN_PRIVATE bool shape_admits_null(const shape *sh, const bool *definitions);

/* shape.c, for the tests: every object's pass plan rebuilt with a step per
 * field, none folded, so that the folded plans can be held to it. */
SHORN_PRIVATE TEST_HOOK bool shape_plan_field_by_field(shorn_schema *s);

/* Whether a call takes a fingerprint of `width` bytes: 1 to 4, or 0 (no
 * fingerprint) where `none_allowed`.  Else fingerprint_width_refused is
 * the usage error, its message saying which widths the call takes. */
static inline bool fingerprint_width_ok(int width, bool none_allowed) {
  return width >= (none_allowed ? 0 : 1) && width <= FINGERPRINT_WIDTH_MAX;
}
SHORN_PRIVATE shorn_code fingerprint_width_refused(bool none_allowed, shorn_error *error);

/* shape.c: the FNV-1a fingerprint hashes of a signature, hashes[width] for
 * each width 1..4 (hashes[0] is 0). */
SHORN_PRIVATE void shape_fingerprint_hashes(const char *signature, size_t length,
                                            uint32_t hashes[FINGERPRINT_WIDTH_MAX + 1]);

#endif
