/*
 * pattern.c — libFuzzer harness: a pattern, then optionally a NUL and a
 * string, both ASCII (other bytes end the input's use).
 *
 * Any pattern compiles or is refused, never a crash, a hang or a leak; a
 * string gets the same answer from pattern_test, which matches an ASCII
 * string by the pattern's DFA when it has one, or its lazy DFA, as from the
 * backtracking machine alone, unless the backtracker gave up; the DFA never
 * gives up; and the lazy DFA, run alone on any pattern without
 * backreferences, lookarounds or \b, with its cache and with a cache of
 * one state flushed at every state, answers as the backtracker unless one
 * of them gave up.
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

static bool is_ascii(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] >= 0x80) return false;
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t source = nul ? (size_t)(nul - data) : size, n = nul ? size - source - 1 : 0;
  const char *text = nul ? (const char *)nul + 1 : "";
  if (!is_ascii(data, source) || !is_ascii((const uint8_t *)text, n)) return 0;
  size_t before = counted.current;
  pattern_engine *engine = pattern_engine_new(&counting_allocator);
  FUZZ_CHECK(engine != NULL);
  const pattern *p;
  char why[128];
  if (pattern_compile(engine, (const char *)data, source, &p, why, sizeof why) == SHORN_OK) {
    pattern_matcher m = {0};
    pattern_result slow = pattern_test_backtracking(&m, p, text, n, false);
    pattern_result fast = pattern_test(&m, p, text, n, false);
    FUZZ_CHECK(fast == slow || slow == PATTERN_LIMIT);
    FUZZ_CHECK(!pattern_has_dfa(p) || fast == PATTERN_MATCH || fast == PATTERN_NO_MATCH);
    pattern_matcher tiny = {.lazy_states = 5};
    pattern_result lazy = pattern_test_lazy(&m, p, text, n), flushing = pattern_test_lazy(&tiny, p, text, n);
    FUZZ_CHECK(lazy == slow || lazy == PATTERN_LIMIT || slow == PATTERN_LIMIT);
    FUZZ_CHECK(flushing == lazy || flushing == PATTERN_LIMIT); /* flushing, it builds more */
    pattern_matcher_release(&tiny);
    pattern_matcher_release(&m);
  }
  pattern_engine_free(engine);
  FUZZ_CHECK(counted.current == before);
  return 0;
}
