/*
 * paths.c — shorn_paths(schema): a row for every place a value of the
 * schema has, as json_tree lists the places of one value, so that a path
 * can be checked before an index is built on it:
 *
 *   path      '$', '$.name', '$.tags[*]' (any array, Set item), '$.scores.*'
 *             (any record or open object member), '$.pair[0]' (a tuple
 *             item), '$.counts[*][0]' and '[*][1]' (a Map's keys and
 *             values, as the [key, value] pairs it decodes to)
 *   type      the JSON types a value there takes, '|' between them:
 *             'string', 'integer|null', 'any' for a dynamic value
 *   shape     its wire shape, as shorn_signature names it
 *   optional  1 for an object member that may be left out, else 0
 *   leads_to  for a recursion, the path of the value it repeats, else NULL
 *
 * The rows are the core's (core/query/places.c); this file is the table
 * SQLite reads them through.
 */
#include <string.h>

#include "sqlite/paths.h"
#include "sqlite/resolve.h"

#include "core/query/places.h"

enum { COLUMN_PATH, COLUMN_TYPE, COLUMN_SHAPE, COLUMN_OPTIONAL, COLUMN_LEADS_TO, COLUMN_SCHEMA };

typedef struct paths_vtab {
  sqlite3_vtab base;
  shorn_state *state;
} paths_vtab;

typedef struct paths_cursor {
  sqlite3_vtab_cursor base;
  sqlite3_value *schema; /* the argument, as the hidden column shows it */
  places list;
  size_t row;
} paths_cursor;

static int paths_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                         char **error) {
  (void)argc, (void)argv, (void)error;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(path, type, shape, optional, leads_to, schema HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  paths_vtab *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->state = aux;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = &vt->base;
  return SQLITE_OK;
}

static int paths_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* The schema is an equality constraint on the hidden column; a plan that
 * cannot supply it is refused, and without it there are no rows. */
static int paths_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn != COLUMN_SCHEMA) continue;
    if (!c->usable) return SQLITE_CONSTRAINT;
    if (c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->idxNum = 1;
    info->estimatedCost = 1;
    return SQLITE_OK;
  }
  return SQLITE_OK;
}

static int paths_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  paths_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  *out = &cur->base;
  return SQLITE_OK;
}

static void paths_reset(paths_cursor *cur) {
  sqlite3_value_free(cur->schema);
  cur->schema = NULL;
  places_free(&cur->list);
  cur->row = 0;
}

static int paths_close(sqlite3_vtab_cursor *base) {
  paths_reset((paths_cursor *)base);
  sqlite3_free(base);
  return SQLITE_OK;
}

static int paths_failed(paths_cursor *cur, shorn_failure *f) {
  sqlite3_free(cur->base.pVtab->zErrMsg);
  cur->base.pVtab->zErrMsg = f->message;
  return f->code;
}

static int paths_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str;
  paths_cursor *cur = (paths_cursor *)base;
  paths_reset(cur);
  if (!idx_num || argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  if (!(cur->schema = sqlite3_value_dup(argv[0]))) return SQLITE_NOMEM;
  shorn_failure f;
  int n;
  const char *text = shorn_schema_text(argv[0], &n, "shorn_paths", &f);
  shorn_binding b;
  if (!text || !shorn_resolve(((paths_vtab *)base->pVtab)->state, text, n, "shorn_paths", &b, &f))
    return paths_failed(cur, &f);
  switch (places_list(&cur->list, b.compiled->schema, &shorn_sqlite_allocator)) {
    case PLACES_OK: return SQLITE_OK;
    case PLACES_NOMEM: return SQLITE_NOMEM;
    case PLACES_TOO_MANY: break;
  }
  shorn_fail_with(&f, SQLITE_ERROR, "shorn_paths", "the schema has more than %d places to list", PLACES_MAX);
  return paths_failed(cur, &f);
}

static int paths_next(sqlite3_vtab_cursor *base) {
  ((paths_cursor *)base)->row++;
  return SQLITE_OK;
}

static int paths_eof(sqlite3_vtab_cursor *base) {
  paths_cursor *cur = (paths_cursor *)base;
  return cur->row >= cur->list.count;
}

static int paths_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((paths_cursor *)base)->row + 1;
  return SQLITE_OK;
}

static void paths_result_path(sqlite3_context *ctx, const places *l, const places_row *row) {
  sqlite3_result_text64(ctx, (const char *)l->paths.data + row->path_start, row->path_length, SQLITE_TRANSIENT,
                        SQLITE_UTF8);
}

static void paths_result_types(sqlite3_context *ctx, unsigned types) {
  char text[PLACES_TYPES_TEXT];
  sqlite3_result_text(ctx, text, (int)places_types_text(types, text), SQLITE_TRANSIENT);
}

static int paths_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int column) {
  paths_cursor *cur = (paths_cursor *)base;
  const places_row *row = &cur->list.rows[cur->row];
  switch (column) {
    case COLUMN_PATH: paths_result_path(ctx, &cur->list, row); break;
    case COLUMN_TYPE: paths_result_types(ctx, row->types); break;
    case COLUMN_SHAPE: sqlite3_result_text(ctx, row->shape, -1, SQLITE_STATIC); break;
    case COLUMN_OPTIONAL: sqlite3_result_int(ctx, row->optional); break;
    case COLUMN_LEADS_TO:
      if (row->leads_to >= 0) paths_result_path(ctx, &cur->list, &cur->list.rows[row->leads_to]);
      break;
    default: sqlite3_result_value(ctx, cur->schema);
  }
  return SQLITE_OK;
}

/* Eponymous only (no xCreate): the module's name is the table's. */
static const sqlite3_module paths_module = {
    .xConnect = paths_connect, .xBestIndex = paths_best_index, .xDisconnect = paths_disconnect,
    .xOpen = paths_open, .xClose = paths_close, .xFilter = paths_filter, .xNext = paths_next,
    .xEof = paths_eof, .xColumn = paths_column, .xRowid = paths_rowid,
};

static const shorn_module paths_module_table[] = {{"shorn_paths", &paths_module}};

int shorn_register_paths(sqlite3 *db, shorn_state *st) {
  return shorn_register(db, st, NULL, 0, paths_module_table, COUNT_OF(paths_module_table));
}
