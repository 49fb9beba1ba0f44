/* dump.c — for tests/unicode/compare.mjs: reads property names, one a line,
 * and prints for each what unicode_property_find makes of it and the
 * property's ranges: "NAME\tNUMBER\tFIRST-LAST ..." (hex), NUMBER -1 and no
 * ranges for a name it refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/regex/unicode.h"

int main(void) {
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
    size_t n = strcspn(line, "\n");
    if (line[n] != '\n') {
      fprintf(stderr, "dump: a line longer than %zu bytes\n", sizeof line - 2);
      return 1;
    }
    int property = unicode_property_find(line, n);
    printf("%.*s\t%d\t", (int)n, line, property);
    size_t count = property < 0 ? 0 : unicode_property_ranges(property, NULL);
    uint32_t(*ranges)[2] = malloc((count ? count : 1) * sizeof *ranges);
    if (!ranges) {
      fprintf(stderr, "dump: out of memory\n");
      return 1;
    }
    unicode_property_ranges(property, ranges);
    for (size_t i = 0; i < count; i++) printf("%s%X-%X", i ? " " : "", (unsigned)ranges[i][0], (unsigned)ranges[i][1]);
    printf("\n");
    free(ranges);
  }
  return ferror(stdin) ? 1 : 0;
}
