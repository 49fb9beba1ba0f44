/*
 * json_text.c — JSON text as SQLite 3.40's JSON functions read it: the
 * names json_type gives, an integer's value, a string's value between its quotes,
 * and the rows json_each and json_tree make of a value, numbered and keyed
 * as SQLite numbers and keys them.  The query functions answer from a
 * payload's bytes what these functions would answer from its decoded text,
 * by 3.40's rules in whichever SQLite loads them: SQLite 3.45 changed some,
 * and an answer an index stores must not change with the library
 * (docs/querying.md).
 */
#include "sqlite/json_text.h"

#include "core/json/json.h"
#include "core/base/memory.h"
#include "core/text/text.h"


/* ---- JSON text, as SQLite reads it --------------------------------------- */

SHORN_PRIVATE const char *const json_text_type_name[8] = {"null", "true", "false", "integer",
                                           "real", "text", "array", "object"};

bool json_text_integer(const char *json, size_t n, int64_t *value) {
  bool negative = json[0] == '-';
  uint64_t magnitude = 0;
  for (size_t i = negative; i < n; i++) {
    if (magnitude > (UINT64_MAX - 9) / 10) return false;
    magnitude = magnitude * 10 + (uint64_t)(json[i] - '0');
  }
  /* SQLite keeps -2^63 as an integer, and nothing beyond. */
  if (magnitude > (uint64_t)INT64_MAX + negative) return false;
  *value = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
  return true;
}

bool json_text_unescape(const char *s, size_t n, shorn_buffer *scratch, const char **value,
                        size_t *length) {
  if (!memchr(s, '\\', n)) {
    *value = s;
    *length = n;
    return true;
  }
  scratch->length = 0;
  if (!buffer_reserve(scratch, n)) return false;
  /* The parser's escapes, but SQLite 3.40 ends the string at an escaped NUL. */
  uint8_t *o = json_unescape(scratch->data, (const uint8_t *)s, n, true, NULL);
  *value = (const char *)scratch->data;
  *length = (size_t)(o - scratch->data);
  return true;
}

/* ---- json_each and json_tree rows ------------------------------------------ */

/* The closing quote of the JSON string whose opening quote is at p. */
static const char *json_text_string_end(const char *p, const char *end) {
  for (p++; p < end && *p != '"'; p++)
    if (*p == '\\') p++;
  return p;
}

/* The end of the JSON value at p, in text the decoder wrote (minified, well
 * formed), and how many nodes SQLite 3.40 counts in it: one per value and
 * one per object key. */
static const char *json_text_value_end(const char *p, const char *end, uint32_t *nodes) {
  uint32_t count = 0;
  int depth = 0;
  do {
    char c = *p;
    if (c == '{' || c == '[') {
      depth++, count++, p++;
    } else if (c == '}' || c == ']') {
      depth--, p++;
    } else if (c == ',' || c == ':') {
      p++;
    } else {
      count++;
      if (c == '"')
        p = json_text_string_end(p, end) + 1;
      else
        while (p < end && *p != ',' && *p != ']' && *p != '}') p++;
    }
  } while (depth > 0 && p < end);
  *nodes = count;
  return p;
}

/* `.name` in fullkey: bare when a letter then letters and digits, else in
 * quotes, the name as the JSON text writes it (SQLite 3.40's rule). */
static bool json_text_append_name(shorn_buffer *b, const char *name, size_t n) {
  bool bare = n && is_letter(name[0]);
  for (size_t i = 1; bare && i < n; i++) bare = is_letter(name[i]) || is_digit(name[i]);
  if (!buffer_byte(b, '.')) return false;
  if (bare) return buffer_append(b, name, n);
  return buffer_byte(b, '"') && buffer_append(b, name, n) && buffer_byte(b, '"');
}

static bool json_text_append_index(shorn_buffer *b, uint64_t index) {
  char text[24], *o = text + sizeof text;
  *--o = ']';
  do *--o = (char)('0' + index % 10);
  while (index /= 10);
  *--o = '[';
  return buffer_append(b, o, (size_t)(text + sizeof text - o));
}

static bool json_text_push_frame(json_rows *r, const json_row *row) {
  if (r->depth == r->capacity) {
    row_frame *frames =
        array_grow(r->fullkey.allocator, r->frames, &r->capacity, r->depth + 1, sizeof *frames, NULL);
    if (!frames) return false;
    r->frames = frames;
  }
  r->frames[r->depth++] = (row_frame){row->id, row->type == QUERY_OBJECT, 0, r->fullkey.length};
  return true;
}

static bool json_text_is_container(query_json_type type) {
  return type == QUERY_ARRAY || type == QUERY_OBJECT;
}

shorn_code json_rows_start(json_rows *r, const char *json, size_t n, bool recursive,
                           const query_path *path) {
  r->p = json;
  r->end = json + n;
  r->recursive = recursive;
  r->done = false;
  r->depth = 0;
  r->next_id = 1;
  r->fullkey.length = 0;
  json_row *row = &r->row;
  *row = (json_row){query_text_type(json, n), 0, -1, ROW_NO_KEY, 0, NULL, 0, json, n, 0, 0};
  bool ok = true;
  size_t parent_length = 1;
  if (!recursive) {
    /* json_each spells fullkey and path from the path as it was written. */
    ok = path ? buffer_append(&r->fullkey, path->text, path->length) : buffer_byte(&r->fullkey, '$');
    parent_length = r->fullkey.length;
  } else {
    /* json_tree spells them from the nodes above, and SQLite 3.40 says [0]
     * for every array above the first row, whichever element it was. */
    ok = buffer_byte(&r->fullkey, '$');
    for (uint32_t i = 0; ok && path && i < path->count; i++) {
      const path_step *step = &path->steps[i];
      parent_length = r->fullkey.length;
      ok = step->kind == STEP_KEY ? json_text_append_name(&r->fullkey, step->key, step->key_length)
                                  : json_text_append_index(&r->fullkey, 0);
    }
    const path_step *last = path && path->count ? &path->steps[path->count - 1] : NULL;
    if (last && last->kind == STEP_KEY && json_text_is_container(row->type)) {
      row->key = ROW_NAME;
      row->name = last->key;
      row->name_length = last->key_length;
    }
  }
  if (!ok) return SHORN_ERROR_NOMEM;
  row->fullkey_length = r->fullkey.length;
  row->path_length = parent_length;
  if (!json_text_is_container(row->type)) return SHORN_OK;
  if (!json_text_push_frame(r, row)) return SHORN_ERROR_NOMEM;
  r->p = json + 1;
  /* json_each's rows are the children; json_tree's first is the node. */
  return recursive ? SHORN_OK : json_rows_next(r);
}

shorn_code json_rows_next(json_rows *r) {
  json_row *row = &r->row;
  for (;;) {
    if (!r->depth) {
      r->done = true;
      return SHORN_OK;
    }
    row_frame *f = &r->frames[r->depth - 1];
    if (*r->p == ']' || *r->p == '}') {
      r->p++;
      r->depth--;
      continue;
    }
    if (*r->p == ',') r->p++;
    r->fullkey.length = f->fullkey_length;
    bool ok;
    if (f->object) {
      const char *close = json_text_string_end(r->p, r->end);
      row->key = ROW_NAME;
      row->name = r->p + 1;
      row->name_length = (size_t)(close - row->name);
      r->p = close + 2; /* the quote and the colon */
      r->next_id++;     /* the key is a node too */
      ok = json_text_append_name(&r->fullkey, row->name, row->name_length);
    } else {
      row->key = ROW_INDEX;
      row->index = f->index++;
      ok = json_text_append_index(&r->fullkey, row->index);
    }
    if (!ok) return SHORN_ERROR_NOMEM;
    uint32_t nodes;
    const char *value = r->p, *stop = json_text_value_end(value, r->end, &nodes);
    row->json = value;
    row->json_length = (size_t)(stop - value);
    row->type = query_text_type(value, row->json_length);
    row->id = r->next_id;
    row->parent = r->recursive ? (int64_t)f->id : -1;
    row->fullkey_length = r->fullkey.length;
    row->path_length = f->fullkey_length;
    if (r->recursive && json_text_is_container(row->type)) {
      if (!json_text_push_frame(r, row)) return SHORN_ERROR_NOMEM;
      r->p = value + 1;
      r->next_id++;
    } else {
      r->p = stop;
      r->next_id += nodes;
    }
    return SHORN_OK;
  }
}

void json_rows_free(json_rows *r) {
  const shorn_allocator *a = r->fullkey.allocator;
  mem_free(a, r->frames);
  shorn_buffer_free(&r->fullkey);
  *r = (json_rows){.fullkey.allocator = a};
}
