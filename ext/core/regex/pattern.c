/*
 * pattern.c — JSON Schema patterns: compiled by regex_compile.c, matched
 * here by a backtracking machine, or by a table when the pattern is one
 * class repeated over the whole string, or, for a string of ASCII bytes, by
 * the DFA regex_dfa.c built when the program has one, or else by the lazy
 * DFA regex_dfa.c builds state by state as the string needs them.
 *
 * A pattern is JavaScript's regular expression syntax, as `new
 * RegExp(source)` reads a string without flags.  Without the `u` flag
 * JavaScript matches UTF-16 code units.  A pattern that uses `\p{…}`,
 * `\P{…}` or `\u{…}`, which mean something only with `u`, or that
 * JavaScript reads only with `u`, is read as with it (code points): the
 * validators that write such patterns (Zod's and Valibot's emoji) compile
 * them with `u`.
 */
#include <stdio.h>
#include <string.h>

#include "pattern.h"

#include "core/base/memory.h"
#include "regex.h"
#include "core/text/text.h"

/* ---- the matcher ---------------------------------------------------------- */

/* A program of regex_compile.c runs over UTF-16 code units as
 * RegExp.prototype.test runs a pattern: from each start position in turn,
 * alternatives and repeats tried in JavaScript's order, backtracking on
 * failure.
 *
 * What to go back to lives in an array, the backtrack stack: a choice not
 * yet tried, or a slot's earlier value to restore (a capture, a loop's
 * count).  Its first block is on the C stack; past it the stack grows on
 * the heap, bounded as pattern.h says, as every step is.  The program is
 * only read: threads share it.
 */
#define UNSET SIZE_MAX

typedef enum entry_kind {
  ENTRY_CHOICE,   /* go on at pc from position a */
  ENTRY_UNDO,     /* slot pc was a */
  ENTRY_LOOK,     /* a lookaround began at a; a negative one (b) succeeds when its body fails, at pc */
  ENTRY_GIVE_BACK, /* the greedy REPEAT_ONE at pc ran from b to a: retry with one character fewer */
  ENTRY_TAKE_MORE  /* the lazy REPEAT_ONE at pc stands at a after b characters: retry with one more */
} entry_kind;

typedef struct regex_entry {
  uint32_t kind, pc;
  size_t a, b;
} backtrack_entry;

/* Entries of the C stack's first block. */
#define ENTRIES_HERE 128

/* Slots (captures and loop registers) held on the C stack. */
#define SLOTS_HERE 64

typedef struct machine {
  const regex_program *program;
  const uint16_t *s;
  size_t n;
  bool unicode;
  size_t *slots;
  backtrack_entry *stack;
  size_t top, capacity, most_bytes;
  backtrack_entry *first_block;
  pattern_matcher *matcher;
  uint64_t steps_left;
  pattern_result failure; /* PATTERN_NO_MATCH while the match goes on, else how it ended */
} machine;

/* ---- the backtrack stack --------------------------------------------------- */

/* Room for one more entry: the stack moves to the heap (the matcher's,
 * kept for the next match) and doubles there, up to the string's bound,
 * whatever a longer string's match left allocated, so that a string's
 * answer never depends on the strings before it. */
static bool pattern_make_room(machine *m) {
  pattern_matcher *pm = m->matcher;
  size_t most = m->most_bytes / sizeof(backtrack_entry);
  if (m->capacity >= most) return m->failure = PATTERN_LIMIT, false;
  size_t want = m->capacity * 2 < most ? m->capacity * 2 : most;
  if (pm->stack_capacity < want) {
    backtrack_entry *grown = mem_alloc(pm->allocator, want * sizeof *grown);
    if (!grown) return m->failure = PATTERN_NOMEM, false;
    memcpy(grown, m->stack, m->top * sizeof *grown);
    mem_free(pm->allocator, pm->stack);
    pm->stack = grown;
    pm->stack_capacity = want;
  } else if (m->stack == m->first_block) {
    memcpy(pm->stack, m->stack, m->top * sizeof *m->stack);
  }
  m->stack = pm->stack;
  m->capacity = pm->stack_capacity < most ? pm->stack_capacity : most;
  return true;
}

static ALWAYS_INLINE bool pattern_push(machine *m, entry_kind kind, uint32_t pc, size_t a, size_t b) {
  if (unlikely(m->top == m->capacity) && !pattern_make_room(m)) return false;
  m->stack[m->top++] = (backtrack_entry){kind, pc, a, b};
  return true;
}

/* A slot set, its old value kept for backtracking: a start that fails
 * leaves every slot as it found it, unset for the next. */
static ALWAYS_INLINE bool pattern_set_slot(machine *m, uint32_t slot, size_t value) {
  if (m->slots[slot] == value) return true;
  if (!pattern_push(m, ENTRY_UNDO, slot, m->slots[slot], 0)) return false;
  m->slots[slot] = value;
  return true;
}

/* ---- characters ------------------------------------------------------------ */

static bool pattern_is_high(uint16_t u) { return u >= 0xD800 && u <= 0xDBFF; }
static bool pattern_is_low(uint16_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

/* Is c, past ASCII, in the class?  Its ranges, searched. */
static bool class_has_wide(const regex_program *p, const regex_class *k, uint32_t c) {
  size_t low = k->first, high = k->first + k->count;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    if (c > p->ranges[mid][1])
      low = mid + 1;
    else
      high = mid;
  }
  return (low < k->first + k->count && c >= p->ranges[low][0]) != k->negated;
}

/* The character at *pos (before it, when backward), read and passed if
 * the instruction takes it: a code unit, or with `u` a code point. */
static ALWAYS_INLINE bool pattern_take_char(const machine *m, const regex_instr *in, size_t *pos) {
  size_t at = *pos;
  uint32_t c;
  if (!in->backward) {
    if (at >= m->n) return false;
    c = m->s[at++];
    if (m->unicode && pattern_is_high((uint16_t)c) && at < m->n && pattern_is_low(m->s[at]))
      c = 0x10000 + ((c - 0xD800) << 10) + (m->s[at++] - 0xDC00u);
  } else {
    if (at == 0) return false;
    c = m->s[--at];
    if (m->unicode && pattern_is_low((uint16_t)c) && at > 0 && pattern_is_high(m->s[at - 1]))
      c = 0x10000 + ((m->s[--at] - 0xD800u) << 10) + (c - 0xDC00);
  }
  if (in->op == OP_CHAR) {
    if (c != in->a) return false;
  } else {
    const regex_class *k = &m->program->classes[in->a];
    if (c < 128 ? !(k->ascii[c / 32] >> (c % 32) & 1) : !class_has_wide(m->program, k, c)) return false;
  }
  *pos = at;
  return true;
}

/* Does the CHAR or CLASS instruction take code unit u?  Without `u`. */
static bool takes_unit(const machine *m, const regex_instr *in, uint16_t u) {
  size_t at = 0;
  machine one = {.program = m->program, .s = &u, .n = 1};
  return pattern_take_char(&one, in, &at);
}

/* One character back from `at` toward `from` (where a repeat began), in
 * the direction opposite to the repeat's. */
static size_t pattern_give_back(const machine *m, bool backward, size_t at, size_t from) {
  bool pairs = m->unicode;
  if (!backward) return at - (pairs && at - from >= 2 && pattern_is_low(m->s[at - 1]) && pattern_is_high(m->s[at - 2]) ? 2 : 1);
  return at + (pairs && from - at >= 2 && pattern_is_high(m->s[at]) && pattern_is_low(m->s[at + 1]) ? 2 : 1);
}

static bool pattern_is_word(const machine *m, size_t at) {
  if (at >= m->n) return false;
  uint16_t u = m->s[at];
  return is_letter(u) || is_digit(u) || u == '_';
}

/* The text group g captured, again at *pos (before it, when backward); a
 * group that captured nothing matches the empty string.  A step a code
 * unit compared. */
static bool pattern_take_backref(machine *m, const regex_instr *in, size_t *pos) {
  size_t start = m->slots[2 * (in->a - 1)], end = m->slots[2 * (in->a - 1) + 1];
  if (start == UNSET || end == UNSET) return true;
  size_t length = end - start;
  m->steps_left = length < m->steps_left ? m->steps_left - length : 0;
  if (!in->backward) {
    if (m->n - *pos < length || memcmp(m->s + start, m->s + *pos, length * sizeof *m->s)) return false;
    *pos += length;
  } else {
    if (*pos < length || memcmp(m->s + start, m->s + *pos - length, length * sizeof *m->s)) return false;
    *pos -= length;
  }
  return true;
}

/* ---- the machine ----------------------------------------------------------- */

/* A greedy REPEAT_ONE: as many characters as it may take, a choice left to
 * give them back one by one down to its minimum.  False when it fails. */
static bool repeat_greedy(machine *m, uint32_t pc, size_t *pos) {
  const regex_instr *in = &m->program->code[pc];
  size_t at = *pos, least = at, count = 0;
  if (in[1].op == OP_CLASS && !in[1].backward && !m->unicode) {
    /* The common case, a class forwards over code units, in a tight loop. */
    const regex_class *k = &m->program->classes[in[1].a];
    size_t end = m->n - at < in->b ? m->n : at + in->b;
    for (uint16_t u; at < end; at++)
      if (u = m->s[at], u < 128 ? !(k->ascii[u / 32] >> (u % 32) & 1) : !class_has_wide(m->program, k, u)) break;
    count = at - *pos;
    if (count >= in->a) least = *pos + in->a;
  } else {
    while (count < in->b && pattern_take_char(m, in + 1, &at))
      if (++count == in->a) least = at;
  }
  m->steps_left = count < m->steps_left ? m->steps_left - count : 0;
  if (count < in->a) return false;
  if (at != least && !pattern_push(m, ENTRY_GIVE_BACK, pc, at, least)) return false;
  *pos = at;
  return true;
}

static bool repeat_lazy(machine *m, uint32_t pc, size_t *pos) {
  const regex_instr *in = &m->program->code[pc];
  size_t at = *pos, count = 0;
  for (; count < in->a; count++)
    if (!pattern_take_char(m, in + 1, &at)) break;
  m->steps_left = count < m->steps_left ? m->steps_left - count : 0;
  if (count < in->a) return false;
  if (count < in->b && !pattern_push(m, ENTRY_TAKE_MORE, pc, at, count)) return false;
  *pos = at;
  return true;
}

/* A lookaround's body matched: the choices it left go (it is matched
 * once), the slots it set stay, to be restored on backtracking past it.
 * Its start position comes back. */
static size_t pattern_close_look(machine *m) {
  size_t k = m->top;
  while (m->stack[--k].kind != ENTRY_LOOK) {
  }
  size_t start = m->stack[k].a, kept = k;
  for (size_t i = k + 1; i < m->top; i++)
    if (m->stack[i].kind == ENTRY_UNDO) m->stack[kept++] = m->stack[i];
  m->top = kept;
  return start;
}

/* A negative lookaround's body matched: everything since it began is
 * undone, and the lookaround fails. */
static void pattern_undo_look(machine *m) {
  for (;;) {
    backtrack_entry e = m->stack[--m->top];
    if (e.kind == ENTRY_LOOK) return;
    if (e.kind == ENTRY_UNDO) m->slots[e.pc] = e.a;
  }
}

/* Back to the last choice: PATTERN_MATCH with *pc and *pos to go on from,
 * or PATTERN_NO_MATCH when none is left. */
static pattern_result pattern_backtrack(machine *m, uint32_t *pc, size_t *pos) {
  while (m->top) {
    backtrack_entry e = m->stack[--m->top];
    const regex_instr *in = e.kind >= ENTRY_GIVE_BACK ? &m->program->code[e.pc] : NULL;
    switch (e.kind) {
      case ENTRY_UNDO: m->slots[e.pc] = e.a; break;
      case ENTRY_CHOICE:
        *pc = e.pc;
        *pos = e.a;
        return PATTERN_MATCH;
      case ENTRY_LOOK:
        if (!e.b) break;
        *pc = e.pc;
        *pos = e.a;
        return PATTERN_MATCH;
      case ENTRY_GIVE_BACK: {
        size_t at = pattern_give_back(m, in[1].backward, e.a, e.b);
        /* Where a given character must follow, no place without it is tried. */
        if (!in[2].backward && !m->unicode) {
          if (in[2].op == OP_CHAR)
            while (at != e.b && m->s[at] != in[2].a) at--;
          else if (in[2].op == OP_CLASS)
            while (at != e.b && !takes_unit(m, &in[2], m->s[at])) at--;
        }
        if (at != e.b) m->stack[m->top++].a = at; /* the entry again, one character shorter */
        *pc = e.pc + 2;
        *pos = at;
        return PATTERN_MATCH;
      }
      default: {
        size_t at = e.a;
        if (!pattern_take_char(m, in + 1, &at)) break;
        if (e.b + 1 < in->b) m->stack[m->top++] = (backtrack_entry){ENTRY_TAKE_MORE, e.pc, at, e.b + 1};
        *pc = e.pc + 2;
        *pos = at;
        return PATTERN_MATCH;
      }
    }
  }
  return PATTERN_NO_MATCH;
}

static bool pattern_advance(uint32_t *pc) {
  ++*pc;
  return true;
}

/* One instruction at *pc; false when it fails, or when m->failure says
 * the match is found or cannot go on. */
static ALWAYS_INLINE bool pattern_step(machine *m, uint32_t *pc, size_t *pos) {
  const regex_instr *in = &m->program->code[*pc];
  size_t count;
  switch (in->op) {
    case OP_CHAR:
    case OP_CLASS: return pattern_take_char(m, in, pos) && pattern_advance(pc);
    case OP_REPEAT_ONE:
      if (!(in->flag ? repeat_greedy(m, *pc, pos) : repeat_lazy(m, *pc, pos))) return false;
      *pc += 2;
      return true;
    case OP_BEGIN: return *pos == 0 && pattern_advance(pc);
    case OP_END: return *pos == m->n && pattern_advance(pc);
    case OP_WORD_BOUNDARY:
      if (((*pos > 0 && pattern_is_word(m, *pos - 1)) != pattern_is_word(m, *pos)) == in->flag) return false;
      return pattern_advance(pc);
    case OP_BACKREF: return pattern_take_backref(m, in, pos) && pattern_advance(pc);
    case OP_SAVE: return pattern_set_slot(m, in->a, *pos) && pattern_advance(pc);
    case OP_SPLIT:
      *pc = in->a;
      return pattern_push(m, ENTRY_CHOICE, in->b, *pos, 0);
    case OP_JUMP: *pc = in->a; return true;
    case OP_LOOP_INIT: return pattern_set_slot(m, in->a, 0) && pattern_advance(pc);
    case OP_LOOP:
      count = m->slots[in->a];
      if (count < in->b) return pattern_advance(pc);
      if (count >= in->c) return *pc = in->d, true;
      if (in->flag) return pattern_push(m, ENTRY_CHOICE, in->d, *pos, 0) && pattern_advance(pc);
      if (!pattern_push(m, ENTRY_CHOICE, *pc + 1, *pos, 0)) return false;
      *pc = in->d;
      return true;
    case OP_LOOP_BODY: return pattern_set_slot(m, in->a + 1, *pos) && pattern_advance(pc);
    case OP_RESET:
      m->steps_left = in->b - in->a < m->steps_left ? m->steps_left - (in->b - in->a) : 0;
      for (uint32_t slot = in->a; slot < in->b; slot++)
        if (!pattern_set_slot(m, slot, UNSET)) return false;
      return pattern_advance(pc);
    case OP_LOOP_NEXT:
      count = m->slots[in->a];
      if (in->flag && count >= in->b && *pos == m->slots[in->a + 1]) return false;
      if (!pattern_set_slot(m, in->a, count + 1)) return false;
      *pc = in->c;
      return true;
    case OP_LOOK: return pattern_push(m, ENTRY_LOOK, in->a, *pos, in->flag) && pattern_advance(pc);
    case OP_LOOK_END:
      if (in->flag) return pattern_undo_look(m), false;
      *pos = pattern_close_look(m);
      return pattern_advance(pc);
    default: /* OP_MATCH */
      m->failure = PATTERN_MATCH;
      return false;
  }
}

/* Match from `start`: PATTERN_MATCH, PATTERN_NO_MATCH, or the limit or
 * memory that stopped it. */
static pattern_result pattern_run(machine *m, size_t start) {
  uint32_t pc = 0;
  size_t pos = start;
  m->top = 0;
  for (;;) {
    if (unlikely(!m->steps_left--)) return PATTERN_LIMIT;
    if (pattern_step(m, &pc, &pos)) continue;
    if (m->failure != PATTERN_NO_MATCH) return m->failure;
    if (pattern_backtrack(m, &pc, &pos) == PATTERN_NO_MATCH) return PATTERN_NO_MATCH;
  }
}

/* May a match start at `at`?  Not inside a surrogate pair with `u`, nor
 * on a character no match starts with, nor without the prefix every match
 * starts with. */
static bool pattern_may_start(const regex_program *p, const uint16_t *s, size_t n, size_t at) {
  if (p->unicode && at > 0 && at < n && pattern_is_low(s[at]) && pattern_is_high(s[at - 1])) return false;
  if (p->nullable) return true;
  if (at == n) return false;
  if (!(s[at] < 128 ? p->first[s[at] / 32] >> (s[at] % 32) & 1 : p->first_non_ascii)) return false;
  return !p->prefix_length ||
         (n - at >= p->prefix_length && memcmp(s + at, p->prefix, p->prefix_length * sizeof *s) == 0);
}

static pattern_result regex_match(pattern_matcher *pm, const regex_program *p, const uint16_t *s, size_t n,
                                  size_t bytes, uint64_t steps) {
  backtrack_entry first_block[ENTRIES_HERE];
  size_t slots_here[SLOTS_HERE];
  size_t most_kib = PATTERN_HEAP_FIXED_KIB + ((uint64_t)bytes * PATTERN_HEAP_PER_BYTE + 1023) / 1024;
  machine m = {.program = p, .s = s, .n = n, .unicode = p->unicode, .slots = slots_here, .stack = first_block,
               .capacity = ENTRIES_HERE, .first_block = first_block, .matcher = pm,
               .steps_left = steps, .failure = PATTERN_NO_MATCH,
               .most_bytes = (most_kib < PATTERN_HEAP_LIMIT_KIB ? most_kib : PATTERN_HEAP_LIMIT_KIB) * 1024};
  if (p->slots > SLOTS_HERE) {
    if (pm->slot_capacity < p->slots) {
      size_t *grown = mem_realloc(pm->allocator, pm->slots, p->slots * sizeof *grown);
      if (!grown) return PATTERN_NOMEM;
      pm->slots = grown;
      pm->slot_capacity = p->slots;
    }
    m.slots = pm->slots;
  }
  for (uint32_t i = 0; i < p->slots; i++) m.slots[i] = UNSET;
  for (size_t start = 0; start <= n; start++) {
    if (!pattern_may_start(p, s, n, start)) continue;
    pattern_result r = pattern_run(&m, start);
    if (r != PATTERN_NO_MATCH || p->anchored) return r;
    m.stack = first_block;
    m.capacity = ENTRIES_HERE;
  }
  return PATTERN_NO_MATCH;
}

/* ---- patterns -------------------------------------------------------------- */

/* `^[a-z0-9.-]+$`: one class of ASCII members repeated over the whole
 * string, the commonest pattern in schemas.  It matches exactly when every
 * character is a member and their count is within the quantifier's bounds,
 * which a table answers in a few instructions a character where the matcher's
 * setup and the string's widening to UTF-16 cost far more. */
typedef struct class_run {
  bool member[256];      /* by a string's byte: false from 0x80 up, as no member is there */
  uint64_t fewest, most;
} class_run;

struct pattern {
  regex_program program;
  pattern_engine *engine;
  class_run *run; /* NULL unless the pattern is one */
  regex_dfa dfa; /* for strings of ASCII bytes, when the program has one */
  pattern *next; /* the engine's chain of its hash */
  uint32_t hash, refs;
  size_t bytes; /* what compiling it took of the engine's memory, if measured */
  size_t length;
  char source[]; /* as pattern_compile was given it, for the next to find */
};

/* A table of patterns by source, so that a source is compiled once for
 * every schema compiled into the engine. */
struct pattern_engine {
  const shorn_allocator *allocator;
  const size_t *live_bytes; /* what the allocator holds, kept by it; NULL when not measured */
  pattern **buckets;
  uint32_t bucket_count, count;
};

void pattern_engine_measure(pattern_engine *e, const size_t *live_bytes) { e->live_bytes = live_bytes; }

size_t pattern_bytes(const pattern *p) { return p->bytes; }

uint32_t pattern_engine_count(const pattern_engine *e) { return e ? e->count : 0; }

pattern_engine *pattern_engine_new(const shorn_allocator *allocator) {
  pattern_engine *e = mem_calloc(allocator, 1, sizeof *e);
  if (e) e->allocator = allocator;
  return e;
}

static void pattern_free(pattern_engine *e, pattern *p) {
  regex_program_free(e->allocator, &p->program);
  regex_dfa_free(e->allocator, &p->dfa);
  mem_free(e->allocator, p->run);
  mem_free(e->allocator, p);
}

void pattern_engine_free(pattern_engine *e) {
  if (!e) return;
  for (uint32_t i = 0; i < e->bucket_count; i++)
    for (pattern *p = e->buckets[i], *next; p; p = next) {
      next = p->next;
      pattern_free(e, p);
    }
  mem_free(e->allocator, e->buckets);
  mem_free(e->allocator, e);
}

/* An engine without patterns holds no table: what it holds is then what
 * it held before its first. */
static void pattern_table_drop_if_empty(pattern_engine *e) {
  if (e->count) return;
  mem_free(e->allocator, e->buckets);
  e->buckets = NULL;
  e->bucket_count = 0;
}

void pattern_release(const pattern *compiled) {
  pattern *p = (pattern *)compiled;
  if (--p->refs) return;
  pattern_engine *e = p->engine;
  pattern **link = &e->buckets[p->hash & (e->bucket_count - 1)];
  while (*link != p) link = &(*link)->next;
  *link = p->next;
  pattern_free(e, p);
  e->count--;
  pattern_table_drop_if_empty(e);
}

static pattern *pattern_find(const pattern_engine *e, const char *source, size_t n, uint32_t hash) {
  pattern *p = e->bucket_count ? e->buckets[hash & (e->bucket_count - 1)] : NULL;
  while (p && !(p->hash == hash && p->length == n && memcmp(p->source, source, n) == 0)) p = p->next;
  return p;
}

/* Room for one more pattern: twice the buckets when they are all taken. */
static bool pattern_table_reserve(pattern_engine *e) {
  if (e->count < e->bucket_count) return true;
  uint32_t count = e->bucket_count ? 2 * e->bucket_count : 16;
  pattern **buckets = mem_calloc(e->allocator, count, sizeof *buckets);
  if (!buckets) return false;
  for (uint32_t i = 0; i < e->bucket_count; i++)
    for (pattern *p = e->buckets[i], *next; p; p = next) {
      next = p->next;
      p->next = buckets[p->hash & (count - 1)];
      buckets[p->hash & (count - 1)] = p;
    }
  mem_free(e->allocator, e->buckets);
  e->buckets = buckets;
  e->bucket_count = count;
  return true;
}

/* Does the pattern use \p, \P or \u{, which only the `u` flag gives a
 * meaning? */
static bool wants_unicode(const uint16_t *s, size_t n) {
  for (size_t i = 0; i + 1 < n; i++) {
    if (s[i] != '\\') continue;
    if (s[i + 1] == 'p' || s[i + 1] == 'P' || (s[i + 1] == 'u' && i + 2 < n && s[i + 2] == '{')) return true;
    i++;
  }
  return false;
}

/* A run's bounds up to this are read; a larger one leaves the pattern to
 * the matcher. */
#define RUN_COUNT_MAX 65535


/* ---- a run of one class ---------------------------------------------------- */

/* One member of a class written plainly: an ASCII character, an escaped
 * punctuation mark, \d or \w (ASCII alone, with or without `u`).  False
 * for anything else, which leaves the pattern to the matcher. */
static bool read_run_atom(const uint16_t *s, size_t n, size_t *at, bool member[256], int *single) {
  *single = -1;
  if (*at >= n || s[*at] >= 0x80 || s[*at] == ']') return false;
  uint16_t c = s[(*at)++];
  if (c != '\\') {
    *single = c;
    return true;
  }
  if (*at >= n) return false;
  uint16_t d = s[(*at)++];
  if (d == 'd' || d == 'w') {
    for (int x = 0; x < 128; x++)
      if (is_digit((uint32_t)x) || (d == 'w' && (is_letter((uint32_t)x) || x == '_')))
        member[x] = true;
    return true;
  }
  if (d >= 0x80 || d <= ' ' || is_letter(d) || is_digit(d)) return false;
  *single = d;
  return true;
}

static bool read_run_count(const uint16_t *s, size_t n, size_t *at, uint64_t *count) {
  size_t from = *at;
  for (*count = 0; *at < n && is_digit(s[*at]) && *count <= RUN_COUNT_MAX; (*at)++)
    *count = *count * 10 + (s[*at] - '0');
  return *at > from && *count <= RUN_COUNT_MAX;
}

/* Is the pattern (which has compiled, so JavaScript reads it) `^`, a
 * class of plainly written ASCII members, a greedy quantifier or none, and
 * `$`? */
static bool read_class_run(const uint16_t *s, size_t n, class_run *run) {
  size_t at = 2;
  if (n < 5 || s[0] != '^' || s[1] != '[' || s[2] == '^' || s[2] == ']') return false;
  *run = (class_run){0};
  while (at < n && s[at] != ']') {
    int from, to;
    if (!read_run_atom(s, n, &at, run->member, &from)) return false;
    to = from;
    if (at + 1 < n && s[at] == '-' && s[at + 1] != ']') {
      at++;
      if (from < 0 || !read_run_atom(s, n, &at, run->member, &to) || to < from) return false;
    }
    for (int c = from; c >= 0 && c <= to; c++) run->member[c] = true;
  }
  if (++at >= n) return false;
  run->fewest = run->most = 1;
  if (s[at] == '+' || s[at] == '*' || s[at] == '?') {
    run->fewest = s[at] == '+';
    run->most = s[at] == '?' ? 1 : UINT64_MAX;
    at++;
  } else if (s[at] == '{') {
    at++;
    if (!read_run_count(s, n, &at, &run->fewest)) return false;
    run->most = run->fewest;
    if (at < n && s[at] == ',') {
      at++;
      run->most = UINT64_MAX;
      if (at < n && s[at] != '}' && !read_run_count(s, n, &at, &run->most)) return false;
    }
    if (at >= n || s[at++] != '}' || run->most < run->fewest) return false;
  }
  return at + 1 == n && s[at] == '$';
}

static pattern_result match_class_run(const class_run *run, const char *s, size_t n) {
  if (n < run->fewest || n > run->most) return PATTERN_NO_MATCH;
  for (size_t i = 0; i < n; i++)
    if (!run->member[(unsigned char)s[i]]) return PATTERN_NO_MATCH;
  return PATTERN_MATCH;
}

/* ---- compiling and matching ------------------------------------------------ */

/* The pattern read as `new RegExp(source)` reads it; with `u` when it
 * wants it, or when the plain reading fails and that one succeeds (a class
 * range between two astral characters was written for `u` too), the plain
 * reading's error otherwise. */
static shorn_code pattern_read_pattern(const shorn_allocator *a, const uint16_t *src, size_t n, regex_program *out,
                               const char **error) {
  bool unicode = wants_unicode(src, n);
  shorn_code rc = regex_compile(a, src, n, unicode, out, error);
  if (rc != SHORN_ERROR_SCHEMA || unicode) return rc;
  const char *plain_error = *error;
  rc = regex_compile(a, src, n, true, out, error);
  if (rc == SHORN_ERROR_SCHEMA) *error = plain_error;
  return rc;
}

/* The pattern's run of one class, kept apart (its table is most of a
 * pattern's size) when it is one. */
static shorn_code pattern_find_run(pattern_engine *e, pattern *p, const uint16_t *src, size_t units) {
  class_run run;
  if (!read_class_run(src, units, &run)) return SHORN_OK;
  if (!(p->run = mem_alloc(e->allocator, sizeof run))) return SHORN_ERROR_NOMEM;
  *p->run = run;
  return SHORN_OK;
}

shorn_code pattern_compile(pattern_engine *e, const char *source, size_t n, const pattern **out, char *why,
                           size_t cap) {
  uint32_t hash = fnv1a32(source, n);
  pattern *p = pattern_find(e, source, n, hash);
  if (p) {
    p->refs++;
    *out = p;
    return SHORN_OK;
  }
  if (!pattern_table_reserve(e)) return SHORN_ERROR_NOMEM;
  size_t before = e->live_bytes ? *e->live_bytes : 0;
  uint16_t *src = mem_alloc(e->allocator, n ? n * sizeof *src : 1);
  if (!src) return pattern_table_drop_if_empty(e), SHORN_ERROR_NOMEM;
  size_t units = wtf8_to_utf16(source, n, src);
  p = units > PATTERN_MAX_UNITS ? NULL : mem_calloc(e->allocator, 1, sizeof *p + n);
  const char *error = "the pattern is too long";
  shorn_code rc = units > PATTERN_MAX_UNITS ? SHORN_ERROR_SCHEMA
                  : !p                      ? SHORN_ERROR_NOMEM
                                            : pattern_read_pattern(e->allocator, src, units, &p->program, &error);
  if (rc == SHORN_OK && (rc = pattern_find_run(e, p, src, units)) == SHORN_OK && !p->run)
    rc = regex_dfa_build(e->allocator, &p->program, &p->dfa);
  mem_free(e->allocator, src);
  if (rc != SHORN_OK && p) {
    regex_program_free(e->allocator, &p->program);
    mem_free(e->allocator, p->run);
  }
  if (rc == SHORN_OK) {
    p->engine = e;
    p->hash = hash;
    p->refs = 1;
    p->bytes = e->live_bytes ? *e->live_bytes - before : 0;
    p->length = n;
    memcpy(p->source, source, n);
    p->next = e->buckets[hash & (e->bucket_count - 1)];
    e->buckets[hash & (e->bucket_count - 1)] = p;
    e->count++;
    *out = p;
  } else {
    mem_free(e->allocator, p);
    pattern_table_drop_if_empty(e);
    if (rc == SHORN_ERROR_SCHEMA) snprintf(why, cap, "%s", error);
  }
  return rc;
}

/* A string this short is matched from the C stack. */
#define UNITS_HERE 256

/* The backtracker's steps for a string of a pattern the lazy DFA matches,
 * before the lazy DFA is asked: a fixed part and so many a byte. */
#define PATTERN_TRIAL_STEPS_FIXED 1024
#define PATTERN_TRIAL_STEPS_PER_BYTE 32

static pattern_result pattern_backtrack_within(pattern_matcher *m, const pattern *p, const char *s, size_t n,
                                               bool lone_surrogate, uint64_t steps);

bool pattern_has_dfa(const pattern *p) { return p->dfa.next != NULL; }

bool pattern_has_lazy_dfa(const pattern *p) { return p->dfa.next == NULL && p->dfa.lazy; }

static pattern_result pattern_lazy_result(regex_dfa_answer a) {
  return a == REGEX_DFA_MATCH ? PATTERN_MATCH : a == REGEX_DFA_NO_MATCH ? PATTERN_NO_MATCH
                               : a == REGEX_DFA_NOMEM  ? PATTERN_NOMEM
                                                       : PATTERN_LIMIT;
}

pattern_result pattern_test_lazy(pattern_matcher *m, const pattern *p, const char *s, size_t n) {
  m->engine = p->engine;
  regex_dfa_answer a = regex_lazy_match(&m->lazy, m->allocator, &p->program, &p->dfa, s, n, m->lazy_states);
  m->lazy_flushes = regex_lazy_flushes(m->lazy);
  return pattern_lazy_result(a);
}

pattern_result pattern_test(pattern_matcher *m, const pattern *p, const char *s, size_t n, bool lone_surrogate) {
  if (p->program.unicode && lone_surrogate) return PATTERN_MATCH;
  if (p->run) return match_class_run(p->run, s, n);
  if (pattern_has_dfa(p)) {
    regex_dfa_answer a = regex_dfa_match(&p->dfa, s, n);
    if (a != REGEX_DFA_NOT_ASCII) return a == REGEX_DFA_MATCH ? PATTERN_MATCH : PATTERN_NO_MATCH;
  } else if (pattern_has_lazy_dfa(p)) {
    /* The backtracker answers most strings, short ones above all, within
     * a few steps a character, faster than the lazy DFA builds their
     * states: it is tried first, on such a budget, so that only the
     * strings that would take it longer cost it that much more.  A byte
     * past ASCII, or a match past the lazy DFA's work, goes to the
     * backtracker with all its steps, which answers or reaches its
     * limits.  Each answers by the pattern and string alone. */
    uint64_t trial = PATTERN_TRIAL_STEPS_FIXED + (uint64_t)n * PATTERN_TRIAL_STEPS_PER_BYTE;
    if (trial > PATTERN_MATCH_LIMIT) trial = PATTERN_MATCH_LIMIT;
    pattern_result r = pattern_backtrack_within(m, p, s, n, lone_surrogate, trial);
    if (r != PATTERN_LIMIT) return r;
    if ((r = pattern_test_lazy(m, p, s, n)) != PATTERN_LIMIT) return r;
  }
  return pattern_test_backtracking(m, p, s, n, lone_surrogate);
}

pattern_result pattern_test_backtracking(pattern_matcher *m, const pattern *p, const char *s, size_t n,
                                         bool lone_surrogate) {
  return pattern_backtrack_within(m, p, s, n, lone_surrogate, PATTERN_MATCH_LIMIT);
}

static pattern_result pattern_backtrack_within(pattern_matcher *m, const pattern *p, const char *s, size_t n,
                                               bool lone_surrogate, uint64_t steps) {
  if (p->program.unicode && lone_surrogate) return PATTERN_MATCH;
  m->engine = p->engine;
  uint16_t here[UNITS_HERE], *units = here;
  if (n > UNITS_HERE) {
    if (m->capacity < n) {
      uint16_t *grown = mem_realloc(m->allocator, m->units, n * sizeof *grown);
      if (!grown) return PATTERN_NOMEM;
      m->units = grown;
      m->capacity = n;
    }
    units = m->units;
  }
  return regex_match(m, &p->program, units, wtf8_to_utf16(s, n, units), n, steps);
}

void pattern_matcher_release(pattern_matcher *m) {
  if (!m->engine) return;
  mem_free(m->allocator, m->units);
  mem_free(m->allocator, m->stack);
  mem_free(m->allocator, m->slots);
  regex_lazy_free(m->lazy);
  *m = (pattern_matcher){.allocator = m->allocator, .lazy_states = m->lazy_states, .lazy_flushes = m->lazy_flushes};
}
