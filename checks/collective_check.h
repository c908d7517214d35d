/* The collective checks (paper 000, MPE collchk): before the layer decides
 * anything about a collective call, its ranks compare what they passed --
 * the routine, the call's number on the communicator, root, op, the use of
 * MPI_IN_PLACE, the type signatures of every pair of blocks that meet --
 * in one Allreduce on a private copy of the communicator. A mismatch is
 * diagnosed (one Gather) and told once per job by the communicator's rank
 * 0, then the job aborts, or only that when the action is to warn.
 *
 * What each routine's ranks must agree on follows from its row of
 * routines.h (its sides' layouts, root, reduction, in-place side): no
 * routine has code of its own here. */
#ifndef SCALEGUARD_COLLECTIVE_CHECK_H
#define SCALEGUARD_COLLECTIVE_CHECK_H

#include "collective.h"

enum sg_check_action { SG_CHECK_ABORT, SG_CHECK_WARN };

/* What a mismatch does, and how many consecutive calls on a communicator
 * share one exchange (1: each call's before it reaches MPI). The same on
 * every rank (the ranks agree on them at MPI_Init). */
struct sg_check_options {
    enum sg_check_action action;
    unsigned batch;
};
#define SG_CHECK_BATCH_MAX 1024

/* At MPI_Init once the ranks agreed on the checks: their options, and the
 * checks' copy of MPI_COMM_WORLD (collective). Returns an MPI error code. */
int sg_check_prepare_world(const struct sg_check_options *options);

/* Check call c against its ranks' calls. Calls are exchanged in chunks of
 * `batch` consecutive ones on a communicator, each once its last call is
 * made (Iallreduce); a blocking call waits for the chunks exchanged before
 * it, its own included, so with batch 1 every blocking call is checked
 * before it reaches MPI. An I-form never waits: what it started is judged
 * when done, at the latest at the next blocking call on the communicator,
 * its MPI_Comm_free or MPI_Finalize. Returns MPI_SUCCESS -- also after a
 * mismatch only warned about -- or the MPI error of decoding a datatype. */
int sg_check_collective(const struct sg_call *c);

/* In MPI_Comm_free (collective), before PMPI_Comm_free: judge everything
 * on comm. */
void sg_check_comm_free(MPI_Comm comm);

/* At MPI_Finalize (before PMPI_Finalize): judge everything, on every
 * communicator, then free the checks' own datatype and op. */
void sg_check_finish_all(void);

#endif
