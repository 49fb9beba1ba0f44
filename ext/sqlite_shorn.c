/*
 * sqlite_shorn.c — the SQL functions shorn_encode, shorn_decode,
 * shorn_fingerprint and shorn_signature, and the extension's entry point.
 *
 * Builds as a loadable extension (the default) or linked into an
 * application with -DSQLITE_CORE, where sqlite3_shorn_init is called
 * directly or handed to sqlite3_auto_extension.
 */
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

static void report_text(sqlite3_context *ctx, const char *function, const char *message) {
  char *text = sqlite3_mprintf("%s: %s", function, message);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, text, -1);
  sqlite3_free(text);
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

/* Compile `text`, or find it compiled: keyed by the text itself, because
 * auxdata alone misses whenever the schema comes from a column or a
 * subquery rather than a literal. */
static shorn_compiled *cache_lookup(shorn_state *st, const char *text, int n, shorn_error *error) {
  unsigned h = hash_text(text, n);
  shorn_cache_entry *victim = &st->cache[0];
  for (int i = 0; i < SHORN_CACHE_SLOTS; i++) {
    shorn_cache_entry *e = &st->cache[i];
    if (e->compiled && e->hash == h && e->key_length == n && memcmp(e->key, text, (size_t)n) == 0) {
      e->used = ++st->tick;
      return e->compiled;
    }
    if (e->used < victim->used) victim = e;
  }
  shorn_compiled *c = sqlite3_malloc(sizeof *c);
  char *key = sqlite3_malloc(n ? n : 1);
  if (!c || !key) {
    sqlite3_free(c);
    sqlite3_free(key);
    error->code = SHORN_ERROR_NOMEM;
    return NULL;
  }
  st->compilations++;
  if (shorn_schema_compile(text, (size_t)n, &c->schema, error) != SHORN_OK) {
    sqlite3_free(c);
    sqlite3_free(key);
    return NULL;
  }
  c->refs = 1;
  memcpy(key, text, (size_t)n);
  entry_clear(victim);
  *victim = (shorn_cache_entry){key, n, h, ++st->tick, c};
  return c;
}

shorn_compiled *shorn_schema_argument(sqlite3_context *ctx, int argument_index, sqlite3_value *value,
                                      const char *function) {
  shorn_compiled *c = sqlite3_get_auxdata(ctx, argument_index);
  if (c) return c;
  const char *text = (const char *)sqlite3_value_text(value);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  int n = sqlite3_value_bytes(value);
  shorn_error error;
  c = cache_lookup(sqlite3_user_data(ctx), text, n, &error);
  if (!c) {
    shorn_report(ctx, function, &error);
    return NULL;
  }
  /* The cache's reference keeps `c` alive through this call even if SQLite
   * runs the destructor at once, as it may. */
  c->refs++;
  sqlite3_set_auxdata(ctx, argument_index, c, shorn_compiled_release);
  return c;
}

/* ---- argument helpers ---------------------------------------------------- */

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
    report_text(ctx, function, "fingerprint width must be 1, 2, 3 or 4");
    return false;
  }
  *width = (int)w;
  return true;
}

static void result_buffer(sqlite3_context *ctx, shorn_buffer *b, bool text) {
  /* The core allocated with sqlite3_realloc64, so SQLite can take it over. */
  if (text)
    sqlite3_result_text64(ctx, (const char *)b->data, b->length, sqlite3_free, SQLITE_UTF8);
  else
    sqlite3_result_blob64(ctx, b->data, b->length, sqlite3_free);
  b->data = NULL;
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
  shorn_buffer out = {0};
  shorn_error error;
  if (shorn_encode(c->schema, json, (size_t)sqlite3_value_bytes(argv[0]), width, &out, &error)) {
    shorn_buffer_free(&out);
    shorn_report(ctx, "shorn_encode", &error);
    return;
  }
  result_buffer(ctx, &out, false);
}

static void decode_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (any_null(argc, argv)) return;
  int type = sqlite3_value_type(argv[0]);
  if (type != SQLITE_BLOB && type != SQLITE_TEXT) {
    report_text(ctx, "shorn_decode", "the payload must be a BLOB");
    return;
  }
  int width;
  if (!width_argument(ctx, argc, argv, 2, 0, "shorn_decode", &width)) return;
  shorn_compiled *c = shorn_schema_argument(ctx, 1, argv[1], "shorn_decode");
  if (!c) return;
  const unsigned char *data = sqlite3_value_blob(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  if (!data && n) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  shorn_buffer out = {0};
  shorn_error error;
  if (shorn_decode(c->schema, data, (size_t)n, width, &out, &error)) {
    shorn_buffer_free(&out);
    shorn_report(ctx, "shorn_decode", &error);
    return;
  }
  result_buffer(ctx, &out, true);
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
  char hex[9];
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < width; i++) {
    hex[2 * i] = digits[bytes[i] >> 4];
    hex[2 * i + 1] = digits[bytes[i] & 15];
  }
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

/* ---- registration -------------------------------------------------------- */

static void state_release(void *p) {
  shorn_state *st = p;
  if (--st->registrations) return;
  for (int i = 0; i < SHORN_CACHE_SLOTS; i++) entry_clear(&st->cache[i]);
  sqlite3_free(st);
}

typedef struct function_spec {
  const char *name;
  int arguments;
  int flags;
  void (*call)(sqlite3_context *, int, sqlite3_value **);
} function_spec;

static const function_spec functions[] = {
    {"shorn_encode", 2, 0, encode_function},
    {"shorn_encode", 3, 0, encode_function},
    {"shorn_decode", 2, SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_decode", 3, SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_fingerprint", 1, 0, fingerprint_function},
    {"shorn_fingerprint", 2, 0, fingerprint_function},
    {"shorn_signature", 1, 0, signature_function},
};

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
   * The extra hold until the loop ends keeps a failure half-way safe. */
  st->registrations = 1;
  int rc = SQLITE_OK;
  for (size_t i = 0; i < sizeof functions / sizeof *functions && rc == SQLITE_OK; i++) {
    st->registrations++;
    rc = sqlite3_create_function_v2(db, functions[i].name, functions[i].arguments,
                                    SHORN_FUNCTION_FLAGS | functions[i].flags, st, functions[i].call,
                                    NULL, NULL, state_release);
  }
  state_release(st);
  return rc;
}
