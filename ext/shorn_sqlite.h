/*
 * shorn_sqlite.h — the SQLite extension's entry point.
 *
 * Loaded at run time (`.load shorn`, sqlite3_load_extension), SQLite finds
 * sqlite3_shorn_init by itself.  Linked into a program with -DSQLITE_CORE,
 * register it for every connection the program opens:
 *
 *   sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init);
 *
 * It registers shorn_encode, shorn_encode_unchecked, shorn_check,
 * shorn_decode, shorn_fingerprint, shorn_signature, shorn_extract,
 * shorn_type, shorn_valid, shorn_error, shorn_check_payload, shorn_stats,
 * shorn_version, the table-valued functions shorn_each and shorn_tree, and
 * the registry module shorn_registry.
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
__declspec(dllexport)
#elif defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int sqlite3_shorn_init(struct sqlite3 *db, char **error_message, const struct sqlite3_api_routines *api);

#ifdef __cplusplus
}
#endif
#endif
