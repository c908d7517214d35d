/* The diagnosis of a collective call whose ranks disagree: what each rank
 * passed, gathered to the communicator's rank 0, which names the ranks and
 * what they disagree on, in one message; then the action. */
#ifndef SCALEGUARD_CHECK_REPORT_H
#define SCALEGUARD_CHECK_REPORT_H

#include "collective_check.h"

/* The flags of the checks' exchange (OR over the ranks). */
enum {
    SG_CHECK_MISUSED = 1,     /* MPI_IN_PLACE where the standard does not allow it */
    SG_CHECK_MPI_REPORTS = 2, /* an argument MPI itself reports (a negative count) */
    SG_CHECK_LAST = 4,        /* a rank's last records on the communicator */
};

/* One side of a call on one rank. */
struct sg_check_side {
    int32_t present;  /* 0: not significant here, or MPI_IN_PLACE */
    int32_t per_peer; /* counts per rank (the blocks: struct sg_check_block) */
    int32_t predefined, own_types; /* own_types: a datatype per block (Alltoallw) */
    int64_t count;    /* else its one count */
    MPI_Datatype type;
    struct sg_signature type_signature; /* of one element of `type` */
    char type_name[MPI_MAX_OBJECT_NAME]; /* a predefined type's, for the diagnosis */
};

/* What one rank passed to one collective call. */
struct sg_check_facts {
    int32_t routine, root, op; /* root -1 without one; op: sg_check_op_index */
    int32_t send_in_place, recv_in_place, misused, pairs;
    int32_t blocks_known, unused; /* for the diagnosis: its blocks are sent along */
    uint64_t call; /* the call's number on the communicator, from 1 */
    struct sg_check_side send, recv;
};

/* A block this rank sends to, or receives from, one rank. */
struct sg_check_block {
    int64_t count; /* -1: none */
    uint64_t hash, elements;
};

/* The exit code of a job the checks abort (MPI_Abort's errorcode). */
#define SG_CHECK_ABORT_CODE 13

/* The largest communicator whose blocks a diagnosis names pair by pair
 * (rank 0 gathers 2 x P blocks of every rank). */
#define SG_CHECK_PAIRS_NAMED_MAX 1024

/* MPI_SUM, MPI_MAX, ...: 1, 2, ...; a user-defined op
 * SG_CHECK_USER_OP; 0 for MPI_OP_NULL. */
#define SG_CHECK_USER_OP 99
int sg_check_op_index(MPI_Op op);

/* A rank's routine in its facts where it made no call: a chunk of its
 * calls cut short (SG_CHECK_NO_CALL), its MPI_Finalize or the
 * communicator's MPI_Comm_free after its last call, or no answer to rank 0
 * in time (SG_CHECK_NO_ANSWER). */
#define SG_CHECK_NO_CALL (-1)
#define SG_CHECK_NO_ANSWER (-2)
#define SG_CHECK_FINALIZED (-3)
#define SG_CHECK_FREED (-4)

/* On each rank of `copy` (the checks' private copy of `comm`) that judges
 * a call on which the ranks disagree, whenever it does: rank 0 collects the
 * others' facts (and `blocks`, P sent then P received, of a blocking call
 * with counts per rank: NULL where not known; `block_procs` their P) by
 * point to point, for ANSWER_SECONDS, and tells what the ranks disagree
 * on, the first time in this process; the others send theirs. Then the
 * job aborts (rank 0 does; another rank too if rank 0 has not within a few
 * seconds), or goes on. `flags` are the exchange's. */
void sg_check_report(MPI_Comm copy, MPI_Comm comm, struct sg_check_facts *facts,
                     uint64_t flags, const struct sg_check_block *blocks, int block_procs,
                     enum sg_check_action action);

/* At MPI_Finalize: the answers' sends let go. */
void sg_check_report_finish(void);

#endif
