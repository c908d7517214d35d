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

/* Check call c against its ranks' calls. A blocking call is checked at
 * once, with the I-forms on its communicator before it; an I-form is
 * judged at the next blocking call there, when the communicator is freed,
 * or at MPI_Finalize: an I-form never waits for the other ranks to start
 * it (they may start theirs later, or on other communicators first).
 * Returns MPI_SUCCESS -- also after a mismatch only warned about. */
int sg_check_collective(const struct sg_call *c, enum sg_check_action action);

/* At MPI_Init once the ranks agreed on the checks: the checks' copy of
 * MPI_COMM_WORLD (collective). Returns an MPI error code. */
int sg_check_prepare_world(void);

/* In MPI_Comm_free (collective), before PMPI_Comm_free: judge what is
 * open on comm. */
void sg_check_comm_free(MPI_Comm comm);

/* At MPI_Finalize: judge the I-forms' checks still open. */
void sg_check_finish_all(enum sg_check_action action);

#endif
