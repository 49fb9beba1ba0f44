/* translator.h — the translator's state and the helpers its files share,
 * private to schema.c and unions.c: schema.c walks a JSON Schema document
 * and translates every kind of node but unions, which unions.c translates
 * by the steps of docs/format.md#union-schemas, calling back into schema.c
 * for each branch. */
#ifndef SHORN_TRANSLATOR_H
#define SHORN_TRANSLATOR_H

#include <string.h>

#include "core/base/memory.h"
#include "core/base/platform.h"
#include "core/json/json.h"
#include "core/shape/shape.h"
#include "core/text/error.h"
#include "core/text/text.h"
#include "validate.h"

/* Room for a key or pointer quoted in a message; longer ones are cut. */
#define NODE_QUOTE_MAX 48

/* One $ref pointer text (or the root's "#"), and what it expanded to. */
typedef struct pointer_entry {
  const char *text;
  uint32_t length;
  bool expanding;  /* on the current path: a $ref to it is a back edge */
  shape *shape;    /* its shape, or the {ref} of a cycle head; NULL until known */
  uint32_t height; /* levels of the expanded shape */
  uint64_t units;  /* size of the expanded shape, charged again at each reuse */
} pointer_entry;

/* A node's validation keywords, compiled once however often the node is
 * translated (a $ref through another pointer text, a type array's
 * branches), so that its patterns are compiled once. */
typedef struct node_keywords {
  const json_value *node;
  const validation *keywords; /* NULL: the node has none */
} node_keywords;

/* A shape the build checks may refuse, and the node it was made for. */
typedef struct origin {
  const shape *shape;
  const json_value *node;
} origin;

/* An object member, for sorting: the last of a repeated key wins. */
typedef struct property {
  const json_value *key, *value;
} property;

/* Pointers look names up in the same large objects again and again
 * ($defs above all), and json_get scans, so an object with many members
 * gets a sorted index the first time a pointer passes through it. */
#define INDEXED_MEMBERS 16

typedef struct object_index {
  const json_value *object;
  property *sorted;
  uint32_t count;
} object_index;

typedef struct translator {
  shorn_schema *schema;
  const shorn_allocator *allocator; /* the schema's, for the translation's scratch too */
  const json_value *document;
  shorn_error *error;
  pointer_entry *pointers; /* in order of first use */
  uint32_t pointer_count;
  size_t pointer_capacity;
  uint32_t *pointer_slots; /* open addressing: pointer + 1, 0 empty */
  uint32_t pointer_mask;
  shape **defs; /* slot i is reserved by the back edge that numbers it */
  uint32_t def_count;
  size_t def_capacity;
  origin *origins;
  uint32_t origin_count;
  size_t origin_capacity;
  object_index *object_indexes; /* open addressing by object */
  uint32_t object_index_count, object_index_mask;
  node_keywords *keywords; /* open addressing by node */
  uint32_t keyword_count, keyword_mask;
  validation_compiler compiler; /* every node's keywords, one compile sharing the subschemas */
  const shape *last_result; /* what the last translate_node returned */
  shorn_buffer scratch; /* a pointer segment, a JSON text being made */
  uint32_t depth;       /* open levels */
  uint32_t reach;       /* the deepest level reached since the current $ref opened */
  uint64_t units;
} translator;

/* A union branch: an element of anyOf / oneOf, or one entry of a type array
 * standing for the node with its "type" replaced by that entry. */
typedef struct union_branch {
  const json_value *node;
  const json_value *type;
  bool typed; /* `type` replaces the node's own, and rules 1-3 do not apply */
} union_branch;

/* An enum member or discriminant case, and the branch it selects. */
typedef struct ranked {
  scalar value;
  uint32_t origin;
} ranked;

/* ---- small things ---------------------------------------------------------- */

static inline void *translator_nomem(translator *t) {
  error_nomem(t->error);
  return NULL;
}

/* `s` as JSON text for a message, cut short at a character boundary. */
static inline const char *quote(char out[NODE_QUOTE_MAX], const char *s, size_t n) {
  return text_quote(out, NODE_QUOTE_MAX, s, n);
}

static inline const char *describe_node(const json_value *v) {
  switch (v->type) {
    case JSON_NULL: return "null";
    case JSON_FALSE: return "false";
    case JSON_TRUE: return "true";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    default: return "an object";
  }
}

static inline const json_value *member(const json_value *node, const char *key) {
  return json_get(node, key, strlen(key));
}

static inline bool is_string(const json_value *v, const char *s) {
  size_t n = strlen(s);
  return v && v->type == JSON_STRING && v->length == n && memcmp(v->u.string, s, n) == 0;
}

static inline bool is_scalar(const json_value *v) {
  return v->type != JSON_ARRAY && v->type != JSON_OBJECT;
}

static inline void *arena_array(translator *t, size_t count, size_t size) {
  void *p = count > SIZE_MAX / size ? NULL : arena_alloc(&t->schema->arena, count * size);
  return p || !count ? p : translator_nomem(t);
}

/* ---- what schema.c offers unions.c ----------------------------------------- */

/* Point the error at `node`. */
SHORN_PRIVATE void locate(const translator *t, const json_value *node, shorn_error *e);
/* Refuse the schema because of `node`; NULL. */
SHORN_PRIVATE void *refuse_node(translator *t, const json_value *node, const char *fmt, ...) PRINTF_LIKE(3, 4);
SHORN_PRIVATE void *not_a_schema(translator *t, const json_value *node);
SHORN_PRIVATE shape *new_shape(translator *t, const json_value *node, shape_kind kind);
SHORN_PRIVATE bool note_origin(translator *t, const shape *sh, const json_value *node);
SHORN_PRIVATE bool sorted_properties(translator *t, const json_value *object, property **out, uint32_t *count);
SHORN_PRIVATE const property *find_property(const property *p, uint32_t n, const char *key, uint32_t length);
SHORN_PRIVATE bool scalar_of(translator *t, const json_value *v, const char *role, scalar *out);
/* The order sort_canonically sorted by, for a caller to find repeats with. */
typedef int comparison(const void *, const void *);
SHORN_PRIVATE comparison *sort_canonically(ranked *r, uint32_t n);
SHORN_PRIVATE const json_value *resolve_pointer(translator *t, const json_value *site, const char *p, uint32_t n);
/* A union branch translated as a node of its own. */
SHORN_PRIVATE shape *translate_branch(translator *t, const union_branch *b);

/* ---- what unions.c offers schema.c ----------------------------------------- */

SHORN_PRIVATE shape *literal_null(translator *t, const json_value *node);
SHORN_PRIVATE shape *translate_any_of(translator *t, const json_value *node, const char *keyword,
                                      const json_value *list);
SHORN_PRIVATE shape *translate_type_array(translator *t, const json_value *node, const json_value *types);

#endif
