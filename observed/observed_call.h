/* A call the layer's observers see (observe.h): what it waits for, as the
 * watchdog needs it, and what it moves, as the trace records it. Ranks are
 * the communicator's (MPI_ANY_SOURCE, MPI_ANY_TAG and MPI_PROC_NULL as MPI
 * has them), or SG_WATCH_NONE where the call has no such side. */
#ifndef SCALEGUARD_OBSERVED_CALL_H
#define SCALEGUARD_OBSERVED_CALL_H

#include <mpi.h>

#include "watch_kind.h"

struct sg_call;

struct sg_observed_call {
    enum sg_watch_kind kind; /* SG_WATCH_OUTSIDE: a call that never blocks (MPI_Isend) */
    const char *routine;     /* "MPI_Ssend": a string that outlives the call */
    MPI_Comm comm;           /* MPI_COMM_NULL: none */
    int root;
    int dest, dest_tag;
    int source, source_tag;
    /* what it moves, for the trace */
    const struct sg_call *collective; /* one of the 32 (call/collective.h), or NULL */
    int count;                        /* a point-to-point call's send side, else its receive side */
    MPI_Datatype type;
    MPI_Request *request; /* a non-blocking point-to-point call's */
};

#endif
