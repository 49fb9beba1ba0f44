/*
 * connection.c — what the SQL functions of one connection share: its
 * state, the output buffer, error reporting, and registration.  What a
 * schema argument stands for is resolve.c's.
 */
#include <stdarg.h>
#include <string.h>

#include "sqlite/connection.h"

#include "core/text/text.h"

static void *shorn_sqlite_realloc(void *context, void *block, size_t size) {
  (void)context;
  return sqlite3_realloc64(block, size);
}

static void shorn_sqlite_free(void *context, void *block) {
  (void)context;
  sqlite3_free(block);
}

SHORN_PRIVATE const shorn_allocator shorn_sqlite_allocator = {shorn_sqlite_realloc, shorn_sqlite_free, NULL};

/* ---- errors -------------------------------------------------------------- */

void shorn_report(sqlite3_context *ctx, const char *function, const shorn_error *error) {
  if (error->code == SHORN_ERROR_NOMEM) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  char text[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 64];
  size_t n = strlen(function);
  memcpy(text, function, n);
  memcpy(text + n, ": ", 2);
  shorn_error_format(error, text + n + 2, sizeof text - n - 2);
  sqlite3_result_error(ctx, text, -1);
}

static void shorn_fail_with_v(shorn_failure *f, int code, const char *function, const char *format,
                        va_list ap) {
  char *reason = sqlite3_vmprintf(format, ap);
  f->message = reason ? sqlite3_mprintf("%s: %s", function, reason) : NULL;
  f->code = f->message ? code : SQLITE_NOMEM;
  sqlite3_free(reason);
}

void shorn_fail_with(shorn_failure *f, int code, const char *function, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  shorn_fail_with_v(f, code, function, format, ap);
  va_end(ap);
}

void shorn_fail_with_error(shorn_failure *f, const char *function, const shorn_error *error) {
  if (error->code == SHORN_ERROR_NOMEM) {
    f->code = SQLITE_NOMEM;
    f->message = NULL;
    return;
  }
  char text[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 32];
  shorn_error_format(error, text, sizeof text);
  shorn_fail_with(f, SQLITE_ERROR, function, "%s", text);
}

void shorn_report_failure(sqlite3_context *ctx, shorn_failure *f) {
  if (f->code == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error(ctx, f->message, -1);
    sqlite3_result_error_code(ctx, f->code);
  }
  sqlite3_free(f->message);
  f->message = NULL;
}

void shorn_report_text(sqlite3_context *ctx, const char *function, const char *format, ...) {
  shorn_failure f;
  va_list ap;
  va_start(ap, format);
  shorn_fail_with_v(&f, SQLITE_ERROR, function, format, ap);
  va_end(ap);
  shorn_report_failure(ctx, &f);
}

/* ---- argument helpers ---------------------------------------------------- */

int shorn_width(sqlite3_value *value) {
  switch (sqlite3_value_numeric_type(value)) {
    case SQLITE_INTEGER: {
      sqlite3_int64 w = sqlite3_value_int64(value);
      return w >= 1 && w <= 4 ? (int)w : 0;
    }
    case SQLITE_FLOAT: {
      double w = sqlite3_value_double(value);
      return w == 1 || w == 2 || w == 3 || w == 4 ? (int)w : 0;
    }
    default: return 0;
  }
}

const char *shorn_not_a_blob(sqlite3_value *payload) {
  switch (sqlite3_value_type(payload)) {
    case SQLITE_TEXT: return "the payload must be a BLOB; got TEXT";
    case SQLITE_INTEGER: return "the payload must be a BLOB; got INTEGER";
    case SQLITE_FLOAT: return "the payload must be a BLOB; got REAL";
    default: return "the payload must be a BLOB; got NULL";
  }
}

void shorn_report_payload(sqlite3_context *ctx, const char *function, int rc, sqlite3_value *payload) {
  if (rc == SQLITE_NOMEM)
    sqlite3_result_error_nomem(ctx);
  else
    shorn_report_text(ctx, function, "%s", shorn_not_a_blob(payload));
}

void shorn_result_refusal(sqlite3_context *ctx, const char *function, const shorn_schema *schema, const char *json,
                          size_t n) {
  shorn_error e;
  shorn_code rc = shorn_encode(schema, json, n, 0, shorn_output(ctx), &e);
  if (rc == SHORN_ERROR_NOMEM || rc == SHORN_ERROR_SCHEMA) {
    shorn_report(ctx, function, &e);
  } else if (rc) {
    char text[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 8];
    sqlite3_result_text(ctx, text, (int)shorn_error_format(&e, text, sizeof text), SQLITE_TRANSIENT);
  }
}

/* An output block: this header, then the bytes of the output buffer. */
typedef struct output_block {
  shorn_state *st;
  struct output_block *next; /* among the state's spares */
  size_t capacity;           /* set when handed to SQLite */
} output_block;

static void *output_realloc(void *context, void *data, size_t size) {
  output_block *block = data ? (output_block *)data - 1 : NULL;
  if (size > SIZE_MAX - sizeof *block || !(block = sqlite3_realloc64(block, sizeof *block + size))) return NULL;
  block->st = context;
  return block + 1;
}

static void output_free(void *context, void *data) {
  (void)context;
  if (data) sqlite3_free((output_block *)data - 1);
}

/* No more spares than this are kept.  Two cover a result register's
 * steady state, the block SQLite holds and the one written next. */
#define OUTPUT_SPARES 2

/* SQLite's destructor of a BLOB result: the block becomes a spare. */
static void output_release(void *data) {
  output_block *block = (output_block *)data - 1;
  shorn_state *st = block->st;
  if (block->capacity > SHORN_OUTPUT_KEPT || st->spare_count == OUTPUT_SPARES) {
    sqlite3_free(block);
    return;
  }
  block->next = st->spares;
  st->spares = block;
  st->spare_count++;
}

void shorn_result_handed(sqlite3_context *ctx, shorn_buffer *b, bool text) {
  if (!b->length) { /* a payload of literals only */
    sqlite3_result_zeroblob(ctx, 0);
  } else {
    /* Handed over, which saves the copy; the next result is written into
     * a spare, or a new block.  SQLite may run the destructor at once, so
     * the buffer lets go of the block first. */
    output_block *block = (output_block *)b->data - 1, *spare = block->st->spares;
    unsigned char *data = b->data;
    size_t length = b->length;
    block->capacity = b->capacity;
    b->data = NULL, b->length = b->capacity = 0;
    if (spare) {
      block->st->spares = spare->next;
      block->st->spare_count--;
      b->data = (unsigned char *)(spare + 1);
      b->capacity = spare->capacity;
    }
    if (text)
      sqlite3_result_text64(ctx, (const char *)data, length, output_release, SQLITE_UTF8);
    else
      sqlite3_result_blob64(ctx, data, length, output_release);
  }
}

/* ---- registration -------------------------------------------------------- */

shorn_state *shorn_state_new(sqlite3 *db) {
  shorn_state *st = sqlite3_malloc(sizeof *st);
  if (!st) return NULL;
  memset(st, 0, sizeof *st);
  if (shorn_shared_open() != SQLITE_OK) {
    sqlite3_free(st);
    return NULL;
  }
  st->cache.limit = SHORN_CACHE_BYTES;
  st->db = db;
  st->registrations = 1;
  st->out_allocator = (shorn_allocator){output_realloc, output_free, st};
  st->out.allocator = &st->out_allocator;
  st->upgraded.allocator = st->upgrade_json.allocator = &shorn_sqlite_allocator;
  return st;
}

void shorn_state_release(void *p) {
  shorn_state *st = p;
  if (--st->registrations) return;
  shorn_cache_free(&st->cache);
  shorn_buffer_free(&st->out);
  shorn_buffer_free(&st->upgraded);
  shorn_buffer_free(&st->upgrade_json);
  while (st->spares) {
    output_block *next = st->spares->next;
    sqlite3_free(st->spares);
    st->spares = next;
  }
  sqlite3_free(st);
  shorn_shared_close();
}

int shorn_register(sqlite3 *db, shorn_state *st, const shorn_function *functions, size_t function_count,
                   const shorn_module *modules, size_t module_count) {
  int rc = SQLITE_OK;
  for (size_t i = 0; i < function_count && rc == SQLITE_OK; i++) {
    st->registrations++;
    rc = sqlite3_create_function_v2(db, functions[i].name, functions[i].arguments, functions[i].flags, st,
                                    functions[i].call, NULL, NULL, shorn_state_release);
  }
  for (size_t i = 0; i < module_count && rc == SQLITE_OK; i++) {
    st->registrations++;
    rc = sqlite3_create_module_v2(db, modules[i].name, modules[i].module, st, shorn_state_release);
  }
  return rc;
}

