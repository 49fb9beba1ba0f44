/* paths.h — shorn_paths(schema), the places a schema's values have. */
#ifndef SHORN_PATHS_H
#define SHORN_PATHS_H

#include "sqlite/connection.h"

/* Register the table-valued function shorn_paths on `db`. */
SHORN_PRIVATE int shorn_register_paths(sqlite3 *db, shorn_state *st);

#endif
