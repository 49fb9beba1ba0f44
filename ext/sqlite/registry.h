/* registry.h — the virtual table module shorn_registry. */
#ifndef SHORN_REGISTRY_H
#define SHORN_REGISTRY_H

#include "sqlite/connection.h"

/* Register the module shorn_registry on `db`; its client data is `st`. */
SHORN_PRIVATE int shorn_register_registry(sqlite3 *db, shorn_state *st);

#endif
