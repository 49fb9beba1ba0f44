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

#include "internal.h"

typedef struct parser {
  arena *arena;
  const uint8_t *start, *p, *end;
  json_value *stack; /* finished values whose container is still open */
  size_t depth_of_stack, stack_cap;
  shorn_error *error;
} parser;

typedef struct open_container {
  size_t first; /* index in the value stack of its first child */
  uint8_t type;
} open_container;

static shorn_code fail(parser *ps, const uint8_t *at, const char *what) {
  return error_at_offset(ps->error, SHORN_ERROR_JSON, (size_t)(at - ps->start), "Invalid JSON: %s",
                         what);
}

static shorn_code unexpected(parser *ps) {
  if (ps->p >= ps->end) return fail(ps, ps->p, "unexpected end of text");
  uint8_t c = *ps->p;
  char what[48];
  if (c >= 0x21 && c < 0x7F)
    snprintf(what, sizeof what, "unexpected character '%c'", c);
  else
    snprintf(what, sizeof what, "unexpected byte 0x%02x", c);
  return fail(ps, ps->p, what);
}

static inline void skip_space(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
    ps->p++;
}

static bool push(parser *ps, json_value v) {
  if (ps->depth_of_stack == ps->stack_cap) {
    size_t cap = ps->stack_cap ? ps->stack_cap * 2 : 64;
    json_value *s = mem_realloc(ps->stack, cap * sizeof *s);
    if (!s) return false;
    ps->stack = s;
    ps->stack_cap = cap;
  }
  ps->stack[ps->depth_of_stack++] = v;
  return true;
}

static int hex_value(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static int read_hex4(const uint8_t *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hex_value(p[i]);
    if (h < 0) return -1;
    v = v << 4 | h;
  }
  return v;
}

static uint8_t *put_code_point(uint8_t *o, uint32_t c) {
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

/* Rewrite the escapes of a string body into the arena.  The body was already
 * checked, and no escape is longer decoded than written, so n bytes suffice. */
static shorn_code unescape(parser *ps, const uint8_t *s, size_t n, json_value *v) {
  uint8_t *out = arena_alloc(ps->arena, n + 1), *o = out;
  if (!out) return error_nomem(ps->error);
  const uint8_t *end = s + n;
  while (s < end) {
    if (*s != '\\') {
      *o++ = *s++;
      continue;
    }
    uint8_t c = s[1];
    s += 2;
    switch (c) {
      case 'b': *o++ = '\b'; break;
      case 'f': *o++ = '\f'; break;
      case 'n': *o++ = '\n'; break;
      case 'r': *o++ = '\r'; break;
      case 't': *o++ = '\t'; break;
      case 'u': {
        uint32_t u = (uint32_t)read_hex4(s);
        s += 4;
        if (u >= 0xD800 && u < 0xDC00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
          int low = read_hex4(s + 2);
          if (low >= 0xDC00 && low < 0xE000) {
            u = 0x10000 + ((u - 0xD800) << 10) + (uint32_t)(low - 0xDC00);
            s += 6;
          }
        }
        if (u >= 0xD800 && u < 0xE000) v->flags |= JSON_LONE_SURROGATE;
        o = put_code_point(o, u);
        break;
      }
      default: *o++ = c; /* '"', '\\' and '/' stand for themselves */
    }
  }
  *o = 0;
  v->u.string = (const char *)out;
  v->length = (uint32_t)(o - out);
  return SHORN_OK;
}

static shorn_code parse_string(parser *ps, json_value *v) {
  const uint8_t *body = ++ps->p, *p = body;
  bool escaped = false, high = false;
  for (;;) {
    while (p < ps->end && *p != '"' && *p != '\\' && *p >= 0x20) {
      high |= *p >= 0x80;
      p++;
    }
    if (p >= ps->end) return fail(ps, body - 1, "unterminated string");
    if (*p == '"') break;
    if (*p < 0x20) return fail(ps, p, "control character in string");
    escaped = true;
    if (ps->end - p < 2) return fail(ps, body - 1, "unterminated string");
    switch (p[1]) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        p += 2;
        break;
      case 'u':
        if (ps->end - p < 6 || read_hex4(p + 2) < 0) return fail(ps, p, "invalid \\u escape");
        p += 6;
        break;
      default:
        return fail(ps, p, "invalid escape");
    }
  }
  size_t n = (size_t)(p - body);
  if (n > UINT32_MAX) return fail(ps, body - 1, "string too long");
  if (high && !utf8_valid(body, n)) return fail(ps, body - 1, "invalid UTF-8 in string");
  ps->p = p + 1;
  v->type = JSON_STRING;
  v->flags = 0;
  if (!escaped) {
    v->u.string = (const char *)body;
    v->length = (uint32_t)n;
    return SHORN_OK;
  }
  return unescape(ps, body, n, v);
}

static inline bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static shorn_code parse_number(parser *ps, json_value *v) {
  const uint8_t *s = ps->p, *p = s, *e = ps->end;
  if (p < e && *p == '-') p++;
  if (p >= e || !is_digit(*p)) return fail(ps, s, "invalid number");
  if (*p == '0') {
    p++;
    if (p < e && is_digit(*p)) return fail(ps, s, "leading zero in number");
  } else {
    while (p < e && is_digit(*p)) p++;
  }
  if (p < e && *p == '.') {
    p++;
    if (p >= e || !is_digit(*p)) return fail(ps, s, "digit expected after '.'");
    while (p < e && is_digit(*p)) p++;
  }
  if (p < e && (*p | 0x20) == 'e') {
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || !is_digit(*p)) return fail(ps, s, "digit expected in exponent");
    while (p < e && is_digit(*p)) p++;
  }
  v->type = JSON_NUMBER;
  v->flags = 0;
  v->length = 0;
  v->u.number = number_parse((const char *)s, (size_t)(p - s));
  ps->p = p;
  return SHORN_OK;
}

static shorn_code parse_word(parser *ps, const char *word, size_t n, json_type type, json_value *v) {
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) return unexpected(ps);
  ps->p += n;
  v->type = (uint8_t)type;
  v->flags = 0;
  v->length = 0;
  v->u.items = NULL;
  return SHORN_OK;
}

/* Move a closed container's children from the value stack into the arena. */
static shorn_code close_container(parser *ps, const open_container *c, const uint8_t *at) {
  size_t n = ps->depth_of_stack - c->first;
  size_t count = c->type == JSON_OBJECT ? n / 2 : n;
  if (count > UINT32_MAX) return fail(ps, at, "container too large");
  json_value v = {.type = c->type, .length = (uint32_t)count};
  if (n) {
    json_value *items = arena_alloc(ps->arena, n * sizeof *items);
    if (!items) return error_nomem(ps->error);
    memcpy(items, ps->stack + c->first, n * sizeof *items);
    v.u.items = items;
  }
  ps->depth_of_stack = c->first;
  if (!push(ps, v)) return error_nomem(ps->error);
  return SHORN_OK;
}

static shorn_code parse_scalar(parser *ps) {
  json_value v;
  shorn_code rc;
  switch (*ps->p) {
    case '"': rc = parse_string(ps, &v); break;
    case 't': rc = parse_word(ps, "true", 4, JSON_TRUE, &v); break;
    case 'f': rc = parse_word(ps, "false", 5, JSON_FALSE, &v); break;
    case 'n': rc = parse_word(ps, "null", 4, JSON_NULL, &v); break;
    default:
      if (*ps->p == '-' || is_digit(*ps->p)) {
        rc = parse_number(ps, &v);
        break;
      }
      return unexpected(ps);
  }
  if (rc != SHORN_OK) return rc;
  if (!push(ps, v)) return error_nomem(ps->error);
  return SHORN_OK;
}

static shorn_code parse(parser *ps, json_value **out) {
  open_container *open = NULL;
  size_t depth = 0, open_cap = 0;
  shorn_code rc = SHORN_OK;

  /* Each pass of the loop reads one value, or opens a container and reads
   * its first member's key; `after` handles what may follow a value. */
  for (;;) {
    skip_space(ps);
    if (ps->p >= ps->end) {
      rc = unexpected(ps);
      goto done;
    }
    uint8_t c = *ps->p;
    if (c == '[' || c == '{') {
      if (depth == JSON_MAX_DEPTH) {
        rc = fail(ps, ps->p, "nesting deeper than 10000");
        goto done;
      }
      if (depth == open_cap) {
        size_t cap = open_cap ? open_cap * 2 : 16;
        open_container *o = mem_realloc(open, cap * sizeof *o);
        if (!o) {
          rc = error_nomem(ps->error);
          goto done;
        }
        open = o;
        open_cap = cap;
      }
      open[depth].first = ps->depth_of_stack;
      open[depth].type = c == '[' ? JSON_ARRAY : JSON_OBJECT;
      depth++;
      ps->p++;
      skip_space(ps);
      if (ps->p < ps->end && *ps->p == (c == '[' ? ']' : '}')) {
        ps->p++;
        depth--;
        if ((rc = close_container(ps, &open[depth], ps->p - 1)) != SHORN_OK) goto done;
        goto after;
      }
      if (c == '[') continue;
      goto key;
    }
    if ((rc = parse_scalar(ps)) != SHORN_OK) goto done;

  after:
    for (;;) {
      if (depth == 0) goto done;
      open_container *top = &open[depth - 1];
      skip_space(ps);
      if (ps->p >= ps->end) {
        rc = unexpected(ps);
        goto done;
      }
      uint8_t next = *ps->p;
      if (next == ',') {
        ps->p++;
        if (top->type == JSON_ARRAY) break;
        goto key;
      }
      if (next == (top->type == JSON_ARRAY ? ']' : '}')) {
        ps->p++;
        depth--;
        if ((rc = close_container(ps, top, ps->p - 1)) != SHORN_OK) goto done;
        continue;
      }
      rc = unexpected(ps);
      goto done;
    }
    continue;

  key:
    skip_space(ps);
    if (ps->p >= ps->end || *ps->p != '"') {
      rc = ps->p < ps->end ? fail(ps, ps->p, "object key expected") : unexpected(ps);
      goto done;
    }
    if ((rc = parse_scalar(ps)) != SHORN_OK) goto done;
    skip_space(ps);
    if (ps->p >= ps->end || *ps->p != ':') {
      rc = ps->p < ps->end ? fail(ps, ps->p, "':' expected after object key") : unexpected(ps);
      goto done;
    }
    ps->p++;
  }

done:
  mem_free(open);
  if (rc != SHORN_OK) return rc;
  skip_space(ps);
  if (ps->p < ps->end) return fail(ps, ps->p, "text after the value");
  json_value *root = arena_alloc(ps->arena, sizeof *root);
  if (!root) return error_nomem(ps->error);
  *root = ps->stack[0];
  *out = root;
  return SHORN_OK;
}

shorn_code json_parse(arena *a, const char *text, size_t length, json_value **out,
                      shorn_error *error) {
  parser ps = {.arena = a,
               .start = (const uint8_t *)text,
               .p = (const uint8_t *)text,
               .end = (const uint8_t *)text + length,
               .error = error};
  shorn_code rc = parse(&ps, out);
  mem_free(ps.stack);
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
