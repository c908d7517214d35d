/* persistent_case ROUTINE COUNT [--root R] [--vector] [--requests K] [--remake] [--once]
 *                 [--waits]
 * persistent_case MPI_Gatherv_init COUNT --gap G [--root R]
 * persistent_case MPI_Scatter_init[_c] COUNT --seeded [--root R]
 *
 * A persistent collective (MPI_Scatter_init, MPI_Allreduce_init_c, ...)
 * made through MPI_* (the layer's, where it is preloaded), K requests of it
 * (1 unless given), each over buffers of its own, started five times by
 * MPI_Start (MPI_Startall where K > 1) with new contents each time, and
 * completed once by MPI_Wait (MPI_Waitall), then together with an
 * ordinary request (an MPI_Ibarrier) by MPI_Waitall, by an MPI_Testall
 * loop, by MPI_Waitany and by MPI_Request_get_status and MPI_Waitall:
 * after each Start every byte of its buffers, with margins
 * either side, must be what the bare blocking call (PMPI_*, of the same
 * width) gives on the same data, and its request must still be there
 * (persistent: never MPI_REQUEST_NULL); --waits: each start completed by
 * MPI_Wait (MPICH 4.0.2's own persistent requests fail MPI_Testall beside
 * another: MPI_ERR_IN_STATUS). --remake: then the first request
 * freed (MPI_REQUEST_NULL), a new one made and started once more. Every
 * request is freed at the end.
 * Its layout is read from the routine's row (tests/common/row_call.h,
 * --vector its datatype with holes); the root R (P - 1 unless given).
 * --once: one Start through
 * MPI_* alone, which must succeed (under the fault preload, whose PMPI_*
 * would fail the bare call too).
 * --gap G (MPI_Gatherv_init alone): rank i's block of COUNT + i chars at
 * i G, the displacements summed in C int as user code does (past INT_MAX
 * they wrap: Class D), into a receive buffer only reserved; the root checks
 * each block where its intended displacement says against what its sender
 * sent, after each Start.
 * --seeded (MPI_Scatter_init and _init_c alone): the root's block i holds
 * the bytes (j + 7 i + 13 start) mod 251, which rank i checks after each of
 * two Starts (MPI_Wait): no bare call, nothing doubled (the case,
 * 750,000,000 chars a rank at P = 3: 2.25 GB at the root).
 * Rank 0 prints one line of what agreed; a difference names the rank and
 * byte on stderr and exits with status 1. Not taken: Alltoallw's (its
 * blocks' datatypes) and the neighbourhood collectives. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collective.h"

#define TEST_PROGRAM "persistent_case"
#include "against_plain.h"
#include "row_call.h"

static const struct sg_entry_points via_mpi = {
#define VIA_MPI(Name, params, args, ...) .Name = MPI_##Name,
    SG_COLLECTIVES(VIA_MPI)
#undef VIA_MPI
};

/* One persistent request and its buffers, the layer's and the bare call's. */
struct instance {
    struct sg_call call, plain;
    unsigned char *send, *recv, *plain_send, *plain_recv; /* MARGIN either side */
    size_t send_bytes, recv_bytes;
    MPI_Request request;
};

static const char *name;

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char words[MPI_MAX_ERROR_STRING];
        int length;
        MPI_Error_string(err, words, &length);
        fail("%s: %s returned %d (%s)", name, what, err, words);
    }
}

static unsigned char *region(size_t bytes)
{
    unsigned char *r = malloc(bytes + 2 * MARGIN);
    if (r == NULL)
        fail("out of memory (%zu bytes)", bytes);
    return r;
}

/* New contents for the start `round`: the same in the layer's buffers and
 * the bare call's. */
static void fill(struct instance *in, int k, int round)
{
    state = 12345u + 977u * (uint32_t)rank + 7919u * (uint32_t)k + 104729u * (uint32_t)round;
    for (size_t i = 0; i < in->send_bytes + 2 * MARGIN; i++)
        in->send[i] = (unsigned char)next_random();
    for (size_t i = 0; i < in->recv_bytes + 2 * MARGIN; i++)
        in->recv[i] = (unsigned char)next_random();
    memcpy(in->plain_send, in->send, in->send_bytes + 2 * MARGIN);
    memcpy(in->plain_recv, in->recv, in->recv_bytes + 2 * MARGIN);
}

static void compare(const unsigned char *plain, const unsigned char *got, size_t bytes,
                    const char *buffer, int round)
{
    ptrdiff_t at = first_difference(plain, got, bytes + 2 * MARGIN);
    if (at != PTRDIFF_MAX)
        fail("%s: start %d: %s byte %td is 0x%02x, the bare call gives 0x%02x", name, round,
             buffer, at, got[at + MARGIN], plain[at + MARGIN]);
}

static void make(struct instance *in)
{
    in->call.request = &in->request;
    in->call.info = MPI_INFO_NULL;
    check(sg_call_invoke(&via_mpi, &in->call), "the _init");
    if (in->request == MPI_REQUEST_NULL)
        fail("%s: the _init gave MPI_REQUEST_NULL", name);
}

/* Start the K requests, complete them by `how` (0 MPI_Wait or Waitall
 * alone; with an ordinary request, 1 MPI_Waitall, 2 an MPI_Testall loop, 3
 * MPI_Waitany until none is active, 4 MPI_Request_get_status on the first
 * until it is done, then MPI_Waitall), and check each against the bare
 * call unless `once`. */
static void run_round(struct instance *ins, int k_count, int round, int how, int once)
{
    MPI_Request requests[9];
    MPI_Status statuses[9]; /* not MPI_STATUSES_IGNORE: gcc 12 warns MPICH writes to it */
    for (int k = 0; k < k_count; k++) {
        fill(&ins[k], k, round);
        requests[k] = ins[k].request;
    }
    if (k_count == 1)
        check(MPI_Start(&requests[0]), "MPI_Start");
    else
        check(MPI_Startall(k_count, requests), "MPI_Startall");
    int all = k_count;
    if (how > 0)
        check(MPI_Ibarrier(MPI_COMM_WORLD, &requests[all++]), "MPI_Ibarrier");
    if (how == 0 && all == 1) {
        check(MPI_Wait(&requests[0], MPI_STATUS_IGNORE), "MPI_Wait");
    } else if (how == 1 || how == 0) {
        check(MPI_Waitall(all, requests, statuses), "MPI_Waitall");
    } else if (how == 2) {
        for (int done = 0; !done;)
            check(MPI_Testall(all, requests, &done, statuses), "MPI_Testall");
    } else if (how == 3) { /* until none is active (a persistent one done stays, inactive) */
        for (int index = 0; index != MPI_UNDEFINED;)
            check(MPI_Waitany(all, requests, &index, statuses), "MPI_Waitany");
    } else {
        for (int done = 0; !done;)
            check(MPI_Request_get_status(requests[0], &done, statuses),
                  "MPI_Request_get_status");
        check(MPI_Waitall(all, requests, statuses), "MPI_Waitall");
    }
    for (int k = 0; k < k_count; k++)
        if (requests[k] != ins[k].request)
            fail("%s: start %d: request %d came back as %s", name, round, k,
                 requests[k] == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : "another handle");
    if (how > 0 && requests[k_count] != MPI_REQUEST_NULL)
        fail("%s: start %d: the ordinary request did not complete", name, round);
    for (int k = 0; k < k_count && !once; k++) {
        run_plain(&ins[k].plain);
        compare(ins[k].plain_send, ins[k].send, ins[k].send_bytes, "send buffer", round);
        compare(ins[k].plain_recv, ins[k].recv, ins[k].recv_bytes, "receive buffer", round);
    }
}

/* --gap: MPI_Gatherv_init's Class D layout, started three times, the root
 * checking every block where its intended displacement says. */
static void gather_far(enum sg_routine r, int n, long long gap, int root)
{
    int *counts = malloc((size_t)procs * sizeof *counts);
    int *displs = malloc((size_t)procs * sizeof *displs);
    long long *intended = malloc((size_t)procs * sizeof *intended);
    unsigned char *mine = malloc((size_t)(n + rank)), *far = NULL;
    if (counts == NULL || displs == NULL || intended == NULL || mine == NULL)
        fail("out of memory");
    int sum = 0;
    for (int i = 0; i < procs; i++) {
        counts[i] = n + i;
        intended[i] = (long long)i * gap;
        displs[i] = sum; /* summed in int, as user code does: it wraps */
        sum = (int)(unsigned)((unsigned)sum + (unsigned)gap);
    }
    size_t span = (size_t)intended[procs - 1] + (size_t)counts[procs - 1];
    if (rank == root &&
        (far = mmap(NULL, span, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) == MAP_FAILED)
        fail("cannot reserve %zu bytes", span);
    MPI_Request request;
    struct sg_call c = {.routine = r, .sendbuf = mine, .sendcount = n + rank,
                        .sendtype = MPI_CHAR, .recvbuf = far,
                        .recvcounts = SG_COUNTS(counts), .rdispls = SG_DISPLS(displs),
                        .recvtype = MPI_CHAR, .root = root, .comm = MPI_COMM_WORLD,
                        .info = MPI_INFO_NULL, .request = &request};
    check(sg_call_invoke(&via_mpi, &c), "the _init");
    for (int round = 0; round < 3; round++) {
        state = 777u + 31u * (uint32_t)rank + 1009u * (uint32_t)round;
        for (int j = 0; j < n + rank; j++)
            mine[j] = (unsigned char)next_random();
        check(MPI_Start(&request), "MPI_Start");
        check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
        if (request == MPI_REQUEST_NULL)
            fail("%s: start %d: the request came back as MPI_REQUEST_NULL", name, round);
        for (int i = 0; rank == root && i < procs; i++) {
            state = 777u + 31u * (uint32_t)i + 1009u * (uint32_t)round;
            for (int j = 0; j < counts[i]; j++)
                if (far[intended[i] + j] != (unsigned char)next_random())
                    fail("%s: start %d: block %d byte %d (at %lld) is not what rank %d sent",
                         name, round, i, j, intended[i], i);
        }
    }
    check(MPI_Request_free(&request), "MPI_Request_free");
    if (rank == 0)
        printf("persistent_case: %s count=%d P=%d root=%d gap=%lld: 3 starts, every block "
               "where its intended displacement says\n",
               name, n, procs, root, gap);
    if (far != NULL)
        munmap(far, span);
    free(mine);
    free(counts);
    free(displs);
    free(intended);
}

/* --seeded: MPI_Scatter_init(_c) of n chars a rank, two Starts, each rank
 * checking its block. */
static void scatter_seeded(enum sg_routine r, long long n, int root)
{
    size_t each = (size_t)n;
    unsigned char *send = rank == root ? malloc(each * (size_t)procs) : NULL;
    unsigned char *recv = malloc(each > 0 ? each : 1);
    if ((rank == root && send == NULL) || recv == NULL)
        fail("out of memory");
    MPI_Request request;
    struct sg_call c = {.routine = r, .sendbuf = send, .sendcount = n, .sendtype = MPI_CHAR,
                        .recvbuf = recv, .recvcount = n, .recvtype = MPI_CHAR, .root = root,
                        .comm = MPI_COMM_WORLD, .info = MPI_INFO_NULL, .request = &request};
    check(sg_call_invoke(&via_mpi, &c), "the _init");
    for (int start = 0; start < 2; start++) {
        for (int i = 0; rank == root && i < procs; i++)
            for (size_t j = 0; j < each; j++)
                send[(size_t)i * each + j] =
                    (unsigned char)((j + 7u * (size_t)i + 13u * (size_t)start) % 251);
        check(MPI_Start(&request), "MPI_Start");
        check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
        for (size_t j = 0; j < each; j++)
            if (recv[j] != (unsigned char)((j + 7u * (size_t)rank + 13u * (size_t)start) % 251))
                fail("%s: start %d: byte %zu of this rank's block is wrong", name, start, j);
    }
    check(MPI_Request_free(&request), "MPI_Request_free");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("persistent_case: %s count=%lld P=%d root=%d: 2 starts, every byte of every "
               "block where the root put it\n",
               name, n, procs, root);
    free(send);
    free(recv);
}

static void usage(const char *why)
{
    fprintf(stderr, "usage: persistent_case ROUTINE COUNT [--root R] [--vector] "
                    "[--requests K] [--remake] [--once] [--waits] [--gap G] [--seeded]: %s\n",
            why);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage("a routine and a count");
    int root = -1, vector = 0, once = 0, remake = 0, k_count = 1, waits = 0, seeded = 0;
    long long gap = 0;
    for (int a = 3; a < argc; a++) {
        if (strcmp(argv[a], "--root") == 0 && a + 1 < argc)
            root = atoi(argv[++a]);
        else if (strcmp(argv[a], "--vector") == 0)
            vector = 1;
        else if (strcmp(argv[a], "--once") == 0)
            once = 1;
        else if (strcmp(argv[a], "--remake") == 0)
            remake = 1;
        else if (strcmp(argv[a], "--waits") == 0)
            waits = 1;
        else if (strcmp(argv[a], "--seeded") == 0)
            seeded = 1;
        else if (strcmp(argv[a], "--requests") == 0 && a + 1 < argc)
            k_count = atoi(argv[++a]);
        else if (strcmp(argv[a], "--gap") == 0 && a + 1 < argc)
            gap = atoll(argv[++a]);
        else
            usage(argv[a]);
    }
    int r = sg_routine_by_name(argv[1]);
    if (r < 0 || !sg_is_persistent((enum sg_routine)r) || sg_routines[r].send == SG_SIDE_W ||
        sg_routines[r].neighbours)
        usage("a persistent routine of this MPI other than Alltoallw's and the neighbourhood "
              "ones");
    if (k_count < 1 || k_count > 8)
        usage("--requests: 1 to 8");
    char *end;
    long long n = strtoll(argv[2], &end, 10);
    if (*end != '\0' || n < 0 || (n > 1 << 28 && !seeded) || n > INT_MAX)
        usage("the count: a decimal from 0 to 2^28 (to INT_MAX with --seeded)");
    const struct sg_routine_info *info = &sg_routines[r];
    name = info->name;
    int large = sg_is_large_count((enum sg_routine)r);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* said, with its words */
    root = info->rooted ? (root < 0 ? procs - 1 : root) : -1;
    if (seeded) {
        if (sg_blocking_form((enum sg_routine)r) != SG_MPI_Scatter)
            usage("--seeded goes with MPI_Scatter_init and MPI_Scatter_init_c");
        scatter_seeded((enum sg_routine)r, n, root);
        MPI_Finalize();
        return 0;
    }
    if (gap > 0) {
        if (sg_blocking_form((enum sg_routine)r) != SG_MPI_Gatherv || large)
            usage("--gap goes with MPI_Gatherv_init");
        gather_far((enum sg_routine)r, (int)n, gap, root);
        MPI_Finalize();
        return 0;
    }
    int is_root = !info->rooted || rank == root;
    struct row_call rc;
    row_call_make(&rc, (enum sg_routine)r, n, vector, root, is_root);

    struct instance ins[8];
    for (int k = 0; k < k_count; k++) {
        struct instance *in = &ins[k];
        in->send_bytes = rc.send_bytes;
        in->recv_bytes = rc.recv_bytes;
        in->send = region(rc.send_bytes);
        in->recv = region(rc.recv_bytes);
        in->plain_send = region(rc.send_bytes);
        in->plain_recv = region(rc.recv_bytes);
        in->call = in->plain = rc.call;
        in->call.sendbuf = in->send + MARGIN;
        in->call.recvbuf = in->recv + MARGIN;
        in->plain.sendbuf = in->plain_send + MARGIN;
        in->plain.recvbuf = in->plain_recv + MARGIN;
        in->plain.routine = (enum sg_routine)sg_form_with((enum sg_routine)r, 0, large);
        make(in);
    }
    int starts = 0;
    for (int round = 0; round < (once ? 1 : 5); round++, starts++)
        run_round(ins, k_count, round, waits ? 0 : round, once);
    if (remake) {
        check(MPI_Request_free(&ins[0].request), "MPI_Request_free");
        if (ins[0].request != MPI_REQUEST_NULL)
            fail("%s: MPI_Request_free left the request", name);
        make(&ins[0]);
        run_round(ins, 1, 5, 0, once);
        starts++;
    }
    for (int k = 0; k < k_count; k++) {
        check(MPI_Request_free(&ins[k].request), "MPI_Request_free");
        if (ins[k].request != MPI_REQUEST_NULL)
            fail("%s: MPI_Request_free left the request", name);
        free(ins[k].send);
        free(ins[k].recv);
        free(ins[k].plain_send);
        free(ins[k].plain_recv);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("persistent_case: %s count=%lld P=%d root=%d%s: %d start%s of %d request%s%s, "
               "%s\n",
               name, n, procs, root, vector ? " vector" : "", starts, starts == 1 ? "" : "s",
               k_count, k_count == 1 ? "" : "s", remake ? " (one remade)" : "",
               once ? "returned MPI_SUCCESS" : "every byte as the bare call's on every rank");
    row_call_free(&rc);
    MPI_Finalize();
    return 0;
}
