/* forms: one call of each form of a collective that the trace's readers
 * name from its routine (viewer/read.c, routine_family), for the trace
 * test trace_forms and its readers in tests/viewer: MPI_Igather to root 1,
 * MPI_Ibarrier, MPI_Neighbor_alltoallw on a periodic ring and, where the
 * MPI has MPI 4's large-count and persistent forms (cmake/MpiForms.cmake),
 * MPI_Scatter_c from root 2, MPI_Reduce_init to root 1 and
 * MPI_Barrier_init (each started twice). Each result is checked; rank by
 * rank it prints "forms: rank R: every form delivered". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 100, ROOT = 1 };

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "forms: %s failed (%d)\n", what, err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void expect(int ok, int rank, const char *what)
{
    if (!ok) {
        fprintf(stderr, "forms: rank %d: %s delivered wrong data\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int mine[N], *all = malloc(sizeof(int) * N * (size_t)procs);
    if (all == NULL)
        check(MPI_ERR_NO_MEM, "malloc");
    for (int i = 0; i < N; i++)
        mine[i] = rank * N + i;

    MPI_Request request;
    check(MPI_Igather(mine, N, MPI_INT, all, N, MPI_INT, ROOT, MPI_COMM_WORLD, &request),
          "MPI_Igather");
    check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    for (int i = 0; rank == ROOT && i < N * procs; i++)
        expect(all[i] == i, rank, "MPI_Igather");

    check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");

    MPI_Comm ring;
    int periodic = 1;
    check(MPI_Cart_create(MPI_COMM_WORLD, 1, &procs, &periodic, 0, &ring), "MPI_Cart_create");
    int ring_rank, out[2], in[2] = {-1, -1}, counts[2] = {1, 1};
    MPI_Comm_rank(ring, &ring_rank);
    out[0] = out[1] = ring_rank;
    MPI_Aint displs[2] = {0, sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    check(MPI_Neighbor_alltoallw(out, counts, displs, types, in, counts, displs, types, ring),
          "MPI_Neighbor_alltoallw");
    expect(in[0] == (ring_rank + procs - 1) % procs && in[1] == (ring_rank + 1) % procs, rank,
           "MPI_Neighbor_alltoallw");
    MPI_Comm_free(&ring);

#if SCALEGUARD_LARGE_COUNT && SCALEGUARD_PERSISTENT
    for (int i = 0; i < N * procs; i++)
        all[i] = -i;
    check(MPI_Scatter_c(all, N, MPI_INT, mine, N, MPI_INT, 2 % procs, MPI_COMM_WORLD),
          "MPI_Scatter_c");
    for (int i = 0; i < N; i++)
        expect(mine[i] == -(rank * N + i), rank, "MPI_Scatter_c");

    int sum[N];
    check(MPI_Reduce_init(mine, sum, N, MPI_INT, MPI_SUM, ROOT, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &request),
          "MPI_Reduce_init");
    for (int start = 0; start < 2; start++) {
        for (int i = 0; i < N; i++)
            mine[i] = start + i;
        check(MPI_Start(&request), "MPI_Start");
        check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
        for (int i = 0; rank == ROOT && i < N; i++)
            expect(sum[i] == procs * (start + i), rank, "MPI_Reduce_init");
    }
    check(MPI_Request_free(&request), "MPI_Request_free");

    check(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &request), "MPI_Barrier_init");
    for (int start = 0; start < 2; start++) {
        check(MPI_Start(&request), "MPI_Start");
        check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    }
    check(MPI_Request_free(&request), "MPI_Request_free");
#endif
    printf("forms: rank %d: every form delivered\n", rank);
    free(all);
    MPI_Finalize();
    return 0;
}
