/*
 * extension.c — the extension's entry point, sqlite3_shorn_init: registers
 * every SQL function and module of the SQLite layer on a connection.
 *
 * Builds as a loadable extension (the default: `.load shorn`) or linked into
 * an application with -DSQLITE_CORE, where sqlite3_shorn_init is called
 * directly or handed to sqlite3_auto_extension.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "shorn_sqlite.h"
#include "sqlite/connection.h"
#include "sqlite/edit_functions.h"
#include "sqlite/functions.h"
#include "sqlite/paths.h"
#include "sqlite/query_functions.h"
#include "sqlite/registry.h"

static int (*const extension_registrations[])(sqlite3 *, shorn_state *) = {
    shorn_register_functions,
    shorn_register_query_functions,
    shorn_register_edit_functions,
    shorn_register_registry,
    shorn_register_paths,
};

int sqlite3_shorn_init(sqlite3 *db, char **error_message, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  (void)error_message;
  /* Each registration holds the state; the last one SQLite drops frees it.
   * The state's own hold, until everything is registered, keeps a failure
   * half-way safe. */
  shorn_state *st = shorn_state_new(db);
  if (!st) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  for (size_t i = 0; i < COUNT_OF(extension_registrations) && rc == SQLITE_OK; i++)
    rc = extension_registrations[i](db, st);
  shorn_state_release(st);
  return rc;
}

#ifndef SQLITE_CORE
/* sqlite3_shorn_init for this connection and for every one the process
 * opens after it (sqlite3_auto_extension): for a host whose connections
 * nothing can load an extension into, as @libsql/client keeps its pool's,
 * the extension is loaded once, with this entry point, into any connection
 * of the same SQLite library.  It stays in the process, as what every later
 * connection calls into must. */
int sqlite3_shornauto_init(sqlite3 *db, char **error_message, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  int rc = sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init);
  if (rc == SQLITE_OK) rc = sqlite3_shorn_init(db, error_message, api);
  return rc == SQLITE_OK ? SQLITE_OK_LOAD_PERMANENTLY : rc;
}
#endif
