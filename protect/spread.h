/* A communicator's spread: the number of distinct nodes its ranks are on,
 * the fact by which an entry measured on some nodes (`nodes = N`) is chosen
 * for its calls (layer.h, sg_rules_at_spread). Internal to protect/.
 *
 * A node is a shared-memory domain as the MPI sees it
 * (MPI_COMM_TYPE_SHARED): where its transport and its node-aware
 * algorithms change. Every rank must find the same spread (it chooses
 * paths that must agree), and the ranks of a communicator do not meet on
 * a call of the layer's at the same time (a non-root of Gatherv, a call
 * that repeats a quiet one, passes before any look), so the spread is
 * found without a message: MPI_Init learns once the node of every rank of
 * MPI_COMM_WORLD (sg_spread_prepare_world), and a communicator's spread
 * follows from its group, on each rank alike, found on the first call that
 * asks and cached on the communicator. */
#ifndef SCALEGUARD_SPREAD_H
#define SCALEGUARD_SPREAD_H

#include <mpi.h>

/* At MPI_Init, on every rank of MPI_COMM_WORLD alike, where bounds are in
 * force: which node each world rank is on (MPI_Comm_split_type, then one
 * Allreduce of 2 ints; where the job spans more than one node an Allgather
 * of one int per rank, kept: 4 bytes per world rank). Returns an MPI error
 * code; on any failure every spread is unknown. */
int sg_spread_prepare_world(void);

/* The number of nodes the ranks of intracommunicator `comm` are on; 0 where
 * it is not known (sg_spread_prepare_world did not run or failed, a member
 * of another MPI_COMM_WORLD, an intercommunicator), the same on every rank
 * of `comm`. */
int sg_comm_spread(MPI_Comm comm);

#endif
