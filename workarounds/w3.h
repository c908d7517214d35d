/* W3: a Class D call routed to the MPI-4 large-count form of the same
 * routine (PMPI_Gatherv_c, ...), with the recovered displacements as
 * MPI_Aint: no partitioning at all. Where the build's MPI has the forms
 * (detectors/routines.h, SG_FORM_LIST: MPICH 4.0.2; Open MPI 4.1.4 has
 * none, and there W3 is unavailable). Only the rank that holds the recovered arrays uses it; the
 * others make their usual call. That mixes the two bindings in one
 * collective, which is one operation to the MPI (MPICH implements both on
 * the same MPI_Aint internals). */
#ifndef SCALEGUARD_W3_H
#define SCALEGUARD_W3_H

#include "workarounds.h"

/* The large-count form (MPI_Gatherv_c) of a v-routine with int
 * displacements if this MPI has it, else -1. Only those have a W3 (not
 * Neighbor_alltoallw, whose displacements are MPI_Aint in every form). */
int sg_w3_routine(enum sg_routine routine);

/* Run this rank's side of the call through the large-count function.
 * Returns an MPI error code, or -1 (before communicating) when unavailable. */
int sg_w3(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d);

#endif
