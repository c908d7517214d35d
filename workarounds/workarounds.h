/* The workarounds, each written once over a description of the collective:
 * every call has a send side and a receive side, and each side is one of a
 * few layouts. W1-B cuts every block into rounds of at most `chunk`
 * elements; W2 replaces the elements of each side by bigger ones. */
#ifndef SCALEGUARD_WORKAROUNDS_H
#define SCALEGUARD_WORKAROUNDS_H

#include "collective.h"

enum sg_layout {
    SG_SIDE_NONE,    /* not used on this rank, or MPI_IN_PLACE */
    SG_SIDE_SINGLE,  /* one block: buf, count */
    SG_SIDE_REGULAR, /* P blocks of `count` elements, block i at i*count */
    SG_SIDE_V,       /* P blocks: counts[i] elements at displs[i] */
    SG_SIDE_PACKED,  /* P consecutive blocks of counts[i] (Reduce_scatter input) */
};

struct sg_side {
    enum sg_layout layout;
    int in_place;       /* the side is MPI_IN_PLACE (its data lives in the other buffer) */
    int count;          /* SINGLE, REGULAR */
    const int *counts;  /* V, PACKED */
    const int64_t *displs; /* V: intended displacements, in extents of type */
    MPI_Datatype type;
};

struct sg_described {
    struct sg_side send, recv;
    int procs;
    int per_block_factor; /* how many blocks a chunk counts for in n (P for Reduce_scatter) */
};

/* Describe the call on this rank. `recv_displs`/`send_displs` are the
 * intended 64-bit displacements of the V sides (recovered, or widened). */
void sg_describe(const struct sg_call *c, int procs, int rank, const int64_t *send_displs,
                 const int64_t *recv_displs, struct sg_described *d);

/* W1-B: run the call as `rounds` sub-calls of the same routine, each moving
 * at most `chunk` elements of every block. Returns an MPI error code, or -1
 * (before any communication) when the layout cannot be cut this way. */
int sg_w1b(const struct sg_entry_points *mpi, const struct sg_call *c,
           const struct sg_described *d, uint64_t chunk, uint64_t rounds);

/* Whether this rank's layout can be cut (checked before any rank talks):
 * V sides need int displacements for every piece. */
int sg_w1b_applies(const struct sg_described *d);

/* The number of rounds W1-B needs on this rank: ceil(largest block / chunk). */
uint64_t sg_w1b_rounds(const struct sg_described *d, uint64_t chunk);

/* W2: the same call with this rank's sides expressed in big elements. Every
 * side decides alone (MPI matches type signatures, not types). Returns an
 * MPI error code, or -1 when W2 cannot apply (reductions; a V side whose
 * counts and displacements share no factor > 1 or stay too large). */
int sg_w2(const struct sg_entry_points *mpi, const struct sg_call *c,
          const struct sg_described *d, uint64_t max_count);

/* Whether sg_w2 would apply on this rank. */
int sg_w2_applies(const struct sg_call *c, const struct sg_described *d, uint64_t max_count);

#endif
