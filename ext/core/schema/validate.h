/* validate.h — a JSON Schema node's validation keywords (maximum, pattern,
 * minLength, …), compiled beside its wire shape and checked against a JSON
 * value before it is encoded.  No byte of a payload depends on them. */
#ifndef SHORN_VALIDATE_H
#define SHORN_VALIDATE_H

#include <float.h>
#include <math.h>

#include "core/base/platform.h"
#include "core/json/json.h"
#include "core/regex/pattern.h"
#include "core/shape/shape.h"
#include "formats.h"

typedef enum rule_kind {
  RULE_MINIMUM,
  RULE_EXCLUSIVE_MINIMUM,
  RULE_MAXIMUM,
  RULE_EXCLUSIVE_MAXIMUM,
  RULE_MULTIPLE_OF,
  RULE_MIN_LENGTH,
  RULE_MAX_LENGTH,
  RULE_PATTERN,
  RULE_FORMAT,
  RULE_MIN_ITEMS,
  RULE_MAX_ITEMS,
  RULE_UNIQUE_ITEMS,
  RULE_MIN_PROPERTIES,
  RULE_MAX_PROPERTIES,
  RULE_PROPERTY_NAMES,
  RULE_REQUIRED,
  RULE_ONE_OF_VALUES, /* const or enum, where no shape holds them: a property name, a union branch */
  RULE_ANY_OF,        /* alternatives, where one shape stands for a union's branches */
  /* JSON Schema's own applicators and type, where no wire shape holds the
   * node: what an untyped node, a subschema of these, or a keyword the
   * shapes leave aside asks of the value, checked on the value itself. */
  RULE_NEVER, /* the schema false */
  RULE_TYPE,
  RULE_SUBSCHEMA, /* an allOf member or a $ref's target, on the same value */
  RULE_NOT,
  RULE_ONE_OF,
  RULE_IF,
  RULE_DEPENDENT_REQUIRED,
  RULE_DEPENDENT_SCHEMAS,
  RULE_PROPERTIES, /* properties, patternProperties and additionalProperties */
  RULE_ITEMS,      /* prefixItems and items */
  RULE_CONTAINS,
  RULE_UNEVALUATED_PROPERTIES,
  RULE_UNEVALUATED_ITEMS
} rule_kind;

/* A type rule's bit for "integer", beside 1 << json_type for the others. */
#define TYPE_INTEGER_BIT 0x80

typedef struct object_applicators object_applicators;
typedef struct item_applicators item_applicators;

typedef struct rule {
  rule_kind kind;
  double bound; /* a number, a length or a count */
  union {
    struct {
      const pattern *compiled;
      const char *source; /* the schema's text, for messages */
      uint32_t length;
    } pattern;
    format_kind format;
    const validation *names; /* propertyNames; NULL when it is false */
    const json_value *required; /* the "required" array of a node without "properties" */
    struct {
      const json_value *values;
      uint32_t count;
    } one_of;
    struct {
      const validation *const *alternatives;
      uint32_t count;
    } any_of; /* and oneOf's */
    uint8_t types;
    const validation *sub; /* a subschema, its own rules; never NULL */
    struct {
      const validation *when, *then, *otherwise; /* then and otherwise NULL when absent */
    } condition;
    struct {
      const json_value *object; /* the keyword's object: names to arrays, or to subschemas */
      const validation *const *schemas;
    } dependent;
    const object_applicators *object;
    const item_applicators *items;
    struct {
      const validation *sub;
      double most; /* maxContains; the rule's bound is minContains */
    } contains;
  } u;
} rule;

struct validation {
  const rule *rules;
  uint32_t count;
  uint8_t types; /* 1 << json_type for each type a rule looks at; values of others skip it */
  bool collects;  /* it has an unevaluated* rule: the keywords beside it say what they evaluated */
  /* What the encoder decides without a call (validation_passes): a number
   * whose only rules are bounds, between `low` and `high`, and if
   * `numbers_stepped` one multipleOf besides, a multiple of `step`; a
   * string whose only rules are lengths, of between so many bytes (a code
   * point is one to four of them, so those lengths pass uncounted); an
   * array whose only rules are its count's. */
  bool numbers_bounded, numbers_stepped, strings_sized, arrays_sized, low_open, high_open;
  double low, high, step;
  uint64_t string_bytes_min, string_bytes_max;
  double items_min, items_max; /* an array whose only rules are its count's */
};

/* Zod 4's multipleOf (util.floatSafeRemainder): the quotient within four
 * epsilons, scaled by its size, of an integer, so that 0.3 is a multiple
 * of 0.1.  Math.round rounds halves up. */
static inline bool validation_is_multiple(double value, double step) {
  double ratio = value / step, rounded = floor(ratio);
  if (ratio - rounded >= 0.5) rounded += 1;
  double tolerance = 4 * DBL_EPSILON * fmax(fabs(ratio), 1);
  return fabs(ratio - rounded) < tolerance;
}

/* Whether `value` passes `v` for certain, without the full check; false
 * leaves it to validation_check, which also says why. */
static inline bool validation_passes(const validation *v, const json_value *value) {
  if (!(v->types & (1u << value->type))) return true;
  if (value->type == JSON_NUMBER) {
    double x = value->u.number;
    bool within = (v->low_open ? x > v->low : x >= v->low) && (v->high_open ? x < v->high : x <= v->high);
    return v->numbers_bounded ? within : v->numbers_stepped && within && validation_is_multiple(x, v->step);
  }
  if (value->type == JSON_ARRAY)
    return v->arrays_sized && value->length >= v->items_min && value->length <= v->items_max;
  return value->type == JSON_STRING && v->strings_sized && value->length >= v->string_bytes_min &&
         value->length <= v->string_bytes_max;
}

/* ---- compiling ------------------------------------------------------------- */

typedef struct validation_compiler {
  shorn_schema *schema; /* its arena holds the rules, its engine the patterns */
  shorn_error *error;
  const json_value *refused; /* on SHORN_ERROR_SCHEMA: the node at fault, for the caller to point at */
  /* A same-document $ref's target (docs/format.md#references), or NULL
   * with the schema's error set. */
  const json_value *(*resolve)(void *context, const json_value *site, const char *ref, uint32_t length);
  void *resolve_context;
  /* A keyword no check can stand for ($dynamicRef, a $ref that leaves the
   * document), set instead of refusing the schema: the unchecked mode still
   * takes it. */
  const json_value *uncheckable;
  const char *uncheckable_keyword;
  struct compiled_node *compiled; /* nodes compiled whole: a $ref cycle meets its own rules */
  uint32_t compiled_count;
  size_t compiled_capacity;
} validation_compiler;

/* The validation keywords of `node`, and of the members of its allOf;
 * *out NULL when it has none.  A keyword the node's wire shape already
 * enforces is left out; with `shapeless` (the node is the dynamic value)
 * every keyword is a rule. */
SHORN_PRIVATE shorn_code validation_compile(validation_compiler *c, const json_value *node, bool shapeless,
                                            const validation **out);

/* What the compiler holds between calls: release it after the last. */
SHORN_PRIVATE void validation_compiler_release(validation_compiler *c);

/* For a union one shape stands for (ArkType's uuid: a pattern branch and
 * const branches): a value passes when one branch's keywords, its const
 * included, accept it. */
SHORN_PRIVATE shorn_code validation_compile_any_of(validation_compiler *c, const json_value *const *branches,
                                                   uint32_t count, const validation **out);

/* The rules of both, one after the other: a $ref's target's and those
 * written beside the $ref. */
SHORN_PRIVATE const validation *validation_join(arena *a, const validation *first, const validation *second);

/* ---- checking -------------------------------------------------------------- */

/* One encode's scratch. Start it zeroed with the schema's allocator. */
typedef struct validator {
  const shorn_allocator *allocator;
  pattern_matcher matcher;
  uint32_t depth;  /* subschemas open on the C stack */
  uint64_t steps;  /* subschemas entered since the outermost: a bound on a schema's work */
  bool gave_up;    /* the check passed one of those bounds: no branch may absorb its refusal */
  uint64_t *seen;  /* what the place's keywords evaluated, for unevaluated*; NULL when none reads it */
} validator;

SHORN_PRIVATE void validator_release(validator *v);

/* Where below the value a refusal points: an item or a property name. */
typedef struct validation_site {
  enum { SITE_NONE, SITE_INDEX, SITE_KEY } kind;
  uint64_t index;
  const char *key;
  uint32_t key_length;
} validation_site;

/* SHORN_OK when `value` satisfies `rules` (the rules of `sh`, which says
 * which of an object's keys it keeps); otherwise SHORN_ERROR_ENCODE with
 * the message in `error` and *site below the value, or SHORN_ERROR_NOMEM. */
SHORN_PRIVATE shorn_code validation_check(validator *v, const shape *sh, const validation *rules,
                                          const json_value *value, shorn_error *error, validation_site *site);

#endif
