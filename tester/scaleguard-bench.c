/* scaleguard-bench: the tester's benchmark kernel. Runs one collective at
 * one or more message sizes and validates every element it delivers.
 *
 *   scaleguard-bench -c ROUTINE -n COUNT[,COUNT...] [-s TYPE_SIZE] [-i ITERS]
 *                    [--root R] [--inplace] [--sparse] [--reverse] [--pmpi] [--fatal]
 *                    [--late SECONDS] [--blocking-first] [--cvar NAME=VALUE]...
 *                    [--error-grace SECONDS]
 *   scaleguard-bench --predict-memory -c ROUTINE -n COUNT[,COUNT...] [-s TYPE_SIZE]
 *                    --procs P [--root R] [--inplace] [--sparse]
 *
 * ROUTINE is any of detectors/routines.h (e.g. MPI_Gatherv, MPI_Iallreduce,
 * and where the MPI has them the large-count MPI_Scatter_c, ...); COUNT is
 * the count of one message (per rank for the rooted and all-to-all
 * routines, every rank's block for the v-routines and Reduce_scatter, the
 * whole vector for Bcast, Reduce, Allreduce, Scan and Exscan), at most
 * INT_MAX but for a large-count routine (its arrays MPI_Count and
 * MPI_Aint, which do not wrap). Several ascending COUNTs
 * run in that order in one job, which stops at the first that does not pass.
 * Elements are unsigned integers of TYPE_SIZE bytes (1, 2, 4, 8; default 1);
 * reductions use MPI_SUM, with contributions small enough never to overflow;
 * each rank checks the result the routine delivers to it (routines.h:
 * reduces), none where MPI leaves it undefined (Exscan's rank 0).
 *
 * For each size, rank 0 prints one line once the size is finished:
 *   scaleguard-bench: routine=R count=N type_size=S procs=P root=R inplace=0|1
 *                     iters=I result=pass|wrong-data|mpi-error|oom seconds=T
 *                     peak_rss=SUM peak_rss_max=MAX fastest=F [cpu_wait=W] [sparse=1]
 * where T is the largest over ranks of the mean time of one call (I-forms:
 * call + MPI_Wait), SUM and MAX the sum over ranks and the largest of each
 * rank's peak resident set size so far (getrusage's ru_maxrss), in bytes,
 * and F the time of the fastest call, each call's time being its slowest
 * rank's (with several calls, a scheduler's pause in one does not count), and
 * W the largest share of a rank's time in the size's calls that it spent
 * ready to run but waiting for a CPU, beyond what the job's own ranks cause
 * where they outnumber their host's CPUs (the kernel's run delay,
 * /proc/self/schedstat; not printed where the kernel gives none): near 0 on
 * a quiet machine, large where other work took the CPUs, and then the
 * size's time says nothing of the MPI. A crash or a hang prints no line for
 * that size.
 *
 * Before the sizes rank 0 prints the world the ranks make, which the tester
 * checks against the P it asked for (a launcher that starts P one-rank jobs
 * instead of one P-rank job must not pass for an MPI that works):
 *   # scaleguard-bench: world procs=P hosts=H host_names=NAME[,NAME...]
 * (H distinct hosts by MPI_Get_processor_name, in order of first rank). With
 * P one-rank jobs, each prints its own line with procs=1.
 *
 * --late SECONDS (I-forms): the last rank enters each call that much later
 * than the others, and the line ends in returned=R, the longest any other
 * rank's I-call took to return (before its MPI_Wait): an I-call that stays
 * non-blocking returns long before the late rank arrives.
 * --blocking-first (I-forms): each size runs once in the blocking form
 * first, with its own line and no rank late: what a layer makes in that
 * call (W1-A's communicators) the I-form calls then find.
 * --cvar NAME=VALUE: every rank writes the MPI control variable NAME
 * (MPI_T, an integer, or an enumeration's item by name) after MPI_Init, and
 * the collective runs on a duplicate of MPI_COMM_WORLD made after the
 * writes (Open MPI fixes a communicator's algorithms when it makes it; for
 * its coll_tuned_* variables it needs coll_tuned_use_dynamic_rules, set in
 * the environment before MPI_Init here); rank 0 prints "# scaleguard-bench:
 * cvar NAME=VALUE" as read back. The tester tries an MPI's algorithms so.
 * --error-grace SECONDS: a rank whose call returned an MPI error waits at
 * most that long for the others to agree on the outcome (they may be
 * waiting in the collective for it), then prints so and aborts the job with
 * MPI_Abort(4); the tester's jobs end so instead of at their time limit.
 * Exit status, the same on every rank: 0 every size passed, 3 wrong data,
 * 4 MPI error, 5 out of memory, 2 usage.
 *
 * Displacements are summed in C int, as user code does, so they wrap; where
 * each block really starts is kept in size_t for the validation.
 *
 * --sparse: the data are zero except in the first 4 KiB of every 256 KiB of
 * each message; the send buffer (which no MPI routine writes) is zeroed by
 * calloc and only those parts are written, so its other pages are never
 * touched and cost no memory. Every element delivered is still checked
 * (zero where the data are zero). For runs too large for this node
 * otherwise (the tester's verification).
 *
 * Whatever the ranks agree on (allocation, outcome, time, memory) travels by
 * point-to-point messages on a duplicate of MPI_COMM_WORLD: the fault
 * preload of tests/fault and libscaleguard.so both intercept MPI_* and
 * PMPI_* collectives, and a buggy collective under test must not decide
 * its own verdict. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_OR */
#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

static const char *result_name(int result)
{
    switch (result) {
    case BENCH_PASS: return "pass";
    case BENCH_WRONG_DATA: return "wrong-data";
    case BENCH_MPI_ERROR: return "mpi-error";
    case BENCH_OOM: return "oom";
    default: return "usage";
    }
}

/* The routines by the shape of their buffers, blocking and I-forms, int
 * and large counts alike: the blocking form of each one's v-form (Scatter,
 * Scatterv and Iscatter_c: Scatterv). */
static enum sg_routine family_of(enum sg_routine routine)
{
    return sg_blocking_form(sg_routines[routine].v_form);
}

/* The families step() has a case for, one each. A routine whose family is
 * not here (a row of SG_FAMILY_LIST added alone) is refused as a usage
 * error before MPI starts (bench_options.c), never run and reported as an
 * MPI error. SG_BENCH_LACKS takes one out, as such a row would be: the
 * refusal's test (tests/tester) builds the kernel so. */
static const enum sg_routine families_with_a_case[] = {
    SG_MPI_Bcast,     SG_MPI_Scatterv, SG_MPI_Gatherv,   SG_MPI_Allgatherv,
    SG_MPI_Alltoallv, SG_MPI_Reduce,   SG_MPI_Allreduce, SG_MPI_Reduce_scatter,
    SG_MPI_Scan,      SG_MPI_Exscan,    SG_MPI_Alltoallw, SG_MPI_Neighbor_allgatherv,
    SG_MPI_Neighbor_alltoallv, SG_MPI_Neighbor_alltoallw,
};

/* The neighbourhood collectives run over a complete distributed graph of
 * the job's ranks: every rank has every rank, itself too, as in- and
 * out-neighbour in rank order, so a side holds a block per rank in rank
 * order (as Allgather's and Alltoall's) and a neighbourhood's P (the most
 * blocks a rank holds: call/neighbours.h) is the job's size: the P the
 * probe doubles to classify and writes as an entry's procs is the one the
 * layer reads on a call. */

int bench_has_case(enum sg_routine routine)
{
    enum sg_routine family = family_of(routine);
#ifdef SG_BENCH_LACKS
    if (family == SG_BENCH_LACKS)
        return 0;
#endif
    for (size_t i = 0; i < sizeof families_with_a_case / sizeof *families_with_a_case; i++)
        if (families_with_a_case[i] == family)
            return 1;
    return 0;
}

/* The bytes of the send and receive buffers one rank allocates (0: none,
 * because the buffer is MPI_IN_PLACE or not significant on that rank).
 * Both the allocation and --predict-memory use this; nothing else sizes
 * buffers. Every non-root rank allocates the same. Returns 0, or -1 when a
 * size does not fit in 64 bits. */
struct buffer_bytes {
    uint64_t send, recv;
};

static uint64_t side_elements(enum sg_layout layout, uint64_t n, uint64_t all)
{
    return layout == SG_SIDE_NONE ? 0 : layout == SG_SIDE_SINGLE ? n : all;
}

static int buffer_bytes(enum sg_routine routine, uint64_t count, int type_size, uint64_t procs,
                        int is_root, int inplace, struct buffer_bytes *bytes)
{
    const struct sg_routine_info *info = &sg_routines[routine];
    uint64_t all;
    if (__builtin_mul_overflow(count, procs, &all))
        return -1;
    uint64_t send = side_elements(info->send, count, all);
    uint64_t recv = side_elements(info->recv, count, all);
    if (info->rooted && !is_root && info->in_place_side == SG_IN_PLACE_SEND)
        recv = 0; /* the root's side */
    if (info->rooted && !is_root && info->in_place_side == SG_IN_PLACE_RECV)
        send = 0;
    if (inplace && (is_root || !info->rooted)) {
        if (info->in_place_side == SG_IN_PLACE_RECV) {
            recv = 0; /* Scatter(v): the root's block stays in sendbuf */
        } else if (info->reduction) {
            recv = send > recv ? send : recv; /* the input is in recvbuf */
            send = 0;
        } else {
            send = 0; /* this rank's block is already in recvbuf */
        }
    }
    if (__builtin_mul_overflow(send, (uint64_t)type_size, &bytes->send) ||
        __builtin_mul_overflow(recv, (uint64_t)type_size, &bytes->recv))
        return -1;
    return 0;
}

struct bench {
    enum sg_routine routine;
    enum sg_routine family; /* family_of(routine) */
    int nonblocking, persistent, use_pmpi, reversed, inplace, sparse;
    int rank, procs, root;
    double late;     /* --late: the last rank's delay before each call */
    int error_grace; /* --error-grace: seconds a rank whose call failed waits for its peers */
    double agree_by; /* > 0: the MPI_Wtime by which the agreement must come (error_grace) */
    double returned; /* --late: the longest an I-call took to return here */
    double self_wait; /* the share of time a rank waits behind its own job's ranks */
    double cpu_wait;  /* this size's run delay beyond self_wait (< 0: unknown) */
    long long count; /* past INT_MAX only in a large-count form */
    int large;       /* a large-count (`_c`) routine: MPI_Count counts, MPI_Aint displs */
    int size; /* bytes per element */
    MPI_Datatype type;
    uint64_t salt;        /* the iteration: its data differ from the previous one's */
    uint64_t mask;        /* of the reductions' contributions */
    int *counts, *displs; /* v-routines: every rank's block, as user code computes it
                           * (Alltoallw: displs in bytes) */
    MPI_Count *wide_counts; /* the same of a large-count routine, whose MPI_Aint */
    MPI_Aint *wide_displs;  /* displacements cannot wrap (Neighbor_alltoallw's: every form) */
    MPI_Datatype *types;  /* Alltoallw(, Neighbor_): every block's datatype (`type`) */
    size_t *offsets;      /* where each block really starts, in elements */
    void *send, *recv;
    struct buffer_bytes bytes;
    MPI_Comm agree_comm; /* point-to-point agreement only */
    MPI_Comm comm;       /* the collective's: MPI_COMM_WORLD, or its duplicate (--cvar) */
};

/* --sparse: element `i` of a message carries data only in the first
 * SPARSE_RUN bytes of every SPARSE_STRIDE; elsewhere it is zero. */
enum { SPARSE_RUN = 4096, SPARSE_STRIDE = 64 * SPARSE_RUN };

static uint64_t truncated(uint64_t v, int size)
{
    return size == 8 ? v : v & ((UINT64_C(1) << (8 * size)) - 1);
}

/* How many elements to check: none after an MPI error (the call failed). */
static size_t checked(int err, size_t n)
{
    return err == MPI_SUCCESS ? n : 0;
}

/* The mask of the reductions' contributions: the largest 2^k - 1 that P
 * times over still fits in an element (a mask, not a modulus: the fill and the
 * check of a reduction of 2^31 elements are a large part of its job). */
static uint64_t contribution_mask(int size, int procs)
{
    uint64_t most = truncated(UINT64_MAX, size) / (uint64_t)procs, mask = UINT64_MAX;
    while (mask > most)
        mask >>= 1;
    return mask;
}

/* The data. Element `i` of the message rank `src` sends to rank `dst` (dst 0
 * when all get the same) is
 *     src*131 + dst*31 + i*7 + salt*1009 + 1
 * truncated to the element: an arithmetic sequence in i. What rank `r`
 * contributes to element `i` of a reduction is that of (r, 0) & b->mask,
 * small enough that the sum over all ranks, which the reductions deliver,
 * never overflows: Open MPI 4.1's op/avx saturates instead of wrapping
 * (open-mpi/ompi#8045). With --sparse an element that does not carry data is
 * 0, in every one of them.
 *
 * A pattern is all of these: element i is the sum over t < terms of
 * (first + t*131 + i*7) & mask, each term truncated to the element. */
struct pattern {
    uint64_t first, mask;
    int terms;
};

static struct pattern data(const struct bench *b, int src, int dst)
{
    struct pattern p = {(uint64_t)src * 131u + (uint64_t)dst * 31u + b->salt * 1009u + 1u,
                        UINT64_MAX, 1};
    return p;
}

static struct pattern contribution(const struct bench *b, int r)
{
    struct pattern p = data(b, r, 0);
    p.mask = b->mask;
    return p;
}

/* The sum of the contributions of ranks 0 .. ranks - 1. */
static struct pattern reduced(const struct bench *b, int ranks)
{
    struct pattern p = contribution(b, 0);
    p.terms = ranks;
    return p;
}

/* How many ranks' contributions, from rank 0 on, rank `r`'s result of the
 * reduction sums (routines.h: what it delivers); 0 where it gets none or
 * an undefined one. */
static int reduced_ranks(const struct bench *b, int r)
{
    switch (sg_routines[b->routine].reduces) {
    case SG_REDUCES_TO_ROOT: return r == b->root ? b->procs : 0;
    case SG_REDUCES_TO_ALL:
    case SG_REDUCES_SCATTERED: return b->procs;
    case SG_REDUCES_PREFIX: return r + 1;
    case SG_REDUCES_EXCLUSIVE_PREFIX: return r;
    case SG_REDUCES_NONE: break;
    }
    return 0;
}

/* Where a message carries no data (--sparse): 0. */
static const struct pattern zeros = {0, 0, 1};

struct check {
    const struct bench *b;
    const void *buf;
    size_t bad;
};

/* Element `at` of k->buf is `got`, not `want`: the first one is reported. */
static void wrong_element(struct check *k, size_t at, uint64_t got, uint64_t want)
{
    if (k->bad++ == 0)
        fprintf(stderr,
                PROGRAM ": rank %d: %s count=%lld iteration %llu: element %zu is %llu, "
                        "expected %llu\n",
                k->b->rank, sg_routines[k->b->routine].name, k->b->count,
                (unsigned long long)k->b->salt, at, (unsigned long long)got,
                (unsigned long long)want);
}

/* The kernels, one set per element type T: runs of up to CHUNK elements in
 * loops the compiler vectorizes (CHUNK of them at a time: a trip count it
 * knows, as -O2's cost model wants). The data are built from a table of
 * (T)(7 j), j < CHUNK, added to a term's first element of the run; a run
 * checked is compared with them as a whole, and only a run that differs is
 * looked at element by element, to count the wrong ones and report the
 * first. */
enum { CHUNK = 512 };

#define SG_BENCH_KERNELS(T, S)                                                              \
    static T ramp##S[CHUNK];                                                                \
                                                                                            \
    /* Elements [i, i + len) of p, len <= CHUNK, into out. */                               \
    static inline __attribute__((always_inline)) void                                       \
    expected##S(T *restrict out, size_t len, uint64_t i, const struct pattern *p)           \
    {                                                                                       \
        T mask = (T)p->mask, start = (T)(p->first + i * 7u);                                \
        for (size_t j = 0; j < len; j++)                                                    \
            out[j] = (T)(start + ramp##S[j]) & mask;                                        \
        for (int t = 1; t < p->terms && mask != 0; t++) {                                   \
            start = (T)(start + 131u);                                                      \
            for (size_t j = 0; j < len; j++)                                                \
                out[j] = (T)(out[j] + ((T)(start + ramp##S[j]) & mask));                    \
        }                                                                                   \
    }                                                                                       \
                                                                                            \
    /* Elements [i, i + len) of p into elements [at, at + len) of buf. */                   \
    static void fill##S(void *buf, size_t at, uint64_t i, size_t len,                       \
                        const struct pattern *p)                                            \
    {                                                                                       \
        T *out = (T *)buf + at;                                                             \
        size_t j = 0;                                                                       \
        for (; len - j >= CHUNK; j += CHUNK)                                                \
            expected##S(out + j, CHUNK, i + j, p);                                          \
        if (j < len)                                                                        \
            expected##S(out + j, len - j, i + j, p);                                        \
    }                                                                                       \
                                                                                            \
    /* Elements [at, at + len) of k->buf, expected: elements [i, i + len) of p. */          \
    static void check##S(struct check *k, size_t at, uint64_t i, size_t len,                \
                         const struct pattern *p)                                           \
    {                                                                                       \
        const T *in = (const T *)k->buf + at;                                               \
        T want[CHUNK];                                                                      \
        for (size_t j = 0; j < len; j += CHUNK) {                                           \
            size_t m = len - j < CHUNK ? len - j : CHUNK;                                   \
            T diff = 0;                                                                     \
            if (m < CHUNK) { /* the last run, shorter */                                    \
                expected##S(want, m, i + j, p);                                             \
                for (size_t c = 0; c < m; c++)                                              \
                    diff |= (T)(in[j + c] ^ want[c]);                                       \
            } else if (p->mask == 0) { /* zeros */                                          \
                for (size_t c = 0; c < CHUNK; c++)                                          \
                    diff |= in[j + c];                                                      \
            } else {                                                                        \
                expected##S(want, CHUNK, i + j, p);                                         \
                for (size_t c = 0; c < CHUNK; c++)                                          \
                    diff |= (T)(in[j + c] ^ want[c]);                                       \
            }                                                                               \
            if (diff == 0)                                                                  \
                continue;                                                                   \
            expected##S(want, m, i + j, p); /* a run that differs: one by one */            \
            for (size_t c = 0; c < m; c++)                                                  \
                if (in[j + c] != want[c])                                                   \
                    wrong_element(k, at + j + c, in[j + c], want[c]);                       \
        }                                                                                   \
    }

SG_BENCH_KERNELS(uint8_t, 1)
SG_BENCH_KERNELS(uint16_t, 2)
SG_BENCH_KERNELS(uint32_t, 4)
SG_BENCH_KERNELS(uint64_t, 8)

static void init_kernels(void)
{
    for (size_t j = 0; j < CHUNK; j++) {
        ramp1[j] = (uint8_t)(j * 7u);
        ramp2[j] = (uint16_t)(j * 7u);
        ramp4[j] = (uint32_t)(j * 7u);
        ramp8[j] = (uint64_t)(j * 7u);
    }
}

/* With --sparse, the elements from `i` on that are alike (all carry data, or
 * none does) end where this returns, at most at `end`. */
static uint64_t alike_until(const struct bench *b, uint64_t i, uint64_t end, int *carrying)
{
    *carrying = 1;
    if (!b->sparse)
        return end;
    uint64_t stride = SPARSE_STRIDE / (uint64_t)b->size, run = SPARSE_RUN / (uint64_t)b->size;
    uint64_t start = i - i % stride, until = start + run;
    if (i >= until)
        *carrying = 0, until = start + stride;
    return until < end ? until : end;
}

/* Elements [0, len) of a message of p into elements [at, at + len) of an
 * input buffer. With --sparse the send buffer keeps its zeros where the
 * message carries none: those pages are never written. (Buffers the MPI
 * writes to are written whole.) */
static void fill(const struct bench *b, void *buf, size_t at, size_t len, struct pattern p)
{
    for (uint64_t i = 0; i < len;) {
        int carrying;
        uint64_t until = alike_until(b, i, len, &carrying);
        const struct pattern *run = carrying ? &p : &zeros;
        if (carrying || buf != b->send) {
            switch (b->size) {
            case 1: fill1(buf, at + i, i, until - i, run); break;
            case 2: fill2(buf, at + i, i, until - i, run); break;
            case 4: fill4(buf, at + i, i, until - i, run); break;
            default: fill8(buf, at + i, i, until - i, run); break;
            }
        }
        i = until;
    }
}

/* Elements [at, at + len) of k->buf must be elements [first, first + len)
 * of a message of p; every wrong one is counted, the first reported. */
static void check(struct check *k, size_t at, uint64_t first, size_t len, struct pattern p)
{
    const struct bench *b = k->b;
    for (uint64_t i = first; i < first + len;) {
        int carrying;
        uint64_t until = alike_until(b, i, first + len, &carrying);
        const struct pattern *run = carrying ? &p : &zeros;
        size_t where = at + (size_t)(i - first);
        switch (b->size) {
        case 1: check1(k, where, i, until - i, run); break;
        case 2: check2(k, where, i, until - i, run); break;
        case 4: check4(k, where, i, until - i, run); break;
        default: check8(k, where, i, until - i, run); break;
        }
        i = until;
    }
}

/* Where rank r's block starts, in elements: packed in rank order for the
 * regular routines, as laid out by layout() for the v-routines. */
static size_t block(const struct bench *b, int r)
{
    return sg_routines[b->routine].irregular ? b->offsets[r] : (size_t)r * (size_t)b->count;
}

/* Every rank's block of `count` elements, laid out one after another (or in
 * reverse rank order); displs summed in int like user code, so they wrap
 * (Alltoallw's in bytes, which wrap `size` times sooner; MPI_Aint ones
 * cannot: sg_displs_are_aint). */
static void layout(struct bench *b)
{
    unsigned unit = sg_routines[b->routine].send == SG_SIDE_W ? (unsigned)b->size : 1u;
    int blocks = b->procs;
    for (int k = 0; k < blocks; k++) {
        int i = b->reversed ? blocks - 1 - k : k;
        int previous = b->reversed ? i + 1 : i - 1;
        b->counts[i] = (int)b->count; /* a large-count routine's: wide_counts */
        b->types[i] = b->type;
        b->offsets[i] = (size_t)k * (size_t)b->count;
        b->displs[i] = k == 0 ? 0
                              : (int)(unsigned)((unsigned)b->displs[previous] +
                                                (unsigned)b->counts[previous] * unit);
        if (b->large)
            b->wide_counts[i] = b->count;
        if (b->wide_displs)
            b->wide_displs[i] = (MPI_Aint)b->offsets[i] * (MPI_Aint)unit;
    }
}

static double call_returned; /* when the last I-call returned */

static int complete(const struct bench *b, int err, MPI_Request *request)
{
    call_returned = MPI_Wtime();
    if (err != MPI_SUCCESS)
        return err;
    return b->use_pmpi ? PMPI_Wait(request, MPI_STATUS_IGNORE)
                       : MPI_Wait(request, MPI_STATUS_IGNORE);
}

/* Blocking, non-blocking or persistent, MPI_ or PMPI_, int or large counts:
 * the same arguments, where `call_counts` and `call_displs` are the
 * v-routines' arrays of the routine's width; timed. */
#define CALL(Name, IName, ...) CALL_FORM(Name, IName, Name##_init, __VA_ARGS__)
#define CALL_FORM(Name, IName, PName, ...)                                                  \
    (b->persistent    ? PERSISTENT_CALL(PName, __VA_ARGS__)                                 \
     : b->nonblocking ? complete(b,                                                         \
                                 (b->use_pmpi ? PMPI_##IName : MPI_##IName)(__VA_ARGS__,    \
                                                                            &request),      \
                                 &request)                                                  \
                      : (b->use_pmpi ? PMPI_##Name : MPI_##Name)(__VA_ARGS__))
#if SCALEGUARD_PERSISTENT
/* A persistent request its _init made (`err`: what that returned):
 * started once, completed and freed (each iteration makes its own). */
static int run_persistent(const struct bench *b, int err, MPI_Request *request)
{
    if (err != MPI_SUCCESS)
        return complete(b, err, request);
    err = complete(b, b->use_pmpi ? PMPI_Start(request) : MPI_Start(request), request);
    int freed = b->use_pmpi ? PMPI_Request_free(request) : MPI_Request_free(request);
    return err != MPI_SUCCESS ? err : freed;
}

#define PERSISTENT_CALL(PName, ...)                                                         \
    run_persistent(b,                                                                       \
                   (b->use_pmpi ? PMPI_##PName : MPI_##PName)(__VA_ARGS__, MPI_INFO_NULL,   \
                                                              &request),                    \
                   &request)
#else
#define PERSISTENT_CALL(...) MPI_ERR_OTHER /* never: this MPI has no persistent form */
#endif
#if SCALEGUARD_LARGE_COUNT
#define LARGE_CALL(Name, IName, ...)                                                        \
    const MPI_Count *call_counts = b->wide_counts;                                          \
    const MPI_Aint *call_displs = b->wide_displs;                                           \
    (void)call_counts;                                                                      \
    (void)call_displs;                                                                      \
    err = CALL_FORM(Name##_c, IName##_c, Name##_init_c, __VA_ARGS__)
#else
#define LARGE_CALL(...) err = MPI_ERR_OTHER /* never: bench_options.c refuses it */
#endif
#define TIMED(...)                                                                          \
    do {                                                                                    \
        int late = b->late > 0 && b->rank == b->procs - 1;                                  \
        if (late)                                                                           \
            nanosleep(&(struct timespec){(time_t)b->late,                                   \
                                         (long)((b->late - (double)(time_t)b->late) * 1e9)}, \
                      NULL);                                                                \
        double started = MPI_Wtime();                                                       \
        if (b->large) {                                                                     \
            LARGE_CALL(__VA_ARGS__);                                                        \
        } else {                                                                            \
            const int *call_counts = b->counts, *call_displs = b->displs;                   \
            (void)call_counts;                                                              \
            (void)call_displs;                                                              \
            err = CALL(__VA_ARGS__);                                                        \
        }                                                                                   \
        *elapsed = MPI_Wtime() - started;                                                   \
        if (b->nonblocking && !late && call_returned - started > b->returned)               \
            b->returned = call_returned - started;                                          \
    } while (0)

/* Fill a buffer with a pattern no delivered data is made of as a whole. */
static void reset(void *buf, uint64_t bytes)
{
    if (bytes > 0)
        memset(buf, 0xA5, (size_t)bytes);
}

/* One iteration: set the data up, run the collective (timed into *elapsed),
 * validate. Returns 0 or the MPI error code; *wrong counts bad elements. */
static int step(struct bench *b, double *elapsed, size_t *wrong)
{
    MPI_Comm comm = b->comm;
    MPI_Request request;
    MPI_Datatype t = b->type;
    size_t n = (size_t)b->count, all = n * (size_t)b->procs;
    int root = b->root, me = b->rank, P = b->procs, err = MPI_ERR_OTHER;
    int is_root = me == root, regular = !sg_routines[b->routine].irregular;
    void *send = b->send, *recv = b->recv;
    struct check k = {b, NULL, 0};

    *elapsed = 0;
    reset(recv, b->bytes.recv);
    switch (b->family) {
    case SG_MPI_Bcast:
        if (is_root)
            fill(b, recv, 0, n, data(b, root, 0));
        TIMED(Bcast, Ibcast, recv, b->count, t, root, comm);
        k.buf = recv;
        check(&k, 0, 0, checked(err, n), data(b, root, 0));
        break;
    case SG_MPI_Scatterv: {
        int in_place = b->inplace && is_root; /* the root's block stays in sendbuf */
        void *rbuf = in_place ? MPI_IN_PLACE : recv;
        for (int r = 0; is_root && r < P; r++)
            fill(b, send, block(b, r), n, data(b, root, r));
        if (regular)
            TIMED(Scatter, Iscatter, send, b->count, t, rbuf, b->count, t, root, comm);
        else
            TIMED(Scatterv, Iscatterv, send, call_counts, call_displs, t, rbuf, b->count, t, root,
                  comm);
        k.buf = in_place ? send : recv;
        size_t base = in_place ? block(b, root) : 0;
        check(&k, base, 0, checked(err, n), data(b, root, me));
        break;
    }
    case SG_MPI_Gatherv:
    case SG_MPI_Allgatherv: {
        int rooted = b->family == SG_MPI_Gatherv;
        int gets = !rooted || is_root;
        int in_place = b->inplace && gets; /* this rank's block is already in recvbuf */
        int dst = rooted ? root : 0;
        const void *sbuf = in_place ? MPI_IN_PLACE : send;
        if (in_place)
            fill(b, recv, block(b, me), n, data(b, me, dst));
        else
            fill(b, send, 0, n, data(b, me, dst));
        if (sg_blocking_form(b->routine) == SG_MPI_Gather)
            TIMED(Gather, Igather, sbuf, b->count, t, recv, b->count, t, root, comm);
        else if (sg_blocking_form(b->routine) == SG_MPI_Gatherv)
            TIMED(Gatherv, Igatherv, sbuf, b->count, t, recv, call_counts, call_displs, t, root,
                  comm);
        else if (regular)
            TIMED(Allgather, Iallgather, sbuf, b->count, t, recv, b->count, t, comm);
        else
            TIMED(Allgatherv, Iallgatherv, sbuf, b->count, t, recv, call_counts, call_displs, t,
                  comm);
        k.buf = recv;
        for (int r = 0; gets && r < P; r++)
            check(&k, block(b, r), 0, checked(err, n), data(b, r, dst));
        break;
    }
    case SG_MPI_Alltoallv: {
        void *input = b->inplace ? recv : send;
        const void *sbuf = b->inplace ? MPI_IN_PLACE : send;
        for (int d = 0; d < P; d++)
            fill(b, input, block(b, d), n, data(b, me, d));
        if (regular)
            TIMED(Alltoall, Ialltoall, sbuf, b->count, t, recv, b->count, t, comm);
        else
            TIMED(Alltoallv, Ialltoallv, sbuf, call_counts, call_displs, t, recv, call_counts,
                  call_displs, t, comm);
        k.buf = recv;
        for (int r = 0; r < P; r++)
            check(&k, block(b, r), 0, checked(err, n), data(b, r, me));
        break;
    }
    case SG_MPI_Alltoallw: { /* Alltoallv's blocks, each with its datatype, at byte displs */
        void *input = b->inplace ? recv : send;
        const void *sbuf = b->inplace ? MPI_IN_PLACE : send;
        for (int d = 0; d < P; d++)
            fill(b, input, block(b, d), n, data(b, me, d));
        TIMED(Alltoallw, Ialltoallw, sbuf, call_counts, call_displs, b->types, recv,
              call_counts, call_displs, b->types, comm);
        k.buf = recv;
        for (int r = 0; r < P; r++)
            check(&k, block(b, r), 0, checked(err, n), data(b, r, me));
        break;
    }
    case SG_MPI_Reduce:
    case SG_MPI_Allreduce:
    case SG_MPI_Scan:
    case SG_MPI_Exscan: {
        int ranks = reduced_ranks(b, me);
        int in_place = b->inplace && (is_root || !sg_routines[b->routine].rooted);
        void *input = in_place ? recv : send; /* in place: the input is in recvbuf */
        const void *sbuf = in_place ? MPI_IN_PLACE : send;
        fill(b, input, 0, n, contribution(b, me));
        if (b->family == SG_MPI_Reduce)
            TIMED(Reduce, Ireduce, sbuf, recv, b->count, t, MPI_SUM, root, comm);
        else if (b->family == SG_MPI_Allreduce)
            TIMED(Allreduce, Iallreduce, sbuf, recv, b->count, t, MPI_SUM, comm);
        else if (b->family == SG_MPI_Scan)
            TIMED(Scan, Iscan, sbuf, recv, b->count, t, MPI_SUM, comm);
        else
            TIMED(Exscan, Iexscan, sbuf, recv, b->count, t, MPI_SUM, comm);
        k.buf = recv;
        if (ranks > 0) /* none off Reduce's root; Exscan's rank 0 gets an undefined one */
            check(&k, 0, 0, checked(err, n), reduced(b, ranks));
        break;
    }
    case SG_MPI_Reduce_scatter: {
        void *input = b->inplace ? recv : send; /* in place: the result lands in front */
        const void *sbuf = b->inplace ? MPI_IN_PLACE : send;
        fill(b, input, 0, all, contribution(b, me));
        if (sg_blocking_form(b->routine) == SG_MPI_Reduce_scatter)
            TIMED(Reduce_scatter, Ireduce_scatter, sbuf, recv, call_counts, t, MPI_SUM, comm);
        else
            TIMED(Reduce_scatter_block, Ireduce_scatter_block, sbuf, recv, b->count, t,
                  MPI_SUM, comm);
        k.buf = recv;
        check(&k, 0, (uint64_t)me * n, checked(err, n), reduced(b, reduced_ranks(b, me)));
        break;
    }
    case SG_MPI_Neighbor_allgatherv:
    case SG_MPI_Neighbor_alltoallv:
    case SG_MPI_Neighbor_alltoallw: { /* the complete graph: neighbour d is rank d */
        int gather = b->family == SG_MPI_Neighbor_allgatherv;
        for (int d = 0; d < (gather ? 1 : P); d++)
            fill(b, send, block(b, d), n, data(b, me, gather ? 0 : d));
        if (gather && regular)
            TIMED(Neighbor_allgather, Ineighbor_allgather, send, b->count, t, recv, b->count, t,
                  comm);
        else if (gather)
            TIMED(Neighbor_allgatherv, Ineighbor_allgatherv, send, b->count, t, recv,
                  call_counts, call_displs, t, comm);
        else if (regular)
            TIMED(Neighbor_alltoall, Ineighbor_alltoall, send, b->count, t, recv, b->count, t,
                  comm);
        else if (b->family == SG_MPI_Neighbor_alltoallw) /* MPI_Aint byte displs, any form */
            TIMED(Neighbor_alltoallw, Ineighbor_alltoallw, send, call_counts, b->wide_displs,
                  b->types, recv, call_counts, b->wide_displs, b->types, comm);
        else
            TIMED(Neighbor_alltoallv, Ineighbor_alltoallv, send, call_counts, call_displs, t,
                  recv, call_counts, call_displs, t, comm);
        k.buf = recv;
        for (int r = 0; r < P; r++)
            check(&k, block(b, r), 0, checked(err, n), data(b, r, gather ? 0 : me));
        break;
    }
    default: /* refused before MPI started (bench_has_case) */
        break;
    }
    *wrong = err == MPI_SUCCESS ? k.bad : 0;
    return err;
}

/* The peak resident set size of this process so far, in bytes (0 if unknown). */
static double peak_rss(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss < 0)
        return 0;
    return (double)usage.ru_maxrss * 1024; /* Linux: KiB */
}

/* The ranks' peak resident set sizes: summed, and the largest. */
struct peak {
    double sum, max;
};

/* The time of one size: the mean call, and the fastest call (each call's
 * time being its slowest rank's). */
struct timing {
    double mean, fastest;
};

/* agree's receive. After this rank's call returned an MPI error
 * (b->agree_by set, --error-grace), its peers may wait in the collective
 * for it and never agree (MPICH 4.0.2's in-place MPI_Igather_c at P = 8,
 * 2^30: one rank's schedule out of memory, seven waiting until the job's
 * limit): past agree_by it says so and aborts the job with the error's
 * status; the size has failed either way. */
static int agree_recv(const struct bench *b, double *values, int n, int from, int tag)
{
    if (b->agree_by <= 0)
        return PMPI_Recv(values, n, MPI_DOUBLE, from, tag, b->agree_comm, MPI_STATUS_IGNORE);
    MPI_Request request;
    int err = PMPI_Irecv(values, n, MPI_DOUBLE, from, tag, b->agree_comm, &request);
    for (int done = 0; err == MPI_SUCCESS && !done;) {
        err = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS && !done && MPI_Wtime() > b->agree_by) {
            fprintf(stderr,
                    PROGRAM ": rank %d: %s count=%lld: the other ranks did not agree within %d s "
                            "of this rank's MPI error: ending the job\n",
                    b->rank, sg_routines[b->routine].name, b->count, b->error_grace);
            PMPI_Abort(MPI_COMM_WORLD, BENCH_MPI_ERROR);
        }
    }
    return err;
}

/* Every rank learns the worst status, the longest mean time of a call and
 * the longest time of the latest call (`call`) of all, the sum and the
 * largest of their peak resident set sizes (each rank's, read now), and
 * the longest an I-call took to return (b->returned) and the largest run
 * delay (b->cpu_wait): a binomial
 * tree of point-to-point messages up to rank 0 and back down. A message
 * that fails makes the status at least an MPI error. */
static void agree(struct bench *b, int *status, double *mean, double *call, struct peak *peak)
{
    enum { UP = 1, DOWN = 2, N = 7 };
    double rss = peak_rss();
    double mine[N] = {*status, *mean, rss, rss, b->returned, *call, b->cpu_wait}; /* [2]: sum */
    double other[N];
    int rank = b->rank, procs = b->procs, mask = 1;
    for (; mask < procs; mask <<= 1) {
        if (rank & mask) {
            if (PMPI_Send(mine, N, MPI_DOUBLE, rank - mask, UP, b->agree_comm) != MPI_SUCCESS &&
                mine[0] < BENCH_MPI_ERROR)
                mine[0] = BENCH_MPI_ERROR;
            break;
        }
        if (rank + mask < procs) {
            if (agree_recv(b, other, N, rank + mask, UP) != MPI_SUCCESS)
                other[0] = BENCH_MPI_ERROR, other[1] = other[2] = other[3] = other[4] =
                                                 other[5] = 0, other[6] = -1;
            for (int j = 0; j < N; j++)
                mine[j] = j == 2 ? mine[j] + other[j] : other[j] > mine[j] ? other[j] : mine[j];
        }
    }
    if (rank != 0 && agree_recv(b, mine, N, rank - mask, DOWN) != MPI_SUCCESS &&
        mine[0] < BENCH_MPI_ERROR)
        mine[0] = BENCH_MPI_ERROR;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rank + mask < procs)
            PMPI_Send(mine, N, MPI_DOUBLE, rank + mask, DOWN, b->agree_comm);
    *status = (int)mine[0];
    *mean = mine[1];
    peak->sum = mine[2];
    peak->max = mine[3];
    b->returned = mine[4];
    *call = mine[5];
    b->cpu_wait = mine[6];
}

/* Seconds this thread has spent ready to run but waiting for a CPU (the
 * run delay, /proc/self/schedstat's second field); < 0 where unknown. */
static double run_delay(void)
{
    FILE *file = fopen("/proc/self/schedstat", "r");
    unsigned long long ran, waited;
    int fields = file != NULL ? fscanf(file, "%llu %llu", &ran, &waited) : 0;
    if (file != NULL)
        fclose(file);
    return fields == 2 ? (double)waited * 1e-9 : -1;
}

/* What every rank tells rank 0 of itself for report_world. */
struct whereabouts {
    char host[MPI_MAX_PROCESSOR_NAME];
    cpu_set_t cpus; /* its affinity */
};

/* Rank 0 prints the world line (see the top) and sends each rank its
 * self_wait: 1 - CPUs/ranks on its host where its ranks outnumber the CPUs
 * they may run on (the union of their affinities), else 0; busy-polling
 * ranks on fewer CPUs wait that share of the time on a quiet machine. */
static void report_world(struct bench *b)
{
    enum { WHERE = 3, SELF_WAIT = 4 };
    struct whereabouts me = {0};
    int length = 0;
    MPI_Get_processor_name(me.host, &length);
    if (sched_getaffinity(0, sizeof me.cpus, &me.cpus) != 0)
        CPU_ZERO(&me.cpus);
    b->self_wait = 0;
    if (b->rank != 0) {
        if (PMPI_Send(&me, sizeof me, MPI_BYTE, 0, WHERE, b->agree_comm) != MPI_SUCCESS ||
            PMPI_Recv(&b->self_wait, 1, MPI_DOUBLE, 0, SELF_WAIT, b->agree_comm,
                      MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            fprintf(stderr, PROGRAM ": rank %d: could not report its host to rank 0\n", b->rank);
            MPI_Abort(MPI_COMM_WORLD, BENCH_MPI_ERROR);
        }
        return;
    }
    struct whereabouts *all = calloc((size_t)b->procs, sizeof *all);
    int *host_of = calloc((size_t)b->procs, sizeof *host_of);
    int *ranks_on = calloc((size_t)b->procs, sizeof *ranks_on);
    if (all == NULL || host_of == NULL || ranks_on == NULL) {
        fprintf(stderr, PROGRAM ": rank 0: cannot allocate the hosts of %d ranks\n", b->procs);
        MPI_Abort(MPI_COMM_WORLD, BENCH_OOM);
    }
    all[0] = me;
    for (int r = 1; r < b->procs; r++)
        if (PMPI_Recv(&all[r], sizeof all[r], MPI_BYTE, r, WHERE, b->agree_comm,
                      MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            fprintf(stderr, PROGRAM ": rank 0: rank %d did not report its host\n", r);
            MPI_Abort(MPI_COMM_WORLD, BENCH_MPI_ERROR);
        }
    /* hosts by first rank: host_of[r] is the first rank on r's host, whose
     * entry gathers the host's CPUs and ranks */
    int hosts = 0;
    for (int r = 0; r < b->procs; r++) {
        host_of[r] = r;
        for (int first = 0; first < r; first++)
            if (host_of[first] == first && strcmp(all[first].host, all[r].host) == 0) {
                host_of[r] = first;
                break;
            }
        if (host_of[r] == r)
            hosts++;
        else
            CPU_OR(&all[host_of[r]].cpus, &all[host_of[r]].cpus, &all[r].cpus);
        ranks_on[host_of[r]]++;
    }
    printf("# " PROGRAM ": world procs=%d hosts=%d host_names=", b->procs, hosts);
    for (int r = 0, printed = 0; r < b->procs; r++)
        if (host_of[r] == r)
            printf("%s%s", printed++ ? "," : "", all[r].host);
    putchar('\n');
    fflush(stdout);
    for (int r = b->procs - 1; r >= 0; r--) {
        int cpus = CPU_COUNT(&all[host_of[r]].cpus), ranks = ranks_on[host_of[r]];
        double self_wait = cpus > 0 && ranks > cpus ? 1 - (double)cpus / ranks : 0;
        if (r == 0)
            b->self_wait = self_wait;
        else
            PMPI_Send(&self_wait, 1, MPI_DOUBLE, r, SELF_WAIT, b->agree_comm);
    }
    free(all);
    free(host_of);
    free(ranks_on);
}

/* A buffer of `bytes` bytes, all zero when `zeroed` (calloc: a large one is
 * fresh pages, not touched); for 0, `empty` (a distinct static address per
 * buffer: MPICH rejects equal send and receive pointers as aliased even when
 * nothing moves). */
static void *allocate(const struct bench *b, uint64_t bytes, int zeroed, void *empty,
                      int *status)
{
    if (bytes == 0)
        return empty;
    void *buf = bytes > SIZE_MAX ? NULL : zeroed ? calloc(1, (size_t)bytes) : malloc((size_t)bytes);
    if (buf == NULL) {
        fprintf(stderr, PROGRAM ": rank %d: %s count=%lld: cannot allocate %llu bytes\n", b->rank,
                sg_routines[b->routine].name, b->count, (unsigned long long)bytes);
        *status = BENCH_OOM;
    }
    return buf;
}

/* Run one size `iters` times; the agreed status, in *time the longest mean
 * time of one call over the ranks and the fastest call, in *peak the ranks'
 * peak resident set sizes after the last iteration. */
static int run_size(struct bench *b, int iters, struct timing *time, struct peak *peak)
{
    static uint64_t empty_send, empty_recv;
    int status = BENCH_PASS;
    double total = 0, call = 0;
    const char *name = sg_routines[b->routine].name;
    time->mean = time->fastest = 0;
    b->send = b->recv = NULL;
    if (buffer_bytes(b->routine, (uint64_t)b->count, b->size, (uint64_t)b->procs,
                     b->rank == b->root, b->inplace, &b->bytes) != 0) {
        fprintf(stderr, PROGRAM ": rank %d: %s count=%lld: buffers exceed 2^64 bytes\n", b->rank,
                name, b->count);
        status = BENCH_OOM;
    } else {
        b->send = allocate(b, b->bytes.send, b->sparse, &empty_send, &status);
        b->recv = allocate(b, b->bytes.recv, 0, &empty_recv, &status);
    }
    /* before the call: every rank knows who has memory */
    b->cpu_wait = -1;
    agree(b, &status, &time->mean, &call, peak);

    double waited = 0, stepping = 0;
    for (int done = 0; status == BENCH_PASS && done < iters;) {
        double elapsed;
        size_t wrong = 0;
        b->salt = (uint64_t)done;
        double delay_before = run_delay(), started = MPI_Wtime();
        int err = step(b, &elapsed, &wrong);
        double delay_after = run_delay();
        stepping += MPI_Wtime() - started;
        waited += delay_after - delay_before;
        b->cpu_wait = -1;
        if (delay_before >= 0 && delay_after >= 0 && stepping > 0) {
            double beyond = waited / stepping - b->self_wait;
            b->cpu_wait = beyond > 0 ? beyond : 0;
        }
        total += elapsed;
        call = elapsed;
        done++;
        if (err != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int length = 0;
            if (MPI_Error_string(err, text, &length) != MPI_SUCCESS)
                snprintf(text, sizeof text, "unknown error");
            fprintf(stderr, PROGRAM ": rank %d: %s count=%lld returned %d (%s)\n", b->rank, name,
                    b->count, err, text);
            status = BENCH_MPI_ERROR;
            if (b->error_grace > 0)
                b->agree_by = MPI_Wtime() + b->error_grace;
        } else if (wrong > 0) {
            fprintf(stderr, PROGRAM ": rank %d: %s count=%lld delivered %zu wrong elements\n",
                    b->rank, name, b->count, wrong);
            status = BENCH_WRONG_DATA;
        }
        time->mean = total / done;
        agree(b, &status, &time->mean, &call, peak);
        b->agree_by = 0;
        if (done == 1 || call < time->fastest)
            time->fastest = call;
    }
    if (b->send != &empty_send)
        free(b->send);
    if (b->recv != &empty_recv)
        free(b->recv);
    b->send = b->recv = NULL;
    return status;
}

/* --sparse: the bytes of a send buffer of `bytes` that are touched, at most:
 * each message (at most `procs` of them) has one run of SPARSE_RUN bytes per
 * SPARSE_STRIDE begun, and a run may straddle two pages. */
static uint64_t sparse_touched(uint64_t bytes, uint64_t procs)
{
    uint64_t touched = (bytes / SPARSE_STRIDE + procs) * 2 * SPARSE_RUN;
    return touched < bytes ? touched : bytes;
}

/* --predict-memory: the buffers of that call over P ranks, from buffer_bytes()
 * (with --sparse the pages of the send buffers that are touched), one line
 * per count, in their order. */
static int predict(const struct options *o)
{
    enum sg_routine routine = (enum sg_routine)o->routine;
    for (size_t i = 0; i < o->ncounts; i++) {
        struct buffer_bytes root, other = {0, 0};
        uint64_t total, max, root_bytes, other_bytes = 0, others, count = (uint64_t)o->counts[i];
        int overflow =
            buffer_bytes(routine, count, o->type_size, (uint64_t)o->procs, 1, o->inplace, &root) !=
                0 ||
            (o->procs > 1 && buffer_bytes(routine, count, o->type_size, (uint64_t)o->procs, 0,
                                          o->inplace, &other) != 0);
        if (!overflow && o->sparse) {
            root.send = sparse_touched(root.send, (uint64_t)o->procs);
            other.send = sparse_touched(other.send, (uint64_t)o->procs);
        }
        overflow =
            overflow || __builtin_add_overflow(root.send, root.recv, &root_bytes) ||
            __builtin_add_overflow(other.send, other.recv, &other_bytes) ||
            __builtin_mul_overflow(other_bytes, (uint64_t)(o->procs - 1), &others) ||
            __builtin_add_overflow(root_bytes, others, &total);
        if (overflow) {
            fprintf(stderr, PROGRAM ": --predict-memory: more than 2^64 bytes at n=%llu\n",
                    (unsigned long long)count);
            return BENCH_USAGE;
        }
        max = root_bytes > other_bytes ? root_bytes : other_bytes;
        printf("bytes_total=%llu bytes_max_rank=%llu\n", (unsigned long long)total,
               (unsigned long long)max);
    }
    return fflush(stdout) == 0 ? BENCH_PASS : BENCH_USAGE;
}

/* Run the current size and print its line on rank 0. */
static int measure_size(struct bench *b, int iters)
{
    struct timing time;
    struct peak peak;
    b->returned = 0;
    int status = run_size(b, iters, &time, &peak);
    if (b->rank == 0) {
        printf(PROGRAM ": routine=%s count=%lld type_size=%d procs=%d root=%d inplace=%d "
                       "iters=%d result=%s seconds=%.6f peak_rss=%.0f peak_rss_max=%.0f "
                       "fastest=%.6f",
               sg_routines[b->routine].name, b->count, b->size, b->procs, b->root, b->inplace,
               iters, result_name(status), time.mean, peak.sum, peak.max, time.fastest);
        if (b->cpu_wait >= 0)
            printf(" cpu_wait=%.2f", b->cpu_wait);
        if (b->sparse)
            printf(" sparse=1");
        if (b->late > 0)
            printf(" returned=%.6f", b->returned);
        putchar('\n');
        fflush(stdout);
    }
    return status;
}

/* --cvar NAME=VALUE: the value as an integer, or by an item's name of the
 * variable's enumeration. Returns 0, or -1 (said on rank 0). */
static int cvar_value(int index, const char *name, const char *text, int *value, int rank)
{
    char *end;
    long number = strtol(text, &end, 10);
    if (end != text && *end == '\0' && number >= INT_MIN && number <= INT_MAX) {
        *value = (int)number;
        return 0;
    }
    char info_name[256];
    int name_length = sizeof info_name, desc_length = 0, verbosity, bind, scope, items = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    char enum_name[256];
    int enum_name_length = sizeof enum_name;
    if (MPI_T_cvar_get_info(index, info_name, &name_length, &verbosity, &type, &enumtype, NULL,
                            &desc_length, &bind, &scope) == MPI_SUCCESS &&
        enumtype != MPI_T_ENUM_NULL &&
        MPI_T_enum_get_info(enumtype, &items, enum_name, &enum_name_length) == MPI_SUCCESS)
        for (int i = 0; i < items; i++) {
            char item[256];
            int item_length = sizeof item;
            if (MPI_T_enum_get_item(enumtype, i, value, item, &item_length) == MPI_SUCCESS &&
                strcmp(item, text) == 0)
                return 0;
        }
    if (rank == 0)
        fprintf(stderr, PROGRAM ": --cvar %s=%s: not an integer, nor an item of its "
                        "enumeration\n", name, text);
    return -1;
}

/* --cvar: every rank writes each variable, then makes the collective's
 * communicator (main's comment). Returns 0, or BENCH_USAGE (said). */
static int write_cvars(struct bench *b, char **cvars, int ncvars)
{
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        if (b->rank == 0)
            fprintf(stderr, PROGRAM ": --cvar: the MPI tool interface did not start\n");
        return BENCH_USAGE;
    }
    for (int i = 0; i < ncvars; i++) {
        char name[256];
        const char *equals = strchr(cvars[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(equals - cvars[i]), cvars[i]);
        int index, value, count, read_back = 0;
        MPI_T_cvar_handle handle;
        if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) {
            if (b->rank == 0)
                fprintf(stderr, PROGRAM ": --cvar: this MPI has no control variable %s\n", name);
            return BENCH_USAGE;
        }
        if (cvar_value(index, name, equals + 1, &value, b->rank) != 0)
            return BENCH_USAGE;
        if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS || count != 1 ||
            MPI_T_cvar_write(handle, &value) != MPI_SUCCESS ||
            MPI_T_cvar_read(handle, &read_back) != MPI_SUCCESS || read_back != value) {
            if (b->rank == 0)
                fprintf(stderr, PROGRAM ": --cvar: %s cannot be set to %d now\n", name, value);
            return BENCH_USAGE;
        }
        MPI_T_cvar_handle_free(&handle);
        if (b->rank == 0)
            printf("# " PROGRAM ": cvar %s=%d\n", name, read_back);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &b->comm);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o = {0};
    int status = parse_options(argc, argv, &o);
    if (status != 0) {
        free(o.counts);
        free(o.cvars);
        return status < 0 ? BENCH_PASS : status; /* < 0: --help */
    }
    if (o.predict) {
        status = predict(&o);
        free(o.counts);
        free(o.cvars);
        return status;
    }

    struct bench b = {
        .routine = (enum sg_routine)o.routine,
        .family = family_of((enum sg_routine)o.routine),
        .nonblocking = sg_is_nonblocking((enum sg_routine)o.routine),
        .persistent = sg_is_persistent((enum sg_routine)o.routine),
        .large = sg_is_large_count((enum sg_routine)o.routine),
        .use_pmpi = o.use_pmpi,
        .reversed = o.reversed,
        .inplace = o.inplace,
        .late = o.late,
        .error_grace = o.error_grace,
        .sparse = o.sparse,
        .root = o.root,
        .size = o.type_size,
        .type = o.type_size == 1   ? MPI_UINT8_T
                : o.type_size == 2 ? MPI_UINT16_T
                : o.type_size == 4 ? MPI_UINT32_T
                                   : MPI_UINT64_T,
    };

    for (int i = 0; i < o.ncvars; i++) /* Open MPI: before MPI_Init reads its parameters */
        if (strncmp(o.cvars[i], "coll_tuned_", 11) == 0)
            setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.procs);
    b.comm = MPI_COMM_WORLD;
    b.mask = contribution_mask(b.size, b.procs);
    init_kernels();
    if (b.root >= b.procs) {
        if (b.rank == 0)
            fprintf(stderr, PROGRAM ": bad --root %d: not a rank of %d\n", b.root, b.procs);
        MPI_Finalize();
        free(o.counts);
        free(o.cvars);
        return BENCH_USAGE;
    }
    PMPI_Comm_dup(MPI_COMM_WORLD, &b.agree_comm);
    report_world(&b); /* before anything that may end the job as a usage error */
    if (o.ncvars > 0 && write_cvars(&b, o.cvars, o.ncvars) != 0) {
        MPI_T_finalize();
        MPI_Finalize();
        free(o.counts);
        free(o.cvars);
        return BENCH_USAGE;
    }
    if (!o.fatal) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(b.comm, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(b.agree_comm, MPI_ERRORS_RETURN);
    }
    if (sg_routines[b.routine].neighbours) { /* the complete graph (above) */
        /* each rank's number, then a weight of 1 each (MPI_UNWEIGHTED, a
         * an object of no size in Open MPI, makes gcc warn of a read past it) */
        int *everyone = malloc(2 * (size_t)b.procs * sizeof *everyone), *ones;
        MPI_Comm graph;
        if (everyone == NULL) {
            fprintf(stderr, PROGRAM ": rank %d: cannot allocate the graph of %d ranks\n", b.rank,
                    b.procs);
            MPI_Abort(MPI_COMM_WORLD, BENCH_OOM);
        }
        ones = everyone + b.procs;
        for (int i = 0; i < b.procs; i++) {
            everyone[i] = i;
            ones[i] = 1;
        }
        MPI_Dist_graph_create_adjacent(b.comm, b.procs, everyone, ones, b.procs, everyone, ones,
                                       MPI_INFO_NULL, 0, &graph);
        free(everyone);
        if (b.comm != MPI_COMM_WORLD)
            MPI_Comm_free(&b.comm);
        b.comm = graph;
        if (!o.fatal)
            MPI_Comm_set_errhandler(b.comm, MPI_ERRORS_RETURN);
    }
    if (b.rank == 0) {
        /* a header line, as the OSU benchmarks print: which MPI this ran on */
        char library[MPI_MAX_LIBRARY_VERSION_STRING];
        int length;
        MPI_Get_library_version(library, &length);
        library[strcspn(library, "\n")] = '\0';
        printf("# " PROGRAM ": mpi_library=%s\n", library);
    }
    size_t blocks = (size_t)b.procs;
    b.counts = calloc(blocks, sizeof *b.counts);
    b.displs = calloc(blocks, sizeof *b.displs);
    b.offsets = calloc(blocks, sizeof *b.offsets);
    b.types = calloc(blocks, sizeof *b.types);
    if (b.large)
        b.wide_counts = calloc(blocks, sizeof *b.wide_counts);
    if (sg_displs_are_aint(b.routine))
        b.wide_displs = calloc(blocks, sizeof *b.wide_displs);
    if (b.counts == NULL || b.displs == NULL || b.offsets == NULL || b.types == NULL ||
        (b.large && b.wide_counts == NULL) ||
        (sg_displs_are_aint(b.routine) && b.wide_displs == NULL)) {
        fprintf(stderr, PROGRAM ": rank %d: cannot allocate the layout of %d ranks\n", b.rank,
                b.procs);
        MPI_Abort(MPI_COMM_WORLD, BENCH_OOM);
    }

    status = BENCH_PASS;
    for (size_t c = 0; status == BENCH_PASS && c < o.ncounts; c++) {
        b.count = o.counts[c];
        layout(&b);
        if (o.blocking_first) {
            struct bench blocking = b;
            blocking.routine = (enum sg_routine)sg_form_with(b.routine, 0, b.large);
            blocking.nonblocking = 0;
            blocking.late = 0;
            status = measure_size(&blocking, 1);
        }
        if (status == BENCH_PASS)
            status = measure_size(&b, o.iters);
    }
    free(b.counts);
    free(b.displs);
    free(b.offsets);
    free(b.types);
    free(b.wide_counts);
    free(b.wide_displs);
    free(o.counts);
    free(o.cvars);
    PMPI_Comm_free(&b.agree_comm);
    if (b.comm != MPI_COMM_WORLD)
        MPI_Comm_free(&b.comm);
    if (o.ncvars > 0) {
        MPI_T_finalize(); /* before MPI_Finalize: Open MPI 4.1 crashes after it */
    }
    MPI_Finalize();
    return status;
}
