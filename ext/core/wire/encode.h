/* encode.h — the encoder's walk, entered below a payload's root: edit.c
 * writes the new bytes of one value inside a payload with it. */
#ifndef SHORN_ENCODE_H
#define SHORN_ENCODE_H

#include "core/base/platform.h"
#include "core/json/json.h"
#include "core/shape/shape.h"
#include "core/text/error.h"

/* Where in a payload a value is written: the path to it from the root
 * (outermost first), and what the encoder would have counted on its way
 * there, so that its limits (NESTING_MAX, SHORN_MAX_RECURSION) bind as in
 * an encode of the whole value. */
typedef struct encode_place {
  const path_segment *path;
  size_t path_length;
  uint32_t nesting;
  const uint32_t *ref_depth; /* s->def_count levels; NULL: none open */
} encode_place;

/* Append the bytes of `value` under shape `sh` of schema `s`, its
 * validation keywords checked, as shorn_encode writes that value at that
 * place: the same bytes, or the same refusal, its path from the root. */
SHORN_PRIVATE shorn_code encode_at(const shorn_schema *s, const shape *sh, const json_value *value,
                                   const encode_place *place, shorn_buffer *out, shorn_error *error);

/* The bytes of field f's default under its shape, as the validated encode
 * writes a default it fills in: its structure checked, not its validation
 * keywords.  `out` NULL checks it alone. */
SHORN_PRIVATE shorn_code encode_default(const shorn_schema *s, const field *f, shorn_buffer *out, shorn_error *error);

/* An optional member given null, as SQL's NULL arrives through
 * json_object or shorn_set: its refusal (in `error`) goes on to say how to
 * write "no value".  Returns the error's code. */
SHORN_PRIVATE shorn_code encode_refuse_null_member(shorn_error *error);

/* For the tests, each of the two ways shorn_encode has: the one pass alone
 * (pass.c; true when it wrote the bytes, false when it would leave the
 * text to the tree), and the tree alone (the DOM parsed whole, then
 * walked), which decides every text the pass leaves. */
SHORN_PRIVATE TEST_HOOK bool encode_by_one_pass(const shorn_schema *s, const char *json, size_t length,
                                                shorn_buffer *out, bool checked);
SHORN_PRIVATE TEST_HOOK shorn_code encode_by_tree(const shorn_schema *s, const char *json, size_t length,
                                                  shorn_buffer *out, shorn_error *error, bool checked);

#endif
