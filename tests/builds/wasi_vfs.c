/*
** The operating-system layer of an SQLite built with SQLITE_OS_OTHER for
** wasm32-wasi, whose own unix layer (before 3.41) needs calls WASI lacks:
** a VFS that opens no file, enough for the in-memory databases of
** tests/vectors/vectors.c under scripts/check-platform.sh's wasm32.
*/
#include <string.h>
#include <time.h>

#include <sqlite3.h>

static int open_nothing(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
  (void)vfs, (void)name, (void)flags, (void)out_flags;
  file->pMethods = NULL;
  return SQLITE_CANTOPEN;
}

static int delete_nothing(sqlite3_vfs *vfs, const char *name, int sync_dir) {
  (void)vfs, (void)name, (void)sync_dir;
  return SQLITE_OK;
}

static int access_nothing(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
  (void)vfs, (void)name, (void)flags;
  *result = 0;
  return SQLITE_OK;
}

static int full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
  (void)vfs;
  sqlite3_snprintf(size, out, "%s", name);
  return SQLITE_OK;
}

/* SQLite asks for randomness to seed its PRNG; the tests need none. */
static int randomness(sqlite3_vfs *vfs, int size, char *out) {
  (void)vfs;
  memset(out, 0, (size_t)size);
  return size;
}

static int sleep_none(sqlite3_vfs *vfs, int microseconds) {
  (void)vfs;
  return microseconds;
}

static int current_time(sqlite3_vfs *vfs, sqlite3_int64 *julian_ms) {
  (void)vfs;
  *julian_ms = (sqlite3_int64)time(NULL) * 1000 + 210866760000000LL;
  return SQLITE_OK;
}

static int last_error(sqlite3_vfs *vfs, int size, char *out) {
  (void)vfs, (void)size, (void)out;
  return 0;
}

static sqlite3_vfs memory_only = {
  .iVersion = 2, .szOsFile = sizeof(sqlite3_file), .mxPathname = 512, .zName = "memory-only",
  .xOpen = open_nothing, .xDelete = delete_nothing, .xAccess = access_nothing, .xFullPathname = full_pathname,
  .xRandomness = randomness, .xSleep = sleep_none, .xGetLastError = last_error,
  .xCurrentTimeInt64 = current_time,
};

int sqlite3_os_init(void) {
  return sqlite3_vfs_register(&memory_only, 1);
}

int sqlite3_os_end(void) {
  return SQLITE_OK;
}
