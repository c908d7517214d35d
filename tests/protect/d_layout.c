/* d_layout: one v-collective over a Class D layout, every byte checked.
 *
 *   d_layout -c ROUTINE -n COUNT [-g GAP] [-r ROOT] [-i] [-u] [-l SECONDS]
 *   d_layout -k CALLS [-s SEED] [-c ROUTINE]
 *
 * Rank i's block has COUNT + i MPI_CHAR elements (consecutive counts: their
 * gcd, and so W2's factor, is 1), and lies GAP elements after the previous
 * one. The displacements are summed in C int the way user code does, so
 * past INT_MAX they wrap. ROUTINE is MPI_Gatherv, MPI_Scatterv,
 * MPI_Allgatherv, MPI_Alltoallv, MPI_Alltoallw or an I-form of one; -i
 * passes MPI_IN_PLACE where the routine allows it (the root of
 * Gatherv/Scatterv, every rank of Allgatherv and Alltoall(v,w)).
 * Alltoallv's blocks between ranks r and i have COUNT + r + i elements
 * (symmetric, as MPI_IN_PLACE requires), laid out the same way on the
 * receive side and on the send side. Alltoallw's are the same bytes at the
 * same byte displacements, each block in a datatype of its own: every
 * other block as MPI_CHARs, the others (of an even length) as pairs of
 * chars (a contiguous type), alternating between the send and the receive
 * side, so that the two ends of a block describe it differently; with -u
 * every block as MPI_CHARs (MPICH 4.0.2's MPI_Ialltoallw in place fails
 * bare where blocks differ in type: "Message truncated"); with -l the ranks
 * but 0 make the call SECONDS later (a call left alone to crash: rank 0's
 * words, the layer's, are out before any rank can crash and the job's end
 * cut them off). With a GAP the
 * layout spans far more than it holds: the buffer is reserved
 * (MAP_NORESERVE) and only the blocks are touched, so a span past 2^32
 * costs next to no memory. The buffer has 4 GiB of PROT_NONE
 * on either side, so a wrapped displacement crashes rather than scribbles.
 *
 * With -k, CALLS calls one after another, each with its routine (unless
 * -c), count, gap, root and MPI_IN_PLACE drawn from SEED (the same on every
 * rank): spans from a few KiB to past 2^32, wrapped or not. Alltoall(v,w)'s gaps
 * stay under 2^32 in all, where its sides can be rebased.
 *
 * Checked: every byte of every block where it lands, the bytes after each
 * block up to 4096 of the gap (untouched), and 64 guard bytes after each
 * receive buffer of a single block. Exit status (the same on every rank):
 * 0 every byte right, 3 wrong data, 4 MPI error; a crash kills the job. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD ((size_t)4 << 30)
#define SLACK 64
#define GAP_CHECK 4096
#define STATUS_WRONG 3

static double late; /* -l: the ranks but 0 enter the call this much later */

static void enter_late(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 && late > 0)
        usleep((useconds_t)(late * 1e6));
}
#define STATUS_MPI 4

static unsigned char pattern(int rank, int64_t j)
{
    return (unsigned char)(((uint32_t)j * 2654435761u + (uint32_t)(rank + 1) * 40503u) >> 24);
}

static void fill(unsigned char *p, int rank, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        p[j] = pattern(rank, j);
}

/* Index of the first wrong byte of block `rank`, or -1. */
static int64_t check(const unsigned char *p, int rank, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        if (p[j] != pattern(rank, j))
            return j;
    return -1;
}

static int64_t check_value(const unsigned char *p, unsigned char value, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        if (p[j] != value)
            return j;
    return -1;
}

/* `span` bytes, readable and writable, between two PROT_NONE guards;
 * reserved only, so untouched pages cost nothing. */
static size_t reserved_body(size_t span)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (span + page - 1) / page * page;
}

static unsigned char *reserve(size_t span)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (span + page - 1) / page * page;
    unsigned char *all = mmap(NULL, GUARD + body + GUARD, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (all == MAP_FAILED)
        return NULL;
    if (mprotect(all + GUARD, body, PROT_READ | PROT_WRITE) != 0)
        return NULL;
    return all + GUARD;
}

static void unreserve(unsigned char *p, size_t span)
{
    if (p != NULL)
        munmap(p - GUARD, GUARD + reserved_body(span) + GUARD);
}

static int quiet; /* -k: rank 0 reports failures only */

static void usage(void)
{
    fprintf(stderr, "usage: d_layout -c MPI_Gatherv|MPI_Scatterv|MPI_Allgatherv|MPI_Alltoallv|"
                    "MPI_Alltoallw|MPI_I... -n COUNT [-g GAP] [-r ROOT] [-i] [-u] [-l SECONDS]\n"
                    "       d_layout -k CALLS [-s SEED] [-c ROUTINE]\n");
}

/* The exit status every rank agrees on (the worst), reported by rank 0. */
static int agree(int status, const char *routine, int procs, long long count, long long gap,
                 int64_t span, int wrapped, int in_place, int root, double seconds)
{
    int worst = status;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        worst = status ? status : STATUS_MPI;
    if (rank == 0 && (!quiet || worst != 0))
        fprintf(stderr,
                "d_layout: %s P=%d counts %lld+i gap %lld span %lld %s%s root %d: %s (%.1f s)\n",
                routine, procs, count, gap, (long long)span,
                wrapped ? "displs wrapped" : "displs intact", in_place ? ", in place" : "", root,
                worst == 0                ? "every byte right"
                : worst == STATUS_WRONG ? "WRONG DATA"
                                          : "MPI ERROR",
                seconds);
    return worst;
}

/* Blocks of `counts` elements, `gap` apart: the intended displacements, the
 * ones summed in int, and the span. Returns whether any wrapped. */
static int lay_out(const int *counts, int procs, long long gap, int64_t *intended, int *displs,
                   int64_t *span)
{
    int wrapped = 0;
    for (int i = 0; i < procs; i++) {
        intended[i] = i == 0 ? 0 : intended[i - 1] + counts[i - 1] + gap;
        displs[i] = (int)(uint32_t)(uint64_t)intended[i];
        wrapped |= displs[i] != intended[i];
    }
    *span = intended[procs - 1] + counts[procs - 1];
    return wrapped;
}

static int uniform_types; /* -u: Alltoallw's blocks all MPI_CHAR */

/* Alltoallw's description of a block of `bytes` chars: MPI_CHAR x bytes
 * where `as_chars` or the length is odd, else pairs of chars (a type made
 * and committed here, freed by the caller). */
static void block_type(int as_chars, int bytes, int *count, MPI_Datatype *type)
{
    *count = bytes;
    *type = MPI_CHAR;
    if (as_chars || uniform_types || bytes % 2 != 0)
        return;
    MPI_Type_contiguous(2, MPI_CHAR, type);
    MPI_Type_commit(type);
    *count = bytes / 2;
}

static void free_block_types(MPI_Datatype *types, int procs)
{
    for (int i = 0; i < procs; i++)
        if (types[i] != MPI_CHAR)
            MPI_Type_free(&types[i]);
}

/* Alltoallv (or with `w`, Alltoallw): block (r -> i) carries
 * pattern(r * procs + i). */
static int alltoallv(const char *routine, int w, int nonblocking, long long count, long long gap,
                     int in_place)
{
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (count + 2 * procs > INT32_MAX) {
        if (rank == 0)
            usage();
        return 2;
    }
    int *counts = malloc((size_t)procs * sizeof *counts);
    int *rdispls = malloc((size_t)procs * sizeof *rdispls);
    int *sdispls = malloc((size_t)procs * sizeof *sdispls);
    int64_t *rintended = malloc((size_t)procs * sizeof *rintended);
    int64_t *sintended = malloc((size_t)procs * sizeof *sintended);
    if (!counts || !rdispls || !sdispls || !rintended || !sintended) {
        perror("d_layout: malloc");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < procs; i++)
        counts[i] = (int)(count + rank + i); /* both ways between rank and i */
    int64_t span;
    int wrapped = lay_out(counts, procs, gap, rintended, rdispls, &span);
    lay_out(counts, procs, gap, sintended, sdispls, &span);
    unsigned char *recv = reserve((size_t)span), *send = in_place ? NULL : reserve((size_t)span);
    if (recv == NULL || (!in_place && send == NULL)) {
        perror("d_layout: mmap");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < procs; i++)
        fill((in_place ? recv : send) + sintended[i], rank * procs + i, counts[i]);

    int err;
    MPI_Request request = MPI_REQUEST_NULL;
    const void *sendbuf = in_place ? MPI_IN_PLACE : (const void *)send;
    /* Alltoallw: the same byte displacements, a datatype per block */
    int *scounts = malloc((size_t)procs * sizeof *scounts);
    int *rcounts = malloc((size_t)procs * sizeof *rcounts);
    MPI_Datatype *stypes = malloc((size_t)procs * sizeof *stypes);
    MPI_Datatype *rtypes = malloc((size_t)procs * sizeof *rtypes);
    if (!scounts || !rcounts || !stypes || !rtypes) {
        perror("d_layout: malloc");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < procs; i++) {
        block_type(i % 2, counts[i], &scounts[i], &stypes[i]);
        block_type((i + 1) % 2, counts[i], &rcounts[i], &rtypes[i]);
    }
    enter_late();
    double start = MPI_Wtime();
    if (w && nonblocking) {
        err = MPI_Ialltoallw(sendbuf, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes,
                             MPI_COMM_WORLD, &request);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else if (w) {
        err = MPI_Alltoallw(sendbuf, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes,
                            MPI_COMM_WORLD);
    } else if (nonblocking) {
        err = MPI_Ialltoallv(sendbuf, counts, sdispls, MPI_CHAR, recv, counts, rdispls, MPI_CHAR,
                             MPI_COMM_WORLD, &request);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
        err = MPI_Alltoallv(sendbuf, counts, sdispls, MPI_CHAR, recv, counts, rdispls, MPI_CHAR,
                            MPI_COMM_WORLD);
    }
    double seconds = MPI_Wtime() - start;

    int status = 0;
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "d_layout: rank %d: %s failed (error %d)\n", rank, routine, err);
        status = STATUS_MPI;
    }
    for (int i = 0; i < procs && status == 0; i++) {
        const unsigned char *p = recv + rintended[i];
        int64_t after = i + 1 < procs ? gap : 0, bad;
        const char *what = "";
        if ((bad = check(p, i * procs + rank, counts[i])) < 0 &&
            (bad = check_value(p + counts[i], 0, after < GAP_CHECK ? after : GAP_CHECK)) >= 0) {
            what = "gap after ";
            bad += counts[i];
        }
        if (bad >= 0) {
            fprintf(stderr, "d_layout: rank %d: %s: wrong data in %sblock from %d at byte %lld\n",
                    rank, routine, what, i, (long long)bad);
            status = STATUS_WRONG;
        }
    }
    unreserve(recv, (size_t)span);
    unreserve(send, (size_t)span);
    free_block_types(stypes, procs);
    free_block_types(rtypes, procs);
    free(scounts);
    free(rcounts);
    free(stypes);
    free(rtypes);
    free(counts);
    free(rdispls);
    free(sdispls);
    free(rintended);
    free(sintended);
    return agree(status, routine, procs, count, gap, span, wrapped, in_place, -1, seconds);
}

enum family { GATHERV, SCATTERV, ALLGATHERV, ALLTOALLV, ALLTOALLW };

/* One Gatherv, Scatterv or Allgatherv call (or I-form), checked. */
static int v_call(const char *routine, enum family which, int nonblocking, long long count,
                  long long gap, int root, int in_place)
{
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (root < 0 || root >= procs || count + 2 * procs > INT32_MAX) {
        if (rank == 0)
            usage();
        return 2;
    }
    /* The layout: intended 64-bit displacements, and the int ones user
     * code computes (summed in int: modulo 2^32). */
    int *counts = malloc((size_t)procs * sizeof *counts);
    int *displs = malloc((size_t)procs * sizeof *displs);
    int64_t *intended = malloc((size_t)procs * sizeof *intended);
    for (int i = 0; i < procs; i++)
        counts[i] = (int)(count + i);
    int64_t span;
    int wrapped = lay_out(counts, procs, gap, intended, displs, &span);

    int is_root = which == ALLGATHERV || rank == root;
    int own_in_place = in_place && is_root;
    unsigned char *layout = NULL, *single = NULL; /* the V side; this rank's own block */
    if (is_root) {
        layout = reserve((size_t)span);
        if (layout == NULL) {
            perror("d_layout: mmap");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!own_in_place) {
        single = malloc((size_t)counts[rank] + SLACK);
        if (single == NULL) {
            perror("d_layout: malloc");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        memset(single + counts[rank], 0xEE, SLACK);
    }

    /* What goes in. */
    if (which == SCATTERV) {
        if (is_root)
            for (int i = 0; i < procs; i++)
                fill(layout + intended[i], i, counts[i]);
        if (single)
            memset(single, 0, (size_t)counts[rank]);
    } else {
        if (single)
            fill(single, rank, counts[rank]);
        else
            fill(layout + intended[rank], rank, counts[rank]);
    }

    int err = MPI_SUCCESS;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Request *req = nonblocking ? &request : NULL;
    enter_late();
    double start = MPI_Wtime();
    switch (which) {
    case GATHERV: {
        const void *send = own_in_place ? MPI_IN_PLACE : single;
        err = req ? MPI_Igatherv(send, counts[rank], MPI_CHAR, layout, counts, displs, MPI_CHAR,
                                 root, MPI_COMM_WORLD, req)
                  : MPI_Gatherv(send, counts[rank], MPI_CHAR, layout, counts, displs, MPI_CHAR,
                                root, MPI_COMM_WORLD);
        break;
    }
    case SCATTERV: {
        void *recv = own_in_place ? MPI_IN_PLACE : single;
        err = req ? MPI_Iscatterv(layout, counts, displs, MPI_CHAR, recv, counts[rank], MPI_CHAR,
                                  root, MPI_COMM_WORLD, req)
                  : MPI_Scatterv(layout, counts, displs, MPI_CHAR, recv, counts[rank], MPI_CHAR,
                                 root, MPI_COMM_WORLD);
        break;
    }
    case ALLGATHERV: {
        const void *send = own_in_place ? MPI_IN_PLACE : single;
        err = req ? MPI_Iallgatherv(send, counts[rank], MPI_CHAR, layout, counts, displs,
                                    MPI_CHAR, MPI_COMM_WORLD, req)
                  : MPI_Allgatherv(send, counts[rank], MPI_CHAR, layout, counts, displs, MPI_CHAR,
                                   MPI_COMM_WORLD);
        break;
    }
    case ALLTOALLV: /* run by alltoallv() */
    case ALLTOALLW:
        break;
    }
    if (err == MPI_SUCCESS && req)
        err = MPI_Wait(req, MPI_STATUS_IGNORE);
    double seconds = MPI_Wtime() - start;

    int status = 0;
    if (err != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(err, text, &length);
        fprintf(stderr, "d_layout: rank %d: %s failed: %s\n", rank, routine, text);
        status = STATUS_MPI;
    } else {
        /* Where data landed, then what must stay untouched. */
        int64_t bad = -1;
        const char *what = "";
        int block = rank;
        if (which == SCATTERV && single) {
            bad = check(single, rank, counts[rank]);
            if (bad < 0 && (bad = check_value(single + counts[rank], 0xEE, SLACK)) >= 0) {
                what = "guard after ";
                bad += counts[rank];
            }
        } else if (which == SCATTERV) {
            what = "own (in place) ";
            bad = check(layout + intended[rank], rank, counts[rank]);
        } else if (is_root) {
            for (block = 0; block < procs && bad < 0; block++) {
                const unsigned char *p = layout + intended[block];
                if ((bad = check(p, block, counts[block])) >= 0)
                    break;
                int64_t after = block + 1 < procs ? intended[block + 1] - intended[block] -
                                                        counts[block]
                                                  : 0;
                int64_t checked = after < GAP_CHECK ? after : GAP_CHECK;
                if ((bad = check_value(p + counts[block], 0, checked)) >= 0) {
                    what = "gap after ";
                    bad += counts[block];
                    break;
                }
            }
        }
        if (bad >= 0) {
            fprintf(stderr, "d_layout: rank %d: %s: wrong data in %sblock %d at byte %lld\n",
                    rank, routine, what, block, (long long)bad);
            status = STATUS_WRONG;
        }
    }
    unreserve(layout, (size_t)span);
    free(single);
    free(counts);
    free(displs);
    free(intended);
    return agree(status, routine, procs, count, gap, span, wrapped, in_place, root, seconds);
}

static const char *const routines[] = {"MPI_Gatherv",    "MPI_Igatherv",    "MPI_Scatterv",
                                       "MPI_Iscatterv",  "MPI_Allgatherv",  "MPI_Iallgatherv",
                                       "MPI_Alltoallv",  "MPI_Ialltoallv",  "MPI_Alltoallw",
                                       "MPI_Ialltoallw"};

static int parse_routine(const char *routine, enum family *which, int *nonblocking)
{
    *nonblocking = strncmp(routine, "MPI_I", 5) == 0;
    const char *family = routine + (*nonblocking ? 5 : 4);
    if (strcmp(family, "gatherv") == 0 || strcmp(family, "Gatherv") == 0)
        *which = GATHERV;
    else if (strcmp(family, "scatterv") == 0 || strcmp(family, "Scatterv") == 0)
        *which = SCATTERV;
    else if (strcmp(family, "allgatherv") == 0 || strcmp(family, "Allgatherv") == 0)
        *which = ALLGATHERV;
    else if (strcmp(family, "alltoallv") == 0 || strcmp(family, "Alltoallv") == 0)
        *which = ALLTOALLV;
    else if (strcmp(family, "alltoallw") == 0 || strcmp(family, "Alltoallw") == 0)
        *which = ALLTOALLW;
    else
        return -1;
    return 0;
}

static int one_call(const char *routine, long long count, long long gap, int root, int in_place)
{
    enum family which;
    int nonblocking;
    if (parse_routine(routine, &which, &nonblocking) != 0)
        return 2; /* main checked it: unreachable */
    return which == ALLTOALLV || which == ALLTOALLW
               ? alltoallv(routine, which == ALLTOALLW, nonblocking, count, gap, in_place)
               : v_call(routine, which, nonblocking, count, gap, root, in_place);
}

/* xorshift64*: the same draws on every rank */
static uint64_t draw(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717u;
}

/* -k: `calls` random calls; stops at the first that fails. */
static int random_calls(long calls, uint64_t seed, const char *only)
{
    static const long long gaps[] = {0, 1000, 700000000, 1000000000, 1500000000};
    int procs, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t state = seed * 0x9E3779B97F4A7C15u + 1;
    quiet = 1;
    int worst = 0;
    long k;
    for (k = 0; k < calls && worst == 0; k++) {
        const char *routine =
            only ? only : routines[draw(&state) % (sizeof routines / sizeof *routines)];
        long long count = 1 + (long long)(draw(&state) % 200);
        /* Spans of 2^32 extents or more (the last gap) only where the layer
         * can move them: never for Alltoall(v,w)'s sides (pairwise), and for
         * Gatherv/Scatterv only through the large-count functions (MPI 4),
         * as the non-roots cannot learn their window otherwise. */
        int rooted = strstr(routine, "atterv") != NULL ||
                     (strstr(routine, "atherv") != NULL && strstr(routine, "llgatherv") == NULL);
        int gaps_allowed = strstr(routine, "lltoall") || (rooted && MPI_VERSION < 4) ? 4 : 5;
        long long gap = gaps[draw(&state) % (uint64_t)gaps_allowed];
        int root = (int)(draw(&state) % (uint64_t)procs);
        int in_place = (int)(draw(&state) % 3 == 0);
#ifdef MPICH_VERSION /* its MPI_Ialltoallw in place fails bare on blocks of mixed types */
        uniform_types = in_place && strcmp(routine, "MPI_Ialltoallw") == 0;
#endif
        worst = one_call(routine, count, gap, root, in_place);
        if (worst != 0 && rank == 0)
            fprintf(stderr, "d_layout: call %ld of seed %llu failed (above)\n", k,
                    (unsigned long long)seed);
    }
    if (rank == 0)
        fprintf(stderr, "d_layout: %ld random calls, seed %llu: %s\n", k,
                (unsigned long long)seed, worst == 0 ? "every byte right" : "FAILED");
    return worst;
}

int main(int argc, char **argv)
{
    const char *routine = NULL;
    long long count = 0, gap = 0;
    long calls = 0;
    unsigned long long seed = 1;
    int root = 0, in_place = 0, opt;
    while ((opt = getopt(argc, argv, "c:n:g:r:ik:s:ul:")) != -1) {
        switch (opt) {
        case 'c': routine = optarg; break;
        case 'n': count = atoll(optarg); break;
        case 'g': gap = atoll(optarg); break;
        case 'r': root = atoi(optarg); break;
        case 'i': in_place = 1; break;
        case 'u': uniform_types = 1; break;
        case 'l': late = atof(optarg); break;
        case 'k': calls = atol(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        default: usage(); return 2;
        }
    }
    enum family which;
    int nonblocking;
    if ((routine != NULL && parse_routine(routine, &which, &nonblocking) != 0) ||
        (calls <= 0 && (routine == NULL || count <= 0 || gap < 0))) {
        usage();
        return 2;
    }
    MPI_Init(&argc, &argv);
    int status = calls > 0 ? random_calls(calls, seed, routine)
                           : one_call(routine, count, gap, root, in_place);
    MPI_Finalize();
    return status;
}
