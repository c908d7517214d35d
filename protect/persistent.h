/* Persistent collectives (MPI_Scatter_init, ...; MPI 4.0, 6.12) under a
 * workaround.
 *
 * An `_init` is collective: the layer makes its plan there, as for the
 * I-form of its width, the same on every rank (protect.c, prepare). Where
 * no rank's plan runs a workaround, the call goes to PMPI_X_init and the
 * request is the MPI's own. Where one does, every rank's caller gets a
 * carrier: a persistent request of the MPI that the layer owns, a 0-byte
 * receive on the layer's copy of MPI_COMM_SELF with a tag of its own, and
 * a table maps it to the plan. MPI_Start and MPI_Startall start the
 * carrier and run its plan as an I-form's call runs (its sub-calls started
 * behind one generalized request: pending.h), so the Start returns at once;
 * when those are done the layer sends the carrier its 0-byte message. So
 * the carrier completes in the MPI, whichever completion call is made (the
 * layer's move the run on where the carrier is among their requests), and
 * stays, inactive, for the next Start. mpi_f08's MPI_Start, MPI_Startall
 * and completion calls call PMPI past the C ones: its Start has an entry
 * point here and runs to its end. MPI_Request_free of a carrier (an active
 * one waited for first) frees the plan with it. Without a carrier,
 * MPI_Start and MPI_Startall cost one atomic load, MPI_Request_free one
 * more.
 *
 * Only where the MPI has persistent collectives (SCALEGUARD_PERSISTENT:
 * MPICH 4; Open MPI 4.1 has only MPIX_ ones, which the layer does not
 * intercept): elsewhere this is nothing. */
#ifndef SCALEGUARD_PERSISTENT_H
#define SCALEGUARD_PERSISTENT_H

#include <mpi.h>

/* A persistent call's plan and what it keeps (protect.c). */
struct sg_plan_kept;

/* Run the plan once, its sub-calls started behind *request; the summary
 * line and the count name the persistent routine. Returns an MPI error
 * code. */
int sg_plan_start(struct sg_plan_kept *k, MPI_Request *request);
void sg_plan_free(struct sg_plan_kept *k);

#if SCALEGUARD_PERSISTENT
/* A new carrier of `k` in *request, which owns k from then on. Returns an
 * MPI error code (k is then still the caller's). */
int sg_persistent_carry(struct sg_plan_kept *k, MPI_Request *request);

/* MPI_Request_free of a carrier: 1 with *err set, or 0 where *request is
 * none. */
int sg_persistent_free(MPI_Request *request, int *err);
#else
static inline int sg_persistent_free(MPI_Request *request, int *err)
{
    (void)request, (void)err;
    return 0;
}
#endif

#endif
