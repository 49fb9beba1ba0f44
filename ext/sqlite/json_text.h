/* json_text.h — JSON text read by SQLite 3.40's rules: json_type's names,
 * integers, string values, and the rows of json_each and json_tree. */
#ifndef SHORN_JSON_TEXT_H
#define SHORN_JSON_TEXT_H

#include "core/query/query.h"
#include "shorn.h"

/* What json_type says of a JSON value, by its query_json_type. */
SHORN_PRIVATE_DATA const char *const json_text_type_name[8];

/* JSON text read as SQLite reads it: a number spelled as an integer that fits 64 bits (false: SQLite makes it a
 * REAL, the nearest double); a string's value from between its quotes,
 * pointing into the text when it has no escapes, else into `scratch`
 * (false when out of memory); SQLite 3.40 ends it at an escaped NUL. */
SHORN_PRIVATE bool json_text_integer(const char *json, size_t length, int64_t *value);
SHORN_PRIVATE bool json_text_unescape(const char *s, size_t length, shorn_buffer *scratch, const char **value,
                        size_t *value_length);

/* The rows json_each (children) or json_tree (the node, then everything
 * under it) give over a node's JSON text, with their columns.  Nodes are
 * numbered as SQLite 3.40 numbers them, a value or an object key each, in
 * document order, from the node itself (0). */
typedef enum row_key { ROW_NO_KEY, ROW_INDEX, ROW_NAME } row_key;

typedef struct json_row {
  query_json_type type;
  uint32_t id;
  int64_t parent; /* -1: none */
  row_key key;
  uint64_t index;   /* ROW_INDEX */
  const char *name; /* ROW_NAME: as the JSON text writes it, without quotes */
  size_t name_length;
  const char *json; /* the value */
  size_t json_length;
  size_t fullkey_length, path_length; /* of json_rows.fullkey: path is a prefix */
} json_row;

typedef struct row_frame {
  uint32_t id;
  bool object;
  uint64_t index;        /* the next element's */
  size_t fullkey_length; /* the container's own fullkey */
} row_frame;

typedef struct json_rows {
  const char *p, *end;
  bool recursive, done;
  uint32_t next_id;
  row_frame *frames; /* the containers open around p; grown with fullkey's allocator */
  size_t depth, capacity;
  shorn_buffer fullkey;
  json_row row; /* the current one, unless done */
} json_rows;

/* Start over the JSON text of a node reached by `path` (NULL: `$`), which
 * spells fullkey and path; start zeroed once but for fullkey.allocator,
 * which all its memory comes from; reuse; json_rows_free. */
SHORN_PRIVATE shorn_code json_rows_start(json_rows *r, const char *json, size_t length, bool recursive,
                           const query_path *path);
SHORN_PRIVATE shorn_code json_rows_next(json_rows *r);
SHORN_PRIVATE void json_rows_free(json_rows *r);


#endif
