/* sg_overhead: the cost of libscaleguard.so against the bare MPI call,
 * measured side by side in one run.
 *
 *   sg_overhead --bytes B [--routines all|MPI_X,...] [--seconds S] [--reps R] [--wrap]
 *
 * Run it with libscaleguard.so preloaded: "protected" calls MPI_<Name> (the
 * layer), "bare" calls PMPI_<Name> (the library underneath) with the same
 * arguments, in R pairs of blocks, bare then protected, so both see the
 * same machine state. Each block repeats the call until it has taken about
 * S/R seconds (at least once); the time of one call is the slowest
 * rank's block time over the block's calls. Each side's time is its
 * fastest block; the ratio is the median over the pairs of the protected
 * block's time over the bare one's: the state of the machine drifts over
 * seconds (a bare call of a microsecond runs 30 % faster or slower from one
 * run to the next), which a pair shares and the fastest blocks of
 * different moments do not. Messages are
 * B bytes of MPI_BYTE per rank and peer (v-routines: counts B,
 * displacements i*B, int or, of a large-count form, MPI_Count and
 * MPI_Aint); reductions use MPI_BXOR; the neighbourhood collectives run
 * over a periodic ring of the ranks (two neighbours' blocks a side). Rank 0
 * prints one line per routine: name, bytes, bare us, protected us, ratio.
 *
 * --wrap (v-routines with int counts only): the protected call's blocks lie B + (2^31-1)/(P-1)
 * elements apart, so the last int displacement wraps while every gap stays
 * at most 2^31-1, the largest a recoverable layout has (Class D, which the layer
 * recovers and routes to a workaround: W3 on MPICH); the bare call moves
 * the same blocks packed, displacements i*B. The far layout is reserved
 * address space: only the blocks are touched. (Not the neighbourhood
 * collectives: their two blocks a side do not wrap so.) */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collective.h"

/* The same collectives through the MPI_* names: the preloaded layer. */
static const struct sg_entry_points protected_entry_points = {
#define SG_MPI_ENTRY(Name, params, args, ...) .Name = MPI_##Name,
    SG_COLLECTIVES(SG_MPI_ENTRY)
#undef SG_MPI_ENTRY
};

/* Whether `name` is one of the comma-separated names in `list` ("all": any). */
static int listed(const char *list, const char *name)
{
    if (strcmp(list, "all") == 0)
        return 1;
    size_t length = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += length)
        if ((p == list || p[-1] == ',') && (p[length] == ',' || p[length] == '\0'))
            return 1;
    return 0;
}

/* The counts and displacements of one call, as int (the int forms) and as
 * MPI_Count and MPI_Aint (the large-count forms). */
struct arrays {
    int *counts, *displs;
    MPI_Count *wide_counts;
    MPI_Aint *wide_displs;
};

/* The ring the neighbourhood collectives run over (main). */
static MPI_Comm ring = MPI_COMM_NULL;

/* One call of routine `r` moving `bytes` per rank and peer (Alltoallw:
 * `types`, MPI_BYTE for every block, so its byte displacements are
 * `displs`), with the arrays of its form's width. */
static struct sg_call make_call(enum sg_routine r, int bytes, char *send, char *recv,
                                const struct arrays *a, const MPI_Datatype *types,
                                MPI_Request *request)
{
    int large = sg_is_large_count(r);
    struct sg_counts counts = large ? SG_COUNTS(a->wide_counts) : SG_COUNTS(a->counts);
    struct sg_displs_array displs = large ? SG_DISPLS(a->wide_displs) : SG_DISPLS(a->displs);
    struct sg_call c = {.routine = r, .sendbuf = send, .recvbuf = recv, .sendcount = bytes,
                        .recvcount = bytes, .sendtype = MPI_BYTE, .recvtype = MPI_BYTE,
                        .sendcounts = counts, .sdispls = displs, .recvcounts = counts,
                        .rdispls = displs, .sendtypes = types, .recvtypes = types,
                        .op = MPI_BXOR, .root = 0,
                        .comm = sg_routines[r].neighbours ? ring : MPI_COMM_WORLD,
                        .request = sg_is_nonblocking(r) ? request : NULL};
    if (!sg_routines[r].rooted)
        c.root = -1;
    return c;
}

/* `bytes` reserved, untouched until used: a layout far larger than its data. */
static char *reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of `n` values, which it sorts. */
static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, by_value);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static double block_time(const struct sg_entry_points *mpi, const struct sg_call *c, int calls)
{
    MPI_Request request;
    struct sg_call call = *c;
    call.request = c->request ? &request : NULL;
    PMPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    /* the layer's request completes through the layer's MPI_Wait */
    int (*wait)(MPI_Request *, MPI_Status *) = mpi == &sg_pmpi ? PMPI_Wait : MPI_Wait;
    for (int i = 0; i < calls; i++) {
        if (sg_call_invoke(mpi, &call) != MPI_SUCCESS)
            PMPI_Abort(MPI_COMM_WORLD, 4);
        if (call.request)
            wait(call.request, MPI_STATUS_IGNORE);
    }
    double mine = MPI_Wtime() - start, slowest;
    PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    long bytes = -1;
    double seconds = 1.0;
    int reps = 5;
    const char *routines = "all";
    int wrap = 0;
    for (int i = 1; i < argc; i += 2) {
        if (strcmp(argv[i], "--wrap") == 0) {
            wrap = 1;
            i--;
        } else if (i + 1 == argc) {
            bytes = -1;
        } else if (strcmp(argv[i], "--bytes") == 0)
            bytes = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--routines") == 0)
            routines = argv[i + 1];
    }
    if (bytes <= 0 || bytes > (1L << 30) || reps < 1 || seconds <= 0) {
        fprintf(stderr,
                "usage: %s --bytes B [--routines all|LIST] [--seconds S] [--reps R] [--wrap]\n",
                argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int periodic = 1;
    PMPI_Cart_create(MPI_COMM_WORLD, 1, &procs, &periodic, 0, &ring);
    int blocks = procs > 2 ? procs : 2; /* a rank's, or the ring's two neighbours' */
    size_t total = (size_t)bytes * (size_t)blocks;
    char *send = malloc(total), *recv = malloc(total);
    int *counts = malloc((size_t)blocks * sizeof *counts);
    int *displs = malloc((size_t)blocks * sizeof *displs);
    MPI_Count *wide_counts = malloc((size_t)blocks * sizeof *wide_counts);
    MPI_Aint *wide_displs = malloc((size_t)blocks * sizeof *wide_displs);
    MPI_Datatype *types = malloc((size_t)blocks * sizeof *types);
    double *ratios = malloc((size_t)reps * sizeof *ratios);
    if (!send || !recv || !counts || !displs || !wide_counts || !wide_displs || !types || !ratios)
        PMPI_Abort(MPI_COMM_WORLD, 3);
    memset(send, rank + 1, total);
    memset(recv, 0, total);
    for (int i = 0; i < blocks; i++) {
        counts[i] = (int)bytes;
        displs[i] = (int)(i * bytes);
        wide_counts[i] = counts[i];
        wide_displs[i] = displs[i];
        types[i] = MPI_BYTE;
    }
    /* --wrap: the protected call's far layout, its displacements summed in int */
    int64_t apart = bytes + (int64_t)INT32_MAX / (procs > 1 ? procs - 1 : 1);
    size_t span = (size_t)((procs - 1) * apart + bytes);
    char *far_send = wrap ? reserve(span) : NULL, *far_recv = wrap ? reserve(span) : NULL;
    int *far_displs = malloc((size_t)procs * sizeof *far_displs);
    if (wrap && (!far_send || !far_recv || !far_displs))
        PMPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; wrap && i < procs; i++) {
        far_displs[i] = (int)(uint32_t)(uint64_t)(i * apart);
        memset(far_send + i * apart, rank + 1, (size_t)bytes);
    }

    for (int r = 0; r < SG_ROUTINE_COUNT; r++) {
        /* --wrap: the int forms' displacements alone wrap (not a neighbourhood's);
         * a persistent form's cost is its `_init`'s, once, not a call's */
        if (!listed(routines, sg_routines[r].name) || sg_is_persistent((enum sg_routine)r) ||
            (wrap && (!sg_routines[r].irregular || sg_routines[r].neighbours ||
                      sg_is_large_count((enum sg_routine)r))))
            continue;
        MPI_Request request;
        struct arrays near = {counts, displs, wide_counts, wide_displs};
        struct arrays far = {counts, far_displs, wide_counts, wide_displs};
        struct sg_call c = make_call((enum sg_routine)r, (int)bytes, send, recv, &near,
                                     types, &request);
        struct sg_call guarded_call = c;
        if (wrap) { /* the same routine over the far layout (a single side stays as it is) */
            guarded_call = make_call((enum sg_routine)r, (int)bytes, far_send, far_recv, &far,
                                     types, &request);
            if (sg_routines[r].send == SG_SIDE_SINGLE)
                guarded_call.sendbuf = send;
            if (sg_routines[r].recv == SG_SIDE_SINGLE)
                guarded_call.recvbuf = recv;
        }
        /* calibrate: calls per block so that a block takes about S/R s */
        double once = block_time(&sg_pmpi, &c, 1);
        once = block_time(&sg_pmpi, &c, 1);
        int calls = (int)(seconds / reps / (once > 1e-7 ? once : 1e-7));
        calls = calls < 1 ? 1 : calls;
        PMPI_Bcast(&calls, 1, MPI_INT, 0, MPI_COMM_WORLD);
        block_time(&protected_entry_points, &guarded_call, 1); /* warm the layer's first call */

        double bare = 1e30, guarded = 1e30;
        for (int rep = 0; rep < reps; rep++) {
            double b = block_time(&sg_pmpi, &c, calls) / calls;
            double p = block_time(&protected_entry_points, &guarded_call, calls) / calls;
            bare = b < bare ? b : bare;
            guarded = p < guarded ? p : guarded;
            ratios[rep] = p / b;
        }
        if (rank == 0)
            printf("%-26s %10ld %12.2f %12.2f %7.3f\n", sg_routines[r].name, bytes, bare * 1e6,
                   guarded * 1e6, median(ratios, reps));
        fflush(stdout);
    }
    free(send);
    free(recv);
    free(counts);
    free(displs);
    free(wide_counts);
    free(wide_displs);
    free(types);
    free(ratios);
    PMPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
