/* A private copy of a communicator, for the point-to-point messages of a
 * workaround: made once per communicator (collective over it: every rank
 * must ask on the same call) and cached on it as an attribute, freed with
 * it. Messages there never meet the application's, not even its
 * MPI_ANY_TAG receives. */
#ifndef SCALEGUARD_PRIVATE_COMM_H
#define SCALEGUARD_PRIVATE_COMM_H

#include <mpi.h>
#include <stdatomic.h>

/* The attribute key in *slot, made on first use (thread-safe) with the
 * delete callback `on_delete`: for the caches kept on communicators (this
 * copy, W1-A's sub-communicators). Returns an MPI error code. */
int sg_cache_keyval(atomic_int *slot, MPI_Comm_delete_attr_function *on_delete, int *out);

/* The copy of `parent` in *copy. Returns an MPI error code. */
int sg_private_comm(MPI_Comm parent, MPI_Comm *copy);

#endif
