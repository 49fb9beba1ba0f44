/*
 * unions.c — anyOf, oneOf and type arrays of several types to wire shapes,
 * by the steps of docs/format.md#union-schemas, in order: all null, a
 * nullable pair, ArkType's uuid collapsed to one uuid, discriminated by a
 * property that is a distinct const in every branch, disjoint by JSON type,
 * and otherwise refused with what would make the union translatable.
 *
 * The translator's state and the helpers it shares with schema.c are in
 * translator.h; each branch is translated by schema.c as a node of its own,
 * so its definitions are numbered in the document's order.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/memory.h"
#include "core/json/json.h"
#include "core/shape/shape.h"
#include "translator.h"
#include "validate.h"

/* docs/format.md#union-schemas: the type a branch declares (its "type" when a
 * string, else the type of a scalar "const"), or NULL. */
static const char *declared_type(const json_value *type, const json_value *node, uint32_t *length) {
  if (type && type->type == JSON_STRING) {
    *length = type->length;
    return type->u.string;
  }
  const json_value *c = member(node, "const");
  const char *name = !c                                              ? NULL
                     : c->type == JSON_NULL                          ? "null"
                     : c->type == JSON_STRING                        ? "string"
                     : c->type == JSON_NUMBER                        ? "number"
                     : c->type == JSON_TRUE || c->type == JSON_FALSE ? "boolean"
                                                                     : NULL;
  *length = name ? (uint32_t)strlen(name) : 0;
  return name;
}

static bool declares(const union_branch *b, const char *name) {
  uint32_t n;
  const char *d = declared_type(b->type, b->node, &n);
  return d && n == strlen(name) && memcmp(d, name, n) == 0;
}

static shape *nullable_of(translator *t, const json_value *site, shape *inner) {
  if (!inner || shape_admits_null(inner, NULL)) return inner;
  shape *sh = new_shape(t, site, SHAPE_NULLABLE);
  if (!sh) return NULL;
  sh->u.inner = inner;
  return note_origin(t, sh, site) ? sh : NULL;
}

shape *literal_null(translator *t, const json_value *node) {
  shape *sh = new_shape(t, node, SHAPE_LITERAL);
  if (!sh) return NULL;
  const char *json = arena_strdup(&t->schema->arena, "null", 4);
  if (!json) return translator_nomem(t);
  sh->u.literal = (scalar){.type = JSON_NULL, .json = json, .json_length = 4};
  return sh;
}

/* The union's uuid collapse step (docs/format.md#union-schemas): ArkType's
 * uuid, a pattern branch and const branches. */
static bool all_uuid(const union_branch *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (declares(&b[i], "null")) continue;
    const json_value *c = member(b[i].node, "const");
    if (!is_string(member(b[i].node, "format"), "uuid")) return false;
    if (!is_string(b[i].type, "string") && !(c && c->type == JSON_STRING)) return false;
  }
  return true;
}

/* The one uuid shape that stands for ArkType's uuid union checks a value
 * against the branches' keywords: its pattern branch, or its consts. */
static bool uuid_keywords(translator *t, const union_branch *b, uint32_t n, shape *uuid) {
  const json_value **nodes = mem_alloc(t->allocator, (size_t)n * sizeof *nodes);
  if (!nodes) return translator_nomem(t);
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!declares(&b[i], "null")) nodes[count++] = b[i].node;
  validation_compiler *c = &t->compiler;
  c->refused = NULL;
  shorn_code rc = validation_compile_any_of(c, nodes, count, &uuid->keywords);
  if (rc == SHORN_ERROR_SCHEMA) locate(t, c->refused, t->error);
  mem_free(t->allocator, nodes);
  return rc == SHORN_OK;
}

/* SameValueZero for scalars, as an order so that a sort finds repeats. */
static int compare_values(const void *a, const void *b) {
  const json_value *x = *(const json_value *const *)a, *y = *(const json_value *const *)b;
  if (x->type != y->type) return x->type < y->type ? -1 : 1;
  if (x->type == JSON_NUMBER) return (x->u.number > y->u.number) - (x->u.number < y->u.number);
  if (x->type != JSON_STRING) return 0;
  size_t n = x->length < y->length ? x->length : y->length;
  int c = memcmp(x->u.string, y->u.string, n);
  return c ? c : (x->length > y->length) - (x->length < y->length);
}

/* The const of property `key` in every branch, when each is a scalar and no
 * two are equal. */
static bool distinct_cases(property **props, const uint32_t *counts, uint32_t n,
                           const json_value *key, const json_value **cases,
                           const json_value **sorted) {
  for (uint32_t i = 0; i < n; i++) {
    const property *p = find_property(props[i], counts[i], key->u.string, key->length);
    const json_value *c = p && p->value->type == JSON_OBJECT ? member(p->value, "const") : NULL;
    if (!c || !is_scalar(c)) return false;
    cases[i] = sorted[i] = c;
  }
  qsort(sorted, n, sizeof *sorted, compare_values);
  for (uint32_t i = 1; i < n; i++)
    if (compare_values(&sorted[i - 1], &sorted[i]) == 0) return false;
  return true;
}

/* docs/format.md#discriminants: the first of the first branch's keys, in
 * UTF-16 order, that holds a distinct scalar const in every branch; every
 * branch must be an object.  On success *key is set (NULL when there is
 * none) and cases[i] is branch i's const. */
static bool find_discriminant(translator *t, const union_branch *b, uint32_t n, const json_value **key,
                              const json_value **cases) {
  *key = NULL;
  for (uint32_t i = 0; i < n; i++)
    if (!is_string(b[i].type, "object")) return true;
  const json_value *first = member(b[0].node, "properties");
  if (first && first->type != JSON_OBJECT) return not_a_schema(t, first);
  property **props = mem_calloc(t->allocator, n, sizeof *props);
  uint32_t *counts = mem_calloc(t->allocator, n, sizeof *counts);
  const json_value **sorted = mem_calloc(t->allocator, n, sizeof *sorted);
  bool ok = props && counts && sorted;
  if (!ok) translator_nomem(t);
  for (uint32_t i = 0; ok && i < n; i++) {
    const json_value *p = member(b[i].node, "properties");
    ok = sorted_properties(t, p && p->type == JSON_OBJECT ? p : NULL, &props[i], &counts[i]);
  }
  for (uint32_t k = 0; ok && !*key && k < counts[0]; k++)
    if (distinct_cases(props, counts, n, props[0][k].key, cases, sorted)) *key = props[0][k].key;
  for (uint32_t i = 0; props && i < n; i++) mem_free(t->allocator, props[i]);
  mem_free(t->allocator, props);
  mem_free(t->allocator, counts);
  mem_free(t->allocator, sorted);
  return ok;
}

/* A union of n branches, the branch list allocated. */
static shape *new_union(translator *t, const json_value *site, uint32_t n) {
  shape *sh = new_shape(t, site, SHAPE_UNION);
  if (sh && !(sh->u.choice.branches = arena_array(t, n, sizeof *sh->u.choice.branches)))
    return NULL;
  if (sh) sh->u.choice.count = n;
  return sh;
}

/* The union's discriminated step (docs/format.md#union-schemas): branches
 * in the canonical order of their cases. */
static shape *translate_discriminated(translator *t, const json_value *site, const union_branch *b,
                                      uint32_t n, const json_value *key, const json_value **cases) {
  ranked *r = mem_alloc(t->allocator, (size_t)n * sizeof *r);
  if (!r) return translator_nomem(t);
  uint32_t i;
  for (i = 0; i < n && scalar_of(t, cases[i], "Discriminant case", &r[i].value); i++)
    r[i].origin = i;
  shape *sh = i == n ? new_union(t, site, n) : NULL;
  scalar *values = sh ? arena_array(t, n, sizeof *values) : NULL;
  if (values) {
    sort_canonically(r, n);
    sh->u.choice.on = key->u.string;
    sh->u.choice.on_length = key->length;
    sh->u.choice.cases = values;
    for (i = 0; i < n && sh; i++) {
      values[i] = r[i].value;
      if (!(sh->u.choice.branches[i] = translate_branch(t, &b[r[i].origin]))) sh = NULL;
    }
  }
  mem_free(t->allocator, r);
  return values ? sh : NULL;
}

/* A declared type as a JSON kind, "integer" counting as "number". */
static bool kind_named(const char *name, uint32_t n, json_kind *kind) {
  if (n == 7 && memcmp(name, "integer", 7) == 0) name = "number", n = 6;
  for (json_kind k = 0; k < KIND_COUNT; k++)
    if (strlen(json_kind_names[k]) == n && memcmp(json_kind_names[k], name, n) == 0) {
      *kind = k;
      return true;
    }
  return false;
}

/* The union's type-disjoint step (docs/format.md#union-schemas): each
 * branch's JSON kind, looking through one $ref.  *disjoint
 * is false when a branch declares none or two declare the same.  A type
 * name that is not a JSON type is refused here: the reference would list
 * it in the union and no value could ever select that branch. */
static bool disjoint_kinds(translator *t, const union_branch *b, uint32_t n, int8_t by_kind[KIND_COUNT],
                           bool *disjoint) {
  char q[NODE_QUOTE_MAX];
  memset(by_kind, -1, KIND_COUNT);
  *disjoint = false;
  for (uint32_t i = 0; i < n; i++) {
    const json_value *node = b[i].node, *type = b[i].type;
    const json_value *ref = b[i].typed ? NULL : member(node, "$ref");
    if (ref && ref->type == JSON_STRING) {
      if (!(node = resolve_pointer(t, b[i].node, ref->u.string, ref->length))) return false;
      type = member(node, "type");
    }
    uint32_t length;
    const char *name = declared_type(type, node, &length);
    json_kind kind;
    if (!name) return true;
    if (!kind_named(name, length, &kind))
      return refuse_node(t, b[i].node, "Union branch type %s is not a JSON type",
                    quote(q, name, length));
    if (by_kind[kind] >= 0) return true;
    by_kind[kind] = (int8_t)i;
  }
  *disjoint = n > 0;
  return true;
}

static shape *translate_disjoint(translator *t, const json_value *site, const union_branch *b, uint32_t n,
                                 const int8_t by_kind[KIND_COUNT]) {
  shape *sh = new_union(t, site, n);
  json_kind *kinds = sh ? arena_array(t, n, sizeof *kinds) : NULL;
  if (!kinds) return NULL;
  sh->u.choice.types = kinds;
  uint32_t i = 0;
  for (json_kind k = 0; k < KIND_COUNT; k++) {
    if (by_kind[k] < 0) continue;
    kinds[i] = k;
    if (!(sh->u.choice.branches[i++] = translate_branch(t, &b[by_kind[k]]))) return NULL;
  }
  return sh;
}

/* docs/format.md#union-schemas, its steps in order: all null, nullable
 * pair, uuid collapse, discriminated, type-disjoint, refused. */
static shape *translate_union(translator *t, const json_value *site, const union_branch *b, uint32_t n) {
  uint32_t nulls = 0, other = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (b[i].node->type != JSON_OBJECT) return not_a_schema(t, b[i].node);
    if (declares(&b[i], "null"))
      nulls++;
    else
      other = i;
  }
  if (n > 0 && nulls == n) return literal_null(t, site);
  if (n == 2 && nulls == 1) return nullable_of(t, site, translate_branch(t, &b[other]));
  if (n > nulls && all_uuid(b, n)) {
    shape *uuid = new_shape(t, site, SHAPE_UUID);
    if (uuid && !uuid_keywords(t, b, n, uuid)) return NULL;
    return nulls ? nullable_of(t, site, uuid) : uuid;
  }
  const json_value *key, **cases = n ? mem_alloc(t->allocator, (size_t)n * sizeof *cases) : NULL;
  if (n && !cases) return translator_nomem(t);
  bool found = find_discriminant(t, b, n, &key, cases);
  shape *sh = found && key ? translate_discriminated(t, site, b, n, key, cases) : NULL;
  mem_free(t->allocator, cases);
  if (!found || key) return sh;
  int8_t by_kind[KIND_COUNT];
  bool disjoint;
  if (!disjoint_kinds(t, b, n, by_kind, &disjoint)) return NULL;
  if (disjoint) return translate_disjoint(t, site, b, n, by_kind);
  return refuse_node(t, site,
                "Only nullable, discriminated and type-disjoint unions are supported: give the "
                "branches one property that is a distinct const in each, or make no two branches "
                "share a JSON type (integer counts as number)");
}

shape *translate_any_of(translator *t, const json_value *node, const char *keyword,
                        const json_value *list) {
  uint32_t n = list->length;
  if (n == 0) return refuse_node(t, node, "An empty \"%s\" admits no value", keyword);
  union_branch *b = mem_alloc(t->allocator, (size_t)n * sizeof *b);
  if (!b) return translator_nomem(t);
  for (uint32_t i = 0; i < n; i++)
    b[i] = (union_branch){&list->u.items[i], member(&list->u.items[i], "type"), false};
  shape *sh = translate_union(t, node, b, n);
  mem_free(t->allocator, b);
  return sh;
}

/* docs/format.md#type-arrays: all null; one type and null; or two or more
 * distinct types, which mean the anyOf of one copy of the node per type. */
shape *translate_type_array(translator *t, const json_value *node, const json_value *types) {
  char q[NODE_QUOTE_MAX];
  uint32_t n = types->length, nulls = 0;
  const json_value *entry = types->u.items;
  bool integer = false, number = false;
  for (uint32_t i = 0; i < n; i++) nulls += is_string(&entry[i], "null");
  if (n > 0 && nulls == n) return literal_null(t, node);
  if (n == 2 && nulls == 1) {
    union_branch b = {node, &entry[is_string(&entry[0], "null")], true};
    return nullable_of(t, node, translate_branch(t, &b));
  }
  /* Only seven type names exist, so a longer list repeats one or names
   * something else; saying so now keeps the repeat check below short. */
  if (n > 7) return refuse_node(t, node, "A type array lists each JSON Schema type at most once");
  for (uint32_t i = 0; i < n; i++) {
    if (entry[i].type != JSON_STRING)
      return refuse_node(t, node, "A type array holds type names, not %s", describe_node(&entry[i]));
    for (uint32_t j = 0; j < i; j++)
      if (entry[j].length == entry[i].length &&
          memcmp(entry[j].u.string, entry[i].u.string, entry[i].length) == 0)
        return refuse_node(t, node, "The type array repeats %s",
                      quote(q, entry[i].u.string, entry[i].length));
    integer |= is_string(&entry[i], "integer");
    number |= is_string(&entry[i], "number");
  }
  if (n - nulls < 2)
    return refuse_node(t, node,
                  "A type array lists one type and \"null\", or two or more distinct types");
  if (integer && number)
    return refuse_node(t, node,
                  "A type array cannot list both integer and number: an integer is a number");
  union_branch *b = mem_alloc(t->allocator, (size_t)n * sizeof *b);
  if (!b) return translator_nomem(t);
  for (uint32_t i = 0; i < n; i++) b[i] = (union_branch){node, &entry[i], true};
  shape *sh = translate_union(t, node, b, n);
  mem_free(t->allocator, b);
  return sh;
}
