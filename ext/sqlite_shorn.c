/*
 * sqlite_shorn.c — the SQL functions shorn_encode, shorn_decode,
 * shorn_fingerprint and shorn_signature, how they resolve a schema argument
 * (inline text, or a name in the registry of sqlite_registry.c), and the
 * extension's entry point.
 *
 * Builds as a loadable extension (the default) or linked into an
 * application with -DSQLITE_CORE, where sqlite3_shorn_init is called
 * directly or handed to sqlite3_auto_extension.
 */
#include <stdarg.h>
#include <string.h>

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "sqlite_shorn.h"

/* ---- allocation: the core allocates through SQLite ----------------------- */

/* So results can be handed to SQLite without a copy, and so SQLite's memory
 * accounting and fault injection see the codec's allocations too. */
static void *sqlite_realloc(void *p, size_t n) { return sqlite3_realloc64(p, n); }
static void sqlite_free(void *p) { sqlite3_free(p); }

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

void shorn_hex(const unsigned char *bytes, int n, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < n; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
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
   * and no hash of the text nor scan of the slots (which cost 100 ns a row
   * with the benchmark's person schema, 200 bytes of text). */
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
  if (shorn_schema_compile(text, (size_t)n, &c->schema, error) != SHORN_OK) {
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

/* The schema registered under `key` (a name, or a fingerprint in hex),
 * compiled. */
static shorn_compiled *registered_schema(shorn_state *st, shorn_key kind, const char *key, int n,
                                         const char *function, shorn_failure *f) {
  registry_refresh(st);
  shorn_compiled *c = cache_find(st, kind, key, n);
  if (c) return c;
  char *text, *why;
  int length;
  int rc = shorn_registry_find(st->db, kind, key, n, &text, &length, &why);
  if (rc != SQLITE_OK) {
    if (why)
      shorn_fail_with(f, rc, function, "%s", why);
    else
      f->code = SQLITE_NOMEM, f->message = NULL;
    sqlite3_free(why);
    return NULL;
  }
  shorn_error error;
  c = cache_compile(st, text, length, &error);
  sqlite3_free(text);
  if (!c && error.code != SHORN_ERROR_NOMEM) {
    /* Only a registry written around the virtual table gets here. */
    char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 32];
    shorn_error_format(&error, message, sizeof message);
    shorn_fail_with(f, SQLITE_ERROR, function, "the schema registered %s '%.*s' does not compile: %s",
              kind == SHORN_KEY_NAME ? "as" : "with fingerprint", n, key, message);
    return NULL;
  }
  if (!c || !cache_store(st, kind, key, n, c)) {
    f->code = SQLITE_NOMEM, f->message = NULL;
    return NULL;
  }
  return c;
}

/* The registered schema whose fingerprint starts the payload, as
 * shorn_encode(json, name, 4) writes it. */
static shorn_compiled *prefixed_schema(sqlite3_context *ctx, const uint8_t *data, size_t n) {
  shorn_failure f;
  shorn_compiled *c = NULL;
  if (n < SHORN_REGISTRY_WIDTH) {
    shorn_fail_with(&f, SQLITE_ERROR, "shorn_decode",
                    "the payload is too short to start with a %d-byte fingerprint (its length is %d)",
                    SHORN_REGISTRY_WIDTH, (int)n);
  } else {
    char hex[2 * SHORN_REGISTRY_WIDTH];
    shorn_hex(data, SHORN_REGISTRY_WIDTH, hex);
    c = registered_schema(sqlite3_user_data(ctx), SHORN_KEY_FINGERPRINT, hex, sizeof hex, "shorn_decode", &f);
  }
  if (!c) shorn_report_failure(ctx, &f);
  return c;
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

shorn_compiled *shorn_schema_argument(sqlite3_context *ctx, int argument_index, sqlite3_value *value,
                                      const char *function) {
  /* For a name, auxdata makes its binding hold for the rest of the
   * statement's run; SQLite drops auxdata when the statement is reset. */
  shorn_compiled *c = sqlite3_get_auxdata(ctx, argument_index);
  if (c) return c;
  const char *text = (const char *)sqlite3_value_text(value);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  shorn_failure f;
  c = shorn_resolve_schema(sqlite3_user_data(ctx), text, sqlite3_value_bytes(value), function, &f);
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

void shorn_report_payload(sqlite3_context *ctx, const char *function, int rc) {
  if (rc == SQLITE_NOMEM)
    sqlite3_result_error_nomem(ctx);
  else
    shorn_report_text(ctx, function, SHORN_NOT_A_BLOB);
}

static bool any_null(int argc, sqlite3_value **argv) {
  for (int i = 0; i < argc; i++)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return true;
  return false;
}

/* The optional fingerprint width argument: 1..4, or `fallback` when absent. */
static bool width_argument(sqlite3_context *ctx, int argc, sqlite3_value **argv, int index,
                           int fallback, const char *function, int *width) {
  *width = fallback;
  if (argc <= index) return true;
  sqlite3_int64 w = sqlite3_value_int64(argv[index]);
  if (sqlite3_value_numeric_type(argv[index]) != SQLITE_INTEGER || w < 1 || w > 4) {
    shorn_report_text(ctx, function, "fingerprint width must be 1, 2, 3 or 4");
    return false;
  }
  *width = (int)w;
  return true;
}

shorn_buffer *shorn_output(sqlite3_context *ctx) {
  shorn_state *st = sqlite3_user_data(ctx);
  st->out.length = 0;
  return &st->out;
}

/* Past this the output buffer is handed to SQLite rather than kept. */
#define OUTPUT_KEPT 65536

void shorn_result_output(sqlite3_context *ctx, bool text) {
  shorn_buffer *b = &((shorn_state *)sqlite3_user_data(ctx))->out;
  if (!b->length) { /* a payload of literals only */
    sqlite3_result_zeroblob(ctx, 0);
  } else if (b->capacity > OUTPUT_KEPT) {
    /* A large result: SQLite takes the buffer over (the core allocates with
     * sqlite3_realloc64), which saves a copy and keeps what a connection
     * holds between calls small. */
    if (text)
      sqlite3_result_text64(ctx, (const char *)b->data, b->length, sqlite3_free, SQLITE_UTF8);
    else
      sqlite3_result_blob64(ctx, b->data, b->length, sqlite3_free);
    *b = (shorn_buffer){0};
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

/* ---- the functions ------------------------------------------------------- */

static void encode_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (any_null(argc, argv)) return;
  int width;
  if (!width_argument(ctx, argc, argv, 2, 0, "shorn_encode", &width)) return;
  shorn_compiled *c = shorn_schema_argument(ctx, 1, argv[1], "shorn_encode");
  if (!c) return;
  const char *json = (const char *)sqlite3_value_text(argv[0]);
  if (!json) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  shorn_error error;
  if (shorn_encode(c->schema, json, (size_t)sqlite3_value_bytes(argv[0]), width, shorn_output(ctx),
                   &error)) {
    shorn_report(ctx, "shorn_encode", &error);
    return;
  }
  shorn_result_output(ctx, false);
}

/* shorn_decode(payload) reads the schema off the payload's fingerprint;
 * shorn_decode(payload, schema [, width]) is told it. */
static void decode_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (any_null(argc, argv)) return;
  const uint8_t *data;
  size_t n;
  int rc = shorn_payload(argv[0], &data, &n);
  if (rc != SQLITE_OK) {
    shorn_report_payload(ctx, "shorn_decode", rc);
    return;
  }
  int width = SHORN_REGISTRY_WIDTH;
  shorn_compiled *c = NULL;
  if (argc == 1)
    c = prefixed_schema(ctx, data, n);
  else if (width_argument(ctx, argc, argv, 2, 0, "shorn_decode", &width))
    c = shorn_schema_argument(ctx, 1, argv[1], "shorn_decode");
  if (!c) return;
  shorn_error error;
  if (shorn_decode(c->schema, data, n, width, shorn_output(ctx), &error)) {
    shorn_report(ctx, "shorn_decode", &error);
    return;
  }
  shorn_result_output(ctx, true);
  sqlite3_result_subtype(ctx, 'J');
}

static void fingerprint_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (any_null(argc, argv)) return;
  int width;
  if (!width_argument(ctx, argc, argv, 1, SHORN_FINGERPRINT_DEFAULT, "shorn_fingerprint", &width))
    return;
  shorn_compiled *c = shorn_schema_argument(ctx, 0, argv[0], "shorn_fingerprint");
  if (!c) return;
  unsigned char bytes[4];
  shorn_error error;
  shorn_schema_fingerprint(c->schema, width, bytes, &error);
  char hex[8];
  shorn_hex(bytes, width, hex);
  sqlite3_result_text(ctx, hex, 2 * width, SQLITE_TRANSIENT);
}

static void signature_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (any_null(argc, argv)) return;
  shorn_compiled *c = shorn_schema_argument(ctx, 0, argv[0], "shorn_signature");
  if (!c) return;
  size_t n;
  const char *signature = shorn_schema_signature(c->schema, &n);
  sqlite3_result_text64(ctx, signature, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/* shorn_stats(): this connection's schema cache as JSON, so a user can see
 * that a query compiles its schema once rather than once a row. */
static void stats_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  shorn_state *st = sqlite3_user_data(ctx);
  int cached = 0;
  for (int i = 0; i < SHORN_CACHE_SLOTS; i++)
    cached += st->cache[i].compiled && st->cache[i].kind == SHORN_KEY_TEXT;
  char *text =
      sqlite3_mprintf("{\"compilations\":%llu,\"cached_schemas\":%d}", st->compilations, cached);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, text, -1, sqlite3_free);
  sqlite3_result_subtype(ctx, 'J');
}

/* ---- registration -------------------------------------------------------- */

static void state_release(void *p) {
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
                                    functions[i].call, NULL, NULL, state_release);
  }
  for (size_t i = 0; i < module_count && rc == SQLITE_OK; i++) {
    st->registrations++;
    rc = sqlite3_create_module_v2(db, modules[i].name, modules[i].module, st, state_release);
  }
  return rc;
}

static const shorn_function functions[] = {
    {"shorn_encode", 2, SHORN_FUNCTION_FLAGS, encode_function},
    {"shorn_encode", 3, SHORN_FUNCTION_FLAGS, encode_function},
    {"shorn_decode", 1, SHORN_FUNCTION_FLAGS | SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_decode", 2, SHORN_FUNCTION_FLAGS | SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_decode", 3, SHORN_FUNCTION_FLAGS | SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_fingerprint", 1, SHORN_FUNCTION_FLAGS, fingerprint_function},
    {"shorn_fingerprint", 2, SHORN_FUNCTION_FLAGS, fingerprint_function},
    {"shorn_signature", 1, SHORN_FUNCTION_FLAGS, signature_function},
    /* Not deterministic: the counts move as the connection works. */
    {"shorn_stats", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_RESULT_SUBTYPE, stats_function},
};

static const shorn_module modules[] = {{"shorn_registry", &shorn_registry_module}};

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_shorn_init(sqlite3 *db, char **error_message, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  (void)error_message;
  shorn_set_allocator(sqlite_realloc, sqlite_free);
  shorn_state *st = sqlite3_malloc(sizeof *st);
  if (!st) return SQLITE_NOMEM;
  memset(st, 0, sizeof *st);
  st->db = db;
  /* Each registration holds the state; the last one SQLite drops frees it.
   * This hold, until everything is registered, keeps a failure half-way
   * safe. */
  st->registrations = 1;
  int rc = shorn_register(db, st, functions, sizeof functions / sizeof *functions, modules,
                          sizeof modules / sizeof *modules);
  if (rc == SQLITE_OK) rc = shorn_register_query(db, st);
  state_release(st);
  return rc;
}
