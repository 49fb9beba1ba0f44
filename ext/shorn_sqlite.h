/*
 * shorn_sqlite.h — the SQLite extension's entry point.
 *
 * Loaded at run time (`.load shorn`, sqlite3_load_extension), SQLite finds
 * sqlite3_shorn_init by itself.  Linked into a program with -DSQLITE_CORE,
 * register it for every connection the program opens:
 *
 *   sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init);
 *
 * It registers the SQL functions of docs/sql-functions.md, the
 * table-valued functions shorn_each, shorn_tree and shorn_paths, and the
 * registry module shorn_registry.
 *
 * The loadable build has a second entry point, sqlite3_shornauto_init
 * (sqlite3_load_extension(db, path, "sqlite3_shornauto_init", ...), or
 * SQLite's own choice for a link to the file named shorn_auto): it
 * registers them on that connection and on every one the process opens
 * after it, and keeps the library loaded, for hosts that load nothing into
 * the connections they open, such as @libsql/client.
 */
#ifndef SHORN_SQLITE_H
#define SHORN_SQLITE_H

#include "shorn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;
struct sqlite3_api_routines;

#if defined(_WIN32)
#define SHORN_ENTRY_POINT __declspec(dllexport)
#elif defined(__GNUC__)
#define SHORN_ENTRY_POINT __attribute__((visibility("default")))
#else
#define SHORN_ENTRY_POINT
#endif

SHORN_ENTRY_POINT int sqlite3_shorn_init(struct sqlite3 *db, char **error_message,
                                         const struct sqlite3_api_routines *api);
SHORN_ENTRY_POINT int sqlite3_shornauto_init(struct sqlite3 *db, char **error_message,
                                              const struct sqlite3_api_routines *api);

#ifdef __cplusplus
}
#endif
#endif
