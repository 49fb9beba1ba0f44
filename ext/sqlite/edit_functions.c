/*
 * edit_functions.c — SQLite's JSON editing functions over payloads, by the
 * core's edit.c:
 *
 *   shorn_set(payload, schema [, fp_bytes], path, value [, path, value]…)  as json_set
 *   shorn_insert(…the same…)                                                as json_insert
 *   shorn_replace(…the same…)                                               as json_replace
 *   shorn_remove(payload, schema [, fp_bytes], path [, path]…)              as json_remove
 *   shorn_patch(payload, schema [, fp_bytes], patch)                        as json_patch
 *
 * and each with fp_bytes in the schema's place, by dispatch.  Each returns
 * the payload shorn_encode writes for what the JSON function makes of
 * shorn_decode(payload, schema), the fingerprint kept, or its refusal.
 * Values are taken as json_set takes them: TEXT is a string unless it has
 * the subtype 'J' of a JSON function's or shorn_decode's result, numbers
 * are numbers, NULL is null.  A BLOB, which SQLite 3.45 reads as JSONB, is
 * refused: its JSON text, json(blob), says the same.
 */
#include <string.h>

#include "sqlite/edit_functions.h"
#include "sqlite/resolve.h"

#include "core/query/edit.h"
#include "core/base/memory.h"
#include "core/text/text.h"

/* 3.30 added this flag for functions that read their arguments' subtypes,
 * which 3.45 keeps from functions without it. */
#ifndef SQLITE_SUBTYPE
#define SQLITE_SUBTYPE 0x000100000
#endif

/* What every edit function reads before its edits: the payload, its
 * schema, the width of its fingerprint, and where the edits start. */
typedef struct edit_call {
  const char *function;
  const uint8_t *data;
  size_t length;
  shorn_compiled *compiled;
  int width;
  int first; /* the argument after the schema and fp_bytes */
} edit_call;

static bool edit_is_number_type(int type) { return type == SQLITE_INTEGER || type == SQLITE_FLOAT; }

/* Payload, schema and fp_bytes, the schema dispatched on when it is a
 * number; false when the result is NULL (a NULL payload or schema) or an
 * error, reported.  Each argument's type is asked once: on a small record
 * the calls into SQLite are much of an edit's time. */
static bool edit_open_call(sqlite3_context *ctx, int argc, sqlite3_value **argv, edit_call *c) {
  int payload_type = sqlite3_value_type(argv[0]), schema_type = sqlite3_value_type(argv[1]);
  if (payload_type == SQLITE_NULL || schema_type == SQLITE_NULL) return false;
  bool dispatch = edit_is_number_type(schema_type), has_width = argc > 2 && shorn_is_number(argv[2]);
  if (dispatch && has_width) {
    shorn_report_text(ctx, c->function, SHORN_ONE_WIDTH);
    return false;
  }
  c->first = has_width ? 3 : 2;
  c->width = has_width ? shorn_width(argv[2]) : 0;
  if (has_width && !c->width) {
    shorn_report_text(ctx, c->function, SHORN_BAD_WIDTH);
    return false;
  }
  int rc = payload_type == SQLITE_BLOB ? SQLITE_OK : SQLITE_MISMATCH;
  if (!rc) {
    c->data = sqlite3_value_blob(argv[0]);
    c->length = (size_t)sqlite3_value_bytes(argv[0]);
    if (!c->data && c->length) rc = SQLITE_NOMEM;
    if (!c->data) c->data = (const uint8_t *)""; /* SQLite's empty BLOB */
  }
  if (rc != SQLITE_OK) {
    shorn_report_payload(ctx, c->function, rc, argv[0]);
    return false;
  }
  /* A payload of a name's older version is edited in the newest. */
  shorn_binding b = {NULL, NULL};
  if (dispatch)
    b.compiled = shorn_dispatched_schema(ctx, argv[1], c->data, c->length, c->function, &c->width);
  else
    shorn_schema_argument(ctx, 1, argv[1], c->function, &b);
  c->compiled = b.compiled;
  return c->compiled != NULL && shorn_read_newest(ctx, &b, &c->data, &c->length, &c->width, c->function);
}

/* Argument `i` as a path, parsed once a statement (auxdata); *null for
 * an SQL NULL.  NULL after reporting an error. */
static const query_path *edit_path_argument(sqlite3_context *ctx, int i, sqlite3_value *v, const char *function,
                                            bool *null) {
  query_path *path = sqlite3_get_auxdata(ctx, i);
  *null = !path && shorn_is_null(v);
  if (path || *null) return path;
  const char *text = (const char *)sqlite3_value_text(v);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  shorn_error e;
  /* SQLite's JSON functions read a path up to its first NUL.  Its keys may
   * name new members, whose names must be text. */
  size_t n = strlen(text);
  if (!utf8_valid((const uint8_t *)text, n, n)) {
    shorn_report_text(ctx, function, "the path is not UTF-8");
    return NULL;
  }
  if (!(path = query_path_parse(&shorn_sqlite_allocator, text, n, &e))) {
    shorn_report(ctx, function, &e);
    return NULL;
  }
  sqlite3_set_auxdata(ctx, i, path, query_path_free);
  /* SQLite frees it at once when it cannot keep it. */
  if (!(path = sqlite3_get_auxdata(ctx, i))) sqlite3_result_error_nomem(ctx);
  return path;
}

/* A JSON text argument (a subtype-'J' value, json_patch's patch) parsed
 * into `a`; NULL after reporting an error.  SQLite's words for text that
 * is not JSON. */
static json_value *edit_parse_argument(sqlite3_context *ctx, sqlite3_value *v, arena *a, const char *function) {
  const char *text = (const char *)sqlite3_value_text(v);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  json_value *value;
  shorn_error e;
  shorn_code rc = json_parse(a, text, (size_t)sqlite3_value_bytes(v), &value, &e);
  if (rc == SHORN_ERROR_NOMEM) sqlite3_result_error_nomem(ctx);
  if (rc && rc != SHORN_ERROR_NOMEM) shorn_report_text(ctx, function, "malformed JSON");
  return rc ? NULL : value;
}

/* The JSON value json_set makes of an SQL value; NULL after reporting an
 * error. */
static const json_value *edit_value_argument(sqlite3_context *ctx, sqlite3_value *v, arena *a, const char *function) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_BLOB) {
    shorn_report_text(ctx, function, "a BLOB value is refused: pass its JSON text (json(value) for JSONB)");
    return NULL;
  }
  if (type == SQLITE_TEXT && sqlite3_value_subtype(v) == 'J') return edit_parse_argument(ctx, v, a, function);
  json_value *value = arena_alloc(a, sizeof *value);
  const char *text = type == SQLITE_TEXT ? (const char *)sqlite3_value_text(v) : "";
  if (!value || !text) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  size_t n = type == SQLITE_TEXT ? (size_t)sqlite3_value_bytes(v) : 0;
  if (!utf8_valid((const uint8_t *)text, n, n)) {
    shorn_report_text(ctx, function, "a TEXT value is not UTF-8");
    return NULL;
  }
  /* A number is the double its JSON text reads back as: an integer past
   * 2^53 rounded as the parser rounds it, an infinity (9e999 in SQLite's
   * JSON) an infinity, -0.0 zero (SQLite writes it 0.0). */
  double real = type == SQLITE_FLOAT ? sqlite3_value_double(v) : 0;
  if (type == SQLITE_NULL)
    *value = (json_value){.type = JSON_NULL};
  else if (type == SQLITE_TEXT)
    *value = (json_value){.type = JSON_STRING, .length = (uint32_t)n, .u.string = text};
  else
    *value = (json_value){.type = JSON_NUMBER,
                          .u.number = type == SQLITE_INTEGER ? (double)sqlite3_value_int64(v) : real == 0 ? 0 : real};
  return value;
}

/* Apply the edits, in order, as one: SQLite encodes nothing in between,
 * so neither may they be refused in between. */
static void edit_run(sqlite3_context *ctx, const edit_call *c, const edit *edits, int count) {
  bool removed = false;
  shorn_error e;
  shorn_buffer *out = shorn_output(ctx);
  if (edit_payload(c->compiled->schema, c->data, c->length, c->width, edits, (size_t)count, out, &removed, &e))
    shorn_report(ctx, c->function, &e);
  else if (!removed)
    shorn_result_output(ctx, out, false);
}

/* shorn_set, shorn_insert, shorn_replace and shorn_remove: read the
 * paths (and values), then run the edits.  A NULL path makes json_remove's
 * result NULL and is passed over by the others, as SQLite does. */
static void edit_call_run(sqlite3_context *ctx, int argc, sqlite3_value **argv, edit_kind kind, const char *function) {
  edit_call c = {.function = function};
  if (argc < 3) {
    shorn_report_text(ctx, function, "expects a payload, a schema and a path");
    return;
  }
  if (!edit_open_call(ctx, argc, argv, &c)) return;
  int per = kind == EDIT_REMOVE ? 1 : 2;
  if (argc == c.first || (argc - c.first) % per) {
    shorn_report_text(ctx, function, per == 1 ? "expects a payload, a schema and a path"
                                              : "expects a payload, a schema and a value after each path");
    return;
  }
  _Alignas(8) char values_here[2048];
  arena values = {.next = values_here, .end = values_here + sizeof values_here,
                  .allocator = &shorn_sqlite_allocator};
  edit edits_here[8], *edits = edits_here;
  int count = 0, pairs = (argc - c.first) / per;
  if (pairs > (int)COUNT_OF(edits_here) && !(edits = sqlite3_malloc64((sqlite3_uint64)pairs * sizeof *edits))) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  bool ok = true;
  for (int i = c.first; ok && i < argc; i += per) {
    bool null;
    edit *e = &edits[count];
    *e = (edit){kind, edit_path_argument(ctx, i, argv[i], function, &null), NULL};
    if (null) {
      ok = kind != EDIT_REMOVE;
      continue;
    }
    count++;
    ok = e->path && (per == 1 || (e->value = edit_value_argument(ctx, argv[i + 1], &values, function)));
  }
  if (ok) edit_run(ctx, &c, edits, count);
  if (edits != edits_here) sqlite3_free(edits);
  arena_free(&values);
}

static void set_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  edit_call_run(ctx, argc, argv, EDIT_SET, "shorn_set");
}

static void insert_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  edit_call_run(ctx, argc, argv, EDIT_INSERT, "shorn_insert");
}

static void replace_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  edit_call_run(ctx, argc, argv, EDIT_REPLACE, "shorn_replace");
}

static void remove_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  edit_call_run(ctx, argc, argv, EDIT_REMOVE, "shorn_remove");
}

static void patch_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  edit_call c = {.function = "shorn_patch"};
  if (!edit_open_call(ctx, argc, argv, &c)) return;
  if (argc != c.first + 1) {
    shorn_report_text(ctx, c.function, "expects a payload, a schema and a patch");
    return;
  }
  if (shorn_is_null(argv[c.first])) return;
  if (sqlite3_value_type(argv[c.first]) == SQLITE_BLOB) {
    shorn_report_text(ctx, c.function, "a BLOB patch is refused: pass its JSON text (json(patch) for JSONB)");
    return;
  }
  _Alignas(8) char patch_here[2048];
  arena a = {.next = patch_here, .end = patch_here + sizeof patch_here, .allocator = &shorn_sqlite_allocator};
  const json_value *patch = edit_parse_argument(ctx, argv[c.first], &a, c.function);
  shorn_error e;
  shorn_buffer *out = shorn_output(ctx);
  if (patch && edit_patch(c.compiled->schema, c.data, c.length, c.width, patch, out, &e))
    shorn_report(ctx, c.function, &e);
  else if (patch)
    shorn_result_output(ctx, out, false);
  arena_free(&a);
}

#define EDIT_FLAGS (SHORN_FUNCTION_FLAGS | SQLITE_SUBTYPE)

static const shorn_function edit_function_table[] = {
    {"shorn_set", -1, EDIT_FLAGS, set_function},
    {"shorn_insert", -1, EDIT_FLAGS, insert_function},
    {"shorn_replace", -1, EDIT_FLAGS, replace_function},
    {"shorn_remove", -1, SHORN_FUNCTION_FLAGS, remove_function},
    {"shorn_patch", 3, SHORN_FUNCTION_FLAGS, patch_function},
    {"shorn_patch", 4, SHORN_FUNCTION_FLAGS, patch_function},
};

int shorn_register_edit_functions(sqlite3 *db, shorn_state *st) {
  return shorn_register(db, st, edit_function_table, COUNT_OF(edit_function_table), NULL, 0);
}
