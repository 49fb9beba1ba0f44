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

#endif
