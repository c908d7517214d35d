/* The hang watchdog (paper 001, MPI-CHECK: actual deadlocks): with
 * SCALEGUARD_WATCHDOG=SECONDS, a rank that has been inside one MPI call
 * longer than that is reported, with what every rank of the job is doing
 * and the cause where their states show one.
 *
 * Every watched call writes what it is (routine, communicator, root, peer,
 * tag, the call's number on the communicator) into this process's state
 * record on entry and clears it on exit: a few stores, no system call, no
 * MPI call. A helper thread per process, which never calls MPI (so
 * MPI_THREAD_MULTIPLE is not needed), copies the record into the job's
 * state directory when it has held a while, and when its own rank has been
 * in one call past the limit reads every rank's file and tells what it
 * finds (watch_state.h); with SCALEGUARD_WATCHDOG_ACTION=abort it then
 * ends the job. The directory is the side channel between nodes:
 * SCALEGUARD_WATCHDOG_DIR, by default .scaleguard-watchdog in the working
 * directory, which must be shared by the job's nodes. */
#ifndef SCALEGUARD_WATCH_H
#define SCALEGUARD_WATCH_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>

#include "comm_identity.h"
#include "observed_call.h"
#include "watch_state.h"

/* Set at MPI_Init when the ranks agreed to watch; cleared at MPI_Finalize. */
extern atomic_int sg_watching;

/* Record the call this process enters (the observer resolved its
 * communicator's identity, the call's number on it and the time), and
 * that it left. */
void sg_watch_enter(const struct sg_observed_call *call, struct sg_comm_identity *identity,
                    uint64_t number, double since);
void sg_watch_leave(double since);

/* MPI_Send, watched: held until received (held_send.c). */
int sg_watch_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm);

/* Inside a watched call: a workaround runs it (its name), and starts its
 * sub-calls (each named as started). */
void sg_watch_workaround(const char *name);
void sg_watch_sub_call(const char *routine);

enum sg_watch_action { SG_WATCH_REPORT, SG_WATCH_ABORT };
#define SG_WATCH_ABORT_CODE 14 /* the exit code of the reporting rank */

/* At MPI_Init, on every rank, once the ranks agreed on the setting; `job`
 * names the job's directory, the same on every rank. Makes (0700) and
 * checks the directories and writes the rank's first state (0600), safely
 * (files/safe_file.h). Rank 0 starts before the others, which then check
 * that they see its state file: the directory is shared with its node.
 * Returns 0, or -1 with what failed or was refused in `why` (nothing
 * printed). Then every rank either runs (every rank could start: the
 * helper thread starts) or discards (some could not). */
int sg_watch_start(double seconds, enum sg_watch_action action, const char *job, char *why,
                   size_t why_size);
int sg_watch_run(void);
void sg_watch_discard(void);

/* MPI_Finalize is entered: its state, for the other ranks to see. */
void sg_watch_finalizing(void);

/* MPI_Finalize returned: the helper stops and the rank's file goes. */
void sg_watch_stop(void);

#endif
