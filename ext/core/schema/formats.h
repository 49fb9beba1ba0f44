/* formats.h — the string formats the validated mode checks where no
 * pattern carries them (formats.c). */
#ifndef SHORN_FORMATS_H
#define SHORN_FORMATS_H

#include "core/base/platform.h"

/* As Valibot, the validator that writes them without a pattern, checks
 * them; a uri as RFC 3986 defines it. */
typedef enum format_kind { FORMAT_EMAIL, FORMAT_IPV4, FORMAT_IPV6, FORMAT_DATE, FORMAT_TIME, FORMAT_URI, FORMAT_COUNT } format_kind;

/* Each format's name, as the "format" keyword spells it. */
SHORN_PRIVATE_DATA const char *const format_names[FORMAT_COUNT];

/* Whether s[0..n) holds the format. */
SHORN_PRIVATE bool format_holds(format_kind f, const char *s, size_t n);

#endif
