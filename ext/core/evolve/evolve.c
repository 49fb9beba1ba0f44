/*
 * evolve.c — a writer's schema resolved against a reader's, as Avro
 * resolves them: values are matched by place (members by name, items by
 * position, union branches by discriminant or JSON type); a member only
 * the writer has is dropped; a member only the reader has takes its
 * default, or is left out when optional; a value keeps its meaning or the
 * pair is refused.  Validation keywords play no part: they are checked
 * when a value is written, never when it is read.
 *
 * evolve_check walks the two shapes and says where they cannot be
 * resolved.  A plan, made once for a pair the check accepts, marks the
 * parts of the two that the writer's decoder writes as the reader's would,
 * and lines up each pair of objects' members.  evolve_decode then walks a
 * payload's bytes with the writer's shapes and writes the reader's JSON:
 * the parts written alike by the decoder itself, the rest member by
 * member; evolve_upgrade encodes that JSON with the reader's schema.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evolve.h"

#include "core/base/memory.h"
#include "core/json/json.h"
#include "core/shape/shape.h"
#include "core/text/error.h"
#include "core/text/text.h"
#include "core/wire/decode.h"
#include "core/wire/encode.h"

/* ---- the check --------------------------------------------------------- */

/* The JSON types a description of each kind names, as a user writes the
 * schema rather than as the wire lays it out. */
static const char *const evolve_kind_words[] = {
    [SHAPE_ANY] = "any value",        [SHAPE_BOOLEAN] = "a boolean",     [SHAPE_FLOAT64] = "a number",
    [SHAPE_INT] = "an integer",       [SHAPE_STRING] = "a string",       [SHAPE_UINT] = "an integer",
    [SHAPE_UUID] = "a UUID",          [SHAPE_DATETIME] = "a date-time",  [SHAPE_BIGINT] = "a BigInt",
    [SHAPE_BYTES] = "a byte array",   [SHAPE_FLOAT32] = "a float32",     [SHAPE_LITERAL] = "a constant",
    [SHAPE_ENUM] = "an enum",         [SHAPE_ARRAY] = "an array",        [SHAPE_SET] = "a Set",
    [SHAPE_MAP] = "a Map",            [SHAPE_TUPLE] = "a tuple",         [SHAPE_OBJECT] = "an object",
    [SHAPE_RECORD] = "a record",      [SHAPE_NULLABLE] = "a nullable value", [SHAPE_UNION] = "a union",
    [SHAPE_REF] = "a recursive value"};

/* The walk of a writer's and a reader's shapes together: where it is in
 * the reader's schema, as a JSON Pointer, and the pairs it has entered, so
 * that a recursive pair is checked once. */
typedef struct evolve_checker {
  const shorn_schema *to; /* the reader */
  shorn_buffer *why;
  shorn_buffer pointer;
  const shape **pairs; /* writer, reader, writer, reader, ... */
  size_t pair_count, pair_capacity;
  bool nomem;
} evolve_checker;

static void evolve_check_pair(evolve_checker *c, const shape *w, const shape *r);

static void evolve_refuse(evolve_checker *c, const char *format, ...) PRINTF_LIKE(2, 3);
static void evolve_refuse(evolve_checker *c, const char *format, ...) {
  char reason[SHORN_MESSAGE_MAX];
  va_list ap;
  va_start(ap, format);
  vsnprintf(reason, sizeof reason, format, ap);
  va_end(ap);
  shorn_buffer *why = c->why;
  if ((why->length && !buffer_append(why, "; ", 2)) || !buffer_byte(why, '#') ||
      !buffer_append(why, c->pointer.data, c->pointer.length) || !buffer_append(why, ": ", 2) ||
      !buffer_append(why, reason, strlen(reason)))
    c->nomem = true;
}

/* Step into the reader's schema by one segment, escaped as RFC 6901 asks;
 * returns where to step back to. */
static size_t evolve_enter(evolve_checker *c, const char *keyword, const char *key, size_t n) {
  size_t mark = c->pointer.length;
  bool ok = buffer_byte(&c->pointer, '/') && buffer_append(&c->pointer, keyword, strlen(keyword));
  if (key) {
    ok = ok && buffer_byte(&c->pointer, '/');
    for (size_t i = 0; ok && i < n; i++)
      ok = key[i] == '~'   ? buffer_append(&c->pointer, "~0", 2)
           : key[i] == '/' ? buffer_append(&c->pointer, "~1", 2)
                           : buffer_byte(&c->pointer, (uint8_t)key[i]);
  }
  if (!ok) c->nomem = true;
  return mark;
}

static void evolve_enter_index(evolve_checker *c, const char *keyword, uint32_t i) {
  char digits[16];
  snprintf(digits, sizeof digits, "%u", i);
  evolve_enter(c, keyword, digits, strlen(digits));
}

static const shape *evolve_deref(const shape *s) { return s->kind == SHAPE_REF ? s->u.ref.target : s; }

/* Has the walk entered this pair already?  If not, it has now. */
static bool evolve_entered(evolve_checker *c, const shape *w, const shape *r) {
  for (size_t i = 0; i < c->pair_count; i += 2)
    if (c->pairs[i] == w && c->pairs[i + 1] == r) return true;
  const shape **grown = array_grow(c->to->allocator, c->pairs, &c->pair_capacity, c->pair_count + 2, sizeof *c->pairs, NULL);
  if (!grown) {
    c->nomem = true;
    return true;
  }
  c->pairs = grown;
  c->pairs[c->pair_count++] = w;
  c->pairs[c->pair_count++] = r;
  return false;
}

/* Whether the reader's scalar shape `r` takes the value `v` (a member of a
 * writer's enum, a writer's literal). */
static bool evolve_scalar_fits(const shape *r, const scalar *v) {
  double x = v->number;
  switch (r->kind) {
    case SHAPE_ANY: return true;
    case SHAPE_BOOLEAN: return v->type == JSON_TRUE || v->type == JSON_FALSE;
    case SHAPE_STRING: return v->type == JSON_STRING;
    case SHAPE_FLOAT64:
    case SHAPE_FLOAT32: return v->type == JSON_NUMBER;
    case SHAPE_INT: return v->type == JSON_NUMBER && x == floor(x) && fabs(x) <= 9007199254740991.0;
    case SHAPE_UINT: return v->type == JSON_NUMBER && x == floor(x) && x >= 0 && x <= 9007199254740991.0;
    case SHAPE_LITERAL: return r->u.literal.json_length == v->json_length && !memcmp(r->u.literal.json, v->json, v->json_length);
    case SHAPE_ENUM:
      for (uint32_t i = 0; i < r->u.enumeration.count; i++)
        if (r->u.enumeration.members[i].json_length == v->json_length &&
            !memcmp(r->u.enumeration.members[i].json, v->json, v->json_length))
          return true;
      return false;
    case SHAPE_NULLABLE: return v->type == JSON_NULL || evolve_scalar_fits(evolve_deref(r->u.inner), v);
    default: return false;
  }
}

static void evolve_check_scalars(evolve_checker *c, const scalar *values, uint32_t count, const shape *r) {
  for (uint32_t i = 0; i < count; i++)
    if (!evolve_scalar_fits(r, &values[i])) {
      char quoted[64];
      snprintf(quoted, sizeof quoted, "%.*s", (int)(values[i].json_length > 48 ? 48 : values[i].json_length),
               values[i].json);
      if (r->kind == SHAPE_ENUM || r->kind == SHAPE_LITERAL)
        evolve_refuse(c, "the value %s is no longer one of its values", quoted);
      else
        evolve_refuse(c, "the value %s cannot be read as %s", quoted, evolve_kind_words[r->kind]);
    }
}

/* Leaves that read the same values, or more: an integer as a number, an
 * unsigned integer as a signed one, a float32 as a float64, a UUID or a
 * date-time as a string (a format dropped, as a bound may be). */
static bool evolve_leaf_widens(shape_kind w, shape_kind r) {
  return w == r || (r == SHAPE_FLOAT64 && (w == SHAPE_INT || w == SHAPE_UINT || w == SHAPE_FLOAT32)) ||
         (r == SHAPE_INT && w == SHAPE_UINT) || (r == SHAPE_STRING && (w == SHAPE_UUID || w == SHAPE_DATETIME));
}

/* A reader's field the writer does not have, or has optional where the
 * reader requires it: its default, which must be a value of its shape. */
static void evolve_check_default(evolve_checker *c, const field *f, const char *reason) {
  if (!f->default_value) {
    evolve_refuse(c, "%s", reason);
    return;
  }
  shorn_error error;
  shorn_code rc = encode_default(c->to, f, NULL, &error);
  if (rc == SHORN_ERROR_NOMEM)
    c->nomem = true;
  else if (rc)
    evolve_refuse(c, "its default is not a value of its schema: %s", error.message);
}

static void evolve_check_object(evolve_checker *c, const shape *w, const shape *r) {
  for (uint32_t i = 0; i < r->u.object.count; i++) {
    const field *rf = &r->u.object.fields[i];
    const field *wf = object_find_field(w, rf->key, rf->key_length);
    size_t mark = evolve_enter(c, "properties", rf->key, rf->key_length);
    if (!wf && !rf->optional)
      evolve_check_default(c, rf, "a new required member needs a default: the older payloads do not have it");
    else if (wf && wf->optional && !rf->optional)
      evolve_check_default(c, rf, "an optional member cannot become required without a default: older payloads may lack it");
    if (wf) evolve_check_pair(c, wf->value, rf->value);
    c->pointer.length = mark;
  }
  if (w->u.object.extras && r->u.object.extras) {
    size_t mark = evolve_enter(c, "additionalProperties", NULL, 0);
    evolve_check_pair(c, w->u.object.extras, r->u.object.extras);
    c->pointer.length = mark;
  }
}

/* The reader's branch a writer's value of shape `w` lands in, or -1. */
static int evolve_reader_branch(const shape *r, const shape *w) {
  if (!r->u.choice.on) {
    json_kind kind = shape_wires[w->kind].decodes_to;
    if (kind == KIND_COUNT && w->kind == SHAPE_LITERAL)
      kind = w->u.literal.type == JSON_STRING   ? KIND_STRING
             : w->u.literal.type == JSON_NUMBER ? KIND_NUMBER
             : w->u.literal.type == JSON_NULL   ? KIND_NULL
                                                : KIND_BOOLEAN;
    if (kind == KIND_COUNT && w->kind == SHAPE_ENUM && w->u.enumeration.count)
      kind = w->u.enumeration.members[0].type == JSON_STRING ? KIND_STRING : KIND_NUMBER;
    return kind == KIND_COUNT ? -1 : r->u.choice.by_kind[kind];
  }
  /* Discriminated: the writer's object holds the discriminant as a
   * constant. */
  if (w->kind != SHAPE_OBJECT) return -1;
  const field *f = object_find_field(w, r->u.choice.on, r->u.choice.on_length);
  const shape *tag = f ? evolve_deref(f->value) : NULL;
  if (!tag || tag->kind != SHAPE_LITERAL) return -1;
  for (uint32_t i = 0; i < r->u.choice.count; i++)
    if (r->u.choice.cases[i].json_length == tag->u.literal.json_length &&
        !memcmp(r->u.choice.cases[i].json, tag->u.literal.json, tag->u.literal.json_length))
      return (int)i;
  return -1;
}

static void evolve_check_union(evolve_checker *c, const shape *w, const shape *r) {
  if (w->kind == SHAPE_UNION) {
    for (uint32_t i = 0; i < w->u.choice.count; i++) evolve_check_pair(c, w->u.choice.branches[i], r);
    return;
  }
  int b = evolve_reader_branch(r, w);
  const field *tag = r->u.choice.on && w->kind == SHAPE_OBJECT
                         ? object_find_field(w, r->u.choice.on, r->u.choice.on_length)
                         : NULL;
  const shape *value = tag ? evolve_deref(tag->value) : NULL;
  if (b < 0 && value && value->kind == SHAPE_LITERAL)
    evolve_refuse(c, "the branch where %.*s is %.*s is gone", (int)r->u.choice.on_length, r->u.choice.on,
           (int)value->u.literal.json_length, value->u.literal.json);
  else if (b < 0)
    evolve_refuse(c, "%s fits no branch of the union", evolve_kind_words[w->kind]);
  if (b < 0) return;
  size_t mark = c->pointer.length;
  evolve_enter_index(c, "anyOf", (uint32_t)b);
  evolve_check_pair(c, w, r->u.choice.branches[b]);
  c->pointer.length = mark;
}

static void evolve_check_pair(evolve_checker *c, const shape *w, const shape *r) {
  w = evolve_deref(w), r = evolve_deref(r);
  if (c->nomem || r->kind == SHAPE_ANY || evolve_entered(c, w, r)) return;
  if (r->kind == SHAPE_NULLABLE) {
    evolve_check_pair(c, w->kind == SHAPE_NULLABLE ? w->u.inner : w, r->u.inner);
    return;
  }
  if (w->kind == SHAPE_NULLABLE) {
    evolve_refuse(c, "null cannot be read: the new schema does not admit it");
    return;
  }
  if (r->kind == SHAPE_UNION || w->kind == SHAPE_UNION) {
    if (r->kind == SHAPE_UNION)
      evolve_check_union(c, w, r);
    else
      for (uint32_t i = 0; i < w->u.choice.count; i++) evolve_check_pair(c, w->u.choice.branches[i], r);
    return;
  }
  if (w->kind == SHAPE_LITERAL) return evolve_check_scalars(c, &w->u.literal, 1, r);
  if (w->kind == SHAPE_ENUM) return evolve_check_scalars(c, w->u.enumeration.members, w->u.enumeration.count, r);
  size_t mark = c->pointer.length;
  switch (w->kind == r->kind ? w->kind : SHAPE_ANY) {
    case SHAPE_ARRAY:
    case SHAPE_SET:
      if (r->u.array.length >= 0 && r->u.array.length != w->u.array.length)
        evolve_refuse(c, "%s of another length cannot be read as one of a fixed length", evolve_kind_words[w->kind]);
      evolve_enter(c, "items", NULL, 0);
      evolve_check_pair(c, w->u.array.element, r->u.array.element);
      break;
    case SHAPE_MAP:
      evolve_enter(c, "items", NULL, 0);
      evolve_check_pair(c, w->u.map.key, r->u.map.key);
      evolve_check_pair(c, w->u.map.value, r->u.map.value);
      break;
    case SHAPE_TUPLE:
      if (w->u.tuple.count != r->u.tuple.count || (w->u.tuple.rest && !r->u.tuple.rest)) {
        evolve_refuse(c, "a tuple of other items cannot be read as this one");
        break;
      }
      for (uint32_t i = 0; i < r->u.tuple.count; i++) {
        evolve_enter_index(c, "prefixItems", i);
        evolve_check_pair(c, w->u.tuple.items[i], r->u.tuple.items[i]);
        c->pointer.length = mark;
      }
      if (w->u.tuple.rest) {
        evolve_enter(c, "items", NULL, 0);
        evolve_check_pair(c, w->u.tuple.rest, r->u.tuple.rest);
      }
      break;
    case SHAPE_OBJECT: evolve_check_object(c, w, r); break;
    case SHAPE_RECORD:
      evolve_enter(c, "additionalProperties", NULL, 0);
      evolve_check_pair(c, w->u.record, r->u.record);
      break;
    default:
      if (w->kind == SHAPE_INT && r->kind == SHAPE_UINT)
        evolve_refuse(c, "an integer cannot be read as a non-negative one: older payloads may hold a negative number");
      else if (!evolve_leaf_widens(w->kind, r->kind) || r->kind == SHAPE_LITERAL || r->kind == SHAPE_ENUM)
        evolve_refuse(c, "%s cannot be read as %s", evolve_kind_words[w->kind], evolve_kind_words[r->kind]);
  }
  c->pointer.length = mark;
}

shorn_code evolve_check(const shorn_schema *from, const shorn_schema *to, shorn_buffer *why) {
  evolve_checker c = {.to = to, .why = why, .pointer.allocator = to->allocator};
  size_t length = why->length;
  evolve_check_pair(&c, from->root, to->root);
  shorn_buffer_free(&c.pointer);
  mem_free(to->allocator, c.pairs);
  if (!c.nomem) return SHORN_OK;
  why->length = length;
  return SHORN_ERROR_NOMEM;
}

/* ---- the plan ------------------------------------------------------------ */

/* How the walk reads a writer's object for a reader's: the two field lists
 * merged in canonical key order, a step a key. */
typedef enum evolve_step_kind {
  EVOLVE_BOTH, /* a field of each: the value read for the reader's */
  EVOLVE_FROM, /* the writer's alone: passed over */
  EVOLVE_TO    /* the reader's alone: its default, or nothing */
} evolve_step_kind;

typedef struct evolve_step {
  evolve_step_kind kind;
  uint32_t from, to; /* field indexes in the writer's and the reader's object */
  const struct evolve_pair *pair; /* EVOLVE_BOTH: the fields' values, once the plan is made */
  /* The reader's member with its default, `"key":value` as its decoder
   * writes it, for a member the writer left out; NULL when it has none. */
  const char *default_json;
  uint32_t default_length;
} evolve_step;

/* A pair of shapes the walk meets, the writer's and the reader's (neither
 * a ref: their targets). */
typedef struct evolve_pair {
  const shape *from, *to;
  /* The writer's decoder writes what the reader's would: its JSON text is
   * the reader's, byte for byte. */
  bool same;
  evolve_step *steps; /* two objects' merge */
  uint32_t step_count;
  int32_t *branches; /* two unions: the reader's branch of each of the writer's */
} evolve_pair;

struct evolve_plan {
  const shorn_schema *from, *to;
  arena arena;
  evolve_pair *pairs; /* open addressing by the shapes' addresses */
  size_t capacity, count;
};

static size_t evolve_slot(const evolve_plan *p, const shape *w, const shape *r) {
  uint64_t h = ((uint64_t)(uintptr_t)w * 0x9E3779B97F4A7C15u) ^ ((uint64_t)(uintptr_t)r * 0xC2B2AE3D27D4EB4Fu);
  return (size_t)(h >> 17) & (p->capacity - 1);
}

static evolve_pair *evolve_find(const evolve_plan *p, const shape *w, const shape *r) {
  if (!p->capacity) return NULL;
  for (size_t i = evolve_slot(p, w, r);; i = (i + 1) & (p->capacity - 1)) {
    evolve_pair *e = &p->pairs[i];
    if (!e->from) return NULL;
    if (e->from == w && e->to == r) return e;
  }
}

static bool evolve_grow(evolve_plan *p) {
  size_t capacity = p->capacity ? 2 * p->capacity : 64;
  evolve_pair *old = p->pairs, *pairs = mem_calloc(p->to->allocator, capacity, sizeof *pairs);
  if (!pairs) return false;
  size_t old_capacity = p->capacity;
  p->pairs = pairs, p->capacity = capacity;
  for (size_t i = 0; i < old_capacity; i++) {
    if (!old[i].from) continue;
    size_t k = evolve_slot(p, old[i].from, old[i].to);
    while (pairs[k].from) k = (k + 1) & (capacity - 1);
    pairs[k] = old[i];
  }
  mem_free(p->to->allocator, old);
  return true;
}

/* The shapes the reader's side is read through: a nullable's inner shape
 * when the writer's value is not itself nullable. */
static const shape *evolve_target(const shape *s) { return s->kind == SHAPE_REF ? s->u.ref.target : s; }

/* The reader's default for field `f`, as the reader's decoder writes it. */
static shorn_code evolve_default(evolve_plan *p, const field *f, evolve_step *step, shorn_error *error) {
  if (!f->default_value) return SHORN_OK;
  shorn_buffer bytes = {.allocator = p->to->allocator}, json = {.allocator = p->to->allocator};
  uint32_t *depth = mem_calloc(p->to->allocator, p->to->def_count + 1, sizeof *depth);
  shorn_code rc = depth ? encode_default(p->to, f, &bytes, error) : error_nomem(error);
  if (!rc && !buffer_append(&json, f->json_key, f->json_key_length)) rc = error_nomem(error);
  if (!rc) {
    decoder d = {.start = bytes.data, .p = bytes.data, .end = bytes.data + bytes.length, .out = &json,
                 .error = error, .allocator = p->to->allocator, .ref_depth = depth};
    rc = decode_value(&d, f->value);
  }
  mem_free(p->to->allocator, depth);
  if (!rc && !(step->default_json = arena_strdup(&p->arena, (const char *)json.data, json.length)))
    rc = error_nomem(error);
  step->default_length = (uint32_t)json.length;
  shorn_buffer_free(&bytes);
  shorn_buffer_free(&json);
  return rc;
}

static shorn_code evolve_visit(evolve_plan *p, const shape *w, const shape *r, shorn_error *error);

static shorn_code evolve_visit_object(evolve_plan *p, evolve_pair *pair, shorn_error *error) {
  const shape *w = pair->from, *r = pair->to;
  uint32_t nw = w->u.object.count, nr = r->u.object.count, n = 0;
  evolve_step *steps = arena_alloc(&p->arena, ((size_t)nw + nr + 1) * sizeof *steps);
  if (!steps) return error_nomem(error);
  for (uint32_t i = 0, j = 0; i < nw || j < nr;) {
    const field *wf = i < nw ? &w->u.object.fields[i] : NULL, *rf = j < nr ? &r->u.object.fields[j] : NULL;
    int order = !wf ? 1 : !rf ? -1 : utf16_compare(wf->key, wf->key_length, rf->key, rf->key_length);
    evolve_step *step = &steps[n++];
    *step = (evolve_step){.kind = order < 0 ? EVOLVE_FROM : order > 0 ? EVOLVE_TO : EVOLVE_BOTH, .from = i, .to = j};
    shorn_code rc = order >= 0 ? evolve_default(p, rf, step, error) : SHORN_OK;
    if (!rc && order == 0) rc = evolve_visit(p, wf->value, rf->value, error);
    if (rc) return rc;
    i += order <= 0, j += order >= 0;
  }
  /* Pair lookups move the table: find the pair again. */
  pair = evolve_find(p, w, r);
  pair->steps = steps, pair->step_count = n;
  if (w->u.object.extras && r->u.object.extras) return evolve_visit(p, w->u.object.extras, r->u.object.extras, error);
  return SHORN_OK;
}

static shorn_code evolve_visit_union(evolve_plan *p, const shape *w, const shape *r, shorn_error *error) {
  shorn_code rc = SHORN_OK;
  if (w->kind != SHAPE_UNION) {
    int b = evolve_reader_branch(r, w);
    return b < 0 ? SHORN_OK : evolve_visit(p, w, r->u.choice.branches[b], error);
  }
  int32_t *branches = arena_alloc(&p->arena, w->u.choice.count * sizeof *branches);
  if (!branches) return error_nomem(error);
  for (uint32_t i = 0; i < w->u.choice.count && !rc; i++) {
    const shape *wb = evolve_target(w->u.choice.branches[i]);
    branches[i] = r->kind == SHAPE_UNION ? evolve_reader_branch(r, wb) : 0;
    const shape *rb = r->kind == SHAPE_UNION ? (branches[i] < 0 ? NULL : r->u.choice.branches[branches[i]]) : r;
    if (rb) rc = evolve_visit(p, wb, rb, error);
  }
  evolve_find(p, w, r)->branches = branches;
  return rc;
}

/* Enter the pair and every pair below it, once each. */
static shorn_code evolve_visit(evolve_plan *p, const shape *w, const shape *r, shorn_error *error) {
  w = evolve_target(w), r = evolve_target(r);
  if (evolve_find(p, w, r)) return SHORN_OK;
  if ((p->count + 1) * 2 > p->capacity && !evolve_grow(p)) return error_nomem(error);
  size_t k = evolve_slot(p, w, r);
  while (p->pairs[k].from) k = (k + 1) & (p->capacity - 1);
  p->pairs[k] = (evolve_pair){.from = w, .to = r, .same = true};
  p->count++;
  if (r->kind == SHAPE_ANY) return SHORN_OK;
  if (r->kind == SHAPE_NULLABLE)
    return evolve_visit(p, w->kind == SHAPE_NULLABLE ? w->u.inner : w, r->u.inner, error);
  if (w->kind == SHAPE_UNION || r->kind == SHAPE_UNION) return evolve_visit_union(p, w, r, error);
  if (w->kind != r->kind) return SHORN_OK;
  shorn_code rc = SHORN_OK;
  switch (w->kind) {
    case SHAPE_ARRAY:
    case SHAPE_SET: return evolve_visit(p, w->u.array.element, r->u.array.element, error);
    case SHAPE_MAP:
      rc = evolve_visit(p, w->u.map.key, r->u.map.key, error);
      return rc ? rc : evolve_visit(p, w->u.map.value, r->u.map.value, error);
    case SHAPE_TUPLE:
      for (uint32_t i = 0; i < w->u.tuple.count && i < r->u.tuple.count && !rc; i++)
        rc = evolve_visit(p, w->u.tuple.items[i], r->u.tuple.items[i], error);
      return rc || !w->u.tuple.rest || !r->u.tuple.rest ? rc : evolve_visit(p, w->u.tuple.rest, r->u.tuple.rest, error);
    case SHAPE_RECORD: return evolve_visit(p, w->u.record, r->u.record, error);
    case SHAPE_OBJECT: return evolve_visit_object(p, evolve_find(p, w, r), error);
    default: return SHORN_OK;
  }
}

static bool evolve_same(const evolve_plan *p, const shape *w, const shape *r) {
  const evolve_pair *e = evolve_find(p, evolve_target(w), evolve_target(r));
  return e && e->same;
}

/* Whether the writer's JSON text is the reader's, given what is known of
 * the pairs below: every leaf the check lets through writes the same text
 * (an integer as a number, an enum member as a member), so only objects,
 * and the unions and containers above them, differ. */
static bool evolve_still_same(const evolve_plan *p, const evolve_pair *e) {
  const shape *w = e->from, *r = e->to;
  if (r->kind == SHAPE_ANY) return true;
  if (r->kind == SHAPE_NULLABLE) return evolve_same(p, w->kind == SHAPE_NULLABLE ? w->u.inner : w, r->u.inner);
  if (w->kind == SHAPE_NULLABLE) return false;
  if (w->kind == SHAPE_UNION) {
    for (uint32_t i = 0; i < w->u.choice.count; i++) {
      int b = e->branches ? e->branches[i] : -1;
      const shape *rb = r->kind != SHAPE_UNION ? r : b < 0 ? NULL : r->u.choice.branches[b];
      if (!rb || !evolve_same(p, w->u.choice.branches[i], rb)) return false;
    }
    return true;
  }
  if (r->kind == SHAPE_UNION) {
    int b = evolve_reader_branch(r, w);
    return b >= 0 && evolve_same(p, w, r->u.choice.branches[b]);
  }
  if (w->kind != r->kind) return shape_wires[w->kind].form != WIRE_FIELDS && shape_wires[r->kind].form != WIRE_FIELDS &&
                                 shape_wires[w->kind].decodes_to != KIND_ARRAY && shape_wires[w->kind].decodes_to != KIND_OBJECT;
  switch (w->kind) {
    case SHAPE_ARRAY:
    case SHAPE_SET: return evolve_same(p, w->u.array.element, r->u.array.element);
    case SHAPE_MAP: return evolve_same(p, w->u.map.key, r->u.map.key) && evolve_same(p, w->u.map.value, r->u.map.value);
    case SHAPE_TUPLE:
      if (w->u.tuple.count != r->u.tuple.count || !w->u.tuple.rest != !r->u.tuple.rest) return false;
      for (uint32_t i = 0; i < w->u.tuple.count; i++)
        if (!evolve_same(p, w->u.tuple.items[i], r->u.tuple.items[i])) return false;
      return !w->u.tuple.rest || evolve_same(p, w->u.tuple.rest, r->u.tuple.rest);
    case SHAPE_RECORD: return evolve_same(p, w->u.record, r->u.record);
    case SHAPE_OBJECT:
      if (w->u.object.extras && !(r->u.object.extras && evolve_same(p, w->u.object.extras, r->u.object.extras)))
        return false;
      for (uint32_t k = 0; k < e->step_count; k++) {
        const evolve_step *step = &e->steps[k];
        if (step->kind != EVOLVE_BOTH) return false;
        const field *wf = &w->u.object.fields[step->from], *rf = &r->u.object.fields[step->to];
        if ((wf->optional && step->default_json) || !evolve_same(p, wf->value, rf->value)) return false;
      }
      return true;
    default: return true;
  }
}

shorn_code evolve_plan_new(const shorn_schema *from, const shorn_schema *to, evolve_plan **out, shorn_error *error) {
  /* The walk meets only the pairs the check lets through. */
  *out = NULL;
  shorn_buffer why = {.allocator = to->allocator};
  if (evolve_check(from, to, &why)) return error_nomem(error);
  if (why.length) {
    error_set(error, SHORN_ERROR_SCHEMA, "The newer schema cannot read the older one's payloads: %.*s", (int)why.length,
              (const char *)why.data);
    shorn_buffer_free(&why);
    return SHORN_ERROR_SCHEMA;
  }
  evolve_plan *p = mem_calloc(to->allocator, 1, sizeof *p);
  if (!p) return error_nomem(error);
  *p = (evolve_plan){.from = from, .to = to, .arena.allocator = to->allocator};
  shorn_code rc = evolve_visit(p, from->root, to->root, error);
  /* Every pair starts the same and may only stop being so: repeated until
   * nothing changes, a pair reached through a recursive definition sees
   * what its descendants turned out to be. */
  for (bool changed = !rc; changed;) {
    changed = false;
    for (size_t i = 0; i < p->capacity; i++) {
      evolve_pair *e = &p->pairs[i];
      if (e->from && e->same && !evolve_still_same(p, e)) e->same = false, changed = true;
    }
  }
  /* The table moves no more: each object's steps keep their fields' pair. */
  for (size_t i = 0; !rc && i < p->capacity; i++) {
    evolve_pair *e = &p->pairs[i];
    for (uint32_t k = 0; e->from && k < e->step_count; k++) {
      evolve_step *step = &e->steps[k];
      if (step->kind == EVOLVE_BOTH)
        step->pair = evolve_find(p, evolve_target(e->from->u.object.fields[step->from].value),
                                 evolve_target(e->to->u.object.fields[step->to].value));
    }
  }
  if (rc) {
    evolve_plan_free(p);
    return rc;
  }
  *out = p;
  return SHORN_OK;
}

void evolve_plan_free(evolve_plan *p) {
  if (!p) return;
  const shorn_allocator *a = p->to->allocator;
  arena_free(&p->arena);
  mem_free(a, p->pairs);
  mem_free(a, p);
}

/* ---- paths --------------------------------------------------------------- */

static void evolve_settle(const evolve_plan *p, evolve_place *at) {
  if (at->to) at->alike = evolve_same(p, at->from, at->to);
}

evolve_place evolve_root(const evolve_plan *p) {
  evolve_place at = {evolve_target(p->from->root), evolve_target(p->to->root), true};
  evolve_settle(p, &at);
  return at;
}

/* The shape a step from `s` reaches, or NULL where the step is not taken
 * alike in every payload: a nullable's value, a ref's target, past them. */
static const shape *evolve_child(const shape *s, const char *key, size_t n, uint64_t index) {
  while (s->kind == SHAPE_NULLABLE || s->kind == SHAPE_REF) s = s->kind == SHAPE_REF ? s->u.ref.target : s->u.inner;
  if (key) {
    if (s->kind == SHAPE_RECORD) return s->u.record;
    const field *f = s->kind == SHAPE_OBJECT ? object_find_field(s, key, n) : NULL;
    return f ? f->value : NULL;
  }
  if (s->kind == SHAPE_ARRAY || s->kind == SHAPE_SET) return s->u.array.element;
  if (s->kind == SHAPE_TUPLE) return index < s->u.tuple.count ? s->u.tuple.items[index] : s->u.tuple.rest;
  return NULL;
}

bool evolve_path_step(const evolve_plan *p, evolve_place *at, const char *key, size_t n, uint64_t index) {
  const shape *w = at->from ? evolve_child(at->from, key, n, index) : NULL;
  /* Under a dynamic value the reader keeps the writer's as it is. */
  bool dynamic = !at->to || at->to->kind == SHAPE_ANY;
  const shape *r = w && !dynamic ? evolve_child(at->to, key, n, index) : NULL;
  if (!w || (!dynamic && !r)) {
    *at = (evolve_place){NULL, NULL, false};
    return false;
  }
  at->from = evolve_target(w);
  at->to = r ? evolve_target(r) : NULL;
  at->alike = true;
  evolve_settle(p, at);
  return true;
}

/* ---- the walk ------------------------------------------------------------ */

#define EVOLVE_EMIT(d, p, n) \
  do { \
    if ((d)->out && !buffer_append((d)->out, (p), (n))) return error_nomem((d)->error); \
  } while (0)

static shorn_code evolve_read(decoder *d, const evolve_plan *p, const shape *w, const shape *r);

/* Pass over a value of the writer's that the reader does not have, checked
 * as the decoder checks it. */
static shorn_code evolve_pass(decoder *d, const shape *w) {
  shorn_buffer *out = d->out;
  d->out = NULL;
  shorn_code rc = decode_value(d, w);
  d->out = out;
  return rc;
}

/* A Set's or a Map's elements are checked for repeats by the writer's
 * decoder, then read again for the reader. */
static shorn_code evolve_checked_first(decoder *d, const shape *w) {
  const uint8_t *at = d->p;
  shorn_code rc = evolve_pass(d, w);
  d->p = at;
  return rc;
}

static shorn_code evolve_read_pair(decoder *d, const evolve_plan *p, const evolve_pair *e);

/* Items of one pair of shapes: the pair found once, not an item at a time,
 * unless the writer's item is a recursive definition's, whose depth each
 * counts. */
static shorn_code evolve_read_items(decoder *d, const evolve_plan *p, const shape *w, const shape *r, uint64_t count,
                                    bool first) {
  const evolve_pair *e = w->kind == SHAPE_REF ? NULL : evolve_find(p, w, evolve_target(r));
  if (e && d->nesting >= NESTING_MAX - 1) e = NULL;
  for (uint64_t i = 0; i < count; i++) {
    if (!first || i) EVOLVE_EMIT(d, ",", 1);
    shorn_code rc;
    if (e) {
      d->nesting++;
      rc = evolve_read_pair(d, p, e);
      d->nesting--;
    } else {
      rc = evolve_read(d, p, w, r);
    }
    if (rc) return rc;
  }
  return SHORN_OK;
}

/* An object of the writer's as the reader's: its members in the reader's
 * key order, the writer's own passed over, the reader's own given their
 * defaults; extras the reader keeps among them in key order. */
typedef struct evolve_member {
  size_t start, end;
  const char *key;
  size_t key_length;
} evolve_member;

/* The members written from `base` on, the declared ones first and then the
 * extras, each run in key order, put in one key order. */
static shorn_code evolve_merge(decoder *d, size_t base, const evolve_member *m, size_t count, size_t declared) {
  shorn_buffer *out = d->out;
  size_t length = out->length - base;
  unsigned char *copy = mem_alloc(d->allocator, length ? length : 1);
  if (!copy) return error_nomem(d->error);
  memcpy(copy, out->data + base, length);
  out->length = base;
  for (size_t n = 0, i = 0, j = declared; n < count; n++) {
    const evolve_member *next =
        j >= count || (i < declared && utf16_compare(m[i].key, m[i].key_length, m[j].key, m[j].key_length) < 0)
            ? &m[i++]
            : &m[j++];
    if (n) out->data[out->length++] = ',';
    memcpy(out->data + out->length, copy + (next->start - base), next->end - next->start);
    out->length += next->end - next->start;
  }
  mem_free(d->allocator, copy);
  return SHORN_OK;
}

/* The common object, whose members are written as they come: the reader
 * keeps no extras of the writer's, so the reader's key order is the steps'. */
static shorn_code evolve_read_fields(decoder *d, const evolve_plan *p, const evolve_pair *e, const uint8_t *bitmap) {
  const field *wfields = e->from->u.object.fields, *rfields = e->to->u.object.fields;
  shorn_buffer *out = d->out;
  bool comma = false;
  for (const evolve_step *step = e->steps, *end = e->steps + e->step_count; step < end; step++) {
    const field *wf = &wfields[step->from], *rf = &rfields[step->to];
    bool present = step->kind != EVOLVE_TO && field_present(wf, bitmap);
    shorn_code rc = SHORN_OK;
    if (step->kind == EVOLVE_FROM) {
      if (present && (rc = evolve_pass(d, wf->value))) return rc;
      continue;
    }
    if (!present && !step->default_json) continue;
    /* The member's key, or the whole member when it takes its default. */
    const char *member = present ? rf->json_key : step->default_json;
    uint32_t length = present ? rf->json_key_length : step->default_length;
    if (out) {
      if (!buffer_reserve(out, (size_t)length + 1 + TEXT_PAD)) return error_nomem(d->error);
      unsigned char *o = out->data + out->length;
      *o = ',';
      copy_padded(o + comma, member, length);
      out->length += comma + length;
    }
    comma = true;
    if (present)
      rc = step->pair->same ? decode_value(d, wf->value) : evolve_read(d, p, wf->value, rf->value);
    if (rc) return rc;
  }
  return SHORN_OK;
}

/* A member noted for the merge of an open object's declared fields and
 * extras, its list growing as it is read. */
typedef struct evolve_members {
  evolve_member *items;
  size_t count, capacity, base;
} evolve_members;

/* Start a member named key[0..n) in the output; false when memory ran out. */
static bool evolve_member_start(decoder *d, evolve_members *m, const char *key, size_t n) {
  evolve_member *grown = array_grow(d->allocator, m->items, &m->capacity, m->count + 1, sizeof *grown, NULL);
  if (!grown) return false;
  m->items = grown;
  if (m->count && !buffer_byte(d->out, ',')) return false;
  if (!m->count) m->base = d->out->length;
  m->items[m->count] = (evolve_member){d->out->length, 0, key, n};
  return true;
}

/* The writer's extras, checked as its decoder checks them: each kept as
 * one of the reader's, noted in `kept`, or passed over when `kept` is NULL. */
static shorn_code evolve_extras(decoder *d, const evolve_plan *p, const shape *w, const shape *r,
                                evolve_members *kept) {
  uint64_t count;
  shorn_code rc = read_count(d, add_saturating(w->u.object.extras->min_width, 1), "Record size", &count);
  const uint8_t *prev = NULL, *key;
  size_t prev_length = 0, n;
  for (uint64_t i = 0; i < count && !rc; i++) {
    if ((rc = read_string(d, &key, &n))) break;
    if (prev && utf16_compare((const char *)prev, prev_length, (const char *)key, n) >= 0)
      return error_at_offset(d->error, SHORN_ERROR_DECODE, (size_t)(d->p - d->start),
                             "Record keys are out of canonical order");
    if (object_find_field(w, (const char *)key, n))
      return error_at_offset(d->error, SHORN_ERROR_DECODE, (size_t)(d->p - d->start),
                             "Extra property repeats a declared field");
    prev = key, prev_length = n;
    /* An extra the reader declares is the reader's own member, which takes
     * its default: the writer's undeclared member of that name is not it. */
    if (!kept || object_find_field(r, (const char *)key, n)) {
      rc = evolve_pass(d, w->u.object.extras);
      continue;
    }
    if (d->out && (!evolve_member_start(d, kept, (const char *)key, n) ||
                   !buffer_json_string(d->out, (const char *)key, n) || !buffer_byte(d->out, ':')))
      return error_nomem(d->error);
    rc = evolve_read(d, p, w->u.object.extras, r->u.object.extras);
    if (!rc && d->out) kept->items[kept->count++].end = d->out->length;
  }
  return rc;
}

/* An object both of whose versions are open: the declared members and the
 * kept extras noted as they are written, then merged in key order. */
static shorn_code evolve_read_open(decoder *d, const evolve_plan *p, const evolve_pair *e, const uint8_t *bitmap) {
  const shape *w = e->from, *r = e->to;
  evolve_members m = {0};
  shorn_code rc = SHORN_OK;
  for (const evolve_step *step = e->steps, *end = e->steps + e->step_count; step < end && !rc; step++) {
    const field *wf = &w->u.object.fields[step->from], *rf = &r->u.object.fields[step->to];
    bool present = step->kind != EVOLVE_TO && field_present(wf, bitmap);
    if (step->kind == EVOLVE_FROM) {
      if (present) rc = evolve_pass(d, wf->value);
      continue;
    }
    if (!present && !step->default_json) continue;
    if (d->out && (!evolve_member_start(d, &m, rf->key, rf->key_length) ||
                   !buffer_append(d->out, present ? rf->json_key : step->default_json,
                                  present ? rf->json_key_length : step->default_length))) {
      rc = error_nomem(d->error);
      break;
    }
    if (present) rc = evolve_read(d, p, wf->value, rf->value);
    if (!rc && d->out) m.items[m.count++].end = d->out->length;
  }
  size_t declared = m.count;
  if (!rc) rc = evolve_extras(d, p, w, r, &m);
  if (!rc && d->out && declared && m.count > declared) rc = evolve_merge(d, m.base, m.items, m.count, declared);
  mem_free(d->allocator, m.items);
  return rc;
}

static NOINLINE shorn_code evolve_read_object(decoder *d, const evolve_plan *p, const evolve_pair *e) {
  const shape *w = e->from, *r = e->to;
  const uint8_t *bitmap;
  shorn_code rc = read_bitmap(d, w, &bitmap);
  if (rc) return rc;
  EVOLVE_EMIT(d, "{", 1);
  if (w->u.object.extras && r->u.object.extras)
    rc = evolve_read_open(d, p, e, bitmap);
  else if (!(rc = evolve_read_fields(d, p, e, bitmap)) && w->u.object.extras)
    rc = evolve_extras(d, p, w, r, NULL);
  if (rc) return rc;
  EVOLVE_EMIT(d, "}", 1);
  return SHORN_OK;
}

static shorn_code evolve_read_union(decoder *d, const evolve_plan *p, const evolve_pair *e) {
  const shape *w = e->from, *r = e->to;
  if (w->kind != SHAPE_UNION) {
    int b = evolve_reader_branch(r, w);
    if (b < 0) return error_set(d->error, SHORN_ERROR_DECODE, "The writer's value fits no branch of the reader's union");
    return evolve_read(d, p, w, r->u.choice.branches[b]);
  }
  uint64_t u;
  shorn_code rc = read_branch(d, w, &u);
  if (rc) return rc;
  int b = r->kind == SHAPE_UNION ? e->branches[u] : 0;
  if (b < 0) return error_at_offset(d->error, SHORN_ERROR_DECODE, (size_t)(d->p - d->start), "Union branch %llu has no branch in the reader's schema", (unsigned long long)u);
  return evolve_read(d, p, w->u.choice.branches[u], r->kind == SHAPE_UNION ? r->u.choice.branches[b] : r);
}

static shorn_code evolve_read_pair(decoder *d, const evolve_plan *p, const evolve_pair *e) {
  const shape *w = e->from, *r = e->to;
  shorn_code rc;
  uint64_t count;
  if (e->same) return decode_value(d, w);
  if (r->kind == SHAPE_NULLABLE) {
    bool present = true;
    if (w->kind == SHAPE_NULLABLE && (rc = read_marker(d, &present))) return rc;
    if (!present) {
      EVOLVE_EMIT(d, "null", 4);
      return SHORN_OK;
    }
    return evolve_read(d, p, w->kind == SHAPE_NULLABLE ? w->u.inner : w, r->u.inner);
  }
  if (w->kind == SHAPE_UNION || r->kind == SHAPE_UNION) return evolve_read_union(d, p, e);
  switch (w->kind) {
    case SHAPE_OBJECT: return evolve_read_object(d, p, e);
    case SHAPE_ARRAY:
    case SHAPE_SET:
      if (w->kind == SHAPE_SET && (rc = evolve_checked_first(d, w))) return rc;
      if ((rc = read_array_length(d, w, &count))) return rc;
      EVOLVE_EMIT(d, "[", 1);
      if ((rc = evolve_read_items(d, p, w->u.array.element, r->u.array.element, count, true))) return rc;
      EVOLVE_EMIT(d, "]", 1);
      return SHORN_OK;
    case SHAPE_MAP:
      if ((rc = evolve_checked_first(d, w))) return rc;
      if ((rc = read_count(d, add_saturating(w->u.map.key->min_width, w->u.map.value->min_width), "Map size", &count)))
        return rc;
      EVOLVE_EMIT(d, "[", 1);
      for (uint64_t i = 0; i < count; i++) {
        EVOLVE_EMIT(d, i ? ",[" : "[", i ? 2 : 1);
        if ((rc = evolve_read(d, p, w->u.map.key, r->u.map.key))) return rc;
        EVOLVE_EMIT(d, ",", 1);
        if ((rc = evolve_read(d, p, w->u.map.value, r->u.map.value))) return rc;
        EVOLVE_EMIT(d, "]", 1);
      }
      EVOLVE_EMIT(d, "]", 1);
      return SHORN_OK;
    case SHAPE_TUPLE:
      EVOLVE_EMIT(d, "[", 1);
      for (uint32_t i = 0; i < w->u.tuple.count; i++) {
        if (i) EVOLVE_EMIT(d, ",", 1);
        if ((rc = evolve_read(d, p, w->u.tuple.items[i], r->u.tuple.items[i]))) return rc;
      }
      if (w->u.tuple.rest) {
        if ((rc = read_count(d, w->u.tuple.rest->min_width, "Array length", &count))) return rc;
        if ((rc = evolve_read_items(d, p, w->u.tuple.rest, r->u.tuple.rest, count, w->u.tuple.count == 0))) return rc;
      }
      EVOLVE_EMIT(d, "]", 1);
      return SHORN_OK;
    case SHAPE_RECORD: {
      if ((rc = read_count(d, add_saturating(w->u.record->min_width, 1), "Record size", &count))) return rc;
      EVOLVE_EMIT(d, "{", 1);
      const uint8_t *prev = NULL, *key;
      size_t prev_length = 0, n;
      for (uint64_t i = 0; i < count; i++) {
        if ((rc = read_string(d, &key, &n))) return rc;
        if (prev && utf16_compare((const char *)prev, prev_length, (const char *)key, n) >= 0)
          return error_at_offset(d->error, SHORN_ERROR_DECODE, (size_t)(d->p - d->start),
                                 "Record keys are out of canonical order");
        prev = key, prev_length = n;
        if (d->out && ((i && !buffer_byte(d->out, ',')) || !buffer_json_string(d->out, (const char *)key, n) ||
                       !buffer_byte(d->out, ':')))
          return error_nomem(d->error);
        if ((rc = evolve_read(d, p, w->u.record, r->u.record))) return rc;
      }
      EVOLVE_EMIT(d, "}", 1);
      return SHORN_OK;
    }
    default: return decode_value(d, w);
  }
}

/* A value of the writer's shape `w` written as the reader's `r`. */
static shorn_code evolve_read(decoder *d, const evolve_plan *p, const shape *w, const shape *r) {
  if (unlikely(d->nesting == NESTING_MAX))
    return error_at_offset(d->error, SHORN_ERROR_DECODE, (size_t)(d->p - d->start), "Value nests deeper than %d levels", NESTING_MAX);
  shorn_code rc;
  if (w->kind == SHAPE_REF) {
    uint32_t *depth = &d->ref_depth[w->u.ref.index];
    if (*depth == SHORN_MAX_RECURSION)
      return error_at_offset(d->error, SHORN_ERROR_DECODE, (size_t)(d->p - d->start), "Recursive value nests deeper than %d", SHORN_MAX_RECURSION);
    ++*depth;
    rc = evolve_read(d, p, w->u.ref.target, r);
    --*depth;
    return rc;
  }
  const evolve_pair *e = evolve_find(p, w, evolve_target(r));
  if (!e) return error_set(d->error, SHORN_ERROR_DECODE, "The reader's schema cannot read this payload");
  d->nesting++;
  rc = evolve_read_pair(d, p, e);
  d->nesting--;
  return rc;
}

shorn_code evolve_decode(const evolve_plan *p, const uint8_t *data, size_t n, int from_width, shorn_buffer *out,
                         shorn_error *error) {
  if (!n) data = (const uint8_t *)"";
  const shorn_schema *from = p->from;
  uint32_t depth_here[REF_DEPTHS_HERE] = {0};
  decoder d = {.start = data, .p = data, .end = data + n, .out = out, .error = error,
               .allocator = from->allocator, .ref_depth = depth_here};
  shorn_code rc = read_fingerprint(&d, from, from_width);
  if (rc) return rc;
  if (from->def_count > REF_DEPTHS_HERE && !(d.ref_depth = mem_calloc(from->allocator, from->def_count, sizeof *d.ref_depth)))
    return error_nomem(error);
  size_t mark = out ? out->length : 0;
  rc = evolve_read(&d, p, from->root, p->to->root);
  if (!rc && d.p != d.end) rc = error_at_offset(error, SHORN_ERROR_DECODE, (size_t)(d.p - d.start), "Unexpected trailing data");
  if (d.ref_depth != depth_here) mem_free(from->allocator, d.ref_depth);
  if (rc && out) out->length = mark;
  return rc;
}

shorn_code evolve_upgrade(const evolve_plan *p, const uint8_t *data, size_t n, int from_width, int to_width,
                          shorn_buffer *scratch, shorn_buffer *out, shorn_error *error) {
  scratch->length = 0;
  shorn_code rc = evolve_decode(p, data, n, from_width, scratch, error);
  return rc ? rc : shorn_encode_unchecked(p->to, (const char *)scratch->data, scratch->length, to_width, out, error);
}

void evolve_fingerprint(const char *signature, size_t length, int width, uint8_t out[FINGERPRINT_WIDTH_MAX]) {
  uint32_t hashes[FINGERPRINT_WIDTH_MAX + 1];
  shape_fingerprint_hashes(signature, length, hashes);
  for (int i = 0; i < width; i++) out[i] = (uint8_t)(hashes[width] >> (8 * (width - 1 - i)));
}
