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
 * A nullable value and a union are one row each, the places below listed
 * for each branch (a member two branches have, once for each).  A
 * definition is listed at each place it is used; where it recurs inside
 * itself, the recursion is one row, so every schema's list ends.
 */
#include <string.h>

#include "sqlite/paths.h"
#include "sqlite/resolve.h"

#include "core/base/memory.h"
#include "core/shape/shape.h"

/* More rows than any schema a user reads them for: a bound on the work a
 * hostile schema can ask for. */
#define PATHS_MAX 100000

enum { TYPE_ARRAY = 1, TYPE_BOOLEAN = 2, TYPE_INTEGER = 4, TYPE_NULL = 8, TYPE_NUMBER = 16, TYPE_OBJECT = 32,
       TYPE_STRING = 64, TYPE_ANY = 128 };
static const char *const type_names[] = {"array", "boolean", "integer", "null", "number", "object", "string", "any"};

static const char *const shape_names[] = {
    [SHAPE_ANY] = "any",       [SHAPE_BOOLEAN] = "boolean", [SHAPE_FLOAT64] = "float64",
    [SHAPE_INT] = "int",       [SHAPE_STRING] = "string",   [SHAPE_UINT] = "uint",
    [SHAPE_UUID] = "uuid",     [SHAPE_DATETIME] = "datetime", [SHAPE_BIGINT] = "bigint",
    [SHAPE_BYTES] = "bytes",   [SHAPE_FLOAT32] = "float32", [SHAPE_LITERAL] = "literal",
    [SHAPE_ENUM] = "enum",     [SHAPE_ARRAY] = "array",     [SHAPE_SET] = "set",
    [SHAPE_MAP] = "map",       [SHAPE_TUPLE] = "tuple",     [SHAPE_OBJECT] = "object",
    [SHAPE_RECORD] = "record", [SHAPE_NULLABLE] = "nullable", [SHAPE_UNION] = "union",
    [SHAPE_REF] = "ref",
};

typedef struct path_row {
  size_t path_start, path_length; /* in the lister's `paths` */
  unsigned types;                 /* TYPE_ bits */
  shape_kind kind;
  bool optional;
  int64_t leads_to; /* the row of the value a recursion repeats, or -1 */
} path_row;

typedef struct lister {
  const shorn_schema *schema;
  shorn_buffer current; /* the path of the place being listed */
  shorn_buffer paths;   /* every row's path, one after another */
  path_row *rows;
  size_t count, capacity;
  int64_t *definition_rows; /* per definition, the row listing its body, or -1 */
  int depth;
} lister;

static unsigned scalar_types(const scalar *s) {
  switch (s->type) {
    case JSON_NULL: return TYPE_NULL;
    case JSON_FALSE:
    case JSON_TRUE: return TYPE_BOOLEAN;
    case JSON_NUMBER: return s->number == (double)(int64_t)s->number ? TYPE_INTEGER : TYPE_NUMBER;
    default: return TYPE_STRING;
  }
}

/* The JSON types a value of the shape decodes to. */
static unsigned shape_types(const shape *s, int depth) {
  if (depth > NESTING_MAX) return TYPE_ANY;
  unsigned types = 0;
  switch (s->kind) {
    case SHAPE_ANY: return TYPE_ANY;
    case SHAPE_BOOLEAN: return TYPE_BOOLEAN;
    case SHAPE_FLOAT64:
    case SHAPE_FLOAT32: return TYPE_NUMBER;
    case SHAPE_INT:
    case SHAPE_UINT: return TYPE_INTEGER;
    case SHAPE_STRING:
    case SHAPE_UUID:
    case SHAPE_DATETIME:
    case SHAPE_BIGINT:
    case SHAPE_BYTES: return TYPE_STRING;
    case SHAPE_LITERAL: return scalar_types(&s->u.literal);
    case SHAPE_ENUM:
      for (uint32_t i = 0; i < s->u.enumeration.count; i++) types |= scalar_types(&s->u.enumeration.members[i]);
      return types;
    case SHAPE_ARRAY:
    case SHAPE_SET:
    case SHAPE_MAP:
    case SHAPE_TUPLE: return TYPE_ARRAY;
    case SHAPE_OBJECT:
    case SHAPE_RECORD: return TYPE_OBJECT;
    case SHAPE_NULLABLE: return TYPE_NULL | shape_types(s->u.inner, depth + 1);
    case SHAPE_UNION:
      for (uint32_t i = 0; i < s->u.choice.count; i++) types |= shape_types(s->u.choice.branches[i], depth + 1);
      return types;
    case SHAPE_REF: return shape_types(s->u.ref.target, depth + 1);
  }
  return TYPE_ANY;
}

/* SQLITE_OK, SQLITE_NOMEM, or SQLITE_TOOBIG past PATHS_MAX rows. */
static int add_row(lister *l, const shape *s, bool optional, int64_t leads_to) {
  if (l->count == PATHS_MAX) return SQLITE_TOOBIG;
  path_row *rows = array_grow(&shorn_sqlite_allocator, l->rows, &l->capacity, l->count + 1, sizeof *rows, NULL);
  if (!rows) return SQLITE_NOMEM;
  l->rows = rows;
  rows[l->count++] = (path_row){l->paths.length, l->current.length, shape_types(s, 0), s->kind, optional, leads_to};
  return buffer_append(&l->paths, l->current.data, l->current.length) ? SQLITE_OK : SQLITE_NOMEM;
}

static int list_place(lister *l, const shape *s, bool optional);
static int list_inside(lister *l, const shape *s, int64_t row);

/* The place `step` below the current one, of shape s. */
static int list_step(lister *l, const char *step, size_t n, const shape *s, bool optional) {
  size_t length = l->current.length;
  if (!buffer_append(&l->current, step, n)) return SQLITE_NOMEM;
  int rc = list_place(l, s, optional);
  l->current.length = length;
  return rc;
}

/* `.key` as json_tree spells a member in a path: bare when a letter then
 * letters and digits, else in quotes. */
static int list_member(lister *l, const field *f) {
  bool bare = f->key_length && ((f->key[0] | 32) >= 'a' && (f->key[0] | 32) <= 'z');
  for (uint32_t i = 1; bare && i < f->key_length; i++)
    bare = ((f->key[i] | 32) >= 'a' && (f->key[i] | 32) <= 'z') || (f->key[i] >= '0' && f->key[i] <= '9');
  size_t length = l->current.length;
  bool ok = bare ? buffer_byte(&l->current, '.') && buffer_append(&l->current, f->key, f->key_length)
                 : buffer_append(&l->current, ".\"", 2) && buffer_append(&l->current, f->key, f->key_length) &&
                       buffer_byte(&l->current, '"');
  int rc = ok ? list_place(l, f->value, f->optional) : SQLITE_NOMEM;
  l->current.length = length;
  return rc;
}

static int list_tuple(lister *l, const shape *s) {
  int rc = SQLITE_OK;
  for (uint32_t i = 0; i < s->u.tuple.count && rc == SQLITE_OK; i++) {
    char step[16];
    sqlite3_snprintf(sizeof step, step, "[%u]", i);
    rc = list_step(l, step, strlen(step), s->u.tuple.items[i], false);
  }
  if (rc == SQLITE_OK && s->u.tuple.rest) rc = list_step(l, "[*]", 3, s->u.tuple.rest, false);
  return rc;
}

/* The row of the definition a recursion at s repeats, or -1: s itself, or
 * a nullable's value or a union's branch, may be the recursion. */
static int64_t recursion_of(const lister *l, const shape *s) {
  switch (s->kind) {
    case SHAPE_REF: return l->definition_rows[s->u.ref.index];
    case SHAPE_NULLABLE: return recursion_of(l, s->u.inner);
    case SHAPE_UNION:
      for (uint32_t i = 0; i < s->u.choice.count; i++) {
        int64_t row = recursion_of(l, s->u.choice.branches[i]);
        if (row >= 0) return row;
      }
      return -1;
    default: return -1;
  }
}

/* A reference to a definition no place above is listing (the root's, or
 * one used twice side by side) is listed in place; one to a definition
 * listed above is a recursion. */
static const shape *in_place(const lister *l, const shape *s) {
  return s->kind == SHAPE_REF && l->definition_rows[s->u.ref.index] < 0 ? s->u.ref.target : s;
}

/* The places below a value of shape s, whose own is row `row`. */
static int list_below(lister *l, const shape *s, int64_t row) {
  int rc = SQLITE_OK;
  switch (s->kind) {
    case SHAPE_ARRAY:
    case SHAPE_SET: return list_step(l, "[*]", 3, s->u.array.element, false);
    case SHAPE_MAP:
      rc = list_step(l, "[*][0]", 6, s->u.map.key, false);
      return rc == SQLITE_OK ? list_step(l, "[*][1]", 6, s->u.map.value, false) : rc;
    case SHAPE_TUPLE: return list_tuple(l, s);
    case SHAPE_OBJECT:
      for (uint32_t i = 0; i < s->u.object.count && rc == SQLITE_OK; i++) rc = list_member(l, &s->u.object.fields[i]);
      if (rc == SQLITE_OK && s->u.object.extras) rc = list_step(l, ".*", 2, s->u.object.extras, true);
      return rc;
    case SHAPE_RECORD: return list_step(l, ".*", 2, s->u.record, true);
    case SHAPE_NULLABLE: return list_inside(l, s->u.inner, row);
    case SHAPE_UNION:
      for (uint32_t i = 0; i < s->u.choice.count && rc == SQLITE_OK; i++)
        rc = list_inside(l, s->u.choice.branches[i], row);
      return rc;
    default: return SQLITE_OK;
  }
}

/* The places below a value of shape s at row `row`, s a reference listed
 * in place or any other shape. */
static int list_inside(lister *l, const shape *s, int64_t row) {
  if (in_place(l, s) == s) return list_below(l, s, row);
  uint32_t index = s->u.ref.index;
  l->definition_rows[index] = row;
  int rc = list_below(l, s->u.ref.target, row);
  l->definition_rows[index] = -1;
  return rc;
}

/* The row of the place of shape s, then the places below it; a recursion's
 * row names the row of the definition it repeats, above it on its path. */
static int list_place(lister *l, const shape *s, bool optional) {
  if (++l->depth > NESTING_MAX) return SQLITE_TOOBIG;
  int64_t row = (int64_t)l->count, leads_to = recursion_of(l, s);
  int rc = add_row(l, in_place(l, s), optional, leads_to);
  if (rc == SQLITE_OK && leads_to < 0) rc = list_inside(l, s, row);
  l->depth--;
  return rc;
}

static void lister_free(lister *l) {
  shorn_buffer_free(&l->current);
  shorn_buffer_free(&l->paths);
  sqlite3_free(l->rows);
  sqlite3_free(l->definition_rows);
  memset(l, 0, sizeof *l);
}

static int list_schema(lister *l, const shorn_schema *schema) {
  *l = (lister){.schema = schema, .current.allocator = &shorn_sqlite_allocator,
                .paths.allocator = &shorn_sqlite_allocator};
  if (schema->def_count) {
    if (!(l->definition_rows = sqlite3_malloc64(schema->def_count * sizeof *l->definition_rows))) return SQLITE_NOMEM;
    for (uint32_t i = 0; i < schema->def_count; i++) l->definition_rows[i] = -1;
  }
  if (!buffer_byte(&l->current, '$')) return SQLITE_NOMEM;
  return list_place(l, schema->root, false);
}

/* ---- the table ----------------------------------------------------------- */

enum { COLUMN_PATH, COLUMN_TYPE, COLUMN_SHAPE, COLUMN_OPTIONAL, COLUMN_LEADS_TO, COLUMN_SCHEMA };

typedef struct paths_vtab {
  sqlite3_vtab base;
  shorn_state *state;
} paths_vtab;

typedef struct paths_cursor {
  sqlite3_vtab_cursor base;
  sqlite3_value *schema; /* the argument, as the hidden column shows it */
  lister list;
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
  lister_free(&cur->list);
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
  int rc = list_schema(&cur->list, b.compiled->schema);
  if (rc == SQLITE_TOOBIG) {
    shorn_fail_with(&f, SQLITE_ERROR, "shorn_paths", "the schema has more than %d places to list", PATHS_MAX);
    return paths_failed(cur, &f);
  }
  return rc;
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

static void result_path(sqlite3_context *ctx, const lister *l, const path_row *row) {
  sqlite3_result_text64(ctx, (const char *)l->paths.data + row->path_start, row->path_length, SQLITE_TRANSIENT,
                        SQLITE_UTF8);
}

/* 'integer|null': the type names of the bits, in type_names' order. */
static void result_types(sqlite3_context *ctx, unsigned types) {
  char text[64];
  size_t n = 0;
  for (unsigned i = 0; i < COUNT_OF(type_names); i++) {
    if (!(types >> i & 1)) continue;
    size_t length = strlen(type_names[i]);
    if (n) text[n++] = '|';
    memcpy(text + n, type_names[i], length);
    n += length;
  }
  sqlite3_result_text(ctx, text, (int)n, SQLITE_TRANSIENT);
}

static int paths_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int column) {
  paths_cursor *cur = (paths_cursor *)base;
  const path_row *row = &cur->list.rows[cur->row];
  switch (column) {
    case COLUMN_PATH: result_path(ctx, &cur->list, row); break;
    case COLUMN_TYPE: result_types(ctx, row->types); break;
    case COLUMN_SHAPE: sqlite3_result_text(ctx, shape_names[row->kind], -1, SQLITE_STATIC); break;
    case COLUMN_OPTIONAL: sqlite3_result_int(ctx, row->optional); break;
    case COLUMN_LEADS_TO:
      if (row->leads_to >= 0) result_path(ctx, &cur->list, &cur->list.rows[row->leads_to]);
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
