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
 * resolved.  evolve_upgrade reads a payload as the writer wrote it, drops
 * the writer's members from its tree as the walk of the two shapes finds
 * them, and writes the tree with the reader's schema, which gives every
 * left-out member its default.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evolve.h"

#include "core/base/memory.h"
#include "core/json/json.h"
#include "core/schema/validate.h"
#include "core/shape/shape.h"
#include "core/text/error.h"
#include "core/wire/encode.h"

/* ---- the check --------------------------------------------------------- */

/* The JSON types a description of each kind names, as a user writes the
 * schema rather than as the wire lays it out. */
static const char *const kind_words[] = {
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
typedef struct checker {
  const shorn_schema *reader;
  shorn_buffer *why;
  shorn_buffer pointer;
  const shape **pairs; /* writer, reader, writer, reader, ... */
  size_t pair_count, pair_capacity;
  bool nomem;
} checker;

static void check_pair(checker *c, const shape *w, const shape *r);

static void refuse(checker *c, const char *format, ...) PRINTF_LIKE(2, 3);
static void refuse(checker *c, const char *format, ...) {
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
static size_t enter(checker *c, const char *keyword, const char *key, size_t n) {
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

static void enter_index(checker *c, const char *keyword, uint32_t i) {
  char digits[16];
  snprintf(digits, sizeof digits, "%u", i);
  enter(c, keyword, digits, strlen(digits));
}

static const shape *deref(const shape *s) { return s->kind == SHAPE_REF ? s->u.ref.target : s; }

/* Has the walk entered this pair already?  If not, it has now. */
static bool entered(checker *c, const shape *w, const shape *r) {
  for (size_t i = 0; i < c->pair_count; i += 2)
    if (c->pairs[i] == w && c->pairs[i + 1] == r) return true;
  const shape **grown = array_grow(c->reader->allocator, c->pairs, &c->pair_capacity, c->pair_count + 2, sizeof *c->pairs, NULL);
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
static bool scalar_fits(const shape *r, const scalar *v) {
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
    case SHAPE_NULLABLE: return v->type == JSON_NULL || scalar_fits(deref(r->u.inner), v);
    default: return false;
  }
}

static void check_scalars(checker *c, const scalar *values, uint32_t count, const shape *r) {
  for (uint32_t i = 0; i < count; i++)
    if (!scalar_fits(r, &values[i])) {
      char quoted[64];
      snprintf(quoted, sizeof quoted, "%.*s", (int)(values[i].json_length > 48 ? 48 : values[i].json_length),
               values[i].json);
      if (r->kind == SHAPE_ENUM || r->kind == SHAPE_LITERAL)
        refuse(c, "the value %s is no longer one of its values", quoted);
      else
        refuse(c, "the value %s cannot be read as %s", quoted, kind_words[r->kind]);
    }
}

/* Leaves that read the same values, or more: an integer as a number, an
 * unsigned integer as a signed one, a float32 as a float64, a UUID or a
 * date-time as a string (a format dropped, as a bound may be). */
static bool leaf_widens(shape_kind w, shape_kind r) {
  return w == r || (r == SHAPE_FLOAT64 && (w == SHAPE_INT || w == SHAPE_UINT || w == SHAPE_FLOAT32)) ||
         (r == SHAPE_INT && w == SHAPE_UINT) || (r == SHAPE_STRING && (w == SHAPE_UUID || w == SHAPE_DATETIME));
}

/* A reader's field the writer does not have, or has optional where the
 * reader requires it: its default, which must be a value of its shape. */
static void check_default(checker *c, const field *f, const char *reason) {
  if (!f->default_value) {
    refuse(c, "%s", reason);
    return;
  }
  shorn_error error;
  shorn_code rc = encode_at(c->reader, f->value, f->default_value, NULL, NULL, &error);
  if (rc == SHORN_ERROR_NOMEM)
    c->nomem = true;
  else if (rc)
    refuse(c, "its default is not a value of its schema: %s", error.message);
}

static void check_object(checker *c, const shape *w, const shape *r) {
  for (uint32_t i = 0; i < r->u.object.count; i++) {
    const field *rf = &r->u.object.fields[i];
    const field *wf = object_find_field(w, rf->key, rf->key_length);
    size_t mark = enter(c, "properties", rf->key, rf->key_length);
    if (!wf && !rf->optional)
      check_default(c, rf, "a new required member needs a default: the older payloads do not have it");
    else if (wf && wf->optional && !rf->optional)
      check_default(c, rf, "an optional member cannot become required without a default: older payloads may lack it");
    if (wf)
      check_pair(c, wf->value, rf->value);
    else if (w->u.object.extras) /* the writer's extras may hold the key */
      check_pair(c, w->u.object.extras, rf->value);
    c->pointer.length = mark;
  }
  if (w->u.object.extras && r->u.object.extras) {
    size_t mark = enter(c, "additionalProperties", NULL, 0);
    check_pair(c, w->u.object.extras, r->u.object.extras);
    c->pointer.length = mark;
  }
}

/* The reader's branch a writer's value of shape `w` lands in, or -1. */
static int reader_branch(const shape *r, const shape *w) {
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
  const shape *tag = f ? deref(f->value) : NULL;
  if (!tag || tag->kind != SHAPE_LITERAL) return -1;
  for (uint32_t i = 0; i < r->u.choice.count; i++)
    if (r->u.choice.cases[i].json_length == tag->u.literal.json_length &&
        !memcmp(r->u.choice.cases[i].json, tag->u.literal.json, tag->u.literal.json_length))
      return (int)i;
  return -1;
}

static void check_union(checker *c, const shape *w, const shape *r) {
  if (w->kind == SHAPE_UNION) {
    for (uint32_t i = 0; i < w->u.choice.count; i++) check_pair(c, w->u.choice.branches[i], r);
    return;
  }
  int b = reader_branch(r, w);
  if (b < 0) {
    refuse(c, "%s fits no branch of the union", kind_words[w->kind]);
    return;
  }
  size_t mark = c->pointer.length;
  enter_index(c, "anyOf", (uint32_t)b);
  check_pair(c, w, r->u.choice.branches[b]);
  c->pointer.length = mark;
}

static void check_pair(checker *c, const shape *w, const shape *r) {
  w = deref(w), r = deref(r);
  if (c->nomem || r->kind == SHAPE_ANY || entered(c, w, r)) return;
  if (r->kind == SHAPE_NULLABLE) {
    check_pair(c, w->kind == SHAPE_NULLABLE ? w->u.inner : w, r->u.inner);
    return;
  }
  if (w->kind == SHAPE_NULLABLE) {
    refuse(c, "null cannot be read: the new schema does not admit it");
    return;
  }
  if (r->kind == SHAPE_UNION || w->kind == SHAPE_UNION) {
    if (r->kind == SHAPE_UNION)
      check_union(c, w, r);
    else
      for (uint32_t i = 0; i < w->u.choice.count; i++) check_pair(c, w->u.choice.branches[i], r);
    return;
  }
  if (w->kind == SHAPE_LITERAL) return check_scalars(c, &w->u.literal, 1, r);
  if (w->kind == SHAPE_ENUM) return check_scalars(c, w->u.enumeration.members, w->u.enumeration.count, r);
  size_t mark = c->pointer.length;
  switch (w->kind == r->kind ? w->kind : SHAPE_ANY) {
    case SHAPE_ARRAY:
    case SHAPE_SET:
      if (r->u.array.length >= 0 && r->u.array.length != w->u.array.length)
        refuse(c, "%s of another length cannot be read as one of a fixed length", kind_words[w->kind]);
      enter(c, "items", NULL, 0);
      check_pair(c, w->u.array.element, r->u.array.element);
      break;
    case SHAPE_MAP:
      enter(c, "items", NULL, 0);
      check_pair(c, w->u.map.key, r->u.map.key);
      check_pair(c, w->u.map.value, r->u.map.value);
      break;
    case SHAPE_TUPLE:
      if (w->u.tuple.count != r->u.tuple.count || (w->u.tuple.rest && !r->u.tuple.rest)) {
        refuse(c, "a tuple of other items cannot be read as this one");
        break;
      }
      for (uint32_t i = 0; i < r->u.tuple.count; i++) {
        enter_index(c, "prefixItems", i);
        check_pair(c, w->u.tuple.items[i], r->u.tuple.items[i]);
        c->pointer.length = mark;
      }
      if (w->u.tuple.rest) {
        enter(c, "items", NULL, 0);
        check_pair(c, w->u.tuple.rest, r->u.tuple.rest);
      }
      break;
    case SHAPE_OBJECT: check_object(c, w, r); break;
    case SHAPE_RECORD:
      enter(c, "additionalProperties", NULL, 0);
      check_pair(c, w->u.record, r->u.record);
      break;
    default:
      if (w->kind == SHAPE_INT && r->kind == SHAPE_UINT)
        refuse(c, "an integer cannot be read as a non-negative one: older payloads may hold a negative number");
      else if (!leaf_widens(w->kind, r->kind) || r->kind == SHAPE_LITERAL || r->kind == SHAPE_ENUM)
        refuse(c, "%s cannot be read as %s", kind_words[w->kind], kind_words[r->kind]);
  }
  c->pointer.length = mark;
}

shorn_code evolve_check(const shorn_schema *writer, const shorn_schema *reader, shorn_buffer *why) {
  checker c = {.reader = reader, .why = why, .pointer.allocator = reader->allocator};
  size_t length = why->length;
  check_pair(&c, writer->root, reader->root);
  shorn_buffer_free(&c.pointer);
  mem_free(reader->allocator, c.pairs);
  if (!c.nomem) return SHORN_OK;
  why->length = length;
  return SHORN_ERROR_NOMEM;
}

/* ---- the upgrade ------------------------------------------------------- */

static bool adapt(const shape *w, const shape *r, json_value *v);

static bool scalar_is(const scalar *s, const json_value *v) {
  if (!v || v->type != s->type) return false;
  if (s->type == JSON_NUMBER) return v->u.number == s->number;
  if (s->type == JSON_STRING) return v->length == s->string_length && !memcmp(v->u.string, s->string, v->length);
  return true;
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

/* The branch of union `s` that holds `v`, as the encoder chooses it. */
static const shape *branch_of(const shape *s, const json_value *v) {
  int b = -1;
  if (s->u.choice.on) {
    const json_value *tag = v->type == JSON_OBJECT ? json_get(v, s->u.choice.on, s->u.choice.on_length) : NULL;
    for (uint32_t i = 0; i < s->u.choice.count && b < 0; i++)
      if (scalar_is(&s->u.choice.cases[i], tag)) b = (int)i;
  } else {
    b = s->u.choice.by_kind[kind_of(v)];
  }
  return b < 0 ? NULL : s->u.choice.branches[b];
}

/* An object's members as the reader has them: the writer's own fields the
 * reader lacks are dropped, and so are the writer's extras when the reader
 * keeps none. */
static bool adapt_object(const shape *w, const shape *r, json_value *v) {
  if (v->type != JSON_OBJECT) return true;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < v->length; i++) {
    json_value *k = &v->u.items[2 * i], *x = k + 1;
    const field *wf = object_find_field(w, k->u.string, k->length);
    const field *rf = object_find_field(r, k->u.string, k->length);
    bool keep = wf ? rf != NULL : rf != NULL || r->u.object.extras != NULL;
    if (!keep) continue;
    if (wf && !adapt(wf->value, rf->value, x)) return false;
    if (!wf && rf && w->u.object.extras && !adapt(w->u.object.extras, rf->value, x)) return false;
    if (!wf && !rf && w->u.object.extras && !adapt(w->u.object.extras, r->u.object.extras, x)) return false;
    if (kept != i) v->u.items[2 * kept] = *k, v->u.items[2 * kept + 1] = *x;
    kept++;
  }
  v->length = kept;
  return true;
}

static bool adapt_items(const shape *w, const shape *r, json_value *v, uint32_t from) {
  for (uint32_t i = from; v->type == JSON_ARRAY && i < v->length; i++)
    if (!adapt(w, r, &v->u.items[i])) return false;
  return true;
}

/* Rewrite the tree `v` of a writer's value in place for the reader: only
 * objects change, so the walk goes down to them.  False when the value
 * fits no branch of a union on the way, which evolve_check rules out. */
static bool adapt(const shape *w, const shape *r, json_value *v) {
  w = deref(w), r = deref(r);
  if (r->kind == SHAPE_NULLABLE) r = deref(r->u.inner);
  if (w->kind == SHAPE_NULLABLE) w = deref(w->u.inner);
  if (v->type == JSON_NULL || r->kind == SHAPE_ANY) return true;
  if (w->kind == SHAPE_UNION && !(w = branch_of(w, v))) return false;
  if (r->kind == SHAPE_UNION && !(r = branch_of(r, v))) return false;
  w = deref(w), r = deref(r);
  if (w->kind != r->kind) return true;
  switch (w->kind) {
    case SHAPE_OBJECT: return adapt_object(w, r, v);
    case SHAPE_RECORD:
      for (uint32_t i = 0; v->type == JSON_OBJECT && i < v->length; i++)
        if (!adapt(w->u.record, r->u.record, &v->u.items[2 * i + 1])) return false;
      return true;
    case SHAPE_ARRAY:
    case SHAPE_SET: return adapt_items(w->u.array.element, r->u.array.element, v, 0);
    case SHAPE_MAP:
      for (uint32_t i = 0; v->type == JSON_ARRAY && i < v->length; i++) {
        json_value *entry = &v->u.items[i];
        if (entry->type != JSON_ARRAY || entry->length != 2) continue;
        if (!adapt(w->u.map.key, r->u.map.key, &entry->u.items[0]) ||
            !adapt(w->u.map.value, r->u.map.value, &entry->u.items[1]))
          return false;
      }
      return true;
    case SHAPE_TUPLE:
      for (uint32_t i = 0; v->type == JSON_ARRAY && i < v->length && i < w->u.tuple.count && i < r->u.tuple.count; i++)
        if (!adapt(w->u.tuple.items[i], r->u.tuple.items[i], &v->u.items[i])) return false;
      return !w->u.tuple.rest || !r->u.tuple.rest || adapt_items(w->u.tuple.rest, r->u.tuple.rest, v, w->u.tuple.count);
    default: return true;
  }
}

shorn_code evolve_upgrade(const shorn_schema *writer, const shorn_schema *reader, const uint8_t *data, size_t n,
                          int writer_width, int reader_width, shorn_buffer *out, shorn_error *error) {
  shorn_buffer json = {.allocator = writer->allocator};
  arena tree = {.allocator = writer->allocator};
  json_value *value;
  shorn_code rc = shorn_decode(writer, data, n, writer_width, &json, error);
  if (!rc) rc = json_parse(&tree, (const char *)json.data, json.length, &value, error);
  if (!rc && !adapt(writer->root, reader->root, value))
    rc = error_set(error, SHORN_ERROR_DECODE, "The payload's value fits no branch of the newer schema's union");
  if (!rc) rc = encode_filled(reader, value, reader_width, out, error);
  arena_free(&tree);
  shorn_buffer_free(&json);
  return rc;
}
