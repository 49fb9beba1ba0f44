/* wasi-libc has no users: SQLite's shell asks for the home directory's
   .sqliterc through getpwuid(), and finds none. */
#ifndef SHORN_WASI_PWD_H
#define SHORN_WASI_PWD_H
#include <stddef.h>
struct passwd {
  char *pw_dir;
};
static inline int getuid(void) { return 0; }
static inline struct passwd *getpwuid(int uid) { (void)uid; return NULL; }
#endif
