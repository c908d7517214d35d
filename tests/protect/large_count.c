/* large_count ROUTINE COUNT [--root R] [--inplace] [--vector] [--once]
 * large_count MPI_Gatherv_c COUNT --gap G
 *
 * One call of a large-count routine (MPI_Scatter_c, MPI_Igatherv_c, ...)
 * made through MPI_* (the layer's, where it is preloaded) and, on the same
 * data, through PMPI_* (the bare call): every byte of both buffers, with
 * margins either side, must agree on every rank. Its layout is read from
 * the routine's row (tests/common/row_call.h, --vector its datatype with
 * holes); the root R (P - 1 unless given);
 * --inplace: MPI_IN_PLACE where the routine takes it (at the root of a
 * rooted one); --once: the call through MPI_* alone, which must succeed (under
 * the fault preload, whose PMPI_* would fail the bare call too). --gap G
 * (MPI_Gatherv_c alone): block i at displacement i G, past INT_MAX for a
 * G of 2^30 and more at P = 3, into a receive buffer only reserved (its
 * blocks alone touched); the root checks each block's bytes against what
 * the sender sent: an MPI_Aint displacement does not wrap, so the layer
 * must pass the call as it is (no Class D). Rank 0
 * prints one line of what agreed; a difference names the rank and byte on
 * stderr and aborts with exit status 1. Alltoallw_c is not taken (its
 * blocks' datatypes are tests/protect/alltoallw_case.c's). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collective.h"

#define TEST_PROGRAM "large_count"
#include "against_plain.h"
#include "row_call.h"

static const struct sg_entry_points via_mpi = {
#define VIA_MPI(Name, params, args, ...) .Name = MPI_##Name,
    SG_COLLECTIVES(VIA_MPI)
#undef VIA_MPI
};

struct buffers {
    unsigned char *send, *recv; /* each with MARGIN bytes either side */
    size_t send_bytes, recv_bytes;
};

static unsigned char *region(size_t bytes, uint32_t seed)
{
    unsigned char *r = malloc(bytes + 2 * MARGIN);
    if (r == NULL)
        fail("out of memory (%zu bytes)", bytes);
    state = seed;
    for (size_t i = 0; i < bytes + 2 * MARGIN; i++)
        r[i] = (unsigned char)next_random();
    return r;
}

static void compare(const unsigned char *plain, const unsigned char *got, size_t bytes,
                    const char *routine, const char *buffer)
{
    ptrdiff_t at = first_difference(plain, got, bytes + 2 * MARGIN);
    if (at != PTRDIFF_MAX)
        fail("%s: %s byte %td is 0x%02x, the bare call gives 0x%02x", routine, buffer, at,
             got[at + MARGIN], plain[at + MARGIN]);
}

/* --gap: MPI_Gatherv_c of n chars a rank to `root`, block i at i * gap,
 * into a reserved receive buffer; the root checks every block. */
static void gather_far(MPI_Count n, MPI_Aint gap, int root)
{
    MPI_Count *counts = malloc((size_t)procs * sizeof *counts);
    MPI_Aint *displs = malloc((size_t)procs * sizeof *displs);
    unsigned char *mine = malloc((size_t)n), *far = NULL;
    size_t span = (size_t)gap * (size_t)(procs - 1) + (size_t)n;
    if (counts == NULL || displs == NULL || mine == NULL)
        fail("out of memory");
    for (int i = 0; i < procs; i++) {
        counts[i] = n;
        displs[i] = (MPI_Aint)i * gap;
    }
    state = 777u + (uint32_t)rank;
    for (MPI_Count j = 0; j < n; j++)
        mine[j] = (unsigned char)next_random();
    if (rank == root &&
        (far = mmap(NULL, span, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) == MAP_FAILED)
        fail("cannot reserve %zu bytes", span);
    int err = MPI_Gatherv_c(mine, n, MPI_CHAR, far, counts, displs, MPI_CHAR, root,
                            MPI_COMM_WORLD);
    if (err != MPI_SUCCESS)
        fail("MPI_Gatherv_c returned %d", err);
    for (int i = 0; rank == root && i < procs; i++) {
        state = 777u + (uint32_t)i;
        for (MPI_Count j = 0; j < n; j++)
            if (far[displs[i] + j] != (unsigned char)next_random())
                fail("MPI_Gatherv_c: block %d byte %lld (at %ld) is not what rank %d sent", i,
                     (long long)j, (long)displs[i], i);
    }
    if (rank == 0)
        printf("large_count: MPI_Gatherv_c count=%lld P=%d root=%d gap=%ld: every block "
               "where its MPI_Aint displacement says\n",
               (long long)n, procs, root, (long)gap);
    if (far != NULL)
        munmap(far, span);
    free(mine);
    free(counts);
    free(displs);
}

static void usage(const char *why)
{
    fprintf(stderr, "usage: large_count ROUTINE COUNT [--root R] [--inplace] [--vector] "
                    "[--once] [--gap G]: %s\n", why);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage("a routine and a count");
    int root = -1, in_place = 0, vector = 0, once = 0;
    long long gap = 0;
    for (int a = 3; a < argc; a++) {
        if (strcmp(argv[a], "--root") == 0 && a + 1 < argc)
            root = atoi(argv[++a]);
        else if (strcmp(argv[a], "--inplace") == 0)
            in_place = 1;
        else if (strcmp(argv[a], "--vector") == 0)
            vector = 1;
        else if (strcmp(argv[a], "--once") == 0)
            once = 1;
        else if (strcmp(argv[a], "--gap") == 0 && a + 1 < argc)
            gap = atoll(argv[++a]);
        else
            usage(argv[a]);
    }
    int r = sg_routine_by_name(argv[1]);
    if (r < 0 || !sg_is_large_count((enum sg_routine)r) ||
        sg_routines[r].send == SG_SIDE_W)
        usage("a large-count routine of this MPI other than Alltoallw_c");
    char *end;
    MPI_Count n = strtoll(argv[2], &end, 10);
    if (*end != '\0' || n < 0)
        usage("the count: a decimal >= 0");
    const struct sg_routine_info *info = &sg_routines[r];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* said below, with its words */
    root = info->rooted ? (root < 0 ? procs - 1 : root) : -1;
    if (gap > 0) {
        if (r != SG_MPI_Gatherv_c)
            usage("--gap goes with MPI_Gatherv_c");
        gather_far(n, (MPI_Aint)gap, root);
        MPI_Finalize();
        return 0;
    }
    int is_root = !info->rooted || rank == root;
    struct row_call rc;
    row_call_make(&rc, (enum sg_routine)r, n, vector, root, is_root);
    struct sg_call c = rc.call;
    size_t send_bytes = rc.send_bytes, recv_bytes = rc.recv_bytes;
    if (recv_bytes < send_bytes && in_place && info->in_place_side == SG_IN_PLACE_SEND)
        recv_bytes = send_bytes; /* the input is in the receive buffer */
    uint32_t seed = 12345u + 977u * (uint32_t)rank;
    unsigned char *send_region = region(send_bytes, seed);
    unsigned char *recv_region = region(recv_bytes, seed ^ 0x5a5a5a5au);
    unsigned char *plain_send = malloc(send_bytes + 2 * MARGIN);
    unsigned char *plain_recv = malloc(recv_bytes + 2 * MARGIN);
    if (plain_send == NULL || plain_recv == NULL)
        fail("out of memory");
    memcpy(plain_send, send_region, send_bytes + 2 * MARGIN);
    memcpy(plain_recv, recv_region, recv_bytes + 2 * MARGIN);

    struct sg_call plain = c;
    c.sendbuf = send_region + MARGIN;
    c.recvbuf = recv_region + MARGIN;
    plain.sendbuf = plain_send + MARGIN;
    plain.recvbuf = plain_recv + MARGIN;
    if (in_place && info->in_place && is_root) {
        if (info->in_place_side == SG_IN_PLACE_SEND)
            c.sendbuf = plain.sendbuf = MPI_IN_PLACE;
        else
            c.recvbuf = plain.recvbuf = MPI_IN_PLACE;
    }

    MPI_Request request;
    c.request = &request;
    int err = sg_call_invoke(&via_mpi, &c);
    if (err == MPI_SUCCESS && sg_is_nonblocking(c.routine))
        err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) {
        char words[MPI_MAX_ERROR_STRING];
        int length;
        MPI_Error_string(err, words, &length);
        fail("%s count=%lld returned %d (%s)", info->name, (long long)n, err, words);
    }
    if (!once) {
        run_plain(&plain);
        compare(plain_send, send_region, send_bytes, info->name, "send buffer");
        compare(plain_recv, recv_region, recv_bytes, info->name, "receive buffer");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("large_count: %s count=%lld P=%d root=%d%s%s: %s\n", info->name, (long long)n,
               procs, root, in_place ? " in place" : "", vector ? " vector" : "",
               once ? "returned MPI_SUCCESS" : "every byte as the bare call's on every rank");
    free(plain_send);
    free(plain_recv);
    free(send_region);
    free(recv_region);
    row_call_free(&rc);
    MPI_Finalize();
    return 0;
}
