/* The attribute keys of the caches kept on communicators (the layer's
 * private copies, W1-A's sub-communicators, a communicator's spread and
 * neighbours, the collective checks' state). */
#ifndef SCALEGUARD_COMM_CACHE_H
#define SCALEGUARD_COMM_CACHE_H

#include <mpi.h>
#include <stdatomic.h>

/* The attribute key in *slot, made on first use (thread-safe) with the
 * delete callback `on_delete` and no copy callback (a duplicate finds its
 * own). Returns an MPI error code. */
int sg_cache_keyval(atomic_int *slot, MPI_Comm_delete_attr_function *on_delete, int *out);

#endif
