/* pattern.h — a JSON Schema "pattern" as JavaScript's `new RegExp(source)`
 * reads it, matched as RegExp.prototype.test matches, by a backtracking
 * matcher of our own (regex.h) over the string's UTF-16 code units, or by
 * a DFA over the bytes of an ASCII string. */
#ifndef SHORN_PATTERN_H
#define SHORN_PATTERN_H

#include "core/base/platform.h"

typedef struct pattern pattern;

/* A schema's patterns, allocated with the schema's allocator and freed
 * with it. */
typedef struct pattern_engine pattern_engine;

/* What one backtracking match may spend (a DFA's has no limit to reach, a
 * lazy DFA's is in regex_dfa.c): a pattern that backtracks
 * catastrophically refuses the value rather than run for hours or hold
 * gigabytes.  Steps are the matcher's instructions and characters read by
 * a repeat; its memory to backtrack in is bounded as the rest of an encode
 * is, by what the string is long: a fixed part and so much per byte, up to
 * a ceiling. */
#define PATTERN_MATCH_LIMIT 10000000
#define PATTERN_HEAP_FIXED_KIB 64
#define PATTERN_HEAP_PER_BYTE 512
#define PATTERN_HEAP_LIMIT_KIB 16384

/* The longest pattern, in UTF-16 code units. */
#define PATTERN_MAX_UNITS 262144

SHORN_PRIVATE pattern_engine *pattern_engine_new(const shorn_allocator *allocator);
SHORN_PRIVATE void pattern_engine_free(pattern_engine *engine);
/* The engine's allocator keeps *live_bytes, what it holds: each pattern
 * compiled after then knows its own (pattern_bytes; 0 unmeasured). */
SHORN_PRIVATE void pattern_engine_measure(pattern_engine *engine, const size_t *live_bytes);
SHORN_PRIVATE size_t pattern_bytes(const pattern *p);
/* How many patterns the engine holds. */
SHORN_PRIVATE uint32_t pattern_engine_count(const pattern_engine *engine);

/* Compile `source` (WTF-8), or find it compiled already: kept by the
 * engine until it is freed, or until each pattern_compile that gave it is
 * matched by a pattern_release.  SHORN_ERROR_SCHEMA when JavaScript would
 * refuse it, with the reason in why[0..cap); SHORN_ERROR_NOMEM. */
SHORN_PRIVATE shorn_code pattern_compile(pattern_engine *engine, const char *source, size_t n,
                                         const pattern **out, char *why, size_t cap);
SHORN_PRIVATE void pattern_release(const pattern *p);

/* One encode's scratch for matching, for what does not fit on the C
 * stack: the UTF-16 form of a long string, the backtrack stack of a match
 * that goes deep, the slots of a pattern with many groups and loops, the
 * lazy DFA's cache of states.  The compiled pattern is only read, so
 * threads share a schema.  Start it zeroed, `allocator` set to the one the
 * scratch comes from: the encode's, not the engine's, which a shared
 * engine keeps for compiling. */
typedef struct pattern_matcher {
  pattern_engine *engine; /* set by a match that used the rest */
  const shorn_allocator *allocator;
  uint16_t *units;
  size_t capacity;
  struct regex_entry *stack;
  size_t stack_capacity;
  size_t *slots;
  size_t slot_capacity;
  struct regex_lazy *lazy;
  uint32_t lazy_states;  /* a test's hook: the lazy DFA's cache holds at most this many states, when set */
  uint64_t lazy_flushes; /* the times the lazy DFA's cache was flushed for being full, for the tests to see */
} pattern_matcher;

typedef enum pattern_result {
  PATTERN_NO_MATCH,
  PATTERN_MATCH,
  PATTERN_LIMIT, /* the match passed its limit of steps or memory */
  PATTERN_NOMEM
} pattern_result;

/* Does `p` match anywhere in the WTF-8 string s[0..n)?  A pattern read
 * with `u` needs well-formed text: a string with a lone surrogate (which
 * the structure refuses) is said to match. */
SHORN_PRIVATE pattern_result pattern_test(pattern_matcher *m, const pattern *p, const char *s, size_t n,
                                          bool lone_surrogate);
/* pattern_test by the backtracking machine alone, never the automaton nor
 * the table: for the tests that compare them. */
SHORN_PRIVATE pattern_result pattern_test_backtracking(pattern_matcher *m, const pattern *p, const char *s, size_t n,
                                                       bool lone_surrogate);
/* pattern_test by the lazy DFA alone, for a pattern without
 * backreferences, lookarounds or word boundaries, whether or not its whole
 * DFA was built: PATTERN_LIMIT when it cannot answer (no lazy DFA, a byte
 * past ASCII, or its work passed).  For the tests that compare them. */
SHORN_PRIVATE pattern_result pattern_test_lazy(pattern_matcher *m, const pattern *p, const char *s, size_t n);
/* Has the pattern a DFA, for strings of ASCII bytes? */
SHORN_PRIVATE bool pattern_has_dfa(const pattern *p);
/* Is the pattern matched by the lazy DFA, its whole DFA past the bounds? */
SHORN_PRIVATE bool pattern_has_lazy_dfa(const pattern *p);
SHORN_PRIVATE void pattern_matcher_release(pattern_matcher *m);

#endif
