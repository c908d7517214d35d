/* Non-blocking calls that stay non-blocking under a workaround.
 *
 * The workaround starts its sub-calls (non-blocking sub-collectives on the
 * same communicator, in order) and the caller gets one generalized request.
 * MPI cannot progress a generalized request by itself, so the layer
 * intercepts every way of completing a request (MPI_Wait, Test, Waitall,
 * Waitany, Waitsome, Testall, Testany, Testsome, Request_free,
 * Request_get_status): where one of these requests is among the arguments
 * it first moves the sub-calls on, and when all are done releases what they
 * kept and completes the generalized request; then the call goes to PMPI as
 * it came. Without such requests outstanding the interception is one atomic
 * load. A request the caller frees early is still moved on by later calls
 * and finished at MPI_Finalize. A persistent collective's carrier
 * (persistent.h) stands for the one its Start made: among the arguments,
 * it is moved on as that one is. */
#ifndef SCALEGUARD_PENDING_H
#define SCALEGUARD_PENDING_H

#include "runner.h"

/* Hand the runner's started sub-calls to a new generalized request in
 * *request (the runner is emptied). With none started, the request is
 * complete already. Returns an MPI error code; on error the sub-calls have
 * been waited for. */
int sg_pending_start(struct sg_runner *runner, MPI_Request *request);

/* Let go of `request` (sg_pending_start's) as MPI_Request_free does, and
 * call done(state) once it is complete: at once where it is (a carrier's
 * run, persistent.h). Until then the completion calls take `stands_for`
 * (the carrier, which done completes) for it: waiting for that one moves
 * it on. */
void sg_pending_release(MPI_Request request, MPI_Request stands_for, void (*done)(void *),
                        void *state);

/* Finish the one that `stands_for` stands for, if any. */
void sg_pending_finish(MPI_Request stands_for);

/* Finish every outstanding one (MPI_Finalize). */
void sg_pending_finish_all(void);

#endif
