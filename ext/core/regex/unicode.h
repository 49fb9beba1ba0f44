/* unicode.h — the code points of a Unicode property, as JavaScript's
 * regular expressions name them in \p{…} and \P{…} (ECMA-262's tables of
 * General_Category values, scripts and binary properties), from tables
 * that scripts/gen_unicode.py generates from the Unicode Character
 * Database of UNICODE_VERSION. */
#ifndef SHORN_UNICODE_H
#define SHORN_UNICODE_H

#include "core/base/platform.h"

/* The version of the Unicode Character Database the tables are of. */
#define UNICODE_VERSION "15.0.0"

/* The property named by the text between \p{ and } (ASCII, as written:
 * `L`, `Letter`, `gc=Lu`, `General_Category=Lu`, `sc=Greek`,
 * `Script_Extensions=Grek`, `ASCII`, `Emoji`, …), or -1 when ECMAScript
 * knows no such name, which makes the pattern a SyntaxError.  A script
 * that a Unicode version after UNICODE_VERSION added (Node 20 knows those
 * of 16.0 and 17.0) is unknown here too. */
SHORN_PRIVATE int unicode_property_find(const char *name, size_t n);

/* The property's code points as ranges [first, last], ascending, disjoint
 * and not adjacent; their count, and with `out` (room for that count) the
 * ranges themselves. */
SHORN_PRIVATE size_t unicode_property_ranges(int property, uint32_t (*out)[2]);

#endif
