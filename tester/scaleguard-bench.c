/* fault_probe: run one collective once and check every byte it delivers.
 *
 *   fault_probe [-s SIZE] [-R ROOT] [-r] [-p] [-f] ROUTINE COUNT
 *
 * ROUTINE is any of the 26 (e.g. MPI_Gatherv, MPI_Iallreduce); COUNT is the
 * count of one message (per rank for the rooted and all-to-all routines,
 * every rank's block for the v-routines and Reduce_scatter, the whole vector
 * for Bcast, Reduce and Allreduce). Elements are unsigned integers of SIZE
 * bytes (1, 2, 4, 8; default 1); reductions use MPI_SUM (without overflow).
 *   -R ROOT  root of the rooted routines (default 0)
 *   -r       lay the v-routines' blocks out in reverse rank order
 *            (descending displacements)
 *   -p       call PMPI_* instead of MPI_*, as a PMPI layer does
 *   -f       keep MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD (default: ERRORS_RETURN)
 * Exit status, the same on every rank: 0 pass, 3 wrong data, 4 MPI error,
 * 2 usage. Displacements are computed in int, as user code does. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routines.h"

enum { PROBE_PASS = 0, PROBE_USAGE = 2, PROBE_WRONG_DATA = 3, PROBE_MPI_ERROR = 4 };

struct probe {
    enum sg_routine routine;
    int nonblocking, use_pmpi, reversed;
    int rank, procs, root;
    int count;
    int size; /* bytes per element */
    MPI_Datatype type;
    int *counts, *displs; /* v-routines: every rank's block, as user code computes it */
    size_t *offsets;      /* where each block really starts, in elements */
};

/* The element `i` that rank `src` sends to rank `dst` (0 when all get the same). */
static uint64_t value(int src, int dst, size_t i)
{
    return (uint64_t)src * 131u + (uint64_t)dst * 31u + (uint64_t)i * 7u + 1u;
}

static uint64_t truncated(uint64_t v, int size)
{
    return size == 8 ? v : v & ((UINT64_C(1) << (8 * size)) - 1);
}

static void put(void *buf, size_t i, int size, uint64_t v)
{
    switch (size) {
    case 1: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    default: ((uint64_t *)buf)[i] = v; break;
    }
}

static uint64_t get(const void *buf, size_t i, int size)
{
    switch (size) {
    case 1: return ((const uint8_t *)buf)[i];
    case 2: return ((const uint16_t *)buf)[i];
    case 4: return ((const uint32_t *)buf)[i];
    default: return ((const uint64_t *)buf)[i];
    }
}

/* What rank `r` contributes to element `i` of a reduction: small enough that
 * the sum over all ranks never overflows, because Open MPI 4.1's op/avx
 * saturates instead of wrapping (open-mpi/ompi#8045). */
static uint64_t contribution(const struct probe *p, int r, size_t i)
{
    uint64_t limit = truncated(UINT64_MAX, p->size) / (uint64_t)p->procs + 1;
    return limit == 0 ? value(r, 0, i) : value(r, 0, i) % limit; /* 0: P = 1, s = 8 */
}

/* The sum over all ranks: what the reductions deliver. */
static uint64_t sum(const struct probe *p, size_t i)
{
    uint64_t total = 0;
    for (int r = 0; r < p->procs; r++)
        total += contribution(p, r, i);
    return total;
}

static void *buffer(const struct probe *p, size_t elements)
{
    void *buf = malloc(elements ? elements * (size_t)p->size : 1);
    if (buf == NULL) {
        fprintf(stderr, "fault_probe: rank %d: cannot allocate %zu elements\n", p->rank, elements);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, 0xA5, elements * (size_t)p->size);
    return buf;
}

/* Every rank's block of `count` elements, laid out one after another (or in
 * reverse rank order); displs summed in int like user code, so they wrap. */
static void layout(struct probe *p)
{
    for (int k = 0; k < p->procs; k++) {
        int i = p->reversed ? p->procs - 1 - k : k;
        int previous = p->reversed ? i + 1 : i - 1;
        p->counts[i] = p->count;
        p->offsets[i] = (size_t)k * (size_t)p->count;
        p->displs[i] = k == 0 ? 0
                              : (int)(unsigned)((unsigned)p->displs[previous] +
                                                (unsigned)p->counts[previous]);
    }
}

static int complete(int err, MPI_Request *request)
{
    return err == MPI_SUCCESS ? MPI_Wait(request, MPI_STATUS_IGNORE) : err;
}

/* Blocking or non-blocking, MPI_ or PMPI_: the same arguments. */
#define RUN(Name, IName, ...)                                                                 \
    (p->nonblocking                                                                           \
         ? complete((p->use_pmpi ? PMPI_##IName : MPI_##IName)(__VA_ARGS__, &request), &request) \
         : (p->use_pmpi ? PMPI_##Name : MPI_##Name)(__VA_ARGS__))

struct check {
    const struct probe *p;
    const void *buf;
    int bad;
};

static void expect(struct check *k, size_t i, uint64_t v)
{
    uint64_t want = truncated(v, k->p->size), got = get(k->buf, i, k->p->size);
    if (got != want && k->bad++ == 0)
        fprintf(stderr, "fault_probe: rank %d: %s: element %zu is %llu, expected %llu\n",
                k->p->rank, sg_routines[k->p->routine].name, i, (unsigned long long)got,
                (unsigned long long)want);
}

/* Run the collective; 0, or the MPI error code. *wrong counts bad elements. */
static int run(struct probe *p, int *wrong)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Request request;
    MPI_Datatype t = p->type;
    size_t n = (size_t)p->count, all = n * (size_t)p->procs;
    int root = p->root, me = p->rank, P = p->procs, err = MPI_ERR_OTHER;
    int is_root = me == root;
    void *send = NULL, *recv = NULL;
    struct check k = {p, NULL, 0};

    switch (p->routine) {
    case SG_MPI_Bcast: case SG_MPI_Ibcast:
        recv = buffer(p, n);
        for (size_t i = 0; is_root && i < n; i++)
            put(recv, i, p->size, value(root, 0, i));
        err = RUN(Bcast, Ibcast, recv, p->count, t, root, comm);
        k.buf = recv;
        for (size_t i = 0; i < n; i++)
            expect(&k, i, value(root, 0, i));
        break;
    case SG_MPI_Scatter: case SG_MPI_Iscatter:
    case SG_MPI_Scatterv: case SG_MPI_Iscatterv: {
        int regular = p->routine == SG_MPI_Scatter || p->routine == SG_MPI_Iscatter;
        send = buffer(p, is_root ? all : 0);
        recv = buffer(p, n);
        for (int r = 0; is_root && r < P; r++)
            for (size_t i = 0; i < n; i++)
                put(send, (regular ? (size_t)r * n : p->offsets[r]) + i, p->size,
                    value(root, r, i));
        if (regular)
            err = RUN(Scatter, Iscatter, send, p->count, t, recv, p->count, t, root, comm);
        else
            err = RUN(Scatterv, Iscatterv, send, p->counts, p->displs, t, recv, p->count, t,
                      root, comm);
        k.buf = recv;
        for (size_t i = 0; i < n; i++)
            expect(&k, i, value(root, me, i));
        break;
    }
    case SG_MPI_Gather: case SG_MPI_Igather:
    case SG_MPI_Gatherv: case SG_MPI_Igatherv:
    case SG_MPI_Allgather: case SG_MPI_Iallgather:
    case SG_MPI_Allgatherv: case SG_MPI_Iallgatherv: {
        enum sg_routine r0 = p->routine;
        int rooted = r0 == SG_MPI_Gather || r0 == SG_MPI_Igather || r0 == SG_MPI_Gatherv ||
                     r0 == SG_MPI_Igatherv;
        int regular = r0 == SG_MPI_Gather || r0 == SG_MPI_Igather || r0 == SG_MPI_Allgather ||
                      r0 == SG_MPI_Iallgather;
        int dst = rooted ? root : 0;
        send = buffer(p, n);
        recv = buffer(p, !rooted || is_root ? all : 0);
        for (size_t i = 0; i < n; i++)
            put(send, i, p->size, value(me, dst, i));
        switch (r0) {
        case SG_MPI_Gather: case SG_MPI_Igather:
            err = RUN(Gather, Igather, send, p->count, t, recv, p->count, t, root, comm);
            break;
        case SG_MPI_Gatherv: case SG_MPI_Igatherv:
            err = RUN(Gatherv, Igatherv, send, p->count, t, recv, p->counts, p->displs, t, root,
                      comm);
            break;
        case SG_MPI_Allgather: case SG_MPI_Iallgather:
            err = RUN(Allgather, Iallgather, send, p->count, t, recv, p->count, t, comm);
            break;
        default:
            err = RUN(Allgatherv, Iallgatherv, send, p->count, t, recv, p->counts, p->displs, t,
                      comm);
            break;
        }
        k.buf = recv;
        for (int r = 0; (!rooted || is_root) && r < P; r++)
            for (size_t i = 0; i < n; i++)
                expect(&k, (regular ? (size_t)r * n : p->offsets[r]) + i, value(r, dst, i));
        break;
    }
    case SG_MPI_Alltoall: case SG_MPI_Ialltoall:
    case SG_MPI_Alltoallv: case SG_MPI_Ialltoallv: {
        int regular = p->routine == SG_MPI_Alltoall || p->routine == SG_MPI_Ialltoall;
        send = buffer(p, all);
        recv = buffer(p, all);
        for (int d = 0; d < P; d++)
            for (size_t i = 0; i < n; i++)
                put(send, (regular ? (size_t)d * n : p->offsets[d]) + i, p->size,
                    value(me, d, i));
        if (regular)
            err = RUN(Alltoall, Ialltoall, send, p->count, t, recv, p->count, t, comm);
        else
            err = RUN(Alltoallv, Ialltoallv, send, p->counts, p->displs, t, recv, p->counts,
                      p->displs, t, comm);
        k.buf = recv;
        for (int r = 0; r < P; r++)
            for (size_t i = 0; i < n; i++)
                expect(&k, (regular ? (size_t)r * n : p->offsets[r]) + i, value(r, me, i));
        break;
    }
    case SG_MPI_Reduce: case SG_MPI_Ireduce:
    case SG_MPI_Allreduce: case SG_MPI_Iallreduce: {
        int rooted = p->routine == SG_MPI_Reduce || p->routine == SG_MPI_Ireduce;
        send = buffer(p, n);
        recv = buffer(p, n);
        for (size_t i = 0; i < n; i++)
            put(send, i, p->size, contribution(p, me, i));
        if (rooted)
            err = RUN(Reduce, Ireduce, send, recv, p->count, t, MPI_SUM, root, comm);
        else
            err = RUN(Allreduce, Iallreduce, send, recv, p->count, t, MPI_SUM, comm);
        k.buf = recv;
        for (size_t i = 0; (!rooted || is_root) && i < n; i++)
            expect(&k, i, sum(p, i));
        break;
    }
    case SG_MPI_Reduce_scatter: case SG_MPI_Ireduce_scatter:
    case SG_MPI_Reduce_scatter_block: case SG_MPI_Ireduce_scatter_block:
        send = buffer(p, all);
        recv = buffer(p, n);
        for (size_t i = 0; i < all; i++)
            put(send, i, p->size, contribution(p, me, i));
        if (p->routine == SG_MPI_Reduce_scatter || p->routine == SG_MPI_Ireduce_scatter)
            err = RUN(Reduce_scatter, Ireduce_scatter, send, recv, p->counts, t, MPI_SUM, comm);
        else
            err = RUN(Reduce_scatter_block, Ireduce_scatter_block, send, recv, p->count, t,
                      MPI_SUM, comm);
        k.buf = recv;
        for (size_t i = 0; i < n; i++)
            expect(&k, i, sum(p, (size_t)me * n + i));
        break;
    case SG_ROUTINE_COUNT: break;
    }
    free(send);
    free(recv);
    *wrong = err == MPI_SUCCESS ? k.bad : 0;
    return err;
}

/* Every rank exits with the worst outcome of all. Point-to-point, so the
 * preload under test does not see it. */
static int agree(int outcome, int rank, int procs)
{
    int worst = outcome;
    if (rank == 0) {
        for (int r = 1; r < procs; r++) {
            int other = PROBE_MPI_ERROR;
            MPI_Recv(&other, 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            worst = other > worst ? other : worst;
        }
        for (int r = 1; r < procs; r++)
            MPI_Send(&worst, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else if (MPI_Send(&outcome, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
               MPI_Recv(&worst, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
                   MPI_SUCCESS) {
        worst = outcome > PROBE_MPI_ERROR ? outcome : PROBE_MPI_ERROR;
    }
    return worst;
}

static int usage(const char *program)
{
    fprintf(stderr, "usage: %s [-s 1|2|4|8] [-R ROOT] [-r] [-p] [-f] ROUTINE COUNT\n", program);
    return PROBE_USAGE;
}

int main(int argc, char **argv)
{
    struct probe p = {.size = 1};
    int fatal = 0, option;
    while ((option = getopt(argc, argv, "s:R:rpf")) != -1) {
        switch (option) {
        case 's': p.size = atoi(optarg); break;
        case 'R': p.root = atoi(optarg); break;
        case 'r': p.reversed = 1; break;
        case 'p': p.use_pmpi = 1; break;
        case 'f': fatal = 1; break;
        default: return usage(argv[0]);
        }
    }
    if (argc - optind != 2)
        return usage(argv[0]);
    int routine = sg_routine_by_name(argv[optind]);
    char *end;
    long count = strtol(argv[optind + 1], &end, 10);
    if (routine < 0 || *end != '\0' || count < 0 || count > INT_MAX ||
        (p.size != 1 && p.size != 2 && p.size != 4 && p.size != 8))
        return usage(argv[0]);
    p.routine = (enum sg_routine)routine;
    p.nonblocking = strncmp(argv[optind], "MPI_I", 5) == 0; /* no blocking name starts so */
    p.count = (int)count;
    p.type = p.size == 1 ? MPI_UINT8_T
             : p.size == 2 ? MPI_UINT16_T
             : p.size == 4 ? MPI_UINT32_T
                           : MPI_UINT64_T;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.procs);
    if (p.root < 0 || p.root >= p.procs) {
        if (p.rank == 0)
            fprintf(stderr, "fault_probe: root %d is not a rank of %d\n", p.root, p.procs);
        MPI_Finalize();
        return PROBE_USAGE;
    }
    if (!fatal)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    p.counts = calloc((size_t)p.procs, sizeof *p.counts);
    p.displs = calloc((size_t)p.procs, sizeof *p.displs);
    p.offsets = calloc((size_t)p.procs, sizeof *p.offsets);
    if (p.counts == NULL || p.displs == NULL || p.offsets == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    layout(&p);

    int wrong = 0, outcome = PROBE_PASS;
    int err = run(&p, &wrong);
    if (err != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length;
        MPI_Error_string(err, text, &length);
        fprintf(stderr, "fault_probe: rank %d: %s returned %d (%s)\n", p.rank, argv[optind], err,
                text);
        outcome = PROBE_MPI_ERROR;
    } else if (wrong > 0) {
        fprintf(stderr, "fault_probe: rank %d: %s delivered %d wrong elements\n", p.rank,
                argv[optind], wrong);
        outcome = PROBE_WRONG_DATA;
    }
    outcome = agree(outcome, p.rank, p.procs);
    free(p.counts);
    free(p.displs);
    free(p.offsets);
    MPI_Finalize();
    return outcome;
}
