/*
 * resolve.h — what a schema argument stands for: inline JSON Schema, a
 * registered name and its versions, or a fingerprint; the registry's table
 * read; and a payload of a name's older version read in its newest shape.
 * Every SQL function resolves its schema here.
 */
#ifndef SHORN_RESOLVE_H
#define SHORN_RESOLVE_H

#include "sqlite/connection.h"

/* The registry's table: a row a version of a name (docs/registry.md).  A
 * registry made before versions has neither version nor fp_bytes; it reads
 * as version 1 of each name, payloads bare, and takes the columns when
 * first written (shorn_registry_layout). */
#define SHORN_REGISTRY_DATA SHORN_REGISTRY_TABLE "_data"
#define SHORN_REGISTRY_COLUMNS                                                                       \
  "(id INTEGER PRIMARY KEY, name TEXT NOT NULL, schema TEXT NOT NULL, signature TEXT NOT NULL, " \
  "fingerprint TEXT NOT NULL UNIQUE, version INTEGER NOT NULL, fp_bytes INTEGER NOT NULL, UNIQUE (name, version))"


/* What a schema argument stands for in a call: the schema values are
 * written and answered in (a name's newest version) and, for a name with
 * fingerprinted payloads, its lineage. */
typedef struct shorn_binding {
  shorn_compiled *compiled;
  shorn_lineage *lineage; /* NULL for inline JSON Schema and a bare name */
} shorn_binding;

/* A binding as a statement's auxdata holds it, with the holds that keep it
 * valid. */
typedef struct shorn_pinned {
  shorn_binding binding;
  shorn_cache_entry *entry;
} shorn_pinned;

/* The text of a schema argument: TEXT, or a BLOB that is UTF-8 text, as
 * readfile() returns a file.  NULL with `failure` set otherwise. */
SHORN_PRIVATE const char *shorn_schema_text(sqlite3_value *value, int *n, const char *function,
                                            shorn_failure *failure);

/* What `text` (inline JSON Schema, or a registered name) stands for, from
 * the connection's caches: false with `failure` set.  Valid while the
 * connection's caches hold it: take references to keep it longer
 * (shorn_binding_retain).  Needs no function context, so virtual tables
 * resolve with it. */
SHORN_PRIVATE bool shorn_resolve(shorn_state *st, const char *text, int n, const char *function,
                                 shorn_binding *binding, shorn_failure *failure);
SHORN_PRIVATE void shorn_binding_retain(const shorn_binding *binding);
SHORN_PRIVATE void shorn_binding_release(shorn_binding *binding);

/* The binding pinned to argument `index` by an earlier row of the
 * statement's run, copied to *binding; false when there is none.  SQLite
 * keeps auxdata only for a constant argument, so a pinned schema's
 * argument is the same text as then, never NULL. */
static inline bool shorn_pinned_schema(sqlite3_context *ctx, int index, shorn_binding *binding) {
  const shorn_pinned *p = sqlite3_get_auxdata(ctx, index);
  if (!p) return false;
  *binding = p->binding;
  return true;
}

/* What an argument names, resolved and pinned for the rows after; false
 * after reporting an error on `ctx` (`function` names the caller in the
 * message).  Valid until the function returns. */
SHORN_PRIVATE bool shorn_pin_schema(sqlite3_context *ctx, int index, sqlite3_value *value, const char *function,
                                    shorn_binding *binding);

/* The binding of an argument: the pinned one, else shorn_pin_schema's. */
static inline bool shorn_schema_argument(sqlite3_context *ctx, int index, sqlite3_value *value, const char *function,
                                         shorn_binding *binding) {
  return shorn_pinned_schema(ctx, index, binding) || shorn_pin_schema(ctx, index, value, function, binding);
}

/* The fingerprint width a binding's payloads carry, given the width a call
 * passed (0 when none): the name's, which a width passed must equal.
 * SHORN_OK, or SHORN_ERROR_USAGE in `error`. */
SHORN_PRIVATE shorn_code shorn_binding_width(const shorn_binding *binding, int given, int *width, shorn_error *error);

/* A payload read through a binding, in its newest version: a payload of an
 * older one is rewritten (evolve.h) into the connection's scratch, and
 * *data and *n point there until the next call.  *width is the width
 * passed (0 when none) and becomes the one to read with.  SHORN_OK, or the
 * error: a payload too short for its fingerprint, or of no version of the
 * name, or one that does not decode. */
SHORN_PRIVATE shorn_code shorn_newest_payload(shorn_state *st, const shorn_binding *binding, const uint8_t **data,
                                              size_t *n, int *width, shorn_error *error);

/* The older version of the binding's name that wrote the payload, its plan
 * made, in *older; NULL when the payload is bare or of the newest version.
 * *width is the width passed (0 when none) and becomes the one to read
 * with.  SHORN_OK, or the error of a payload too short for its
 * fingerprint, or of no version of the name. */
SHORN_PRIVATE shorn_code shorn_older_version(shorn_state *st, const shorn_binding *binding, const uint8_t *data,
                                             size_t n, int *width, shorn_version **older, shorn_error *error);

/* A payload of `older` rewritten in the newest version into the
 * connection's scratch, where *data and *n then point until the next call. */
SHORN_PRIVATE shorn_code shorn_upgrade_payload(shorn_state *st, const shorn_version *older, const uint8_t **data,
                                               size_t *n, int width, shorn_error *error);

/* shorn_decode of a payload read through a binding: a payload of an older
 * version is written as the newest version's JSON text, without being
 * rewritten as a payload first. */
SHORN_PRIVATE shorn_code shorn_decode_older(shorn_state *st, const shorn_binding *binding, const uint8_t *data,
                                            size_t n, int width, shorn_buffer *out, shorn_error *error);
static inline shorn_code shorn_decode_newest(shorn_state *st, const shorn_binding *binding, const uint8_t *data,
                                             size_t n, int width, shorn_buffer *out, shorn_error *error) {
  /* A bare name, or inline text, has one version: the common row costs
   * no call more than a decode. */
  return binding->lineage ? shorn_decode_older(st, binding, data, n, width, out, error)
                          : shorn_decode(binding->compiled->schema, data, n, width, out, error);
}

/* shorn_newest_payload, false after reporting its error on `ctx`. */
SHORN_PRIVATE bool shorn_read_older(sqlite3_context *ctx, const shorn_binding *binding, const uint8_t **data,
                                    size_t *n, int *width, const char *function);
static inline bool shorn_read_newest(sqlite3_context *ctx, const shorn_binding *binding, const uint8_t **data,
                                     size_t *n, int *width, const char *function) {
  return !binding->lineage || shorn_read_older(ctx, binding, data, n, width, function);
}

/* The version of a binding's name that wrote the payload: 0 when its
 * fingerprint is none of theirs; a bare name's payloads are version 1. */
SHORN_PRIVATE int shorn_payload_version(const shorn_binding *binding, const uint8_t *data, size_t n);

/* The registered schema whose fingerprint `width` bytes wide starts the
 * payload, as shorn_encode(json, name, width) writes it: dispatch.  NULL
 * with `failure` set when the payload is too short, or no registered schema
 * or several have that fingerprint (likely at 1 or 2 bytes).  Valid as
 * shorn_resolve's result is. */
SHORN_PRIVATE shorn_compiled *shorn_dispatch(shorn_state *st, const uint8_t *data, size_t n, int width,
                                             const char *function, shorn_failure *failure);

/* shorn_dispatch, NULL after reporting an error on `ctx`. */
SHORN_PRIVATE shorn_compiled *shorn_prefixed_schema(sqlite3_context *ctx, const uint8_t *data, size_t n, int width,
                                                    const char *function);

/* Schemas are text (JSON Schema or a registered name), so a number in a
 * schema argument's place is fp_bytes: dispatch on the payload's
 * fingerprint of that width.  A number is an INTEGER or a REAL; whether it
 * is a width, shorn_width says. */
static inline bool shorn_is_number(sqlite3_value *v) {
  int type = sqlite3_value_type(v);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

/* For a number `value` in the schema's place: its width in *width and the
 * schema shorn_prefixed_schema dispatches to; NULL after reporting an
 * error on `ctx`. */
SHORN_PRIVATE shorn_compiled *shorn_dispatched_schema(sqlite3_context *ctx, sqlite3_value *value,
                                                      const uint8_t *data, size_t n, const char *function,
                                                      int *width);

/* The versions of `name` in the registry, oldest first: SQLITE_OK and a
 * lineage of generation 0 (free it with shorn_lineage_free), or an
 * SQLite error code and *why, the reason in words (sqlite3_free it; NULL
 * when memory ran out). */
SHORN_PRIVATE int shorn_registry_lineage(sqlite3 *db, const char *name, int name_length, shorn_lineage **lineage,
                                         char **why);

/* Whether main's registry table has the version and fp_bytes columns; if
 * not and `upgrade`, give it them: the table is renamed to
 * shorn_schemas_unversioned, kept as it was, and its rows copied into a new
 * one as version 1, bare.  SQLITE_OK with *current set, or an error. */
SHORN_PRIVATE int shorn_registry_layout(sqlite3 *db, const char *database, const char *table, bool upgrade,
                                        bool *current);

#endif
