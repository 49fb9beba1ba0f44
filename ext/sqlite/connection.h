/*
 * connection.h — what the SQLite layer's files share: the per-connection
 * state, the compiled-schema cache, how a schema argument is resolved, how
 * results and errors are reported, and registration.  The core codec knows
 * nothing of this.
 */
#ifndef SHORN_CONNECTION_H
#define SHORN_CONNECTION_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3ext.h>

#include "core/base/platform.h"
#include "shorn.h"
#include "sqlite/cache.h"

#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* 3.45 added this flag for functions whose result carries a subtype; older
 * headers lack it and older libraries ignore it. */
#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif

#define SHORN_FUNCTION_FLAGS (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

/* sqlite3_realloc64 and sqlite3_free, for every schema the layer compiles
 * (cache.c's count what each holds as they go) and every buffer it gives
 * the core (the output buffer through them too, its blocks behind a
 * header): SQLite's memory accounting and fault injection see the codec's
 * allocations too.  The layer sets nothing of the core's globally, so a
 * program's own use of the core keeps its allocator. */
SHORN_PRIVATE_DATA const shorn_allocator shorn_sqlite_allocator;

/* The registry: a virtual table main.shorn_schemas over its shadow table
 * shorn_schemas_data, keyed by each schema's 4-byte fingerprint, the widest:
 * the fewest collisions between registered wire shapes. */
#define SHORN_REGISTRY_TABLE "shorn_schemas"
#define SHORN_REGISTRY_WIDTH 4

/* One per connection: every function of the extension and the registry
 * module point at it. */
typedef struct shorn_state {
  sqlite3 *db;
  int registrations; /* functions and modules holding it; freed when the last goes */
  shorn_cache cache;
  /* The registry entries of the cache were read when main's data version
   * (which counts commits, this connection's and others') and
   * registry_changes (this connection's uncommitted writes and rollbacks,
   * which the data version does not count) had these values. */
  unsigned registry_changes; /* bumped by the registry module */
  unsigned read_changes;
  unsigned read_data_version;
  shorn_buffer out; /* see shorn_output; with out_allocator */
  /* The output buffer's blocks carry a header naming the state, so that a
   * BLOB result is handed to SQLite rather than copied, and comes back as a
   * spare when SQLite lets it go (see shorn_result_output). */
  shorn_allocator out_allocator;
  struct output_block *spares;
  int spare_count;
  /* A payload of an older version rewritten, and its JSON text on the way
   * (resolve.c). */
  shorn_buffer upgraded, upgrade_json;
} shorn_state;

/* The connection's output buffer, emptied: a function writes its result
 * there and hands it to shorn_result_output, calling nothing of SQLite's in
 * between (nothing else may use the buffer meanwhile).  Kept from call to
 * call, so that a row's result costs no allocation.  Inline, as is
 * everything a row of the codec's functions asks of the layer when the
 * schema is already pinned: a call and its prologue are most of what the
 * layer costs there. */
static inline shorn_buffer *shorn_output(sqlite3_context *ctx) {
  shorn_buffer *out = &((shorn_state *)sqlite3_user_data(ctx))->out;
  out->length = 0;
  return out;
}

/* Past this a block is handed to SQLite and freed when it lets go, rather
 * than kept. */
#define SHORN_OUTPUT_KEPT 65536
/* Up to this a BLOB is copied rather than handed over: SQLite's copy into
 * its register costs fewer instructions than the destructor's round trip
 * (callgrind, SQLite 3.53: about 40 fewer at 50 bytes, 120 more at 1,500). */
#define SHORN_OUTPUT_COPIED 512

/* The rest of shorn_result_output: an empty BLOB, or the block handed to
 * SQLite, the next result written into a spare block or a new one. */
SHORN_PRIVATE void shorn_result_handed(sqlite3_context *ctx, shorn_buffer *out, bool text);

/* The result, from `out` (what shorn_output returned).  Most are a copy,
 * into the storage SQLite's result register keeps from row to row.  SQLite
 * ends its copy of text with a NUL, as whatever reads the text on
 * (json_set(shorn_decode(...))) needs: handed over, text would cost that
 * reader a copy and an allocation a row. */
static inline void shorn_result_output(sqlite3_context *ctx, shorn_buffer *out, bool text) {
  if (!out->length || out->capacity > SHORN_OUTPUT_KEPT || (!text && out->length > SHORN_OUTPUT_COPIED))
    shorn_result_handed(ctx, out, text);
  else if (text)
    sqlite3_result_text(ctx, (const char *)out->data, (int)out->length, SQLITE_TRANSIENT);
  else
    sqlite3_result_blob(ctx, out->data, (int)out->length, SQLITE_TRANSIENT);
}

/* What shorn_encode would say of the JSON text json[0..n) as the result:
 * NULL when it takes the value, else its refusal without "shorn_encode: "
 * (an SQL error, in `function`'s name, only for running out of memory or a
 * schema the validated mode cannot take).  The value is encoded into the
 * output buffer, which is not handed out. */
SHORN_PRIVATE void shorn_result_refusal(sqlite3_context *ctx, const char *function, const shorn_schema *schema,
                                        const char *json, size_t n);

/* Why a schema could not be resolved: an SQLite result code and, unless it
 * is SQLITE_NOMEM, a message "<function>: <reason>" from sqlite3_malloc. */
typedef struct shorn_failure {
  int code;
  char *message;
} shorn_failure;

/* Set a failure to "<function>: <reason>", the reason formatted as
 * sqlite3_mprintf does; or to a core error's message and where. */
SHORN_PRIVATE void shorn_fail_with(shorn_failure *failure, int code, const char *function, const char *format, ...);
SHORN_PRIVATE void shorn_fail_with_error(shorn_failure *failure, const char *function, const shorn_error *error);

/* Report a failure on `ctx` and free its message. */
SHORN_PRIVATE void shorn_report_failure(sqlite3_context *ctx, shorn_failure *failure);

/* Report a core error as "<function>: <message at where>". */
SHORN_PRIVATE void shorn_report(sqlite3_context *ctx, const char *function, const shorn_error *error);

/* Report "<function>: <reason>", the reason formatted as sqlite3_mprintf does. */
SHORN_PRIVATE void shorn_report_text(sqlite3_context *ctx, const char *function, const char *format, ...);

/* A fingerprint width argument: 1..4 from an INTEGER or from a REAL with
 * an integral value (better-sqlite3 binds every JavaScript number as a
 * REAL); 0 for anything else. */
SHORN_PRIVATE int shorn_width(sqlite3_value *value);

#define SHORN_BAD_WIDTH "fingerprint width must be 1, 2, 3 or 4"
#define SHORN_ONE_WIDTH \
  "fp_bytes in place of the schema is the payload's fingerprint width; no second fp_bytes may follow"

/* Whether an argument is SQL NULL. */
static inline bool shorn_is_null(sqlite3_value *v) { return sqlite3_value_type(v) == SQLITE_NULL; }

/* A payload argument's bytes (never NULL): SQLITE_OK, SQLITE_MISMATCH when
 * it is not a BLOB, or SQLITE_NOMEM.  TEXT is refused too: it is a JSON
 * text or a hex spelling passed by mistake far more often than a payload,
 * and its bytes would be read as whatever they happen to decode to.
 * shorn_report_payload reports either failure. */
static inline int shorn_payload(sqlite3_value *v, const uint8_t **data, size_t *n) {
  if (sqlite3_value_type(v) != SQLITE_BLOB) return SQLITE_MISMATCH;
  *data = sqlite3_value_blob(v);
  *n = (size_t)sqlite3_value_bytes(v);
  if (!*data && *n) return SQLITE_NOMEM;
  *data = *data ? *data : (const uint8_t *)"";
  return SQLITE_OK;
}
SHORN_PRIVATE void shorn_report_payload(sqlite3_context *ctx, const char *function, int rc, sqlite3_value *payload);

/* Why `payload` (not a BLOB) is refused, naming what it is:
 * "the payload must be a BLOB; got TEXT". */
SHORN_PRIVATE const char *shorn_not_a_blob(sqlite3_value *payload);

/* ---- registration -------------------------------------------------------- */

/* What the layer's files register: functions and virtual table modules, each
 * holding the connection's state until SQLite drops it. */
typedef struct shorn_function {
  const char *name;
  int arguments;
  int flags; /* SHORN_FUNCTION_FLAGS, and SQLITE_RESULT_SUBTYPE where it applies */
  void (*call)(sqlite3_context *, int, sqlite3_value **);
} shorn_function;

typedef struct shorn_module {
  const char *name;
  const sqlite3_module *module;
} shorn_module;

SHORN_PRIVATE int shorn_register(sqlite3 *db, shorn_state *st, const shorn_function *functions, size_t function_count,
                   const shorn_module *modules, size_t module_count);

/* A new connection's state, held once: the caller registers with it, then
 * lets go of its hold with shorn_state_release. */
SHORN_PRIVATE shorn_state *shorn_state_new(sqlite3 *db);
SHORN_PRIVATE void shorn_state_release(void *state);

#endif
