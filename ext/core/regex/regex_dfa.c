/*
 * regex_dfa.c — a program of regex_compile.c as a deterministic automaton
 * over ASCII bytes, built once when the pattern compiles and only read
 * after, so threads share it.  pattern.c runs it over a string of ASCII
 * bytes, which are then its UTF-16 code units too.
 *
 * RegExp.prototype.test asks only whether a match exists somewhere.  Without
 * backreferences, lookarounds and word boundaries, which this refuses, that
 * is membership in a regular language: the order greedy and lazy repeats try
 * things in decides which match is found, not whether one is, and
 * JavaScript's refusal of an empty iteration past a loop's minimum removes
 * no string (skipping the iteration reaches the same place with a smaller
 * count).  So the program's NFA, turned into a DFA by subset construction,
 * answers as the backtracking machine does, in one pass and no steps to
 * bound.
 *
 * A program whose automaton passes the bounds below is matched by the same
 * construction run lazily instead, as RE2's and Rust's regex do: a state is
 * built the first time a string reaches it, in a cache of the matcher's
 * own (the compiled pattern stays shared and read-only), and the cache is
 * flushed when full, the state being built kept as the first of the new.  Each byte
 * builds at most one state, and a state's construction is bounded by the
 * pattern, so the time is linear in the string; the work every match may
 * spend is bounded too (see regex_lazy_match), and past it the match gives
 * up to the backtracker, whose own limits then answer.
 */
#include "regex.h"

#include "core/base/memory.h"

/* What the construction may spend, all bounded by the pattern alone: past
 * any of these, the pattern has no automaton and the backtracker matches it. */
#define DFA_STATES_MAX 1024
#define DFA_TABLE_MAX 65536     /* transitions: states times columns */
#define DFA_SET_MAX 1024        /* NFA positions in one state */
#define DFA_WORK_MAX (1u << 24) /* words of positions read and moved, over the whole construction */
#define DFA_WORK_PER_INSTRUCTION 16384 /* and no more than this an instruction: a schema's cost grows with its text */
#define DFA_LOOPS_MAX 64         /* counted loops, a word each in a position */
#define DFA_SEEN_SLOTS (2 * DFA_SET_MAX) /* a closure's table: never more than half full */

/* The lazy automaton's cache, past which it is flushed: its states, and the
 * words of their positions.  A state takes at most DFA_SET_MAX positions of
 * AT_LOOPS + DFA_LOOPS_MAX words, which the cache of words always holds. */
#ifndef DFA_LAZY_STATES_MAX
#define DFA_LAZY_STATES_MAX DFA_STATES_MAX
#endif
#define DFA_LAZY_WORDS_MAX (1u << 18)
/* The work one lazy match may spend building states, in the words of
 * positions read and moved as the construction counts them: a fixed part
 * and so much a byte of the string, up to a ceiling.  Transitions already
 * built cost nothing, so a pattern whose strings keep to states it has
 * built runs over any length; one whose states each cost more than a
 * byte's share, or that keeps building new states past the ceiling, gives
 * up to the backtracker rather than run for minutes. */
#ifndef DFA_LAZY_WORK_FIXED
#define DFA_LAZY_WORK_FIXED (1u << 20)
#endif
#ifndef DFA_LAZY_WORK_PER_BYTE
#define DFA_LAZY_WORK_PER_BYTE 4096
#endif
#define DFA_LAZY_WORK_MAX (1u << 27)

/* The states every automaton starts with, each of which it never leaves;
 * STATE_UNKNOWN is where the lazy automaton's transitions not yet built
 * lead, so that matching finds them with the same test as the others. */
enum { STATE_DEAD, STATE_MATCH, STATE_NOT_ASCII, STATE_UNKNOWN, STATE_FIRST };

_Static_assert(DFA_LAZY_STATES_MAX > STATE_FIRST && DFA_LAZY_STATES_MAX <= DFA_STATES_MAX,
               "the lazy cache holds a state, in the builder's arrays");

/* A state's at_end before the lazy automaton has asked. */
#define DFA_AT_END_UNKNOWN 2

/* A position of the NFA is `width` words: the program counter, how many
 * characters the REPEAT_ONE there has taken, then each counted loop's
 * count.  Counts are capped at the largest bound that changes what may
 * follow, and zero outside their loop, so that positions are finitely many
 * and equal positions are equal words. */
enum { AT_PC, AT_TAKEN, AT_LOOPS };
#define DFA_WIDTH_LEAST 4

typedef struct position_set {
  uint32_t *words;
  size_t count;    /* positions */
  size_t capacity; /* words: a cache serves programs of other widths */
} position_set;

typedef struct builder {
  const shorn_allocator *allocator;
  const regex_program *program;
  uint32_t width, first_loop_slot;
  uint32_t cost_width; /* the words of a position the program needs, which work is counted in */
  uint8_t column[256];
  uint32_t columns;
  uint8_t representative[129]; /* a byte of each column */
  position_set closure, stack;
  uint32_t *state_words; /* every state's positions, sorted, one after another */
  size_t state_words_count, state_words_capacity;
  size_t state_start[DFA_STATES_MAX + 1]; /* state i's in state_words[state_start[i] .. state_start[i + 1]) */
  uint32_t *next;                         /* next[state * columns + column] */
  size_t next_capacity;
  uint8_t at_end[DFA_STATES_MAX];         /* does the state accept at the end of the string */
  uint32_t states;
  uint32_t hash[2 * DFA_STATES_MAX]; /* state + 1, by its positions' hash, open addressing */
  uint32_t slot[DFA_STATES_MAX];     /* each state's slot in hash, to clear it by */
  uint32_t seen_index[DFA_SEEN_SLOTS], seen_stamp[DFA_SEEN_SLOTS], stamp; /* the closure's, by hash */
  uint32_t closure_hash[DFA_SET_MAX];  /* each closure position's hash */
  uint32_t state_hash[DFA_STATES_MAX]; /* each state's: the sum of its positions' */
  uint64_t work_left;
  bool nomem, too_large;
  /* The lazy automaton's: states_max (at most DFA_STATES_MAX) and
   * words_max bound its cache, full when either is reached; flushes counts
   * the times it was flushed, so that a transition from a state a flush
   * dropped is not written into the row a new state now has. */
  bool lazy;
  uint32_t states_max;
  size_t words_max;
  uint64_t flushes;
} builder;

/* ---- sets of positions ------------------------------------------------------ */

/* Positions are at least DFA_WIDTH_LEAST words, the ones past the program's
 * always zero, so that the common widths copy and compare as constants. */
static ALWAYS_INLINE void dfa_copy_position(uint32_t *to, const uint32_t *from, uint32_t width) {
  if (width == DFA_WIDTH_LEAST)
    memcpy(to, from, DFA_WIDTH_LEAST * sizeof *to);
  else
    memcpy(to, from, width * sizeof *to);
}

static ALWAYS_INLINE bool dfa_same_position(const uint32_t *x, const uint32_t *y, uint32_t width) {
  if (width == DFA_WIDTH_LEAST) return memcmp(x, y, DFA_WIDTH_LEAST * sizeof *x) == 0;
  return memcmp(x, y, width * sizeof *x) == 0;
}

static bool dfa_set_room(builder *b, position_set *s) {
  if ((s->count + 1) * b->width <= s->capacity) return true;
  if (s->count >= DFA_SET_MAX) return b->too_large = true, false;
  uint32_t *grown = array_grow(b->allocator, s->words, &s->capacity, (s->count + 1) * b->width, sizeof *grown, NULL);
  if (!grown) return b->nomem = true, false;
  s->words = grown;
  return true;
}

static ALWAYS_INLINE bool dfa_push_position(builder *b, position_set *s, const uint32_t *position) {
  if (unlikely((s->count + 1) * b->width > s->capacity) && !dfa_set_room(b, s)) return false;
  dfa_copy_position(s->words + s->count++ * b->width, position, b->width);
  return true;
}

/* Count work done against the construction's budget: false past it. */
static bool dfa_spend(builder *b, size_t words) {
  if (b->work_left < words) return b->too_large = true, false;
  b->work_left -= words;
  return true;
}

static ALWAYS_INLINE uint32_t hash_words(const uint32_t *w, size_t n) {
  uint32_t h = FNV1A32_BASIS;
  if (n == DFA_WIDTH_LEAST) {
    for (size_t i = 0; i < DFA_WIDTH_LEAST; i++) h = fnv1a32_step(h, w[i]);
    return h;
  }
  for (size_t i = 0; i < n; i++) h = fnv1a32_step(h, w[i]);
  return h;
}

/* Add the position to the closure; false when it was there already, or
 * when a bound or memory stopped the construction.  The closure's
 * positions are found again by a table of their indexes, whose entries
 * count as the closure's only while their stamp is the closure's, so that
 * a new closure starts empty at no cost. */
static bool dfa_insert_new(builder *b, position_set *s, const uint32_t *position) {
  if (!dfa_spend(b, b->cost_width)) return false;
  uint32_t mask = DFA_SEEN_SLOTS - 1, hash = hash_words(position, b->width), slot = hash & mask;
  for (; b->seen_stamp[slot] == b->stamp; slot = (slot + 1) & mask)
    if (dfa_same_position(s->words + (size_t)b->seen_index[slot] * b->width, position, b->width)) return false;
  if (!dfa_push_position(b, s, position)) return false;
  b->seen_stamp[slot] = b->stamp;
  b->seen_index[slot] = (uint32_t)(s->count - 1);
  b->closure_hash[s->count - 1] = hash;
  return true;
}

/* Is the position in the closure? */
static bool dfa_in_closure(const builder *b, const uint32_t *position) {
  uint32_t mask = DFA_SEEN_SLOTS - 1, slot = hash_words(position, b->width) & mask;
  for (; b->seen_stamp[slot] == b->stamp; slot = (slot + 1) & mask)
    if (dfa_same_position(b->closure.words + (size_t)b->seen_index[slot] * b->width, position, b->width)) return true;
  return false;
}

/* ---- moves of the NFA -------------------------------------------------------- */

static bool is_infinite(uint32_t bound) { return bound >= REGEX_BOUND_INFINITE; }

/* The count past which a repeat of `least` to `most` behaves the same. */
static uint32_t count_cap(uint32_t least, uint32_t most) { return is_infinite(most) ? least : most; }

static bool takes_byte(const regex_program *p, const regex_instr *in, uint32_t c) {
  if (in->op == OP_CHAR) return in->a == c;
  return p->classes[in->a].ascii[c / 32] >> (c % 32) & 1;
}

/* A position reached without reading a character, at `pc` with the counts
 * of `from`, the one it was reached from: onto the closure's stack, once
 * the moves that need no choice are made. */
static bool dfa_go(builder *b, const uint32_t *from, uint32_t pc) {
  /* Instructions whose moves are fixed are made here, not positions of the
   * closure, which needs no more than the reading instructions and the
   * loops that choose to end each walk: the instructions that go forwards
   * cannot loop, a SPLIT's second way is left on the stack, and a LOOP
   * that has no choice either goes forwards or counts an iteration more,
   * which it does only up to its minimum. */
  uint32_t to[AT_LOOPS + DFA_LOOPS_MAX];
  dfa_copy_position(to, from, b->width);
  for (const regex_instr *code = b->program->code;;) {
    const regex_instr *in = &code[pc];
    uint32_t *count = NULL;
    /* A walk through counted loops can be long: each step is work. */
    if (!dfa_spend(b, 1)) return false;
    if (in->op == OP_LOOP_INIT || in->op == OP_LOOP || in->op == OP_LOOP_NEXT)
      count = &to[AT_LOOPS + (in->a - b->first_loop_slot) / 2];
    if (in->op == OP_SAVE || in->op == OP_RESET || in->op == OP_LOOP_BODY) {
      pc++;
    } else if (in->op == OP_JUMP && in->a > pc) {
      pc = in->a;
    } else if (in->op == OP_SPLIT && in->a > pc && in->b > pc) {
      to[AT_PC] = in->b;
      if (!dfa_push_position(b, &b->stack, to)) return false;
      pc = in->a;
    } else if (in->op == OP_LOOP_INIT) {
      *count = 0;
      pc++;
    } else if (in->op == OP_LOOP_NEXT) {
      if (*count < count_cap(code[in->c].b, code[in->c].c)) ++*count;
      pc = in->c;
    } else if (in->op == OP_LOOP && *count < in->b) {
      pc++;
    } else if (in->op == OP_LOOP && !is_infinite(in->c) && *count >= in->c) {
      *count = 0;
      pc = in->d;
    } else {
      break;
    }
  }
  to[AT_PC] = pc;
  return dfa_push_position(b, &b->stack, to);
}

/* The positions `position` reaches without reading, onto the stack.  ^
 * passes at the start of the string alone, $ at its end alone; MATCH sets
 * *matched. */
static bool dfa_follow(builder *b, const uint32_t *position, bool at_start, bool at_end, bool *matched) {
  const regex_instr *in = &b->program->code[position[AT_PC]];
  uint32_t to[AT_LOOPS + DFA_LOOPS_MAX], pc = position[AT_PC];
  dfa_copy_position(to, position, b->width);
  bool counts = in->op == OP_LOOP_INIT || in->op == OP_LOOP || in->op == OP_LOOP_NEXT;
  uint32_t *count = counts ? &to[AT_LOOPS + (in->a - b->first_loop_slot) / 2] : NULL;
  switch (in->op) {
    case OP_REPEAT_ONE:
      if (position[AT_TAKEN] < in->a) return true;
      to[AT_TAKEN] = 0;
      return dfa_go(b, to, pc + 2);
    case OP_BEGIN: return !at_start || dfa_go(b, to, pc + 1);
    case OP_END: return !at_end || dfa_go(b, to, pc + 1);
    case OP_SAVE:
    case OP_RESET:
    case OP_LOOP_BODY: return dfa_go(b, to, pc + 1);
    case OP_SPLIT: return dfa_go(b, to, in->a) && dfa_go(b, to, in->b);
    case OP_JUMP: return dfa_go(b, to, in->a);
    case OP_LOOP_INIT: *count = 0; return dfa_go(b, to, pc + 1);
    case OP_LOOP:
      if (*count < in->b) return dfa_go(b, to, pc + 1);
      if (!is_infinite(in->c) && *count >= in->c) return *count = 0, dfa_go(b, to, in->d);
      if (!dfa_go(b, to, pc + 1)) return false;
      *count = 0;
      return dfa_go(b, to, in->d);
    case OP_LOOP_NEXT:
      if (*count < count_cap(b->program->code[in->c].b, b->program->code[in->c].c)) ++*count;
      return dfa_go(b, to, in->c);
    case OP_MATCH: *matched = true; return true;
    default: return true; /* CHAR and CLASS read */
  }
}

/* The closure of what is on the stack, into b->closure: false when a
 * bound or memory stopped it. */
static bool close_over(builder *b, bool at_start, bool at_end, bool *matched) {
  b->closure.count = 0;
  if (++b->stamp == 0) {
    /* The stamps wrapped: no old one may pass for the new. */
    memset(b->seen_stamp, 0, sizeof b->seen_stamp);
    b->stamp = 1;
  }
  *matched = false;
  uint32_t position[AT_LOOPS + DFA_LOOPS_MAX];
  while (b->stack.count) {
    dfa_copy_position(position, b->stack.words + --b->stack.count * b->width, b->width);
    if (dfa_insert_new(b, &b->closure, position)) {
      if (!dfa_follow(b, position, at_start, at_end, matched)) return false;
    } else if (b->too_large || b->nomem) {
      return false;
    }
  }
  return true;
}

/* Does the position read a character, or wait for the end?  A state is
 * these, what else its closure visited being on the way to them. */
static bool dfa_reads(const builder *b, const uint32_t *position) {
  const regex_instr *in = &b->program->code[position[AT_PC]];
  return in->op == OP_CHAR || in->op == OP_CLASS || in->op == OP_END ||
         (in->op == OP_REPEAT_ONE && position[AT_TAKEN] < in->b);
}

/* ---- states --------------------------------------------------------------------- */

/* Empty the lazy automaton's cache of states: the special states stay. */
static void dfa_lazy_flush(builder *b) {
  for (uint32_t s = STATE_FIRST; s < b->states; s++)
    if (b->slot[s] != UINT32_MAX) b->hash[b->slot[s]] = 0;
  b->states = STATE_FIRST;
  b->state_words_count = 0;
}

/* The state of the closure's reading positions, new or found; UINT32_MAX
 * when a bound or memory stopped the construction.  The first state, at
 * the start of the string, where ^ passes, is never found again.  A lazy
 * automaton whose cache is full is flushed to make room. */
static uint32_t state_of_closure(builder *b, bool first) {
  size_t from = b->state_words_count, n = 0;
  uint32_t sum = 0, *words = array_grow(b->allocator, b->state_words, &b->state_words_capacity,
                                        from + b->closure.count * b->width, sizeof *words, NULL);
  if (!words) return b->nomem = true, UINT32_MAX;
  b->state_words = words;
  for (size_t i = 0; i < b->closure.count; i++) {
    const uint32_t *position = b->closure.words + i * b->width;
    if (!dfa_reads(b, position)) continue;
    dfa_copy_position(words + from + n++ * b->width, position, b->width);
    sum += b->closure_hash[i];
  }
  if (!n) return STATE_DEAD;
  n *= b->width;
  /* A state is a set: its hash is its positions' summed, in any order, and
   * a state of as many positions, all in the closure (where reading ones
   * are the state's), is the same. */
  uint32_t mask = 2 * DFA_STATES_MAX - 1, slot = fnv1a32_step(FNV1A32_BASIS, sum) & mask;
  for (; !first && b->hash[slot]; slot = (slot + 1) & mask) {
    uint32_t s = b->hash[slot] - 1;
    size_t at = b->state_start[s], length = b->state_start[s + 1] - at;
    if (length != n || b->state_hash[s] != sum || !dfa_spend(b, n / b->width * b->cost_width)) {
      if (b->too_large) return UINT32_MAX;
      continue;
    }
    size_t k = 0;
    while (k < n && dfa_in_closure(b, b->state_words + at + k)) k += b->width;
    if (k == n) return s;
  }
  bool full = b->states == b->states_max || (size_t)(b->states + 1) * b->columns > DFA_TABLE_MAX;
  if (full || (b->lazy && from + n > b->words_max)) {
    if (!b->lazy) return b->too_large = true, UINT32_MAX;
    dfa_lazy_flush(b);
    b->flushes++;
    memmove(b->state_words, b->state_words + from, n * sizeof *b->state_words);
    from = 0;
    for (slot = fnv1a32_step(FNV1A32_BASIS, sum) & mask; b->hash[slot];) slot = (slot + 1) & mask;
  }
  uint32_t *next = array_grow(b->allocator, b->next, &b->next_capacity, (size_t)(b->states + 1) * b->columns,
                              sizeof *next, NULL);
  if (!next) return b->nomem = true, UINT32_MAX;
  b->next = next;
  b->slot[b->states] = first ? UINT32_MAX : slot;
  b->state_hash[b->states] = sum;
  if (!first) b->hash[slot] = b->states + 1;
  if (b->lazy) {
    /* Every transition of the new state is yet to be built, but the one
     * past ASCII, and its answer at the end yet to be asked. */
    uint32_t *row = next + (size_t)b->states * b->columns;
    for (uint32_t k = 0; k + 1 < b->columns; k++) row[k] = STATE_UNKNOWN * b->columns;
    row[b->columns - 1] = STATE_NOT_ASCII * b->columns;
    b->at_end[b->states] = DFA_AT_END_UNKNOWN;
  }
  b->state_words_count = from + n;
  b->state_start[++b->states] = b->state_words_count;
  return b->states - 1;
}

/* Where state s goes on the byte c: the positions that read it moved past
 * it, and a match starting after it unless the program is anchored. */
static uint32_t state_after(builder *b, uint32_t s, uint32_t c) {
  const regex_program *p = b->program;
  uint32_t to[AT_LOOPS + DFA_LOOPS_MAX];
  if (!dfa_spend(b, (b->state_start[s + 1] - b->state_start[s]) / b->width * b->cost_width)) return UINT32_MAX;
  for (size_t at = b->state_start[s]; at < b->state_start[s + 1]; at += b->width) {
    const regex_instr *in = &p->code[b->state_words[at + AT_PC]];
    dfa_copy_position(to, b->state_words + at, b->width);
    if (in->op == OP_REPEAT_ONE) {
      if (!takes_byte(p, in + 1, c)) continue;
      if (to[AT_TAKEN] < count_cap(in->a, in->b)) to[AT_TAKEN]++;
      if (!dfa_push_position(b, &b->stack, to)) return UINT32_MAX;
    } else if (in->op != OP_END && takes_byte(p, in, c) && !dfa_go(b, to, to[AT_PC] + 1)) {
      return UINT32_MAX;
    }
  }
  bool matched;
  memset(to, 0, b->width * sizeof *to);
  if ((!p->anchored && !dfa_go(b, to, 0)) || !close_over(b, false, false, &matched)) return UINT32_MAX;
  return matched ? STATE_MATCH : state_of_closure(b, false);
}

/* Does state s accept at the end of the string: MATCH past its $? */
static bool accepts_at_end(builder *b, uint32_t s, bool at_start, bool *matched) {
  for (size_t at = b->state_start[s]; at < b->state_start[s + 1]; at += b->width)
    if (!dfa_push_position(b, &b->stack, b->state_words + at)) return false;
  return close_over(b, at_start, true, matched);
}

/* ---- columns ------------------------------------------------------------------ */

/* A byte of each ASCII column, the least, read from the columns: the
 * compiled automaton keeps only those. */
static void dfa_representatives(builder *b) {
  for (uint32_t c = 128; c-- > 0;) b->representative[b->column[c]] = (uint8_t)c;
}

/* ASCII bytes that no character or class of the program tells apart share
 * a column; bytes past ASCII have the last, which leads to STATE_NOT_ASCII.
 * Each column's bytes are a mask, split by each character and class in
 * turn.  False when the work budget ran out. */
static bool make_columns(builder *b) {
  const regex_program *p = b->program;
  uint32_t masks[128][4] = {{UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}}, seen_chars[4] = {0};
  uint32_t columns = 1;
  for (const regex_instr *in = p->code; in->op != OP_MATCH && columns < 128; in++) {
    uint32_t m[4] = {0};
    if (in->op == OP_CHAR) {
      if (in->a >= 128 || seen_chars[in->a / 32] >> (in->a % 32) & 1) continue;
      seen_chars[in->a / 32] |= 1u << (in->a % 32);
      m[in->a / 32] = 1u << (in->a % 32);
    } else if (in->op == OP_CLASS) {
      memcpy(m, p->classes[in->a].ascii, sizeof m);
    } else {
      continue;
    }
    if (!dfa_spend(b, columns)) return false;
    for (uint32_t k = 0, old = columns; k < old; k++) {
      uint32_t inside[4], outside[4], any_inside = 0, any_outside = 0;
      for (int w = 0; w < 4; w++) {
        any_inside |= inside[w] = masks[k][w] & m[w];
        any_outside |= outside[w] = masks[k][w] & ~m[w];
      }
      if (!any_inside || !any_outside) continue;
      memcpy(masks[k], inside, sizeof inside);
      memcpy(masks[columns++], outside, sizeof outside);
    }
  }
  for (uint32_t k = columns; k-- > 0;)
    for (uint32_t c = 128; c-- > 0;)
      if (masks[k][c / 32] >> (c % 32) & 1) b->column[c] = (uint8_t)k;
  memset(b->column + 128, (int)columns, 128);
  b->columns = columns + 1;
  dfa_representatives(b);
  return true;
}

/* ---- the whole ------------------------------------------------------------------ */

/* May the program be an automaton at all? */
static bool is_regular(const regex_program *p, uint32_t loops) {
  if (loops > DFA_LOOPS_MAX) return false;
  for (const regex_instr *in = p->code; in->op != OP_MATCH; in++)
    if (in->op == OP_BACKREF || in->op == OP_LOOK || in->op == OP_WORD_BOUNDARY) return false;
  return true;
}

/* Every state's row, breadth first from the first state's; false when a
 * bound or memory stopped it.  *start is the state matching begins in. */
static bool dfa_build(builder *b, uint32_t *start) {
  bool matched;
  uint32_t zero[AT_LOOPS + DFA_LOOPS_MAX] = {0};
  b->states = STATE_FIRST;
  b->next = array_grow(b->allocator, NULL, &b->next_capacity, STATE_FIRST * b->columns, sizeof *b->next, NULL);
  if (!b->next) return b->nomem = true, false;
  if (!dfa_go(b, zero, 0) || !close_over(b, true, false, &matched)) return false;
  *start = matched ? STATE_MATCH : state_of_closure(b, true);
  if (*start == UINT32_MAX) return false;
  for (uint32_t s = STATE_FIRST; s < b->states; s++) {
    if (!accepts_at_end(b, s, s == STATE_FIRST, &matched)) return false;
    b->at_end[s] = matched;
    for (uint32_t k = 0; k + 1 < b->columns; k++) {
      uint32_t to = state_after(b, s, b->representative[k]);
      if (to == UINT32_MAX) return false;
      b->next[s * b->columns + k] = to;
    }
    b->next[s * b->columns + b->columns - 1] = STATE_NOT_ASCII;
  }
  for (uint32_t s = 0; s < STATE_FIRST; s++)
    for (uint32_t k = 0; k < b->columns; k++) b->next[s * b->columns + k] = s;
  return true;
}

/* What a builder is for a program: its positions' width, and its columns
 * made (false when the work budget ran out making them). */
static uint32_t dfa_position_width(uint32_t loops) {
  return AT_LOOPS + loops > DFA_WIDTH_LEAST ? AT_LOOPS + loops : DFA_WIDTH_LEAST;
}

static bool dfa_builder_start(builder *b, const shorn_allocator *allocator, const regex_program *p, uint32_t loops) {
  b->allocator = allocator;
  b->program = p;
  b->width = dfa_position_width(loops);
  b->cost_width = AT_LOOPS + loops;
  b->first_loop_slot = 2 * p->groups;
  b->states_max = DFA_STATES_MAX;
  size_t instructions = 1;
  while (p->code[instructions - 1].op != OP_MATCH) instructions++;
  b->work_left = instructions < DFA_WORK_MAX / DFA_WORK_PER_INSTRUCTION ? instructions * DFA_WORK_PER_INSTRUCTION
                                                                         : DFA_WORK_MAX;
  return make_columns(b);
}

/* What matching reads, of exactly the states built: each entry its state's
 * row, not its number, in 16 bits, which every row of a table within
 * DFA_TABLE_MAX takes, so that a row is half the cache lines. */
_Static_assert(DFA_TABLE_MAX <= 65536, "a row's first entry fits 16 bits");
static bool dfa_keep_table(const builder *b, uint32_t start, regex_dfa *out) {
  size_t entries = (size_t)b->states * b->columns;
  out->next = mem_alloc(b->allocator, entries * sizeof *out->next);
  out->at_end = mem_alloc(b->allocator, b->states);
  if (!out->next || !out->at_end) return regex_dfa_free(b->allocator, out), false;
  for (size_t i = 0; i < entries; i++) out->next[i] = (uint16_t)(b->next[i] * b->columns);
  memcpy(out->at_end, b->at_end, b->states);
  out->start = start * b->columns;
  return true;
}

static void dfa_builder_free(builder *b) {
  mem_free(b->allocator, b->closure.words);
  mem_free(b->allocator, b->stack.words);
  mem_free(b->allocator, b->state_words);
  mem_free(b->allocator, b->next);
  mem_free(b->allocator, b);
}

shorn_code regex_dfa_build(const shorn_allocator *allocator, const regex_program *p, regex_dfa *out) {
  *out = (regex_dfa){0};
  uint32_t loops = (p->slots - 2 * p->groups) / 2;
  if (!is_regular(p, loops)) return SHORN_OK;
  builder *b = mem_calloc(allocator, 1, sizeof *b);
  if (!b) return SHORN_ERROR_NOMEM;
  uint32_t start;
  if (dfa_builder_start(b, allocator, p, loops)) {
    /* Columns are all the lazy automaton needs of the compile. */
    out->lazy = true;
    memcpy(out->column, b->column, sizeof out->column);
    out->columns = b->columns;
    if (dfa_build(b, &start) && !dfa_keep_table(b, start, out)) b->nomem = true;
  }
  shorn_code rc = b->nomem ? SHORN_ERROR_NOMEM : SHORN_OK;
  dfa_builder_free(b);
  return rc;
}

regex_dfa_answer regex_dfa_match(const regex_dfa *d, const char *s, size_t n) {
  const uint16_t *next = d->next;
  const uint8_t *column = d->column;
  uint32_t at = d->start, stop = STATE_FIRST * d->columns;
  size_t i = 0;
  /* The states that end a match never leave themselves, so the test for
   * them can wait four bytes: most of a string's bytes then cost the
   * step alone. */
  for (; i + 4 <= n && at >= stop; i += 4) {
    at = next[at + column[(unsigned char)s[i]]];
    at = next[at + column[(unsigned char)s[i + 1]]];
    at = next[at + column[(unsigned char)s[i + 2]]];
    at = next[at + column[(unsigned char)s[i + 3]]];
  }
  for (; i < n && at >= stop; i++) at = next[at + column[(unsigned char)s[i]]];
  if (at >= stop) return d->at_end[at / d->columns] ? REGEX_DFA_MATCH : REGEX_DFA_NO_MATCH;
  return at == STATE_MATCH * d->columns ? REGEX_DFA_MATCH : at == 0 ? REGEX_DFA_NO_MATCH : REGEX_DFA_NOT_ASCII;
}

void regex_dfa_free(const shorn_allocator *allocator, regex_dfa *d) {
  mem_free(allocator, d->next);
  mem_free(allocator, d->at_end);
  *d = (regex_dfa){0};
}

/* ---- the lazy automaton ---------------------------------------------------------- */

struct regex_lazy {
  builder b;
};

/* The cache made ready for a match of p over n bytes: emptied, so that
 * what a match spends, and so whether it gives up, depends on its pattern
 * and string alone, never on the strings matched before.  False when
 * memory or the columns' budget failed. */
static bool dfa_lazy_ready(regex_lazy **cache, const shorn_allocator *allocator, const regex_program *p,
                       const regex_dfa *d, size_t n, uint32_t states_max) {
  builder *b = *cache ? &(*cache)->b : NULL;
  if (!b) {
    regex_lazy *made = mem_calloc(allocator, 1, sizeof *made);
    if (!made) return false;
    *cache = made;
    b = &made->b;
    b->allocator = allocator;
    b->states = STATE_FIRST;
  }
  dfa_lazy_flush(b);
  /* The pattern's part is set again each match: the cache may have served
   * another pattern since, even one freed and made again at that address. */
  uint32_t loops = (p->slots - 2 * p->groups) / 2;
  b->program = p;
  b->width = dfa_position_width(loops);
  b->cost_width = AT_LOOPS + loops;
  b->first_loop_slot = 2 * p->groups;
  b->columns = d->columns;
  memcpy(b->column, d->column, sizeof b->column);
  dfa_representatives(b);
  uint32_t *next = array_grow(b->allocator, b->next, &b->next_capacity, (size_t)STATE_FIRST * b->columns,
                              sizeof *next, NULL);
  if (!next) return false;
  b->next = next;
  for (uint32_t s = 0; s < STATE_FIRST; s++)
    for (uint32_t k = 0; k < b->columns; k++) next[s * b->columns + k] = s * b->columns;
  b->lazy = true;
  b->states_max = states_max >= STATE_FIRST + 1 && states_max < DFA_LAZY_STATES_MAX ? states_max
                                                                                    : DFA_LAZY_STATES_MAX;
  b->words_max = DFA_LAZY_WORDS_MAX;
  uint64_t work = DFA_LAZY_WORK_FIXED + (uint64_t)n * DFA_LAZY_WORK_PER_BYTE;
  b->work_left = work < DFA_LAZY_WORK_MAX ? work : DFA_LAZY_WORK_MAX;
  b->stack.count = 0;
  b->nomem = b->too_large = false;
  return true;
}

/* The failure that stopped a construction, as an answer. */
static regex_dfa_answer dfa_lazy_failure(const builder *b) {
  return b->nomem ? REGEX_DFA_NOMEM : REGEX_DFA_GAVE_UP;
}

regex_dfa_answer regex_lazy_match(regex_lazy **cache, const shorn_allocator *allocator, const regex_program *p,
                                  const regex_dfa *d, const char *s, size_t n, uint32_t states_max) {
  if (!d->lazy) return REGEX_DFA_GAVE_UP;
  if (!dfa_lazy_ready(cache, allocator, p, d, n, states_max)) return REGEX_DFA_NOMEM;
  builder *b = &(*cache)->b;
  uint32_t zero[AT_LOOPS + DFA_LOOPS_MAX] = {0}, columns = b->columns, stop = STATE_FIRST * columns;
  bool matched;
  if (!dfa_go(b, zero, 0) || !close_over(b, true, false, &matched)) return dfa_lazy_failure(b);
  uint32_t state = matched ? STATE_MATCH : state_of_closure(b, true);
  if (state == UINT32_MAX) return dfa_lazy_failure(b);
  uint32_t at = state * columns;
  for (size_t i = 0; i < n && at >= stop; i++) {
    uint32_t k = b->column[(unsigned char)s[i]], to = b->next[at + k];
    if (unlikely(to == STATE_UNKNOWN * columns)) {
      /* The transition is built now, and kept unless building it flushed
       * the cache, which took the row it would go in. */
      uint64_t flushes = b->flushes;
      uint32_t built = state_after(b, at / columns, b->representative[k]);
      if (built == UINT32_MAX) return dfa_lazy_failure(b);
      to = built * columns;
      if (b->flushes == flushes) b->next[at + k] = to;
    }
    at = to;
  }
  if (at < stop)
    return at == STATE_MATCH * columns ? REGEX_DFA_MATCH : at == 0 ? REGEX_DFA_NO_MATCH : REGEX_DFA_NOT_ASCII;
  state = at / columns;
  if (b->at_end[state] == DFA_AT_END_UNKNOWN) {
    /* Only the first state is at the start of the string: no transition
     * leads back to it, so it is where an empty string ends. */
    if (!accepts_at_end(b, state, n == 0, &matched)) return dfa_lazy_failure(b);
    b->at_end[state] = matched;
  }
  return b->at_end[state] ? REGEX_DFA_MATCH : REGEX_DFA_NO_MATCH;
}

uint64_t regex_lazy_flushes(const regex_lazy *cache) { return cache ? cache->b.flushes : 0; }

void regex_lazy_free(regex_lazy *cache) {
  if (cache) dfa_builder_free(&cache->b);
}
