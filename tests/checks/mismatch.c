/* Collective calls whose ranks disagree, one kind per case, for the
 * collective checks (checks/) to catch before the MPI sees the call:
 *
 *   mismatch CASE        (P = 4 unless the case says; under libscaleguard.so
 *                         with SCALEGUARD_CHECK=collectives)
 *
 * Each case makes one wrong call (after a right one, so the call numbers
 * count) and then, if the checks let it through, a right Allreduce (but
 * skipped_last, whose wrong call is the missing last one); rank 0
 * prints "mismatch: CASE survived" at the end. With the checks aborting
 * the job never gets there; warning, only the cases that MPI completes
 * anyway (an op, a signature of the same size) are run. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, procs;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void routine(void)
{
    int x = 1, y;
    if (rank == 1)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void skipped_call(void)
{
    int x = 1;
    if (rank != 2) /* rank 2 skips the first Bcast: its next one is call 1 */
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* Rank 1 starts the I-form of the others' blocking call. */
static void blocking_and_i_form(void)
{
    int x = 1;
    MPI_Request request = MPI_REQUEST_NULL;
    if (rank == 1)
        MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
    else
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

/* Rank 2 leaves out the last collective before MPI_Finalize: found there. */
static void skipped_last(void)
{
    int x = 1;
    if (rank != 2)
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void root(void)
{
    int x = 1;
    MPI_Bcast(&x, 1, MPI_INT, rank == 3 ? 1 : 0, MPI_COMM_WORLD);
}

static void op(void)
{
    int x = rank, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, rank == 2 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
}

/* A prefix: rank 1 passes another op to MPI_Exscan. */
static void exscan_op(void)
{
    int x = rank, y = 0;
    MPI_Exscan(&x, &y, 1, MPI_INT, rank == 1 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
}

static void user_op(void)
{
    MPI_Op sum;
    MPI_Op_create(user_sum, 1, &sum);
    int x = rank, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, rank == 0 ? sum : MPI_SUM, MPI_COMM_WORLD);
    MPI_Op_free(&sum);
}

/* 2 x MPI_INT at the root, 1 x MPI_DOUBLE elsewhere: the same 8 bytes */
static void signature(void)
{
    double d = 0;
    int two[2] = {1, 2};
    if (rank == 0)
        MPI_Bcast(two, 2, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static void in_place_off_root(void)
{
    int x = rank, all[64];
    MPI_Gather(rank == 2 ? MPI_IN_PLACE : &x, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void in_place_some(void)
{
    int x = rank, y;
    if (rank == 0)
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* The root expects 3 ints from rank 2, which sends 2. */
static void gatherv_pair(void)
{
    int mine[3] = {rank, rank, rank}, all[64], counts[64], displs[64];
    for (int r = 0; r < procs; r++) {
        counts[r] = r == 2 ? 3 : 2;
        displs[r] = 3 * r;
    }
    MPI_Gatherv(mine, 2, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
}

/* Rank 3 receives 2 floats from each rank, which each send it 1 double
 * (the same 8 bytes). */
static void alltoallv_pair(void)
{
    double send[64] = {0}, recv[64];
    int sc[64], sd[64], rc[64], rd[64];
    for (int r = 0; r < procs; r++) {
        sc[r] = 1;
        sd[r] = r;
        rc[r] = rank == 3 ? 2 : 1;
        rd[r] = rank == 3 ? 2 * r : r;
    }
    MPI_Alltoallv(send, sc, sd, MPI_DOUBLE, recv, rc, rd, rank == 3 ? MPI_FLOAT : MPI_DOUBLE,
                  MPI_COMM_WORLD);
}

/* Alltoallw, each block of its own datatype, all right but one: rank 3
 * receives 2 floats from rank 1, which sends it 1 double; its other
 * blocks arrive as 1 double, or as a pair of floats from a rank that sends
 * 2 floats. */
static void alltoallw_pair(void)
{
    double send[64] = {0}, recv[64];
    int sc[64], sd[64], rc[64], rd[64];
    MPI_Datatype st[64], rt[64];
    for (int r = 0; r < procs; r++) {
        int floats = rank % 2 == 0 && r == 3; /* the even ranks send rank 3 2 floats */
        sc[r] = floats ? 2 : 1;
        st[r] = floats ? MPI_FLOAT : MPI_DOUBLE;
        sd[r] = r * (int)sizeof(double);
        int pair = rank == 3 && r % 2 == 0;
        rc[r] = rank == 3 && r == 1 ? 2 : pair ? 2 : 1;
        rt[r] = rank == 3 && (r == 1 || pair) ? MPI_FLOAT : MPI_DOUBLE;
        rd[r] = r * (int)sizeof(double);
    }
    MPI_Alltoallw(send, sc, sd, st, recv, rc, rd, rt, MPI_COMM_WORLD);
}

/* A neighbourhood collective over a distributed graph of unequal degrees
 * (rank r sends to r + 1, and a multiple of 3 to r + 2 too), each block 1
 * double, but rank 2 receives 2 floats from rank 0 (its in-neighbour 1).
 * The checks judge it on the graph's communicator, when it is freed. */
static void neighbor_alltoallv_pair(void)
{
    int out[2] = {(rank + 1) % procs, (rank + 2) % procs};
    int in[2] = {(rank - 1 + procs) % procs, (rank - 2 + procs) % procs};
    int outdegree = rank % 3 == 0 ? 2 : 1, indegree = in[1] % 3 == 0 ? 2 : 1, ones[2] = {1, 1};
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indegree, in, ones, outdegree, out, ones,
                                   MPI_INFO_NULL, 0, &graph);
    double send[2] = {0, 0}, recv[2];
    int sc[2] = {1, 1}, sd[2] = {0, 1}, rc[2] = {1, 1}, rd[2] = {0, 1};
    if (rank == 2)
        rc[1] = 2; /* as floats, where rank 0 sends 1 double */
    MPI_Neighbor_alltoallv(send, sc, sd, MPI_DOUBLE, recv, rc, rd,
                           rank == 2 ? MPI_FLOAT : MPI_DOUBLE, graph);
    MPI_Comm_free(&graph);
}

/* Neighbor_alltoallw over a distributed graph of equal degrees (rank r
 * sends to r + 1 and r + 2: MPICH 4.0.2's int form goes wrong where they
 * differ, README "Known limits"), each block 1 double at a byte
 * displacement, but rank 2 receives 2 floats from rank 0 (its in-neighbour
 * 1). Judged when the graph is freed. */
static void neighbor_alltoallw_pair(void)
{
    int out[2] = {(rank + 1) % procs, (rank + 2) % procs};
    int in[2] = {(rank - 1 + procs) % procs, (rank - 2 + procs) % procs}, ones[2] = {1, 1};
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, ones, 2, out, ones, MPI_INFO_NULL, 0,
                                   &graph);
    double send[2] = {0, 0}, recv[2];
    int sc[2] = {1, 1}, rc[2] = {1, rank == 2 ? 2 : 1};
    MPI_Aint at[2] = {0, sizeof(double)};
    MPI_Datatype st[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Datatype rt[2] = {MPI_DOUBLE, rank == 2 ? MPI_FLOAT : MPI_DOUBLE};
    MPI_Neighbor_alltoallw(send, sc, at, st, recv, rc, at, rt, graph);
    MPI_Comm_free(&graph);
}

/* An I-form's signature mismatch, judged at the next blocking call. */
static void ibcast_signature(void)
{
    double d = 0;
    int two[2] = {1, 2};
    MPI_Request request;
    if (rank == 0)
        MPI_Ibcast(two, 2, MPI_INT, 0, MPI_COMM_WORLD, &request);
    else
        MPI_Ibcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

/* The same on a communicator of its own, judged when it is freed. */
static void split_freed(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int x = 1;
    MPI_Request request;
    MPI_Ibcast(&x, 1, rank == 1 ? MPI_FLOAT : MPI_INT, 0, half, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"routine", routine},
    {"skipped_call", skipped_call},
    {"blocking_and_i_form", blocking_and_i_form},
    {"root", root},
    {"op", op},
    {"exscan_op", exscan_op},
    {"user_op", user_op},
    {"signature", signature},
    {"in_place_off_root", in_place_off_root},
    {"in_place_some", in_place_some},
    {"gatherv_pair", gatherv_pair},
    {"alltoallv_pair", alltoallv_pair},
    {"alltoallw_pair", alltoallw_pair},
    {"neighbor_alltoallv_pair", neighbor_alltoallv_pair},
    {"neighbor_alltoallw_pair", neighbor_alltoallw_pair},
    {"ibcast_signature", ibcast_signature},
    {"split_freed", split_freed},
    {"skipped_last", skipped_last},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int found = 0;
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof *cases; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            int x = 1, y;
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* a right one */
            cases[i].run();
            if (cases[i].run != skipped_last)
                MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            found = 1;
        }
    if (!found && rank == 0)
        fprintf(stderr, "usage: mismatch CASE (routine, root, op, ...: see mismatch.c)\n");
    if (found && rank == 0)
        printf("mismatch: %s survived\n", argv[1]);
    MPI_Finalize();
    return found ? 0 : 2;
}
