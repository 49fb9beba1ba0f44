/*
** codec.c — the core codec alone (ext/shorn.h, no SQLite) as a WebAssembly
** module of its own, for JavaScript to encode and decode in its own process
** (bindings/node/codec.mjs), where a SQLite statement a value would cost
** more than the codec does.  Built by scripts/build-wasm.sh with the
** amalgamation (-DSHORN_OMIT_SQLITE) and wasi-libc.
**
** JavaScript calls one function at a time, so one output buffer and one
** error serve every call: the buffer keeps its capacity from call to call,
** and what a call wrote stays readable until the next.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shorn.h"

#define CODEC_EXPORT(name) __attribute__((export_name(#name)))

static shorn_buffer codec_out;
static shorn_error codec_err;
static char codec_message[SHORN_MESSAGE_MAX + SHORN_PATH_MAX + 32];

/* Memory for JavaScript to write text and payloads into. */
CODEC_EXPORT(codec_alloc) void *codec_alloc(size_t n) { return malloc(n ? n : 1); }
CODEC_EXPORT(codec_free) void codec_free(void *p) { free(p); }

/* The outcome of the last call: the bytes or text it wrote, or its error
** as the SQL functions word it after their name. */
CODEC_EXPORT(codec_output) const unsigned char *codec_output(void) { return codec_out.data; }
CODEC_EXPORT(codec_output_length) size_t codec_output_length(void) { return codec_out.length; }
CODEC_EXPORT(codec_error) const char *codec_error(void) { return codec_message; }

static int codec_failed(shorn_code code) {
  if (code != SHORN_OK) shorn_error_format(&codec_err, codec_message, sizeof codec_message);
  return code;
}

CODEC_EXPORT(codec_compile) shorn_schema *codec_compile(const char *text, size_t length) {
  shorn_schema *schema = NULL;
  codec_failed(shorn_schema_compile(text, length, NULL, &schema, &codec_err));
  return schema;
}

CODEC_EXPORT(codec_release) void codec_release(shorn_schema *schema) { shorn_schema_free(schema); }

/* The fingerprint's bytes, most significant first, as one number, read by
** codec_fingerprint_value after a call that succeeded. */
static unsigned codec_fp;
CODEC_EXPORT(codec_fingerprint_value) unsigned codec_fingerprint_value(void) { return codec_fp; }

CODEC_EXPORT(codec_fingerprint) int codec_fingerprint(const shorn_schema *schema, int width) {
  unsigned char bytes[4];
  if (codec_failed(shorn_schema_fingerprint(schema, width, bytes, &codec_err))) return 1;
  codec_fp = 0;
  for (int i = 0; i < width; i++) codec_fp = codec_fp << 8 | bytes[i];
  return 0;
}

CODEC_EXPORT(codec_encode) int codec_encode(const shorn_schema *schema, const char *json, size_t length, int width,
                                            int checked) {
  codec_out.length = 0;
  return codec_failed(checked ? shorn_encode(schema, json, length, width, &codec_out, &codec_err)
                              : shorn_encode_unchecked(schema, json, length, width, &codec_out, &codec_err));
}

CODEC_EXPORT(codec_decode) int codec_decode(const shorn_schema *schema, const unsigned char *data, size_t length,
                                            int width) {
  codec_out.length = 0;
  return codec_failed(shorn_decode(schema, data, length, width, &codec_out, &codec_err));
}

/* Text after what the output holds; the buffer's allocator is the C
** library's, as shorn_buffer's is when none is set. */
static int codec_append(const char *text, size_t n) {
  if (codec_out.length + n > codec_out.capacity) {
    size_t capacity = 2 * codec_out.capacity + n;
    unsigned char *grown = realloc(codec_out.data, capacity);
    if (!grown) {
      codec_err = (shorn_error){.code = SHORN_ERROR_NOMEM};
      codec_failed(SHORN_ERROR_NOMEM);
      return 1;
    }
    codec_out.data = grown;
    codec_out.capacity = capacity;
  }
  memcpy(codec_out.data + codec_out.length, text, n);
  codec_out.length += n;
  return 0;
}

/* Payloads laid end to end, lengths[i] bytes each, decoded into one JSON
** array, so that JavaScript crosses into the module and parses JSON once
** for all of them.  On a refusal: 1 + the index of the payload refused. */
CODEC_EXPORT(codec_decode_many) size_t codec_decode_many(const shorn_schema *schema, const unsigned char *data,
                                                        const uint32_t *lengths, size_t count, int width) {
  codec_out.length = 0;
  for (size_t i = 0; i < count; i++) {
    if (codec_append(i ? "," : "[", 1) ||
        codec_failed(shorn_decode(schema, data, lengths[i], width, &codec_out, &codec_err)))
      return i + 1;
    data += lengths[i];
  }
  if (codec_append(count ? "]" : "[]", count ? 1 : 2)) return count;
  return 0;
}

/* JSON texts laid end to end, lengths[i] bytes each, encoded one after
** another into the output, each payload's length written over its text's
** in `lengths`, so that JavaScript crosses into the module once for all of
** them.  On a refusal: 1 + the index of the value refused. */
CODEC_EXPORT(codec_encode_many) size_t codec_encode_many(const shorn_schema *schema, const char *texts,
                                                        uint32_t *lengths, size_t count, int width, int checked) {
  codec_out.length = 0;
  for (size_t i = 0; i < count; i++) {
    size_t before = codec_out.length;
    shorn_code code = checked ? shorn_encode(schema, texts, lengths[i], width, &codec_out, &codec_err)
                              : shorn_encode_unchecked(schema, texts, lengths[i], width, &codec_out, &codec_err);
    if (codec_failed(code)) return i + 1;
    texts += lengths[i];
    lengths[i] = (uint32_t)(codec_out.length - before);
  }
  return 0;
}
