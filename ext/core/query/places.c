/*
 * places.c — every place a value of a schema can have, one row each, as
 * json_tree lists the places of one value, so that a path can be checked
 * before an index is built on it.  A nullable value and a union are one row
 * each, the places below listed for each branch (a member two branches
 * have, once for each).  A definition is listed at each place it is used;
 * where it recurs inside itself, the recursion is one row, so every
 * schema's list ends.
 */
#include <stdio.h>
#include <string.h>

#include "places.h"

#include "core/base/memory.h"
#include "core/shape/shape.h"

/* A row's types: a bit each, named in places_type_names' order. */
enum { PLACES_ARRAY = 1, PLACES_BOOLEAN = 2, PLACES_INTEGER = 4, PLACES_NULL = 8, PLACES_NUMBER = 16,
       PLACES_OBJECT = 32, PLACES_STRING = 64, PLACES_ANY = 128 };
static const char *const places_type_names[] = {"array",  "boolean", "integer", "null",
                                                "number", "object",  "string",  "any"};

static unsigned places_scalar_types(const scalar *s) {
  switch (s->type) {
    case JSON_NULL: return PLACES_NULL;
    case JSON_FALSE:
    case JSON_TRUE: return PLACES_BOOLEAN;
    case JSON_NUMBER: return s->number == (double)(int64_t)s->number ? PLACES_INTEGER : PLACES_NUMBER;
    default: return PLACES_STRING;
  }
}

/* The JSON types a value of the shape decodes to. */
static unsigned places_shape_types(const shape *s, int depth) {
  if (depth > NESTING_MAX) return PLACES_ANY;
  unsigned types = 0;
  switch (s->kind) {
    case SHAPE_ANY: return PLACES_ANY;
    case SHAPE_BOOLEAN: return PLACES_BOOLEAN;
    case SHAPE_FLOAT64:
    case SHAPE_FLOAT32: return PLACES_NUMBER;
    case SHAPE_INT:
    case SHAPE_UINT: return PLACES_INTEGER;
    case SHAPE_STRING:
    case SHAPE_UUID:
    case SHAPE_DATETIME:
    case SHAPE_BIGINT:
    case SHAPE_BYTES: return PLACES_STRING;
    case SHAPE_LITERAL: return places_scalar_types(&s->u.literal);
    case SHAPE_ENUM:
      for (uint32_t i = 0; i < s->u.enumeration.count; i++)
        types |= places_scalar_types(&s->u.enumeration.members[i]);
      return types;
    case SHAPE_ARRAY:
    case SHAPE_SET:
    case SHAPE_MAP:
    case SHAPE_TUPLE: return PLACES_ARRAY;
    case SHAPE_OBJECT:
    case SHAPE_RECORD: return PLACES_OBJECT;
    case SHAPE_NULLABLE: return PLACES_NULL | places_shape_types(s->u.inner, depth + 1);
    case SHAPE_UNION:
      for (uint32_t i = 0; i < s->u.choice.count; i++)
        types |= places_shape_types(s->u.choice.branches[i], depth + 1);
      return types;
    case SHAPE_REF: return places_shape_types(s->u.ref.target, depth + 1);
  }
  return PLACES_ANY;
}

/* PLACES_OK, PLACES_NOMEM, or PLACES_TOO_MANY past PLACES_MAX rows. */
static places_code places_add(places *l, const shape *s, bool optional, int64_t leads_to) {
  if (l->count == PLACES_MAX) return PLACES_TOO_MANY;
  places_row *rows = array_grow(l->paths.allocator, l->rows, &l->capacity, l->count + 1, sizeof *rows, NULL);
  if (!rows) return PLACES_NOMEM;
  l->rows = rows;
  rows[l->count++] = (places_row){l->paths.length, l->current.length, places_shape_types(s, 0),
                                  shape_wires[s->kind].name, optional, leads_to};
  return buffer_append(&l->paths, l->current.data, l->current.length) ? PLACES_OK : PLACES_NOMEM;
}

static places_code places_place(places *l, const shape *s, bool optional);
static places_code places_inside(places *l, const shape *s, int64_t row);

/* The place `step` below the current one, of shape s. */
static places_code places_step(places *l, const char *step, size_t n, const shape *s, bool optional) {
  size_t length = l->current.length;
  if (!buffer_append(&l->current, step, n)) return PLACES_NOMEM;
  places_code rc = places_place(l, s, optional);
  l->current.length = length;
  return rc;
}

/* `.key` as json_tree spells a member in a path: bare when a letter then
 * letters and digits, else in quotes. */
static places_code places_member(places *l, const field *f) {
  bool bare = f->key_length && ((f->key[0] | 32) >= 'a' && (f->key[0] | 32) <= 'z');
  for (uint32_t i = 1; bare && i < f->key_length; i++)
    bare = ((f->key[i] | 32) >= 'a' && (f->key[i] | 32) <= 'z') || (f->key[i] >= '0' && f->key[i] <= '9');
  size_t length = l->current.length;
  bool ok = bare ? buffer_byte(&l->current, '.') && buffer_append(&l->current, f->key, f->key_length)
                 : buffer_append(&l->current, ".\"", 2) && buffer_append(&l->current, f->key, f->key_length) &&
                       buffer_byte(&l->current, '"');
  places_code rc = ok ? places_place(l, f->value, f->optional) : PLACES_NOMEM;
  l->current.length = length;
  return rc;
}

static places_code places_tuple(places *l, const shape *s) {
  places_code rc = PLACES_OK;
  for (uint32_t i = 0; i < s->u.tuple.count && rc == PLACES_OK; i++) {
    char step[16];
    snprintf(step, sizeof step, "[%u]", i);
    rc = places_step(l, step, strlen(step), s->u.tuple.items[i], false);
  }
  if (rc == PLACES_OK && s->u.tuple.rest) rc = places_step(l, "[*]", 3, s->u.tuple.rest, false);
  return rc;
}

/* The row of the definition a recursion at s repeats, or -1: s itself, or
 * a nullable's value or a union's branch, may be the recursion. */
static int64_t places_recursion(const places *l, const shape *s) {
  switch (s->kind) {
    case SHAPE_REF: return l->definition_rows[s->u.ref.index];
    case SHAPE_NULLABLE: return places_recursion(l, s->u.inner);
    case SHAPE_UNION:
      for (uint32_t i = 0; i < s->u.choice.count; i++) {
        int64_t row = places_recursion(l, s->u.choice.branches[i]);
        if (row >= 0) return row;
      }
      return -1;
    default: return -1;
  }
}

/* A reference to a definition no place above is listing (the root's, or
 * one used twice side by side) is listed in place; one to a definition
 * listed above is a recursion. */
static const shape *places_in_place(const places *l, const shape *s) {
  return s->kind == SHAPE_REF && l->definition_rows[s->u.ref.index] < 0 ? s->u.ref.target : s;
}

/* The places below a value of shape s, whose own is row `row`. */
static places_code places_below(places *l, const shape *s, int64_t row) {
  places_code rc = PLACES_OK;
  switch (s->kind) {
    case SHAPE_ARRAY:
    case SHAPE_SET: return places_step(l, "[*]", 3, s->u.array.element, false);
    case SHAPE_MAP:
      rc = places_step(l, "[*][0]", 6, s->u.map.key, false);
      return rc == PLACES_OK ? places_step(l, "[*][1]", 6, s->u.map.value, false) : rc;
    case SHAPE_TUPLE: return places_tuple(l, s);
    case SHAPE_OBJECT:
      for (uint32_t i = 0; i < s->u.object.count && rc == PLACES_OK; i++) rc = places_member(l, &s->u.object.fields[i]);
      if (rc == PLACES_OK && s->u.object.extras) rc = places_step(l, ".*", 2, s->u.object.extras, true);
      return rc;
    case SHAPE_RECORD: return places_step(l, ".*", 2, s->u.record, true);
    case SHAPE_NULLABLE: return places_inside(l, s->u.inner, row);
    case SHAPE_UNION:
      for (uint32_t i = 0; i < s->u.choice.count && rc == PLACES_OK; i++)
        rc = places_inside(l, s->u.choice.branches[i], row);
      return rc;
    default: return PLACES_OK;
  }
}

/* The places below a value of shape s at row `row`, s a reference listed
 * in place or any other shape. */
static places_code places_inside(places *l, const shape *s, int64_t row) {
  if (places_in_place(l, s) == s) return places_below(l, s, row);
  uint32_t index = s->u.ref.index;
  l->definition_rows[index] = row;
  places_code rc = places_below(l, s->u.ref.target, row);
  l->definition_rows[index] = -1;
  return rc;
}

/* The row of the place of shape s, then the places below it; a recursion's
 * row names the row of the definition it repeats, above it on its path. */
static places_code places_place(places *l, const shape *s, bool optional) {
  if (++l->depth > NESTING_MAX) return PLACES_TOO_MANY;
  int64_t row = (int64_t)l->count, leads_to = places_recursion(l, s);
  places_code rc = places_add(l, places_in_place(l, s), optional, leads_to);
  if (rc == PLACES_OK && leads_to < 0) rc = places_inside(l, s, row);
  l->depth--;
  return rc;
}

places_code places_list(places *l, const shorn_schema *schema, const shorn_allocator *a) {
  *l = (places){.current.allocator = a, .paths.allocator = a};
  if (schema->def_count) {
    if (!(l->definition_rows = mem_alloc(a, schema->def_count * sizeof *l->definition_rows))) return PLACES_NOMEM;
    for (uint32_t i = 0; i < schema->def_count; i++) l->definition_rows[i] = -1;
  }
  if (!buffer_byte(&l->current, '$')) return PLACES_NOMEM;
  return places_place(l, schema->root, false);
}

void places_free(places *l) {
  const shorn_allocator *a = l->paths.allocator;
  shorn_buffer_free(&l->current);
  shorn_buffer_free(&l->paths);
  mem_free(a, l->rows);
  mem_free(a, l->definition_rows);
  memset(l, 0, sizeof *l);
}

size_t places_types_text(unsigned types, char text[PLACES_TYPES_TEXT]) {
  size_t n = 0;
  for (unsigned i = 0; i < COUNT_OF(places_type_names); i++) {
    if (!(types >> i & 1)) continue;
    size_t length = strlen(places_type_names[i]);
    if (n) text[n++] = '|';
    memcpy(text + n, places_type_names[i], length);
    n += length;
  }
  return n;
}
