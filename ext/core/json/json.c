/*
 * json.c — a strict RFC 8259 parser that reads JSON text as JavaScript's
 * JSON.parse does: numbers become doubles (-0 kept), a "\ud800" escape makes a
 * lone surrogate, repeated keys are kept in order so the last one wins.
 *
 * It does not recurse, so hostile nesting costs heap, not stack: containers
 * collect their children on one value stack and move them into the arena
 * when they close.
 */
#include <stdio.h>

#include "json.h"

#include "core/text/error.h"
#include "core/numbers/number.h"
#include "token.h"
#include "core/text/simd.h"
#include "core/text/text.h"

/* The first storage of the parser's stacks, on the C stack: enough for
 * most records without an allocation. */
#define STACK_HERE 64
#define OPEN_HERE 16

typedef struct parser {
  arena *arena; /* the DOM's; its allocator is the stacks' too */
  const uint8_t *start, *end;
  json_value *stack; /* finished values whose container is still open */
  size_t depth_of_stack, stack_cap;
  json_value *stack_here; /* the stack's first storage */
  shorn_error *error;
  const char *refusal; /* what an error's message starts with */
} parser;

typedef struct open_container {
  size_t first; /* index in the value stack of its first child */
  uint8_t type;
} open_container;

/* Each step takes the position and returns the new one, or NULL once it
 * has failed with the error set. */

static const uint8_t *json_parse_fail(parser *ps, const uint8_t *at, const char *what) {
  error_at_offset(ps->error, SHORN_ERROR_JSON, (size_t)(at - ps->start), "%s: %s", ps->refusal, what);
  return NULL;
}

static const uint8_t *json_nomem(parser *ps) {
  error_nomem(ps->error);
  return NULL;
}

static const uint8_t *json_unexpected(parser *ps, const uint8_t *p) {
  if (p >= ps->end) return json_parse_fail(ps, p, "unexpected end of text");
  char what[48];
  if (*p >= 0x21 && *p < 0x7F)
    snprintf(what, sizeof what, "unexpected character '%c'", *p);
  else
    snprintf(what, sizeof what, "unexpected byte 0x%02x", *p);
  return json_parse_fail(ps, p, what);
}


/* Room for one more value on the stack: the slot a value is parsed into,
 * and kept by bumping depth_of_stack.  NULL when memory ran out. */
static inline json_value *json_next_slot(parser *ps) {
  if (ps->depth_of_stack == ps->stack_cap) {
    json_value *s = array_grow(ps->arena->allocator, ps->stack, &ps->stack_cap, ps->stack_cap + 1,
                               sizeof *s, ps->stack_here);
    if (!s) return NULL;
    ps->stack = s;
  }
  return &ps->stack[ps->depth_of_stack];
}

/* Write a code point as UTF-8 (a surrogate as its three WTF-8 bytes) and
 * return the end. */
static uint8_t *json_put_code_point(uint8_t *o, uint32_t c) {
  if (c < 0x80) {
    *o++ = (uint8_t)c;
  } else if (c < 0x800) {
    *o++ = (uint8_t)(0xC0 | c >> 6);
    *o++ = (uint8_t)(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *o++ = (uint8_t)(0xE0 | c >> 12);
    *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    *o++ = (uint8_t)(0x80 | (c & 0x3F));
  } else {
    *o++ = (uint8_t)(0xF0 | c >> 18);
    *o++ = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    *o++ = (uint8_t)(0x80 | (c & 0x3F));
  }
  return o;
}

/* The byte each two-byte escape stands for, by the byte after its
 * backslash: a load where a switch would cost a jump an escape. */
static const uint8_t json_unescaped_bytes[128] = {
    ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t',
};

/* The offset of the first backslash of s[0..n), or n, its bytes before it
 * copied to o: the tail of a string, fewer than sixteen bytes (without
 * SSE2, all of it), a word and then a byte at a time. */
static inline size_t json_copy_tail(uint8_t *o, const uint8_t *s, size_t n) {
  size_t i = 0;
  for (; n - i >= 8; i += 8) {
    uint64_t w = load_le64(s + i), hits = lanes_equal(w, '\\');
    store_le64(o + i, w);
    if (hits) return i + first_lane(hits);
  }
  for (; i < n && s[i] != '\\'; i++) o[i] = s[i];
  return i;
}

/* The escapes are found sixteen bytes at a time, each block stored whole
 * and the next read from just after an escape, so that escape-dense prose
 * stays in the one loop; a block is stored only where sixteen bytes remain
 * to be read, and the output is never ahead of the input, so o needs no
 * more room than n.  A block with no backslash goes on four at a time, as
 * a long run between escapes is likely to go on. */
uint8_t *json_unescape(uint8_t *o, const uint8_t *s, size_t n, bool stop_at_nul,
                       bool *lone_surrogate) {
  const uint8_t *end = s + n;
  for (;;) {
    size_t at;
#if defined(__SSE2__)
    const __m128i backslash = _mm_set1_epi8('\\');
    if (end - s >= 16) {
      __m128i v = _mm_loadu_si128((const __m128i *)s);
      _mm_storeu_si128((__m128i *)o, v);
      unsigned hits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash));
      if (!hits) {
        s += 16, o += 16;
        while (end - s >= 64) {
          __m128i w[4], hit;
          SHORN_UNROLL(4)
          for (int k = 0; k < 4; k++) {
            w[k] = _mm_loadu_si128((const __m128i *)(s + 16 * k));
            _mm_storeu_si128((__m128i *)(o + 16 * k), w[k]);
          }
          hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w[0], backslash), _mm_cmpeq_epi8(w[1], backslash)),
                             _mm_or_si128(_mm_cmpeq_epi8(w[2], backslash), _mm_cmpeq_epi8(w[3], backslash)));
          if (_mm_movemask_epi8(hit)) break;
          s += 64, o += 64;
        }
        continue;
      }
      at = (size_t)__builtin_ctz(hits);
    } else
#endif
    {
      at = json_copy_tail(o, s, (size_t)(end - s));
      if (s + at == end) return o + at;
    }
    o += at;
    s += at;
    uint8_t c = s[1];
    if (c != 'u') {
      *o++ = json_unescaped_bytes[c & 0x7F];
      s += 2;
      continue;
    }
    uint32_t u = (uint32_t)json_hex4(s + 2);
    s += 6;
    if (!u && stop_at_nul) return o;
    if (u >= 0xD800 && u < 0xDC00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
      int low = json_hex4(s + 2);
      if (low >= 0xDC00 && low < 0xE000) {
        u = 0x10000 + ((u - 0xD800) << 10) + (uint32_t)(low - 0xDC00);
        s += 6;
      }
    }
    if (u >= 0xD800 && u < 0xE000 && lone_surrogate) *lone_surrogate = true;
    o = json_put_code_point(o, u);
  }
}

/* Rewrite the escapes of a string body into the arena.  The body was already
 * checked, and no escape is longer decoded than written, so n bytes suffice. */
static bool json_unescape_value(parser *ps, const uint8_t *s, size_t n, json_value *v) {
  uint8_t *out = arena_alloc(ps->arena, n + 1);
  if (!out) return false;
  bool lone_surrogate = false;
  uint8_t *o = json_unescape(out, s, n, false, &lone_surrogate);
  *o = 0;
  if (lone_surrogate) v->flags |= JSON_LONE_SURROGATE;
  v->u.string = (const char *)out;
  v->length = (uint32_t)(o - out);
  return true;
}

/* A string token at p, its opening quote: its body, or NULL with t->why
 * and t->at set.  Bad UTF-8 is reported once the string's end is found, so
 * that the string's other faults come first. */
const uint8_t *json_any_string_token(const uint8_t *p, const uint8_t *end, json_string_token *t) {
  const uint8_t *body = ++p;
  bool bad_utf8 = false;
  t->escaped = false;
  p += simd()->string_end(body, (size_t)(end - body), &t->escaped, &bad_utf8);
  t->at = p;
  if (p >= end) return t->at = body - 1, t->why = "unterminated string", NULL;
  if (*p < 0x20) return t->why = "control character in string", NULL;
  if (*p == '\\') {
    if (end - p < 2) return t->at = body - 1, t->why = "unterminated string", NULL;
    return t->why = p[1] == 'u' ? "invalid \\u escape" : "invalid escape", NULL;
  }
  t->at = body - 1;
  if ((size_t)(p - body) > UINT32_MAX) return t->why = "string too long", NULL;
  if (bad_utf8) return t->why = "invalid UTF-8 in string", NULL;
  t->body = body;
  t->length = (uint32_t)(p - body);
  return p + 1;
}

/* A string into v; p is at its opening quote. */
static ALWAYS_INLINE const uint8_t *json_parse_string(parser *ps, const uint8_t *p, json_value *v) {
  json_string_token t;
  const uint8_t *after = json_read_string(ps->start, p, ps->end, &t);
  if (!after) return json_parse_fail(ps, t.at, t.why);
  v->type = JSON_STRING;
  v->flags = 0;
  if (!t.escaped) {
    v->u.string = (const char *)t.body;
    v->length = t.length;
  } else if (!json_unescape_value(ps, t.body, t.length, v)) {
    return json_nomem(ps);
  }
  return after;
}


/* Read the run of digits at p into *value (times ten per digit, wrapping
 * past 19 digits, where the caller no longer uses it), a word at a time
 * while eight bytes can be read, as token.h's short_digit_run does.  The slow
 * path's long runs are mostly fractions, a double's 16 or 17 digits; its
 * integers are mostly short ones that end the text, cheaper a byte at a
 * time. */
static const uint8_t *read_digit_run(const uint8_t *p, const uint8_t *end, uint64_t *value) {
  uint64_t v = *value;
  while (end - p >= 8) {
    uint64_t t = load_le64(p) - LANES('0'), stops = digit_stops(t);
    if (!stops) {
      v = v * 100000000 + digit_word_value(t);
      p += 8;
      continue;
    }
    size_t n = first_lane(stops);
    if (n) v = v * POW10_U64[n] + digit_word_value(t << (64 - 8 * n));
    *value = v;
    return p + n;
  }
  for (; p < end && is_digit(*p); p++) v = v * 10 + (uint64_t)(*p - '0');
  *value = v;
  return p;
}

NOINLINE const uint8_t *json_number_token_slow(const uint8_t *p, const uint8_t *e, double *number,
                                              const char **why) {
  const uint8_t *s = p;
  bool negative = p < e && *p == '-';
  p += negative;
  if (p >= e || !is_digit(*p)) return *why = "invalid number", NULL;
  uint64_t digits = 0; /* wrapping past 19 digits, where it is no longer used */
  const uint8_t *first = p, *point = NULL;
  if (*p == '0') {
    p++;
    if (p < e && is_digit(*p)) return *why = "leading zero in number", NULL;
  } else {
    for (; p < e && is_digit(*p); p++) digits = digits * 10 + (uint64_t)(*p - '0');
  }
  if (p < e && *p == '.') {
    point = ++p;
    if (p >= e || !is_digit(*p)) return *why = "digit expected after '.'", NULL;
    p = read_digit_run(p, e, &digits);
  }
  ptrdiff_t digit_count = p - first - (point != NULL);
  /* The exponent, saturated far beyond any text's length. */
  int64_t exponent = point ? -(int64_t)(p - point) : 0;
  if (p < e && (*p | 0x20) == 'e') {
    p++;
    bool minus = p < e && *p == '-';
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || !is_digit(*p)) return *why = "digit expected in exponent", NULL;
    int64_t written = 0;
    for (; p < e && is_digit(*p); p++)
      if (written < INT64_C(1000000000000000)) written = written * 10 + (*p - '0');
    exponent += minus ? -written : written;
  }
  if (digit_count <= 19) {
    /* The digits are exact in 64 bits, so the fast paths need not read
     * them again. */
    *number = number_from_decimal((const char *)s, (size_t)(p - s), negative, digits, exponent);
  } else {
    *number = number_parse((const char *)s, (size_t)(p - s));
  }
  return p;
}

NOINLINE const uint8_t *json_decimal_token(const uint8_t *s, const uint8_t *p, bool negative, uint64_t man,
                                          int64_t exponent, double *number) {
  *number = number_from_decimal((const char *)s, (size_t)(p - s), negative, man, exponent);
  return p;
}

static const uint8_t *json_parse_number(parser *ps, const uint8_t *p, json_value *v) {
  const char *why;
  const uint8_t *after = json_number_token(p, ps->end, &v->u.number, &why);
  if (!after) return json_parse_fail(ps, p, why);
  v->type = JSON_NUMBER;
  v->flags = 0;
  v->length = 0;
  return after;
}

static const uint8_t *json_parse_word(parser *ps, const uint8_t *p, const char *word, size_t n, json_type type,
                                 json_value *v) {
  if ((size_t)(ps->end - p) < n || memcmp(p, word, n) != 0) return json_unexpected(ps, p);
  v->type = (uint8_t)type;
  v->flags = 0;
  v->length = 0;
  v->u.items = NULL;
  return p + n;
}

/* A scalar, parsed straight into its stack slot. */
static inline const uint8_t *json_parse_scalar(parser *ps, const uint8_t *p) {
  json_value *v = json_next_slot(ps);
  if (!v) return json_nomem(ps);
  switch (*p) {
    case '"': p = json_parse_string(ps, p, v); break;
    case 't': p = json_parse_word(ps, p, "true", 4, JSON_TRUE, v); break;
    case 'f': p = json_parse_word(ps, p, "false", 5, JSON_FALSE, v); break;
    case 'n': p = json_parse_word(ps, p, "null", 4, JSON_NULL, v); break;
    default:
      if (*p != '-' && !is_digit(*p)) return json_unexpected(ps, p);
      p = json_parse_number(ps, p, v);
  }
  if (p) ps->depth_of_stack++;
  return p;
}

/* Move a closed container's children from the value stack into the arena;
 * `at` is its closing bracket. */
static bool json_close_container(parser *ps, const open_container *c, const uint8_t *at) {
  size_t n = ps->depth_of_stack - c->first;
  size_t count = c->type == JSON_OBJECT ? n / 2 : n;
  if (count > UINT32_MAX) {
    json_parse_fail(ps, at, "container too large");
    return false;
  }
  json_value v = {.type = c->type, .length = (uint32_t)count};
  if (n) {
    json_value *items = arena_alloc(ps->arena, n * sizeof *items);
    if (!items) {
      json_nomem(ps);
      return false;
    }
    memcpy(items, ps->stack + c->first, n * sizeof *items);
    v.u.items = items;
  }
  ps->depth_of_stack = c->first;
  json_value *slot = json_next_slot(ps);
  if (!slot) {
    json_nomem(ps);
    return false;
  }
  *slot = v;
  ps->depth_of_stack++;
  return true;
}

static shorn_code json_parse_value(parser *ps, json_value **out) {
  open_container open_here[OPEN_HERE], *open = open_here;
  size_t depth = 0, open_cap = OPEN_HERE;
  const uint8_t *p = ps->start, *end = ps->end;

  /* Three states: a value is expected (the loop's top), a value has ended
   * (`after`), an object member's key is expected (`key`). */
  for (;;) {
    p = json_skip_space(p, end);
    if (p >= end) goto unexpected;
    uint8_t c = *p;
    if (c == '[' || c == '{') {
      if (depth == JSON_MAX_DEPTH) {
        json_parse_fail(ps, p, "nesting deeper than " NUMBER_TEXT(JSON_MAX_DEPTH));
        goto failed;
      }
      if (depth == open_cap) {
        open_container *o =
            array_grow(ps->arena->allocator, open, &open_cap, depth + 1, sizeof *o, open_here);
        if (!o) {
          json_nomem(ps);
          goto failed;
        }
        open = o;
      }
      open[depth].first = ps->depth_of_stack;
      open[depth].type = c == '[' ? JSON_ARRAY : JSON_OBJECT;
      depth++;
      p = json_skip_space(p + 1, end);
      if (p < end && *p == (c == '[' ? ']' : '}')) {
        depth--;
        if (!json_close_container(ps, &open[depth], p++)) goto failed;
        goto after;
      }
      if (c == '[') continue;
      goto key;
    }
    if (!(p = json_parse_scalar(ps, p))) goto failed;

  after:
    for (;;) {
      if (depth == 0) goto done;
      open_container *top = &open[depth - 1];
      p = json_skip_space(p, end);
      if (p >= end) goto unexpected;
      if (*p == ',') {
        p++;
        if (top->type == JSON_ARRAY) break;
        goto key;
      }
      if (*p != (top->type == JSON_ARRAY ? ']' : '}')) goto unexpected;
      depth--;
      if (!json_close_container(ps, top, p++)) goto failed;
    }
    continue;

  key:
    p = json_skip_space(p, end);
    if (p >= end) goto unexpected;
    if (*p != '"') {
      json_parse_fail(ps, p, "object key expected");
      goto failed;
    }
    json_value *k = json_next_slot(ps);
    if (!k) {
      json_nomem(ps);
      goto failed;
    }
    if (!(p = json_parse_string(ps, p, k))) goto failed;
    ps->depth_of_stack++;
    p = json_skip_space(p, end);
    if (p >= end) goto unexpected;
    if (*p != ':') {
      json_parse_fail(ps, p, "':' expected after object key");
      goto failed;
    }
    p++;
  }

unexpected:
  json_unexpected(ps, p);
failed:
  array_free(ps->arena->allocator, open, open_here);
  return ps->error->code;

done:
  array_free(ps->arena->allocator, open, open_here);
  p = json_skip_space(p, end);
  if (p < end) {
    json_parse_fail(ps, p, "text after the value");
    return SHORN_ERROR_JSON;
  }
  json_value *root = arena_alloc(ps->arena, sizeof *root);
  if (!root) return error_nomem(ps->error);
  *root = ps->stack[0];
  *out = root;
  return SHORN_OK;
}

shorn_code json_parse(arena *a, const char *text, size_t length, json_value **out,
                      shorn_error *error) {
  return json_parse_as(a, text, length, out, error, "Invalid JSON");
}

shorn_code json_parse_as(arena *a, const char *text, size_t length, json_value **out,
                         shorn_error *error, const char *refusal) {
  json_value stack_here[STACK_HERE];
  parser ps = {.arena = a,
               .start = (const uint8_t *)text,
               .end = (const uint8_t *)text + length,
               .stack = stack_here,
               .stack_cap = STACK_HERE,
               .stack_here = stack_here,
               .error = error,
               .refusal = refusal};
  shorn_code rc = json_parse_value(&ps, out);
  array_free(a->allocator, ps.stack, stack_here);
  return rc;
}

const json_value *json_get(const json_value *object, const char *key, size_t key_length) {
  if (!object || object->type != JSON_OBJECT) return NULL;
  for (size_t i = object->length; i-- > 0;) {
    const json_value *k = &object->u.items[2 * i];
    if (k->length == key_length && memcmp(k->u.string, key, key_length) == 0)
      return &object->u.items[2 * i + 1];
  }
  return NULL;
}
