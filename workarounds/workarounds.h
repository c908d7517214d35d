/* The workarounds, each written once over a description of the collective:
 * every call has a send side and a receive side, and each side is one of a
 * few layouts. W1-B cuts every block into rounds of at most `chunk`
 * elements, and a layout whose displacements do not fit in int into
 * windows; W2 replaces the elements of each side by bigger ones. */
#ifndef SCALEGUARD_WORKAROUNDS_H
#define SCALEGUARD_WORKAROUNDS_H

#include "collective.h"
#include "runner.h"

/* A datatype's extent: where element i of a buffer of it starts. */
static inline MPI_Aint sg_extent_of(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(type, &lb, &extent);
    return extent;
}

/* The greatest common divisor, >= 0 (W2's factor, the lcm of two ends'
 * signature lengths in W1-B point to point). */
static inline int64_t sg_gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

/* A datatype holding basic elements [first, first + n) of an array of
 * `type` whose element 0 is at displacement 0, each at its place in that
 * array: the piece of a block that W1-B moves, cut at the same basic
 * element on every rank whatever datatype each rank passes (the ranks'
 * type signatures match, so basic element j is the same on all). Its lb
 * and extent are those of a struct of its entries (resize to use it in an
 * array). Returns MPI_SUCCESS, an MPI error code, or -1 for a type whose
 * elements it cannot address (a constructor MPI 4.0 does not have). */
int sg_type_range(MPI_Datatype type, uint64_t first, uint64_t n, MPI_Datatype *range);

struct sg_side {
    enum sg_layout layout;
    int in_place;       /* the side is MPI_IN_PLACE (its data lives in the other buffer) */
    int blocks;         /* REGULAR, V, W, PACKED: P, or the side's neighbours (a
                         * neighbourhood collective's: struct sg_call_side) */
    MPI_Count count;    /* SINGLE, REGULAR */
    struct sg_counts counts; /* V, W, PACKED */
    const int64_t *displs; /* V: intended displacements, in extents of type; W: in bytes */
    MPI_Datatype type;  /* W: MPI_DATATYPE_NULL */
    const MPI_Datatype *types; /* W: each block's datatype */
    uint64_t unit;      /* W1-B's units in one element of type: its basic elements where
                         * W1-B counts in them (by_basic), else 1 */
    int large;          /* of a large-count form: its sub-calls take MPI_Count counts and
                         * MPI_Aint displacements */
    int aint_displs;    /* its displacements are MPI_Aint (sg_displs_are_aint: a
                         * large-count form's, Neighbor_alltoallw's in every form),
                         * which need no window */
};

struct sg_described {
    struct sg_side send, recv;
    int procs;            /* the communicator's size (each side's blocks: `blocks`) */
    int neighbours;       /* the blocks are the topology's neighbours (routines.h) */
    int trigger_procs;    /* the triggers' P: procs, or the neighbourhood's (sg_call_procs) */
    int per_block_factor; /* how many blocks a chunk counts for in n (P for Reduce_scatter) */
    int pairwise;         /* Alltoall(v,w): each rank's block for rank i is matched with rank
                           * i's block for it */
    int regular;          /* Scatter, Gather, Allgather, Alltoall: every block has the same
                           * `block_bytes` on every rank (type signatures match) */
    int64_t block_bytes;
    int by_basic;         /* W1-B's chunk and offsets count basic elements (below) */
};

/* Describe the call on this rank. `recv_displs`/`send_displs` are the
 * intended 64-bit displacements of the V sides (recovered, or widened). */
void sg_describe(const struct sg_call *c, int procs, int rank, const int64_t *send_displs,
                 const int64_t *recv_displs, struct sg_described *d);

/* W1-B's displacement windows. A V side whose intended (64-bit)
 * displacements do not fit in int -- a Class D layout, or a last block that
 * ends past INT_MAX -- is split into windows: groups of its blocks, taken in
 * displacement order, such that a base exists from which every displacement
 * and every block end of the group fits in int (negative ones included, so a
 * window spans up to 2^32 - 1 extents). Each window is run as sub-calls of
 * its own, the same routine with the buffer moved to base*extent bytes and
 * counts 0 for the ranks outside the window; the rebased displacements are
 * ints computed from the 64-bit ones. A layout that fits needs one window
 * with base 0: the plain W1-B.
 *
 * Alltoallv is the exception: rank r's block for rank i is matched with
 * rank i's block for r, in whatever window each of them puts it, so its V
 * sides are never split. Each side that spans under 2^32 extents is only
 * rebased (one window, `rebase`), which is a change of that rank's
 * description alone; a wider side cannot be cut.
 *
 * Where the ranks may pass different datatypes for the same data (every
 * routine but the reductions, whose datatype is the same on every rank, and
 * the v-routines, whose blocks over the chunk go point to point whole, or
 * whose ranks compare their types: Allgatherv), W1-B counts its chunk and
 * its offsets in basic elements (`by_basic`), so that every rank cuts its
 * blocks at the same basic element, and makes the same number of rounds,
 * whatever datatype it passes: a piece of whole elements is moved as such,
 * any other piece as one element of a type that holds just its basic
 * elements (sg_type_range).
 *
 * The regular routines run W1-B as their v-form (Scatter as Scatterv, ...):
 * a piece of every block is a contiguous sub-buffer there, where the
 * routine itself would need a strided type that MPICH packs (11-45x slower).
 * Their windows are runs of `ranks` consecutive ranks whose blocks span at
 * most INT_MAX bytes, so at most INT_MAX elements of any type: every rank
 * computes them alike from the block's bytes. Alltoall's windows go in
 * pairs (`pairs`): in sub-call k of a round the ranks of window a exchange
 * with those of window (k - a) mod W, so that each pair of windows (and
 * each window with itself) meets once per round, in place too, and every
 * rank moves data in every sub-call (Open MPI 4.1.4's in-place
 * MPI_Ialltoallv hangs where some ranks' counts are all 0 and others' not). */
struct sg_windows {
    int count;      /* W >= 1 */
    int mine;       /* the window of this rank's own block (its SINGLE side), -1: none */
    int *of;        /* the V side's holder, when rebased: each rank's window (-1: empty) */
    int64_t *base;  /* with `of`: each window's base, in extents of the V side's type */
    int64_t rebase[2]; /* without `of` (W = 1): the base of the send and the receive V side */
    int ranks;      /* regular routines: window k holds ranks k*ranks.. (k+1)*ranks - 1 */
    int pairs;      /* Alltoall: each sub-call pairs every window with another */
};

/* W = 1, base 0, nothing allocated: what a rank without a V side to cut uses
 * until it learns the windows. */
#define SG_WINDOWS_ONE                                                                         \
    ((struct sg_windows){                                                                      \
        .count = 1, .mine = 0, .of = NULL, .base = NULL, .rebase = {0, 0}, .ranks = 0, .pairs = 0})

/* Plan the windows of this rank's V side (none: SG_WINDOWS_ONE). Returns
 * MPI_SUCCESS, MPI_ERR_NO_MEM, or -1 when W1-B cannot cut this layout at all:
 * an Alltoallv side spanning 2^32 extents or more, and a Reduce_scatter input
 * whose elements interleave (it cannot be packed). */
int sg_windows_plan(const struct sg_described *d, int rank, struct sg_windows *w);

/* A digest of the partition (0 for W = 1), for ranks that compare their plans. */
int64_t sg_windows_fingerprint(const struct sg_windows *w, int procs);

void sg_windows_free(struct sg_windows *w);

/* Whether a split call could give other bits than the call itself: NULL
 * when not, else why. Only reductions can: W1-B reduces the vector in
 * pieces and W1-A the ranks in groups, and the MPI picks its algorithm, and
 * with it the order in which each element's operands combine, by message
 * size and P. So a reduction is split only where that order cannot matter:
 * bitwise and logical operations, integer arithmetic (modular, so exact in
 * any order), MIN/MAX of integers, MINLOC/MAXLOC of integer pairs. Floating
 * MIN/MAX are exact in value but not in bits (which of -0.0 and +0.0, or of
 * two NaNs, survives depends on the order). */
const char *sg_split_risk(const struct sg_call *c);

/* Whether a type has no holes: its elements' bytes can be copied whole. */
int sg_type_gapless(MPI_Datatype type);

/* The bytes a plain copy moves where it puts every byte where MPI would,
 * from from_count elements of from_type to to_count of to_type, else -1:
 * both types gapless and of the same size in all, and both predefined or
 * the same type (a derived type may order its bytes otherwise than its
 * signature, e.g. a pair of ints at offsets 4 and 0, but alike at both
 * ends). */
int64_t sg_copy_bytes(int64_t from_count, MPI_Datatype from_type, int64_t to_count,
                      MPI_Datatype to_type);

/* W1-B: run the call as `rounds` sub-calls of the same routine (a regular
 * one: of its v-form) per window (Alltoall: per pairing), each moving at most
 * `chunk` elements of every block of that window. A reduction is
 * elementwise whatever it delivers (to the root, to all, scattered, a
 * prefix, Exscan's exclusive one): element i of its result combines
 * element i of the ranks' inputs alone, so its pieces of the count, one
 * count for both buffers and one datatype on every rank, give the call's
 * result where sg_split_risk allows the split; the Reduce_scatter family
 * where the MPI reduces faster by Reduce (tuning.h), as one Reduce per block
 * and round, and else its I-forms round after round (sg_w1b_staged). A rank without a V side
 * needs only w->count and w->mine. Returns an MPI error code, or -1 (before
 * any communication) when the layout cannot be cut this way, the call is a
 * reduction that sg_split_risk bars, or the v-form may not take the pieces
 * (runner->allows), on every rank alike. */
int sg_w1b(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
           uint64_t chunk, uint64_t rounds, const struct sg_windows *w);

/* Whether W1-B runs `routine` (an I-form whose input it packs) round after
 * round on the private copy of its communicator (private_comm.h), which an
 * I-call past a bound would otherwise make, blocking, at its first W1-B. */
int sg_w1b_staged(enum sg_routine routine);

/* W1-B for Gatherv, Scatterv, Alltoallv and their I-forms under a bound,
 * with no plan sent: every rank sees whether its own blocks (all of them,
 * at the root) exceed `chunk` basic elements, and so does the rank at each
 * block's other end (the same basic elements, whatever datatype each
 * passes), so each knows its part alone. One round of the routine itself
 * moves every block of at most `chunk`; each larger one goes point to
 * point between its two ranks on `copy` (a private communicator:
 * private_comm.h) as one message. An in-place Alltoallv's round one moves
 * about the first `chunk` of every larger block and the rest is exchanged
 * in steps by MPI_Sendrecv_replace, pair after pair in rank order, both
 * ends cutting at the same basic elements (they tell each other their
 * types' signature lengths first). Where no block exceeds it, round one is
 * the call itself. Returns an MPI error code, or -1 (before any communication) when
 * round one's pieces of a side span 2^32 extents or more. */
int sg_w1b_p2p(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
               int64_t chunk, MPI_Comm copy);

/* The number of rounds W1-B needs on this rank: ceil(largest block / chunk). */
uint64_t sg_w1b_rounds(const struct sg_described *d, uint64_t chunk);

/* W2: the same call with this rank's sides expressed in big elements. Every
 * side decides alone (MPI matches type signatures, not types). Returns an
 * MPI error code, or -1 when W2 cannot apply (reductions; a V side whose
 * counts and displacements share no factor > 1 or stay too large). */
int sg_w2(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
          uint64_t max_count);

/* Whether sg_w2 would apply on this rank; where not, `*why` (when `why`
 * is not NULL) gets the reason. */
int sg_w2_applies(const struct sg_call *c, const struct sg_described *d, uint64_t max_count,
                  const char **why);

#endif
