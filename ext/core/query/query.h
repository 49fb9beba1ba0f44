/* query.h — questions SQLite's JSON functions ask (extract, type, each,
 * tree), answered from a payload's bytes without decoding it whole. */
#ifndef SHORN_QUERY_H
#define SHORN_QUERY_H

#include "core/base/platform.h"
#include "core/wire/decode.h"

/* A JSON path as SQLite's JSON functions take it: `$`, then any of `.key`,
 * `."key"`, `[N]`, `[#]` and `[#-N]`.  A key is compared with a member's
 * name as the JSON text writes it, escapes and all (SQLite 3.40's rule). */
typedef enum step_kind { STEP_KEY, STEP_INDEX, STEP_FROM_END } step_kind;

typedef struct path_step {
  step_kind kind;
  bool plain;          /* STEP_KEY: UTF-8, nothing in it that JSON.stringify escapes */
  const char *key;     /* STEP_KEY: into the path's text */
  uint32_t key_length;
  uint32_t key_hash;   /* STEP_KEY: key_hash of the key, once for every row */
  uint64_t index;      /* N of [N] or [#-N]; saturates */
} path_step;

typedef struct query_path {
  const shorn_allocator *allocator; /* the one it was parsed with, which frees it */
  const char *text; /* the path as written, NUL-terminated */
  size_t length;
  uint32_t count;
  path_step steps[];
} query_path;

/* One allocation from `a` (free it with query_path_free), or NULL with the
 * error: SHORN_ERROR_USAGE "JSON path error near '...'", as SQLite words
 * it. */
SHORN_PRIVATE query_path *query_path_parse(const shorn_allocator *a, const char *text, size_t length,
                                           shorn_error *error);
SHORN_PRIVATE void query_path_free(void *path);

/* A value inside a payload: its shape and its first byte.  A NULL shape is
 * what a path names when it names nothing. */
typedef struct query_node {
  const shape *shape;
  const uint8_t *at;
} query_node;

/* A payload being read.  Opening it checks its fingerprint and nothing
 * else: a path then reads only the headers on its way (each checked as the
 * decoder checks it), passes over the rest by its layout, and the value it
 * names is checked whole as it is read.  So a payload shorn_decode refuses
 * may still answer, when what is wrong lies off the path. */
typedef struct query {
  decoder d;
  query_node root;
  shape pair;           /* the Map entry a path is at, as the tuple [key, value] */
  shape *pair_items[2];
  uint32_t def_count;
  uint64_t index;       /* the element the last index step found */
  uint32_t depth_here[REF_DEPTHS_HERE];
} query;

SHORN_PRIVATE shorn_code query_open(query *q, const shorn_schema *s, const uint8_t *data, size_t length,
                      int fingerprint_width, shorn_error *error);
SHORN_PRIVATE void query_close(query *q);
/* The node `path` names (NULL: the root); node->shape is NULL when none.
 * An error when a header on the way, or a value passed over, does not
 * fit in the payload or breaks the decoder's rules for headers. */
SHORN_PRIVATE shorn_code query_find(query *q, const query_path *path, query_node *node);
/* One step of a path from `node` (looked through as query_resolve does):
 * the node it names, next->shape NULL when none; q->index is then the
 * element an index step found. */
SHORN_PRIVATE shorn_code query_step(query *q, const query_node *node, const path_step *step, query_node *next);
/* Check the node's value whole, as shorn_decode would, writing nothing. */
SHORN_PRIVATE shorn_code query_check(query *q, const query_node *node);
/* Append the node's JSON text: the decoder's, so exactly shorn_decode's. */
SHORN_PRIVATE shorn_code query_json(query *q, const query_node *node, shorn_buffer *out);
/* The SQL value of a number node as the SQL functions make it of the
 * node's JSON text, without writing the text: an integer that prints as
 * one (*is_integer), else a double that prints with a point or an
 * exponent.  False for anything else, whose text then decides. */
SHORN_PRIVATE bool query_number(query *q, const query_node *node, bool *is_integer, int64_t *integer, double *real);
/* The SQL text of a string node (a string, or an enum member that is one)
 * as the SQL functions make it of the node's JSON text, without writing
 * the text.  False for anything else, whose text then decides. */
SHORN_PRIVATE bool query_text(query *q, const query_node *node, const char **text, size_t *length);

/* A JSON value's type as SQLite's json_type names it from the value's
 * text: a number is an integer unless it is spelled with a fraction or an
 * exponent, however large it is. */
typedef enum query_json_type {
  QUERY_NULL,
  QUERY_TRUE,
  QUERY_FALSE,
  QUERY_INTEGER,
  QUERY_REAL,
  QUERY_STRING,
  QUERY_ARRAY,
  QUERY_OBJECT
} query_json_type;

/* The type of a JSON value by its text, which must be well formed. */
SHORN_PRIVATE query_json_type query_text_type(const char *json, size_t length);
/* The node's type, once its value is checked whole, writing (into
 * `scratch`) only what it must: where the value does not say how a number
 * is spelled, its spelling decides between integer and real. */
SHORN_PRIVATE shorn_code query_type(query *q, const query_node *node, shorn_buffer *scratch, query_json_type *type);

/* Past one of the shapes that add no JSON of their own, reading its header
 * as the decoder reads it: a present nullable to its value, a union to the
 * branch its index names, a ref to its definition.  False where n is none
 * of these or a null nullable, or where the header is bad (*rc then says
 * why); n is then as it was, and d->p past what was read. */
static inline bool query_unwrap(decoder *d, query_node *n, shorn_code *rc) {
  bool present = false;
  uint64_t branch;
  d->p = n->at;
  switch (n->shape->kind) {
    case SHAPE_NULLABLE:
      if ((*rc = read_marker(d, &present)) || !present) return false;
      n->shape = n->shape->u.inner;
      break;
    case SHAPE_UNION:
      if ((*rc = read_branch(d, n->shape, &branch))) return false;
      n->shape = n->shape->u.choice.branches[branch];
      break;
    case SHAPE_REF: n->shape = n->shape->u.ref.target; break;
    default: return false;
  }
  n->at = d->p;
  return true;
}

/* For the tests: pass over the node's value by its layout alone, as a path
 * passes what lies off it; false where it does not pass, else *end is the
 * byte after it. */
SHORN_PRIVATE TEST_HOOK bool query_pass(query *q, const query_node *node, const uint8_t **end);

#endif
