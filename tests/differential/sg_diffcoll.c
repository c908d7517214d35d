/* sg_diffcoll: seeded random collective calls, with a digest of every byte
 * every rank was given, for differential testing of libscaleguard.so.
 *
 *   sg_diffcoll --seed S --calls N [--max-count C] [--routines LIST|all]
 *               [--mixed-types] [--output FILE] [--trace]
 *
 * Every rank derives each call's choices (routine, communicator, datatype,
 * op, root, counts, displacements, MPI_IN_PLACE, completion) from one
 * splitmix64 stream seeded by (seed, call), so all ranks agree on them
 * without talking. The data a rank sends is a function of (seed, call,
 * communicator, rank, position; for Alltoallw also the block's destination),
 * so any rank can regenerate what any other rank sent; every buffer is first
 * filled with a pattern derived from (seed, call, world rank, send|recv), so
 * bytes the call must not touch (holes inside an element, gaps between
 * blocks) are checked too.
 *
 * What the calls cover: the 42 collectives, and with an MPI 4 library their 21
 * persistent forms (MPI_X_init with MPI_INFO_NULL, one MPI_Start, completed
 * as an I-form's call, then MPI_Request_free); MPI_COMM_WORLD, a dup, and two
 * halves of it (the upper one in reverse rank order), and for the
 * neighbourhood collectives a periodic 1-D Cartesian ring of the world
 * (P >= 3) or a distributed graph of it of unequal degrees drawn from the
 * seed (make_comms), each block an edge's; MPI_CHAR, MPI_INT,
 * MPI_DOUBLE, MPI_UINT64_T, contiguous(3 ints), vector(2 x 1 int, stride 3),
 * resized(2 ints, lb 8, extent 12) and the same with the data at offset 8
 * (true lb 8), indexed(2 ints at 0, 1 at 3), struct(int at 4, int at 0);
 * counts 0..--max-count, sometimes all multiples of 2, 3, 4 or 8 (so W2 can
 * apply to v-routines); v-routine displacements non-descending with random
 * gaps; Alltoallw's and Neighbor_alltoallw's blocks each with its own count
 * and datatype (any of the above, a block's two ends of one type signature;
 * Neighbor_alltoallw's of one number of basic elements a call), at byte
 * displacements in rank order with random gaps of whole elements or of any
 * bytes (so not always multiples of the extent), in place with a symmetric
 * matrix; MPI_IN_PLACE where the standard allows it; arguments the standard
 * calls insignificant (recvcount at a Gather non-root, sendcount/ sendtype
 * with MPI_IN_PLACE, the send arrays of Alltoall(v,w) in place, count and
 * displacement arrays at Gatherv/ Scatterv non-roots) sometimes set to junk
 * or NULL. Reductions use only exact ops: SUM/PROD/BAND/BXOR/MAX/MIN on
 * MPI_INT and MPI_UINT64_T, MAX/MIN on MPI_DOUBLE, and a commutative user op
 * ((1+a)(1+b)-1 on ints) on MPI_INT and on every derived type (predefined ops
 * on derived types are not allowed in collectives). With --mixed-types, a
 * call of MPI_INT that is not a reduction and whose counts and displacements
 * are all multiples of 2 or 3 lets each rank describe its own buffers with
 * its own type of the int family (int, contiguous(3 ints), the vector, the
 * resized, the shifted, the indexed and the struct type: whichever hold a
 * number of ints dividing that granule), drawn per rank: the type signatures
 * match, the types do not (12 ints on one rank, 4 x contiguous(3 ints) or 6 x
 * vector on another). Half the other calls are made such calls (not
 * reductions: see mixes()), blocking and I-forms alike; an Alltoallw block's
 * two ends each take a type of their own that holds the block's basic
 * elements (end_type()). Non-blocking calls come in batches of up to 3
 * consecutive calls (blocking ones issued in between while the others are
 * pending) and complete by MPI_Wait or MPI_Test loops (in or against issue
 * order) or MPI_Waitall/Waitany/Testall/Testsome, sometimes with an
 * Irecv/Isend pair to self in the same request array.
 *
 * Output (--output FILE): one file per rank, FILE.rank<world rank>, one line
 * per call, in call order:
 *     <call> <routine> <world rank> <digest>
 * e.g. "17 MPI_Igatherv 2 9c1f0e33d2a4b870". The digest is FNV-1a 64 over
 * the rank's receive region (the whole memory the call may write, holes and
 * gaps included) followed by its send region (which must be unchanged).
 * Exceptions, where the standard leaves bytes undefined: with MPI_IN_PLACE,
 * Reduce_scatter(_block) only digests the rank's result block (the rest of
 * the receive buffer held the input); Exscan's rank 0 digests no receive
 * buffer (its result is undefined). Buffers that are insignificant on a
 * rank (e.g. recvbuf of Gather on a non-root) are passed as NULL and not
 * digested. Two runs of the same seed and rank count must give identical
 * files, whatever algorithm the MPI (or a workaround) picks: only exact
 * reduction ops are used.
 *
 * Self-check: every rank also compares its receive region with the image it
 * computes itself (fill pattern plus the senders' regenerated data, or the
 * exact reduction) and its send region with a copy taken before the call.
 * Mismatches are reported on stderr with call, routine, rank and offset.
 *
 * Exit status: 0 all good, 1 self-check mismatch, 2 usage error, 4 an MPI
 * call returned an error (all communicators use MPI_ERRORS_RETURN; the
 * program then calls MPI_Abort(MPI_COMM_WORLD, 4)).
 *
 * Rank 0 prints one summary line: calls per routine, the total, the
 * self-check result, and which shared object MPI_Bcast resolved to ("MPI_Bcast
 * from libscaleguard.so" when the layer is preloaded; run-differential.sh
 * checks it, so a preload that ld.so ignored cannot pass for protection). */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#include <mpi.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* Hashes and the PRNG                                                  */
/* ------------------------------------------------------------------ */

#define GOLDEN UINT64_C(0x9e3779b97f4a7c15)

static uint64_t mix64(uint64_t z)
{
    z += GOLDEN;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* splitmix64 */
typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *r)
{
    r->s += GOLDEN;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static int rng_below(rng_t *r, int n) /* uniform in [0, n) */
{
    return n > 0 ? (int)(rng_next(r) % (uint64_t)n) : 0;
}

static int rng_chance(rng_t *r, int num, int den)
{
    return rng_below(r, den) < num;
}

/* FNV-1a 64 */
static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)

/* ------------------------------------------------------------------ */
/* Routines                                                            */
/* ------------------------------------------------------------------ */

enum base {
    B_BCAST,
    B_SCATTER,
    B_SCATTERV,
    B_GATHER,
    B_GATHERV,
    B_ALLGATHER,
    B_ALLGATHERV,
    B_ALLTOALL,
    B_ALLTOALLV,
    B_ALLTOALLW,
    B_REDUCE,
    B_ALLREDUCE,
    B_REDUCE_SCATTER,
    B_REDUCE_SCATTER_BLOCK,
    B_SCAN,
    B_EXSCAN,
    B_NALLGATHER, /* the neighbourhood collectives */
    B_NALLGATHERV,
    B_NALLTOALL,
    B_NALLTOALLV,
    B_NALLTOALLW,
    NBASE
};
/* routine = NFORMS * base + form: blocking, I-form, persistent (MPI_X_init,
 * started once; MPI 4: MPICH 4, not Open MPI 4.1) */
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, NFORMS };
#define NROUTINES (NFORMS * NBASE)
#if MPI_VERSION >= 4
#define HAVE_PERSISTENT 1
#else
#define HAVE_PERSISTENT 0
#endif

static const char *const routine_names[NROUTINES] = {
    "MPI_Bcast", "MPI_Ibcast", "MPI_Bcast_init",
    "MPI_Scatter", "MPI_Iscatter", "MPI_Scatter_init",
    "MPI_Scatterv", "MPI_Iscatterv", "MPI_Scatterv_init",
    "MPI_Gather", "MPI_Igather", "MPI_Gather_init",
    "MPI_Gatherv", "MPI_Igatherv", "MPI_Gatherv_init",
    "MPI_Allgather", "MPI_Iallgather", "MPI_Allgather_init",
    "MPI_Allgatherv", "MPI_Iallgatherv", "MPI_Allgatherv_init",
    "MPI_Alltoall", "MPI_Ialltoall", "MPI_Alltoall_init",
    "MPI_Alltoallv", "MPI_Ialltoallv", "MPI_Alltoallv_init",
    "MPI_Alltoallw", "MPI_Ialltoallw", "MPI_Alltoallw_init",
    "MPI_Reduce", "MPI_Ireduce", "MPI_Reduce_init",
    "MPI_Allreduce", "MPI_Iallreduce", "MPI_Allreduce_init",
    "MPI_Reduce_scatter", "MPI_Ireduce_scatter", "MPI_Reduce_scatter_init",
    "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block", "MPI_Reduce_scatter_block_init",
    "MPI_Scan", "MPI_Iscan", "MPI_Scan_init",
    "MPI_Exscan", "MPI_Iexscan", "MPI_Exscan_init",
    "MPI_Neighbor_allgather", "MPI_Ineighbor_allgather", "MPI_Neighbor_allgather_init",
    "MPI_Neighbor_allgatherv", "MPI_Ineighbor_allgatherv", "MPI_Neighbor_allgatherv_init",
    "MPI_Neighbor_alltoall", "MPI_Ineighbor_alltoall", "MPI_Neighbor_alltoall_init",
    "MPI_Neighbor_alltoallv", "MPI_Ineighbor_alltoallv", "MPI_Neighbor_alltoallv_init",
    "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw", "MPI_Neighbor_alltoallw_init",
};

static int is_reduction(int base)
{
    return base >= B_REDUCE && base <= B_EXSCAN;
}

static int is_neighbourhood(int base)
{
    return base >= B_NALLGATHER;
}

/* A routine whose blocks each have a datatype of their own. */
static int is_w(int base)
{
    return base == B_ALLTOALLW || base == B_NALLTOALLW;
}

/* ------------------------------------------------------------------ */
/* Datatypes                                                           */
/* ------------------------------------------------------------------ */

enum basic { BT_CHAR, BT_INT, BT_DOUBLE, BT_U64 };
static const int basic_size[] = {1, 4, 8, 8};

enum {
    T_CHAR,
    T_INT,
    T_DOUBLE,
    T_U64,
    T_CONTIG3,  /* contiguous(3, MPI_INT) */
    T_VECTOR,   /* vector(2 blocks of 1 int, stride 3): size 8, extent 16 */
    T_RESIZED,  /* resized(contiguous(2, MPI_INT), lb 8, extent 12): data below lb */
    T_SHIFTED,  /* resized(hindexed_block(2 ints at 8), lb 8, extent 12): true lb 8 */
    T_INDEXED,  /* indexed(2 ints at 0, 1 at 3): size 12, extent 16 */
    T_SWAPPED,  /* struct(int at 4, int at 0): the second int first in memory */
    NTYPES
};

struct dtype {
    const char *name;
    MPI_Datatype dt;
    int basic;
    int k;         /* basic elements per element */
    int off[3];    /* their byte offsets from the element's address */
    MPI_Aint lb;   /* as MPI reports it */
    MPI_Aint extent;
};

static struct dtype types[NTYPES] = {
    [T_CHAR] = {"char", MPI_DATATYPE_NULL, BT_CHAR, 1, {0, 0, 0}, 0, 1},
    [T_INT] = {"int", MPI_DATATYPE_NULL, BT_INT, 1, {0, 0, 0}, 0, 4},
    [T_DOUBLE] = {"double", MPI_DATATYPE_NULL, BT_DOUBLE, 1, {0, 0, 0}, 0, 8},
    [T_U64] = {"uint64", MPI_DATATYPE_NULL, BT_U64, 1, {0, 0, 0}, 0, 8},
    [T_CONTIG3] = {"contig3int", MPI_DATATYPE_NULL, BT_INT, 3, {0, 4, 8}, 0, 12},
    [T_VECTOR] = {"vector2x1s3int", MPI_DATATYPE_NULL, BT_INT, 2, {0, 12, 0}, 0, 16},
    [T_RESIZED] = {"resized2int_lb8", MPI_DATATYPE_NULL, BT_INT, 2, {0, 4, 0}, 8, 12},
    [T_SHIFTED] = {"shifted2int_lb8", MPI_DATATYPE_NULL, BT_INT, 2, {8, 12, 0}, 8, 12},
    [T_INDEXED] = {"indexed2+1int", MPI_DATATYPE_NULL, BT_INT, 3, {0, 4, 12}, 0, 16},
    [T_SWAPPED] = {"struct2int_swapped", MPI_DATATYPE_NULL, BT_INT, 2, {4, 0, 0}, 0, 8},
};

/* The first and one past the last byte of an element's data. */
static MPI_Aint true_lb(const struct dtype *t)
{
    int lowest = t->off[0];
    for (int j = 1; j < t->k; j++)
        lowest = t->off[j] < lowest ? t->off[j] : lowest;
    return lowest;
}

static MPI_Aint true_ub(const struct dtype *t)
{
    int highest = t->off[0];
    for (int j = 1; j < t->k; j++)
        highest = t->off[j] > highest ? t->off[j] : highest;
    return highest + basic_size[t->basic];
}

/* Bytes spanned by `span` elements from the buffer address. */
static size_t region_bytes(const struct dtype *t, long span)
{
    return span > 0 ? (size_t)((span - 1) * t->extent + true_ub(t)) : 0;
}

/* ------------------------------------------------------------------ */
/* Reduction ops                                                       */
/* ------------------------------------------------------------------ */

enum { O_SUM, O_PROD, O_BAND, O_BXOR, O_MAX, O_MIN, O_USER, NOPS };
static const char *const op_names[NOPS] = {"sum", "prod", "band", "bxor", "max", "min", "user"};
static MPI_Op ops[NOPS];

/* Which (type, op) pairs are used: only exact ops; predefined ops on basic
 * types only (MPI allows predefined ops on derived types for MPI_Accumulate,
 * not for collectives: MPICH and Open MPI both return MPI_ERR_OP); the
 * user-defined op on MPI_INT and on every derived type, non-contiguous ones
 * included. */
static int combo_ok(int ti, int oi)
{
    switch (ti) {
    case T_CHAR: return 0;
    case T_INT: return 1;
    case T_DOUBLE: return oi == O_MAX || oi == O_MIN;
    case T_U64: return oi != O_USER;
    default: return oi == O_USER;
    }
}

static long userop_foreign;          /* calls of the user op with another datatype */
static char userop_foreign_name[64]; /* the first such datatype */

/* (1 + a)(1 + b) - 1 = a + b + ab (mod 2^32): commutative and associative. */
static uint32_t user_fn32(uint32_t a, uint32_t b)
{
    return a + b + a * b;
}

static void user_apply(const unsigned char *a, unsigned char *b)
{
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    y = user_fn32(x, y);
    memcpy(b, &y, 4);
}

/* The user op, for MPI_INT and for the derived int types: it walks the
 * type's layout itself (elements `extent` apart, ints at `off`), as an
 * application's op on a derived type has to. */
static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const unsigned char *a = in;
    unsigned char *b = inout;
    for (int ti = T_INT; ti < NTYPES; ti++) {
        const struct dtype *t = &types[ti];
        if (ti == T_DOUBLE || ti == T_U64 || *dt != t->dt)
            continue;
        for (long e = 0; e < *len; e++)
            for (int j = 0; j < t->k; j++) {
                size_t off = (size_t)(e * t->extent + t->off[j]);
                user_apply(a + off, b + off);
            }
        return;
    }
    /* Not a datatype this program ever passes: whoever called us changed the
     * datatype behind the application's back. Count it, and treat the data as
     * contiguous ints so the run can go on. */
    int size = 0, namelen = 0;
    MPI_Type_size(*dt, &size);
    if (userop_foreign++ == 0) {
        MPI_Type_get_name(*dt, userop_foreign_name, &namelen);
        if (namelen == 0)
            snprintf(userop_foreign_name, sizeof userop_foreign_name, "(unnamed, size %d)",
                     size);
    }
    size_t n = (size_t)*len * (size_t)size / 4;
    for (size_t i = 0; i < n; i++)
        user_apply(a + 4 * i, b + 4 * i);
}

/* Applies op to two basic values held in the low bits of uint64. */
static uint64_t apply_op(int basic, int oi, uint64_t a, uint64_t b)
{
    if (basic == BT_INT) {
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, r = 0;
        int32_t sa, sb;
        memcpy(&sa, &ua, 4);
        memcpy(&sb, &ub, 4);
        switch (oi) {
        case O_SUM: r = ua + ub; break;
        case O_PROD: r = ua * ub; break;
        case O_BAND: r = ua & ub; break;
        case O_BXOR: r = ua ^ ub; break;
        case O_MAX: r = sa > sb ? ua : ub; break;
        case O_MIN: r = sa < sb ? ua : ub; break;
        case O_USER: r = user_fn32(ua, ub); break;
        }
        return r;
    }
    if (basic == BT_U64) {
        switch (oi) {
        case O_SUM: return a + b;
        case O_PROD: return a * b;
        case O_BAND: return a & b;
        case O_BXOR: return a ^ b;
        case O_MAX: return a > b ? a : b;
        case O_MIN: return a < b ? a : b;
        }
        return 0;
    }
    /* BT_DOUBLE: MAX and MIN only; values are finite and never -0.0 */
    double da, db;
    memcpy(&da, &a, 8);
    memcpy(&db, &b, 8);
    if (oi == O_MAX)
        return da > db ? a : b;
    return da < db ? a : b;
}

/* ------------------------------------------------------------------ */
/* Data generation                                                      */
/* ------------------------------------------------------------------ */

static uint64_t g_seed;

static uint64_t call_key(int call)
{
    return mix64(g_seed ^ mix64((uint64_t)call * UINT64_C(0xa0761d6478bd642f)));
}

/* The key of (call, communicator, rank) that a sender's data derives from. */
static uint64_t rank_key(uint64_t ck, int commid, int rank)
{
    return mix64(ck ^ (((uint64_t)commid << 32 | (uint64_t)(uint32_t)rank) + 1) *
                          UINT64_C(0xe7037ed1a0b428db));
}

/* The value of basic element `pos` of a sender, as uint64 bits. */
static uint64_t value(uint64_t rk, long pos, int basic, int oi)
{
    uint64_t h = mix64(rk ^ ((uint64_t)pos * UINT64_C(0xd6e8feb86659fd93)));
    switch (basic) {
    case BT_CHAR: return h & 0xff;
    case BT_INT: return (uint32_t)h | (oi == O_PROD ? 1u : 0u);
    case BT_U64:
        /* MPICH 4.0.2 compares unsigned types as signed in MAX and MIN
         * (pmodels/mpich#6083): keep the top bit clear there. */
        if (oi == O_MAX || oi == O_MIN)
            return h >> 1;
        return h | (oi == O_PROD ? 1u : 0u);
    default: {
        /* exact in double, finite, never -0.0 */
        uint32_t u = (uint32_t)(h >> 32);
        int32_t s;
        memcpy(&s, &u, 4);
        double d = (double)s / 1024.0;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        return bits;
    }
    }
}

static void store(unsigned char *dst, int basic, uint64_t bits)
{
    if (basic == BT_CHAR) {
        *dst = (unsigned char)bits;
    } else if (basic == BT_INT) {
        uint32_t v = (uint32_t)bits;
        memcpy(dst, &v, 4);
    } else {
        memcpy(dst, &bits, 8);
    }
}

/* Writes elements [disp, disp + count) of buf with the sender's elements
 * [pos0, pos0 + count). */
static void place(unsigned char *buf, const struct dtype *t, long disp, long count, uint64_t rk,
                  long pos0, int oi)
{
    for (long m = 0; m < count; m++)
        for (int j = 0; j < t->k; j++)
            store(buf + (disp + m) * t->extent + t->off[j], t->basic,
                  value(rk, (pos0 + m) * t->k + j, t->basic, oi));
}

/* Same, with the reduction over all p senders' elements. */
static void place_reduced(unsigned char *buf, const struct dtype *t, long disp, long count,
                          const uint64_t *rks, int p, long pos0, int oi)
{
    for (long m = 0; m < count; m++)
        for (int j = 0; j < t->k; j++) {
            long pos = (pos0 + m) * t->k + j;
            uint64_t acc = value(rks[0], pos, t->basic, oi);
            for (int r = 1; r < p; r++)
                acc = apply_op(t->basic, oi, acc, value(rks[r], pos, t->basic, oi));
            store(buf + (disp + m) * t->extent + t->off[j], t->basic, acc);
        }
}

/* Is byte `off` of a buffer of type t a data byte (else a hole)? */
static int is_data_byte(const struct dtype *t, size_t off, long *elem)
{
    *elem = (long)(off / (size_t)t->extent);
    for (long e = *elem - 1; e <= *elem; e++) {
        if (e < 0)
            continue;
        for (int j = 0; j < t->k; j++) {
            long start = e * t->extent + t->off[j];
            if ((long)off >= start && (long)off < start + basic_size[t->basic]) {
                *elem = e;
                return 1;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Options and global state                                            */
/* ------------------------------------------------------------------ */

static int wrank, wsize;
static int opt_calls = -1, opt_maxc = 3000, opt_trace, opt_mixed;
static int enabled[NROUTINES];
static int n_enabled, enabled_list[NROUTINES];
static const char *opt_output;
static FILE *out;
static long mismatches, reported;
static long per_routine[NROUTINES];
static long opt_over = -1;       /* --count-over N */
static long over[NROUTINES];     /* rank 0's calls whose n exceeds it */
#define MAX_REPORTS 20

enum { C_WORLD, C_DUP, C_HALF, NCOMMS };
/* The neighbourhood collectives' communicators, made once per run over the
 * world: a periodic 1-D Cartesian ring (where P >= 3, so that a rank's -1
 * and +1 neighbours differ) and a distributed graph of unequal degrees
 * drawn from the seed. Every rank knows every rank's in- and
 * out-neighbours, in the MPI's order; no edge s -> d is there twice, so a
 * block is told by its two ends. */
enum { C_RING = NCOMMS, C_GRAPH, NALLCOMMS };
static const char *const comm_names[NALLCOMMS] = {"world", "dup", "half", "ring", "graph"};
static MPI_Comm comms[NALLCOMMS];
static int half_color;
struct topology {
    int *in_deg, *out_deg; /* per rank */
    int *in, *out;         /* in[d * P + i]: d's i-th in-neighbour; out the same */
};
static struct topology topologies[NALLCOMMS]; /* of C_RING and C_GRAPH */

/* Bugs of the MPI libraries themselves that the unprotected run would trip
 * over (it would crash or compute wrong data, so there would be nothing to
 * compare with). The program steers around them, identically on every rank
 * and in both runs of a comparison; see avoid_known_bugs().
 *
 * - MPICH 4.0.0 to 4.1.1: blocking MPI_Reduce with MPI_IN_PLACE at a root
 *   other than 0 crashes once the message exceeds 2048 bytes
 *   (pmodels/mpich#6540, fixed by pmodels/mpich#6543). -> not in place.
 * - MPICH before 4.1.1: MPI_Allgatherv and MPI_Iallgatherv on a communicator
 *   of one process copy to the start of recvbuf, ignoring displs[0]
 *   (pmodels/mpich#6374). -> displs[0] = 0 there.
 * - MPICH 4.0.2: MPI_MAX and MPI_MIN compare unsigned types as signed
 *   (pmodels/mpich#6083). -> value() keeps the top bit of uint64 clear there.
 * - Open MPI 4.1.4: reductions with a datatype whose true lower bound is not
 *   0 overrun temporary buffers on the heap: the ring algorithm of blocking
 *   MPI_Allreduce receives into its buffer without subtracting the true lb
 *   (unchanged upstream), and libnbc's MPI_Ireduce writes past its buffer
 *   too (valgrind). -> in reductions the true-lb-8 type is replaced by the
 *   lb-8 one with true lb 0.
 * - Open MPI 4.1.4: MPI_Ialltoallv with MPI_IN_PLACE (libnbc) delivers wrong
 *   data for some count matrices with zero counts, and MPI_Ialltoallw with
 *   MPI_IN_PLACE for blocks of a few KiB (both measured without any layer).
 *   Both also return at once on a rank whose blocks are all empty, without
 *   taking the communicator's next libnbc tag as the other ranks' calls do
 *   (newer Open MPI reserves it there), so the non-blocking collectives after
 *   it on that communicator match each other's messages. -> not in place.
 * - Open MPI 4.1.4: MPI_Alltoallw on a one-process communicator (coll/self)
 *   multiplies the displacements, which count bytes, by the datatypes'
 *   extents. -> its one block at displacement 0 there.
 * - MPICH 4.0.2 (no fixed version known: every MPICH): MPI_Ialltoallw with
 *   MPI_IN_PLACE receives the block from each higher rank into a temporary
 *   sized by the type of the rank's own block (recvtypes[rank], not the
 *   sender's block's), so where a rank's blocks have types of different
 *   sizes the data arrives wrong or the call fails ("Message truncated"),
 *   without any layer. -> there every block of the call gets a type of one
 *   size (types differ, their sizes do not: MPI_DOUBLE, MPI_UINT64_T and
 *   the four 2-int types are all 8 bytes).
 * - MPICH before 4.1: MPI_Neighbor_alltoallw and MPI_Ineighbor_alltoallw
 *   mix up the in- and out-degree when they convert the counts to MPI_Aint
 *   (pmodels/mpich#6233, fixed by pmodels/mpich#6250): wrong data where a
 *   rank's in- and out-degrees differ. -> over the ring (every degree 2)
 *   where there is one.
 * - MPICH before 4.1: a persistent collective request that has completed
 *   (inactive) fails the completion calls it is passed to again: MPI_Testall
 *   returns an error, MPI_Waitany hangs (pmodels/mpich#6334, merged for
 *   4.1; measured here without any layer). -> a batch holding one completes
 *   by MPI_Wait, MPI_Test (each request until it completes) or MPI_Waitall. */
static int mpich_reduce_inplace_bug, mpich_allgatherv_bug, mpich_ialltoallw_inplace_bug,
    mpich_nalltoallw_bug, mpich_inactive_persistent_bug, ompi_bugs;

static void detect_known_bugs(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = 0, minor = 0, patch = 0;
    MPI_Get_library_version(version, &len);
    const char *v = strstr(version, "MPICH Version:");
    if (v && sscanf(v + strlen("MPICH Version:"), " %d.%d.%d", &major, &minor, &patch) >= 2) {
        long n = major * 10000L + minor * 100L + patch;
        mpich_reduce_inplace_bug = n >= 40000 && n < 40102;
        mpich_allgatherv_bug = n < 40101;
        mpich_ialltoallw_inplace_bug = 1;
        mpich_nalltoallw_bug = n < 40100;
        mpich_inactive_persistent_bug = n < 40100;
    }
    ompi_bugs = strstr(version, "Open MPI") != NULL;
}

/* ------------------------------------------------------------------ */
/* One call                                                            */
/* ------------------------------------------------------------------ */

struct call {
    int index, routine, base, nb, persistent; /* nb: I-form or persistent */
    uint64_t ck;
    int commid, keyid; /* keyid: commid, or 2 + color for the halves */
    MPI_Comm comm;
    int p, me, root;
    int ti, oi;
    const struct dtype *t;
    int kdiv; /* --mixed-types: the drawn counts are in ints, this rank's in t */
    int inplace, garbage, gran;
    int cnt;
    int *counts, *displs;           /* p: per-rank counts, displacements */
    int *cmat, *sdis, *rdis;        /* p*p: alltoallv counts and displacements */
    int *scnt, *sdsp, *rcnt, *rdsp; /* this rank's alltoallv arrays (alltoallw: in bytes) */
    int *wti;                       /* p*p: alltoallw, the type drawn for each block */
    int *sti, *rti;                 /* p: alltoallw, this rank's type of each block */
    MPI_Datatype *sdt, *rdt;        /* p: their datatypes */
    /* the neighbourhood collectives: the topology, this rank's blocks on
     * each side (p for the others), Neighbor_alltoallw's displacements */
    const struct topology *topo;
    int nsend, nrecv;
    MPI_Aint *sdspa, *rdspa;
    uint64_t *rks;                  /* p: rank keys */
    /* arguments */
    const void *sarg;
    void *rarg;
    int scount, rcount;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Datatype *stypes, *rtypes;
    const MPI_Aint *sadispls, *radispls;
    /* buffers */
    unsigned char *sbuf, *sref, *rbuf, *rexp;
    size_t sbytes, rbytes, rcheck;
    MPI_Request req;
};

static void die_mpi(const struct call *c, const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error code %d", rc);
    fprintf(stderr, "sg_diffcoll: rank %d: %s returned an error at call %d (%s): %s\n", wrank,
            what, c ? c->index : -1, c ? routine_names[c->routine] : "setup", msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 4);
    exit(4);
}

#define CHK(c, what, expr)                                                                    \
    do {                                                                                      \
        int rc_ = (expr);                                                                     \
        if (rc_ != MPI_SUCCESS)                                                               \
            die_mpi((c), (what), rc_);                                                        \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "sg_diffcoll: rank %d: out of memory (%zu bytes)\n", wrank, n);
        MPI_Abort(MPI_COMM_WORLD, 4);
        exit(4);
    }
    return p;
}

static void fill(unsigned char *buf, size_t n, uint64_t ck, int salt)
{
    uint64_t k = mix64(ck ^ ((uint64_t)(wrank * 2 + salt) + 0xf111) * UINT64_C(0x8ebc6af09c88c6e3));
    for (size_t i = 0; i < n; i += 8) {
        uint64_t h = mix64(k + (uint64_t)i);
        memcpy(buf + i, &h, n - i < 8 ? n - i : 8);
    }
}

/* Allocates the receive buffer and its expected image, both filled with the
 * pattern; and the send buffer. */
static void alloc_recv(struct call *c, size_t bytes)
{
    c->rbytes = c->rcheck = bytes;
    c->rbuf = xmalloc(bytes);
    c->rexp = xmalloc(bytes);
    fill(c->rbuf, bytes, c->ck, 0);
    memcpy(c->rexp, c->rbuf, bytes);
}

static void alloc_send(struct call *c, size_t bytes)
{
    c->sbytes = bytes;
    c->sbuf = xmalloc(bytes);
    fill(c->sbuf, bytes, c->ck, 1);
}

/* A count: 0, small, or up to --max-count; a multiple of the call's granule. */
static int draw_count(rng_t *r, int gran)
{
    int n;
    int u = rng_below(r, 10);
    if (u == 0)
        n = 0;
    else if (u <= 3)
        n = 1 + rng_below(r, 16);
    else
        n = 1 + rng_below(r, opt_maxc);
    if (n > opt_maxc)
        n = opt_maxc;
    return n / gran * gran;
}

static int draw_gap(rng_t *r, int gran)
{
    return rng_chance(r, 1, 2) ? 0 : gran * (1 + rng_below(r, 8));
}

/* Bytes between two Alltoallw blocks (or before the first) of a type of
 * `extent`: none, whole elements, or any number of bytes (byte
 * displacements need not be multiples of the extent). */
static int draw_byte_gap(rng_t *r, MPI_Aint extent)
{
    switch (rng_below(r, 4)) {
    case 0:
    case 1: return 0;
    case 2: return (int)extent * (1 + rng_below(r, 8));
    default: return 1 + rng_below(r, 8 * (int)extent);
    }
}

static int type_bytes(int ti)
{
    return types[ti].k * basic_size[types[ti].basic];
}

/* A type of `bytes` bytes; any type where bytes is 0. */
static int draw_type(rng_t *r, int bytes)
{
    int choices[NTYPES], n = 0;
    for (int ti = 0; ti < NTYPES; ti++)
        if (bytes == 0 || type_bytes(ti) == bytes)
            choices[n++] = ti;
    return choices[rng_below(r, n)];
}

static int inplace_allowed(int base, int is_root)
{
    switch (base) {
    case B_GATHER:
    case B_GATHERV:
    case B_SCATTER:
    case B_SCATTERV:
    case B_REDUCE: return is_root;
    case B_BCAST: return 0;
    default: return !is_neighbourhood(base);
    }
}

/* Whether --mixed-types may give this call's ranks types of their own: not
 * reductions (the standard wants one datatype on every rank), not
 * Alltoallw and Neighbor_alltoallw as the others (their blocks' ends each
 * draw theirs: end_type()), and not the other neighbourhood collectives. */
static int mixes(const struct call *c)
{
    return !is_reduction(c->base) && !is_neighbourhood(c->base) && c->base != B_ALLTOALLW;
}

/* This rank's own stream of a call, for what only this rank needs to know
 * (its own types under --mixed-types, its Alltoallw layout); the shared one
 * stays in step. */
static rng_t own_stream(const struct call *c)
{
    return (rng_t){mix64(c->ck ^ ((uint64_t)wrank + 1) * UINT64_C(0x9fb21c651e98df25))};
}

/* The type this rank gives its end of an Alltoallw block of m basic elements
 * drawn as type ti: ti, or with --mixed-types any type of ti's basic type
 * whose element divides m (of ti's size too where same_size), from the
 * rank's own stream: the two ends' type signatures match, their types need
 * not. */
static int end_type(rng_t *own, int ti, int m, int same_size)
{
    if (!opt_mixed)
        return ti;
    int choices[NTYPES], n = 0;
    for (int tj = 0; tj < NTYPES; tj++)
        if (types[tj].basic == types[ti].basic && m % types[tj].k == 0 &&
            (!same_size || types[tj].k == types[ti].k))
            choices[n++] = tj;
    return choices[rng_below(own, n)];
}

/* One row of this rank's Alltoallw blocks (block i: m[i * stride] basic
 * elements drawn as type wti[i * stride]): each in its end's type, at a
 * byte displacement past the previous block and a random gap (none before
 * the first where from_zero), so no two overlap. Returns the bytes the row
 * spans. */
static size_t lay_out_row(rng_t *own, const int *wti, const int *m, int stride, int p,
                          int same_size, int from_zero, int *ti, int *count, int *displ,
                          MPI_Datatype *dt)
{
    size_t at = 0;
    for (int i = 0; i < p; i++) {
        ti[i] = end_type(own, wti[i * stride], m[i * stride], same_size);
        const struct dtype *t = &types[ti[i]];
        count[i] = m[i * stride] / t->k;
        if (i > 0 || !from_zero)
            at += (size_t)draw_byte_gap(own, t->extent);
        displ[i] = (int)at;
        dt[i] = t->dt;
        at += region_bytes(t, count[i]);
    }
    return at;
}

/* The key of Alltoallw's block from s to d: its basic elements, numbered
 * from 0 whatever type an end gives them, derive from it. */
static uint64_t block_key(const struct call *c, int s, int d)
{
    return mix64(c->rks[s] ^ ((uint64_t)d + 1) * UINT64_C(0xc2b2ae3d27d4eb4f));
}

/* Draws everything about call `index` and builds its buffers. Every rank
 * draws the same values in the same order (the only rank-dependent values,
 * p and me, differ between the two halves, whose members agree). */
static void setup(struct call *c, int index, rng_t *r, int routine)
{
    memset(c, 0, sizeof *c);
    c->index = index;
    c->routine = routine;
    c->base = routine / NFORMS;
    c->nb = routine % NFORMS != F_BLOCKING;
    c->persistent = routine % NFORMS == F_PERSISTENT;
    c->ck = call_key(index);
    c->req = MPI_REQUEST_NULL;
    c->kdiv = 1;

    c->commid = rng_below(r, NCOMMS);
    if (is_neighbourhood(c->base) && comms[C_RING] != MPI_COMM_NULL) /* the ring or the graph */
        c->commid = rng_chance(r, 1, 2) || (c->base == B_NALLTOALLW && mpich_nalltoallw_bug)
                        ? C_RING
                        : C_GRAPH;
    else if (is_neighbourhood(c->base))
        c->commid = C_GRAPH;
    c->comm = comms[c->commid];
    c->keyid = c->commid == C_HALF ? C_HALF + half_color
               : c->commid > C_HALF ? c->commid + 1
                                    : c->commid;
    MPI_Comm_size(c->comm, &c->p);
    MPI_Comm_rank(c->comm, &c->me);
    int p = c->p, me = c->me;
    c->nsend = c->nrecv = p;
    if (is_neighbourhood(c->base)) {
        c->topo = &topologies[c->commid];
        c->nsend = c->topo->out_deg[me];
        c->nrecv = c->topo->in_deg[me];
    }
    const struct topology *g = c->topo;

    if (is_reduction(c->base)) {
        int pairs[NTYPES * NOPS][2], np = 0;
        for (int ti = 0; ti < NTYPES; ti++)
            for (int oi = 0; oi < NOPS; oi++)
                if (combo_ok(ti, oi)) {
                    pairs[np][0] = ti;
                    pairs[np][1] = oi;
                    np++;
                }
        int pick = rng_below(r, np);
        c->ti = pairs[pick][0];
        c->oi = pairs[pick][1];
    } else {
        c->ti = rng_below(r, NTYPES);
        c->oi = -1;
    }
    if (is_reduction(c->base) && c->ti == T_SHIFTED && ompi_bugs)
        c->ti = T_RESIZED;
    c->t = &types[c->ti];
    const struct dtype *t = c->t;
    int oi = c->oi;

    c->root = rng_below(r, p);
    int is_root = me == c->root;
    int inplace_draw = rng_chance(r, 3, 10);
    c->inplace = inplace_draw && inplace_allowed(c->base, is_root);
    if (c->routine == NFORMS * B_REDUCE && c->root != 0 && mpich_reduce_inplace_bug)
        c->inplace = 0; /* only the root uses it: nobody else needs to know */
    if ((c->base == B_ALLTOALLV || c->base == B_ALLTOALLW) && c->nb && ompi_bugs)
        c->inplace = 0; /* the same on every rank: same library */
    c->garbage = rng_chance(r, 1, 2);
    static const int grans[] = {2, 3, 4, 8};
    c->gran = rng_chance(r, 1, 3) ? grans[rng_below(r, 4)] : 1;
    if (opt_mixed && mixes(c) && rng_chance(r, 1, 2)) {
        /* half the calls that may mix: ints in granules of 2, 3 or 6 */
        static const int mixable[] = {2, 3, 6};
        c->ti = T_INT;
        c->t = t = &types[T_INT];
        c->gran = mixable[rng_below(r, 3)];
    }
    c->cnt = draw_count(r, c->gran);
    int junk = rng_below(r, opt_maxc + 1);

    c->rks = xmalloc(sizeof *c->rks * (size_t)p);
    for (int i = 0; i < p; i++)
        c->rks[i] = rank_key(c->ck, c->keyid, i);

    c->counts = xmalloc(sizeof(int) * (size_t)p);
    c->displs = xmalloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++)
        c->counts[i] = draw_count(r, c->gran);
    for (int i = 0; i < p; i++) {
        int gap = draw_gap(r, c->gran);
        c->displs[i] = i == 0 ? gap : c->displs[i - 1] + c->counts[i - 1] + gap;
    }
    if (c->base == B_ALLGATHERV && p == 1 && mpich_allgatherv_bug)
        c->displs[0] = 0;

    /* --mixed-types: this rank's own type of the int family, drawn from a
     * stream of its own (the shared one stays in step), and every count
     * and displacement in its elements: the same ints at the same places. */
    if (opt_mixed && mixes(c) && c->ti == T_INT && c->gran > 1) {
        rng_t own = own_stream(c);
        int choices[NTYPES], n = 0;
        for (int ti = T_INT; ti < NTYPES; ti++)
            if (types[ti].basic == BT_INT && c->gran % types[ti].k == 0)
                choices[n++] = ti;
        c->ti = choices[rng_below(&own, n)];
        c->t = t = &types[c->ti];
        c->kdiv = t->k;
        c->cnt /= t->k;
        for (int i = 0; i < p; i++) {
            c->counts[i] /= t->k;
            c->displs[i] /= t->k;
        }
    }
    int span = p ? c->displs[p - 1] + c->counts[p - 1] : 0;

    int cnt = c->cnt;
    switch (c->base) {
    case B_BCAST:
        alloc_recv(c, region_bytes(t, cnt));
        if (is_root)
            place(c->rbuf, t, 0, cnt, c->rks[c->root], 0, oi);
        place(c->rexp, t, 0, cnt, c->rks[c->root], 0, oi);
        c->rarg = c->rbuf;
        c->rcount = cnt;
        break;

    case B_SCATTER:
        c->scount = cnt;
        c->rcount = cnt;
        if (is_root) {
            alloc_send(c, region_bytes(t, (long)p * cnt));
            place(c->sbuf, t, 0, (long)p * cnt, c->rks[me], 0, oi);
            c->sarg = c->sbuf;
        } else if (c->garbage) {
            c->scount = junk;
        }
        if (c->inplace) {
            c->rarg = MPI_IN_PLACE;
            if (c->garbage)
                c->rcount = junk;
        } else {
            alloc_recv(c, region_bytes(t, cnt));
            place(c->rexp, t, 0, cnt, c->rks[c->root], (long)me * cnt, oi);
            c->rarg = c->rbuf;
        }
        break;

    case B_SCATTERV:
        c->rcount = c->counts[me];
        if (is_root) {
            alloc_send(c, region_bytes(t, span));
            for (int i = 0; i < p; i++)
                place(c->sbuf, t, c->displs[i], c->counts[i], c->rks[me], c->displs[i], oi);
            c->sarg = c->sbuf;
        }
        if (is_root || !c->garbage) {
            c->scounts = c->counts;
            c->sdispls = c->displs;
        }
        if (c->inplace) {
            c->rarg = MPI_IN_PLACE;
            if (c->garbage)
                c->rcount = junk;
        } else {
            alloc_recv(c, region_bytes(t, c->counts[me]));
            place(c->rexp, t, 0, c->counts[me], c->rks[c->root], c->displs[me], oi);
            c->rarg = c->rbuf;
        }
        break;

    case B_GATHER:
    case B_ALLGATHER: {
        int all = c->base == B_ALLGATHER;
        c->scount = c->rcount = cnt;
        if (all || is_root) {
            alloc_recv(c, region_bytes(t, (long)p * cnt));
            for (int i = 0; i < p; i++)
                place(c->rexp, t, (long)i * cnt, cnt, c->rks[i], 0, oi);
            c->rarg = c->rbuf;
        } else if (c->garbage) {
            c->rcount = junk;
        }
        if (c->inplace) {
            place(c->rbuf, t, (long)me * cnt, cnt, c->rks[me], 0, oi);
            c->sarg = MPI_IN_PLACE;
            if (c->garbage)
                c->scount = junk;
        } else {
            alloc_send(c, region_bytes(t, cnt));
            place(c->sbuf, t, 0, cnt, c->rks[me], 0, oi);
            c->sarg = c->sbuf;
        }
        break;
    }

    case B_GATHERV:
    case B_ALLGATHERV: {
        int all = c->base == B_ALLGATHERV;
        c->scount = c->counts[me];
        if (all || is_root) {
            alloc_recv(c, region_bytes(t, span));
            for (int i = 0; i < p; i++)
                place(c->rexp, t, c->displs[i], c->counts[i], c->rks[i], 0, oi);
            c->rarg = c->rbuf;
        }
        if (all || is_root || !c->garbage) {
            c->rcounts = c->counts;
            c->rdispls = c->displs;
        }
        if (c->inplace) {
            place(c->rbuf, t, c->displs[me], c->counts[me], c->rks[me], 0, oi);
            c->sarg = MPI_IN_PLACE;
            if (c->garbage)
                c->scount = junk;
        } else {
            alloc_send(c, region_bytes(t, c->counts[me]));
            place(c->sbuf, t, 0, c->counts[me], c->rks[me], 0, oi);
            c->sarg = c->sbuf;
        }
        break;
    }

    case B_ALLTOALL:
        c->scount = c->rcount = cnt;
        alloc_recv(c, region_bytes(t, (long)p * cnt));
        for (int i = 0; i < p; i++)
            place(c->rexp, t, (long)i * cnt, cnt, c->rks[i], (long)me * cnt, oi);
        c->rarg = c->rbuf;
        if (c->inplace) {
            place(c->rbuf, t, 0, (long)p * cnt, c->rks[me], 0, oi);
            c->sarg = MPI_IN_PLACE;
            if (c->garbage)
                c->scount = junk;
        } else {
            alloc_send(c, region_bytes(t, (long)p * cnt));
            place(c->sbuf, t, 0, (long)p * cnt, c->rks[me], 0, oi);
            c->sarg = c->sbuf;
        }
        break;

    case B_ALLTOALLV: {
        size_t pp = (size_t)p * (size_t)p;
        c->cmat = xmalloc(sizeof(int) * pp); /* cmat[s*p+d]: s sends to d */
        c->sdis = xmalloc(sizeof(int) * pp); /* sdis[s*p+d]: at s, block for d */
        c->rdis = xmalloc(sizeof(int) * pp); /* rdis[d*p+s]: at d, block from s */
        /* in-place needs recvcounts == sendcounts: a symmetric matrix */
        int symmetric = inplace_draw;
        for (int s = 0; s < p; s++)
            for (int d = 0; d < p; d++) {
                int n = draw_count(r, c->gran);
                c->cmat[s * p + d] = symmetric && d < s ? c->cmat[d * p + s] : n;
            }
        for (int s = 0; s < p; s++)
            for (int d = 0; d < p; d++) {
                int gap = draw_gap(r, c->gran);
                c->sdis[s * p + d] =
                    d == 0 ? gap : c->sdis[s * p + d - 1] + c->cmat[s * p + d - 1] + gap;
            }
        for (int d = 0; d < p; d++)
            for (int s = 0; s < p; s++) {
                int gap = draw_gap(r, c->gran);
                c->rdis[d * p + s] =
                    s == 0 ? gap : c->rdis[d * p + s - 1] + c->cmat[(s - 1) * p + d] + gap;
            }
        for (size_t i = 0; i < pp; i++) { /* in this rank's elements (--mixed-types) */
            c->cmat[i] /= c->kdiv;
            c->sdis[i] /= c->kdiv;
            c->rdis[i] /= c->kdiv;
        }
        c->scnt = xmalloc(sizeof(int) * (size_t)p);
        c->sdsp = xmalloc(sizeof(int) * (size_t)p);
        c->rcnt = xmalloc(sizeof(int) * (size_t)p);
        c->rdsp = xmalloc(sizeof(int) * (size_t)p);
        for (int i = 0; i < p; i++) {
            c->scnt[i] = c->cmat[me * p + i];
            c->sdsp[i] = c->sdis[me * p + i];
            c->rcnt[i] = c->cmat[i * p + me];
            c->rdsp[i] = c->rdis[me * p + i];
        }
        /* where sender s's block for d is in s's own buffer */
        const int *src = c->inplace ? c->rdis : c->sdis;
        alloc_recv(c, region_bytes(t, c->rdsp[p - 1] + c->rcnt[p - 1]));
        for (int s = 0; s < p; s++)
            place(c->rexp, t, c->rdsp[s], c->rcnt[s], c->rks[s], src[s * p + me], oi);
        c->rarg = c->rbuf;
        c->rcounts = c->rcnt;
        c->rdispls = c->rdsp;
        if (c->inplace) {
            for (int d = 0; d < p; d++)
                place(c->rbuf, t, c->rdsp[d], c->rcnt[d], c->rks[me], c->rdsp[d], oi);
            c->sarg = MPI_IN_PLACE;
            if (!c->garbage) {
                c->scounts = c->scnt;
                c->sdispls = c->sdsp;
            }
        } else {
            alloc_send(c, region_bytes(t, c->sdsp[p - 1] + c->scnt[p - 1]));
            for (int d = 0; d < p; d++)
                place(c->sbuf, t, c->sdsp[d], c->scnt[d], c->rks[me], c->sdsp[d], oi);
            c->sarg = c->sbuf;
            c->scounts = c->scnt;
            c->sdispls = c->sdsp;
        }
        break;
    }

    case B_ALLTOALLW: {
        /* Block s -> d: a type drawn for it, and a count of it: its
         * cmat[s*p+d] basic elements, the same at both ends (whose types
         * may differ: end_type()). In place (MPI 4.0 6.8: the send
         * arguments are ignored, the receive layout serves both
         * directions) the matrix is symmetric, types too. */
        size_t pp = (size_t)p * (size_t)p;
        int one_size = c->nb && c->inplace && mpich_ialltoallw_inplace_bug;
        int from_zero = !c->nb && p == 1 && ompi_bugs;
        int bytes = one_size ? type_bytes(rng_below(r, NTYPES)) : 0;
        c->cmat = xmalloc(sizeof(int) * pp);
        c->wti = xmalloc(sizeof(int) * pp);
        for (int s = 0; s < p; s++)
            for (int d = 0; d < p; d++) {
                if (c->inplace && d < s) {
                    c->wti[s * p + d] = c->wti[d * p + s];
                    c->cmat[s * p + d] = c->cmat[d * p + s];
                    continue;
                }
                int ti = draw_type(r, bytes);
                c->wti[s * p + d] = ti;
                c->cmat[s * p + d] = draw_count(r, c->gran) * types[ti].k;
            }
        rng_t own = own_stream(c);
        c->rti = xmalloc(sizeof(int) * (size_t)p);
        c->rcnt = xmalloc(sizeof(int) * (size_t)p);
        c->rdsp = xmalloc(sizeof(int) * (size_t)p);
        c->rdt = xmalloc(sizeof(MPI_Datatype) * (size_t)p);
        alloc_recv(c, lay_out_row(&own, c->wti + me, c->cmat + me, p, p, one_size, from_zero,
                                  c->rti, c->rcnt, c->rdsp, c->rdt));
        for (int s = 0; s < p; s++)
            place(c->rexp + c->rdsp[s], &types[c->rti[s]], 0, c->rcnt[s], block_key(c, s, me), 0,
                  oi);
        c->rarg = c->rbuf;
        c->rcounts = c->rcnt;
        c->rdispls = c->rdsp;
        c->rtypes = c->rdt;
        if (c->inplace) {
            for (int d = 0; d < p; d++)
                place(c->rbuf + c->rdsp[d], &types[c->rti[d]], 0, c->rcnt[d],
                      block_key(c, me, d), 0, oi);
            c->sarg = MPI_IN_PLACE;
            if (!c->garbage) {
                c->scounts = c->rcnt;
                c->sdispls = c->rdsp;
                c->stypes = c->rdt;
            }
        } else {
            c->sti = xmalloc(sizeof(int) * (size_t)p);
            c->scnt = xmalloc(sizeof(int) * (size_t)p);
            c->sdsp = xmalloc(sizeof(int) * (size_t)p);
            c->sdt = xmalloc(sizeof(MPI_Datatype) * (size_t)p);
            alloc_send(c, lay_out_row(&own, c->wti + me * p, c->cmat + me * p, 1, p, 0,
                                      from_zero, c->sti, c->scnt, c->sdsp, c->sdt));
            for (int d = 0; d < p; d++)
                place(c->sbuf + c->sdsp[d], &types[c->sti[d]], 0, c->scnt[d],
                      block_key(c, me, d), 0, oi);
            c->sarg = c->sbuf;
            c->scounts = c->scnt;
            c->sdispls = c->sdsp;
            c->stypes = c->sdt;
        }
        break;
    }

    case B_NALLGATHER:
    case B_NALLTOALL: { /* cnt elements a block: this rank's one, or one per edge */
        int edges = c->base == B_NALLTOALL, sends = edges ? c->nsend : 1;
        c->scount = c->rcount = cnt;
        alloc_recv(c, region_bytes(t, (long)c->nrecv * cnt));
        for (int i = 0; i < c->nrecv; i++) {
            int s = g->in[me * p + i];
            place(c->rexp, t, (long)i * cnt, cnt, edges ? block_key(c, s, me) : c->rks[s], 0,
                  oi);
        }
        alloc_send(c, region_bytes(t, (long)sends * cnt));
        for (int k = 0; k < sends; k++)
            place(c->sbuf, t, (long)k * cnt, cnt,
                  edges ? block_key(c, me, g->out[me * p + k]) : c->rks[me], 0, oi);
        c->rarg = c->rbuf;
        c->sarg = c->sbuf;
        break;
    }

    case B_NALLGATHERV:
    case B_NALLTOALLV: {
        /* Each edge's count (Allgatherv: its sender's, counts[s]), and every
         * rank's blocks at non-descending displacements with gaps, in its
         * neighbours' order: drawn for every rank alike, kept for this one. */
        int gather = c->base == B_NALLGATHERV;
        c->cmat = xmalloc(sizeof(int) * (size_t)p * (size_t)p); /* cmat[s*p+d] */
        for (int s = 0; s < p; s++)
            for (int d = 0; d < p; d++)
                c->cmat[s * p + d] = 0;
        for (int s = 0; s < p; s++)
            for (int k = 0; k < g->out_deg[s]; k++) {
                int n = draw_count(r, c->gran);
                c->cmat[s * p + g->out[s * p + k]] = gather ? c->counts[s] : n;
            }
        c->scnt = xmalloc(sizeof(int) * (size_t)p);
        c->sdsp = xmalloc(sizeof(int) * (size_t)p);
        c->rcnt = xmalloc(sizeof(int) * (size_t)p);
        c->rdsp = xmalloc(sizeof(int) * (size_t)p);
        long sent = 0, received = 0; /* where this rank's sides end */
        for (int s = 0; s < p; s++) {
            long at = 0;
            for (int k = 0; k < g->out_deg[s]; k++) {
                at += draw_gap(r, c->gran);
                if (s == me) {
                    c->scnt[k] = c->cmat[s * p + g->out[s * p + k]];
                    c->sdsp[k] = (int)at;
                }
                at += c->cmat[s * p + g->out[s * p + k]];
            }
            sent = s == me ? at : sent;
        }
        for (int d = 0; d < p; d++) {
            long at = 0;
            for (int i = 0; i < g->in_deg[d]; i++) {
                at += draw_gap(r, c->gran);
                if (d == me) {
                    c->rcnt[i] = c->cmat[g->in[d * p + i] * p + d];
                    c->rdsp[i] = (int)at;
                }
                at += c->cmat[g->in[d * p + i] * p + d];
            }
            received = d == me ? at : received;
        }
        alloc_recv(c, region_bytes(t, received));
        for (int i = 0; i < c->nrecv; i++) {
            int s = g->in[me * p + i];
            place(c->rexp, t, c->rdsp[i], c->rcnt[i], gather ? c->rks[s] : block_key(c, s, me),
                  0, oi);
        }
        c->rarg = c->rbuf;
        c->rcounts = c->rcnt;
        c->rdispls = c->rdsp;
        if (gather) {
            c->scount = c->counts[me];
            alloc_send(c, region_bytes(t, c->scount));
            place(c->sbuf, t, 0, c->scount, c->rks[me], 0, oi);
        } else {
            alloc_send(c, region_bytes(t, sent));
            for (int k = 0; k < c->nsend; k++)
                place(c->sbuf, t, c->sdsp[k], c->scnt[k], block_key(c, me, g->out[me * p + k]),
                      0, oi);
            c->scounts = c->scnt;
            c->sdispls = c->sdsp;
        }
        c->sarg = c->sbuf;
        break;
    }

    case B_NALLTOALLW: {
        /* Each edge a type and a count of it, as Alltoallw's blocks, at
         * MPI_Aint byte displacements. The layer cuts a neighbourhood's W
         * blocks in rounds of each block's own elements, alike on both
         * ends only where every datatype of the call holds as many basic
         * elements (plan_agreement.c: else it leaves the call alone), so a
         * call's types hold k basic elements each, k drawn per call. */
        size_t pp = (size_t)p * (size_t)p;
        int k_of_call = types[rng_below(r, NTYPES)].k;
        c->cmat = xmalloc(sizeof(int) * pp);
        c->wti = xmalloc(sizeof(int) * pp);
        for (size_t e = 0; e < pp; e++)
            c->cmat[e] = c->wti[e] = 0;
        for (int s = 0; s < p; s++)
            for (int k = 0; k < g->out_deg[s]; k++) {
                int ti, d = g->out[s * p + k];
                do
                    ti = draw_type(r, 0);
                while (types[ti].k != k_of_call);
                c->wti[s * p + d] = ti;
                c->cmat[s * p + d] = draw_count(r, c->gran) * types[ti].k;
            }
        /* this rank's rows in its neighbours' order */
        int *wti_row = xmalloc(sizeof(int) * (size_t)p), *m_row = xmalloc(sizeof(int) * (size_t)p);
        rng_t own = own_stream(c);
        c->rti = xmalloc(sizeof(int) * (size_t)p);
        c->rcnt = xmalloc(sizeof(int) * (size_t)p);
        c->rdsp = xmalloc(sizeof(int) * (size_t)p);
        c->rdt = xmalloc(sizeof(MPI_Datatype) * (size_t)p);
        c->rdspa = xmalloc(sizeof(MPI_Aint) * (size_t)p);
        for (int i = 0; i < c->nrecv; i++) {
            int s = g->in[me * p + i];
            wti_row[i] = c->wti[s * p + me];
            m_row[i] = c->cmat[s * p + me];
        }
        alloc_recv(c, lay_out_row(&own, wti_row, m_row, 1, c->nrecv, 0, 0, c->rti, c->rcnt,
                                  c->rdsp, c->rdt));
        for (int i = 0; i < c->nrecv; i++) {
            c->rdspa[i] = c->rdsp[i];
            place(c->rexp + c->rdsp[i], &types[c->rti[i]], 0, c->rcnt[i],
                  block_key(c, g->in[me * p + i], me), 0, oi);
        }
        c->sti = xmalloc(sizeof(int) * (size_t)p);
        c->scnt = xmalloc(sizeof(int) * (size_t)p);
        c->sdsp = xmalloc(sizeof(int) * (size_t)p);
        c->sdt = xmalloc(sizeof(MPI_Datatype) * (size_t)p);
        c->sdspa = xmalloc(sizeof(MPI_Aint) * (size_t)p);
        for (int k = 0; k < c->nsend; k++) {
            int d = g->out[me * p + k];
            wti_row[k] = c->wti[me * p + d];
            m_row[k] = c->cmat[me * p + d];
        }
        alloc_send(c, lay_out_row(&own, wti_row, m_row, 1, c->nsend, 0, 0, c->sti, c->scnt,
                                  c->sdsp, c->sdt));
        for (int k = 0; k < c->nsend; k++) {
            c->sdspa[k] = c->sdsp[k];
            place(c->sbuf + c->sdsp[k], &types[c->sti[k]], 0, c->scnt[k],
                  block_key(c, me, g->out[me * p + k]), 0, oi);
        }
        free(wti_row);
        free(m_row);
        c->rarg = c->rbuf;
        c->sarg = c->sbuf;
        c->rcounts = c->rcnt;
        c->radispls = c->rdspa;
        c->rtypes = c->rdt;
        c->scounts = c->scnt;
        c->sadispls = c->sdspa;
        c->stypes = c->sdt;
        break;
    }

    case B_REDUCE:
    case B_ALLREDUCE: {
        int all = c->base == B_ALLREDUCE;
        c->scount = cnt;
        if (all || is_root) {
            alloc_recv(c, region_bytes(t, cnt));
            place_reduced(c->rexp, t, 0, cnt, c->rks, p, 0, oi);
            c->rarg = c->rbuf;
        }
        if (c->inplace) {
            place(c->rbuf, t, 0, cnt, c->rks[me], 0, oi);
            c->sarg = MPI_IN_PLACE;
        } else {
            alloc_send(c, region_bytes(t, cnt));
            place(c->sbuf, t, 0, cnt, c->rks[me], 0, oi);
            c->sarg = c->sbuf;
        }
        break;
    }

    case B_REDUCE_SCATTER:
    case B_REDUCE_SCATTER_BLOCK: {
        int block = c->base == B_REDUCE_SCATTER_BLOCK;
        if (block)
            for (int i = 0; i < p; i++)
                c->counts[i] = cnt;
        long total = 0, mine = 0;
        for (int i = 0; i < p; i++) {
            if (i == me)
                mine = total;
            total += c->counts[i];
        }
        c->rcount = cnt;
        c->rcounts = c->counts;
        long n = c->counts[me];
        if (c->inplace) {
            alloc_recv(c, region_bytes(t, total));
            place(c->rbuf, t, 0, total, c->rks[me], 0, oi);
            memcpy(c->rexp, c->rbuf, c->rbytes);
            c->rcheck = region_bytes(t, n); /* the rest held the input */
            c->sarg = MPI_IN_PLACE;
        } else {
            alloc_recv(c, region_bytes(t, n));
            alloc_send(c, region_bytes(t, total));
            place(c->sbuf, t, 0, total, c->rks[me], 0, oi);
            c->sarg = c->sbuf;
        }
        place_reduced(c->rexp, t, 0, n, c->rks, p, mine, oi);
        c->rarg = c->rbuf;
        break;
    }

    case B_SCAN:
    case B_EXSCAN: { /* rank me: the reduction over ranks 0 .. me (Exscan: me - 1) */
        int ranks = c->base == B_SCAN ? me + 1 : me;
        c->scount = cnt;
        alloc_recv(c, region_bytes(t, cnt));
        if (ranks > 0)
            place_reduced(c->rexp, t, 0, cnt, c->rks, ranks, 0, oi);
        else
            c->rcheck = 0; /* Exscan's rank 0: undefined */
        c->rarg = c->rbuf;
        if (c->inplace) {
            place(c->rbuf, t, 0, cnt, c->rks[me], 0, oi);
            c->sarg = MPI_IN_PLACE;
        } else {
            alloc_send(c, region_bytes(t, cnt));
            place(c->sbuf, t, 0, cnt, c->rks[me], 0, oi);
            c->sarg = c->sbuf;
        }
        break;
    }
    }

    if (c->sbuf) {
        c->sref = xmalloc(c->sbytes);
        memcpy(c->sref, c->sbuf, c->sbytes);
    }

    if (opt_trace && wrank == 0) {
        fprintf(stderr, "call %d %s comm=%s p=%d root=%d type=%s op=%s inplace=%d garbage=%d "
                        "gran=%d count=%d counts=[",
                index, routine_names[routine], comm_names[c->commid], p, c->root,
                is_w(c->base) ? "per-block" : t->name,
                oi >= 0 ? op_names[oi] : "-", c->inplace, c->garbage, c->gran, cnt);
        for (int i = 0; i < p; i++)
            fprintf(stderr, "%s%d", i ? "," : "", c->counts[i]);
        fprintf(stderr, "]");
        if (is_w(c->base)) { /* rank 0's blocks: count x type @ byte displacement */
            for (int side = c->inplace; side < 2; side++) {
                const int *ti = side ? c->rti : c->sti, *count = side ? c->rcnt : c->scnt,
                          *displ = side ? c->rdsp : c->sdsp;
                fprintf(stderr, " %s=[", side ? "recv" : "send");
                for (int i = 0; i < (side ? c->nrecv : c->nsend); i++)
                    fprintf(stderr, "%s%d x %s @ %d", i ? ", " : "", count[i], types[ti[i]].name,
                            displ[i]);
                fprintf(stderr, "]");
            }
        }
        fprintf(stderr, "\n");
    }
}

static long largest(const int *counts, int p)
{
    long m = 0;
    for (int i = 0; i < p; i++)
        m = counts[i] > m ? counts[i] : m;
    return m;
}

/* What layer_n counts, in elements of this rank's datatype. */
static long layer_count(const struct call *c)
{
    int root = c->me == c->root;
    switch (c->base) {
    case B_SCATTER: return root ? c->scount : c->rcount;
    case B_GATHER: return root ? c->rcount : c->scount;
    case B_SCATTERV: return root ? largest(c->scounts, c->p) : c->rcount;
    case B_GATHERV: return root ? largest(c->rcounts, c->p) : c->scount;
    case B_ALLGATHERV: return largest(c->rcounts, c->p);
    case B_NALLGATHERV: return largest(c->rcounts, c->nrecv);
    case B_NALLTOALLV: {
        long sent = largest(c->scounts, c->nsend), received = largest(c->rcounts, c->nrecv);
        return sent > received ? sent : received;
    }
    case B_ALLTOALLV: { /* both rows: the rank at a block's other end sees it too */
        long sent = c->inplace ? 0 : largest(c->scounts, c->p);
        long received = largest(c->rcounts, c->p);
        return sent > received ? sent : received;
    }
    case B_REDUCE_SCATTER: {
        long sum = 0;
        for (int i = 0; i < c->p; i++)
            sum += c->rcounts[i];
        return sum;
    }
    case B_REDUCE_SCATTER_BLOCK: return (long)c->rcount * c->p;
    case B_REDUCE:
    case B_ALLREDUCE:
    case B_SCAN:
    case B_EXSCAN: return c->scount; /* the vector's count */
    default: return c->rcount; /* Bcast, Allgather, Alltoall, their neighbourhood forms */
    }
}

/* n of this call on this rank as DESIGN.md's notation defines it (what the
 * layer compares with a bound), written here independently of the layer: the
 * basic elements of one message; for the v-routines of the largest block this
 * rank sees (its own off the root of Gatherv/Scatterv, both rows for
 * Alltoallv, and for Alltoallw, each block in its own type: the receive row
 * alone in place); for Reduce_scatter of the whole vector. A neighbourhood
 * collective's blocks are its edges' (cmat: none 0 elsewhere). */
static long layer_n(const struct call *c)
{
    if (is_w(c->base)) {
        long n = 0;
        for (int i = 0; i < c->p; i++) {
            long received = c->cmat[i * c->p + c->me];
            long sent = c->inplace ? 0 : c->cmat[c->me * c->p + i];
            n = received > n ? received : n;
            n = sent > n ? sent : n;
        }
        return n;
    }
    return layer_count(c) * c->t->k;
}

/* An I-form's call, or with the same arguments its persistent form's
 * (MPI_INFO_NULL), which issue() then starts. */
#if HAVE_PERSISTENT
#define NONBLOCKING(iform, init, ...)                                                         \
    (c->persistent ? init(__VA_ARGS__, MPI_INFO_NULL, rq) : iform(__VA_ARGS__, rq))
#else
#define NONBLOCKING(iform, init, ...) iform(__VA_ARGS__, rq)
#endif

static void issue(struct call *c)
{
    if (opt_over >= 0 && wrank == 0 && layer_n(c) > opt_over)
        over[c->routine]++;
    MPI_Datatype dt = c->t->dt;
    MPI_Op op = c->oi >= 0 ? ops[c->oi] : MPI_OP_NULL;
    MPI_Comm comm = c->comm;
    MPI_Request *rq = &c->req;
    int rc = MPI_SUCCESS;
    switch (c->routine) {
    case NFORMS * B_BCAST: rc = MPI_Bcast(c->rarg, c->rcount, dt, c->root, comm); break;
    case NFORMS * B_BCAST + F_NONBLOCKING:
    case NFORMS * B_BCAST + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ibcast, MPI_Bcast_init, c->rarg, c->rcount, dt, c->root, comm);
        break;
    case NFORMS * B_SCATTER:
        rc = MPI_Scatter(c->sarg, c->scount, dt, c->rarg, c->rcount, dt, c->root, comm);
        break;
    case NFORMS * B_SCATTER + F_NONBLOCKING:
    case NFORMS * B_SCATTER + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Iscatter, MPI_Scatter_init, c->sarg, c->scount, dt, c->rarg, c->rcount,
                         dt, c->root, comm);
        break;
    case NFORMS * B_SCATTERV:
        rc = MPI_Scatterv(c->sarg, c->scounts, c->sdispls, dt, c->rarg, c->rcount, dt, c->root,
                          comm);
        break;
    case NFORMS * B_SCATTERV + F_NONBLOCKING:
    case NFORMS * B_SCATTERV + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Iscatterv, MPI_Scatterv_init, c->sarg, c->scounts, c->sdispls, dt,
                         c->rarg, c->rcount, dt, c->root, comm);
        break;
    case NFORMS * B_GATHER:
        rc = MPI_Gather(c->sarg, c->scount, dt, c->rarg, c->rcount, dt, c->root, comm);
        break;
    case NFORMS * B_GATHER + F_NONBLOCKING:
    case NFORMS * B_GATHER + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Igather, MPI_Gather_init, c->sarg, c->scount, dt, c->rarg, c->rcount,
                         dt, c->root, comm);
        break;
    case NFORMS * B_GATHERV:
        rc =
            MPI_Gatherv(c->sarg, c->scount, dt, c->rarg, c->rcounts, c->rdispls, dt, c->root, comm);
        break;
    case NFORMS * B_GATHERV + F_NONBLOCKING:
    case NFORMS * B_GATHERV + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Igatherv, MPI_Gatherv_init, c->sarg, c->scount, dt, c->rarg,
                         c->rcounts, c->rdispls, dt, c->root, comm);
        break;
    case NFORMS * B_ALLGATHER:
        rc = MPI_Allgather(c->sarg, c->scount, dt, c->rarg, c->rcount, dt, comm);
        break;
    case NFORMS * B_ALLGATHER + F_NONBLOCKING:
    case NFORMS * B_ALLGATHER + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Iallgather, MPI_Allgather_init, c->sarg, c->scount, dt, c->rarg,
                         c->rcount, dt, comm);
        break;
    case NFORMS * B_ALLGATHERV:
        rc = MPI_Allgatherv(c->sarg, c->scount, dt, c->rarg, c->rcounts, c->rdispls, dt, comm);
        break;
    case NFORMS * B_ALLGATHERV + F_NONBLOCKING:
    case NFORMS * B_ALLGATHERV + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Iallgatherv, MPI_Allgatherv_init, c->sarg, c->scount, dt, c->rarg,
                         c->rcounts, c->rdispls, dt, comm);
        break;
    case NFORMS * B_ALLTOALL:
        rc = MPI_Alltoall(c->sarg, c->scount, dt, c->rarg, c->rcount, dt, comm);
        break;
    case NFORMS * B_ALLTOALL + F_NONBLOCKING:
    case NFORMS * B_ALLTOALL + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ialltoall, MPI_Alltoall_init, c->sarg, c->scount, dt, c->rarg,
                         c->rcount, dt, comm);
        break;
    case NFORMS * B_ALLTOALLV:
        rc = MPI_Alltoallv(c->sarg, c->scounts, c->sdispls, dt, c->rarg, c->rcounts, c->rdispls, dt,
                           comm);
        break;
    case NFORMS * B_ALLTOALLV + F_NONBLOCKING:
    case NFORMS * B_ALLTOALLV + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ialltoallv, MPI_Alltoallv_init, c->sarg, c->scounts, c->sdispls, dt,
                         c->rarg, c->rcounts, c->rdispls, dt, comm);
        break;
    case NFORMS * B_ALLTOALLW:
        rc = MPI_Alltoallw(c->sarg, c->scounts, c->sdispls, c->stypes, c->rarg, c->rcounts,
                           c->rdispls, c->rtypes, comm);
        break;
    case NFORMS * B_ALLTOALLW + F_NONBLOCKING:
    case NFORMS * B_ALLTOALLW + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ialltoallw, MPI_Alltoallw_init, c->sarg, c->scounts, c->sdispls,
                         c->stypes, c->rarg, c->rcounts, c->rdispls, c->rtypes, comm);
        break;
    case NFORMS * B_REDUCE:
        rc = MPI_Reduce(c->sarg, c->rarg, c->scount, dt, op, c->root, comm);
        break;
    case NFORMS * B_REDUCE + F_NONBLOCKING:
    case NFORMS * B_REDUCE + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ireduce, MPI_Reduce_init, c->sarg, c->rarg, c->scount, dt, op, c->root,
                         comm);
        break;
    case NFORMS * B_ALLREDUCE: rc = MPI_Allreduce(c->sarg, c->rarg, c->scount, dt, op, comm); break;
    case NFORMS * B_ALLREDUCE + F_NONBLOCKING:
    case NFORMS * B_ALLREDUCE + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Iallreduce, MPI_Allreduce_init, c->sarg, c->rarg, c->scount, dt, op,
                         comm);
        break;
    case NFORMS * B_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter(c->sarg, c->rarg, c->rcounts, dt, op, comm);
        break;
    case NFORMS * B_REDUCE_SCATTER + F_NONBLOCKING:
    case NFORMS * B_REDUCE_SCATTER + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ireduce_scatter, MPI_Reduce_scatter_init, c->sarg, c->rarg, c->rcounts,
                         dt, op, comm);
        break;
    case NFORMS * B_REDUCE_SCATTER_BLOCK:
        rc = MPI_Reduce_scatter_block(c->sarg, c->rarg, c->rcount, dt, op, comm);
        break;
    case NFORMS * B_REDUCE_SCATTER_BLOCK + F_NONBLOCKING:
    case NFORMS * B_REDUCE_SCATTER_BLOCK + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ireduce_scatter_block, MPI_Reduce_scatter_block_init, c->sarg, c->rarg,
                         c->rcount, dt, op, comm);
        break;
    case NFORMS * B_SCAN: rc = MPI_Scan(c->sarg, c->rarg, c->scount, dt, op, comm); break;
    case NFORMS * B_SCAN + F_NONBLOCKING:
    case NFORMS * B_SCAN + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Iscan, MPI_Scan_init, c->sarg, c->rarg, c->scount, dt, op, comm);
        break;
    case NFORMS * B_EXSCAN: rc = MPI_Exscan(c->sarg, c->rarg, c->scount, dt, op, comm); break;
    case NFORMS * B_EXSCAN + F_NONBLOCKING:
    case NFORMS * B_EXSCAN + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Iexscan, MPI_Exscan_init, c->sarg, c->rarg, c->scount, dt, op, comm);
        break;
    case NFORMS * B_NALLGATHER:
        rc = MPI_Neighbor_allgather(c->sarg, c->scount, dt, c->rarg, c->rcount, dt, comm);
        break;
    case NFORMS * B_NALLGATHER + F_NONBLOCKING:
    case NFORMS * B_NALLGATHER + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ineighbor_allgather, MPI_Neighbor_allgather_init, c->sarg, c->scount,
                         dt, c->rarg, c->rcount, dt, comm);
        break;
    case NFORMS * B_NALLGATHERV:
        rc = MPI_Neighbor_allgatherv(c->sarg, c->scount, dt, c->rarg, c->rcounts, c->rdispls, dt,
                                     comm);
        break;
    case NFORMS * B_NALLGATHERV + F_NONBLOCKING:
    case NFORMS * B_NALLGATHERV + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ineighbor_allgatherv, MPI_Neighbor_allgatherv_init, c->sarg, c->scount,
                         dt, c->rarg, c->rcounts, c->rdispls, dt, comm);
        break;
    case NFORMS * B_NALLTOALL:
        rc = MPI_Neighbor_alltoall(c->sarg, c->scount, dt, c->rarg, c->rcount, dt, comm);
        break;
    case NFORMS * B_NALLTOALL + F_NONBLOCKING:
    case NFORMS * B_NALLTOALL + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ineighbor_alltoall, MPI_Neighbor_alltoall_init, c->sarg, c->scount, dt,
                         c->rarg, c->rcount, dt, comm);
        break;
    case NFORMS * B_NALLTOALLV:
        rc = MPI_Neighbor_alltoallv(c->sarg, c->scounts, c->sdispls, dt, c->rarg, c->rcounts,
                                    c->rdispls, dt, comm);
        break;
    case NFORMS * B_NALLTOALLV + F_NONBLOCKING:
    case NFORMS * B_NALLTOALLV + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ineighbor_alltoallv, MPI_Neighbor_alltoallv_init, c->sarg, c->scounts,
                         c->sdispls, dt, c->rarg, c->rcounts, c->rdispls, dt, comm);
        break;
    case NFORMS * B_NALLTOALLW:
        rc = MPI_Neighbor_alltoallw(c->sarg, c->scounts, c->sadispls, c->stypes, c->rarg,
                                    c->rcounts, c->radispls, c->rtypes, comm);
        break;
    case NFORMS * B_NALLTOALLW + F_NONBLOCKING:
    case NFORMS * B_NALLTOALLW + F_PERSISTENT:
        rc = NONBLOCKING(MPI_Ineighbor_alltoallw, MPI_Neighbor_alltoallw_init, c->sarg, c->scounts,
                         c->sadispls, c->stypes, c->rarg, c->rcounts, c->radispls, c->rtypes, comm);
        break;
    }
    if (rc != MPI_SUCCESS)
        die_mpi(c, routine_names[c->routine], rc);
    if (c->persistent)
        CHK(c, "MPI_Start", MPI_Start(rq));
}

/* Says where byte `off` of the send or receive buffer lies: "data|hole of
 * element E" (of Alltoallw's block B, or in a gap between its blocks). */
static void locate(const struct call *c, int send, size_t off, char *where, size_t size)
{
    long elem;
    if (!is_w(c->base)) {
        int data = is_data_byte(c->t, off, &elem);
        snprintf(where, size, "%s of element %ld", data ? "data" : "hole", elem);
        return;
    }
    const int *ti = send ? c->sti : c->rti, *count = send ? c->scnt : c->rcnt,
              *displ = send ? c->sdsp : c->rdsp;
    for (int b = 0; b < (send ? c->nsend : c->nrecv); b++) {
        const struct dtype *t = &types[ti[b]];
        if (off >= (size_t)displ[b] && off < (size_t)displ[b] + region_bytes(t, count[b])) {
            int data = is_data_byte(t, off - (size_t)displ[b], &elem);
            snprintf(where, size, "%s of element %ld of block %d, %d x %s", data ? "data" : "hole",
                     elem, b, count[b], t->name);
            return;
        }
    }
    snprintf(where, size, "a gap between blocks");
}

static void report(const struct call *c, const char *which, const unsigned char *got,
                   const unsigned char *exp, size_t n)
{
    size_t first = n, bad = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != exp[i]) {
            if (first == n)
                first = i;
            bad++;
        }
    if (!bad)
        return;
    mismatches++;
    if (reported++ >= MAX_REPORTS)
        return;
    char where[96];
    locate(c, which[0] == 's', first, where, sizeof where);
    fprintf(stderr,
            "sg_diffcoll: MISMATCH call %d %s rank %d (comm %s rank %d of %d, root %d, type %s, "
            "op %s, in-place %d): %s buffer offset %zu (%s): expected 0x%02x, got 0x%02x; %zu "
            "of %zu bytes differ\n",
            c->index, routine_names[c->routine], wrank, comm_names[c->commid], c->me, c->p,
            c->root, is_w(c->base) ? "per-block" : c->t->name,
            c->oi >= 0 ? op_names[c->oi] : "-", c->inplace, which, first, where, exp[first],
            got[first], bad, n);
}

static void finish(struct call *c)
{
    report(c, "receive", c->rbuf, c->rexp, c->rcheck);
    if (c->sbuf)
        report(c, "send", c->sbuf, c->sref, c->sbytes);
    if (out) {
        uint64_t h = FNV_OFFSET;
        if (c->rbuf)
            h = fnv1a(h, c->rbuf, c->rcheck);
        if (c->sbuf)
            h = fnv1a(h, c->sbuf, c->sbytes);
        fprintf(out, "%d %s %d %016" PRIx64 "\n", c->index, routine_names[c->routine], wrank, h);
    }
    free(c->counts);
    free(c->displs);
    free(c->cmat);
    free(c->sdis);
    free(c->rdis);
    free(c->scnt);
    free(c->sdsp);
    free(c->rcnt);
    free(c->rdsp);
    free(c->wti);
    free(c->sti);
    free(c->rti);
    free(c->sdt);
    free(c->rdt);
    free(c->sdspa);
    free(c->rdspa);
    free(c->rks);
    free(c->sbuf);
    free(c->sref);
    free(c->rbuf);
    free(c->rexp);
}

/* ------------------------------------------------------------------ */
/* Batches and completion                                               */
/* ------------------------------------------------------------------ */

enum { C_WAIT, C_TEST, C_WAITALL, C_WAITANY, C_TESTALL, C_TESTSOME, NCOMPLETIONS };
#define MAX_BATCH 3
#define SELF_INTS 16
#define SELF_TAG 4242

static int draw_routine(int call)
{
    rng_t r = {call_key(call) ^ UINT64_C(0x5eed)};
    return enabled_list[rng_below(&r, n_enabled)];
}

/* Runs calls [first, first + n) with n drawn here; returns n. Non-blocking
 * calls stay pending while the later calls of the batch (blocking ones
 * too) are issued; then all are completed one way or another. */
static int run_batch(int first)
{
    struct call calls[MAX_BATCH];
    rng_t br = {call_key(first) ^ UINT64_C(0xba7c4)};
    int n = 1;
    if (draw_routine(first) % NFORMS != F_BLOCKING) {
        int u = rng_below(&br, 4);
        n = u < 2 ? 1 : u == 2 ? 2 : 3;
    }
    if (n > opt_calls - first)
        n = opt_calls - first;
    int method = rng_below(&br, NCOMPLETIONS);
    int self = method >= C_WAITALL && rng_chance(&br, 1, 2);
    int self_first = rng_chance(&br, 1, 2);
    int reverse = rng_chance(&br, 1, 2);
    for (int i = 0; i < n && mpich_inactive_persistent_bug; i++)
        if (draw_routine(first + i) % NFORMS == F_PERSISTENT && method != C_WAIT &&
            method != C_TEST)
            method = C_WAITALL;
    static const char *const method_names[NCOMPLETIONS] = {"Wait", "Test", "Waitall", "Waitany",
                                                           "Testall", "Testsome"};
    if (opt_trace && wrank == 0)
        fprintf(stderr, "batch %d..%d: %s%s%s\n", first, first + n - 1, method_names[method],
                self ? " +self-pair" : "", reverse && method <= C_TEST ? " reversed" : "");

    for (int i = 0; i < n; i++) {
        rng_t r = {call_key(first + i)};
        setup(&calls[i], first + i, &r, draw_routine(first + i));
        per_routine[calls[i].routine]++;
    }

    /* An unrelated point-to-point pair to self in the same request array. */
    int sbufi[SELF_INTS], rbufi[SELF_INTS];
    MPI_Request reqs[MAX_BATCH + 2];
    int nreq = 0, selfpos = 0;
    if (self) {
        for (int i = 0; i < SELF_INTS; i++) {
            sbufi[i] = (int)(mix64(calls[0].ck + (uint64_t)i) & 0x7fffffff);
            rbufi[i] = -1;
        }
        MPI_Request pair[2];
        CHK(&calls[0], "MPI_Irecv", MPI_Irecv(rbufi, SELF_INTS, MPI_INT, wrank, SELF_TAG,
                                              MPI_COMM_WORLD, &pair[0]));
        CHK(&calls[0], "MPI_Isend", MPI_Isend(sbufi, SELF_INTS, MPI_INT, wrank, SELF_TAG,
                                              MPI_COMM_WORLD, &pair[1]));
        if (self_first) {
            reqs[nreq++] = pair[0];
            reqs[nreq++] = pair[1];
        } else {
            selfpos = -1; /* appended after the collectives */
            reqs[MAX_BATCH] = pair[0];
            reqs[MAX_BATCH + 1] = pair[1];
        }
    }
    for (int i = 0; i < n; i++)
        issue(&calls[i]);
    for (int i = 0; i < n; i++)
        if (calls[i].nb)
            reqs[nreq++] = calls[i].req;
    if (selfpos < 0) {
        reqs[nreq++] = reqs[MAX_BATCH];
        reqs[nreq++] = reqs[MAX_BATCH + 1];
    }

    struct call *c0 = &calls[0];
    /* real status arrays: GCC 12 warns about MPICH's MPI_STATUSES_IGNORE */
    MPI_Status st[MAX_BATCH + 2];
    if (nreq > 0) {
        switch (method) {
        case C_WAIT:
        case C_TEST:
            for (int k = 0; k < nreq; k++) {
                int i = reverse ? nreq - 1 - k : k;
                if (method == C_WAIT) {
                    CHK(c0, "MPI_Wait", MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
                } else {
                    int flag = 0;
                    while (!flag)
                        CHK(c0, "MPI_Test", MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
                }
            }
            break;
        case C_WAITALL:
            CHK(c0, "MPI_Waitall", MPI_Waitall(nreq, reqs, st));
            break;
        case C_WAITANY:
            for (;;) {
                int idx;
                CHK(c0, "MPI_Waitany", MPI_Waitany(nreq, reqs, &idx, MPI_STATUS_IGNORE));
                if (idx == MPI_UNDEFINED)
                    break;
            }
            break;
        case C_TESTALL: {
            int flag = 0;
            while (!flag)
                CHK(c0, "MPI_Testall", MPI_Testall(nreq, reqs, &flag, st));
            break;
        }
        case C_TESTSOME: {
            int idx[MAX_BATCH + 2];
            for (;;) {
                int outcount;
                CHK(c0, "MPI_Testsome",
                    MPI_Testsome(nreq, reqs, &outcount, idx, st));
                if (outcount == MPI_UNDEFINED)
                    break;
            }
            break;
        }
        }
        /* A persistent request stays, inactive, until freed. */
        for (int i = 0; i < n; i++) {
            if (!calls[i].persistent)
                continue;
            int kept = 0;
            for (int k = 0; k < nreq; k++)
                if (reqs[k] == calls[i].req) {
                    reqs[k] = MPI_REQUEST_NULL;
                    kept = 1;
                }
            if (!kept) {
                fprintf(stderr, "sg_diffcoll: rank %d call %d: %s's persistent request did not "
                                "stay after completion\n", wrank, first + i,
                        routine_names[calls[i].routine]);
                mismatches++;
            }
            CHK(&calls[i], "MPI_Request_free", MPI_Request_free(&calls[i].req));
        }
        for (int i = 0; i < nreq; i++)
            if (reqs[i] != MPI_REQUEST_NULL) {
                fprintf(stderr, "sg_diffcoll: rank %d call %d: request %d not MPI_REQUEST_NULL "
                                "after completion\n", wrank, first, i);
                mismatches++;
            }
    }
    if (self && memcmp(sbufi, rbufi, sizeof sbufi) != 0) {
        fprintf(stderr, "sg_diffcoll: MISMATCH call %d rank %d: the point-to-point message to "
                        "self completed alongside the collectives is wrong\n", first, wrank);
        mismatches++;
    }
    for (int i = 0; i < n; i++)
        finish(&calls[i]);
    return n;
}

/* ------------------------------------------------------------------ */
/* Setup, options, main                                                */
/* ------------------------------------------------------------------ */

static void make_types(void)
{
    types[T_CHAR].dt = MPI_CHAR;
    types[T_INT].dt = MPI_INT;
    types[T_DOUBLE].dt = MPI_DOUBLE;
    types[T_U64].dt = MPI_UINT64_T;
    MPI_Datatype tmp;
    CHK(NULL, "MPI_Type_contiguous", MPI_Type_contiguous(3, MPI_INT, &types[T_CONTIG3].dt));
    CHK(NULL, "MPI_Type_vector", MPI_Type_vector(2, 1, 3, MPI_INT, &types[T_VECTOR].dt));
    CHK(NULL, "MPI_Type_contiguous", MPI_Type_contiguous(2, MPI_INT, &tmp));
    CHK(NULL, "MPI_Type_create_resized",
        MPI_Type_create_resized(tmp, 8, 12, &types[T_RESIZED].dt));
    MPI_Type_free(&tmp);
    MPI_Aint at8 = 8;
    CHK(NULL, "MPI_Type_create_hindexed_block",
        MPI_Type_create_hindexed_block(1, 2, &at8, MPI_INT, &tmp));
    CHK(NULL, "MPI_Type_create_resized",
        MPI_Type_create_resized(tmp, 8, 12, &types[T_SHIFTED].dt));
    MPI_Type_free(&tmp);
    int lengths[2] = {2, 1}, at[2] = {0, 3};
    CHK(NULL, "MPI_Type_indexed", MPI_Type_indexed(2, lengths, at, MPI_INT, &types[T_INDEXED].dt));
    int ones[2] = {1, 1};
    MPI_Aint swapped[2] = {4, 0};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    CHK(NULL, "MPI_Type_create_struct",
        MPI_Type_create_struct(2, ones, swapped, ints, &types[T_SWAPPED].dt));
    for (int i = T_CONTIG3; i < NTYPES; i++) {
        CHK(NULL, "MPI_Type_commit", MPI_Type_commit(&types[i].dt));
        MPI_Type_set_name(types[i].dt, types[i].name);
    }

    /* The layout tables above must be what MPI thinks the types are. */
    for (int i = 0; i < NTYPES; i++) {
        const struct dtype *t = &types[i];
        MPI_Aint lb, extent, tlb, textent;
        int size;
        MPI_Type_get_extent(t->dt, &lb, &extent);
        MPI_Type_get_true_extent(t->dt, &tlb, &textent);
        MPI_Type_size(t->dt, &size);
        if (lb != t->lb || extent != t->extent || tlb != true_lb(t) ||
            tlb + textent != true_ub(t) || size != t->k * basic_size[t->basic]) {
            fprintf(stderr, "sg_diffcoll: type %s: MPI says lb %ld extent %ld true lb %ld true "
                            "extent %ld size %d; the table disagrees\n",
                    t->name, (long)lb, (long)extent, (long)tlb, (long)textent, size);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }

    static const MPI_Op predefined[O_USER] = {MPI_SUM, MPI_PROD, MPI_BAND,
                                               MPI_BXOR, MPI_MAX, MPI_MIN};
    for (int i = 0; i < O_USER; i++)
        ops[i] = predefined[i];
    CHK(NULL, "MPI_Op_create", MPI_Op_create(user_op, 1, &ops[O_USER]));
}

static void make_comms(void)
{
    comms[C_WORLD] = MPI_COMM_WORLD;
    CHK(NULL, "MPI_Comm_set_errhandler",
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHK(NULL, "MPI_Comm_dup", MPI_Comm_dup(MPI_COMM_WORLD, &comms[C_DUP]));
    /* two halves; the upper one in reverse rank order */
    half_color = wrank < (wsize + 1) / 2 ? 0 : 1;
    CHK(NULL, "MPI_Comm_split",
        MPI_Comm_split(MPI_COMM_WORLD, half_color, half_color ? -wrank : wrank, &comms[C_HALF]));
    for (int i = C_DUP; i < NCOMMS; i++)
        CHK(NULL, "MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(comms[i], MPI_ERRORS_RETURN));

    /* The neighbourhoods. The graph: each edge s -> d (d != s) drawn from
     * the seed with probability 1/2, so the degrees differ (one may be 0);
     * out-neighbours in ascending, in-neighbours in descending rank order. */
    int P = wsize, *weights = xmalloc(sizeof(int) * (size_t)P);
    unsigned char *edge = xmalloc((size_t)P * (size_t)P);
    rng_t tr = {mix64(g_seed ^ UINT64_C(0x70b01097e5a1c3d2))};
    for (int i = 0; i < P; i++)
        weights[i] = 1; /* not MPI_UNWEIGHTED: Open MPI's is an object gcc finds too short */
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++)
            edge[s * P + d] = d != s && rng_chance(&tr, 1, 2);
    for (int t = C_RING; t < NALLCOMMS; t++) {
        struct topology *g = &topologies[t];
        g->in_deg = xmalloc(sizeof(int) * (size_t)P);
        g->out_deg = xmalloc(sizeof(int) * (size_t)P);
        g->in = xmalloc(sizeof(int) * (size_t)P * (size_t)P);
        g->out = xmalloc(sizeof(int) * (size_t)P * (size_t)P);
    }
    struct topology *g = &topologies[C_GRAPH];
    for (int r = 0; r < P; r++) {
        g->in_deg[r] = g->out_deg[r] = 0;
        for (int d = 0; d < P; d++)
            if (edge[r * P + d])
                g->out[r * P + g->out_deg[r]++] = d;
        for (int s = P - 1; s >= 0; s--)
            if (edge[s * P + r])
                g->in[r * P + g->in_deg[r]++] = s;
    }
    CHK(NULL, "MPI_Dist_graph_create_adjacent",
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, g->in_deg[wrank], g->in + wrank * P,
                                       weights, g->out_deg[wrank], g->out + wrank * P, weights,
                                       MPI_INFO_NULL, 0, &comms[C_GRAPH]));
    /* The ring: each rank's -1 then +1 neighbour, both ways (MPI 4.0, 7.6). */
    g = &topologies[C_RING];
    comms[C_RING] = MPI_COMM_NULL;
    if (P >= 3) {
        int periodic = 1;
        CHK(NULL, "MPI_Cart_create",
            MPI_Cart_create(MPI_COMM_WORLD, 1, &P, &periodic, 0, &comms[C_RING]));
        for (int r = 0; r < P; r++) {
            g->in_deg[r] = g->out_deg[r] = 2;
            g->in[r * P] = g->out[r * P] = (r - 1 + P) % P;
            g->in[r * P + 1] = g->out[r * P + 1] = (r + 1) % P;
        }
    }
    for (int i = C_RING; i < NALLCOMMS; i++)
        if (comms[i] != MPI_COMM_NULL)
            CHK(NULL, "MPI_Comm_set_errhandler",
                MPI_Comm_set_errhandler(comms[i], MPI_ERRORS_RETURN));
    free(weights);
    free(edge);
}

static const char usage[] =
    "Usage: sg_diffcoll --seed S --calls N [--max-count C] [--routines LIST|all]\n"
    "                   [--mixed-types] [--output FILE] [--trace] [--count-over N]\n"
    "  --seed S         PRNG seed (unsigned 64-bit)\n"
    "  --calls N        number of collective calls\n"
    "  --max-count C    largest count per message, in elements (default 3000)\n"
    "  --routines LIST  comma-separated routines, e.g. MPI_Gather,Ibcast (default all)\n"
    "  --mixed-types    ranks describe the same ints with types of their own\n"
    "  --output FILE    write FILE.rank<r>: lines '<call> <routine> <rank> <digest>'\n"
    "  --trace          rank 0 describes every call on stderr\n"
    "  --count-over N   rank 0 prints, per routine, how many of its calls had n > N\n"
    "                   (n as DESIGN.md defines it: what a bound is compared with)\n"
    "Exit status: 0 ok, 1 self-check mismatch, 2 usage error, 4 MPI error.\n";

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
    if (!s || !*s)
        return 0;
    uint64_t x = 0;
    for (const char *q = s; *q; q++) {
        if (*q < '0' || *q > '9')
            return 0;
        unsigned d = (unsigned)(*q - '0');
        if (x > (max - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *v = x;
    return 1;
}

static int select_routines(const char *list)
{
    if (strcmp(list, "all") == 0) {
        for (int i = 0; i < NROUTINES; i++)
            enabled[i] = HAVE_PERSISTENT || i % NFORMS != F_PERSISTENT;
        return 1;
    }
    char *copy = strdup(list), *save = NULL;
    int ok = copy != NULL;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && ok;
         tok = strtok_r(NULL, ",", &save)) {
        const char *name = strncasecmp(tok, "MPI_", 4) == 0 ? tok + 4 : tok;
        int found = 0;
        for (int i = 0; i < NROUTINES; i++)
            if (strcasecmp(name, routine_names[i] + 4) == 0) {
                enabled[i] = found = HAVE_PERSISTENT || i % NFORMS != F_PERSISTENT;
            }
        if (!found) {
            if (wrank == 0)
                fprintf(stderr, "sg_diffcoll: unknown routine '%s'%s\n", tok,
                        HAVE_PERSISTENT ? "" : " (persistent collectives: MPI 4)");
            ok = 0;
        }
    }
    free(copy);
    return ok;
}

static int parse_args(int argc, char **argv, int *help)
{
    int have_seed = 0, have_routines = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1;
            return 1;
        } else if (strcmp(a, "--trace") == 0) {
            opt_trace = 1;
            continue;
        } else if (strcmp(a, "--mixed-types") == 0) {
            opt_mixed = 1;
            continue;
        } else if (!v) {
            if (wrank == 0)
                fprintf(stderr, "sg_diffcoll: %s needs a value\n", a);
            return 0;
        } else if (strcmp(a, "--seed") == 0 && parse_u64(v, UINT64_MAX, &x)) {
            g_seed = x;
            have_seed = 1;
        } else if (strcmp(a, "--calls") == 0 && parse_u64(v, 100000000, &x)) {
            opt_calls = (int)x;
        } else if (strcmp(a, "--max-count") == 0 && parse_u64(v, 1000000, &x)) {
            opt_maxc = (int)x;
        } else if (strcmp(a, "--routines") == 0) {
            if (!select_routines(v))
                return 0;
            have_routines = 1;
        } else if (strcmp(a, "--count-over") == 0 && parse_u64(v, INT_MAX, &x)) {
            opt_over = (long)x;
        } else if (strcmp(a, "--output") == 0 && *v) {
            opt_output = v;
        } else {
            if (wrank == 0)
                fprintf(stderr, "sg_diffcoll: bad option or value: %s %s\n", a, v);
            return 0;
        }
        i++;
    }
    if (!have_seed || opt_calls < 0) {
        if (wrank == 0)
            fprintf(stderr, "sg_diffcoll: --seed and --calls are required\n");
        return 0;
    }
    if (!have_routines)
        select_routines("all");
    for (int i = 0; i < NROUTINES; i++)
        if (enabled[i])
            enabled_list[n_enabled++] = i;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    int help = 0;
    if (!parse_args(argc, argv, &help) || help) {
        if (wrank == 0)
            fputs(usage, help ? stdout : stderr);
        MPI_Finalize();
        return help ? 0 : 2;
    }

    make_comms();
    make_types();
    detect_known_bugs();

    if (opt_output) {
        size_t len = strlen(opt_output) + 32;
        char *path = xmalloc(len);
        snprintf(path, len, "%s.rank%d", opt_output, wrank);
        out = fopen(path, "w");
        if (!out) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        free(path);
    }

    for (int call = 0; call < opt_calls;)
        call += run_batch(call);

    if (userop_foreign) {
        fprintf(stderr, "sg_diffcoll: rank %d: the user-defined op was called %ld times with a "
                        "datatype the program never passed (first: %s)\n",
                wrank, userop_foreign, userop_foreign_name);
        mismatches++;
    }
    if (reported > MAX_REPORTS)
        fprintf(stderr, "sg_diffcoll: rank %d: %ld more mismatches not shown\n", wrank,
                reported - MAX_REPORTS);
    if (out && fclose(out) != 0) {
        perror("sg_diffcoll: output");
        mismatches++;
    }

    long total_mismatches = 0;
    CHK(NULL, "MPI_Allreduce",
        MPI_Allreduce(&mismatches, &total_mismatches, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (wrank == 0) {
        printf("sg_diffcoll: seed %" PRIu64 ", %d ranks, max-count %d:", g_seed, wsize, opt_maxc);
        for (int i = 0; i < NROUTINES; i++)
            if (enabled[i])
                printf(" %s %ld", routine_names[i] + 4, per_routine[i]);
        Dl_info info;
        void *sym = dlsym(RTLD_DEFAULT, "MPI_Bcast");
        const char *from = sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "?";
        const char *slash = strrchr(from, '/');
        printf("; total %d calls; self-check %s (%ld mismatches); MPI_Bcast from %s\n",
               opt_calls, total_mismatches ? "FAILED" : "ok", total_mismatches,
               slash ? slash + 1 : from);
        if (opt_over >= 0) {
            printf("sg_diffcoll: rank 0 calls with n > %ld:", opt_over);
            for (int i = 0; i < NROUTINES; i++)
                printf(" %s=%ld", routine_names[i], over[i]);
            printf("\n");
        }
        fflush(stdout);
    }

    MPI_Op_free(&ops[O_USER]);
    for (int i = T_CONTIG3; i < NTYPES; i++)
        MPI_Type_free(&types[i].dt);
    for (int i = C_DUP; i < NALLCOMMS; i++)
        if (comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[i]);
    for (int i = C_RING; i < NALLCOMMS; i++) {
        free(topologies[i].in_deg);
        free(topologies[i].out_deg);
        free(topologies[i].in);
        free(topologies[i].out);
    }
    MPI_Finalize();
    return total_mismatches ? 1 : 0;
}
