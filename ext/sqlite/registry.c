/*
 * registry.c — the virtual table module shorn_registry: schemas
 * registered under a name, a row a version, and kept in the database file.
 *
 *   CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry;
 *   INSERT INTO shorn_schemas(name, schema, fp_bytes) VALUES ('person', '{"type":...}', 4);
 *   INSERT INTO shorn_schemas(name, schema, version) VALUES ('person', '{"type":...}', 2);
 *   SELECT shorn_decode(payload, 'person') FROM events;
 *
 * The rows live in an ordinary table, the shadow table shorn_schemas_data,
 * so they are exactly as durable and as transactional as the user's own.
 * The virtual table is the gate that keeps them sound: every schema
 * compiles, signature and fingerprint are computed, a version keeps its
 * wire shape, a new version reads every payload the earlier ones wrote
 * (core/evolve), and no two rows share a fingerprint, so a fingerprinted
 * payload names its schema by itself.
 */
#include <stdarg.h>
#include <string.h>

#include "sqlite/registry.h"
#include "sqlite/resolve.h"

#include "core/evolve/evolve.h"
#include "core/text/text.h"

#define REGISTRY_TABLE SHORN_REGISTRY_TABLE

/* The shadow table in a statement template: "%w"."%w_data", filled in with
 * the virtual table's database and name. */
#define SHADOW "\"%w\".\"%w_data\""

enum {
  REGISTRY_COLUMN_NAME,
  REGISTRY_COLUMN_SCHEMA,
  REGISTRY_COLUMN_SIGNATURE,
  REGISTRY_COLUMN_FINGERPRINT,
  REGISTRY_COLUMN_VERSION,
  REGISTRY_COLUMN_FP_BYTES
};

typedef struct registry_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  shorn_state *state;
  char *database; /* "main", unless read from an attached database */
  char *table;
} registry_vtab;

typedef struct registry_cursor {
  sqlite3_vtab_cursor base;
  sqlite3_stmt *rows; /* id, name, schema, signature, fingerprint, version, fp_bytes */
  bool eof;
} registry_cursor;

/* Set the table's error message, "<table>: <reason>", and return `rc`. */
static int registry_vtab_error(registry_vtab *vt, int rc, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  char *reason = sqlite3_vmprintf(format, ap);
  va_end(ap);
  sqlite3_free(vt->base.zErrMsg);
  vt->base.zErrMsg = reason ? sqlite3_mprintf("%s: %s", vt->table, reason) : NULL;
  sqlite3_free(reason);
  return vt->base.zErrMsg ? rc : SQLITE_NOMEM;
}

static int shadow_prepare(registry_vtab *vt, const char *template, sqlite3_stmt **stmt) {
  *stmt = NULL;
  /* A template may name the shadow table up to three times. */
  char *sql = sqlite3_mprintf(template, vt->database, vt->table, vt->database, vt->table, vt->database, vt->table);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(vt->db, sql, -1, stmt, NULL);
  sqlite3_free(sql);
  return rc == SQLITE_OK ? rc : registry_vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
}

/* Run a statement that writes the shadow table, and finalize it. */
static int shadow_write(registry_vtab *vt, sqlite3_stmt *stmt) {
  int rc = sqlite3_step(stmt);
  rc = rc == SQLITE_DONE ? SQLITE_OK : registry_vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
  sqlite3_finalize(stmt);
  return rc;
}

/* ---- create, connect, destroy -------------------------------------------- */

static int registry_disconnect(sqlite3_vtab *base) {
  registry_vtab *vt = (registry_vtab *)base;
  sqlite3_free(vt->database);
  sqlite3_free(vt->table);
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int registry_connect(sqlite3 *db, void *state, int argc, const char *const *argv,
                            sqlite3_vtab **out, char **error) {
  *out = NULL;
  if (argc > 3) {
    *error = sqlite3_mprintf("shorn_registry: takes no arguments");
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(name TEXT, schema TEXT, signature TEXT, "
                                    "fingerprint TEXT, version INTEGER, fp_bytes INTEGER)");
  if (rc != SQLITE_OK) return rc;
  /* Clashes are reported as constraint failures, so INSERT OR IGNORE skips
   * a schema already registered: setup scripts can run again. */
  sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  registry_vtab *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->db = db;
  vt->state = state;
  vt->database = sqlite3_mprintf("%s", argv[1]);
  vt->table = sqlite3_mprintf("%s", argv[2]);
  if (!vt->database || !vt->table) {
    registry_disconnect(&vt->base);
    return SQLITE_NOMEM;
  }
  *out = &vt->base;
  return SQLITE_OK;
}

static int registry_create(sqlite3 *db, void *state, int argc, const char *const *argv,
                           sqlite3_vtab **out, char **error) {
  /* The SQL functions look names up in main.shorn_schemas alone; a registry
   * anywhere else would be one they never consult. */
  if (sqlite3_stricmp(argv[1], "main") != 0 || sqlite3_stricmp(argv[2], REGISTRY_TABLE) != 0) {
    *error = sqlite3_mprintf("shorn_registry: the registry must be main." REGISTRY_TABLE
                             ", the table the SQL functions read");
    return SQLITE_ERROR;
  }
  int rc = registry_connect(db, state, argc, argv, out, error);
  if (rc != SQLITE_OK) return rc;
  char *sql = sqlite3_mprintf("CREATE TABLE " SHADOW SHORN_REGISTRY_COLUMNS, argv[1], argv[2]);
  rc = sql ? sqlite3_exec(db, sql, NULL, NULL, error) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    registry_disconnect(*out);
    *out = NULL;
  }
  return rc;
}

static int registry_destroy(sqlite3_vtab *base) {
  registry_vtab *vt = (registry_vtab *)base;
  char *sql = sqlite3_mprintf("DROP TABLE " SHADOW, vt->database, vt->table);
  int rc = sql ? sqlite3_exec(vt->db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  vt->state->registry_changes++;
  return registry_disconnect(base);
}

static int registry_rename(sqlite3_vtab *base, const char *name) {
  (void)name;
  return registry_vtab_error((registry_vtab *)base, SQLITE_ERROR,
                    "cannot be renamed: the SQL functions read main." REGISTRY_TABLE);
}

/* In defensive mode SQLite keeps ordinary SQL from writing shorn_schemas_data,
 * so every row has passed the checks below. */
static int registry_shadow_name(const char *suffix) { return sqlite3_stricmp(suffix, "data") == 0; }

/* ---- reading ------------------------------------------------------------- */

enum { PLAN_SCAN, PLAN_ROWID, PLAN_NAME, PLAN_FINGERPRINT };

/* The plans over the registry's table as it is, and (version 1 of each
 * name, bare) over one made before versions (shorn_registry_layout). */
#define ROWS(versions) "SELECT id, name, schema, signature, fingerprint, " versions " FROM " SHADOW
#define PLANS(versions)                                                  \
  {                                                                      \
    [PLAN_SCAN] = ROWS(versions),                                        \
    [PLAN_ROWID] = ROWS(versions) " WHERE id = ?1",                      \
    [PLAN_NAME] = ROWS(versions) " WHERE name = ?1 ORDER BY version",    \
    [PLAN_FINGERPRINT] = ROWS(versions) " WHERE fingerprint = ?1",       \
  }
static const char *const registry_plans[2][4] = {PLANS("1 AS version, 0"), PLANS("version, fp_bytes")};

/* Equality on rowid, name or fingerprint is a lookup in the shadow table's
 * own indexes (a name's versions, the others one row); anything else scans
 * its few rows. */
static int registry_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  (void)base;
  info->idxNum = PLAN_SCAN;
  info->estimatedCost = 100;
  info->estimatedRows = 100;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    int plan = c->iColumn == -1                   ? PLAN_ROWID
               : c->iColumn == REGISTRY_COLUMN_NAME        ? PLAN_NAME
               : c->iColumn == REGISTRY_COLUMN_FINGERPRINT ? PLAN_FINGERPRINT
                                                  : PLAN_SCAN;
    /* The shadow table compares text as BINARY; under another collation
     * SQLite must compare for itself. */
    if (plan == PLAN_SCAN ||
        (plan != PLAN_ROWID && sqlite3_stricmp(sqlite3_vtab_collation(info, i), "BINARY") != 0))
      continue;
    info->idxNum = plan;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->estimatedCost = 1;
    info->estimatedRows = 1;
    if (plan != PLAN_NAME) info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    break;
  }
  return SQLITE_OK;
}

static int registry_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  registry_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  *out = &cur->base;
  return SQLITE_OK;
}

static int registry_close(sqlite3_vtab_cursor *base) {
  registry_cursor *cur = (registry_cursor *)base;
  sqlite3_finalize(cur->rows);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int registry_next(sqlite3_vtab_cursor *base) {
  registry_cursor *cur = (registry_cursor *)base;
  int rc = sqlite3_step(cur->rows);
  cur->eof = rc != SQLITE_ROW;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return SQLITE_OK;
  registry_vtab *vt = (registry_vtab *)base->pVtab;
  return registry_vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
}

static int registry_filter(sqlite3_vtab_cursor *base, int plan, const char *unused, int argc,
                           sqlite3_value **argv) {
  (void)unused;
  registry_cursor *cur = (registry_cursor *)base;
  registry_vtab *vt = (registry_vtab *)base->pVtab;
  sqlite3_finalize(cur->rows);
  bool current;
  int rc = shorn_registry_layout(vt->db, vt->database, vt->table, false, &current);
  if (rc == SQLITE_OK) rc = shadow_prepare(vt, registry_plans[current][plan], &cur->rows);
  if (rc == SQLITE_OK && argc) rc = sqlite3_bind_value(cur->rows, 1, argv[0]);
  return rc == SQLITE_OK ? registry_next(base) : rc;
}

static int registry_eof(sqlite3_vtab_cursor *base) { return ((registry_cursor *)base)->eof; }

static int registry_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int column) {
  sqlite3_result_value(ctx, sqlite3_column_value(((registry_cursor *)base)->rows, column + 1));
  return SQLITE_OK;
}

static int registry_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = sqlite3_column_int64(((registry_cursor *)base)->rows, 0);
  return SQLITE_OK;
}

/* ---- writing ------------------------------------------------------------- */

/* No name may read as inline JSON Schema where a schema argument is expected
 * (see shorn_schema_argument), nor hide white space in front. */
static bool name_is_valid(const char *name, int length) {
  return length > 0 && name[0] != '{' && !strchr(" \t\n\r", name[0]);
}

/* signature and fingerprint are computed; a value given for one must be the
 * computed value, which lets INSERT ... SELECT * copy a registry. */
static bool is_computed(sqlite3_value *given, const char *value, size_t length) {
  if (sqlite3_value_type(given) == SQLITE_NULL) return true;
  const unsigned char *text = sqlite3_value_text(given);
  return text && (size_t)sqlite3_value_bytes(given) == length && memcmp(text, value, length) == 0;
}

/* An INTEGER column from `low` to `high`, or NULL: *given says which. */
static bool registry_integer_column(sqlite3_value *v, int low, int high, int *value, bool *given) {
  *given = sqlite3_value_type(v) != SQLITE_NULL;
  if (!*given) return true;
  sqlite3_int64 x = sqlite3_value_int64(v);
  *value = (int)x;
  return sqlite3_value_numeric_type(v) == SQLITE_INTEGER && x >= low && x <= high;
}

/* A version of the name being written, as the shadow table has it. */
typedef struct stored_version {
  sqlite3_int64 id;
  int number, fp_bytes;
  shorn_schema *schema; /* compiled when the new version is checked against it */
  char *text;
  int text_length;
} stored_version;

typedef struct stored_versions {
  stored_version *list;
  int count;
} stored_versions;

static void versions_free(stored_versions *v) {
  for (int i = 0; i < v->count; i++) {
    shorn_schema_free(v->list[i].schema);
    sqlite3_free(v->list[i].text);
  }
  sqlite3_free(v->list);
}

/* The versions registered under `name`, oldest first. */
static int versions_of(registry_vtab *vt, const char *name, int name_length, stored_versions *out) {
  *out = (stored_versions){NULL, 0};
  sqlite3_stmt *st;
  int rc = shadow_prepare(vt, "SELECT id, version, fp_bytes, schema FROM " SHADOW " WHERE name = ?1 ORDER BY version", &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, name, name_length, SQLITE_STATIC);
  int capacity = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (out->count == capacity) {
      capacity = capacity ? 2 * capacity : 4;
      stored_version *grown = sqlite3_realloc64(out->list, (sqlite3_uint64)capacity * sizeof *grown);
      if (!grown) {
        rc = SQLITE_NOMEM;
        break;
      }
      out->list = grown;
    }
    stored_version *v = &out->list[out->count];
    const char *text = (const char *)sqlite3_column_text(st, 3);
    *v = (stored_version){.id = sqlite3_column_int64(st, 0),
                          .number = sqlite3_column_int(st, 1),
                          .fp_bytes = sqlite3_column_int(st, 2),
                          .text_length = sqlite3_column_bytes(st, 3)};
    if (!text || !(v->text = sqlite3_malloc(v->text_length ? v->text_length : 1))) {
      rc = SQLITE_NOMEM;
      break;
    }
    memcpy(v->text, text, (size_t)v->text_length);
    out->count++;
  }
  rc = rc == SQLITE_DONE ? SQLITE_OK : rc == SQLITE_NOMEM ? rc : registry_vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
  sqlite3_finalize(st);
  return rc;
}

/* What a row is written as: its columns read and computed. */
typedef struct registry_row {
  const char *name, *text, *signature;
  int name_length, text_length;
  size_t signature_length;
  char fingerprint[2 * SHORN_REGISTRY_WIDTH];
  shorn_schema *schema;
  int version, fp_bytes;
  bool version_given, fp_bytes_given;
} registry_row;

/* Refuse the row if another holds its fingerprint: the same wire shape
 * under another name or version, or another shape that hashes alike. */
static int fingerprint_clash(registry_vtab *vt, sqlite3_value *self, const registry_row *row) {
  sqlite3_stmt *st;
  int rc = shadow_prepare(vt, "SELECT name, signature = ?2 FROM " SHADOW " WHERE fingerprint = ?1 AND id IS NOT ?3", &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, row->fingerprint, sizeof row->fingerprint, SQLITE_STATIC);
  sqlite3_bind_text64(st, 2, row->signature, row->signature_length, SQLITE_STATIC, SQLITE_UTF8);
  sqlite3_bind_value(st, 3, self);
  rc = sqlite3_step(st);
  const char *other = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  bool same_shape = rc == SQLITE_ROW && sqlite3_column_int(st, 1);
  bool same_name = other && strlen(other) == (size_t)row->name_length && !memcmp(other, row->name, (size_t)row->name_length);
  int n = row->name_length, w = 2 * SHORN_REGISTRY_WIDTH;
  if (rc == SQLITE_DONE)
    rc = SQLITE_OK;
  else if (rc != SQLITE_ROW || !other)
    rc = rc == SQLITE_ROW ? SQLITE_NOMEM : registry_vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
  else if (same_name && same_shape)
    rc = registry_vtab_error(vt, SQLITE_CONSTRAINT,
                    "this version of '%.*s' has the wire shape of an earlier one (fingerprint %.*s): a change of "
                    "validation keywords alone is an UPDATE of that version's schema",
                    n, row->name, w, row->fingerprint);
  else if (same_shape)
    rc = registry_vtab_error(vt, SQLITE_CONSTRAINT, "'%.*s' has the same wire shape as '%s', already registered (fingerprint %.*s)",
                    n, row->name, other, w, row->fingerprint);
  else
    rc = registry_vtab_error(vt, SQLITE_CONSTRAINT,
                    "'%.*s' has fingerprint %.*s, which '%s' already has with another wire shape; a fingerprint must "
                    "name one schema",
                    n, row->name, w, row->fingerprint, other);
  sqlite3_finalize(st);
  return rc;
}

/* A new version must read every payload the earlier ones wrote, and tell
 * itself from them by its payloads' fingerprints. */
static int check_new_version(registry_vtab *vt, registry_row *row, stored_versions *earlier) {
  const stored_version *last = &earlier->list[earlier->count - 1];
  int n = row->name_length;
  if (row->fp_bytes_given && row->fp_bytes != last->fp_bytes)
    return registry_vtab_error(vt, SQLITE_ERROR, "fp_bytes is the name's: payloads of '%.*s' carry %d fingerprint bytes", n,
                      row->name, last->fp_bytes);
  row->fp_bytes = last->fp_bytes;
  if (!row->fp_bytes)
    return registry_vtab_error(vt, SQLITE_ERROR,
                      "'%.*s' writes bare payloads (fp_bytes 0), so its rows could not tell version %d from version "
                      "%d: give its payloads a fingerprint first (docs/registry.md, \"Moving bare rows\")",
                      n, row->name, last->number, row->version);
  sqlite3_str *why = sqlite3_str_new(vt->db);
  unsigned char mine[SHORN_REGISTRY_WIDTH], theirs[SHORN_REGISTRY_WIDTH];
  shorn_error error;
  shorn_schema_fingerprint(row->schema, row->fp_bytes, mine, &error);
  int rc = SQLITE_OK;
  for (int i = 0; i < earlier->count && rc == SQLITE_OK; i++) {
    stored_version *v = &earlier->list[i];
    if (shorn_schema_compile(v->text, (size_t)v->text_length, &shorn_sqlite_allocator, &v->schema, &error)) {
      rc = error.code == SHORN_ERROR_NOMEM ? SQLITE_NOMEM
                                           : registry_vtab_error(vt, SQLITE_ERROR, "version %d of '%.*s' does not compile: %s",
                                                        v->number, n, row->name, error.message);
      break;
    }
    shorn_schema_fingerprint(v->schema, row->fp_bytes, theirs, &error);
    if (!memcmp(mine, theirs, (size_t)row->fp_bytes)) {
      char hex[2 * SHORN_REGISTRY_WIDTH];
      hex_bytes(hex, mine, (size_t)row->fp_bytes);
      rc = registry_vtab_error(vt, SQLITE_ERROR,
                      "versions %d and %d of '%.*s' share the %d-byte fingerprint %.*s, so payloads could not tell "
                      "them apart",
                      v->number, row->version, n, row->name, row->fp_bytes, 2 * row->fp_bytes, hex);
      break;
    }
    shorn_buffer reasons = {.allocator = &shorn_sqlite_allocator};
    if (evolve_check(v->schema, row->schema, &reasons)) rc = SQLITE_NOMEM;
    if (reasons.length)
      sqlite3_str_appendf(why, "%s what version %d wrote: %.*s", sqlite3_str_length(why) ? "; nor" : "", v->number,
                          (int)reasons.length, (const char *)reasons.data);
    shorn_buffer_free(&reasons);
  }
  if (rc == SQLITE_OK && sqlite3_str_errcode(why)) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK && sqlite3_str_length(why))
    rc = registry_vtab_error(vt, SQLITE_ERROR, "version %d of '%.*s' cannot read%s", row->version, n, row->name,
                    sqlite3_str_value(why));
  sqlite3_free(sqlite3_str_finish(why));
  return rc;
}

/* An INSERT: the first version of a name, or the next. */
static int check_insert(registry_vtab *vt, registry_row *row) {
  stored_versions earlier;
  int rc = versions_of(vt, row->name, row->name_length, &earlier);
  if (rc != SQLITE_OK) {
    versions_free(&earlier); /* what was read before the failure */
    return rc;
  }
  int next = earlier.count ? earlier.list[earlier.count - 1].number + 1 : 1, n = row->name_length;
  if (!row->version_given && earlier.count)
    rc = registry_vtab_error(vt, SQLITE_CONSTRAINT, "the name '%.*s' is already registered; a new version of it is INSERTed with version = %d",
                    n, row->name, next);
  else if (row->version_given && row->version != next)
    rc = earlier.count ? registry_vtab_error(vt, SQLITE_ERROR, "'%.*s' has versions %d to %d; the next version is %d", n,
                                    row->name, earlier.list[0].number, next - 1, next)
                       : registry_vtab_error(vt, SQLITE_ERROR, "'%.*s' is not registered: its first version is 1", n, row->name);
  row->version = next;
  if (rc == SQLITE_OK && earlier.count) rc = check_new_version(vt, row, &earlier);
  versions_free(&earlier);
  return rc;
}

/* An UPDATE of row `id`: its version and wire shape stay; its name's
 * fp_bytes may change while it has one version. */
static int check_update(registry_vtab *vt, sqlite3_value *id, registry_row *row) {
  sqlite3_stmt *st;
  int rc = shadow_prepare(vt,
                          "SELECT name, version, fp_bytes, signature = ?2, "
                          "(SELECT count(*) FROM " SHADOW " AS o WHERE o.name = r.name), "
                          "name IS NOT ?3 AND EXISTS (SELECT 1 FROM \"%w\".\"%w_data\" WHERE name = ?3) "
                          "FROM \"%w\".\"%w_data\" AS r WHERE id = ?1",
                          &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_value(st, 1, id);
  sqlite3_bind_text64(st, 2, row->signature, row->signature_length, SQLITE_STATIC, SQLITE_UTF8);
  sqlite3_bind_text(st, 3, row->name, row->name_length, SQLITE_STATIC);
  rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    rc = rc == SQLITE_DONE ? SQLITE_OK : registry_vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
    sqlite3_finalize(st);
    return rc;
  }
  const char *old = (const char *)sqlite3_column_text(st, 0);
  int version = sqlite3_column_int(st, 1), fp_bytes = sqlite3_column_int(st, 2), versions = sqlite3_column_int(st, 4);
  rc = SQLITE_OK;
  if (!old)
    rc = SQLITE_NOMEM;
  else if (sqlite3_column_int(st, 5))
    rc = registry_vtab_error(vt, SQLITE_CONSTRAINT, "the name '%.*s' is already registered", row->name_length, row->name);
  else if (row->version_given && row->version != version)
    rc = registry_vtab_error(vt, SQLITE_ERROR, "a version's number does not change: register the new schema as the next version");
  else if (!sqlite3_column_int(st, 3))
    rc = registry_vtab_error(vt, SQLITE_CONSTRAINT,
                    "this changes the wire shape of '%s' version %d; a new wire shape is a new version "
                    "(INSERT it with the next version number), so that payloads written with this one stay readable",
                    old, version);
  else if (row->fp_bytes_given && row->fp_bytes != fp_bytes && versions > 1)
    rc = registry_vtab_error(vt, SQLITE_ERROR, "the fp_bytes of '%s' cannot change: it has %d versions", old, versions);
  row->version = version;
  if (!row->fp_bytes_given) row->fp_bytes = fp_bytes;
  sqlite3_finalize(st);
  return rc;
}

/* Read and compute the columns of a row to write; SQLITE_OK with
 * row->schema compiled (the caller frees it). */
static int registry_read_row(registry_vtab *vt, sqlite3_value **column, registry_row *row) {
  *row = (registry_row){0};
  /* Types first: reading a value as text makes it text. */
  int name_type = sqlite3_value_type(column[REGISTRY_COLUMN_NAME]);
  int schema_type = sqlite3_value_type(column[REGISTRY_COLUMN_SCHEMA]);
  if (name_type == SQLITE_NULL) return registry_vtab_error(vt, SQLITE_CONSTRAINT, "name is required");
  if (schema_type == SQLITE_NULL) return registry_vtab_error(vt, SQLITE_CONSTRAINT, "schema is required");
  row->name = (const char *)sqlite3_value_text(column[REGISTRY_COLUMN_NAME]);
  row->name_length = sqlite3_value_bytes(column[REGISTRY_COLUMN_NAME]);
  row->text = (const char *)sqlite3_value_text(column[REGISTRY_COLUMN_SCHEMA]);
  row->text_length = sqlite3_value_bytes(column[REGISTRY_COLUMN_SCHEMA]);
  if (!row->name || !row->text) return SQLITE_NOMEM;
  if (name_type != SQLITE_TEXT || !name_is_valid(row->name, row->name_length))
    return registry_vtab_error(vt, SQLITE_ERROR,
                      "a name must be non-empty text starting with neither '{' nor white space "
                      "('{' starts inline JSON Schema)");
  if (schema_type != SQLITE_TEXT)
    return registry_vtab_error(vt, SQLITE_ERROR, "the schema of '%s' must be JSON Schema text", row->name);
  if (!registry_integer_column(column[REGISTRY_COLUMN_VERSION], 1, 1 << 30, &row->version, &row->version_given))
    return registry_vtab_error(vt, SQLITE_ERROR, "version must be an INTEGER from 1 up");
  if (!registry_integer_column(column[REGISTRY_COLUMN_FP_BYTES], 0, SHORN_REGISTRY_WIDTH, &row->fp_bytes, &row->fp_bytes_given))
    return registry_vtab_error(vt, SQLITE_ERROR, "fp_bytes must be 0 (bare payloads) or 1, 2, 3 or 4");
  shorn_error error;
  if (shorn_schema_compile(row->text, (size_t)row->text_length, &shorn_sqlite_allocator, &row->schema, &error)) {
    if (error.code == SHORN_ERROR_NOMEM) return SQLITE_NOMEM;
    char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 32];
    shorn_error_format(&error, message, sizeof message);
    return registry_vtab_error(vt, SQLITE_ERROR, "the schema of '%s' does not compile: %s", row->name, message);
  }
  row->signature = shorn_schema_signature(row->schema, &row->signature_length);
  unsigned char bytes[SHORN_REGISTRY_WIDTH];
  shorn_schema_fingerprint(row->schema, SHORN_REGISTRY_WIDTH, bytes, &error);
  hex_bytes(row->fingerprint, bytes, SHORN_REGISTRY_WIDTH);
  return SQLITE_OK;
}

/* Rebuild the indexes of every table whose definition, or one of whose
 * indexes', names `name` as an SQL string: a new version changes what
 * they read from older payloads (a member it adds takes its default, a
 * member it drops is gone), and an index left as it was would no longer
 * match its rows, which SQLite reports as a corrupt database. */
static int reindex_readers(registry_vtab *vt, const char *name, int n) {
  sqlite3_str *literal = sqlite3_str_new(vt->db);
  sqlite3_str_appendall(literal, "%'");
  for (int i = 0; i < n; i++) {
    if (name[i] == '%' || name[i] == '_' || name[i] == '\\') sqlite3_str_appendchar(literal, 1, '\\');
    sqlite3_str_appendchar(literal, name[i] == '\'' ? 2 : 1, name[i]);
  }
  sqlite3_str_appendall(literal, "'%");
  char *like = sqlite3_str_finish(literal);
  sqlite3_stmt *tables = NULL;
  int rc = like ? shadow_prepare(vt,
                                 "SELECT DISTINCT tbl_name FROM \"%w\".sqlite_schema WHERE type IN ('table', 'index') "
                                 "AND tbl_name NOT LIKE '%q\\_%%' ESCAPE '\\' AND sql LIKE ?1 ESCAPE '\\'",
                                 &tables)
                : SQLITE_NOMEM;
  if (rc == SQLITE_OK) sqlite3_bind_text(tables, 1, like, -1, SQLITE_STATIC);
  while (rc == SQLITE_OK && (rc = sqlite3_step(tables)) == SQLITE_ROW) {
    char *sql = sqlite3_mprintf("REINDEX \"%w\".\"%w\"", vt->database, (const char *)sqlite3_column_text(tables, 0));
    rc = sql ? sqlite3_exec(vt->db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM) rc = registry_vtab_error(vt, rc, "cannot rebuild an index that reads '%.*s': %s", n, name, sqlite3_errmsg(vt->db));
  sqlite3_finalize(tables);
  sqlite3_free(like);
  return rc;
}

/* INSERT (argv[0] NULL) or UPDATE of row argv[0]: argv[1] is the new rowid,
 * argv[2...] the columns.  Every check runs before anything is written:
 * SQLite requires it of a table that reports SQLITE_CONSTRAINT, and a
 * refusal must leave nothing behind. */
static int registry_write(registry_vtab *vt, sqlite3_value **argv, sqlite3_int64 *rowid) {
  bool insert = sqlite3_value_type(argv[0]) == SQLITE_NULL, current;
  registry_row row;
  int rc = registry_read_row(vt, argv + 2, &row);
  if (rc == SQLITE_OK && (rc = shorn_registry_layout(vt->db, vt->database, vt->table, true, &current)) &&
      rc != SQLITE_NOMEM)
    rc = registry_vtab_error(vt, rc, "cannot add versions to the registry's table: %s", sqlite3_errmsg(vt->db));
  if (rc == SQLITE_OK) rc = insert ? check_insert(vt, &row) : check_update(vt, argv[0], &row);
  if (rc == SQLITE_OK) rc = fingerprint_clash(vt, argv[0], &row);
  /* After the checks above, which say more of an UPDATE of the schema
   * alone: its old signature and fingerprint come along as given. */
  sqlite3_value **column = argv + 2;
  if (rc == SQLITE_OK &&
      !(is_computed(column[REGISTRY_COLUMN_SIGNATURE], row.signature, row.signature_length) &&
        is_computed(column[REGISTRY_COLUMN_FINGERPRINT], row.fingerprint, sizeof row.fingerprint)))
    rc = registry_vtab_error(vt, SQLITE_ERROR, "signature and fingerprint are computed from the schema and cannot be set");
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK)
    rc = shadow_prepare(vt,
                        insert ? "INSERT INTO " SHADOW "(id, name, schema, signature, fingerprint, version, fp_bytes) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                               : "UPDATE " SHADOW " SET id = ?1, name = ?2, schema = ?3, signature = ?4, "
                                 "fingerprint = ?5, version = ?6, fp_bytes = ?7 WHERE id = ?8",
                        &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_value(st, 1, argv[1]);
    sqlite3_bind_text(st, 2, row.name, row.name_length, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, row.text, row.text_length, SQLITE_STATIC);
    sqlite3_bind_text64(st, 4, row.signature, row.signature_length, SQLITE_STATIC, SQLITE_UTF8);
    sqlite3_bind_text(st, 5, row.fingerprint, sizeof row.fingerprint, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, row.version);
    sqlite3_bind_int(st, 7, row.fp_bytes);
    if (!insert) sqlite3_bind_value(st, 8, argv[0]);
    rc = shadow_write(vt, st);
    if (rc == SQLITE_OK && insert) *rowid = sqlite3_last_insert_rowid(vt->db);
  }
  /* The indexes are rebuilt with the version in place; if that fails, the
   * version goes and they are rebuilt as they were. */
  if (rc == SQLITE_OK && insert && row.version > 1) {
    vt->state->registry_changes++;
    if ((rc = reindex_readers(vt, row.name, row.name_length)) != SQLITE_OK) {
      sqlite3_stmt *undo;
      if (shadow_prepare(vt, "DELETE FROM " SHADOW " WHERE id = ?1", &undo) == SQLITE_OK) {
        sqlite3_bind_int64(undo, 1, *rowid);
        sqlite3_step(undo);
      }
      sqlite3_finalize(undo);
      vt->state->registry_changes++;
      char *why = vt->base.zErrMsg;
      vt->base.zErrMsg = NULL;
      reindex_readers(vt, row.name, row.name_length);
      sqlite3_free(vt->base.zErrMsg);
      vt->base.zErrMsg = why;
    }
  }
  shorn_schema_free(row.schema);
  return rc;
}

static int registry_delete(registry_vtab *vt, sqlite3_value *id) {
  sqlite3_stmt *st;
  int rc = shadow_prepare(vt, "DELETE FROM " SHADOW " WHERE id = ?1", &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_value(st, 1, id);
  return shadow_write(vt, st);
}

static int registry_update(sqlite3_vtab *base, int argc, sqlite3_value **argv,
                           sqlite3_int64 *rowid) {
  registry_vtab *vt = (registry_vtab *)base;
  int rc = argc == 1 ? registry_delete(vt, argv[0]) : registry_write(vt, argv, rowid);
  if (rc == SQLITE_OK) vt->state->registry_changes++;
  return rc;
}

/* ---- transactions -------------------------------------------------------- */

/* SQLite calls xRollback and xRollbackTo only on tables that joined the
 * transaction, which takes an xBegin, and rolls a savepoint back on a table
 * only if xSavepoint saw it opened. */
static int registry_begin(sqlite3_vtab *base) {
  (void)base;
  return SQLITE_OK;
}

static int registry_savepoint(sqlite3_vtab *base, int savepoint) {
  (void)base, (void)savepoint;
  return SQLITE_OK;
}

/* A rollback does not move the data version, yet names this connection read
 * inside the transaction may be gone. */
static int registry_rollback(sqlite3_vtab *base) {
  ((registry_vtab *)base)->state->registry_changes++;
  return SQLITE_OK;
}

static int registry_rollback_to(sqlite3_vtab *base, int savepoint) {
  (void)savepoint;
  return registry_rollback(base);
}

static const sqlite3_module registry_module = {
    .iVersion = 3,
    .xCreate = registry_create,
    .xConnect = registry_connect,
    .xBestIndex = registry_best_index,
    .xDisconnect = registry_disconnect,
    .xDestroy = registry_destroy,
    .xOpen = registry_open,
    .xClose = registry_close,
    .xFilter = registry_filter,
    .xNext = registry_next,
    .xEof = registry_eof,
    .xColumn = registry_column,
    .xRowid = registry_rowid,
    .xUpdate = registry_update,
    .xBegin = registry_begin,
    .xRollback = registry_rollback,
    .xRename = registry_rename,
    .xSavepoint = registry_savepoint,
    .xRollbackTo = registry_rollback_to,
    .xShadowName = registry_shadow_name,
};

/* ---- shorn_registry_version() -------------------------------------------- */

/* A number that moves whenever what this connection would read from a
 * registry in main may have changed, so that a caller can keep what it read
 * while the number stays: main's data version counts commits by every
 * connection, registry_changes this connection's writes and rollbacks.
 * Only a transaction on main reads the data version from the file, so
 * outside one the answer is NULL: the statement that asks must read main. */
static void registry_version_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const shorn_state *st = sqlite3_user_data(ctx);
  unsigned version;
  if (sqlite3_txn_state(db, "main") == SQLITE_TXN_NONE ||
      sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &version) != SQLITE_OK)
    return;
  sqlite3_result_int64(ctx, (sqlite3_int64)version + st->registry_changes);
}

/* Not deterministic: the number moves while a statement runs. */
static const shorn_function registry_function_table[] = {
    {"shorn_registry_version", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, registry_version_function},
};

static const shorn_module registry_module_table[] = {{"shorn_registry", &registry_module}};

int shorn_register_registry(sqlite3 *db, shorn_state *st) {
  return shorn_register(db, st, registry_function_table, COUNT_OF(registry_function_table), registry_module_table,
                        COUNT_OF(registry_module_table));
}
