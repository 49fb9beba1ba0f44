/*
 * connection.c — what the SQL functions of one connection share: the cache
 * of compiled schemas, how a schema argument is resolved (inline JSON
 * Schema, a name or a fingerprint in the registry's table), the output
 * buffer, error reporting, and registration.
 */
#include <stdarg.h>
#include <string.h>

#include "sqlite/connection.h"

#include "core/shape/shape.h"
#include "core/text/text.h"

static void *sqlite_realloc(void *context, void *block, size_t size) {
  (void)context;
  return sqlite3_realloc64(block, size);
}

static void sqlite_free(void *context, void *block) {
  (void)context;
  sqlite3_free(block);
}

SHORN_PRIVATE const shorn_allocator shorn_sqlite_allocator = {sqlite_realloc, sqlite_free, NULL};

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

/* ---- the schema cache ---------------------------------------------------- */

/* The connection's entry for inline schema text, compiled if no connection
 * of the process has it: keyed by the text itself, because auxdata alone
 * misses whenever the schema comes from a column or a subquery rather than
 * a literal. */
static shorn_cache_entry *text_entry(shorn_state *st, const char *text, int n, shorn_error *error) {
  uint64_t hash;
  shorn_cache_entry *e = shorn_cache_find(&st->cache, SHORN_KEY_TEXT, text, n, &hash);
  if (e) return e;
  shorn_compiled *c = shorn_compiled_get(text, n, hash, &st->cache.compilations, error);
  if (!c) return NULL;
  if (!(e = shorn_cache_store(&st->cache, hash, c))) error->code = SHORN_ERROR_NOMEM;
  return e;
}

/* ---- schemas from the registry ------------------------------------------ */

/* Drop what the cache read from the registry unless nothing can have
 * changed it since: main's data version counts commits (this connection's
 * and others'), registry_changes this connection's uncommitted writes and
 * rollbacks.  A connection outside a transaction on main has not looked at
 * the file since its last one, so its data version may be stale and
 * nothing read is trusted. */
static void registry_refresh(shorn_state *st) {
  unsigned version = 0;
  bool reading = sqlite3_txn_state(st->db, "main") != SQLITE_TXN_NONE &&
                 sqlite3_file_control(st->db, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK;
  if (reading && version == st->read_data_version && st->registry_changes == st->read_changes) return;
  shorn_cache_invalidate(&st->cache);
  st->read_data_version = version;
  st->read_changes = st->registry_changes;
}

static void fail_with_v(shorn_failure *f, int code, const char *function, const char *format,
                        va_list ap) {
  char *reason = sqlite3_vmprintf(format, ap);
  f->message = reason ? sqlite3_mprintf("%s: %s", function, reason) : NULL;
  f->code = f->message ? code : SQLITE_NOMEM;
  sqlite3_free(reason);
}

void shorn_fail_with(shorn_failure *f, int code, const char *function, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fail_with_v(f, code, function, format, ap);
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
  fail_with_v(&f, SQLITE_ERROR, function, format, ap);
  va_end(ap);
  shorn_report_failure(ctx, &f);
}

/* Set `f` to the reason shorn_registry_find or registry_why gave, or to
 * SQLITE_NOMEM when there is none. */
static void fail_with_why(shorn_failure *f, int rc, const char *function, char *why) {
  if (why)
    shorn_fail_with(f, rc, function, "%s", why);
  else
    f->code = SQLITE_NOMEM, f->message = NULL;
  sqlite3_free(why);
}

/* The connection's entry for the schema text registered under `key`; NULL
 * with `f` set. */
static shorn_cache_entry *registered_text_entry(shorn_state *st, const char *text, int length, shorn_key kind,
                                                const char *key, int n, const char *function, shorn_failure *f) {
  shorn_error error;
  shorn_cache_entry *e = text_entry(st, text, length, &error);
  if (!e && error.code != SHORN_ERROR_NOMEM) {
    /* Only a registry written around the virtual table gets here. */
    char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 32];
    shorn_error_format(&error, message, sizeof message);
    shorn_fail_with(f, SQLITE_ERROR, function, "the schema registered %s '%.*s' does not compile: %s",
                    kind == SHORN_KEY_NAME ? "as" : "with fingerprint", n, key, message);
  } else if (!e) {
    f->code = SQLITE_NOMEM, f->message = NULL;
  }
  return e;
}

/* The schema registered under a name or a 4-byte fingerprint, which the
 * registry's table indexes: one row read, and its text's entry. */
static shorn_cache_entry *indexed_entry(shorn_state *st, shorn_key kind, const char *key, int n,
                                        const char *function, shorn_failure *f) {
  char *text, *why;
  int length = 0;
  int rc = shorn_registry_find(st->db, kind, key, n, &text, &length, &why);
  if (rc != SQLITE_OK) {
    fail_with_why(f, rc, function, why);
    return NULL;
  }
  shorn_cache_entry *e = registered_text_entry(st, text, length, kind, key, n, function, f);
  sqlite3_free(text);
  return e;
}

/* Why the registry has nothing under `key`: `rc` is SQLITE_DONE when the
 * lookup found no row, else the error of preparing (`prepared` false) or
 * stepping its statement, which is fixed, so that failing to prepare it
 * means there is no registry.  Returns the error code and sets *why (NULL
 * when memory ran out). */
static int registry_why(sqlite3 *db, int rc, bool prepared, shorn_key kind, const char *key, int key_length,
                        char **why) {
  *why = NULL;
  if (rc == SQLITE_DONE || (!prepared && rc == SQLITE_ERROR)) {
    *why = sqlite3_mprintf(kind == SHORN_KEY_NAME ? "no schema named '%.*s' is registered%s"
                                                  : "no schema with fingerprint %.*s is registered%s",
                           key_length, key,
                           rc == SQLITE_DONE ? " in " SHORN_REGISTRY_TABLE
                                             : ": there is no table main." SHORN_REGISTRY_TABLE
                                               " (CREATE VIRTUAL TABLE " SHORN_REGISTRY_TABLE
                                               " USING shorn_registry)");
    rc = SQLITE_ERROR;
  } else if (rc != SQLITE_NOMEM) {
    *why = sqlite3_mprintf("cannot read main." SHORN_REGISTRY_TABLE ": %s", sqlite3_errmsg(db));
  }
  return *why ? rc : SQLITE_NOMEM;
}

static bool fingerprint_is(const shorn_schema *schema, const char *key, int width) {
  unsigned char bytes[SHORN_REGISTRY_WIDTH];
  char hex[2 * SHORN_REGISTRY_WIDTH];
  shorn_error error;
  shorn_schema_fingerprint(schema, width, bytes, &error);
  hex_bytes(hex, bytes, (size_t)width);
  return memcmp(hex, key, (size_t)(2 * width)) == 0;
}

/* The registered schema whose fingerprint `width` bytes wide is `key` (hex).
 * The registry stores only the 4-byte fingerprint and each width has its
 * own hash, so each row's is computed from the signature the registry
 * keeps; only the one row that matches is compiled, and its fingerprint
 * checked.  Computing rather than storing keeps the registry's table as
 * existing databases have it.  Its text's entry, or NULL with `f` set. */
static shorn_cache_entry *scanned_entry(shorn_state *st, const char *key, int width, const char *function,
                                       shorn_failure *f) {
  sqlite3_stmt *rows;
  int rc = sqlite3_prepare_v2(st->db, "SELECT name, signature FROM main." SHORN_REGISTRY_TABLE "_data ORDER BY name",
                              -1, &rows, NULL);
  sqlite3_str *names = sqlite3_str_new(st->db);
  char *found = NULL;
  int matches = 0;
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    if ((rc = sqlite3_step(rows)) != SQLITE_ROW) break;
    const char *name = (const char *)sqlite3_column_text(rows, 0);
    const char *signature = (const char *)sqlite3_column_text(rows, 1);
    if (!name || !signature) {
      rc = SQLITE_NOMEM;
      break;
    }
    uint32_t hash = shape_fingerprint_hash(signature, (size_t)sqlite3_column_bytes(rows, 1), width);
    unsigned char bytes[SHORN_REGISTRY_WIDTH];
    char hex[2 * SHORN_REGISTRY_WIDTH];
    for (int i = 0; i < width; i++) bytes[i] = (unsigned char)(hash >> (8 * (width - 1 - i)));
    hex_bytes(hex, bytes, (size_t)width);
    if (memcmp(hex, key, (size_t)(2 * width)) != 0) continue;
    sqlite3_str_appendf(names, "%s'%s'", matches++ ? ", " : "", name);
    sqlite3_free(found);
    found = sqlite3_mprintf("%s", name);
  }
  char *why;
  shorn_cache_entry *e = NULL;
  if (rc == SQLITE_NOMEM || (matches && !found) || sqlite3_str_errcode(names) != SQLITE_OK) {
    f->code = SQLITE_NOMEM, f->message = NULL;
  } else if (rc != SQLITE_DONE || !matches) {
    int code = registry_why(st->db, rc, rows != NULL, SHORN_KEY_FINGERPRINT, key, 2 * width, &why);
    fail_with_why(f, code, function, why);
  } else if (matches > 1) {
    shorn_fail_with(f, SQLITE_ERROR, function,
                    "fingerprint %.*s at %d byte%s is shared by registered schemas %s; pass the schema",
                    2 * width, key, width, width == 1 ? "" : "s", sqlite3_str_value(names));
  } else if ((e = indexed_entry(st, SHORN_KEY_NAME, found, (int)strlen(found), function, f)) &&
             !fingerprint_is(e->compiled->schema, key, width)) {
    /* A signature written around the virtual table. */
    e = NULL;
    int code = registry_why(st->db, SQLITE_DONE, true, SHORN_KEY_FINGERPRINT, key, 2 * width, &why);
    fail_with_why(f, code, function, why);
  }
  sqlite3_free(found);
  sqlite3_free(sqlite3_str_finish(names));
  sqlite3_finalize(rows);
  return e;
}

/* The connection's entry for the schema registered under `key` (a name,
 * or a fingerprint in hex: 8 digits for the 4-byte one the registry keys,
 * fewer for a narrower one). */
static shorn_cache_entry *registered_entry(shorn_state *st, shorn_key kind, const char *key, int n,
                                           const char *function, shorn_failure *f) {
  registry_refresh(st);
  uint64_t hash;
  shorn_cache_entry *e = shorn_cache_find(&st->cache, kind, key, n, &hash);
  if (e) return e;
  shorn_cache_entry *text = kind == SHORN_KEY_FINGERPRINT && n < 2 * SHORN_REGISTRY_WIDTH
                                ? scanned_entry(st, key, n / 2, function, f)
                                : indexed_entry(st, kind, key, n, function, f);
  if (!text) return NULL;
  if (!(e = shorn_cache_alias(&st->cache, kind, key, n, hash, text))) f->code = SQLITE_NOMEM, f->message = NULL;
  return e;
}

shorn_compiled *shorn_dispatch(shorn_state *st, const uint8_t *data, size_t n, int width, const char *function,
                               shorn_failure *f) {
  if (n < (size_t)width) {
    shorn_fail_with(f, SQLITE_ERROR, function,
                    "the payload is too short to start with a %d-byte fingerprint (its length is %d)", width, (int)n);
    return NULL;
  }
  char hex[2 * SHORN_REGISTRY_WIDTH];
  hex_bytes(hex, data, (size_t)width);
  shorn_cache_entry *e = registered_entry(st, SHORN_KEY_FINGERPRINT, hex, 2 * width, function, f);
  return e ? e->compiled : NULL;
}

shorn_compiled *shorn_prefixed_schema(sqlite3_context *ctx, const uint8_t *data, size_t n, int width,
                                      const char *function) {
  shorn_failure f;
  shorn_compiled *c = shorn_dispatch(sqlite3_user_data(ctx), data, n, width, function, &f);
  if (!c) shorn_report_failure(ctx, &f);
  return c;
}

shorn_compiled *shorn_dispatched_schema(sqlite3_context *ctx, sqlite3_value *value, const uint8_t *data, size_t n,
                                        const char *function, int *width) {
  if ((*width = shorn_width(value))) return shorn_prefixed_schema(ctx, data, n, *width, function);
  shorn_report_text(ctx, function, SHORN_BAD_WIDTH);
  return NULL;
}

/* Inline JSON Schema is an object, so its text starts with '{' after any
 * JSON white space; any other text is a name. */
static bool is_inline(const char *text, int n) {
  int i = 0;
  while (i < n && text[i] && strchr(" \t\n\r", text[i])) i++;
  return i < n && text[i] == '{';
}

static shorn_cache_entry *resolve_entry(shorn_state *st, const char *text, int n, const char *function,
                                        shorn_failure *f) {
  if (!is_inline(text, n)) return registered_entry(st, SHORN_KEY_NAME, text, n, function, f);
  shorn_error error;
  shorn_cache_entry *e = text_entry(st, text, n, &error);
  if (!e) shorn_fail_with_error(f, function, &error);
  return e;
}

shorn_compiled *shorn_resolve_schema(shorn_state *st, const char *text, int n, const char *function,
                                     shorn_failure *f) {
  shorn_cache_entry *e = resolve_entry(st, text, n, function, f);
  return e ? e->compiled : NULL;
}

const char *shorn_schema_text(sqlite3_value *value, int *n, const char *function, shorn_failure *f) {
  /* The type first: reading a value as text makes it text.  SQLite hands
   * over a BLOB's bytes as text unchecked. */
  bool blob = sqlite3_value_type(value) == SQLITE_BLOB;
  const char *text = (const char *)sqlite3_value_text(value);
  *n = sqlite3_value_bytes(value);
  if (!text) {
    f->code = SQLITE_NOMEM, f->message = NULL;
    return NULL;
  }
  if (blob && !utf8_valid((const uint8_t *)text, (size_t)*n, (size_t)*n)) {
    shorn_fail_with(f, SQLITE_ERROR, function,
                    "the schema must be TEXT, or a BLOB of UTF-8 text; got a BLOB that is not UTF-8");
    return NULL;
  }
  return text;
}

shorn_compiled *shorn_pin_schema(sqlite3_context *ctx, int index, sqlite3_value *value, const char *function) {
  /* For a name, auxdata makes its binding hold for the rest of the
   * statement's run; SQLite drops auxdata when the statement is reset.  It
   * pins the connection's entry, which stays valid while pinned even if
   * evicted. */
  shorn_failure f;
  int n;
  shorn_cache_entry *e = NULL;
  const char *text = shorn_schema_text(value, &n, function, &f);
  if (text) e = resolve_entry(sqlite3_user_data(ctx), text, n, function, &f);
  if (!e) {
    shorn_report_failure(ctx, &f);
    return NULL;
  }
  /* The cache keeps `e` through this call even if SQLite runs the
   * destructor at once, as it may. */
  shorn_compiled *c = e->compiled;
  shorn_cache_pin(e);
  sqlite3_set_auxdata(ctx, index, e, shorn_cache_unpin);
  return c;
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

/* ---- reading the registry ------------------------------------------------ */

int shorn_registry_find(sqlite3 *db, shorn_key kind, const char *key, int key_length, char **text,
                        int *length, char **why) {
  *text = *why = NULL;
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db,
                              kind == SHORN_KEY_NAME
                                  ? "SELECT schema FROM main." SHORN_REGISTRY_TABLE "_data WHERE name = ?1"
                                  : "SELECT schema FROM main." SHORN_REGISTRY_TABLE
                                    "_data WHERE fingerprint = ?1",
                              -1, &st, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, key, key_length, SQLITE_STATIC);
    rc = sqlite3_step(st);
  }
  if (rc == SQLITE_ROW) {
    const char *schema = (const char *)sqlite3_column_text(st, 0);
    *length = sqlite3_column_bytes(st, 0);
    *text = schema ? sqlite3_malloc(*length ? *length : 1) : NULL;
    if (*text) memcpy(*text, schema, (size_t)*length);
    rc = *text ? SQLITE_OK : SQLITE_NOMEM;
  } else {
    rc = registry_why(db, rc, st != NULL, kind, key, key_length, why);
  }
  sqlite3_finalize(st);
  return rc;
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
  return st;
}

void shorn_state_release(void *p) {
  shorn_state *st = p;
  if (--st->registrations) return;
  shorn_cache_free(&st->cache);
  shorn_buffer_free(&st->out);
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

