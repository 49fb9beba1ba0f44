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

/* The three states every automaton starts with, each of which it never leaves. */
enum { STATE_DEAD, STATE_MATCH, STATE_NOT_ASCII, STATE_FIRST };

/* A position of the NFA is `width` words: the program counter, how many
 * characters the REPEAT_ONE there has taken, then each counted loop's
 * count.  Counts are capped at the largest bound that changes what may
 * follow, and zero outside their loop, so that positions are finitely many
 * and equal positions are equal words. */
enum { AT_PC, AT_TAKEN, AT_LOOPS };

typedef struct position_set {
  uint32_t *words;
  size_t count, capacity; /* positions */
} position_set;

typedef struct builder {
  const shorn_allocator *allocator;
  const regex_program *program;
  uint32_t width, first_loop_slot;
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
  uint64_t work_left;
  bool nomem, too_large;
} builder;

/* ---- sets of positions ------------------------------------------------------ */

static int compare_positions(const uint32_t *x, const uint32_t *y, uint32_t width) {
  for (uint32_t i = 0; i < width; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

static bool dfa_set_room(builder *b, position_set *s) {
  if (s->count < s->capacity) return true;
  if (s->count >= DFA_SET_MAX) return b->too_large = true, false;
  size_t words = s->capacity * b->width;
  uint32_t *grown = array_grow(b->allocator, s->words, &words, (s->count + 1) * b->width, sizeof *grown, NULL);
  if (!grown) return b->nomem = true, false;
  s->words = grown;
  s->capacity = words / b->width;
  return true;
}

static bool dfa_push_position(builder *b, position_set *s, const uint32_t *position) {
  if (!dfa_set_room(b, s)) return false;
  memcpy(s->words + s->count++ * b->width, position, b->width * sizeof *position);
  return true;
}

/* Count work done against the construction's budget: false past it. */
static bool dfa_spend(builder *b, size_t words) {
  if (b->work_left < words) return b->too_large = true, false;
  b->work_left -= words;
  return true;
}

/* Add the position to the sorted set; false when it was there already, or
 * when a bound or memory stopped the construction. */
static bool dfa_insert_sorted(builder *b, position_set *s, const uint32_t *position) {
  size_t low = 0, high = s->count;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    int order = compare_positions(s->words + mid * b->width, position, b->width);
    if (order == 0) return false;
    if (order < 0)
      low = mid + 1;
    else
      high = mid;
  }
  size_t moved = (s->count - low) * b->width;
  if (!dfa_spend(b, moved + b->width) || !dfa_set_room(b, s)) return false;
  uint32_t *at = s->words + low * b->width;
  memmove(at + b->width, at, moved * sizeof *at);
  memcpy(at, position, b->width * sizeof *at);
  s->count++;
  return true;
}

/* ---- moves of the NFA -------------------------------------------------------- */

static bool is_infinite(uint32_t bound) { return bound >= REGEX_BOUND_INFINITE; }

/* The count past which a repeat of `least` to `most` behaves the same. */
static uint32_t count_cap(uint32_t least, uint32_t most) { return is_infinite(most) ? least : most; }

static bool takes_byte(const regex_program *p, const regex_instr *in, uint32_t c) {
  if (in->op == OP_CHAR) return in->a == c;
  return p->classes[in->a].ascii[c / 32] >> (c % 32) & 1;
}

/* A position reached without reading a character, `to` (a copy of the one
 * it was reached from, changed) at `pc`: onto the closure's stack. */
static bool dfa_go(builder *b, uint32_t *to, uint32_t pc) {
  to[AT_PC] = pc;
  return dfa_push_position(b, &b->stack, to);
}

/* The positions `position` reaches without reading, onto the stack.  ^
 * passes at the start of the string alone, $ at its end alone; MATCH sets
 * *matched. */
static bool dfa_follow(builder *b, const uint32_t *position, bool at_start, bool at_end, bool *matched) {
  const regex_instr *in = &b->program->code[position[AT_PC]];
  uint32_t to[AT_LOOPS + DFA_LOOPS_MAX], pc = position[AT_PC];
  memcpy(to, position, b->width * sizeof *to);
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

/* The closure of what is on the stack, into b->closure (sorted): false when
 * a bound or memory stopped it. */
static bool close_over(builder *b, bool at_start, bool at_end, bool *matched) {
  b->closure.count = 0;
  *matched = false;
  uint32_t position[AT_LOOPS + DFA_LOOPS_MAX];
  while (b->stack.count) {
    memcpy(position, b->stack.words + --b->stack.count * b->width, b->width * sizeof *position);
    if (dfa_insert_sorted(b, &b->closure, position)) {
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

static uint32_t hash_words(const uint32_t *w, size_t n) {
  uint32_t h = FNV1A32_BASIS;
  for (size_t i = 0; i < n; i++) h = fnv1a32_step(h, w[i]);
  return h;
}

/* The state of the closure's reading positions, new or found; UINT32_MAX
 * when a bound or memory stopped the construction.  The first state, at
 * the start of the string, where ^ passes, is never found again. */
static uint32_t state_of_closure(builder *b, bool first) {
  size_t from = b->state_words_count, n = 0;
  for (size_t i = 0; i < b->closure.count; i++) {
    const uint32_t *position = b->closure.words + i * b->width;
    if (!dfa_reads(b, position)) continue;
    uint32_t *words = array_grow(b->allocator, b->state_words, &b->state_words_capacity,
                                 from + (n + 1) * b->width, sizeof *words, NULL);
    if (!words) return b->nomem = true, UINT32_MAX;
    b->state_words = words;
    memcpy(words + from + n++ * b->width, position, b->width * sizeof *words);
  }
  if (!n) return STATE_DEAD;
  n *= b->width;
  uint32_t mask = 2 * DFA_STATES_MAX - 1, slot = hash_words(b->state_words + from, n) & mask;
  for (; !first && b->hash[slot]; slot = (slot + 1) & mask) {
    uint32_t s = b->hash[slot] - 1;
    size_t at = b->state_start[s], length = b->state_start[s + 1] - at;
    if (length == n && memcmp(b->state_words + at, b->state_words + from, n * sizeof *b->state_words) == 0)
      return s;
  }
  if (b->states == DFA_STATES_MAX || (size_t)(b->states + 1) * b->columns > DFA_TABLE_MAX)
    return b->too_large = true, UINT32_MAX;
  uint32_t *next = array_grow(b->allocator, b->next, &b->next_capacity, (size_t)(b->states + 1) * b->columns,
                              sizeof *next, NULL);
  if (!next) return b->nomem = true, UINT32_MAX;
  b->next = next;
  if (!first) b->hash[slot] = b->states + 1;
  b->state_words_count = from + n;
  b->state_start[++b->states] = b->state_words_count;
  return b->states - 1;
}

/* Where state s goes on the byte c: the positions that read it moved past
 * it, and a match starting after it unless the program is anchored. */
static uint32_t state_after(builder *b, uint32_t s, uint32_t c) {
  const regex_program *p = b->program;
  uint32_t to[AT_LOOPS + DFA_LOOPS_MAX];
  if (!dfa_spend(b, b->state_start[s + 1] - b->state_start[s])) return UINT32_MAX;
  for (size_t at = b->state_start[s]; at < b->state_start[s + 1]; at += b->width) {
    const regex_instr *in = &p->code[b->state_words[at + AT_PC]];
    memcpy(to, b->state_words + at, b->width * sizeof *to);
    if (in->op == OP_REPEAT_ONE) {
      if (!takes_byte(p, in + 1, c)) continue;
      if (to[AT_TAKEN] < count_cap(in->a, in->b)) to[AT_TAKEN]++;
    } else if (in->op == OP_END || !takes_byte(p, in, c)) {
      continue;
    } else {
      to[AT_PC]++;
    }
    if (!dfa_push_position(b, &b->stack, to)) return UINT32_MAX;
  }
  bool matched;
  memset(to, 0, b->width * sizeof *to);
  if ((!p->anchored && !dfa_push_position(b, &b->stack, to)) || !close_over(b, false, false, &matched)) return UINT32_MAX;
  return matched ? STATE_MATCH : state_of_closure(b, false);
}

/* Does state s accept at the end of the string: MATCH past its $? */
static bool accepts_at_end(builder *b, uint32_t s, bool at_start, bool *matched) {
  for (size_t at = b->state_start[s]; at < b->state_start[s + 1]; at += b->width)
    if (!dfa_push_position(b, &b->stack, b->state_words + at)) return false;
  return close_over(b, at_start, true, matched);
}

/* ---- columns ------------------------------------------------------------------ */

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
      if (masks[k][c / 32] >> (c % 32) & 1) b->column[c] = (uint8_t)k, b->representative[k] = (uint8_t)c;
  memset(b->column + 128, (int)columns, 128);
  b->columns = columns + 1;
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
  if (!dfa_push_position(b, &b->stack, zero) || !close_over(b, true, false, &matched)) return false;
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

shorn_code regex_dfa_build(const shorn_allocator *allocator, const regex_program *p, regex_dfa *out) {
  *out = (regex_dfa){0};
  uint32_t loops = (p->slots - 2 * p->groups) / 2;
  if (!is_regular(p, loops)) return SHORN_OK;
  builder *b = mem_calloc(allocator, 1, sizeof *b);
  if (!b) return SHORN_ERROR_NOMEM;
  b->allocator = allocator;
  b->program = p;
  b->width = AT_LOOPS + loops;
  b->first_loop_slot = 2 * p->groups;
  size_t instructions = 1;
  while (p->code[instructions - 1].op != OP_MATCH) instructions++;
  b->work_left = instructions < DFA_WORK_MAX / DFA_WORK_PER_INSTRUCTION ? instructions * DFA_WORK_PER_INSTRUCTION
                                                                         : DFA_WORK_MAX;
  uint32_t start;
  if (make_columns(b) && dfa_build(b, &start)) {
    out->at_end = mem_alloc(allocator, b->states);
    if (out->at_end) {
      /* What matching reads: each entry its state's row, not its number. */
      for (size_t i = 0; i < (size_t)b->states * b->columns; i++) b->next[i] *= b->columns;
      memcpy(out->at_end, b->at_end, b->states);
      memcpy(out->column, b->column, sizeof out->column);
      out->next = b->next;
      out->columns = b->columns;
      out->start = start * b->columns;
      b->next = NULL;
    } else {
      b->nomem = true;
    }
  }
  shorn_code rc = b->nomem ? SHORN_ERROR_NOMEM : SHORN_OK;
  mem_free(allocator, b->closure.words);
  mem_free(allocator, b->stack.words);
  mem_free(allocator, b->state_words);
  mem_free(allocator, b->next);
  mem_free(allocator, b);
  return rc;
}

regex_dfa_answer regex_dfa_match(const regex_dfa *d, const char *s, size_t n) {
  const uint32_t *next = d->next;
  uint32_t at = d->start, stop = STATE_FIRST * d->columns;
  for (size_t i = 0; i < n && at >= stop; i++) at = next[at + d->column[(unsigned char)s[i]]];
  if (at >= stop) return d->at_end[at / d->columns] ? REGEX_DFA_MATCH : REGEX_DFA_NO_MATCH;
  return at == STATE_MATCH * d->columns ? REGEX_DFA_MATCH : at == 0 ? REGEX_DFA_NO_MATCH : REGEX_DFA_NOT_ASCII;
}

void regex_dfa_free(const shorn_allocator *allocator, regex_dfa *d) {
  mem_free(allocator, d->next);
  mem_free(allocator, d->at_end);
  *d = (regex_dfa){0};
}
