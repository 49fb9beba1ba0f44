/*
** runtime.c — what the shorn WebAssembly module needs beyond its own code,
** when it runs inside @sqlite.org/sqlite-wasm's instance: the few C
** library functions the extension calls, and the SQLite functions that
** sqlite-wasm does not export.
**
** The module (scripts/build-wasm.sh) is position-independent: bindings/
** node/wasm.mjs places its data in memory that sqlite3_malloc gives it,
** inside sqlite-wasm's own linear memory, and its functions in sqlite-wasm's
** function table, so that SQLite calls shorn's SQL functions as it calls
** its own and both read the same values without a copy.  A C library
** linked in would bring a second allocator over the same memory, and
** Debian's wasi-libc is not built position-independent anyway: so memory
** comes from SQLite's allocator, and the rest is written here, small.
** This file is compiled with -fno-builtin so that the compiler does not
** turn these loops back into calls to themselves.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

/* sqlite-wasm's own C helper for sqlite3_vtab_config, whose C signature is
** variadic and so not exported. */
int sqlite3__wasm_vtab_config(sqlite3 *db, int op, int arg);

/* ---- memory ---------------------------------------------------------- */

/* SQLite's allocator answers NULL to a request of zero bytes, which the
** C library's callers would read as running out of memory. */
void *malloc(size_t n) { return sqlite3_malloc64(n ? n : 1); }
void *realloc(void *p, size_t n) { return sqlite3_realloc64(p, n ? n : 1); }
void free(void *p) { sqlite3_free(p); }

/* With the bulk memory feature the compiler writes these as the memory.copy
** and memory.fill instructions; the functions serve calls it still makes. */
void *memcpy(void *restrict to, const void *restrict from, size_t n) {
  __builtin_memcpy(to, from, n);
  return to;
}
void *memmove(void *to, const void *from, size_t n) {
  __builtin_memmove(to, from, n);
  return to;
}
void *memset(void *to, int c, size_t n) {
  __builtin_memset(to, c, n);
  return to;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) return x[i] - y[i];
  return 0;
}

void *memchr(const void *s, int c, size_t n) {
  const unsigned char *p = s;
  for (size_t i = 0; i < n; i++)
    if (p[i] == (unsigned char)c) return (void *)(p + i);
  return NULL;
}

size_t strlen(const char *s) {
  const char *p = s;
  while (*p) p++;
  return (size_t)(p - s);
}

int strcmp(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return (unsigned char)*a - (unsigned char)*b;
}

char *strchr(const char *s, int c) {
  for (;; s++) {
    if (*s == (char)c) return (char *)s;
    if (!*s) return NULL;
  }
}

size_t strspn(const char *s, const char *accept) {
  size_t n = 0;
  while (s[n] && strchr(accept, s[n])) n++;
  return n;
}

/* The string kernels ask for SHORN_SIMD; a page has no environment. */
char *getenv(const char *name) {
  (void)name;
  return NULL;
}

/* ---- sorting ---------------------------------------------------------- */

/* A merge sort, stable as glibc's qsort is when it has the memory, so that
** elements a comparison calls equal come out in the native build's order. */
static void runtime_merge(char *base, char *scratch, size_t lo, size_t hi, size_t size,
                          int (*compare)(const void *, const void *)) {
  if (hi - lo < 2) return;
  size_t mid = lo + (hi - lo) / 2;
  runtime_merge(base, scratch, lo, mid, size, compare);
  runtime_merge(base, scratch, mid, hi, size, compare);
  size_t i = lo, j = mid, k = 0;
  while (i < mid && j < hi) {
    if (compare(base + j * size, base + i * size) < 0) {
      memcpy(scratch + k * size, base + j * size, size);
      j++;
    } else {
      memcpy(scratch + k * size, base + i * size, size);
      i++;
    }
    k++;
  }
  memcpy(scratch + k * size, base + i * size, (mid - i) * size);
  k += mid - i;
  memcpy(base + lo * size, scratch, k * size);
}

/* Without memory for the merge, an insertion sort: also stable, slower. */
static void runtime_insertion_sort(char *base, size_t count, size_t size,
                                   int (*compare)(const void *, const void *)) {
  for (size_t i = 1; i < count; i++)
    for (size_t j = i; j > 0 && compare(base + (j - 1) * size, base + j * size) > 0; j--)
      for (size_t b = 0; b < size; b++) {
        char t = base[(j - 1) * size + b];
        base[(j - 1) * size + b] = base[j * size + b];
        base[j * size + b] = t;
      }
}

void qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *)) {
  if (count < 2) return;
  char *scratch = malloc(count * size);
  if (!scratch) {
    runtime_insertion_sort(base, count, size, compare);
    return;
  }
  runtime_merge(base, scratch, 0, count, size, compare);
  free(scratch);
}

/* ---- arithmetic ------------------------------------------------------- */

/* x times two to the n, rounded once: the steps before the last multiply
** by powers of two that keep the value normal, so they are exact. */
double ldexp(double x, int n) {
  while (n > 1023) {
    x *= 0x1p1023;
    n -= 1023;
    if (x - x != 0 || x == 0) return x;
  }
  while (n < -1022) {
    x *= 0x1p-969;
    n += 969;
    if (x == 0) return x;
  }
  union {
    double d;
    uint64_t u;
  } scale = {.u = (uint64_t)(1023 + n) << 52};
  return x * scale.d;
}

double fmax(double a, double b) {
  if (a != a) return b;
  if (b != b) return a;
  return a > b ? a : b;
}

/* A 128-bit product, which the compiler calls for the number parser's
** 64-by-64-bit multiplications: written with 64-bit products of 32-bit
** halves, as nothing here multiplies in 128 bits itself. */
unsigned __int128 __multi3(unsigned __int128 a, unsigned __int128 b);
unsigned __int128 __multi3(unsigned __int128 a, unsigned __int128 b) {
  uint64_t al = (uint64_t)a, ah = (uint64_t)(a >> 64), bl = (uint64_t)b, bh = (uint64_t)(b >> 64);
  uint64_t a0 = al & 0xffffffffu, a1 = al >> 32, b0 = bl & 0xffffffffu, b1 = bl >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  uint64_t low = (middle << 32) | (p00 & 0xffffffffu);
  uint64_t high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32) + al * bh + ah * bl;
  return ((unsigned __int128)high << 64) | low;
}

/* ---- formatting ------------------------------------------------------- */

/* Where formatted text goes: a fixed buffer (snprintf), or one that grows
** through SQLite's allocator (sqlite3_mprintf, sqlite3_str). */
struct sqlite3_str {
  char *text;
  size_t length, capacity;
  int growable, error;
};

static void sink_put(sqlite3_str *s, const char *text, size_t n) {
  if (s->error) return;
  if (s->length + n + 1 > s->capacity) {
    if (!s->growable) {
      size_t room = s->capacity ? s->capacity - 1 - s->length : 0;
      memcpy(s->text + s->length, text, room < n ? room : n);
      s->length += room < n ? room : n;
      s->error = SQLITE_TOOBIG;
      return;
    }
    size_t capacity = s->capacity ? s->capacity : 64;
    while (s->length + n + 1 > capacity) capacity *= 2;
    char *grown = sqlite3_realloc64(s->text, capacity);
    if (!grown) {
      s->error = SQLITE_NOMEM;
      return;
    }
    s->text = grown;
    s->capacity = capacity;
  }
  memcpy(s->text + s->length, text, n);
  s->length += n;
}

static void sink_repeat(sqlite3_str *s, char c, long n) {
  for (; n > 0; n--) sink_put(s, &c, 1);
}

/* Text with SQLite's quoting: %q and %Q double single quotes, %w double
** double quotes. */
static void sink_quoted(sqlite3_str *s, const char *text, size_t n, char quote) {
  size_t start = 0;
  for (size_t i = 0; i < n; i++)
    if (text[i] == quote) {
      sink_put(s, text + start, i + 1 - start);
      sink_put(s, &quote, 1);
      start = i + 1;
    }
  sink_put(s, text + start, n - start);
}

/* The conversions the extension's messages and SQL use: d i u x X c s q Q w
** and %, with the flags - and 0, a width and a precision (either may be *),
** and the length modifiers hh h l ll z j t. */
static void sink_format(sqlite3_str *s, const char *format, va_list args) {
  for (const char *f = format; *f;) {
    if (*f != '%') {
      const char *run = f;
      while (*f && *f != '%') f++;
      sink_put(s, run, (size_t)(f - run));
      continue;
    }
    f++;
    int left = 0, zero = 0;
    for (;; f++) {
      if (*f == '-') left = 1;
      else if (*f == '0') zero = 1;
      else break;
    }
    long width = 0, precision = -1;
    if (*f == '*') {
      width = va_arg(args, int);
      if (width < 0) left = 1, width = -width;
      f++;
    } else
      while (*f >= '0' && *f <= '9') width = width * 10 + (*f++ - '0');
    if (*f == '.') {
      f++;
      precision = 0;
      if (*f == '*') {
        precision = va_arg(args, int);
        f++;
      } else
        while (*f >= '0' && *f <= '9') precision = precision * 10 + (*f++ - '0');
    }
    int longs = 0, sized = 0;
    while (*f == 'l' || *f == 'h' || *f == 'z' || *f == 'j' || *f == 't') {
      if (*f == 'l') longs++;
      if (*f == 'z' || *f == 't') sized = 1;
      if (*f == 'j') longs = 2;
      f++;
    }
    char conversion = *f ? *f++ : 0;
    char digits[24];
    const char *text = digits;
    size_t n = 0;
    switch (conversion) {
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X': {
        int is_signed = conversion == 'd' || conversion == 'i';
        uint64_t magnitude;
        int negative = 0;
        if (longs >= 2) {
          uint64_t v = va_arg(args, uint64_t);
          negative = is_signed && (int64_t)v < 0;
          magnitude = negative ? 0 - v : v;
        } else if (longs == 1 || sized) {
          unsigned long v = va_arg(args, unsigned long);
          negative = is_signed && (long)v < 0;
          magnitude = negative ? 0 - (uint64_t)(long)v : v;
        } else {
          unsigned v = va_arg(args, unsigned);
          negative = is_signed && (int)v < 0;
          magnitude = negative ? 0 - (uint64_t)(int64_t)(int)v : v;
        }
        unsigned base = conversion == 'x' || conversion == 'X' ? 16 : 10;
        const char *alphabet = conversion == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
        char *end = digits + sizeof digits, *p = end;
        do {
          *--p = alphabet[magnitude % base];
          magnitude /= base;
        } while (magnitude);
        long pad = width - (long)(end - p) - negative;
        if (!left && !zero) sink_repeat(s, ' ', pad);
        if (negative) sink_put(s, "-", 1);
        if (!left && zero) sink_repeat(s, '0', pad);
        sink_put(s, p, (size_t)(end - p));
        if (left) sink_repeat(s, ' ', pad);
        continue;
      }
      case 'c':
        digits[0] = (char)va_arg(args, int);
        n = 1;
        break;
      case 's':
      case 'q':
      case 'Q':
      case 'w': {
        text = va_arg(args, const char *);
        if (!text) {
          text = conversion == 'Q' ? "NULL" : "";
          n = strlen(text);
          break;
        }
        n = 0;
        while ((precision < 0 || (long)n < precision) && text[n]) n++;
        if (conversion == 's') break;
        if (conversion == 'Q') sink_put(s, "'", 1);
        sink_quoted(s, text, n, conversion == 'w' ? '"' : '\'');
        if (conversion == 'Q') sink_put(s, "'", 1);
        continue;
      }
      case '%':
        text = "%";
        n = 1;
        break;
      default:
        s->error = SQLITE_ERROR;
        return;
    }
    long pad = width - (long)n;
    if (!left) sink_repeat(s, ' ', pad);
    sink_put(s, text, n);
    if (left) sink_repeat(s, ' ', pad);
  }
}

int vsnprintf(char *buffer, size_t size, const char *format, va_list args) {
  sqlite3_str s = {buffer, 0, size, 0, 0};
  va_list copy;
  va_copy(copy, args);
  sink_format(&s, format, args);
  size_t written = s.length;
  if (s.error == SQLITE_TOOBIG) {
    /* The length the whole text would have had, as C asks. */
    sqlite3_str counter = {NULL, 0, 0, 1, 0};
    sink_format(&counter, format, copy);
    written = counter.length;
    sqlite3_free(counter.text);
  }
  va_end(copy);
  if (size) buffer[s.length < size ? s.length : size - 1] = 0;
  return (int)written;
}

int snprintf(char *buffer, size_t size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(buffer, size, format, args);
  va_end(args);
  return n;
}

char *sqlite3_snprintf(int size, char *buffer, const char *format, ...) {
  if (size <= 0) return buffer;
  sqlite3_str s = {buffer, 0, (size_t)size, 0, 0};
  va_list args;
  va_start(args, format);
  sink_format(&s, format, args);
  va_end(args);
  buffer[s.length] = 0;
  return buffer;
}

/* The string builder.  SQLite hands out a shared object on running out of
** memory, which every call accepts and finish frees not. */
static sqlite3_str runtime_str_nomem = {NULL, 0, 0, 0, SQLITE_NOMEM};

sqlite3_str *sqlite3_str_new(sqlite3 *db) {
  (void)db;
  sqlite3_str *s = sqlite3_malloc64(sizeof *s);
  if (!s) return &runtime_str_nomem;
  *s = (sqlite3_str){NULL, 0, 0, 1, 0};
  return s;
}

void sqlite3_str_vappendf(sqlite3_str *s, const char *format, va_list args) {
  if (s != &runtime_str_nomem) sink_format(s, format, args);
}

void sqlite3_str_appendf(sqlite3_str *s, const char *format, ...) {
  va_list args;
  va_start(args, format);
  sqlite3_str_vappendf(s, format, args);
  va_end(args);
}

void sqlite3_str_appendall(sqlite3_str *s, const char *text) {
  if (s != &runtime_str_nomem) sink_put(s, text, strlen(text));
}

void sqlite3_str_appendchar(sqlite3_str *s, int n, char c) {
  if (s != &runtime_str_nomem) sink_repeat(s, c, n);
}

int sqlite3_str_errcode(sqlite3_str *s) { return s->error; }
int sqlite3_str_length(sqlite3_str *s) { return (int)s->length; }
char *sqlite3_str_value(sqlite3_str *s) {
  if (s->text) s->text[s->length] = 0;
  return s->text;
}

char *sqlite3_str_finish(sqlite3_str *s) {
  if (s == &runtime_str_nomem) return NULL;
  char *text = s->error ? NULL : sqlite3_str_value(s);
  if (s->error) sqlite3_free(s->text);
  else if (!text) text = sqlite3_malloc64(1), text ? *text = 0 : 0;
  sqlite3_free(s);
  return text;
}

char *sqlite3_vmprintf(const char *format, va_list args) {
  sqlite3_str s = {NULL, 0, 0, 1, 0};
  sink_format(&s, format, args);
  if (s.error) {
    sqlite3_free(s.text);
    return NULL;
  }
  if (!s.text) {
    s.text = sqlite3_malloc64(1);
    if (!s.text) return NULL;
  }
  s.text[s.length] = 0;
  return s.text;
}

char *sqlite3_mprintf(const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *text = sqlite3_vmprintf(format, args);
  va_end(args);
  return text;
}

/* ---- SQLite functions sqlite-wasm does not export --------------------- */

int sqlite3_vtab_config(sqlite3 *db, int op, ...) {
  va_list args;
  va_start(args, op);
  /* SQLITE_VTAB_CONSTRAINT_SUPPORT takes an int; the others take nothing. */
  int argument = op == SQLITE_VTAB_CONSTRAINT_SUPPORT ? va_arg(args, int) : 0;
  va_end(args);
  return sqlite3__wasm_vtab_config(db, op, argument);
}

/* The 64-bit forms, over the int ones: a length past what an int holds is
** refused, as SQLite refuses one past its own limit. */
void sqlite3_result_text64(sqlite3_context *ctx, const char *text, sqlite3_uint64 n, void (*release)(void *),
                           unsigned char encoding) {
  (void)encoding;
  if (n > 0x7fffffff) {
    if (release && release != SQLITE_TRANSIENT && release != SQLITE_STATIC) release((void *)text);
    sqlite3_result_error_toobig(ctx);
    return;
  }
  sqlite3_result_text(ctx, text, (int)n, release);
}

void sqlite3_result_blob64(sqlite3_context *ctx, const void *data, sqlite3_uint64 n, void (*release)(void *)) {
  if (n > 0x7fffffff) {
    if (release && release != SQLITE_TRANSIENT && release != SQLITE_STATIC) release((void *)data);
    sqlite3_result_error_toobig(ctx);
    return;
  }
  sqlite3_result_blob(ctx, data, (int)n, release);
}

int sqlite3_bind_text64(sqlite3_stmt *st, int i, const char *text, sqlite3_uint64 n, void (*release)(void *),
                        unsigned char encoding) {
  (void)encoding;
  if (n > 0x7fffffff) {
    if (release && release != SQLITE_TRANSIENT && release != SQLITE_STATIC) release((void *)text);
    return SQLITE_TOOBIG;
  }
  return sqlite3_bind_text(st, i, text, (int)n, release);
}

/* A value copied by its type, as SQLite's own copy does; the extension
** passes these no value that carries a subtype. */
int sqlite3_bind_value(sqlite3_stmt *st, int i, const sqlite3_value *value) {
  sqlite3_value *v = (sqlite3_value *)value;
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return sqlite3_bind_int64(st, i, sqlite3_value_int64(v));
    case SQLITE_FLOAT: return sqlite3_bind_double(st, i, sqlite3_value_double(v));
    case SQLITE_TEXT:
      return sqlite3_bind_text(st, i, (const char *)sqlite3_value_text(v), sqlite3_value_bytes(v), SQLITE_TRANSIENT);
    case SQLITE_BLOB:
      return sqlite3_bind_blob(st, i, sqlite3_value_blob(v), sqlite3_value_bytes(v), SQLITE_TRANSIENT);
    default: return sqlite3_bind_null(st, i);
  }
}

void sqlite3_result_value(sqlite3_context *ctx, sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, sqlite3_value_int64(v)); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, sqlite3_value_double(v)); break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, (const char *)sqlite3_value_text(v), sqlite3_value_bytes(v), SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob(ctx, sqlite3_value_blob(v), sqlite3_value_bytes(v), SQLITE_TRANSIENT);
      break;
    default: sqlite3_result_null(ctx);
  }
}
