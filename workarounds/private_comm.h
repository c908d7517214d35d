/* A private copy of a communicator, for the point-to-point messages of a
 * workaround: made once per communicator (collective over it: every rank
 * must ask on the same call) and cached on it as an attribute, freed with
 * it. Messages there never meet the application's, not even its
 * MPI_ANY_TAG receives. */
#ifndef SCALEGUARD_PRIVATE_COMM_H
#define SCALEGUARD_PRIVATE_COMM_H

#include <mpi.h>

#include "comm_cache.h"

/* The copy of `parent` in *copy. Returns an MPI error code. */
int sg_private_comm(MPI_Comm parent, MPI_Comm *copy);

#endif
