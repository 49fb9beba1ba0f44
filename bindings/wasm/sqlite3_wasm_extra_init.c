/*
** shorn built into SQLite's own WebAssembly build (ext/wasm in SQLite's
** source tree).  That build compiles a file of this name found in ext/wasm/
** (or the one `make sqlite3_wasm_extra_init.c=PATH` names) into
** sqlite3.wasm, defines SQLITE_EXTRA_INIT=sqlite3_wasm_extra_init, and so
** calls the function below once as SQLite initializes: registered as an
** automatic extension, shorn's functions come with every connection.  Put
** shorn.c and shorn.h beside this file.
*/
#define SQLITE_CORE 1
#include "shorn.c"

/*
** A single-threaded SQLite (SQLITE_THREADSAFE=0, as WebAssembly builds
** are) leaves out the mutex functions shorn's schema cache calls.  These
** stand in for them, doing nothing, as one thread needs nothing more; they
** are weak, so a build that has SQLite's own links those instead.
*/
static int no_mutex;

__attribute__((weak)) sqlite3_mutex *sqlite3_mutex_alloc(int kind) {
  (void)kind;
  return (sqlite3_mutex *)&no_mutex;
}

__attribute__((weak)) void sqlite3_mutex_free(sqlite3_mutex *mutex) {
  (void)mutex;
}

__attribute__((weak)) void sqlite3_mutex_enter(sqlite3_mutex *mutex) {
  (void)mutex;
}

__attribute__((weak)) void sqlite3_mutex_leave(sqlite3_mutex *mutex) {
  (void)mutex;
}

int sqlite3_wasm_extra_init(const char *unused);

int sqlite3_wasm_extra_init(const char *unused) {
  (void)unused;
  return sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init);
}
