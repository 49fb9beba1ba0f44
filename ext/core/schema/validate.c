/*
 * validate.c — the validation keywords of JSON Schema as Zod 4, Valibot and
 * ArkType write them, and as those validators check them where the schema's
 * text leaves it open: a length counts code points (as JSON Schema and Zod
 * do), multipleOf is Zod's float-safe rule, a pattern is JavaScript's
 * (pattern.c), a format without a pattern is checked as Valibot, the
 * validator that writes one, checks it, but for "uri", which is RFC 3986's
 * absolute URI as JSON Schema defines it (Valibot and Zod ask new URL()).
 *
 * Each keyword of a node (and of the members of its allOf, where Zod writes
 * a string's second pattern) becomes a rule; a value is checked against its
 * node's rules before the encoder writes it, and only the rules for its JSON
 * type look at it.  A keyword whose value is not what draft 2020-12 allows
 * (draft-04's boolean exclusiveMinimum, a maxItems of "3") is no rule, as
 * the structural layer, and the library's vectors, always read it; a
 * pattern that does not compile, a number bound that is not finite and a
 * multipleOf not above 0 refuse the schema, being wrong in every draft.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "validate.h"
#include "equality.h"

#include "core/text/error.h"
#include "core/numbers/number.h"
#include "core/text/text.h"

/* allOf and propertyNames inside each other, as deep as this. */
#define VALIDATION_DEPTH_MAX 64

/* Room for a pattern quoted in a message. */
#define RULE_QUOTE_MAX 72

#define TYPE_BIT(t) (1u << (t))
#define NUMBERS TYPE_BIT(JSON_NUMBER)
#define STRINGS TYPE_BIT(JSON_STRING)
#define ARRAYS TYPE_BIT(JSON_ARRAY)
#define OBJECTS TYPE_BIT(JSON_OBJECT)
#define ALL_TYPES 0x7F

/* properties, patternProperties and additionalProperties of a node no shape
 * holds; only the patterns beside a shape, which holds the rest. */
struct object_applicators {
  const json_value *names; /* "properties", an object; NULL when absent */
  const validation *const *named; /* one for each of its members */
  const json_value *pattern_names; /* "patternProperties", an object; NULL when absent */
  const pattern *const *patterns;
  const validation *const *patterned;
  const validation *additional; /* NULL when absent */
};

struct item_applicators {
  const validation *const *prefix; /* prefixItems */
  uint32_t prefix_count;
  const validation *rest; /* items; NULL when absent */
};

/* ---- compiling ------------------------------------------------------------- */

typedef struct rule_list {
  rule *items;
  uint32_t count;
  size_t capacity;
  uint8_t types;
} rule_list;

static const json_value *validate_keyword(const json_value *node, const char *key) {
  return json_get(node, key, strlen(key));
}

static bool keyword_is(const json_value *v, const char *s) {
  size_t n = strlen(s);
  return v && v->type == JSON_STRING && v->length == n && memcmp(v->u.string, s, n) == 0;
}

static shorn_code validate_refuse(validation_compiler *c, const json_value *at, const char *fmt, ...) PRINTF_LIKE(3, 4);
static shorn_code validate_refuse(validation_compiler *c, const json_value *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(c->error, SHORN_ERROR_SCHEMA, SHORN_WHERE_PATH, -1, fmt, ap);
  va_end(ap);
  c->refused = at;
  return SHORN_ERROR_SCHEMA;
}

static shorn_code validate_add_rule(validation_compiler *c, rule_list *list, rule r, uint8_t types) {
  if (list->count == list->capacity) {
    rule *grown =
        array_grow(c->schema->allocator, list->items, &list->capacity, list->count + 1, sizeof *grown, NULL);
    if (!grown) return error_nomem(c->error);
    list->items = grown;
  }
  list->items[list->count++] = r;
  list->types |= types;
  return SHORN_OK;
}

/* A number keyword, or NULL. */
static const json_value *number_keyword(const json_value *node, const char *name) {
  const json_value *v = validate_keyword(node, name);
  return v && v->type == JSON_NUMBER ? v : NULL;
}

/* A length or count keyword, a non-negative integer (1.0 is one), or NULL.
 * A bound however large is kept as a double: nothing is allocated by it. */
static const json_value *count_keyword(const json_value *node, const char *name) {
  const json_value *v = number_keyword(node, name);
  return v && v->u.number >= 0 && isfinite(v->u.number) && v->u.number == floor(v->u.number) ? v : NULL;
}

/* Whether the node's type is exactly "integer" and it is no enum: then the
 * int or uint shape already keeps a value a safe integer. */
static bool integer_shape(const json_value *node) {
  return keyword_is(validate_keyword(node, "type"), "integer") && !validate_keyword(node, "enum") && !validate_keyword(node, "const");
}

/* Whether a bound says nothing the int or uint shape of a node of type
 * "integer" does not: their safe range, and the uint shape's floor (a
 * minimum of 0, an exclusiveMinimum from -1, which make the shape uint). */
static bool implied_by_integer_shape(rule_kind kind, double b) {
  switch (kind) {
    case RULE_MINIMUM: return b <= -MAX_SAFE_INTEGER || b == 0;
    case RULE_EXCLUSIVE_MINIMUM: return b < -MAX_SAFE_INTEGER || (b >= -1 && b < 0);
    case RULE_MAXIMUM: return b >= MAX_SAFE_INTEGER;
    default: return b > MAX_SAFE_INTEGER;
  }
}

static shorn_code compile_numbers(validation_compiler *c, const json_value *node, bool shaped, rule_list *list) {
  static const struct {
    const char *name;
    rule_kind kind;
  } bounds[] = {{"minimum", RULE_MINIMUM},
                {"exclusiveMinimum", RULE_EXCLUSIVE_MINIMUM},
                {"maximum", RULE_MAXIMUM},
                {"exclusiveMaximum", RULE_EXCLUSIVE_MAXIMUM}};
  bool integer = shaped && integer_shape(node);
  shorn_code rc;
  for (size_t i = 0; i < COUNT_OF(bounds); i++) {
    const json_value *v = number_keyword(node, bounds[i].name);
    if (!v) continue;
    /* 1e400 reads as Infinity, a bound no number meets or every number does. */
    if (!isfinite(v->u.number)) return validate_refuse(c, v, "Invalid \"%s\": must be a finite number", bounds[i].name);
    if (integer && implied_by_integer_shape(bounds[i].kind, v->u.number)) continue;
    if ((rc = validate_add_rule(c, list, (rule){.kind = bounds[i].kind, .bound = v->u.number}, NUMBERS))) return rc;
  }
  const json_value *step = number_keyword(node, "multipleOf");
  if (!step) return SHORN_OK;
  /* JSON Schema requires a step above 0: another is a mistake in the schema,
   * better told at compile time than as every value refused or let through. */
  if (!(step->u.number > 0) || !isfinite(step->u.number))
    return validate_refuse(c, step, "Invalid \"multipleOf\": must be a finite number greater than 0");
  return validate_add_rule(c, list, (rule){.kind = RULE_MULTIPLE_OF, .bound = step->u.number}, NUMBERS);
}

static shorn_code compile_counts(validation_compiler *c, const json_value *node, rule_list *list,
                                 const char *const names[2], const rule_kind kinds[2], uint8_t types) {
  for (int i = 0; i < 2; i++) {
    const json_value *v = count_keyword(node, names[i]);
    shorn_code rc = v ? validate_add_rule(c, list, (rule){.kind = kinds[i], .bound = v->u.number}, types) : SHORN_OK;
    if (rc) return rc;
  }
  return SHORN_OK;
}

static bool has_pattern(const json_value *node, int depth) {
  const json_value *p = validate_keyword(node, "pattern");
  if (p && p->type == JSON_STRING) return true;
  const json_value *all = validate_keyword(node, "allOf");
  for (uint32_t i = 0; depth < VALIDATION_DEPTH_MAX && all && all->type == JSON_ARRAY && i < all->length; i++)
    if (all->u.items[i].type == JSON_OBJECT && has_pattern(&all->u.items[i], depth + 1)) return true;
  return false;
}

static const pattern *compile_pattern(validation_compiler *c, const json_value *p, const json_value *at,
                                      const char *keyword);

static shorn_code compile_strings(validation_compiler *c, const json_value *node, const json_value *top,
                                  rule_list *list) {
  static const char *const names[2] = {"minLength", "maxLength"};
  static const rule_kind kinds[2] = {RULE_MIN_LENGTH, RULE_MAX_LENGTH};
  shorn_code rc = compile_counts(c, node, list, names, kinds, STRINGS);
  if (rc) return rc;
  const json_value *p = validate_keyword(node, "pattern");
  if (p && p->type == JSON_STRING) {
    const pattern *compiled = compile_pattern(c, p, p, "pattern");
    if (!compiled) return c->error->code;
    rule r = {.kind = RULE_PATTERN, .u.pattern = {compiled, p->u.string, p->length}};
    if ((rc = validate_add_rule(c, list, r, STRINGS))) return rc;
  }
  const json_value *f = validate_keyword(node, "format");
  /* Zod writes the pattern its format checks beside it, sometimes in an
   * allOf: the pattern is then what says it. */
  for (size_t i = 0; f && i < FORMAT_COUNT; i++)
    if (keyword_is(f, format_names[i]) && !has_pattern(top, 0))
      return validate_add_rule(c, list, (rule){.kind = RULE_FORMAT, .u.format = (format_kind)i}, STRINGS);
  return SHORN_OK;
}

static shorn_code compile_node(validation_compiler *c, const json_value *node, const json_value *top, bool values,
                               int depth, rule_list *list);

/* A validation of `count` rules, with the summary validation_passes reads. */
static void validate_summarize(validation *v, const rule *rules, uint32_t count, uint8_t types) {
  *v = (validation){.rules = rules, .count = count, .types = types, .numbers_bounded = true, .strings_sized = true,
                    .arrays_sized = true, .low = -INFINITY, .high = INFINITY, .string_bytes_max = UINT64_MAX,
                    .items_max = INFINITY};
  for (uint32_t i = 0; i < count; i++) {
    const rule *r = &rules[i];
    double b = r->bound;
    switch (r->kind) {
      case RULE_MINIMUM:
      case RULE_EXCLUSIVE_MINIMUM:
        if (b > v->low || (b == v->low && r->kind == RULE_EXCLUSIVE_MINIMUM))
          v->low = b, v->low_open = r->kind == RULE_EXCLUSIVE_MINIMUM;
        break;
      case RULE_MAXIMUM:
      case RULE_EXCLUSIVE_MAXIMUM:
        if (b < v->high || (b == v->high && r->kind == RULE_EXCLUSIVE_MAXIMUM))
          v->high = b, v->high_open = r->kind == RULE_EXCLUSIVE_MAXIMUM;
        break;
      case RULE_MIN_LENGTH:
        /* At least 4b - 3 bytes hold at least b code points. */
        if (4 * b - 3 > (double)v->string_bytes_min)
          v->string_bytes_min = 4 * b - 3 < (double)UINT64_MAX ? (uint64_t)(4 * b - 3) : UINT64_MAX;
        break;
      case RULE_MAX_LENGTH:
        if (b < (double)v->string_bytes_max) v->string_bytes_max = (uint64_t)b;
        break;
      case RULE_MIN_ITEMS:
        if (b > v->items_min) v->items_min = b;
        break;
      case RULE_MAX_ITEMS:
        if (b < v->items_max) v->items_max = b;
        break;
      case RULE_MULTIPLE_OF:
        /* A second step is left to the full check. */
        v->numbers_stepped = !v->step && v->numbers_bounded;
        v->numbers_bounded = false;
        v->step = b;
        break;
      case RULE_PATTERN:
      case RULE_FORMAT: v->strings_sized = false; break;
      case RULE_UNIQUE_ITEMS: v->arrays_sized = false; break;
      case RULE_UNEVALUATED_PROPERTIES:
      case RULE_UNEVALUATED_ITEMS: v->collects = true; /* fall through */
      case RULE_ONE_OF_VALUES:
      case RULE_ANY_OF:
      case RULE_NEVER:
      case RULE_TYPE:
      case RULE_SUBSCHEMA:
      case RULE_NOT:
      case RULE_ONE_OF:
      case RULE_IF:
      case RULE_ITEMS:
      case RULE_CONTAINS: v->numbers_bounded = v->numbers_stepped = v->strings_sized = v->arrays_sized = false; break;
      default: break;
    }
  }
}

static validation *validate_new_validation(arena *a, const rule *rules, uint32_t count, uint8_t types) {
  validation *v = arena_alloc(a, sizeof *v);
  if (v) validate_summarize(v, rules, count, types);
  return v;
}

/* A sub-schema's rules as a validation of its own (propertyNames, a union
 * branch); *out NULL when it has none. */
static shorn_code compile_apart(validation_compiler *c, const json_value *node, bool values, int depth,
                                const validation **out) {
  rule_list list = {0};
  shorn_code rc = compile_node(c, node, node, values, depth, &list);
  *out = NULL;
  if (!rc && list.count) {
    rule *rules = arena_alloc(&c->schema->aside, list.count * sizeof *rules);
    if (rules) memcpy(rules, list.items, list.count * sizeof *rules);
    if (!rules || !(*out = validate_new_validation(&c->schema->aside, rules, list.count, list.types)))
      rc = error_nomem(c->error);
  }
  mem_free(c->schema->allocator, list.items);
  return rc;
}

/* A pattern of the schema, compiled once into its engine; NULL with the
 * schema refused or out of memory. */
/* `at` is where a refusal points: the pattern, or the member it names. */
static const pattern *compile_pattern(validation_compiler *c, const json_value *p, const json_value *at,
                                      const char *keyword) {
  shorn_schema *s = c->schema;
  if (!s->patterns && !(s->patterns = pattern_engine_new(s->allocator))) return error_nomem(c->error), NULL;
  const pattern *compiled = NULL;
  char why[SHORN_MESSAGE_MAX / 2];
  shorn_code rc = pattern_compile(s->patterns, p->u.string, p->length, &compiled, why, sizeof why);
  if (rc == SHORN_ERROR_NOMEM) return error_nomem(c->error), NULL;
  if (rc) return validate_refuse(c, at, "Invalid \"%s\": %s", keyword, why), NULL;
  if (s->patterns_shared) {
    pattern_use *use = arena_alloc(&s->arena, sizeof *use);
    if (!use) return pattern_release(compiled), error_nomem(c->error), NULL;
    *use = (pattern_use){compiled, s->pattern_uses};
    s->pattern_uses = use;
    s->pattern_bytes += pattern_bytes(compiled);
  }
  return compiled;
}

static shorn_code compile_general(validation_compiler *c, const json_value *node, int depth, const validation **out);

/* The subschemas of an array validate_keyword (allOf, prefixItems, …), each
 * compiled whole; *count 0 when the keyword is absent or not an array. */
static shorn_code compile_list(validation_compiler *c, const json_value *list, int depth, const validation ***out,
                               uint32_t *count) {
  *out = NULL;
  *count = 0;
  if (!list || list->type != JSON_ARRAY || !list->length) return SHORN_OK;
  const validation **each = arena_alloc(&c->schema->aside, list->length * sizeof *each);
  if (!each) return error_nomem(c->error);
  for (uint32_t i = 0; i < list->length; i++) {
    shorn_code rc = compile_general(c, &list->u.items[i], depth + 1, &each[i]);
    if (rc) return rc;
  }
  *out = each;
  *count = list->length;
  return SHORN_OK;
}

/* The subschemas that are the members of an object validate_keyword (properties,
 * dependentSchemas, …), in its member order; NULL when it has none. */
static shorn_code compile_members(validation_compiler *c, const json_value *object, int depth,
                                  const validation ***out) {
  *out = NULL;
  if (!object || object->type != JSON_OBJECT || !object->length) return SHORN_OK;
  const validation **each = arena_alloc(&c->schema->aside, object->length * sizeof *each);
  if (!each) return error_nomem(c->error);
  for (uint32_t i = 0; i < object->length; i++) {
    shorn_code rc = compile_general(c, &object->u.items[2 * i + 1], depth + 1, &each[i]);
    if (rc) return rc;
  }
  *out = each;
  return SHORN_OK;
}

static shorn_code validate_add_sub(validation_compiler *c, rule_list *list, rule_kind kind, const json_value *node,
                          int depth, uint8_t types) {
  rule r = {.kind = kind};
  shorn_code rc = compile_general(c, node, depth + 1, &r.u.sub);
  return rc ? rc : validate_add_rule(c, list, r, types);
}

/* contains, with minContains and maxContains, which say nothing alone. */
static shorn_code compile_contains(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  const json_value *contains = validate_keyword(node, "contains");
  if (!contains) return SHORN_OK;
  const json_value *min = count_keyword(node, "minContains"), *max = count_keyword(node, "maxContains");
  rule r = {.kind = RULE_CONTAINS, .bound = min ? min->u.number : 1, .u.contains.most = max ? max->u.number : INFINITY};
  shorn_code rc = compile_general(c, contains, depth + 1, &r.u.contains.sub);
  return rc ? rc : validate_add_rule(c, list, r, ARRAYS);
}

/* dependentRequired and dependentSchemas, and draft 2019's "dependencies",
 * which holds either kind by member: the required rule reads the members
 * that are arrays, the schema rule the rest. */
static shorn_code compile_dependents(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  static const char *const keywords[][2] = {{"dependentRequired", NULL}, {NULL, "dependentSchemas"},
                                            {"dependencies", "dependencies"}};
  for (size_t i = 0; i < COUNT_OF(keywords); i++) {
    const json_value *fields = keywords[i][0] ? validate_keyword(node, keywords[i][0]) : NULL,
                     *schemas = keywords[i][1] ? validate_keyword(node, keywords[i][1]) : NULL;
    shorn_code rc;
    if (fields && fields->type == JSON_OBJECT && fields->length &&
        (rc = validate_add_rule(c, list, (rule){.kind = RULE_DEPENDENT_REQUIRED, .u.dependent.object = fields}, OBJECTS)))
      return rc;
    rule r = {.kind = RULE_DEPENDENT_SCHEMAS, .u.dependent.object = schemas};
    if ((rc = compile_members(c, schemas, depth, (const validation ***)&r.u.dependent.schemas))) return rc;
    if (r.u.dependent.schemas && (rc = validate_add_rule(c, list, r, OBJECTS))) return rc;
  }
  return SHORN_OK;
}

/* properties, patternProperties and additionalProperties: with
 * `patterns_only`, patternProperties alone, beside a shape that holds the
 * declared members. */
static shorn_code compile_property_schemas(validation_compiler *c, const json_value *node, int depth,
                                           bool patterns_only, rule_list *list) {
  const json_value *named = patterns_only ? NULL : validate_keyword(node, "properties"),
                   *patterned = validate_keyword(node, "patternProperties"),
                   *additional = patterns_only ? NULL : validate_keyword(node, "additionalProperties");
  bool has_patterns = patterned && patterned->type == JSON_OBJECT && patterned->length;
  if (!(named && named->type == JSON_OBJECT && named->length) && !has_patterns && !additional) return SHORN_OK;
  object_applicators *o = arena_alloc(&c->schema->aside, sizeof *o);
  if (!o) return error_nomem(c->error);
  *o = (object_applicators){.names = named};
  shorn_code rc;
  if ((rc = compile_members(c, named, depth, (const validation ***)&o->named))) return rc;
  if (has_patterns) {
    const pattern **patterns = arena_alloc(&c->schema->aside, patterned->length * sizeof *patterns);
    if (!patterns) return error_nomem(c->error);
    for (uint32_t i = 0; i < patterned->length; i++)
      if (!(patterns[i] = compile_pattern(c, &patterned->u.items[2 * i], &patterned->u.items[2 * i + 1],
                                          "patternProperties")))
        return c->error->code;
    o->patterns = patterns;
    o->pattern_names = patterned;
    if ((rc = compile_members(c, patterned, depth, (const validation ***)&o->patterned))) return rc;
  }
  if (additional && (rc = compile_general(c, additional, depth + 1, &o->additional))) return rc;
  return validate_add_rule(c, list, (rule){.kind = RULE_PROPERTIES, .u.object = o}, OBJECTS);
}

static shorn_code compile_item_schemas(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  const json_value *prefix = validate_keyword(node, "prefixItems"), *rest = validate_keyword(node, "items");
  if (!(prefix && prefix->type == JSON_ARRAY && prefix->length) && !rest) return SHORN_OK;
  item_applicators *a = arena_alloc(&c->schema->aside, sizeof *a);
  if (!a) return error_nomem(c->error);
  *a = (item_applicators){0};
  shorn_code rc = compile_list(c, prefix, depth, (const validation ***)&a->prefix, &a->prefix_count);
  if (!rc && rest) rc = compile_general(c, rest, depth + 1, &a->rest);
  return rc ? rc : validate_add_rule(c, list, (rule){.kind = RULE_ITEMS, .u.items = a}, ARRAYS);
}

static shorn_code compile_arrays(validation_compiler *c, const json_value *node, bool shaped, int depth,
                                 rule_list *list) {
  const json_value *min = count_keyword(node, "minItems"), *max = count_keyword(node, "maxItems"),
                   *unique = validate_keyword(node, "uniqueItems");
  shorn_code rc;
  /* An array of fixed length keeps its count in its shape. */
  bool fixed = shaped && min && max && min->u.number == max->u.number &&
               keyword_is(validate_keyword(node, "type"), "array") && !validate_keyword(node, "prefixItems") &&
               !validate_keyword(node, "x-shorn");
  if (min && !fixed && (rc = validate_add_rule(c, list, (rule){.kind = RULE_MIN_ITEMS, .bound = min->u.number}, ARRAYS)))
    return rc;
  if (max && !fixed && (rc = validate_add_rule(c, list, (rule){.kind = RULE_MAX_ITEMS, .bound = max->u.number}, ARRAYS)))
    return rc;
  /* A Set's elements are unique as a JavaScript Set tells them apart,
   * which its shape checks. */
  if (unique && unique->type == JSON_TRUE && !(shaped && keyword_is(validate_keyword(node, "x-shorn"), "set")) &&
      (rc = validate_add_rule(c, list, (rule){.kind = RULE_UNIQUE_ITEMS}, ARRAYS)))
    return rc;
  if ((rc = compile_contains(c, node, depth, list))) return rc;
  return shaped ? SHORN_OK : compile_item_schemas(c, node, depth, list);
}

static shorn_code compile_objects(validation_compiler *c, const json_value *node, bool shaped, int depth,
                                  rule_list *list) {
  static const char *const names[2] = {"minProperties", "maxProperties"};
  static const rule_kind kinds[2] = {RULE_MIN_PROPERTIES, RULE_MAX_PROPERTIES};
  shorn_code rc = compile_counts(c, node, list, names, kinds, OBJECTS);
  if (rc) return rc;
  const json_value *names_node = validate_keyword(node, "propertyNames");
  if (names_node && names_node->type == JSON_FALSE) {
    if ((rc = validate_add_rule(c, list, (rule){.kind = RULE_PROPERTY_NAMES}, OBJECTS))) return rc;
  } else if (names_node && names_node->type == JSON_OBJECT) {
    const validation *v;
    if ((rc = compile_general(c, names_node, depth + 1, &v))) return rc;
    if (v->count && (rc = validate_add_rule(c, list, (rule){.kind = RULE_PROPERTY_NAMES, .u.names = v}, OBJECTS)))
      return rc;
  }
  if ((rc = compile_dependents(c, node, depth, list)) ||
      (rc = compile_property_schemas(c, node, depth, shaped, list)))
    return rc;
  /* With "properties", "required" makes fields required in the shape;
   * without (a record, ArkType's and Zod's enum-keyed ones), it is a rule. */
  const json_value *props = validate_keyword(node, "properties"), *required = validate_keyword(node, "required");
  bool held = shaped && props && props->type == JSON_OBJECT && props->length;
  if (held || !required || required->type != JSON_ARRAY || !required->length) return SHORN_OK;
  return validate_add_rule(c, list, (rule){.kind = RULE_REQUIRED, .u.required = required}, OBJECTS);
}

static bool holds_values(const json_value *v) { return v->type == JSON_ARRAY || v->type == JSON_OBJECT; }

/* const and enum; beside a shape, only an enum with an array or an object
 * among its values, which no enum shape holds. */
static shorn_code compile_values(validation_compiler *c, const json_value *node, bool shaped, rule_list *list) {
  const json_value *one = validate_keyword(node, "const"), *many = validate_keyword(node, "enum");
  rule r = {.kind = RULE_ONE_OF_VALUES};
  if (one && !shaped) {
    r.u.one_of.values = one;
    r.u.one_of.count = 1;
    r.bound = 1; /* for the message: a const, not an enum of one */
  } else if (many && many->type == JSON_ARRAY && !(shaped && one)) {
    bool containers = false;
    for (uint32_t i = 0; i < many->length && !containers; i++) containers = holds_values(&many->u.items[i]);
    if (shaped && !containers) return SHORN_OK;
    r.u.one_of.values = many->u.items;
    r.u.one_of.count = many->length;
  } else {
    return SHORN_OK;
  }
  return validate_add_rule(c, list, r, ALL_TYPES);
}

static uint8_t type_bits(const json_value *name) {
  static const struct {
    const char *name;
    uint8_t bits;
  } types[] = {{"null", TYPE_BIT(JSON_NULL)},    {"boolean", TYPE_BIT(JSON_FALSE) | TYPE_BIT(JSON_TRUE)},
               {"number", NUMBERS},              {"integer", TYPE_INTEGER_BIT},
               {"string", STRINGS},              {"array", ARRAYS},
               {"object", OBJECTS}};
  for (size_t i = 0; i < COUNT_OF(types); i++)
    if (keyword_is(name, types[i].name)) return types[i].bits;
  return 0;
}

static shorn_code compile_type(validation_compiler *c, const json_value *node, rule_list *list) {
  const json_value *type = validate_keyword(node, "type");
  if (!type) return SHORN_OK;
  uint8_t bits = 0;
  const json_value *names = type->type == JSON_ARRAY ? type->u.items : type;
  uint32_t count = type->type == JSON_ARRAY ? type->length : 1;
  for (uint32_t i = 0; i < count; i++) {
    uint8_t b = type_bits(&names[i]);
    if (!b) return validate_refuse(c, &names[i], "Unsupported JSON Schema type: \"type\" names null, boolean, number, integer, string, array or object");
    bits |= b;
  }
  return validate_add_rule(c, list, (rule){.kind = RULE_TYPE, .u.types = bits}, ALL_TYPES);
}

/* The keywords no wire shape stands for, beside a shape or in place of one. */
static shorn_code compile_conditions(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  const json_value *not = validate_keyword(node, "not"), *when = validate_keyword(node, "if");
  shorn_code rc;
  if (not && (rc = validate_add_sub(c, list, RULE_NOT, not, depth, ALL_TYPES))) return rc;
  if (!when) return SHORN_OK;
  const json_value *then = validate_keyword(node, "then"), *otherwise = validate_keyword(node, "else");
  rule r = {.kind = RULE_IF};
  if ((rc = compile_general(c, when, depth + 1, &r.u.condition.when)) ||
      (then && (rc = compile_general(c, then, depth + 1, &r.u.condition.then))) ||
      (otherwise && (rc = compile_general(c, otherwise, depth + 1, &r.u.condition.otherwise))))
    return rc;
  return validate_add_rule(c, list, r, ALL_TYPES);
}

/* The keywords an allOf member may hold and still join its node's rules:
 * those the rules above read, and those that say nothing of a value. */
static bool plain_member(const json_value *node) {
  static const char *const plain[] = {
      "minimum",      "exclusiveMinimum", "maximum",  "exclusiveMaximum", "multipleOf",       "minLength",
      "maxLength",    "pattern",          "format",   "minItems",         "maxItems",         "minProperties",
      "maxProperties", "allOf",           "$comment", "title",            "description",      "default",
      "examples",     "deprecated",       "readOnly", "writeOnly",        "contentEncoding",  "contentMediaType"};
  if (node->type != JSON_OBJECT) return node->type == JSON_TRUE;
  for (uint32_t i = 0; i < node->length; i++) {
    const json_value *k = &node->u.items[2 * i];
    size_t j = 0;
    while (j < COUNT_OF(plain) && !keyword_is(k, plain[j])) j++;
    if (j == COUNT_OF(plain)) return false;
  }
  return true;
}

/* `top` is the node whose allOf this is part of: a format defers to a
 * pattern anywhere in it.  With `values`, const and enum are rules too. */
static shorn_code compile_node(validation_compiler *c, const json_value *node, const json_value *top, bool values,
                               int depth, rule_list *list) {
  if (depth > VALIDATION_DEPTH_MAX)
    return validate_refuse(c, node, "Subschemas nest deeper than %d levels", VALIDATION_DEPTH_MAX);
  shorn_code rc;
  if ((rc = compile_numbers(c, node, true, list)) || (rc = compile_strings(c, node, top, list)) ||
      (rc = compile_arrays(c, node, true, depth, list)) || (rc = compile_objects(c, node, true, depth, list)) ||
      (rc = compile_values(c, node, !values, list)) || (rc = compile_conditions(c, node, depth, list)))
    return rc;
  const json_value *all = validate_keyword(node, "allOf");
  for (uint32_t i = 0; all && all->type == JSON_ARRAY && i < all->length; i++) {
    const json_value *m = &all->u.items[i];
    if (plain_member(m)) {
      if (m->type == JSON_OBJECT && (rc = compile_node(c, m, top, values, depth + 1, list))) return rc;
    } else if ((rc = validate_add_sub(c, list, RULE_SUBSCHEMA, m, depth, ALL_TYPES))) {
      return rc;
    }
  }
  return SHORN_OK;
}

/* ---- subschemas compiled whole ---------------------------------------------- */

struct compiled_node {
  const json_value *node;
  validation *rules;
};

static struct compiled_node *compiled_slot(const validation_compiler *c, const json_value *node) {
  size_t mask = c->compiled_capacity - 1;
  size_t i = key_hash((const char *)&node, sizeof node) & mask;
  while (c->compiled[i].node && c->compiled[i].node != node) i = (i + 1) & mask;
  return &c->compiled[i];
}

/* The node's entry, a new one holding an empty validation the compile
 * will fill; NULL when out of memory. */
static struct compiled_node *compiled_entry(validation_compiler *c, const json_value *node, bool *found) {
  if (2 * (c->compiled_count + 1) > c->compiled_capacity) {
    size_t size = c->compiled_capacity ? 2 * c->compiled_capacity : 16;
    struct compiled_node *old = c->compiled, *grown = mem_calloc(c->schema->allocator, size, sizeof *grown);
    if (!grown) return NULL;
    size_t old_size = c->compiled_capacity;
    c->compiled = grown;
    c->compiled_capacity = size;
    for (size_t i = 0; i < old_size; i++)
      if (old[i].node) *compiled_slot(c, old[i].node) = old[i];
    mem_free(c->schema->allocator, old);
  }
  struct compiled_node *slot = compiled_slot(c, node);
  *found = slot->node != NULL;
  if (*found) return slot;
  validation *v = arena_alloc(&c->schema->aside, sizeof *v);
  if (!v) return NULL;
  *v = (validation){0};
  *slot = (struct compiled_node){node, v};
  c->compiled_count++;
  return slot;
}

static shorn_code compile_reference(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  const json_value *ref = validate_keyword(node, "$ref");
  static const char *const dynamic[] = {"$dynamicRef", "$recursiveRef"};
  for (size_t i = 0; i < COUNT_OF(dynamic); i++) {
    const json_value *d = validate_keyword(node, dynamic[i]);
    if (d && !c->uncheckable) c->uncheckable = d, c->uncheckable_keyword = dynamic[i];
  }
  if (!ref || ref->type != JSON_STRING) return SHORN_OK;
  const json_value *target = c->resolve ? c->resolve(c->resolve_context, ref, ref->u.string, ref->length) : NULL;
  if (!target) {
    if (c->error->code == SHORN_ERROR_NOMEM) return SHORN_ERROR_NOMEM;
    if (!c->uncheckable) c->uncheckable = ref, c->uncheckable_keyword = "$ref";
    return SHORN_OK;
  }
  return validate_add_sub(c, list, RULE_SUBSCHEMA, target, depth, ALL_TYPES);
}

static shorn_code compile_combinators(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  static const struct {
    const char *name;
    rule_kind kind;
  } combinators[] = {{"anyOf", RULE_ANY_OF}, {"oneOf", RULE_ONE_OF}};
  shorn_code rc;
  const json_value *all = validate_keyword(node, "allOf");
  for (uint32_t i = 0; all && all->type == JSON_ARRAY && i < all->length; i++)
    if ((rc = validate_add_sub(c, list, RULE_SUBSCHEMA, &all->u.items[i], depth, ALL_TYPES))) return rc;
  for (size_t i = 0; i < COUNT_OF(combinators); i++) {
    rule r = {.kind = combinators[i].kind};
    if ((rc = compile_list(c, validate_keyword(node, combinators[i].name), depth,
                           (const validation ***)&r.u.any_of.alternatives, &r.u.any_of.count)))
      return rc;
    if (r.u.any_of.count && (rc = validate_add_rule(c, list, r, ALL_TYPES))) return rc;
  }
  return SHORN_OK;
}

/* unevaluatedProperties and unevaluatedItems, last: they read what the
 * rules before them evaluated. */
static shorn_code compile_unevaluated(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  const json_value *properties = validate_keyword(node, "unevaluatedProperties"), *items = validate_keyword(node, "unevaluatedItems");
  shorn_code rc;
  if (properties && (rc = validate_add_sub(c, list, RULE_UNEVALUATED_PROPERTIES, properties, depth, OBJECTS))) return rc;
  return items ? validate_add_sub(c, list, RULE_UNEVALUATED_ITEMS, items, depth, ARRAYS) : SHORN_OK;
}

static void validate_summarize(validation *v, const rule *rules, uint32_t count, uint8_t types);

static shorn_code compile_keywords(validation_compiler *c, const json_value *node, int depth, rule_list *list) {
  shorn_code rc;
  if ((rc = compile_type(c, node, list)) || (rc = compile_values(c, node, false, list)) ||
      (rc = compile_numbers(c, node, false, list)) || (rc = compile_strings(c, node, node, list)) ||
      (rc = compile_arrays(c, node, false, depth, list)) || (rc = compile_objects(c, node, false, depth, list)) ||
      (rc = compile_conditions(c, node, depth, list)) || (rc = compile_reference(c, node, depth, list)) ||
      (rc = compile_combinators(c, node, depth, list)))
    return rc;
  return compile_unevaluated(c, node, depth, list);
}

/* Every keyword of a node no shape holds, as draft 2020-12 defines it:
 * true, or an object of no keywords, passes every value. */
static shorn_code compile_general(validation_compiler *c, const json_value *node, int depth, const validation **out) {
  if (depth > VALIDATION_DEPTH_MAX)
    return validate_refuse(c, node, "Subschemas nest deeper than %d levels", VALIDATION_DEPTH_MAX);
  bool found;
  struct compiled_node *entry = compiled_entry(c, node, &found);
  if (!entry) return error_nomem(c->error);
  validation *v = entry->rules; /* the table may move below, the validation not */
  *out = v;
  if (found) return SHORN_OK;
  rule_list list = {0};
  shorn_code rc = SHORN_OK;
  if (node->type == JSON_FALSE)
    rc = validate_add_rule(c, &list, (rule){.kind = RULE_NEVER}, ALL_TYPES);
  else if (node->type == JSON_OBJECT)
    rc = compile_keywords(c, node, depth, &list);
  if (!rc && list.count) {
    rule *rules = arena_alloc(&c->schema->aside, list.count * sizeof *rules);
    if (rules) {
      memcpy(rules, list.items, list.count * sizeof *rules);
      validate_summarize(v, rules, list.count, list.types);
    } else {
      rc = error_nomem(c->error);
    }
  }
  mem_free(c->schema->allocator, list.items);
  return rc;
}

/* Whether a node's keywords ask for the node to be checked whole, its
 * shape notwithstanding: what unevaluated* reads comes from every keyword
 * beside it. */
static bool checked_whole(const json_value *node) {
  return validate_keyword(node, "unevaluatedProperties") || validate_keyword(node, "unevaluatedItems");
}

shorn_code validation_compile(validation_compiler *c, const json_value *node, bool shapeless,
                              const validation **out) {
  if (!shapeless && !checked_whole(node)) return compile_apart(c, node, false, 0, out);
  const validation *v;
  shorn_code rc = compile_general(c, node, 0, &v);
  *out = NULL;
  if (rc || !v->count) return rc;
  /* One subschema rule: the shape's own check then never gathers what
   * unevaluated* reads, only a subschema does. */
  rule *r = arena_alloc(&c->schema->aside, sizeof *r);
  if (!r) return error_nomem(c->error);
  *r = (rule){.kind = RULE_SUBSCHEMA, .u.sub = v};
  return (*out = validate_new_validation(&c->schema->aside, r, 1, v->types)) ? SHORN_OK : error_nomem(c->error);
}

void validation_compiler_release(validation_compiler *c) {
  mem_free(c->schema->allocator, c->compiled);
  c->compiled = NULL;
  c->compiled_count = 0;
  c->compiled_capacity = 0;
}

shorn_code validation_compile_any_of(validation_compiler *c, const json_value *const *branches, uint32_t count,
                                     const validation **out) {
  *out = NULL;
  const validation **alternatives = arena_alloc(&c->schema->aside, count * sizeof *alternatives);
  rule *r = arena_alloc(&c->schema->aside, sizeof *r);
  if (!alternatives || !r) return error_nomem(c->error);
  uint8_t types = 0;
  for (uint32_t i = 0; i < count; i++) {
    shorn_code rc = compile_apart(c, branches[i], true, 0, &alternatives[i]);
    if (rc) return rc;
    /* A branch without keywords accepts whatever the shape does. */
    if (!alternatives[i]) return SHORN_OK;
    types |= alternatives[i]->types;
  }
  *r = (rule){.kind = RULE_ANY_OF, .u.any_of = {alternatives, count}};
  return (*out = validate_new_validation(&c->schema->aside, r, 1, types)) ? SHORN_OK : error_nomem(c->error);
}

const validation *validation_join(arena *a, const validation *first, const validation *second) {
  if (!first || !second) return first ? first : second;
  rule *rules = arena_alloc(a, (first->count + second->count) * sizeof *rules);
  if (!rules) return NULL;
  memcpy(rules, first->rules, first->count * sizeof *rules);
  memcpy(rules + first->count, second->rules, second->count * sizeof *rules);
  return validate_new_validation(a, rules, first->count + second->count, (uint8_t)(first->types | second->types));
}

/* ---- checking -------------------------------------------------------------- */

static shorn_code refuse_value(shorn_error *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
static shorn_code refuse_value(shorn_error *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(e, SHORN_ERROR_ENCODE, SHORN_WHERE_PATH, -1, fmt, ap);
  va_end(ap);
  return SHORN_ERROR_ENCODE;
}

static const char *validate_plural(double n) { return n == 1 ? "" : "s"; }

static shorn_code validate_check_number(const rule *r, double x, shorn_error *e) {
  char bound[NUMBER_TEXT_MAX];
  bool ok;
  switch (r->kind) {
    case RULE_MINIMUM: ok = x >= r->bound; break;
    case RULE_EXCLUSIVE_MINIMUM: ok = x > r->bound; break;
    case RULE_MAXIMUM: ok = x <= r->bound; break;
    case RULE_EXCLUSIVE_MAXIMUM: ok = x < r->bound; break;
    default: ok = validation_is_multiple(x, r->bound); break;
  }
  if (ok) return SHORN_OK;
  number_format(r->bound, bound);
  switch (r->kind) {
    case RULE_MINIMUM: return refuse_value(e, "Too small: expected at least %s", bound);
    case RULE_EXCLUSIVE_MINIMUM: return refuse_value(e, "Too small: expected more than %s", bound);
    case RULE_MAXIMUM: return refuse_value(e, "Too big: expected at most %s", bound);
    case RULE_EXCLUSIVE_MAXIMUM: return refuse_value(e, "Too big: expected less than %s", bound);
    default: return refuse_value(e, "Expected a multiple of %s", bound);
  }
}

static shorn_code validate_check_string(validator *v, const rule *r, const json_value *s, shorn_error *e) {
  char bound[NUMBER_TEXT_MAX], quoted[RULE_QUOTE_MAX];
  switch (r->kind) {
    case RULE_MIN_LENGTH:
    case RULE_MAX_LENGTH: {
      /* A string has at most as many code points as bytes, and at least a
       * quarter as many: most strings are settled without counting. */
      double most = s->length, fewest = ceil(s->length / 4.0);
      bool ok = r->kind == RULE_MIN_LENGTH
                    ? fewest >= r->bound || (double)wtf8_code_points(s->u.string, s->length) >= r->bound
                    : most <= r->bound || (double)wtf8_code_points(s->u.string, s->length) <= r->bound;
      if (ok) return SHORN_OK;
      number_format(r->bound, bound);
      return r->kind == RULE_MIN_LENGTH
                 ? refuse_value(e, "Too short: expected at least %s character%s", bound, validate_plural(r->bound))
                 : refuse_value(e, "Too long: expected at most %s character%s", bound, validate_plural(r->bound));
    }
    case RULE_PATTERN: {
      pattern_result m = pattern_test(&v->matcher, r->u.pattern.compiled, s->u.string, s->length,
                                      s->flags & JSON_LONE_SURROGATE);
      if (m == PATTERN_MATCH) return SHORN_OK;
      if (m == PATTERN_NOMEM) return error_nomem(e);
      text_quote(quoted, sizeof quoted, r->u.pattern.source, r->u.pattern.length);
      if (m == PATTERN_LIMIT)
        return refuse_value(e,
                            "Pattern %s gave up on this string: the match passed its limits (%d steps; %d KiB "
                            "and %d bytes a byte of the string to backtrack in)",
                            quoted, PATTERN_MATCH_LIMIT, PATTERN_HEAP_FIXED_KIB, PATTERN_HEAP_PER_BYTE);
      return refuse_value(e, "Invalid string: must match pattern %s", quoted);
    }
    default:
      if (format_holds(r->u.format, s->u.string, s->length)) return SHORN_OK;
      return refuse_value(e, "Invalid string: expected format \"%s\"", format_names[r->u.format]);
  }
}

/* Whether an object shape keeps key k: a closed object with
 * additionalProperties false drops the keys it does not declare, as Zod's
 * z.object() strips them. */
static bool validate_kept(const shape *sh, const json_value *k) {
  return !sh || sh->kind != SHAPE_OBJECT || sh->u.object.extras || sh->u.object.reject_unknown ||
         object_find_field(sh, k->u.string, k->length);
}

static shorn_code count_properties(validator *v, const shape *sh, const json_value *o, uint64_t *count,
                                   shorn_error *e) {
  key_list m;
  if (!sorted_members(v->allocator, o, &m)) return error_nomem(e);
  *count = 0;
  for (uint32_t i = 0; i < m.count; i++) *count += validate_kept(sh, m.keys[i]);
  mem_free(v->allocator, m.keys);
  return SHORN_OK;
}

static shorn_code validate_check_one_of(const rule *r, const shorn_allocator *a, const json_value *x, shorn_error *e) {
  for (uint32_t i = 0; i < r->u.one_of.count; i++) {
    sameness s = same_value(a, x, &r->u.one_of.values[i], 0);
    if (s == SAME_YES) return SHORN_OK;
    if (s == SAME_NOMEM) return error_nomem(e);
  }
  return refuse_value(e, r->bound == 1 ? "Invalid value: expected the \"const\""
                                                : "Invalid value: expected one of the values of \"enum\"");
}

static shorn_code validate_check_rules(validator *v, const shape *sh, const validation *rules, const json_value *x,
                              shorn_error *e, validation_site *site);
static shorn_code validate_check_sub(validator *v, const validation *rules, const json_value *x, shorn_error *e,
                            validation_site *site);
static shorn_code validate_check_below(validator *v, const validation *sub, const json_value *x, shorn_error *e);

static shorn_code validate_check_object(validator *v, const shape *sh, const rule *r, const json_value *o, shorn_error *e,
                               validation_site *site) {
  char bound[NUMBER_TEXT_MAX];
  shorn_code rc;
  if (r->kind == RULE_MIN_PROPERTIES || r->kind == RULE_MAX_PROPERTIES) {
    uint64_t count = 0;
    if ((rc = count_properties(v, sh, o, &count, e))) return rc;
    if (r->kind == RULE_MIN_PROPERTIES ? (double)count >= r->bound : (double)count <= r->bound) return SHORN_OK;
    number_format(r->bound, bound);
    return r->kind == RULE_MIN_PROPERTIES ? refuse_value(e, "Too few properties: expected at least %s", bound)
                                          : refuse_value(e, "Too many properties: expected at most %s", bound);
  }
  if (r->kind == RULE_REQUIRED) {
    const json_value *list = r->u.required;
    for (uint32_t i = 0; i < list->length; i++) {
      const json_value *k = &list->u.items[i];
      if (k->type != JSON_STRING || json_get(o, k->u.string, k->length)) continue;
      *site = (validation_site){.kind = SITE_KEY, .key = k->u.string, .key_length = k->length};
      return refuse_value(e, "Missing required property");
    }
    return SHORN_OK;
  }
  for (uint32_t i = 0; i < o->length; i++) {
    const json_value *k = &o->u.items[2 * i];
    if (!validate_kept(sh, k)) continue;
    if (!r->u.names) {
      rc = refuse_value(e, "Invalid property name: \"propertyNames\" is false");
    } else {
      if ((rc = validate_check_below(v, r->u.names, k, e)) == SHORN_ERROR_ENCODE) {
        static const char string[] = "Invalid string: ";
        char message[SHORN_MESSAGE_MAX];
        memcpy(message, e->message, sizeof message);
        bool about_string = strncmp(message, string, sizeof string - 1) == 0;
        rc = refuse_value(e, "Invalid property name: %s", message + (about_string ? sizeof string - 1 : 0));
      }
    }
    if (rc == SHORN_ERROR_ENCODE)
      *site = (validation_site){.kind = SITE_KEY, .key = k->u.string, .key_length = k->length};
    if (rc) return rc;
  }
  return SHORN_OK;
}

static shorn_code validate_check_array(validator *v, const rule *r, const json_value *a, shorn_error *e,
                              validation_site *site) {
  char bound[NUMBER_TEXT_MAX];
  if (r->kind == RULE_UNIQUE_ITEMS) {
    uint32_t earlier = 0, later;
    switch (find_repeat(v->allocator, a, &earlier, &later)) {
      case SAME_NO: return SHORN_OK;
      case SAME_NOMEM: return error_nomem(e);
      case SAME_TOO_DEEP:
        return refuse_value(e, "Items nest deeper than %d levels, too deep to compare for \"uniqueItems\"",
                            UNIQUE_DEPTH_MAX);
      default:
        *site = (validation_site){.kind = SITE_INDEX, .index = later};
        return refuse_value(e, "Not unique: repeats item %u (\"uniqueItems\")", (unsigned)earlier);
    }
  }
  if (r->kind == RULE_MIN_ITEMS ? a->length >= r->bound : a->length <= r->bound) return SHORN_OK;
  number_format(r->bound, bound);
  return r->kind == RULE_MIN_ITEMS ? refuse_value(e, "Too few items: expected at least %s", bound)
                                   : refuse_value(e, "Too many items: expected at most %s", bound);
}

/* ---- subschemas ---------------------------------------------------------------- */

/* What the keywords of one place evaluated: a bit for each item of an
 * array, or each member of an object, for unevaluated* to read. */
static uint64_t *marks_new(validator *v, const json_value *x) {
  return mem_calloc(v->allocator, x->length / 64 + 1, sizeof(uint64_t));
}

static void validate_mark(uint64_t *marks, uint32_t i) {
  if (marks) marks[i / 64] |= UINT64_C(1) << (i % 64);
}

static bool validate_marked(const uint64_t *marks, uint32_t i) { return (marks[i / 64] >> (i % 64)) & 1; }

static void marks_join(uint64_t *into, const uint64_t *from, const json_value *x) {
  for (uint32_t i = 0; i <= x->length / 64; i++) into[i] |= from[i];
}

/* Whether a subschema's refusal is one the place may outlive (a union's
 * other branch, not, if, contains); a check that gave up is none. */
static bool validate_absorbed(const validator *v, shorn_code rc) { return rc == SHORN_ERROR_ENCODE && !v->gave_up; }

/* A subschema's rules on `x`, with `seen` the marks they add to: the same
 * place's, fresh ones, or none (NULL) for a value below. */
static shorn_code validate_check_sub_marking(validator *v, const validation *sub, const json_value *x, shorn_error *e,
                                    validation_site *site, uint64_t *seen) {
  uint64_t *outer = v->seen;
  v->seen = seen;
  shorn_code rc = validate_check_sub(v, sub, x, e, site);
  v->seen = outer;
  return rc;
}

/* `sub` on the value, where a failure does not fail the place (a union's
 * branch, if, not): what it evaluated joins the place's marks only when it
 * passes. */
static shorn_code validate_check_tentatively(validator *v, const validation *sub, const json_value *x, shorn_error *e) {
  validation_site ignored = {.kind = SITE_NONE};
  if (!v->seen || !holds_values(x)) return validate_check_sub_marking(v, sub, x, e, &ignored, NULL);
  uint64_t *own = marks_new(v, x);
  if (!own) return error_nomem(e);
  shorn_code rc = validate_check_sub_marking(v, sub, x, e, &ignored, own);
  if (rc == SHORN_OK) marks_join(v->seen, own, x);
  mem_free(v->allocator, own);
  return rc;
}

/* anyOf, and oneOf: with marks to gather every branch is tried, for what
 * each that passes evaluated. */
static shorn_code validate_check_branches(validator *v, const shape *sh, const rule *r, const json_value *x, shorn_error *e) {
  uint32_t passed = 0, first = 0;
  for (uint32_t i = 0; i < r->u.any_of.count; i++) {
    const validation *branch = r->u.any_of.alternatives[i];
    validation_site ignored = {.kind = SITE_NONE};
    shorn_code rc = sh ? validate_check_rules(v, sh, branch, x, e, &ignored) : validate_check_tentatively(v, branch, x, e);
    if (rc == SHORN_OK) {
      if (passed++ == 0) first = i;
      if (r->kind == RULE_ANY_OF && !v->seen) return SHORN_OK;
      if (r->kind == RULE_ONE_OF && passed == 2)
        return refuse_value(e, "Invalid value: branches %u and %u of \"oneOf\" both accept it", (unsigned)first,
                            (unsigned)i);
    } else if (!validate_absorbed(v, rc)) {
      return rc;
    }
  }
  if (passed) return SHORN_OK;
  return refuse_value(e, r->kind == RULE_ONE_OF ? "Invalid value: no branch of \"oneOf\" accepts it"
                                                : "Invalid value: no branch of the union accepts it");
}

static const char *type_article(const json_value *x) {
  static const char *const names[] = {[JSON_NULL] = "null",       [JSON_FALSE] = "a boolean", [JSON_TRUE] = "a boolean",
                                      [JSON_NUMBER] = "a number", [JSON_STRING] = "a string", [JSON_ARRAY] = "an array",
                                      [JSON_OBJECT] = "an object"};
  return names[x->type];
}

static bool validate_is_integer(double x) { return isfinite(x) && x == floor(x); }

static shorn_code validate_check_type(const rule *r, const json_value *x, shorn_error *e) {
  uint8_t types = r->u.types;
  if ((types & TYPE_BIT(x->type)) || ((types & TYPE_INTEGER_BIT) && x->type == JSON_NUMBER && validate_is_integer(x->u.number)))
    return SHORN_OK;
  static const struct {
    uint8_t bits;
    const char *name;
  } names[] = {{TYPE_BIT(JSON_NULL), "null"},      {TYPE_BIT(JSON_TRUE), "a boolean"}, {NUMBERS, "a number"},
               {TYPE_INTEGER_BIT, "an integer"}, {STRINGS, "a string"},            {ARRAYS, "an array"},
               {OBJECTS, "an object"}};
  char expected[96] = "";
  size_t n = 0;
  for (size_t i = 0; i < COUNT_OF(names); i++)
    if (types & names[i].bits)
      n += (size_t)snprintf(expected + n, sizeof expected - n, "%s%s", n ? " or " : "", names[i].name);
  return refuse_value(e, "Expected %s, got %s", n ? expected : "no value", type_article(x));
}

static shorn_code validate_check_condition(validator *v, const rule *r, const json_value *x, shorn_error *e,
                                  validation_site *site) {
  shorn_code rc = validate_check_tentatively(v, r->u.condition.when, x, e);
  if (rc != SHORN_OK && !validate_absorbed(v, rc)) return rc;
  const validation *next = rc == SHORN_OK ? r->u.condition.then : r->u.condition.otherwise;
  return next ? validate_check_sub(v, next, x, e, site) : SHORN_OK;
}

static void site_at_key(validation_site *site, const json_value *k) {
  *site = (validation_site){.kind = SITE_KEY, .key = k->u.string, .key_length = k->length};
}

/* `sub` on an item, a member's value or a key: a place of its own. */
static shorn_code validate_check_below(validator *v, const validation *sub, const json_value *x, shorn_error *e) {
  validation_site ignored = {.kind = SITE_NONE};
  return validate_check_sub_marking(v, sub, x, e, &ignored, NULL);
}

static shorn_code validate_check_dependents(validator *v, const rule *r, const json_value *o, shorn_error *e,
                                   validation_site *site) {
  const json_value *object = r->u.dependent.object;
  for (uint32_t i = 0; i < object->length; i++) {
    const json_value *name = &object->u.items[2 * i], *then = name + 1;
    if (!json_get(o, name->u.string, name->length)) continue;
    if (r->kind == RULE_DEPENDENT_SCHEMAS) {
      shorn_code rc = validate_check_sub(v, r->u.dependent.schemas[i], o, e, site);
      if (rc) return rc;
      continue;
    }
    for (uint32_t j = 0; then->type == JSON_ARRAY && j < then->length; j++) {
      const json_value *k = &then->u.items[j];
      if (k->type != JSON_STRING || json_get(o, k->u.string, k->length)) continue;
      site_at_key(site, k);
      char quoted[RULE_QUOTE_MAX];
      text_quote(quoted, sizeof quoted, name->u.string, name->length);
      return refuse_value(e, "Missing property, which \"dependentRequired\" asks for beside %s", quoted);
    }
  }
  return SHORN_OK;
}

/* A member's index among the object's, its key's last. */
static uint32_t member_index(const json_value *o, const json_value *k) { return (uint32_t)((k - o->u.items) / 2); }

static shorn_code validate_check_member(validator *v, const rule *r, const json_value *o, const json_value *k,
                               shorn_error *e) {
  const object_applicators *a = r->u.object;
  bool matched = false;
  shorn_code rc;
  const json_value *declared = a->names ? json_get(a->names, k->u.string, k->length) : NULL;
  if (declared) {
    matched = true;
    if ((rc = validate_check_below(v, a->named[member_index(a->names, declared - 1)], k + 1, e))) return rc;
  }
  for (uint32_t i = 0; a->patterns && i < a->pattern_names->length; i++) {
    pattern_result m = pattern_test(&v->matcher, a->patterns[i], k->u.string, k->length, k->flags & JSON_LONE_SURROGATE);
    if (m == PATTERN_NOMEM) return error_nomem(e);
    if (m != PATTERN_MATCH) continue;
    matched = true;
    if ((rc = validate_check_below(v, a->patterned[i], k + 1, e))) return rc;
  }
  if (!matched && a->additional) {
    if (a->additional->count == 1 && a->additional->rules[0].kind == RULE_NEVER)
      return refuse_value(e, "Unexpected property: \"additionalProperties\" is false");
    matched = true;
    if ((rc = validate_check_below(v, a->additional, k + 1, e))) return rc;
  }
  if (matched) validate_mark(v->seen, member_index(o, k));
  return SHORN_OK;
}

static shorn_code validate_check_members(validator *v, const rule *r, const json_value *o, shorn_error *e,
                                validation_site *site) {
  key_list m;
  if (!sorted_members(v->allocator, o, &m)) return error_nomem(e);
  shorn_code rc = SHORN_OK;
  for (uint32_t i = 0; i < m.count && !rc; i++) {
    const json_value *k = m.keys[i];
    if (r->kind == RULE_PROPERTIES) {
      rc = validate_check_member(v, r, o, k, e);
    } else if (!v->seen || !validate_marked(v->seen, member_index(o, k))) {
      if (r->u.sub->count == 1 && r->u.sub->rules[0].kind == RULE_NEVER)
        rc = refuse_value(e, "Unexpected property: no keyword evaluates it, and \"unevaluatedProperties\" is false");
      else if (!(rc = validate_check_below(v, r->u.sub, k + 1, e)))
        validate_mark(v->seen, member_index(o, k));
    }
    if (rc == SHORN_ERROR_ENCODE) site_at_key(site, k);
  }
  mem_free(v->allocator, m.keys);
  return rc;
}

static shorn_code validate_check_items(validator *v, const rule *r, const json_value *a, shorn_error *e,
                              validation_site *site) {
  uint32_t matches = 0;
  for (uint32_t i = 0; i < a->length; i++) {
    const validation *sub = NULL;
    if (r->kind == RULE_ITEMS)
      sub = i < r->u.items->prefix_count ? r->u.items->prefix[i] : r->u.items->rest;
    else if (r->kind == RULE_UNEVALUATED_ITEMS)
      sub = v->seen && validate_marked(v->seen, i) ? NULL : r->u.sub;
    else
      sub = r->u.contains.sub;
    if (!sub) continue;
    shorn_code rc = validate_check_below(v, sub, &a->u.items[i], e);
    if (r->kind == RULE_CONTAINS) {
      if (rc != SHORN_OK && !validate_absorbed(v, rc)) return rc;
      if (rc == SHORN_OK) matches++, validate_mark(v->seen, i);
      continue;
    }
    if (rc == SHORN_ERROR_ENCODE) *site = (validation_site){.kind = SITE_INDEX, .index = i};
    if (rc) return rc;
    validate_mark(v->seen, i);
  }
  if (r->kind != RULE_CONTAINS) return SHORN_OK;
  char bound[NUMBER_TEXT_MAX];
  if (matches < r->bound) {
    if (r->bound == 1) return refuse_value(e, "Invalid array: no item matches \"contains\"");
    number_format(r->bound, bound);
    return refuse_value(e, "Too few items matching \"contains\": expected at least %s", bound);
  }
  if (matches <= r->u.contains.most) return SHORN_OK;
  number_format(r->u.contains.most, bound);
  return refuse_value(e, "Too many items matching \"contains\": expected at most %s", bound);
}

static shorn_code validate_check_applicator(validator *v, const shape *sh, const rule *r, const json_value *x,
                                   shorn_error *e, validation_site *site) {
  bool object = x->type == JSON_OBJECT, array = x->type == JSON_ARRAY;
  switch (r->kind) {
    case RULE_NEVER: return refuse_value(e, "Invalid value: the schema here is false");
    case RULE_TYPE: return validate_check_type(r, x, e);
    case RULE_SUBSCHEMA: return validate_check_sub(v, r->u.sub, x, e, site);
    case RULE_NOT: {
      uint64_t *outer = v->seen;
      v->seen = NULL; /* what not evaluates is never evaluated */
      shorn_code rc = validate_check_tentatively(v, r->u.sub, x, e);
      v->seen = outer;
      if (validate_absorbed(v, rc)) return SHORN_OK;
      return rc ? rc : refuse_value(e, "Invalid value: the schema in \"not\" accepts it");
    }
    case RULE_ANY_OF:
    case RULE_ONE_OF: return validate_check_branches(v, sh, r, x, e);
    case RULE_IF: return validate_check_condition(v, r, x, e, site);
    case RULE_DEPENDENT_REQUIRED:
    case RULE_DEPENDENT_SCHEMAS: return object ? validate_check_dependents(v, r, x, e, site) : SHORN_OK;
    case RULE_PROPERTIES:
    case RULE_UNEVALUATED_PROPERTIES: return object ? validate_check_members(v, r, x, e, site) : SHORN_OK;
    default: return array ? validate_check_items(v, r, x, e, site) : SHORN_OK;
  }
}

/* The rules in order, the first refusal returned; rules of the place's
 * subschemas mark what they evaluate in v->seen. */
static shorn_code validate_check_rules(validator *v, const shape *sh, const validation *rules, const json_value *x,
                              shorn_error *e, validation_site *site) {
  if (!(rules->types & TYPE_BIT(x->type))) return SHORN_OK;
  for (uint32_t i = 0; i < rules->count; i++) {
    const rule *r = &rules->rules[i];
    shorn_code rc;
    if (r->kind <= RULE_MULTIPLE_OF)
      rc = x->type == JSON_NUMBER ? validate_check_number(r, x->u.number, e) : SHORN_OK;
    else if (r->kind <= RULE_FORMAT)
      rc = x->type == JSON_STRING ? validate_check_string(v, r, x, e) : SHORN_OK;
    else if (r->kind <= RULE_UNIQUE_ITEMS)
      rc = x->type == JSON_ARRAY ? validate_check_array(v, r, x, e, site) : SHORN_OK;
    else if (r->kind <= RULE_REQUIRED)
      rc = x->type == JSON_OBJECT ? validate_check_object(v, sh, r, x, e, site) : SHORN_OK;
    else if (r->kind == RULE_ONE_OF_VALUES)
      rc = validate_check_one_of(r, v->allocator, x, e);
    else
      rc = validate_check_applicator(v, sh, r, x, e, site);
    if (rc) return rc;
  }
  return SHORN_OK;
}

/* A step down into a subschema: the C stack and a schema's work stay
 * bounded whatever the schema and the value, and a subschema with an
 * unevaluated* rule gathers marks of its own, which join the place's when
 * it passes. */
#define SUBSCHEMA_DEPTH_MAX 256
#define SUBSCHEMA_STEPS_MAX (UINT64_C(1) << 22)

static shorn_code validate_check_sub(validator *v, const validation *rules, const json_value *x, shorn_error *e,
                            validation_site *site) {
  if (v->depth == 0) { /* the outermost: a check's bounds start here */
    v->steps = 0;
    v->gave_up = false;
  }
  if (v->depth == SUBSCHEMA_DEPTH_MAX || ++v->steps > SUBSCHEMA_STEPS_MAX) {
    v->gave_up = true;
    return refuse_value(e, "The schema's keywords nest deeper than %d subschemas or take more than %llu steps on "
                           "this value", SUBSCHEMA_DEPTH_MAX, (unsigned long long)SUBSCHEMA_STEPS_MAX);
  }
  if (!rules->collects || !holds_values(x)) {
    v->depth++;
    shorn_code rc = validate_check_rules(v, NULL, rules, x, e, site);
    v->depth--;
    return rc;
  }
  uint64_t *outer = v->seen, *own = marks_new(v, x);
  if (!own) return error_nomem(e);
  v->seen = own;
  v->depth++;
  shorn_code rc = validate_check_rules(v, NULL, rules, x, e, site);
  v->depth--;
  v->seen = outer;
  if (rc == SHORN_OK && outer) marks_join(outer, own, x);
  mem_free(v->allocator, own);
  return rc;
}

shorn_code validation_check(validator *v, const shape *sh, const validation *rules, const json_value *value,
                            shorn_error *error, validation_site *site) {
  site->kind = SITE_NONE;
  return validate_check_rules(v, sh, rules, value, error, site);
}

void validator_release(validator *v) {
  pattern_matcher_release(&v->matcher);
}
