/* validate.h — a JSON Schema node's validation keywords (maximum, pattern,
 * minLength, …), compiled beside its wire shape and checked against a JSON
 * value before it is encoded.  No byte of a payload depends on them. */
#ifndef SHORN_VALIDATE_H
#define SHORN_VALIDATE_H

#include "core/base/platform.h"
#include "core/json/json.h"
#include "core/regex/pattern.h"
#include "core/shape/shape.h"

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
  RULE_ANY_OF         /* alternatives, where one shape stands for a union's branches */
} rule_kind;

/* The formats checked where no pattern carries them: as Valibot, the
 * validator that writes them without one, checks them; a uri as RFC 3986
 * defines it. */
typedef enum format_kind { FORMAT_EMAIL, FORMAT_IPV4, FORMAT_IPV6, FORMAT_DATE, FORMAT_TIME, FORMAT_URI } format_kind;

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
    } any_of;
  } u;
} rule;

struct validation {
  const rule *rules;
  uint32_t count;
  uint8_t types; /* 1 << json_type for each type a rule looks at; values of others skip it */
  /* What the encoder decides without a call (validation_passes): a number
   * whose only rules are bounds, between `low` and `high`; a string whose
   * only rules are lengths, of between so many bytes (a code point is one
   * to four of them, so those lengths pass uncounted); an array whose only
   * rules are its count's. */
  bool numbers_bounded, strings_sized, arrays_sized, low_open, high_open;
  double low, high;
  uint64_t string_bytes_min, string_bytes_max;
  double items_min, items_max; /* an array whose only rules are its count's */
};

/* Whether `value` passes `v` for certain, without the full check; false
 * leaves it to validation_check, which also says why. */
static inline bool validation_passes(const validation *v, const json_value *value) {
  if (!(v->types & (1u << value->type))) return true;
  if (value->type == JSON_NUMBER) {
    double x = value->u.number;
    return v->numbers_bounded && (v->low_open ? x > v->low : x >= v->low) &&
           (v->high_open ? x < v->high : x <= v->high);
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
} validation_compiler;

/* The validation keywords of `node`, and of the members of its allOf;
 * *out NULL when it has none.  A keyword the node's wire shape already
 * enforces is left out. */
SHORN_PRIVATE shorn_code validation_compile(validation_compiler *c, const json_value *node,
                                            const validation **out);

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
