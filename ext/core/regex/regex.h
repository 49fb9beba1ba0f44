/* regex.h — the program a pattern compiles to, private to pattern.c,
 * regex_compile.c and regex_dfa.c: regex_compile.c reads a JavaScript
 * pattern into it, pattern.c runs it over a string's UTF-16 code units with
 * a backtracking machine whose backtrack stack is an array, never the C
 * stack, or runs the automaton regex_dfa.c makes of it over ASCII bytes. */
#ifndef SHORN_REGEX_H
#define SHORN_REGEX_H

#include "core/base/platform.h"

/* V8 reads a quantifier bound past this as no bound. */
#define REGEX_BOUND_INFINITE 0x7FFFFFFFu

/* A step of the program, its operands a..d as each comment says. */
typedef enum regex_op {
  OP_CHAR,        /* one character equal to a */
  OP_CLASS,       /* one character of class a */
  OP_REPEAT_ONE,  /* the CHAR or CLASS that follows, a to b times, greedy when `flag` */
  OP_BEGIN,       /* ^ */
  OP_END,         /* $ */
  OP_WORD_BOUNDARY, /* \b, or \B when `flag` */
  OP_BACKREF,     /* the text group a captured */
  OP_SAVE,        /* slot a = the position */
  OP_SPLIT,       /* go on at a; b when that fails */
  OP_JUMP,        /* go on at a */
  OP_LOOP_INIT,   /* a loop's count (slot a) = 0 */
  OP_LOOP,        /* slot a counts iterations, b to c of them, greedy when `flag`; d is past the loop */
  OP_LOOP_BODY,   /* an iteration starts: slot a + 1 = the position */
  OP_RESET,       /* slots a to b - 1 unset: an iteration's captures start empty */
  OP_LOOP_NEXT,   /* an iteration ended: refused empty once b are done (checked when `flag`); count it, back to c */
  OP_LOOK,        /* a lookaround starts; it ends at a; negative when `flag` */
  OP_LOOK_END,    /* the lookaround's body matched; negative when `flag` */
  OP_MATCH
} regex_op;

typedef struct regex_instr {
  uint8_t op;
  bool flag;
  bool backward; /* a character or backreference read leftwards, in a lookbehind */
  uint32_t a, b, c, d;
} regex_instr;

/* A class: its ranges of characters sorted, disjoint and not adjacent,
 * and the ASCII members again as bits for the common case. */
typedef struct regex_class {
  uint32_t ascii[4];
  uint32_t first, count; /* in the program's ranges */
  bool negated;
} regex_class;

typedef struct regex_program {
  regex_instr *code;
  regex_class *classes;
  uint32_t (*ranges)[2];
  uint32_t groups; /* capturing groups: slots 2i and 2i + 1 are group i + 1's ends */
  uint32_t slots;  /* the groups' and then two a loop: its count and where its iteration began */
  bool unicode;    /* code points, surrogate pairs joined; else UTF-16 code units */
  bool anchored;   /* every alternative starts with ^: try position 0 alone */
  bool nullable;   /* may match the empty string: every position is a start */
  uint32_t first[4];     /* else the ASCII code units a match may start with */
  bool first_non_ascii;  /* and whether it may start with one past ASCII */
  uint16_t *prefix;      /* the code units every match starts with, when there are two or more */
  uint32_t prefix_length;
} regex_program;

/* Read src[0..n) as `new RegExp(source)` does, with the `u` flag when
 * `unicode`, into *out.  SHORN_ERROR_SCHEMA with V8's words for why in
 * *error; SHORN_ERROR_NOMEM. */
SHORN_PRIVATE shorn_code regex_compile(const shorn_allocator *allocator, const uint16_t *src, size_t n, bool unicode,
                                       regex_program *out, const char **error);
SHORN_PRIVATE void regex_program_free(const shorn_allocator *allocator, regex_program *p);

/* The program as a deterministic automaton over ASCII bytes, for a program
 * without backreferences, lookarounds or word boundaries whose automaton is
 * small enough; `next` is NULL for any other.  `lazy` says the program may
 * be matched by the lazy automaton (regex_lazy_match), which needs only
 * the columns (a byte of each it finds again from them): every program
 * without backreferences, lookarounds or word boundaries, whether its
 * whole automaton was small enough or not. */
typedef struct regex_dfa {
  uint16_t *next;    /* by a state's row and a byte's column: the next state's row, its first entry */
  uint8_t *at_end;   /* by state: does the string match when it ends there */
  uint8_t column[256];
  bool lazy;
  uint32_t columns;
  uint32_t start;    /* the first state's row */
} regex_dfa;

typedef enum regex_dfa_answer {
  REGEX_DFA_NO_MATCH,
  REGEX_DFA_MATCH,
  REGEX_DFA_NOT_ASCII, /* a byte past ASCII came before the answer */
  REGEX_DFA_GAVE_UP,   /* the lazy automaton passed its bound of work */
  REGEX_DFA_NOMEM
} regex_dfa_answer;

/* Build p's automaton into *out, or none (SHORN_OK either way);
 * SHORN_ERROR_NOMEM. */
SHORN_PRIVATE shorn_code regex_dfa_build(const shorn_allocator *allocator, const regex_program *p, regex_dfa *out);
/* Does the program match somewhere in s[0..n)?  REGEX_DFA_NOT_ASCII when a
 * byte past ASCII came before the answer. */
SHORN_PRIVATE regex_dfa_answer regex_dfa_match(const regex_dfa *d, const char *s, size_t n);
SHORN_PRIVATE void regex_dfa_free(const shorn_allocator *allocator, regex_dfa *d);

/* The lazy automaton's cache of states, a matcher's own: made by the
 * first match that needs it, kept for the next, freed with
 * regex_lazy_free. */
typedef struct regex_lazy regex_lazy;

/* Does p, whose regex_dfa d says `lazy`, match somewhere in s[0..n)?  The
 * states it reaches are built into *cache, of at most states_max states
 * (the default when 0: a test's hook to make it flush).  REGEX_DFA_GAVE_UP
 * when the match passed its work, REGEX_DFA_NOT_ASCII as regex_dfa_match,
 * REGEX_DFA_NOMEM. */
SHORN_PRIVATE regex_dfa_answer regex_lazy_match(regex_lazy **cache, const shorn_allocator *allocator,
                                                const regex_program *p, const regex_dfa *d, const char *s,
                                                size_t n, uint32_t states_max);
/* How many times the cache was flushed for being full, over its matches. */
SHORN_PRIVATE uint64_t regex_lazy_flushes(const regex_lazy *cache);
SHORN_PRIVATE void regex_lazy_free(regex_lazy *cache);

#endif
