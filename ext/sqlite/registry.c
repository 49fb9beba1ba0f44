/*
 * registry.c — the virtual table module shorn_registry: schemas
 * registered under a name and kept in the database file.
 *
 *   CREATE VIRTUAL TABLE IF NOT EXISTS shorn_schemas USING shorn_registry;
 *   INSERT INTO shorn_schemas(name, schema) VALUES ('person', '{"type":...}');
 *   SELECT shorn_decode(payload, 'person') FROM events;
 *
 * The rows live in an ordinary table, the shadow table shorn_schemas_data,
 * so they are exactly as durable and as transactional as the user's own.
 * The virtual table is the gate that keeps them sound: every schema
 * compiles, signature and fingerprint are computed, a name keeps its wire
 * shape, and no two rows share a fingerprint, so a fingerprinted payload
 * names its schema by itself.
 */
#include <stdarg.h>
#include <string.h>

#include "sqlite/registry.h"

#include "core/text/text.h"

#define REGISTRY_TABLE SHORN_REGISTRY_TABLE

/* The shadow table in a statement template: "%w"."%w_data", filled in with
 * the virtual table's database and name. */
#define SHADOW "\"%w\".\"%w_data\""

enum { REGISTRY_COLUMN_NAME, REGISTRY_COLUMN_SCHEMA, REGISTRY_COLUMN_SIGNATURE, REGISTRY_COLUMN_FINGERPRINT };

typedef struct registry_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  shorn_state *state;
  char *database; /* "main", unless read from an attached database */
  char *table;
} registry_vtab;

typedef struct registry_cursor {
  sqlite3_vtab_cursor base;
  sqlite3_stmt *rows; /* id, name, schema, signature, fingerprint */
  bool eof;
} registry_cursor;

/* Set the table's error message, "<table>: <reason>", and return `rc`. */
static int vtab_error(registry_vtab *vt, int rc, const char *format, ...) {
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
  char *sql = sqlite3_mprintf(template, vt->database, vt->table);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(vt->db, sql, -1, stmt, NULL);
  sqlite3_free(sql);
  return rc == SQLITE_OK ? rc : vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
}

/* Run a statement that writes the shadow table, and finalize it. */
static int shadow_write(registry_vtab *vt, sqlite3_stmt *stmt) {
  int rc = sqlite3_step(stmt);
  rc = rc == SQLITE_DONE ? SQLITE_OK : vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
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
                                    "fingerprint TEXT)");
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
  char *sql = sqlite3_mprintf("CREATE TABLE " SHADOW "(id INTEGER PRIMARY KEY, "
                              "name TEXT NOT NULL UNIQUE, schema TEXT NOT NULL, "
                              "signature TEXT NOT NULL, fingerprint TEXT NOT NULL UNIQUE)",
                              argv[1], argv[2]);
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
  return vtab_error((registry_vtab *)base, SQLITE_ERROR,
                    "cannot be renamed: the SQL functions read main." REGISTRY_TABLE);
}

/* In defensive mode SQLite keeps ordinary SQL from writing shorn_schemas_data,
 * so every row has passed the checks below. */
static int registry_shadow_name(const char *suffix) { return sqlite3_stricmp(suffix, "data") == 0; }

/* ---- reading ------------------------------------------------------------- */

enum { PLAN_SCAN, PLAN_ROWID, PLAN_NAME, PLAN_FINGERPRINT };

#define ROWS "SELECT id, name, schema, signature, fingerprint FROM " SHADOW
static const char *const plans[] = {
    [PLAN_SCAN] = ROWS,
    [PLAN_ROWID] = ROWS " WHERE id = ?1",
    [PLAN_NAME] = ROWS " WHERE name = ?1",
    [PLAN_FINGERPRINT] = ROWS " WHERE fingerprint = ?1",
};

/* Equality on rowid, name or fingerprint is a lookup in the shadow table's
 * own indexes; anything else scans its few rows. */
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
    info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
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
  return vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
}

static int registry_filter(sqlite3_vtab_cursor *base, int plan, const char *unused, int argc,
                           sqlite3_value **argv) {
  (void)unused;
  registry_cursor *cur = (registry_cursor *)base;
  sqlite3_finalize(cur->rows);
  int rc = shadow_prepare((registry_vtab *)base->pVtab, plans[plan], &cur->rows);
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

/* Refuse the row if it clashes with one already registered: another row
 * holding its name or its fingerprint, or (UPDATE) the row itself with
 * another wire shape. */
static int clash_check(registry_vtab *vt, sqlite3_value *old, const char *name, int name_length,
                       const char *signature, size_t signature_length, const char *fingerprint) {
  sqlite3_stmt *st;
  int rc = shadow_prepare(vt,
                          "SELECT id IS ?1, name = ?2, signature = ?3, name FROM " SHADOW
                          " WHERE id IS ?1 OR name = ?2 OR fingerprint = ?4",
                          &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_value(st, 1, old);
  sqlite3_bind_text(st, 2, name, name_length, SQLITE_STATIC);
  sqlite3_bind_text64(st, 3, signature, signature_length, SQLITE_STATIC, SQLITE_UTF8);
  sqlite3_bind_text(st, 4, fingerprint, 2 * SHORN_REGISTRY_WIDTH, SQLITE_STATIC);
  bool itself = false, same_name = false, same_shape = false;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    itself = sqlite3_column_int(st, 0);
    same_name = sqlite3_column_int(st, 1);
    same_shape = sqlite3_column_int(st, 2);
    if (!(itself && same_shape)) break;
  }
  const char *other = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 3) : NULL;
  if (rc == SQLITE_DONE)
    rc = SQLITE_OK;
  else if (rc != SQLITE_ROW)
    rc = vtab_error(vt, rc, "%s", sqlite3_errmsg(vt->db));
  else if (itself)
    rc = vtab_error(vt, SQLITE_CONSTRAINT,
                    "this changes the wire shape of '%s'; a new wire shape needs a new name, "
                    "so that payloads written with the old one stay readable",
                    other);
  else if (same_name)
    rc = vtab_error(vt, SQLITE_CONSTRAINT, "the name '%s' is already registered", other);
  else if (same_shape)
    rc = vtab_error(vt, SQLITE_CONSTRAINT,
                    "'%.*s' has the same wire shape as '%s', already registered "
                    "(fingerprint %.*s)",
                    name_length, name, other, 2 * SHORN_REGISTRY_WIDTH, fingerprint);
  else
    rc = vtab_error(vt, SQLITE_CONSTRAINT,
                    "'%.*s' has fingerprint %.*s, which '%s' already has with another wire "
                    "shape; a fingerprint must name one schema",
                    name_length, name, 2 * SHORN_REGISTRY_WIDTH, fingerprint, other);
  sqlite3_finalize(st);
  return rc;
}

/* INSERT (argv[0] NULL) or UPDATE of row argv[0]: argv[1] is the new rowid,
 * argv[2...] the columns.  Every check runs before anything is written:
 * SQLite requires it of a table that reports SQLITE_CONSTRAINT, and a
 * refusal must leave nothing behind. */
static int registry_write(registry_vtab *vt, sqlite3_value **argv, sqlite3_int64 *rowid) {
  sqlite3_value **column = argv + 2;
  bool insert = sqlite3_value_type(argv[0]) == SQLITE_NULL;
  /* Types first: reading a value as text makes it text. */
  int name_type = sqlite3_value_type(column[REGISTRY_COLUMN_NAME]);
  int schema_type = sqlite3_value_type(column[REGISTRY_COLUMN_SCHEMA]);
  if (name_type == SQLITE_NULL) return vtab_error(vt, SQLITE_CONSTRAINT, "name is required");
  if (schema_type == SQLITE_NULL) return vtab_error(vt, SQLITE_CONSTRAINT, "schema is required");
  const char *name = (const char *)sqlite3_value_text(column[REGISTRY_COLUMN_NAME]);
  int name_length = sqlite3_value_bytes(column[REGISTRY_COLUMN_NAME]);
  const char *text = (const char *)sqlite3_value_text(column[REGISTRY_COLUMN_SCHEMA]);
  int text_length = sqlite3_value_bytes(column[REGISTRY_COLUMN_SCHEMA]);
  if (!name || !text) return SQLITE_NOMEM;
  if (name_type != SQLITE_TEXT || !name_is_valid(name, name_length))
    return vtab_error(vt, SQLITE_ERROR,
                      "a name must be non-empty text starting with neither '{' nor white space "
                      "('{' starts inline JSON Schema)");
  if (schema_type != SQLITE_TEXT)
    return vtab_error(vt, SQLITE_ERROR, "the schema of '%s' must be JSON Schema text", name);

  shorn_schema *schema;
  shorn_error error;
  shorn_code compiled =
      shorn_schema_compile(text, (size_t)text_length, &shorn_sqlite_allocator, &schema, &error);
  if (compiled != SHORN_OK) {
    if (error.code == SHORN_ERROR_NOMEM) return SQLITE_NOMEM;
    char message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 32];
    shorn_error_format(&error, message, sizeof message);
    return vtab_error(vt, SQLITE_ERROR, "the schema of '%s' does not compile: %s", name, message);
  }
  size_t signature_length;
  const char *signature = shorn_schema_signature(schema, &signature_length);
  unsigned char bytes[SHORN_REGISTRY_WIDTH];
  char fingerprint[2 * SHORN_REGISTRY_WIDTH];
  shorn_schema_fingerprint(schema, SHORN_REGISTRY_WIDTH, bytes, &error);
  hex_bytes(fingerprint, bytes, SHORN_REGISTRY_WIDTH);

  int rc = clash_check(vt, argv[0], name, name_length, signature, signature_length, fingerprint);
  if (rc == SQLITE_OK &&
      !(is_computed(column[REGISTRY_COLUMN_SIGNATURE], signature, signature_length) &&
        is_computed(column[REGISTRY_COLUMN_FINGERPRINT], fingerprint, sizeof fingerprint)))
    rc = vtab_error(vt, SQLITE_ERROR,
                    "signature and fingerprint are computed from the schema and cannot be set");
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK)
    rc = shadow_prepare(vt,
                        insert ? "INSERT INTO " SHADOW "(id, name, schema, signature, fingerprint) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5)"
                               : "UPDATE " SHADOW " SET id = ?1, name = ?2, schema = ?3, "
                                 "signature = ?4, fingerprint = ?5 WHERE id = ?6",
                        &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_value(st, 1, argv[1]);
    sqlite3_bind_text(st, 2, name, name_length, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, text, text_length, SQLITE_STATIC);
    sqlite3_bind_text64(st, 4, signature, signature_length, SQLITE_STATIC, SQLITE_UTF8);
    sqlite3_bind_text(st, 5, fingerprint, sizeof fingerprint, SQLITE_STATIC);
    if (!insert) sqlite3_bind_value(st, 6, argv[0]);
    rc = shadow_write(vt, st);
    if (rc == SQLITE_OK && insert) *rowid = sqlite3_last_insert_rowid(vt->db);
  }
  shorn_schema_free(schema);
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

static const shorn_module registry_module_table[] = {{"shorn_registry", &registry_module}};

int shorn_register_registry(sqlite3 *db, shorn_state *st) {
  return shorn_register(db, st, NULL, 0, registry_module_table, COUNT_OF(registry_module_table));
}
