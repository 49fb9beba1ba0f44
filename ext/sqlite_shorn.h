/*
 * sqlite_shorn.h — what the SQLite glue files share: the per-connection
 * state, the compiled-schema cache and how a schema argument is resolved.
 * The core codec knows nothing of this.
 */
#ifndef SQLITE_SHORN_H
#define SQLITE_SHORN_H

#include <stdbool.h>

#include <sqlite3ext.h>

#include "shorn.h"

#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* 3.45 added this flag for functions whose result carries a subtype; older
 * headers lack it and older libraries ignore it. */
#ifndef SQLITE_RESULT_SUBTYPE
#define SQLITE_RESULT_SUBTYPE 0x001000000
#endif

#define SHORN_FUNCTION_FLAGS (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

/* The entry point: registers every function of the extension on `db`. */
int sqlite3_shorn_init(sqlite3 *db, char **error_message, const sqlite3_api_routines *api);

/* A compiled schema, shared by the cache and by statements' auxdata. */
typedef struct shorn_compiled {
  shorn_schema *schema;
  int refs;
} shorn_compiled;

void shorn_compiled_release(void *compiled);

#define SHORN_CACHE_SLOTS 64

typedef struct shorn_cache_entry {
  char *key; /* schema text */
  int key_length;
  unsigned hash;
  unsigned long long used; /* tick of the last hit, for eviction */
  shorn_compiled *compiled;
} shorn_cache_entry;

/* One per connection: every function of the extension points at it. */
typedef struct shorn_state {
  sqlite3 *db;
  int registrations; /* functions holding it; freed when the last goes */
  unsigned long long tick;
  shorn_cache_entry cache[SHORN_CACHE_SLOTS];
  unsigned long long compilations; /* for the benchmark: how often we compiled */
} shorn_state;

/* The compiled schema an argument names, or NULL after reporting an error
 * on `ctx` (`function` names the caller in the message).  Valid until the
 * function returns. */
shorn_compiled *shorn_schema_argument(sqlite3_context *ctx, int argument_index, sqlite3_value *value,
                                      const char *function);

/* Report a core error as "<function>: <message at where>". */
void shorn_report(sqlite3_context *ctx, const char *function, const shorn_error *error);

#endif
