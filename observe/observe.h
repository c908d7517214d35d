/* The layer's observers of the calls it sees: the hang watchdog
 * (watchdog/watch.h) and the trace (trace/trace.h). The wrappers tell this
 * module of each call's entry and exit, a workaround's run and sub-calls,
 * and completions; it resolves what they share once (the communicator's
 * identity and the call's number on it, the time) and hands it on to those
 * that run. One load when none runs: callers need not test sg_observing. */
#ifndef SCALEGUARD_OBSERVE_H
#define SCALEGUARD_OBSERVE_H

#include <stdatomic.h>

#include "observed_call.h"
#include "watch.h"

/* Which observers run: set at MPI_Init, cleared at MPI_Finalize. */
#define SG_OBSERVE_WATCHDOG 1
#define SG_OBSERVE_TRACE 2
extern atomic_int sg_observing;

/* At MPI_Init, on every rank, once the ranks agreed on the settings
 * (collective on MPI_COMM_WORLD when any observer runs: the job's name is
 * rank 0's). watch_seconds 0: no watchdog; trace_dir NULL: no trace. */
void sg_observe_start(double watch_seconds, enum sg_watch_action action, const char *trace_dir);

void sg_observe_enter(const struct sg_observed_call *call);
/* Returns err. */
int sg_observe_leave(int err);

/* Inside the call entered: the layer left it alone (why: a word), or ran a
 * workaround (its name), which starts sub-calls (each named as started). */
void sg_observe_left_alone(const char *why);
void sg_observe_workaround(const char *name);
void sg_observe_sub_call(const char *routine);

/* Inside the collective entered: the type signature hash the collective
 * checks computed (of one element of this rank's send side's datatype,
 * else its receive side's). */
void sg_observe_signature(uint64_t hash);

/* A completion call (MPI_Wait...): before it, the requests it may complete
 * (their handles change); after it, which completed: `indices` (NULL: the
 * first `completed` of them) and their statuses (NULL: none kept). */
void sg_observe_completing(int count, const MPI_Request *requests);
void sg_observe_completed(int completed, const int *indices, const MPI_Status *statuses);

/* MPI_Finalize is entered; it returned. */
void sg_observe_finalizing(void);
void sg_observe_stop(void);

#endif
