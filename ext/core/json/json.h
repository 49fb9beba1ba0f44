/* json.h — the strict RFC 8259 parser: JSON text to a DOM in an arena. */
#ifndef SHORN_JSON_H
#define SHORN_JSON_H

#include "core/base/platform.h"
#include "core/base/memory.h"

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

/* Minified JSON has no white space at all, hence the one test first. */
static inline const uint8_t *json_skip_space(const uint8_t *p, const uint8_t *end) {
  while (p < end && *p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

/* The bytes of a DOM arena that starts on the C stack: a record of a few
 * kilobytes of JSON then parses with no allocation. */
#define JSON_DOM_HERE 4096

/* Parse exactly one JSON value (whitespace around it allowed, nothing else).
 * The DOM lives in `a`, and the parser's stacks come from a's allocator;
 * strings without escapes point into `text`, which must outlive it.  Errors
 * are SHORN_ERROR_JSON with a byte offset, or NOMEM. */
SHORN_PRIVATE shorn_code json_parse(arena *a, const char *text, size_t length, json_value **out,
                      shorn_error *error);
/* json_parse whose error starts "<refusal>: " rather than "Invalid JSON: ",
 * so a message can say which input was not JSON. */
SHORN_PRIVATE shorn_code json_parse_as(arena *a, const char *text, size_t length, json_value **out,
                         shorn_error *error, const char *refusal);

/* Decode the escapes of a string body s[0..n) whose escapes are valid into
 * o, which needs room for n bytes: no escape is longer decoded than written.
 * A lone surrogate stays one, three bytes of WTF-8, and sets
 * *lone_surrogate (when not NULL).  With `stop_at_nul` an escaped NUL ends
 * the string, as SQLite 3.40 reads it.  Returns the end of what it wrote. */
SHORN_PRIVATE uint8_t *json_unescape(uint8_t *o, const uint8_t *s, size_t n, bool stop_at_nul,
                                     bool *lone_surrogate);

/* The value of the last member named `key`, or NULL. */
SHORN_PRIVATE const json_value *json_get(const json_value *object, const char *key, size_t key_length);

#endif
