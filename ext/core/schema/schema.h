/* schema.h — JSON Schema documents translated into wire shapes. */
#ifndef SHORN_SCHEMA_H
#define SHORN_SCHEMA_H

#include "core/base/platform.h"
#include "core/json/json.h"
#include "core/shape/shape.h"

/* schema.c: translate a parsed JSON Schema document into root and defs,
 * fold a recursive document (shape_fold), then finish it (shape_finish);
 * a refusal names the schema node it comes from. */
SHORN_PRIVATE shorn_code schema_translate(shorn_schema *s, const json_value *document, shorn_error *error);

/* shorn_schema_compile, its patterns taken from `patterns`, an engine
 * that outlives the schema, where another schema compiled into it has
 * already compiled them; with NULL, compiled into an engine of the
 * schema's own.  The engine is not locked: calls that share one, and
 * shorn_schema_free of the schemas compiled into it, take turns. */
SHORN_PRIVATE shorn_code schema_compile_sharing(const char *text, size_t length, const shorn_allocator *allocator,
                                                pattern_engine *patterns, shorn_schema **out, shorn_error *error);

/* An engine for schema_compile_sharing, whose allocator keeps *live_bytes,
 * what it holds; freed after the schemas compiled into it.  NULL when out
 * of memory. */
SHORN_PRIVATE pattern_engine *schema_patterns_new(const shorn_allocator *allocator, const size_t *live_bytes);
SHORN_PRIVATE void schema_patterns_free(pattern_engine *patterns);
/* How many patterns the engine holds. */
SHORN_PRIVATE uint32_t schema_patterns_count(const pattern_engine *patterns);
/* The bytes of the patterns a schema took from its engine, each counted in
 * full however many schemas share it. */
SHORN_PRIVATE size_t schema_pattern_bytes(const shorn_schema *s);

#endif
