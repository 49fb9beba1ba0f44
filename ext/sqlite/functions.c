/*
 * functions.c — the codec's SQL functions:
 *
 *   shorn_encode(json, schema [, fp_bytes])        JSON text to a payload, its
 *                                                  validation keywords checked
 *   shorn_encode_unchecked(json, schema [, fp_bytes])  the same, structure only
 *   shorn_check(json, schema)                      NULL, or why shorn_encode
 *                                                  would refuse the value
 *   shorn_decode(payload [, schema [, fp_bytes]])  a payload to JSON text
 *   shorn_decode(payload, fp_bytes)                 the same, by dispatch
 *   shorn_fingerprint(schema [, fp_bytes])         the fingerprint, in hex
 *   shorn_signature(schema)                        the canonical signature
 *   shorn_upgrade(payload, name)                   a payload in its name's newest version
 *   shorn_payload_version(payload, name)           the version that wrote it
 *   shorn_stats()                                  the schema cache's counts
 *   shorn_config(name [, value])                   a connection's setting
 *   shorn_version()                                this extension's version
 */
#include <string.h>

#include "sqlite/functions.h"
#include "sqlite/resolve.h"

#include "core/text/text.h"

static bool codec_any_null(int argc, sqlite3_value **argv) {
  for (int i = 0; i < argc; i++)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return true;
  return false;
}

/* The optional fingerprint width argument: 1..4, or `fallback` when absent. */
static bool width_argument(sqlite3_context *ctx, int argc, sqlite3_value **argv, int index,
                           int fallback, const char *function, int *width) {
  *width = fallback;
  if (argc <= index) return true;
  *width = shorn_width(argv[index]);
  if (!*width) shorn_report_text(ctx, function, SHORN_BAD_WIDTH);
  return *width != 0;
}

/* ---- the functions ------------------------------------------------------- */

/* The JSON text argument and its length in bytes; NULL once out of memory
 * is reported. */
static const char *json_argument(sqlite3_context *ctx, sqlite3_value *value, size_t *n) {
  const char *json = (const char *)sqlite3_value_text(value);
  if (!json) sqlite3_result_error_nomem(ctx);
  *n = (size_t)sqlite3_value_bytes(value);
  return json;
}

/* shorn_encode checks the value against the schema's validation keywords
 * as the library's validated codecs do; shorn_encode_unchecked, as its
 * unchecked(), checks the structure alone.  A function of its own rather
 * than a flag: every argument keeps its one meaning, fp_bytes included.
 * The text is read first: sqlite3_value_text answers NULL for a NULL, and
 * a pinned schema's argument is never one, so that a row asks no
 * argument's type.  A NULL argument still makes the result NULL whatever
 * the others are; out of memory reading the text is reported before
 * anything else is checked. */
static void encode_call(sqlite3_context *ctx, int argc, sqlite3_value **argv, const char *function, bool checked) {
  const char *json = (const char *)sqlite3_value_text(argv[0]);
  shorn_binding b;
  bool pinned = shorn_pinned_schema(ctx, 1, &b);
  if ((!json && sqlite3_value_type(argv[0]) == SQLITE_NULL) || (!pinned && sqlite3_value_type(argv[1]) == SQLITE_NULL) ||
      (argc > 2 && sqlite3_value_type(argv[2]) == SQLITE_NULL))
    return;
  if (!json) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  int width;
  if (!width_argument(ctx, argc, argv, 2, 0, function, &width)) return;
  if (!pinned && !shorn_pin_schema(ctx, 1, argv[1], function, &b)) return;
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  shorn_buffer *out = shorn_output(ctx);
  shorn_error error;
  /* A name's payloads carry its fingerprint: the newest version's. */
  shorn_code rc = b.lineage ? shorn_binding_width(&b, width, &width, &error) : SHORN_OK;
  if (!rc)
    rc = checked ? shorn_encode(b.compiled->schema, json, n, width, out, &error)
                 : shorn_encode_unchecked(b.compiled->schema, json, n, width, out, &error);
  if (rc)
    shorn_report(ctx, function, &error);
  else
    shorn_result_output(ctx, out, false);
}

static void encode_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  encode_call(ctx, argc, argv, "shorn_encode", true);
}

static void encode_unchecked_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  encode_call(ctx, argc, argv, "shorn_encode_unchecked", false);
}

/* shorn_check(json, schema): NULL when shorn_encode would take the value,
 * else what it would say after "shorn_encode: ", so that a query finds the
 * rows an UPDATE would stop at.  A value is never an error here; a schema
 * argument that resolves to no schema is, as in shorn_encode. */
static void check_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (codec_any_null(argc, argv)) return;
  shorn_binding b;
  size_t n;
  const char *json = shorn_schema_argument(ctx, 1, argv[1], "shorn_check", &b) ? json_argument(ctx, argv[0], &n) : NULL;
  if (json) shorn_result_refusal(ctx, "shorn_check", b.compiled->schema, json, n);
}

/* Whether a payload the schema refuses decodes once its first `width`
 * bytes, the schema's own fingerprint of that width, are passed over: then
 * it was written in the library's envelope and fp_bytes was left out.  The
 * library's default width, 3, and the registry's, 4: a shorter fingerprint
 * starts too many payloads by chance to be named. */
static int enveloped_width(sqlite3_context *ctx, const shorn_schema *schema, const uint8_t *data, size_t n) {
  for (int width = 3; width <= 4; width++) {
    unsigned char fingerprint[4];
    shorn_error error;
    shorn_schema_fingerprint(schema, width, fingerprint, &error);
    if (n >= (size_t)width && memcmp(data, fingerprint, (size_t)width) == 0 &&
        shorn_decode(schema, data, n, width, shorn_output(ctx), &error) == SHORN_OK)
      return width;
  }
  return 0;
}

/* shorn_decode's refusal, and what to pass when the payload starts with
 * its schema's fingerprint: "...; this payload starts with the 3-byte
 * fingerprint of 'person': pass fp_bytes 3". */
#define ENVELOPED "this payload starts with the %d-byte fingerprint of "
static void report_decode(sqlite3_context *ctx, sqlite3_value *schema_argument, const shorn_schema *schema,
                          const uint8_t *data, size_t n, const shorn_error *error) {
  int width = error->code == SHORN_ERROR_NOMEM ? 0 : enveloped_width(ctx, schema, data, n);
  const char *text = width || error->code == SHORN_ERROR_DECODE ? (const char *)sqlite3_value_text(schema_argument) : NULL;
  bool named = text && text[strspn(text, " \t\n\r")] != '{';
  char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 16];
  shorn_error_format(error, message, sizeof message);
  /* A bare payload names no schema: one a name's earlier schema wrote
   * reads as nonsense or fails, which is worth saying. */
  if (!width && named)
    shorn_report_text(ctx, "shorn_decode",
                      "%s; a payload an earlier schema of %Q wrote reads wrongly with this one (docs/registry.md, "
                      "\"Changing a schema\")",
                      message, text);
  else if (!width)
    shorn_report(ctx, "shorn_decode", error);
  else if (named)
    shorn_report_text(ctx, "shorn_decode", "%s; " ENVELOPED "%Q: pass fp_bytes %d", message, width, text, width);
  else
    shorn_report_text(ctx, "shorn_decode", "%s; " ENVELOPED "its schema: pass fp_bytes %d", message, width, width);
}

/* shorn_decode(payload) reads the schema off the payload's 4-byte
 * fingerprint, shorn_decode(payload, fp_bytes) off its fp_bytes-byte one
 * (a number, where a schema is text); shorn_decode(payload, schema [,
 * fp_bytes]) is told it. */
static void decode_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  /* A pinned schema's argument is text, never NULL nor a number: a row
   * with one asks its type no more. */
  shorn_binding b = {NULL, NULL};
  bool pinned = argc > 1 && shorn_pinned_schema(ctx, 1, &b);
  for (int i = 0; i < argc; i++)
    if ((i != 1 || !pinned) && sqlite3_value_type(argv[i]) == SQLITE_NULL) return;
  const uint8_t *data;
  size_t n;
  int rc = shorn_payload(argv[0], &data, &n);
  if (rc != SQLITE_OK) {
    shorn_report_payload(ctx, "shorn_decode", rc, argv[0]);
    return;
  }
  int width = SHORN_REGISTRY_WIDTH;
  if (pinned) {
    if (!width_argument(ctx, argc, argv, 2, 0, "shorn_decode", &width)) return;
  } else if (argc == 1)
    b.compiled = shorn_prefixed_schema(ctx, data, n, width, "shorn_decode");
  else if (shorn_is_number(argv[1]) && argc == 3)
    shorn_report_text(ctx, "shorn_decode", SHORN_ONE_WIDTH);
  else if (shorn_is_number(argv[1]))
    b.compiled = shorn_dispatched_schema(ctx, argv[1], data, n, "shorn_decode", &width);
  else if (width_argument(ctx, argc, argv, 2, 0, "shorn_decode", &width))
    shorn_pin_schema(ctx, 1, argv[1], "shorn_decode", &b);
  if (!b.compiled) return;
  shorn_error error;
  shorn_buffer *out = shorn_output(ctx);
  if (shorn_decode_newest(sqlite3_user_data(ctx), &b, data, n, width, out, &error)) {
    if (argc == 2 && !shorn_is_number(argv[1]) && !b.lineage)
      report_decode(ctx, argv[1], b.compiled->schema, data, n, &error);
    else
      shorn_report(ctx, "shorn_decode", &error);
    return;
  }
  shorn_result_output(ctx, out, true);
  sqlite3_result_subtype(ctx, 'J');
}

/* The payload and schema arguments of shorn_upgrade and
 * shorn_payload_version, the payload's bytes in *data and *n; false when
 * the result is NULL or an error was reported. */
static bool payload_and_name(sqlite3_context *ctx, sqlite3_value **argv, const char *function, shorn_binding *b,
                             const uint8_t **data, size_t *n) {
  bool pinned = shorn_pinned_schema(ctx, 1, b);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || (!pinned && sqlite3_value_type(argv[1]) == SQLITE_NULL))
    return false;
  int rc = shorn_payload(argv[0], data, n);
  if (rc != SQLITE_OK) {
    shorn_report_payload(ctx, function, rc, argv[0]);
    return false;
  }
  return pinned || shorn_pin_schema(ctx, 1, argv[1], function, b);
}

/* shorn_upgrade(payload, name): the payload as the name's newest version
 * writes it.  One that is already is returned as it is, not decoded, so
 * that UPDATE t SET p = shorn_upgrade(p, name) costs little on rows
 * upgraded before; a bare name has one version. */
static void upgrade_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  shorn_binding b;
  const uint8_t *data, *newest;
  size_t n;
  int width = 0;
  if (!payload_and_name(ctx, argv, "shorn_upgrade", &b, &data, &n)) return;
  newest = data;
  if (!shorn_read_newest(ctx, &b, &newest, &n, &width, "shorn_upgrade")) return;
  /* Copied into the storage SQLite's result register keeps from row to
   * row, where sqlite3_result_value would allocate a copy each row. */
  sqlite3_result_blob64(ctx, newest, n, SQLITE_TRANSIENT);
}

/* shorn_payload_version(payload, name): the version of the name that wrote
 * the payload, from its fingerprint (1 for a bare name's); NULL when none
 * did. */
static void payload_version_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  shorn_binding b;
  const uint8_t *data;
  size_t n;
  if (!payload_and_name(ctx, argv, "shorn_payload_version", &b, &data, &n)) return;
  int version = shorn_payload_version(&b, data, n);
  if (version) sqlite3_result_int(ctx, version);
}

static void fingerprint_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (codec_any_null(argc, argv)) return;
  int width;
  if (!width_argument(ctx, argc, argv, 1, SHORN_FINGERPRINT_DEFAULT, "shorn_fingerprint", &width))
    return;
  shorn_binding b;
  if (!shorn_schema_argument(ctx, 0, argv[0], "shorn_fingerprint", &b)) return;
  unsigned char bytes[4];
  shorn_error error;
  shorn_schema_fingerprint(b.compiled->schema, width, bytes, &error);
  char hex[8];
  hex_bytes(hex, bytes, (size_t)width);
  sqlite3_result_text(ctx, hex, 2 * width, SQLITE_TRANSIENT);
}

static void signature_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (codec_any_null(argc, argv)) return;
  shorn_binding b;
  if (!shorn_schema_argument(ctx, 0, argv[0], "shorn_signature", &b)) return;
  size_t n;
  const char *signature = shorn_schema_signature(b.compiled->schema, &n);
  sqlite3_result_text64(ctx, signature, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/* shorn_stats(): the connection's schema cache and the process's compiled
 * schemas as JSON, so that a user can see that a query compiles its schema
 * once rather than once a row, and whether the cache misses. */
static void stats_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  const shorn_cache *cache = &((shorn_state *)sqlite3_user_data(ctx))->cache;
  unsigned long long schemas, patterns, bytes, compilations;
  shorn_shared_counts(&schemas, &patterns, &bytes, &compilations);
  char *text = sqlite3_mprintf("{\"compilations\":%llu,\"hits\":%llu,\"misses\":%llu,\"entries\":%llu,"
                               "\"bytes\":%llu,\"cache_bytes\":%llu,\"process\":{\"schemas\":%llu,"
                               "\"patterns\":%llu,\"bytes\":%llu,\"compilations\":%llu}}",
                               cache->compilations, cache->hits, cache->misses, (unsigned long long)cache->count,
                               (unsigned long long)cache->bytes, (unsigned long long)cache->limit, schemas,
                               patterns, bytes, compilations);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, text, -1, sqlite3_free);
  sqlite3_result_subtype(ctx, 'J');
}

/* shorn_config(name [, value]): a setting of the connection, set to `value`
 * when given; the setting's value either way.  The one setting is
 * cache_bytes, the limit of the connection's schema cache. */
static void config_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  shorn_cache *cache = &((shorn_state *)sqlite3_user_data(ctx))->cache;
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  if (!name || strcmp(name, "cache_bytes") != 0) {
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL && !name)
      sqlite3_result_error_nomem(ctx);
    else
      shorn_report_text(ctx, "shorn_config", "no setting named '%s'; the one setting is 'cache_bytes'",
                        name ? name : "NULL");
    return;
  }
  if (argc == 2) {
    sqlite3_int64 bytes = sqlite3_value_int64(argv[1]);
    if (sqlite3_value_numeric_type(argv[1]) != SQLITE_INTEGER || bytes < 0 ||
        (sqlite3_uint64)bytes > (sqlite3_uint64)SIZE_MAX) {
      shorn_report_text(ctx, "shorn_config", "cache_bytes must be an INTEGER from 0 up");
      return;
    }
    shorn_cache_limit(cache, (size_t)bytes);
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)cache->limit);
}

/* shorn_version(): the version of the extension loaded, SHORN_VERSION. */
static void version_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  sqlite3_result_text(ctx, SHORN_VERSION, -1, SQLITE_STATIC);
}

static const shorn_function codec_function_table[] = {
    {"shorn_encode", 2, SHORN_FUNCTION_FLAGS, encode_function},
    {"shorn_encode", 3, SHORN_FUNCTION_FLAGS, encode_function},
    {"shorn_encode_unchecked", 2, SHORN_FUNCTION_FLAGS, encode_unchecked_function},
    {"shorn_encode_unchecked", 3, SHORN_FUNCTION_FLAGS, encode_unchecked_function},
    {"shorn_check", 2, SHORN_FUNCTION_FLAGS, check_function},
    {"shorn_decode", 1, SHORN_FUNCTION_FLAGS | SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_decode", 2, SHORN_FUNCTION_FLAGS | SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_decode", 3, SHORN_FUNCTION_FLAGS | SQLITE_RESULT_SUBTYPE, decode_function},
    {"shorn_fingerprint", 1, SHORN_FUNCTION_FLAGS, fingerprint_function},
    {"shorn_fingerprint", 2, SHORN_FUNCTION_FLAGS, fingerprint_function},
    {"shorn_signature", 1, SHORN_FUNCTION_FLAGS, signature_function},
    {"shorn_upgrade", 2, SHORN_FUNCTION_FLAGS, upgrade_function},
    {"shorn_payload_version", 2, SHORN_FUNCTION_FLAGS, payload_version_function},
    /* Not deterministic: the counts move as the connection works. */
    {"shorn_stats", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_RESULT_SUBTYPE, stats_function},
    /* A connection's setting: from the application's own SQL alone. */
    {"shorn_config", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, config_function},
    {"shorn_config", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, config_function},
    {"shorn_version", 0, SHORN_FUNCTION_FLAGS, version_function},
};

int shorn_register_functions(sqlite3 *db, shorn_state *st) {
  return shorn_register(db, st, codec_function_table, COUNT_OF(codec_function_table), NULL, 0);
}
