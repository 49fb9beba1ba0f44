/* query_functions.h — SQL questions about a payload, as SQLite's JSON
 * functions ask them of JSON text. */
#ifndef SHORN_QUERY_FUNCTIONS_H
#define SHORN_QUERY_FUNCTIONS_H

#include "sqlite/connection.h"

/* Register shorn_extract, shorn_type, shorn_valid, shorn_error,
 * shorn_check_payload and the table-valued functions shorn_each and
 * shorn_tree on `db`. */
SHORN_PRIVATE int shorn_register_query_functions(sqlite3 *db, shorn_state *st);

#endif
