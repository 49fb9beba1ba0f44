/*
** shorn built into SQLite's own WebAssembly build (ext/wasm in SQLite's
** source tree).  That build compiles a file of this name found in ext/wasm/
** (or the one `make sqlite3_wasm_extra_init.c=PATH` names) into
** sqlite3.wasm, defines SQLITE_EXTRA_INIT=sqlite3_wasm_extra_init, and so
** calls the function below once as SQLite initializes: registered as an
** automatic extension, shorn's functions come with every connection.  Put
** shorn.c and shorn.h beside this file.  That build compiles it with
** SQLITE_THREADSAFE=0, as it does sqlite3.c: shorn's schema cache then
** takes no mutex.
*/
#define SQLITE_CORE 1
#include "shorn.c"

int sqlite3_wasm_extra_init(const char *unused);

int sqlite3_wasm_extra_init(const char *unused) {
  (void)unused;
  return sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init);
}
