/* Persistent collectives (MPI_Scatter_init, ...; MPI 4.0, 6.12) under a
 * workaround.
 *
 * An `_init` is collective: the layer makes its plan there, as for the
 * I-form of its width, the same on every rank (protect.c, prepare). Where
 * no workaround runs it, the call goes to PMPI_X_init and the request is
 * the MPI's own. Where one does, the caller gets a carrier: a request the
 * layer owns and never starts (a 0-byte PMPI_Send_init to MPI_PROC_NULL:
 * local, inactive, so PMPI_Wait and PMPI_Test on it return at once), and a
 * table maps it to the plan. MPI_Start and MPI_Startall run a carrier's
 * plan as an I-form's call runs (its sub-calls started behind one internal
 * request: pending.h), so the Start returns at once; the completion calls
 * (pending.c) see an active carrier as its internal request and put the
 * carrier back in the caller's array, inactive, once that completed (never
 * MPI_REQUEST_NULL: it can be started again). MPI_Request_free of a carrier
 * frees the plan and the carrier. Without a carrier, MPI_Start and
 * MPI_Startall cost one atomic load, and the completion calls one more
 * without an active one.
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

/* Whether any carrier is active (one atomic load). */
int sg_persistent_any_active(void);

/* Before a completion call over `count` requests, where one may be active:
 * `into` gets `requests` with each active carrier replaced by its internal
 * request. Returns whether any was (else `into` is not needed). */
int sg_persistent_swap_in(int count, const MPI_Request requests[], MPI_Request into[]);

/* After it: `requests` gets `into` back, but each carrier stays, inactive
 * again where its internal request completed (MPI_REQUEST_NULL in `into`). */
void sg_persistent_swap_out(int count, MPI_Request requests[], const MPI_Request into[]);

/* MPI_Request_free of a carrier (an active one is completed first: its
 * sub-calls read the plan): 1 with *err set, or 0 where *request is none. */
int sg_persistent_free(MPI_Request *request, int *err);
#else
static inline int sg_persistent_any_active(void) { return 0; }
static inline int sg_persistent_swap_in(int count, const MPI_Request requests[],
                                        MPI_Request into[])
{
    (void)count, (void)requests, (void)into;
    return 0;
}
static inline void sg_persistent_swap_out(int count, MPI_Request requests[],
                                          const MPI_Request into[])
{
    (void)count, (void)requests, (void)into;
}
static inline int sg_persistent_free(MPI_Request *request, int *err)
{
    (void)request, (void)err;
    return 0;
}
#endif

#endif
