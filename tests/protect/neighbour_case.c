/* neighbour_case: one neighbourhood collective, every byte checked.
 *
 *   neighbour_case -c ROUTINE -t TOPOLOGY [-n COUNT] [-g GAP]
 *
 * ROUTINE is MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w) or an
 * I-form of one (of Alltoallw, where the MPI has them, the `_c` forms too),
 * over the communicator TOPOLOGY:
 *   torus  a periodic 2-D Cartesian communicator over the job's ranks
 *          (MPI_Dims_create: at P = 4 a dimension's -1 and +1 neighbours are
 *          one rank, which each block still counts)
 *   graph  a distributed graph of unequal in- and out-degrees: rank r sends
 *          to r + 1, and where r is a multiple of 3 to r + 2 too (mod P)
 *   ring   a periodic 1-D Cartesian communicator (P >= 3: two neighbours)
 *   clique a distributed graph of every rank's P - 1 others: r sends to
 *          r + 1, r + 2, ... and receives from r - 1, r - 2, ... (mod P)
 * Rank s's block for its k-th out-neighbour holds COUNT chars (a v-routine:
 * COUNT + (s + r) % 3 to rank r for Alltoallv, COUNT + s % 3 for
 * Allgatherv), byte j pattern(s, k, j) (k = 0 for the allgathers). Alltoallw's
 * block from s to r is as Alltoallv's, but of elements of its own type
 * (MPI_CHAR, MPI_SHORT, MPI_INT or MPI_DOUBLE, by s and r), at MPI_Aint byte
 * displacements W_GAP bytes apart on both sides.
 *
 * On the torus and the graph the call is made as MPI_<ROUTINE> (through the
 * layer where it is preloaded) and through PMPI, from the same send buffer
 * into receive buffers of the same junk, and every byte of the two is
 * compared, MARGIN bytes either side included. Over the others each
 * received block is checked against what its neighbour sent (the graph's
 * too); the ring and the clique make no bare call (the fault preload's
 * PMPI wrappers would fail it, a wrapped layout would crash it), and there
 * -g GAP puts GAP chars (under 2^31) after each of a v-routine's receive
 * blocks, their displacements summed in C int as an application does, so
 * past INT_MAX they wrap (Class D; Alltoallw's are MPI_Aint, which go past
 * INT_MAX without a wrap): the receive buffer is only reserved
 * (the gap costs no memory), with 4 GiB of PROT_NONE on either side.
 *
 * Exit status (the same on every rank): 0 every byte right, 3 wrong data,
 * 4 MPI error; a crash kills the job. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD ((size_t)4 << 30)
#define MARGIN 64
#define JUNK 0xa5
#define STATUS_WRONG 3
#define STATUS_MPI 4

#define W_GAP 5

enum routine { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, ROUTINES };
/* blocking, nonblocking; then their large-count forms (Alltoallw's only) */
static const char *const names[4][ROUTINES] = {
    {"MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall",
     "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw"},
    {"MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall",
     "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw"},
#if SCALEGUARD_LARGE_COUNT
    {[ALLTOALLW] = "MPI_Neighbor_alltoallw_c"},
    {[ALLTOALLW] = "MPI_Ineighbor_alltoallw_c"},
#endif
};

/* Alltoallw's datatype of the block from `sender` to `receiver`. */
static MPI_Datatype w_type(int sender, int receiver)
{
    const MPI_Datatype types[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE};
    return types[(sender + 2 * receiver + 1) % 4];
}

static int size_of(MPI_Datatype type)
{
    int size;
    MPI_Type_size(type, &size);
    return size;
}

static unsigned char pattern(int sender, int block, int64_t j)
{
    return (unsigned char)(((uint32_t)j * 2654435761u + (uint32_t)(sender * 8 + block + 1) *
                                                            40503u) >> 24);
}

/* The call's arguments on this rank. */
struct layout {
    enum routine routine;
    int nonblocking, large;
    int in, out, *sources, *destinations;
    int send_count, recv_count;          /* the regular routines' */
    int *send_counts, *send_displs;      /* Alltoallv's send side, Allgatherv's one count */
    int *recv_counts, *recv_displs;      /* the v-routines' receive side, in int */
    int64_t *send_at, *recv_at;          /* where each block really starts, in bytes */
    int64_t *send_length, *recv_length;  /* each block's bytes */
    /* Alltoallw: each block's datatype, its counts as MPI_Count (`_c`), its
     * displacements (send_at, recv_at) as MPI_Aint */
    MPI_Datatype *send_types, *recv_types;
    MPI_Count *wide_send_counts, *wide_recv_counts;
    MPI_Aint *send_aint, *recv_aint;
    int64_t send_bytes, recv_bytes;
};

static int count_between(const struct layout *l, int count, int sender, int receiver)
{
    if (l->routine == ALLTOALLV || l->routine == ALLTOALLW)
        return count + (sender + receiver) % 3;
    if (l->routine == ALLGATHERV)
        return count + sender % 3;
    return count;
}

static int call(const struct layout *l, int bare, const unsigned char *send, unsigned char *recv,
                MPI_Comm comm)
{
    MPI_Request request, *r = l->nonblocking ? &request : NULL;
    int err = MPI_ERR_OTHER;
    switch (l->routine) {
    case ALLGATHER:
        err = r ? (bare ? PMPI_Ineighbor_allgather : MPI_Ineighbor_allgather)(
                      send, l->send_count, MPI_CHAR, recv, l->recv_count, MPI_CHAR, comm, r)
                : (bare ? PMPI_Neighbor_allgather : MPI_Neighbor_allgather)(
                      send, l->send_count, MPI_CHAR, recv, l->recv_count, MPI_CHAR, comm);
        break;
    case ALLGATHERV:
        err = r ? (bare ? PMPI_Ineighbor_allgatherv : MPI_Ineighbor_allgatherv)(
                      send, l->send_count, MPI_CHAR, recv, l->recv_counts, l->recv_displs,
                      MPI_CHAR, comm, r)
                : (bare ? PMPI_Neighbor_allgatherv : MPI_Neighbor_allgatherv)(
                      send, l->send_count, MPI_CHAR, recv, l->recv_counts, l->recv_displs,
                      MPI_CHAR, comm);
        break;
    case ALLTOALL:
        err = r ? (bare ? PMPI_Ineighbor_alltoall : MPI_Ineighbor_alltoall)(
                      send, l->send_count, MPI_CHAR, recv, l->recv_count, MPI_CHAR, comm, r)
                : (bare ? PMPI_Neighbor_alltoall : MPI_Neighbor_alltoall)(
                      send, l->send_count, MPI_CHAR, recv, l->recv_count, MPI_CHAR, comm);
        break;
    case ALLTOALLV:
        err = r ? (bare ? PMPI_Ineighbor_alltoallv : MPI_Ineighbor_alltoallv)(
                      send, l->send_counts, l->send_displs, MPI_CHAR, recv, l->recv_counts,
                      l->recv_displs, MPI_CHAR, comm, r)
                : (bare ? PMPI_Neighbor_alltoallv : MPI_Neighbor_alltoallv)(
                      send, l->send_counts, l->send_displs, MPI_CHAR, recv, l->recv_counts,
                      l->recv_displs, MPI_CHAR, comm);
        break;
    case ALLTOALLW:
#if SCALEGUARD_LARGE_COUNT
        if (l->large) {
            err = r ? (bare ? PMPI_Ineighbor_alltoallw_c : MPI_Ineighbor_alltoallw_c)(
                          send, l->wide_send_counts, l->send_aint, l->send_types, recv,
                          l->wide_recv_counts, l->recv_aint, l->recv_types, comm, r)
                    : (bare ? PMPI_Neighbor_alltoallw_c : MPI_Neighbor_alltoallw_c)(
                          send, l->wide_send_counts, l->send_aint, l->send_types, recv,
                          l->wide_recv_counts, l->recv_aint, l->recv_types, comm);
            break;
        }
#endif
        err = r ? (bare ? PMPI_Ineighbor_alltoallw : MPI_Ineighbor_alltoallw)(
                      send, l->send_counts, l->send_aint, l->send_types, recv, l->recv_counts,
                      l->recv_aint, l->recv_types, comm, r)
                : (bare ? PMPI_Neighbor_alltoallw : MPI_Neighbor_alltoallw)(
                      send, l->send_counts, l->send_aint, l->send_types, recv, l->recv_counts,
                      l->recv_aint, l->recv_types, comm);
        break;
    case ROUTINES:
        break;
    }
    if (err == MPI_SUCCESS && r)
        err = MPI_Wait(r, MPI_STATUS_IGNORE);
    return err;
}

/* Which block this rank's in-neighbour `i` sent it: the k of that
 * neighbour's out-neighbours that is this rank (a ring's -1 neighbour
 * sends its +1 block, and the other way round). */
static int block_sent(const struct layout *l, const char *topology, int i, int rank, int procs)
{
    if (l->routine == ALLGATHER || l->routine == ALLGATHERV)
        return 0;
    if (strcmp(topology, "ring") == 0)
        return 1 - i;
    if (strcmp(topology, "clique") == 0)
        return i;
    return rank == (l->sources[i] + 1) % procs ? 0 : 1;
}

static void *reserved(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (bytes + page - 1) / page * page;
    unsigned char *all = mmap(NULL, GUARD + body + GUARD, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (all == MAP_FAILED || mprotect(all + GUARD, body, PROT_READ | PROT_WRITE) != 0)
        return NULL;
    return all + GUARD;
}

static MPI_Comm topology_of(const char *topology, int rank, int procs, struct layout *l)
{
    MPI_Comm comm = MPI_COMM_NULL;
    l->sources = calloc((size_t)procs + 4, sizeof *l->sources);
    l->destinations = calloc((size_t)procs + 4, sizeof *l->destinations);
    /* weights of 1 (Open MPI's MPI_UNWEIGHTED is an object of no size, which
     * gcc takes for an array too short) */
    int *weights = calloc((size_t)procs + 4, sizeof *weights);
    for (int k = 0; k < procs + 4; k++)
        weights[k] = 1;
    if (strcmp(topology, "clique") == 0) {
        l->in = l->out = procs - 1;
        for (int k = 0; k < procs - 1; k++) {
            l->destinations[k] = (rank + k + 1) % procs;
            l->sources[k] = (rank - k - 1 + procs) % procs;
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, l->in, l->sources, weights, l->out,
                                       l->destinations, weights, MPI_INFO_NULL, 0, &comm);
        free(weights);
        return comm;
    }
    if (strcmp(topology, "graph") == 0) {
        int *out = l->destinations, *in = l->sources;
        out[0] = (rank + 1) % procs;
        out[1] = (rank + 2) % procs;
        in[0] = (rank - 1 + procs) % procs;
        in[1] = (rank - 2 + procs) % procs;
        l->out = rank % 3 == 0 ? 2 : 1;
        l->in = in[1] % 3 == 0 ? 2 : 1;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, l->in, in, weights, l->out, out, weights,
                                       MPI_INFO_NULL, 0, &comm);
        free(weights);
        return comm;
    }
    free(weights);
    int torus = strcmp(topology, "torus") == 0, dims[2] = {0, 0}, periods[2] = {1, 1};
    if (!torus && strcmp(topology, "ring") != 0)
        return comm;
    MPI_Dims_create(procs, torus ? 2 : 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, torus ? 2 : 1, dims, periods, 0, &comm);
    /* each dimension's -1 then +1 neighbour, both ways (MPI 4.0, 7.6) */
    l->in = l->out = torus ? 4 : 2;
    for (int d = 0; d < l->in / 2; d++) {
        MPI_Cart_shift(comm, d, 1, &l->sources[2 * d], &l->sources[2 * d + 1]);
        l->destinations[2 * d] = l->sources[2 * d];
        l->destinations[2 * d + 1] = l->sources[2 * d + 1];
    }
    return comm;
}

int main(int argc, char **argv)
{
    const char *routine_name = NULL, *topology = NULL;
    int count = 1000, opt;
    long long gap = 0;
    while ((opt = getopt(argc, argv, "c:t:n:g:")) != -1) {
        if (opt == 'c')
            routine_name = optarg;
        else if (opt == 't')
            topology = optarg;
        else if (opt == 'n')
            count = atoi(optarg);
        else if (opt == 'g')
            gap = atoll(optarg);
        else
            return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    struct layout l = {.routine = ROUTINES};
    for (size_t form = 0; form < sizeof names / sizeof *names; form++)
        for (int i = 0; routine_name && i < ROUTINES; i++)
            if (names[form][i] && strcmp(routine_name, names[form][i]) == 0) {
                l.routine = (enum routine)i;
                l.nonblocking = form % 2;
                l.large = form >= 2;
            }
    MPI_Comm comm = topology ? topology_of(topology, rank, procs, &l) : MPI_COMM_NULL;
    /* no bare call over the ring and the clique (see the top) */
    int ring = topology && (strcmp(topology, "ring") == 0 || strcmp(topology, "clique") == 0);
    if (l.routine == ROUTINES || comm == MPI_COMM_NULL || count <= 0 || gap < 0 ||
        gap > INT32_MAX || (ring && procs < 3) ||
        (gap > 0 && (!ring || l.routine == ALLGATHER || l.routine == ALLTOALL))) {
        if (rank == 0)
            fprintf(stderr, "usage: neighbour_case -c MPI_[I]{Neighbor,neighbor}_{allgather,"
                            "allgatherv,alltoall,alltoallv,alltoallw}[_c] -t "
                            "torus|graph|ring|clique [-n COUNT] [-g GAP] (P >= 3 on the ring "
                            "and the clique; -g: a v-routine there, GAP < 2^31)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    /* the send side: one block, or one per out-neighbour (Alltoallw's
     * W_GAP bytes apart, each of its own type) */
    int alltoall = l.routine == ALLTOALL || l.routine == ALLTOALLV || l.routine == ALLTOALLW;
    int w = l.routine == ALLTOALLW, send_blocks = alltoall ? l.out : 1;
    size_t sends = (size_t)send_blocks + 1, recvs = (size_t)l.in + 1;
    l.send_counts = calloc(sends, sizeof *l.send_counts);
    l.send_displs = calloc(sends, sizeof *l.send_displs);
    l.send_at = calloc(sends, sizeof *l.send_at);
    l.send_length = calloc(sends, sizeof *l.send_length);
    l.send_types = calloc(sends, sizeof *l.send_types);
    l.wide_send_counts = calloc(sends, sizeof *l.wide_send_counts);
    l.send_aint = calloc(sends, sizeof *l.send_aint);
    for (int k = 0; k < send_blocks; k++) {
        int to = alltoall ? l.destinations[k] : -1;
        l.send_counts[k] = count_between(&l, count, rank, to);
        l.send_types[k] = w ? w_type(rank, to) : MPI_CHAR;
        l.send_length[k] = (int64_t)l.send_counts[k] * size_of(l.send_types[k]);
        l.send_bytes += w ? W_GAP : 0;
        l.send_at[k] = l.send_aint[k] = l.send_bytes;
        l.send_displs[k] = (int)l.send_bytes;
        l.wide_send_counts[k] = l.send_counts[k];
        l.send_bytes += l.send_length[k];
    }
    l.send_count = l.send_counts[0];
    /* the receive side: one block per in-neighbour, GAP chars apart
     * (Alltoallw's W_GAP bytes) */
    l.recv_count = count;
    l.recv_counts = calloc(recvs, sizeof *l.recv_counts);
    l.recv_displs = calloc(recvs, sizeof *l.recv_displs);
    l.recv_at = calloc(recvs, sizeof *l.recv_at);
    l.recv_length = calloc(recvs, sizeof *l.recv_length);
    l.recv_types = calloc(recvs, sizeof *l.recv_types);
    l.wide_recv_counts = calloc(recvs, sizeof *l.wide_recv_counts);
    l.recv_aint = calloc(recvs, sizeof *l.recv_aint);
    int sum = 0; /* the application's displacements, summed in int */
    for (int i = 0; i < l.in; i++) {
        l.recv_counts[i] = count_between(&l, count, l.sources[i], rank);
        l.recv_types[i] = w ? w_type(l.sources[i], rank) : MPI_CHAR;
        l.recv_length[i] = (int64_t)l.recv_counts[i] * size_of(l.recv_types[i]);
        l.wide_recv_counts[i] = l.recv_counts[i];
        l.recv_bytes += w ? W_GAP : 0;
        l.recv_displs[i] = sum;
        l.recv_at[i] = l.recv_aint[i] = l.recv_bytes;
        sum = (int)(uint32_t)((uint32_t)sum + (uint32_t)l.recv_counts[i] + (uint32_t)gap);
        l.recv_bytes += l.recv_length[i] + gap;
    }
    unsigned char *send = malloc((size_t)l.send_bytes + 1);
    unsigned char *recv = ring ? reserved((size_t)l.recv_bytes + 2 * MARGIN)
                               : malloc((size_t)l.recv_bytes + 2 * MARGIN);
    unsigned char *bare = ring ? NULL : malloc((size_t)l.recv_bytes + 2 * MARGIN);
    if (send == NULL || recv == NULL || (!ring && bare == NULL)) {
        perror("neighbour_case: memory");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int k = 0; k < send_blocks; k++)
        for (int64_t j = 0; j < l.send_length[k]; j++)
            send[l.send_at[k] + j] = pattern(rank, k, j);
    for (int i = 0; i < l.in; i++) /* the ring's buffer is reserved: its blocks only */
        memset(recv + MARGIN + l.recv_at[i], JUNK, (size_t)l.recv_length[i]);
    if (!ring) {
        memset(recv, JUNK, (size_t)l.recv_bytes + 2 * MARGIN);
        memset(bare, JUNK, (size_t)l.recv_bytes + 2 * MARGIN);
    }

    int err = call(&l, 0, send, recv + MARGIN, comm);
    if (err == MPI_SUCCESS && !ring)
        err = call(&l, 1, send, bare + MARGIN, comm);
    int status = err == MPI_SUCCESS ? 0 : STATUS_MPI;
    if (status == 0 && !ring && memcmp(recv, bare, (size_t)l.recv_bytes + 2 * MARGIN) != 0) {
        fprintf(stderr, "neighbour_case: rank %d: not the bare call's bytes\n", rank);
        status = STATUS_WRONG;
    }
    for (int i = 0; status == 0 && strcmp(topology, "torus") != 0 && i < l.in; i++) {
        int k = block_sent(&l, topology, i, rank, procs);
        for (int64_t j = 0; j < l.recv_length[i]; j++)
            if (recv[MARGIN + l.recv_at[i] + j] != pattern(l.sources[i], k, j)) {
                fprintf(stderr, "neighbour_case: rank %d: wrong data from rank %d at byte "
                                "%lld\n", rank, l.sources[i], (long long)j);
                status = STATUS_WRONG;
                break;
            }
    }
    int worst = status;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr, "neighbour_case: %s on the %s, rank 0 receives %d blocks%s: %s\n",
                routine_name, topology, l.in,
                !gap ? "" : l.routine == ALLTOALLW ? " (displacements past INT_MAX)"
                                                   : " (wrapped displacements)",
                worst == 0 ? "every byte right" : worst == STATUS_WRONG ? "WRONG DATA"
                                                                        : "MPI ERROR");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return worst;
}
