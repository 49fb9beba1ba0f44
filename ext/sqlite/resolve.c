/*
 * resolve.c — a schema argument resolved: inline JSON Schema compiled (or
 * found in the caches), a name looked up in the registry's table with its
 * versions, a payload's fingerprint matched to the version that wrote it;
 * and a payload of an older version rewritten in its name's newest shape
 * (core/evolve), so that every function reads it as if written today.
 */
#include <string.h>

#include "sqlite/resolve.h"

#include "core/evolve/evolve.h"
#include "core/text/error.h"
#include "core/text/text.h"

/* ---- the schema cache ---------------------------------------------------- */

/* The connection's entry for inline schema text, compiled if no connection
 * of the process has it: keyed by the text itself, because auxdata alone
 * misses whenever the schema comes from a column or a subquery rather than
 * a literal. */
static shorn_cache_entry *resolve_text_entry(shorn_state *st, const char *text, int n, shorn_error *error) {
  uint64_t hash;
  shorn_cache_entry *e = shorn_cache_find(&st->cache, SHORN_KEY_TEXT, text, n, &hash);
  if (e) return e;
  shorn_compiled *c = shorn_compiled_get(text, n, hash, &st->cache.compilations, error);
  if (!c) return NULL;
  if (!(e = shorn_cache_store(&st->cache, hash, c))) error->code = SHORN_ERROR_NOMEM;
  return e;
}

static int registry_find(sqlite3 *db, shorn_key kind, const char *key, int key_length, char **text, int *length,
                         char **why);
static bool registry_current(sqlite3 *db);
static shorn_lineage *resolve_lineage_read(shorn_state *st, const char *name, int n, const char *function,
                                           shorn_failure *f);

/* ---- schemas from the registry ------------------------------------------ */

/* Whether main's data version is current: inside a transaction on main,
 * or where main is in memory, which no other connection commits to but
 * through the same pager.  A connection outside a transaction on a file
 * has not looked at it since its last one, so its data version may be
 * stale. */
static bool registry_version_current(sqlite3 *db) {
  const char *file = sqlite3_db_filename(db, "main");
  return sqlite3_txn_state(db, "main") != SQLITE_TXN_NONE || (file && !*file);
}

/* Drop what the cache read from the registry unless nothing can have
 * changed it since: main's data version counts commits (this connection's
 * and others'), registry_changes this connection's uncommitted writes and
 * rollbacks.  Where the data version may be stale, nothing read is
 * trusted. */
static void registry_refresh(shorn_state *st) {
  unsigned version = 0;
  bool reading = registry_version_current(st->db) &&
                 sqlite3_file_control(st->db, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK;
  if (reading && version == st->read_data_version && st->registry_changes == st->read_changes) return;
  shorn_cache_invalidate(&st->cache);
  st->read_data_version = version;
  st->read_changes = st->registry_changes;
}

/* Set `f` to the reason registry_find or registry_why gave, or to
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
  shorn_cache_entry *e = resolve_text_entry(st, text, length, &error);
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
  int rc = registry_find(st->db, kind, key, n, &text, &length, &why);
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

/* ---- reading the registry ------------------------------------------------ */

static int registry_find(sqlite3 *db, shorn_key kind, const char *key, int key_length, char **text,
                        int *length, char **why) {
  *text = *why = NULL;
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db,
                              kind == SHORN_KEY_FINGERPRINT
                                  ? "SELECT schema FROM main." SHORN_REGISTRY_DATA " WHERE fingerprint = ?1"
                                  : "SELECT schema FROM main." SHORN_REGISTRY_DATA
                                    " WHERE name = ?1 ORDER BY version DESC LIMIT 1",
                              -1, &st, NULL);
  /* A registry made before versions: one row a name. */
  if (rc == SQLITE_ERROR && kind == SHORN_KEY_NAME && !registry_current(db))
    rc = sqlite3_prepare_v2(db, "SELECT schema FROM main." SHORN_REGISTRY_DATA " WHERE name = ?1", -1, &st, NULL);
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
    unsigned char bytes[SHORN_REGISTRY_WIDTH];
    char hex[2 * SHORN_REGISTRY_WIDTH];
    evolve_fingerprint(signature, (size_t)sqlite3_column_bytes(rows, 1), width, bytes);
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
 * fewer for a narrower one); a name's holds its lineage, so that a hit
 * reads nothing from the registry. */
static shorn_cache_entry *registered_entry(shorn_state *st, shorn_key kind, const char *key, int n,
                                           const char *function, shorn_failure *f) {
  registry_refresh(st);
  uint64_t hash;
  shorn_cache_entry *e = shorn_cache_find(&st->cache, kind, key, n, &hash);
  if (e) return e;
  shorn_cache_entry *text = kind == SHORN_KEY_FINGERPRINT && n < 2 * SHORN_REGISTRY_WIDTH
                                ? scanned_entry(st, key, n / 2, function, f)
                                : indexed_entry(st, kind, key, n, function, f);
  shorn_lineage *l = NULL;
  if (!text || (kind == SHORN_KEY_NAME && !(l = resolve_lineage_read(st, key, n, function, f)))) return NULL;
  if (!(e = shorn_cache_alias(&st->cache, kind, key, n, hash, text, l))) f->code = SQLITE_NOMEM, f->message = NULL;
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

/* ---- the registry's table and a name's versions ---------------------------- */

int shorn_registry_layout(sqlite3 *db, const char *database, const char *table, bool upgrade, bool *current) {
  char *sql = sqlite3_mprintf("SELECT version, fp_bytes FROM \"%w\".\"%w_data\"", database, table);
  sqlite3_stmt *probe = NULL;
  int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &probe, NULL) : SQLITE_NOMEM;
  sqlite3_finalize(probe);
  sqlite3_free(sql);
  *current = rc == SQLITE_OK;
  if (rc != SQLITE_ERROR || !upgrade) return rc == SQLITE_ERROR ? SQLITE_OK : rc;
  /* Renamed rather than dropped: a table cannot be dropped while a
   * statement runs, as the registry's own INSERT does here. */
  sql = sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_data\" RENAME TO \"%w_unversioned\";"
                        "CREATE TABLE \"%w\".\"%w_data\"" SHORN_REGISTRY_COLUMNS ";"
                        "INSERT INTO \"%w\".\"%w_data\"(id, name, schema, signature, fingerprint, version, fp_bytes) "
                        "SELECT id, name, schema, signature, fingerprint, 1, 0 FROM \"%w\".\"%w_unversioned\"",
                        database, table, table, database, table, database, table, database, table);
  rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  *current = rc == SQLITE_OK;
  return rc;
}

static bool registry_current(sqlite3 *db) {
  bool current;
  return shorn_registry_layout(db, "main", SHORN_REGISTRY_TABLE, false, &current) == SQLITE_OK && current;
}

/* Add the version of row `rows` to `l`, whose versions array holds
 * *capacity. */
static int lineage_add(shorn_lineage *l, sqlite3_stmt *rows, int *capacity) {
  if (l->count == *capacity) {
    int grown = *capacity ? 2 * *capacity : 4;
    shorn_version *v = sqlite3_realloc64(l->versions, (sqlite3_uint64)grown * sizeof *v);
    if (!v) return SQLITE_NOMEM;
    l->versions = v, *capacity = grown;
  }
  shorn_version *v = &l->versions[l->count];
  const char *text = (const char *)sqlite3_column_text(rows, 2);
  const char *signature = (const char *)sqlite3_column_text(rows, 3);
  int length = sqlite3_column_bytes(rows, 2);
  *v = (shorn_version){.number = sqlite3_column_int(rows, 0), .text_length = length};
  l->width = sqlite3_column_int(rows, 1);
  if (!text || !signature || !(v->text = sqlite3_malloc(length ? length : 1))) return SQLITE_NOMEM;
  memcpy(v->text, text, (size_t)length);
  l->count++;
  if (l->width < 1 || l->width > SHORN_REGISTRY_WIDTH) return SQLITE_OK;
  evolve_fingerprint(signature, (size_t)sqlite3_column_bytes(rows, 3), l->width, v->fingerprint);
  return SQLITE_OK;
}

int shorn_registry_lineage(sqlite3 *db, const char *name, int name_length, shorn_lineage **out, char **why) {
  *out = NULL, *why = NULL;
  sqlite3_stmt *rows = NULL;
  /* Out of memory probing the layout is not an old layout: read as one,
   * a fingerprinted name would read as bare. */
  bool current;
  int rc = shorn_registry_layout(db, "main", SHORN_REGISTRY_TABLE, false, &current);
  if (rc == SQLITE_OK)
    rc = current ? sqlite3_prepare_v2(db,
                                      "SELECT version, fp_bytes, schema, signature FROM main." SHORN_REGISTRY_DATA
                                      " WHERE name = ?1 ORDER BY version",
                                      -1, &rows, NULL)
                 : sqlite3_prepare_v2(db, "SELECT 1, 0, schema, signature FROM main." SHORN_REGISTRY_DATA " WHERE name = ?1",
                                      -1, &rows, NULL);
  shorn_lineage *l = rc == SQLITE_OK ? sqlite3_malloc64(sizeof *l + (size_t)name_length + 1) : NULL;
  if (rc == SQLITE_OK && !l) rc = SQLITE_NOMEM;
  int capacity = 0;
  if (l) {
    memset(l, 0, sizeof *l);
    memcpy(l->name, name, (size_t)name_length);
    l->name[name_length] = 0;
    l->name_length = name_length;
    sqlite3_bind_text(rows, 1, name, name_length, SQLITE_STATIC);
    while ((rc = sqlite3_step(rows)) == SQLITE_ROW && (rc = lineage_add(l, rows, &capacity)) == SQLITE_OK) {}
    if (rc == SQLITE_DONE) rc = l->count ? SQLITE_OK : SQLITE_DONE;
  }
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM)
    rc = registry_why(db, rc, rows != NULL, SHORN_KEY_NAME, name, name_length, why);
  sqlite3_finalize(rows);
  if (rc == SQLITE_OK && (l->width < 0 || l->width > SHORN_REGISTRY_WIDTH)) l->width = 0;
  if (rc == SQLITE_OK)
    *out = l;
  else if (l)
    shorn_lineage_free(l);
  return rc;
}

/* The lineage of a registered name, read for its entry; NULL with `f`
 * set. */
static shorn_lineage *resolve_lineage_read(shorn_state *st, const char *name, int n, const char *function,
                                           shorn_failure *f) {
  shorn_lineage *l;
  char *why;
  int rc = shorn_registry_lineage(st->db, name, n, &l, &why);
  if (rc == SQLITE_OK) return l;
  fail_with_why(f, rc, function, why);
  return NULL;
}

/* ---- payloads of older versions --------------------------------------------- */

shorn_code shorn_binding_width(const shorn_binding *b, int given, int *width, shorn_error *error) {
  const shorn_lineage *l = b->lineage;
  *width = l ? l->width : given;
  if (!l || !given || given == l->width) return SHORN_OK;
  return error_set(error, SHORN_ERROR_USAGE,
                   "fp_bytes %d does not match '%s', whose payloads carry a %d-byte fingerprint (leave fp_bytes out)",
                   given, l->name, l->width);
}

/* The version of `l` whose fingerprint starts data[0..n), or NULL. */
static shorn_version *resolve_version_of(shorn_lineage *l, const uint8_t *data, size_t n) {
  if (n < (size_t)l->width) return NULL;
  for (int i = l->count; i-- > 0;)
    if (memcmp(l->versions[i].fingerprint, data, (size_t)l->width) == 0) return &l->versions[i];
  return NULL;
}

int shorn_payload_version(const shorn_binding *b, const uint8_t *data, size_t n) {
  shorn_version *v = b->lineage ? resolve_version_of(b->lineage, data, n) : NULL;
  return !b->lineage ? 1 : v ? v->number : 0;
}

/* A version of `l`'s schema, compiled through the process's table on
 * first use; an older one is charged to the cache with the lineage, as
 * the newest is already with its text's entry. */
static shorn_code version_schema(shorn_state *st, shorn_lineage *l, shorn_version *v, shorn_error *error) {
  if (v->compiled) return SHORN_OK;
  v->compiled = shorn_compiled_get(v->text, v->text_length, shorn_text_hash(v->text, (size_t)v->text_length),
                                   &st->cache.compilations, error);
  if (!v->compiled) return error->code;
  if (v != &l->versions[l->count - 1]) shorn_cache_charge(&st->cache, l, v->compiled->bytes);
  return SHORN_OK;
}

shorn_code shorn_older_version(shorn_state *st, const shorn_binding *b, const uint8_t *data, size_t n, int *width,
                               shorn_version **older, shorn_error *error) {
  *older = NULL;
  shorn_code rc = shorn_binding_width(b, *width, width, error);
  shorn_lineage *l = b->lineage;
  if (rc || !l) return rc;
  if (n < (size_t)l->width)
    return error_at_offset(error, SHORN_ERROR_DECODE, n, "Payload ends within its %d-byte fingerprint", l->width);
  shorn_version *v = resolve_version_of(l, data, n), *newest = &l->versions[l->count - 1];
  if (v == newest) return SHORN_OK;
  if (!v) {
    char hex[2 * SHORN_REGISTRY_WIDTH];
    hex_bytes(hex, data, (size_t)l->width);
    return error_at_offset(error, SHORN_ERROR_DECODE, 0,
                           "Payload was written by no version of '%s': its fingerprint %.*s is none of theirs",
                           l->name, 2 * l->width, hex);
  }
  if (!v->plan && ((rc = version_schema(st, l, v, error)) || (rc = version_schema(st, l, newest, error)) ||
                   (rc = evolve_plan_new(v->compiled->schema, newest->compiled->schema, &v->plan, error))))
    return rc;
  *older = v;
  return SHORN_OK;
}

shorn_code shorn_upgrade_payload(shorn_state *st, const shorn_version *older, const uint8_t **data, size_t *n,
                                 int width, shorn_error *error) {
  st->upgraded.length = 0;
  shorn_code rc = evolve_upgrade(older->plan, *data, *n, width, width, &st->upgrade_json, &st->upgraded, error);
  if (rc) return rc;
  *data = st->upgraded.data;
  *n = st->upgraded.length;
  return SHORN_OK;
}

shorn_code shorn_newest_payload(shorn_state *st, const shorn_binding *b, const uint8_t **data, size_t *n, int *width,
                                shorn_error *error) {
  shorn_version *older;
  shorn_code rc = shorn_older_version(st, b, *data, *n, width, &older, error);
  return rc || !older ? rc : shorn_upgrade_payload(st, older, data, n, *width, error);
}

shorn_code shorn_decode_older(shorn_state *st, const shorn_binding *b, const uint8_t *data, size_t n, int width,
                              shorn_buffer *out, shorn_error *error) {
  shorn_version *older;
  shorn_code rc = shorn_older_version(st, b, data, n, &width, &older, error);
  if (rc) return rc;
  return older ? evolve_decode(older->plan, data, n, width, out, error)
               : shorn_decode(b->compiled->schema, data, n, width, out, error);
}

bool shorn_read_older(sqlite3_context *ctx, const shorn_binding *b, const uint8_t **data, size_t *n, int *width,
                      const char *function) {
  shorn_error error;
  if (!shorn_newest_payload(sqlite3_user_data(ctx), b, data, n, width, &error)) return true;
  shorn_report(ctx, function, &error);
  return false;
}

/* Inline JSON Schema is an object, so its text starts with '{' after any
 * JSON white space; any other text is a name. */
static bool resolve_is_inline(const char *text, int n) {
  int i = 0;
  while (i < n && text[i] && strchr(" \t\n\r", text[i])) i++;
  return i < n && text[i] == '{';
}

static shorn_cache_entry *resolve_entry(shorn_state *st, const char *text, int n, const char *function,
                                        shorn_failure *f) {
  if (!resolve_is_inline(text, n)) return registered_entry(st, SHORN_KEY_NAME, text, n, function, f);
  shorn_error error;
  shorn_cache_entry *e = resolve_text_entry(st, text, n, &error);
  if (!e) shorn_fail_with_error(f, function, &error);
  return e;
}

/* The binding `text` stands for: its entry, and a name's lineage when its
 * payloads carry fingerprints (with a pin taken when `pin`). */
static shorn_cache_entry *resolve_bind(shorn_state *st, const char *text, int n, const char *function, bool pin,
                               shorn_binding *b, shorn_failure *f) {
  shorn_cache_entry *e = resolve_entry(st, text, n, function, f);
  if (!e) return NULL;
  b->compiled = e->compiled;
  b->lineage = NULL;
  if (resolve_is_inline(text, n)) return e;
  shorn_lineage *l = e->lineage; /* read with the name's entry */
  if (l->width) {
    b->lineage = l;
    if (pin) shorn_lineage_pin(l);
  }
  return e;
}

bool shorn_resolve(shorn_state *st, const char *text, int n, const char *function, shorn_binding *b,
                   shorn_failure *f) {
  return resolve_bind(st, text, n, function, false, b, f) != NULL;
}

void shorn_binding_retain(const shorn_binding *b) {
  shorn_compiled_retain(b->compiled);
  if (b->lineage) shorn_lineage_pin(b->lineage);
}

void shorn_binding_release(shorn_binding *b) {
  if (b->compiled) shorn_compiled_release(b->compiled);
  if (b->lineage) shorn_lineage_unpin(b->lineage);
  b->compiled = NULL;
  b->lineage = NULL;
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

static void pinned_free(void *p) {
  shorn_pinned *pinned = p;
  shorn_cache_unpin(pinned->entry);
  if (pinned->binding.lineage) shorn_lineage_unpin(pinned->binding.lineage);
  sqlite3_free(pinned);
}

bool shorn_pin_schema(sqlite3_context *ctx, int index, sqlite3_value *value, const char *function,
                      shorn_binding *b) {
  /* For a name, auxdata makes its binding hold for the rest of the
   * statement's run; SQLite drops auxdata when the statement is reset.  It
   * pins the connection's entry and lineage, which stay valid while pinned
   * even if evicted. */
  shorn_failure f;
  int n;
  shorn_cache_entry *e = NULL;
  shorn_pinned *pinned = sqlite3_malloc(sizeof *pinned);
  const char *text = pinned ? shorn_schema_text(value, &n, function, &f) : NULL;
  if (!pinned) f.code = SQLITE_NOMEM, f.message = NULL;
  if (text) e = resolve_bind(sqlite3_user_data(ctx), text, n, function, true, b, &f);
  if (!e) {
    sqlite3_free(pinned);
    shorn_report_failure(ctx, &f);
    return false;
  }
  /* The caches keep what the binding points at through this call even if
   * SQLite runs the destructor at once, as it may. */
  shorn_cache_pin(e);
  *pinned = (shorn_pinned){.binding = *b, .entry = e};
  sqlite3_set_auxdata(ctx, index, pinned, pinned_free);
  return true;
}
