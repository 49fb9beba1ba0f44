/*
** What SQLite's shell calls and wasm32-wasi lacks, for scripts/build-wasm32.sh:
** WASI has no processes and no file modes, so the shell's .system and its
** fileio's chmod fail, as they would in a sandbox.
*/
#include <errno.h>
#include <sys/stat.h>

int system(const char *command);

int system(const char *command) {
  (void)command;
  errno = ENOSYS;
  return -1;
}

int chmod(const char *path, mode_t mode) {
  (void)path, (void)mode;
  errno = ENOSYS;
  return -1;
}
