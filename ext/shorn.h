/*
 * shorn.h — the shorn wire format in C: the core codec.
 *
 * shorn is a tagless, positional binary encoding: a JSON Schema supplies the
 * meaning of every byte, so a payload holds nothing but values.  This header
 * is the whole public surface of the core; it has no SQLite in it, so a CLI,
 * a fuzzer or any C program can use the codec on its own.
 *
 *   shorn_schema *s;  shorn_error e;  shorn_buffer out = {0};
 *   if (shorn_schema_compile(text, len, NULL, &s, &e) != SHORN_OK) ...
 *   if (shorn_encode(s, json, json_len, 0, &out, &e) != SHORN_OK) ...
 *   shorn_buffer_free(&out);  shorn_schema_free(s);
 *
 * Every function that can fail returns a shorn_code and, when it fails, fills
 * the caller's shorn_error.  A compiled schema is immutable, so one may be
 * shared by any number of threads.  The core's only global state is the
 * string kernels chosen for the CPU, once, the same whichever thread chooses
 * (SHORN_SIMD in the environment forces one).  Memory comes from the allocator a schema was compiled with (for the schema and
 * the scratch of every call on it) and from each buffer's own (for its
 * bytes); NULL, in both places, is the C library's.
 */
#ifndef SHORN_H
#define SHORN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, as `shorn --version` and SQL's shorn_version() give it. */
#define SHORN_VERSION "0.1.0"
#define SHORN_VERSION_MAJOR 0
#define SHORN_VERSION_MINOR 1
#define SHORN_VERSION_PATCH 0

/* Decoder limits of the byte layout. */
#define SHORN_MAX_ELEMENTS 1000000       /* collection elements, record entries */
#define SHORN_MAX_BYTES 67108864         /* string, byte array, BigInt magnitude */
#define SHORN_MAX_DYNAMIC_DEPTH 64       /* nested containers in a dynamic value */
#define SHORN_MAX_RECURSION 256          /* open levels of one recursive definition */

/* Default width of a fingerprint, in bytes (the published library's). */
#define SHORN_FINGERPRINT_DEFAULT 3

typedef enum shorn_code {
  SHORN_OK = 0,
  SHORN_ERROR_SCHEMA, /* the schema text does not compile */
  SHORN_ERROR_JSON,   /* the JSON text is not strict RFC 8259 */
  SHORN_ERROR_ENCODE, /* the value does not fit the schema */
  SHORN_ERROR_DECODE, /* the bytes are not a payload of the schema */
  SHORN_ERROR_USAGE,  /* an argument out of range, such as a fingerprint width */
  SHORN_ERROR_NOMEM   /* an allocation failed */
} shorn_code;

#define SHORN_MESSAGE_MAX 256
#define SHORN_PATH_MAX 256

/* What went wrong, and where.  `where` says which of the two locations holds:
 * a byte offset (decode: into the payload, fingerprint included; JSON: into
 * the text) or a path (encode: into the value, as `$.tags[3]`; schema: into
 * the schema document, as a JSON Pointer `#/properties/tags`). */
typedef enum shorn_where {
  SHORN_WHERE_NONE = 0,
  SHORN_WHERE_OFFSET,
  SHORN_WHERE_PATH
} shorn_where;

typedef struct shorn_error {
  shorn_code code;
  shorn_where where;
  long long offset;
  char path[SHORN_PATH_MAX];
  char message[SHORN_MESSAGE_MAX];
} shorn_error;

/* The message with its location appended: "Unexpected end of input at byte 3",
 * "Expected an unsigned integer at $.age".  Writes at most `cap` bytes,
 * NUL-terminated, and returns the length it wrote.  Text too long for `cap`
 * is cut at a character boundary and ends in "…": the result is always
 * strict UTF-8, as are the message and path themselves. */
size_t shorn_error_format(const shorn_error *error, char *out, size_t cap);

/* Where the core's memory comes from.  realloc(context, NULL, size)
 * allocates; realloc(context, block, size) resizes a block it gave, or
 * returns NULL and leaves the block as it was; free(context, block)
 * releases one (never NULL).  Sizes are never 0.  The core keeps a pointer
 * to the struct, which must outlive every schema and buffer given it, and
 * calls it from whichever thread uses them: a schema shared by threads
 * needs functions that any of them may call. */
typedef struct shorn_allocator {
  void *(*realloc)(void *context, void *block, size_t size);
  void (*free)(void *context, void *block);
  void *context;
} shorn_allocator;

/* A growable byte buffer.  Start it zeroed, `allocator` set if the C
 * library's is not wanted; `data` is grown with that allocator and released
 * with shorn_buffer_free (or the allocator's free), which keeps `allocator`
 * for reuse. */
typedef struct shorn_buffer {
  unsigned char *data;
  size_t length;
  size_t capacity;
  const shorn_allocator *allocator; /* NULL: the C library's */
} shorn_buffer;

void shorn_buffer_free(shorn_buffer *buffer);

typedef struct shorn_schema shorn_schema;

/* Compile JSON Schema text (draft 2020-12, as Zod, Valibot and ArkType emit
 * it) into a codec.  The text need not outlive the schema; `allocator`
 * (NULL: the C library's) must, since the schema and the scratch of every
 * encode and decode with it are allocated with it. */
shorn_code shorn_schema_compile(const char *text, size_t length, const shorn_allocator *allocator,
                                shorn_schema **out, shorn_error *error);
void shorn_schema_free(shorn_schema *schema);

/* The canonical signature: the wire shape as JSON text, what the fingerprint
 * hashes.  Owned by the schema. */
const char *shorn_schema_signature(const shorn_schema *schema, size_t *length);

/* The `width`-byte fingerprint (1..4), most significant byte first. */
shorn_code shorn_schema_fingerprint(const shorn_schema *schema, int width, unsigned char out[4],
                                    shorn_error *error);

/* Encode one JSON value.  It must fit the schema's structure and satisfy
 * its validation keywords (minimum, maximum, pattern, minLength, format,
 * …: docs/validators.md), as the library's validated codecs require.  With
 * fingerprint_width 1..4 the payload is prefixed by that many fingerprint
 * bytes; 0 writes the bare payload.  The bytes are appended to `out`; a
 * call that fails leaves `out` as long as it was (its capacity may have
 * grown).  With `out` NULL the value is checked and nothing kept. */
shorn_code shorn_encode(const shorn_schema *schema, const char *json, size_t length,
                        int fingerprint_width, shorn_buffer *out, shorn_error *error);

/* shorn_encode checking the structure alone, as the library's unchecked()
 * does: for values validated already, such as a trusted bulk load. */
shorn_code shorn_encode_unchecked(const shorn_schema *schema, const char *json, size_t length,
                                  int fingerprint_width, shorn_buffer *out, shorn_error *error);

/* Decode one payload into JSON text (canonical key order, JavaScript number
 * spelling), appended to `out` without a terminating NUL; a call that fails
 * leaves `out` as long as it was.  It checks the structure only, never the
 * validation keywords: a payload stays readable when a bound is tightened.  With `out` NULL the payload is checked
 * and nothing written.  With fingerprint_width 1..4 the prefix is checked
 * and skipped first.  `data` may be NULL when `length` is 0. */
shorn_code shorn_decode(const shorn_schema *schema, const unsigned char *data, size_t length,
                        int fingerprint_width, shorn_buffer *out, shorn_error *error);

#ifdef __cplusplus
}
#endif
#endif
