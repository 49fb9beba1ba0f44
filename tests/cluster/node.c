/*
 * node.c — a dqlite node with shorn registered for every connection it
 * opens, as an application that serves a dqlite cluster would build it: the
 * amalgamation compiled into the program (-DSQLITE_CORE), so each node runs
 * exactly the build of the extension it was linked with.
 *
 *   node ID ADDRESS DATA_DIR
 *
 * Node 1 bootstraps a new cluster; the others wait for a client to add them.
 * It serves until SIGTERM or SIGINT, then stops cleanly.
 */
/* sigwait and pthread_sigmask, beyond C11. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <dqlite.h>
#include <sqlite3.h>

#include "shorn.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s ID ADDRESS DATA_DIR\n", argv[0]);
    return 2;
  }
  /* The leader writes to followers' sockets; when a peer dies mid-write the
   * write must fail with EPIPE, not kill this node too. */
  signal(SIGPIPE, SIG_IGN);

  /* Before the node exists, so that every connection dqlite opens, on the
   * leader and on a follower that becomes one, has the functions. */
  if (sqlite3_auto_extension((void (*)(void))sqlite3_shorn_init) != SQLITE_OK) {
    fprintf(stderr, "node: sqlite3_auto_extension failed\n");
    return 1;
  }

  /* SIGTERM and SIGINT are waited for, not handled, so they are blocked
   * before dqlite's threads start and inherit the mask. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);

  dqlite_node_id id = strtoull(argv[1], NULL, 10);
  dqlite_node *node = NULL;
  int rc = dqlite_node_create(id, argv[2], argv[3], &node);
  if (rc == 0) rc = dqlite_node_set_bind_address(node, argv[2]);
  if (rc == 0) rc = dqlite_node_start(node);
  if (rc != 0) {
    fprintf(stderr, "node %llu: cannot start on %s (dqlite error %d)\n", id, argv[2], rc);
    if (node) dqlite_node_destroy(node);
    return 1;
  }
  fprintf(stderr, "node %llu: serving on %s, shorn %s\n", id, argv[2], SHORN_VERSION);

  int signal_number = 0;
  sigwait(&stop, &signal_number);
  dqlite_node_stop(node);
  dqlite_node_destroy(node);
  return 0;
}
