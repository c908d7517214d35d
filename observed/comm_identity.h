/* What the layer's observers (the watchdog, the trace) name a communicator
 * by, cached on it as an attribute made on its first observed call:
 *  - an id its members compute alike, without a message: a digest of its
 *    members' world ranks; a duplicate (MPI_Comm_dup, _idup, _dup_with_info,
 *    the layer's private copies) takes a digest of its parent's id and how
 *    many duplicates were made of the parent before it, which the members
 *    count alike. Two communicators of the same members made otherwise
 *    (two splits alike) share an id;
 *  - its members' world ranks, in its ranks' order (an intercommunicator:
 *    both groups), and as ranges ("0-3,8");
 *  - the count of the collective calls made on it (sg_comm_identity_next_call). */
#ifndef SCALEGUARD_COMM_IDENTITY_H
#define SCALEGUARD_COMM_IDENTITY_H

#include <mpi.h>
#include <stdint.h>

struct sg_comm_identity {
    uint64_t id;
    uint64_t parent;      /* the id of the communicator it duplicates, or 0 */
    int size;             /* its ranks (an intercommunicator's: both groups') */
    int rank;             /* this process's rank in it (in its local group) */
    int *local;           /* world rank of each rank of the local group (MPI_UNDEFINED:
                           * a process outside MPI_COMM_WORLD) */
    int *remote;          /* the remote group's, or NULL */
    int local_size, remote_size;
    uint64_t collectives; /* collective calls entered on it */
    uint64_t dups;        /* duplicates made of it */
    uint32_t traced;      /* its number in this rank's trace (trace/); 0: not described */
    char members[1024];   /* world ranks as ranges, ascending; "" when they do not fit */
};

/* The identity of `comm`, made on first use; NULL for MPI_COMM_NULL, or
 * where MPI fails. Valid until the communicator is freed; a thread other
 * than the caller's reads it under sg_comm_identity_lock. */
struct sg_comm_identity *sg_comm_identity(MPI_Comm comm);

/* Held while identities are freed (with their communicators). */
void sg_comm_identity_lock(void);
void sg_comm_identity_unlock(void);

/* The world rank of the communicator's rank `rank` (of its remote group on
 * an intercommunicator); `rank` itself where identity is NULL or the rank
 * is out of range. */
int sg_comm_world_rank(const struct sg_comm_identity *identity, int rank);

/* The number of the collective call entered now on it: 1, 2, ... */
static inline uint64_t sg_comm_identity_next_call(struct sg_comm_identity *identity)
{
    return identity ? ++identity->collectives : 0;
}

#endif
