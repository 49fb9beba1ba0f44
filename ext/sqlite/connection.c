/*
 * connection.c — what the SQL functions of one connection share: the cache
 * of compiled schemas, how a schema argument is resolved (inline JSON
 * Schema, a name or a fingerprint in the registry's table), the output
 * buffer, error reporting, and registration.
 */
#include <stdarg.h>
#include <string.h>

#include "sqlite/connection.h"

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

void shorn_compiled_release(void *p) {
  shorn_compiled *c = p;
  if (c && --c->refs == 0) {
    shorn_schema_free(c->schema);
    sqlite3_free(c);
  }
}

static unsigned hash_text(const char *s, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static void entry_clear(shorn_cache_entry *e) {
  sqlite3_free(e->key);
  shorn_compiled_release(e->compiled);
  memset(e, 0, sizeof *e);
}

static shorn_compiled *cache_find(shorn_state *st, shorn_key kind, const char *key, int n) {
  /* A schema taken from a column is asked for row after row, where auxdata
   * cannot hold it: the entry found last is tried first, with one memcmp
   * and no hash of the text nor scan of the slots, which cost as much as
   * decoding a small record. */
  shorn_cache_entry *e = &st->cache[st->last_found];
  if (e->compiled && e->kind == kind && e->key_length == n && memcmp(e->key, key, (size_t)n) == 0) {
    e->used = ++st->tick;
    return e->compiled;
  }
  unsigned h = hash_text(key, n);
  for (int i = 0; i < SHORN_CACHE_SLOTS; i++) {
    e = &st->cache[i];
    if (e->compiled && e->kind == kind && e->hash == h && e->key_length == n &&
        memcmp(e->key, key, (size_t)n) == 0) {
      e->used = ++st->tick;
      st->last_found = i;
      return e->compiled;
    }
  }
  return NULL;
}

/* Keep `c` under `key` in place of the least recently used entry; false
 * when memory ran out. */
static bool cache_store(shorn_state *st, shorn_key kind, const char *key, int n, shorn_compiled *c) {
  char *copy = sqlite3_malloc(n ? n : 1);
  if (!copy) return false;
  memcpy(copy, key, (size_t)n);
  shorn_cache_entry *victim = &st->cache[0];
  for (int i = 1; i < SHORN_CACHE_SLOTS; i++)
    if (st->cache[i].used < victim->used) victim = &st->cache[i];
  c->refs++; /* before the eviction, which may drop another reference to `c` */
  entry_clear(victim);
  *victim = (shorn_cache_entry){copy, n, kind, hash_text(key, n), ++st->tick, c};
  return true;
}

/* Compile `text`, or find it compiled: keyed by the text itself, because
 * auxdata alone misses whenever the schema comes from a column or a
 * subquery rather than a literal. */
static shorn_compiled *cache_compile(shorn_state *st, const char *text, int n, shorn_error *error) {
  shorn_compiled *c = cache_find(st, SHORN_KEY_TEXT, text, n);
  if (c) return c;
  c = sqlite3_malloc(sizeof *c);
  if (!c) {
    error->code = SHORN_ERROR_NOMEM;
    return NULL;
  }
  st->compilations++;
  if (shorn_schema_compile(text, (size_t)n, &shorn_sqlite_allocator, &c->schema, error) != SHORN_OK) {
    sqlite3_free(c);
    return NULL;
  }
  c->refs = 0; /* the cache's, taken by cache_store */
  if (!cache_store(st, SHORN_KEY_TEXT, text, n, c)) {
    shorn_schema_free(c->schema);
    sqlite3_free(c);
    error->code = SHORN_ERROR_NOMEM;
    return NULL;
  }
  return c;
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
  for (int i = 0; i < SHORN_CACHE_SLOTS; i++)
    if (st->cache[i].kind != SHORN_KEY_TEXT) entry_clear(&st->cache[i]);
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

/* Compile the schema text registered under `key`, or find it compiled;
 * NULL with `f` set. */
static shorn_compiled *compile_registered(shorn_state *st, const char *text, int length, shorn_key kind,
                                          const char *key, int n, const char *function, shorn_failure *f) {
  shorn_error error;
  shorn_compiled *c = cache_compile(st, text, length, &error);
  if (!c && error.code != SHORN_ERROR_NOMEM) {
    /* Only a registry written around the virtual table gets here. */
    char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 32];
    shorn_error_format(&error, message, sizeof message);
    shorn_fail_with(f, SQLITE_ERROR, function, "the schema registered %s '%.*s' does not compile: %s",
                    kind == SHORN_KEY_NAME ? "as" : "with fingerprint", n, key, message);
  } else if (!c) {
    f->code = SQLITE_NOMEM, f->message = NULL;
  }
  return c;
}

/* The schema registered under a name or a 4-byte fingerprint, which the
 * registry's table indexes: one row, read and compiled; a reference the
 * caller releases. */
static shorn_compiled *indexed_schema(shorn_state *st, shorn_key kind, const char *key, int n,
                                      const char *function, shorn_failure *f) {
  char *text, *why;
  int length = 0;
  int rc = shorn_registry_find(st->db, kind, key, n, &text, &length, &why);
  if (rc != SQLITE_OK) {
    fail_with_why(f, rc, function, why);
    return NULL;
  }
  shorn_compiled *c = compile_registered(st, text, length, kind, key, n, function, f);
  sqlite3_free(text);
  if (c) c->refs++;
  return c;
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

/* The row `rows` stands on, compiled; NULL with `f` set. */
static shorn_compiled *row_schema(shorn_state *st, sqlite3_stmt *rows, const char *function, shorn_failure *f) {
  const char *name = (const char *)sqlite3_column_text(rows, 0);
  const char *text = (const char *)sqlite3_column_text(rows, 1);
  if (name && text)
    return compile_registered(st, text, sqlite3_column_bytes(rows, 1), SHORN_KEY_NAME, name,
                              sqlite3_column_bytes(rows, 0), function, f);
  f->code = SQLITE_NOMEM, f->message = NULL;
  return NULL;
}

/* The one registered schema whose fingerprint `width` bytes wide is `key`
 * (hex).  The registry stores only the 4-byte fingerprint and each width
 * has its own hash, so every registered schema is compiled (once: the
 * cache keeps it by its text) and its narrower fingerprint computed.  The
 * registry is small, and what is found is cached under its fingerprint
 * until the registry changes, as a name is; computing rather than storing
 * keeps the registry's table as existing databases have it.  A reference
 * the caller releases: compiling the rows after it may evict it from the
 * cache. */
static shorn_compiled *scanned_schema(shorn_state *st, const char *key, int width, const char *function,
                                      shorn_failure *f) {
  sqlite3_stmt *rows;
  int rc = sqlite3_prepare_v2(st->db, "SELECT name, schema FROM main." SHORN_REGISTRY_TABLE "_data ORDER BY name",
                              -1, &rows, NULL);
  sqlite3_str *names = sqlite3_str_new(st->db);
  shorn_compiled *found = NULL, *c;
  int matches = 0;
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    if ((rc = sqlite3_step(rows)) != SQLITE_ROW || !(c = row_schema(st, rows, function, f))) break;
    unsigned char bytes[SHORN_REGISTRY_WIDTH];
    char hex[2 * SHORN_REGISTRY_WIDTH];
    shorn_error error;
    shorn_schema_fingerprint(c->schema, width, bytes, &error);
    hex_bytes(hex, bytes, (size_t)width);
    if (memcmp(hex, key, (size_t)(2 * width)) != 0) continue;
    sqlite3_str_appendf(names, "%s'%s'", matches++ ? ", " : "", sqlite3_column_text(rows, 0));
    shorn_compiled_release(found);
    found = c;
    c->refs++;
  }
  char *why;
  bool ok = false;
  if (rc == SQLITE_ROW) { /* row_schema failed and set `f` */
  } else if (rc != SQLITE_DONE || !matches) {
    int code = registry_why(st->db, rc, rows != NULL, SHORN_KEY_FINGERPRINT, key, 2 * width, &why);
    fail_with_why(f, code, function, why);
  } else if (sqlite3_str_errcode(names) != SQLITE_OK) {
    f->code = SQLITE_NOMEM, f->message = NULL;
  } else if (matches > 1) {
    shorn_fail_with(f, SQLITE_ERROR, function,
                    "fingerprint %.*s at %d byte%s is shared by registered schemas %s; pass the schema",
                    2 * width, key, width, width == 1 ? "" : "s", sqlite3_str_value(names));
  } else {
    ok = true;
  }
  sqlite3_free(sqlite3_str_finish(names));
  sqlite3_finalize(rows);
  if (!ok) shorn_compiled_release(found);
  return ok ? found : NULL;
}

/* The schema registered under `key` (a name, or a fingerprint in hex: 8
 * digits for the 4-byte one the registry keys, fewer for a narrower one),
 * compiled. */
static shorn_compiled *registered_schema(shorn_state *st, shorn_key kind, const char *key, int n,
                                         const char *function, shorn_failure *f) {
  registry_refresh(st);
  shorn_compiled *c = cache_find(st, kind, key, n);
  if (c) return c;
  c = kind == SHORN_KEY_FINGERPRINT && n < 2 * SHORN_REGISTRY_WIDTH ? scanned_schema(st, key, n / 2, function, f)
                                                                     : indexed_schema(st, kind, key, n, function, f);
  if (!c) return NULL;
  bool stored = cache_store(st, kind, key, n, c);
  shorn_compiled_release(c);
  if (!stored) {
    f->code = SQLITE_NOMEM, f->message = NULL;
    return NULL;
  }
  return c;
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
  return registered_schema(st, SHORN_KEY_FINGERPRINT, hex, 2 * width, function, f);
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

shorn_compiled *shorn_resolve_schema(shorn_state *st, const char *text, int n, const char *function,
                                     shorn_failure *f) {
  if (!is_inline(text, n)) return registered_schema(st, SHORN_KEY_NAME, text, n, function, f);
  shorn_error error;
  shorn_compiled *c = cache_compile(st, text, n, &error);
  if (!c) shorn_fail_with_error(f, function, &error);
  return c;
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

shorn_compiled *shorn_schema_argument(sqlite3_context *ctx, int argument_index, sqlite3_value *value,
                                      const char *function) {
  /* For a name, auxdata makes its binding hold for the rest of the
   * statement's run; SQLite drops auxdata when the statement is reset. */
  shorn_compiled *c = sqlite3_get_auxdata(ctx, argument_index);
  if (c) return c;
  shorn_failure f;
  int n;
  const char *text = shorn_schema_text(value, &n, function, &f);
  if (text) c = shorn_resolve_schema(sqlite3_user_data(ctx), text, n, function, &f);
  if (!c) {
    shorn_report_failure(ctx, &f);
    return NULL;
  }
  /* The cache's reference keeps `c` alive through this call even if SQLite
   * runs the destructor at once, as it may. */
  c->refs++;
  sqlite3_set_auxdata(ctx, argument_index, c, shorn_compiled_release);
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

shorn_buffer *shorn_output(sqlite3_context *ctx) {
  shorn_state *st = sqlite3_user_data(ctx);
  st->out.length = 0;
  return &st->out;
}

void shorn_result_refusal(sqlite3_context *ctx, const shorn_schema *schema, const char *json, size_t n) {
  shorn_error e;
  shorn_code rc = shorn_encode(schema, json, n, 0, shorn_output(ctx), &e);
  if (rc == SHORN_ERROR_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else if (rc) {
    char text[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 8];
    sqlite3_result_text(ctx, text, (int)shorn_error_format(&e, text, sizeof text), SQLITE_TRANSIENT);
  }
}

/* Past this the output buffer is handed to SQLite rather than kept. */
#define OUTPUT_KEPT 65536

void shorn_result_output(sqlite3_context *ctx, bool text) {
  shorn_buffer *b = &((shorn_state *)sqlite3_user_data(ctx))->out;
  if (!b->length) { /* a payload of literals only */
    sqlite3_result_zeroblob(ctx, 0);
  } else if (b->capacity > OUTPUT_KEPT) {
    /* A large result: SQLite takes the buffer over (it grows with
     * shorn_sqlite_allocator), which saves a copy and keeps what a
     * connection holds between calls small. */
    if (text)
      sqlite3_result_text64(ctx, (const char *)b->data, b->length, sqlite3_free, SQLITE_UTF8);
    else
      sqlite3_result_blob64(ctx, b->data, b->length, sqlite3_free);
    *b = (shorn_buffer){.allocator = b->allocator};
  } else {
    /* A copy, into the storage SQLite's result register keeps from row to
     * row: no allocation, where a buffer handed over cost one (and its
     * growth several) per row. */
    if (text)
      sqlite3_result_text64(ctx, (const char *)b->data, b->length, SQLITE_TRANSIENT, SQLITE_UTF8);
    else
      sqlite3_result_blob64(ctx, b->data, b->length, SQLITE_TRANSIENT);
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
  st->db = db;
  st->registrations = 1;
  st->out.allocator = &shorn_sqlite_allocator;
  return st;
}

void shorn_state_release(void *p) {
  shorn_state *st = p;
  if (--st->registrations) return;
  for (int i = 0; i < SHORN_CACHE_SLOTS; i++) entry_clear(&st->cache[i]);
  shorn_buffer_free(&st->out);
  sqlite3_free(st);
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

