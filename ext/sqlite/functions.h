/* functions.h — the codec's SQL functions. */
#ifndef SHORN_FUNCTIONS_H
#define SHORN_FUNCTIONS_H

#include "sqlite/connection.h"

/* Register shorn_encode, shorn_encode_unchecked, shorn_check, shorn_decode,
 * shorn_fingerprint, shorn_signature, shorn_stats and shorn_version on `db`. */
SHORN_PRIVATE int shorn_register_functions(sqlite3 *db, shorn_state *st);

#endif
