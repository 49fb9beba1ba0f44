#define _POSIX_C_SOURCE 200809L
/*
 * replay.c — a main() for a fuzz harness without libFuzzer: feeds every
 * file named, and every file of every directory named, to the harness's
 * LLVMFuzzerTestOneInput, as libFuzzer would replay a corpus.  Built with
 * the Makefile's compiler, so `make test` runs the regression corpus under
 * the sanitizers and valgrind too.
 *
 *   replay_decode tests/fuzz/regressions/decode
 *
 * Each input sits in a buffer of exactly its size, so reading one byte past
 * it is an error the sanitizers and valgrind report.  A failing input
 * aborts, after its name is printed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) {
    perror(path);
    exit(2);
  }
  size_t n = (size_t)st.st_size;
  uint8_t *data = malloc(n ? n : 1);
  if (!data || fread(data, 1, n, f) != n) {
    fprintf(stderr, "%s: cannot read\n", path);
    exit(2);
  }
  fclose(f);
  fprintf(stderr, "replay %s\n", path);
  LLVMFuzzerTestOneInput(data, n);
  free(data);
}

static int by_name(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

/* The files of a directory, in name order; returns how many. */
static int run_directory(const char *dir) {
  struct dirent **names;
  int n = scandir(dir, &names, NULL, by_name), files = 0;
  if (n < 0) {
    perror(dir);
    exit(2);
  }
  for (int i = 0; i < n; i++) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
    if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      run_file(path);
      files++;
    }
    free(names[i]);
  }
  free(names);
  return files;
}

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  int inputs = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      inputs += run_directory(argv[i]);
    } else {
      run_file(argv[i]);
      inputs++;
    }
  }
  printf("%s: %d inputs replayed\n", argv[0], inputs);
  return 0;
}
