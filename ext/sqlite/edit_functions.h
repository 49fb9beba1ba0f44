/* edit_functions.h — SQL functions that change a field of a payload, as
 * SQLite's JSON functions change JSON text. */
#ifndef SHORN_EDIT_FUNCTIONS_H
#define SHORN_EDIT_FUNCTIONS_H

#include "sqlite/connection.h"

/* Register shorn_set, shorn_insert, shorn_replace, shorn_remove and
 * shorn_patch on `db`. */
SHORN_PRIVATE int shorn_register_edit_functions(sqlite3 *db, shorn_state *st);

#endif
