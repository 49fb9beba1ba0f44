/*
 * query_functions.c — SQLite's JSON functions over payloads, answered from
 * the bytes by the core's query.c:
 *
 *   shorn_extract(payload, schema [, fp_bytes], path, ...)  as json_extract
 *   shorn_type(payload, schema [, fp_bytes] [, path])        as json_type
 *   shorn_valid(payload, schema [, fp_bytes])                1 or 0
 *   shorn_error(payload, schema [, fp_bytes])                the decode error, or NULL
 *   shorn_check_payload(payload, schema [, fp_bytes])        that, or why shorn_encode
 *                                                            would refuse its value
 *   shorn_each(payload, schema [, fp_bytes] [, path])        as json_each
 *   shorn_tree(payload, schema [, fp_bytes] [, path])        as json_tree
 *
 *   shorn_extract(payload, fp_bytes, path, ...), shorn_type(payload,
 *   fp_bytes [, path]), ... shorn_tree(payload, fp_bytes [, path])
 *       the same by dispatch: the registered schema whose fp_bytes-byte
 *       fingerprint starts the payload
 *
 * Each returns what the JSON function returns over shorn_decode(payload,
 * schema): the same values, of the same SQL types.  fp_bytes is told from a
 * schema or a path by its type: a number (INTEGER, or a REAL with an
 * integral value, as Node binds one), where they are text.
 */
#include <string.h>

#include "sqlite/query_functions.h"

#include "core/base/memory.h"
#include "core/numbers/number.h"
#include "core/query/query.h"
#include "sqlite/json_text.h"
#include "sqlite/resolve.h"

/* ---- arguments ----------------------------------------------------------- */

/* A parsed path argument and the buffers its answers are written into.
 * Held as auxdata, so that a constant path is parsed once a statement and
 * its rows reuse the buffers rather than allocate. */
typedef struct held_path {
  query_path *path;
  /* Whether it reads alike in `older`'s payloads as in the newest's: the
   * version met last, as a column's rows are mostly of one. */
  const evolve_plan *older;
  bool alike;
  shorn_buffer json; /* a node's JSON text */
  shorn_buffer text; /* a string's value, unescaped */
} held_path;

static void held_path_free(void *p) {
  held_path *h = p;
  query_path_free(h->path);
  shorn_buffer_free(&h->json);
  shorn_buffer_free(&h->text);
  sqlite3_free(h);
}

/* Argument `i` as a path: *held is NULL for an SQL NULL, which names
 * nothing, as in json_extract.  False after reporting an error. */
static bool path_argument(sqlite3_context *ctx, int i, sqlite3_value *v, const char *function,
                          held_path **held) {
  *held = sqlite3_get_auxdata(ctx, i);
  if (*held || sqlite3_value_type(v) == SQLITE_NULL) return true;
  const char *text = (const char *)sqlite3_value_text(v);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return false;
  }
  shorn_error e;
  /* SQLite's JSON functions read a path up to its first NUL. */
  query_path *path = query_path_parse(&shorn_sqlite_allocator, text, strlen(text), &e);
  if (!path) {
    shorn_report(ctx, function, &e);
    return false;
  }
  held_path *h = sqlite3_malloc(sizeof *h);
  if (!h) {
    query_path_free(path);
    sqlite3_result_error_nomem(ctx);
    return false;
  }
  *h = (held_path){.path = path, .json.allocator = &shorn_sqlite_allocator,
                   .text.allocator = &shorn_sqlite_allocator};
  sqlite3_set_auxdata(ctx, i, h, held_path_free);
  /* SQLite frees it at once when it cannot keep it. */
  *held = sqlite3_get_auxdata(ctx, i);
  if (!*held) sqlite3_result_error_nomem(ctx);
  return *held != NULL;
}

/* One call of a scalar function: its name for messages, the payload it
 * reads, and what went wrong.  Only the name is set up front; the rest is
 * set as it is used: zeroing the whole of it, its error's text included,
 * would cost every row more than a small extraction. */
typedef struct call {
  const char *function;
  query q;
  shorn_error error;
} call;

/* Whether the call dispatches (fp_bytes in the schema's place) and
 * `has_width`, fp_bytes in its own place too: an error, reported. */
static bool second_width(sqlite3_context *ctx, sqlite3_value **argv, bool has_width, const char *function) {
  bool twice = has_width && shorn_is_number(argv[1]);
  if (twice) shorn_report_text(ctx, function, SHORN_ONE_WIDTH);
  return twice;
}

/* Whether a path reads the same in a payload of an older version, by the
 * older version's schema, as in the payload rewritten in the newest.  A
 * key with escapes, or counted from the end, is not looked into. */
static bool reads_alike(const evolve_plan *plan, const query_path *path) {
  evolve_place at = evolve_root(plan);
  for (uint32_t i = 0; path && i < path->count; i++) {
    const path_step *step = &path->steps[i];
    if (step->kind == STEP_FROM_END || (step->kind == STEP_KEY && !step->plain) ||
        !evolve_path_step(plan, &at, step->kind == STEP_KEY ? step->key : NULL, step->key_length, step->index))
      return false;
  }
  return at.alike;
}

/* The pinned binding of a payload of a name's older version: read by its
 * own version's schema when the call's one path (argument `path_index`,
 * or the root when 0) reads it alike, else rewritten in the newest. */
static bool open_older(sqlite3_context *ctx, sqlite3_value **argv, int path_index, shorn_version *older,
                       const uint8_t **data, size_t *n, int width, call *c, const shorn_schema **schema) {
  held_path *held = NULL;
  if (path_index > 0 && path_argument(ctx, path_index, argv[path_index], c->function, &held) && held &&
      held->older != older->plan) {
    held->older = older->plan;
    held->alike = reads_alike(older->plan, held->path);
  }
  if (held ? held->alike : path_index == 0 && reads_alike(older->plan, NULL)) {
    *schema = older->compiled->schema;
    return true;
  }
  if (shorn_upgrade_payload(sqlite3_user_data(ctx), older, data, n, width, &c->error)) {
    shorn_report(ctx, c->function, &c->error);
    return false;
  }
  return true;
}

/* Open the payload `argv[0]` with schema `argv[1]` and the given width, or
 * with the schema its fingerprint names when `argv[1]` is fp_bytes; false
 * after reporting an error.  A call that reads one path says where it is
 * (`path_index`, 0 for the root, -1 for none). */
static bool open_payload(sqlite3_context *ctx, sqlite3_value **argv, int width, call *c, int path_index) {
  bool dispatch = shorn_is_number(argv[1]);
  shorn_binding b = {NULL, NULL};
  if (!dispatch && !shorn_schema_argument(ctx, 1, argv[1], c->function, &b)) return false;
  const uint8_t *data;
  size_t n;
  int rc = shorn_payload(argv[0], &data, &n);
  if (rc != SQLITE_OK) {
    shorn_report_payload(ctx, c->function, rc, argv[0]);
    return false;
  }
  if (dispatch && !(b.compiled = shorn_dispatched_schema(ctx, argv[1], data, n, c->function, &width))) return false;
  const shorn_schema *schema = b.compiled->schema;
  shorn_version *older = NULL;
  if (b.lineage && shorn_older_version(sqlite3_user_data(ctx), &b, data, n, &width, &older, &c->error)) {
    shorn_report(ctx, c->function, &c->error);
    return false;
  }
  if (older && !open_older(ctx, argv, path_index, older, &data, &n, width, c, &schema)) return false;
  if (query_open(&c->q, schema, data, n, width, &c->error)) {
    shorn_report(ctx, c->function, &c->error);
    return false;
  }
  return true;
}

/* ---- results ------------------------------------------------------------- */

/* The SQL value SQLite's JSON functions make of a value's JSON text:
 * NULL, 1 or 0, INTEGER when spelled as one that fits, else REAL, TEXT, or
 * for an array or object its text with subtype 'J'. */
static void result_json(sqlite3_context *ctx, const char *json, size_t n, shorn_buffer *scratch) {
  int64_t integer;
  switch (query_text_type(json, n)) {
    case QUERY_NULL: sqlite3_result_null(ctx); return;
    case QUERY_TRUE: sqlite3_result_int(ctx, 1); return;
    case QUERY_FALSE: sqlite3_result_int(ctx, 0); return;
    case QUERY_INTEGER:
      if (json_text_integer(json, n, &integer)) {
        sqlite3_result_int64(ctx, integer);
        return;
      }
      /* Too large for 64 bits: SQLite makes it a REAL. */
      /* fall through */
    case QUERY_REAL: sqlite3_result_double(ctx, number_parse(json, n)); return;
    case QUERY_STRING: {
      const char *s;
      size_t length;
      if (!json_text_unescape(json + 1, n - 2, scratch, &s, &length))
        sqlite3_result_error_nomem(ctx);
      else
        sqlite3_result_text64(ctx, s, length, SQLITE_TRANSIENT, SQLITE_UTF8);
      return;
    }
    case QUERY_ARRAY:
    case QUERY_OBJECT:
      sqlite3_result_text64(ctx, json, n, SQLITE_TRANSIENT, SQLITE_UTF8);
      sqlite3_result_subtype(ctx, 'J');
      return;
  }
}

/* The SQL value of a node, as result_json makes it of the node's text; a
 * number's or a string's straight from its bytes, without the text. */
static shorn_code result_node(sqlite3_context *ctx, query *q, const query_node *node, held_path *held) {
  bool is_integer;
  int64_t integer;
  double real;
  const char *text;
  size_t length;
  if (query_number(q, node, &is_integer, &integer, &real)) {
    if (is_integer)
      sqlite3_result_int64(ctx, integer);
    else
      sqlite3_result_double(ctx, real);
    return SHORN_OK;
  }
  if (query_text(q, node, &text, &length)) {
    sqlite3_result_text64(ctx, text, length, SQLITE_TRANSIENT, SQLITE_UTF8);
    return SHORN_OK;
  }
  held->json.length = 0;
  shorn_code rc = query_json(q, node, &held->json);
  if (!rc) result_json(ctx, (const char *)held->json.data, held->json.length, &held->text);
  return rc;
}

/* ---- the scalar functions ------------------------------------------------ */

/* Append the JSON text of what path argument `i` names, or null. */
static shorn_code append_answer(call *c, const held_path *held, shorn_buffer *out) {
  query_node node = {NULL, NULL};
  shorn_code rc = held ? query_find(&c->q, held->path, &node) : SHORN_OK;
  if (rc) return rc;
  if (node.shape) return query_json(&c->q, &node, out);
  return buffer_append(out, "null", 4) ? SHORN_OK : error_nomem(&c->error);
}

static void extract_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  call c;
  c.function = "shorn_extract";
  if (argc < 3) {
    shorn_report_text(ctx, c.function, "expects a payload, a schema and a path");
    return;
  }
  if (shorn_is_null(argv[0]) || shorn_is_null(argv[1])) return;
  int first = 2, width = 0;
  if (second_width(ctx, argv, shorn_is_number(argv[2]), c.function)) return;
  if (shorn_is_number(argv[2]) && (!(width = shorn_width(argv[2])) || argc == ++first)) {
    shorn_report_text(ctx, c.function, width ? "a path must follow fp_bytes" : SHORN_BAD_WIDTH);
    return;
  }
  if (!open_payload(ctx, argv, width, &c, argc - first == 1 ? first : -1)) return;
  held_path *held;
  shorn_code rc = SHORN_OK;
  if (argc - first == 1) {
    /* One path: its value.  A NULL path and a missing node give NULL. */
    query_node node;
    if (path_argument(ctx, first, argv[first], c.function, &held) && held &&
        !(rc = query_find(&c.q, held->path, &node)) && node.shape)
      rc = result_node(ctx, &c.q, &node, held);
  } else {
    /* Several: a JSON array of their texts, written into the first path's
     * buffer (a NULL path has none), with null for each that names nothing. */
    shorn_buffer local = {.allocator = &shorn_sqlite_allocator}, *out = &local;
    bool ok = true;
    for (int i = first; ok && !rc && i < argc; i++) {
      if (!(ok = path_argument(ctx, i, argv[i], c.function, &held))) break;
      if (i == first) {
        if (held) out = &held->json;
        out->length = 0;
      }
      if (!buffer_byte(out, i == first ? '[' : ',')) rc = error_nomem(&c.error);
      if (!rc) rc = append_answer(&c, held, out);
    }
    if (ok && !rc && !buffer_byte(out, ']')) rc = error_nomem(&c.error);
    if (ok && !rc) {
      sqlite3_result_text64(ctx, (const char *)out->data, out->length, SQLITE_TRANSIENT, SQLITE_UTF8);
      sqlite3_result_subtype(ctx, 'J');
    }
    shorn_buffer_free(&local);
  }
  if (rc) shorn_report(ctx, c.function, &c.error);
  query_close(&c.q);
}

static void type_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  call c;
  c.function = "shorn_type";
  if (shorn_is_null(argv[0]) || shorn_is_null(argv[1]) || (argc == 4 && shorn_is_null(argv[2]))) return;
  /* (payload, schema), (…, path), (…, fp_bytes) or (…, fp_bytes, path). */
  bool has_width = argc == 4 || (argc == 3 && shorn_is_number(argv[2]));
  if (second_width(ctx, argv, has_width, c.function)) return;
  int width = 0, path_index = argc == 4 ? 3 : argc == 3 && !has_width ? 2 : 0;
  if (has_width && (!shorn_is_number(argv[2]) || !(width = shorn_width(argv[2])))) {
    shorn_report_text(ctx, c.function, SHORN_BAD_WIDTH);
    return;
  }
  if (!open_payload(ctx, argv, width, &c, path_index)) return;
  held_path *held = NULL;
  shorn_buffer local = {.allocator = &shorn_sqlite_allocator};
  query_node node;
  query_json_type type;
  shorn_code rc = SHORN_OK;
  /* A NULL path, like one that names nothing, gives NULL. */
  bool have_path =
      !path_index || (path_argument(ctx, path_index, argv[path_index], c.function, &held) && held);
  if (have_path && !(rc = query_find(&c.q, held ? held->path : NULL, &node)) && node.shape &&
      !(rc = query_type(&c.q, &node, held ? &held->json : &local, &type)))
    sqlite3_result_text(ctx, json_text_type_name[type], -1, SQLITE_STATIC);
  if (rc) shorn_report(ctx, c.function, &c.error);
  shorn_buffer_free(&local);
  query_close(&c.q);
}

/* What is asked of a payload: whether shorn_decode would take it, what it
 * would say if not, or that and then what shorn_encode would say of the
 * value it holds: the validation keywords, which reads never check. */
typedef enum payload_question { ASK_VALID, ASK_ERROR, ASK_KEYWORDS } payload_question;

/* shorn_valid, shorn_error and shorn_check_payload. */
static void check_payload(sqlite3_context *ctx, int argc, sqlite3_value **argv, payload_question question) {
  static const char *const names[] = {"shorn_valid", "shorn_error", "shorn_check_payload"};
  const char *function = names[question];
  for (int i = 0; i < argc; i++)
    if (shorn_is_null(argv[i])) return;
  if (second_width(ctx, argv, argc == 3, function)) return;
  /* fp_bytes, in the schema's place when the call dispatches. */
  bool dispatch = shorn_is_number(argv[1]);
  sqlite3_value *fp_bytes = dispatch ? argv[1] : argc == 3 ? argv[2] : NULL;
  int width = 0;
  if (fp_bytes && (!shorn_is_number(fp_bytes) || !(width = shorn_width(fp_bytes)))) {
    shorn_report_text(ctx, function, SHORN_BAD_WIDTH);
    return;
  }
  shorn_binding b = {NULL, NULL};
  if (!dispatch && !shorn_schema_argument(ctx, 1, argv[1], function, &b)) return;
  const uint8_t *data;
  size_t n;
  shorn_error e;
  int rc = shorn_payload(argv[0], &data, &n);
  /* A payload that is not one has no fingerprint to dispatch on: invalid. */
  if (dispatch && rc == SQLITE_OK && !(b.compiled = shorn_prefixed_schema(ctx, data, n, width, function))) return;
  /* A payload of no version of the name, or one that does not decode, is
   * invalid; a width that is not the name's is an error of the call. */
  shorn_code decoded = rc == SQLITE_OK && b.lineage
                          ? shorn_newest_payload(sqlite3_user_data(ctx), &b, &data, &n, &width, &e)
                          : SHORN_OK;
  if (decoded == SHORN_ERROR_USAGE) {
    shorn_report(ctx, function, &e);
    return;
  }
  shorn_buffer json = {.allocator = &shorn_sqlite_allocator};
  if (rc == SQLITE_OK && !decoded)
    decoded = shorn_decode(b.compiled->schema, data, n, width, question == ASK_KEYWORDS ? &json : NULL, &e);
  if (rc == SQLITE_NOMEM || decoded == SHORN_ERROR_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else if (question == ASK_VALID) {
    sqlite3_result_int(ctx, rc == SQLITE_OK && decoded == SHORN_OK);
  } else if (rc == SQLITE_MISMATCH) {
    sqlite3_result_text(ctx, shorn_not_a_blob(argv[0]), -1, SQLITE_STATIC);
  } else if (decoded) {
    char text[SHORN_MESSAGE_MAX + 32];
    sqlite3_result_text(ctx, text, (int)shorn_error_format(&e, text, sizeof text), SQLITE_TRANSIENT);
  } else if (question == ASK_KEYWORDS) {
    shorn_result_refusal(ctx, function, b.compiled->schema, (const char *)json.data, json.length);
  }
  shorn_buffer_free(&json);
}

static void valid_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  check_payload(ctx, argc, argv, ASK_VALID);
}

static void error_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  check_payload(ctx, argc, argv, ASK_ERROR);
}

static void check_payload_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  check_payload(ctx, argc, argv, ASK_KEYWORDS);
}

/* ---- shorn_each and shorn_tree -------------------------------------------- */

enum {
  ROWS_COLUMN_KEY,
  ROWS_COLUMN_VALUE,
  ROWS_COLUMN_TYPE,
  ROWS_COLUMN_ATOM,
  ROWS_COLUMN_ID,
  ROWS_COLUMN_PARENT,
  ROWS_COLUMN_FULLKEY,
  ROWS_COLUMN_PATH,
  ROWS_COLUMN_PAYLOAD, /* the hidden columns, one per argument */
  ROWS_COLUMN_SCHEMA,
  ROWS_COLUMN_FP_BYTES,
  ROWS_COLUMN_ROOT,
  ROWS_COLUMN_COUNT
};

#define ARGUMENTS (ROWS_COLUMN_COUNT - ROWS_COLUMN_PAYLOAD)

typedef struct rows_vtab {
  sqlite3_vtab base;
  shorn_state *state;
} rows_vtab;

typedef struct rows_cursor {
  sqlite3_vtab_cursor base;
  bool recursive;
  const char *function;
  shorn_binding schema; /* references: what `schema_text` resolved to */
  char *schema_text;
  int schema_length;
  sqlite3_value *arguments[ARGUMENTS]; /* as the hidden columns show them */
  query_path *path;
  shorn_buffer json; /* the node's JSON text, which the rows walk */
  shorn_buffer text; /* a string's value, unescaped */
  json_rows rows;
  sqlite3_int64 rowid;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                        char **error) {
  (void)argc, (void)argv, (void)error;
  int rc = sqlite3_declare_vtab(db,
                                "CREATE TABLE x(key, value, type, atom, id, parent, fullkey, path, "
                                "payload HIDDEN, schema HIDDEN, fp_bytes HIDDEN, root HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  rows_vtab *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->state = aux;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = &vt->base;
  return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* The arguments are equality constraints on the hidden columns.  A plan
 * that cannot supply one it names is refused, so that the planner orders
 * the joins to supply it; without a payload and a schema there are no rows,
 * as json_each has none without JSON. */
static int rows_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  int constraint[ARGUMENTS] = {-1, -1, -1, -1}, unusable = 0, used = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn < ROWS_COLUMN_PAYLOAD) continue;
    int bit = 1 << (c->iColumn - ROWS_COLUMN_PAYLOAD);
    if (!c->usable) {
      unusable |= bit;
    } else if (c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      constraint[c->iColumn - ROWS_COLUMN_PAYLOAD] = i;
      used |= bit;
    }
  }
  if (unusable & ~used) return SQLITE_CONSTRAINT;
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn < 0 && !info->aOrderBy[0].desc)
    info->orderByConsumed = 1;
  if ((used & 3) != 3) return SQLITE_OK; /* idxNum 0, and the default cost, which is huge */
  info->idxNum = used;
  info->estimatedCost = 1;
  for (int i = 0, argv_index = 1; i < ARGUMENTS; i++) {
    if (constraint[i] < 0) continue;
    info->aConstraintUsage[constraint[i]].argvIndex = argv_index++;
    info->aConstraintUsage[constraint[i]].omit = 1;
  }
  return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out, bool recursive) {
  (void)vt;
  rows_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  cur->json.allocator = cur->text.allocator = cur->rows.fullkey.allocator = &shorn_sqlite_allocator;
  cur->recursive = recursive;
  cur->function = recursive ? "shorn_tree" : "shorn_each";
  cur->rows.done = true;
  *out = &cur->base;
  return SQLITE_OK;
}

static int each_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) { return rows_open(vt, out, false); }
static int tree_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) { return rows_open(vt, out, true); }

static void forget_arguments(rows_cursor *cur) {
  for (int i = 0; i < ARGUMENTS; i++) {
    sqlite3_value_free(cur->arguments[i]);
    cur->arguments[i] = NULL;
  }
  query_path_free(cur->path);
  cur->path = NULL;
  cur->rows.done = true;
}

static void forget_schema(rows_cursor *cur) {
  shorn_binding_release(&cur->schema);
  sqlite3_free(cur->schema_text);
  cur->schema_text = NULL;
}

static int rows_close(sqlite3_vtab_cursor *base) {
  rows_cursor *cur = (rows_cursor *)base;
  forget_arguments(cur);
  forget_schema(cur);
  shorn_buffer_free(&cur->json);
  shorn_buffer_free(&cur->text);
  json_rows_free(&cur->rows);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* Fail the statement with the failure's "<function>: <reason>". */
static int cursor_failed(rows_cursor *cur, shorn_failure *f) {
  sqlite3_free(cur->base.pVtab->zErrMsg);
  cur->base.pVtab->zErrMsg = f->message;
  return f->code;
}

static int cursor_error(rows_cursor *cur, const char *reason) {
  shorn_failure f;
  shorn_fail_with(&f, SQLITE_ERROR, cur->function, "%s", reason);
  return cursor_failed(cur, &f);
}

static int cursor_core_error(rows_cursor *cur, const shorn_error *e) {
  shorn_failure f;
  shorn_fail_with_error(&f, cur->function, e);
  return cursor_failed(cur, &f);
}

/* The compiled schema `value` names, kept while the next call names the
 * same (for a statement, a constant name keeps its meaning, as auxdata
 * keeps it for the scalar functions). */
static int cursor_schema(rows_cursor *cur, sqlite3_value *value) {
  shorn_failure f;
  int n;
  const char *text = shorn_schema_text(value, &n, cur->function, &f);
  if (!text) return cursor_failed(cur, &f);
  if (cur->schema.compiled && n == cur->schema_length && memcmp(text, cur->schema_text, (size_t)n) == 0)
    return SQLITE_OK;
  forget_schema(cur);
  shorn_binding b;
  if (!shorn_resolve(((rows_vtab *)cur->base.pVtab)->state, text, n, cur->function, &b, &f))
    return cursor_failed(cur, &f);
  shorn_binding_retain(&b);
  cur->schema = b;
  if (!(cur->schema_text = sqlite3_malloc(n ? n : 1))) return SQLITE_NOMEM;
  memcpy(cur->schema_text, text, (size_t)n);
  cur->schema_length = n;
  return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str, int argc,
                       sqlite3_value **argv) {
  (void)idx_str;
  rows_cursor *cur = (rows_cursor *)base;
  forget_arguments(cur);
  cur->rowid = 0;
  for (int i = 0, k = 0; i < ARGUMENTS && k < argc; i++)
    if (idx_num & (1 << i) && !(cur->arguments[i] = sqlite3_value_dup(argv[k++]))) return SQLITE_NOMEM;
  sqlite3_value **arg = cur->arguments;
  /* Without JSON, json_each has no rows; so without payload and schema. */
  if ((idx_num & 3) != 3) return SQLITE_OK;
  /* The third argument is fp_bytes when a number, else the path. */
  sqlite3_value *fp = arg[ROWS_COLUMN_FP_BYTES - ROWS_COLUMN_PAYLOAD], **root = &arg[ROWS_COLUMN_ROOT - ROWS_COLUMN_PAYLOAD];
  if (fp && !shorn_is_number(fp) && !shorn_is_null(fp)) {
    if (*root) return cursor_error(cur, SHORN_BAD_WIDTH);
    *root = fp;
    arg[ROWS_COLUMN_FP_BYTES - ROWS_COLUMN_PAYLOAD] = fp = NULL;
  }
  for (int i = 0; i < ARGUMENTS; i++)
    if (arg[i] && shorn_is_null(arg[i])) return SQLITE_OK;
  /* A number in the schema's place is fp_bytes: dispatch. */
  sqlite3_value *schema = arg[ROWS_COLUMN_SCHEMA - ROWS_COLUMN_PAYLOAD];
  bool dispatch = shorn_is_number(schema);
  if (dispatch && fp) return cursor_error(cur, SHORN_ONE_WIDTH);
  if (dispatch) fp = schema;
  int width = fp ? shorn_width(fp) : 0;
  if (fp && !width) return cursor_error(cur, SHORN_BAD_WIDTH);

  int rc = dispatch ? SQLITE_OK : cursor_schema(cur, schema);
  if (rc != SQLITE_OK) return rc;
  const uint8_t *data;
  size_t n;
  if ((rc = shorn_payload(arg[0], &data, &n)) != SQLITE_OK)
    return rc == SQLITE_NOMEM ? rc : cursor_error(cur, shorn_not_a_blob(arg[0]));
  /* A dispatched schema is the cache's, which nothing below touches. */
  shorn_failure f;
  shorn_state *st = ((rows_vtab *)cur->base.pVtab)->state;
  shorn_binding b = cur->schema;
  if (dispatch && !(b.compiled = shorn_dispatch(st, data, n, width, cur->function, &f))) return cursor_failed(cur, &f);
  query q;
  shorn_error e;
  if (shorn_newest_payload(st, &b, &data, &n, &width, &e)) return cursor_core_error(cur, &e);
  if (query_open(&q, b.compiled->schema, data, n, width, &e)) {
    query_close(&q);
    return cursor_core_error(cur, &e);
  }
  query_node node = {NULL, NULL};
  shorn_code code = SHORN_OK;
  if (*root) {
    const char *text = (const char *)sqlite3_value_text(*root);
    if (!text)
      code = error_nomem(&e);
    else if (!(cur->path = query_path_parse(&shorn_sqlite_allocator, text, strlen(text), &e)))
      code = e.code;
  }
  if (!code) code = query_find(&q, cur->path, &node);
  cur->json.length = 0;
  if (!code && node.shape) code = query_json(&q, &node, &cur->json);
  query_close(&q);
  if (!code && node.shape &&
      (code = json_rows_start(&cur->rows, (const char *)cur->json.data, cur->json.length, cur->recursive,
                              cur->path)))
    error_nomem(&e);
  return code ? cursor_core_error(cur, &e) : SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *base) {
  rows_cursor *cur = (rows_cursor *)base;
  cur->rowid++;
  return json_rows_next(&cur->rows) ? SQLITE_NOMEM : SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *base) { return ((rows_cursor *)base)->rows.done; }

static int rows_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = ((rows_cursor *)base)->rowid;
  return SQLITE_OK;
}

static int rows_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int column) {
  rows_cursor *cur = (rows_cursor *)base;
  const json_row *row = &cur->rows.row;
  const char *fullkey = (const char *)cur->rows.fullkey.data;
  bool container = row->type == QUERY_ARRAY || row->type == QUERY_OBJECT;
  const char *name;
  size_t length;
  switch (column) {
    case ROWS_COLUMN_KEY:
      if (row->key == ROW_INDEX) {
        sqlite3_result_int64(ctx, (sqlite3_int64)row->index);
      } else if (row->key == ROW_NAME) {
        if (!json_text_unescape(row->name, row->name_length, &cur->text, &name, &length))
          return SQLITE_NOMEM;
        sqlite3_result_text64(ctx, name, length, SQLITE_TRANSIENT, SQLITE_UTF8);
      }
      break;
    case ROWS_COLUMN_ATOM:
      if (container) break;
      /* A scalar's atom is its value. */
      /* fall through */
    case ROWS_COLUMN_VALUE: result_json(ctx, row->json, row->json_length, &cur->text); break;
    case ROWS_COLUMN_TYPE: sqlite3_result_text(ctx, json_text_type_name[row->type], -1, SQLITE_STATIC); break;
    case ROWS_COLUMN_ID: sqlite3_result_int64(ctx, row->id); break;
    case ROWS_COLUMN_PARENT:
      if (row->parent >= 0) sqlite3_result_int64(ctx, row->parent);
      break;
    case ROWS_COLUMN_FULLKEY:
      sqlite3_result_text64(ctx, fullkey, row->fullkey_length, SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case ROWS_COLUMN_PATH:
      sqlite3_result_text64(ctx, fullkey, row->path_length, SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case ROWS_COLUMN_ROOT:
      /* As json_each's root: the path, '$' when none was given. */
      if (!cur->arguments[ROWS_COLUMN_ROOT - ROWS_COLUMN_PAYLOAD]) {
        sqlite3_result_text(ctx, "$", 1, SQLITE_STATIC);
        break;
      }
      /* fall through */
    default:
      if (cur->arguments[column - ROWS_COLUMN_PAYLOAD])
        sqlite3_result_value(ctx, cur->arguments[column - ROWS_COLUMN_PAYLOAD]);
  }
  return SQLITE_OK;
}

/* Eponymous only (no xCreate): the module's name is the table's. */
#define ROWS_MODULE(open) \
  { \
    .xConnect = rows_connect, .xBestIndex = rows_best_index, .xDisconnect = rows_disconnect, \
    .xOpen = open, .xClose = rows_close, .xFilter = rows_filter, .xNext = rows_next, .xEof = rows_eof, \
    .xColumn = rows_column, .xRowid = rows_rowid \
  }

static const sqlite3_module each_module = ROWS_MODULE(each_open);
static const sqlite3_module tree_module = ROWS_MODULE(tree_open);

/* ---- registration -------------------------------------------------------- */

static const shorn_function query_function_table[] = {
    {"shorn_extract", -1, SHORN_FUNCTION_FLAGS | SQLITE_RESULT_SUBTYPE, extract_function},
    {"shorn_type", 2, SHORN_FUNCTION_FLAGS, type_function},
    {"shorn_type", 3, SHORN_FUNCTION_FLAGS, type_function},
    {"shorn_type", 4, SHORN_FUNCTION_FLAGS, type_function},
    {"shorn_valid", 2, SHORN_FUNCTION_FLAGS, valid_function},
    {"shorn_valid", 3, SHORN_FUNCTION_FLAGS, valid_function},
    {"shorn_error", 2, SHORN_FUNCTION_FLAGS, error_function},
    {"shorn_error", 3, SHORN_FUNCTION_FLAGS, error_function},
    {"shorn_check_payload", 2, SHORN_FUNCTION_FLAGS, check_payload_function},
    {"shorn_check_payload", 3, SHORN_FUNCTION_FLAGS, check_payload_function},
};

/* The cursors resolve schemas through the connection's state, so the
 * modules hold it as the functions do. */
static const shorn_module query_module_table[] = {{"shorn_each", &each_module}, {"shorn_tree", &tree_module}};

int shorn_register_query_functions(sqlite3 *db, shorn_state *st) {
  return shorn_register(db, st, query_function_table, COUNT_OF(query_function_table), query_module_table,
                        COUNT_OF(query_module_table));
}
